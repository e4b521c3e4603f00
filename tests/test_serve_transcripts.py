"""The exact bytes a real GGP-Base game server sent, replayed against our player.

`../shared/protocol/*-transcript.txt` record whole connections (requests in
upper and lower case, odd spacing, a GET with a stray line, an HTTP/1.1
OPTIONS preflight); `probes.txt` holds more requests of the same kind.  Each
request is sent as recorded over a socket, and each reply must be what the
protocol asks: info with the right status, ready, a legal move spelt as in
the rules, done, aborted, busy beyond one match, and a clear error for what
cannot be answered.  The connection must be closed after the reply.
"""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path

import pytest
from conftest import SHARED
from ggp.games.base import Game, State
from ggp.player.service.game_factory import game_from_text
from ggp.player.service.http_player import CORS_HEADERS, PlayerConfig, create_app
from ggp.player.service.protocol import Info, Play, Preview, Start, Stop, info_reply, parse_message

RECORDINGS = sorted((SHARED / "protocol").glob("*-transcript.txt")) + [
    SHARED / "protocol" / "probes.txt"
]


def recorded_requests(path: Path) -> list[bytes]:
    """The requests of a recording, in the order they were sent."""
    text = path.read_text()
    if path.name == "probes.txt":
        return [ast.literal_eval(r).encode() for r in re.findall(r"^REQUEST : (.*)$", text, re.M)]
    found = []
    for block in text.split("=" * 78)[1:]:
        sent = float(re.search(r"first-request-byte t=([\d.]+)", block).group(1))
        size, line = re.search(r"--- REQUEST \((\d+) bytes\) ---\n(.*)\n", block).groups()
        raw = line.replace("\\r\\n", "\r\n").encode()
        assert len(raw) == int(size)
        found.append((sent, raw))
    return [raw for _, raw in sorted(found)]  # blocks are written as connections close


async def exchange(host: str, port: int, request: bytes) -> tuple[str, dict[str, str], str]:
    """Send one raw request; the status line, headers and body of the reply."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request)
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 30)  # to the end: the player closes
    writer.close()
    head, _, body = raw.decode().partition("\r\n\r\n")
    status, *lines = head.split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, body


class Manager:
    """What the manager knows: the matches it started and where they stand."""

    def __init__(self) -> None:
        self.matches: dict[str, tuple[Game, int, State]] = {}

    def expected(self, request: bytes, reply: str) -> bool:
        """Whether `reply` is what the protocol asks in answer to `request`."""
        if request.startswith(b"OPTIONS"):
            return reply == ""
        if request.startswith(b"GET"):
            return reply == info_reply("tester", busy=bool(self.matches))
        text = request.partition(b"\r\n\r\n")[2].decode()
        if re.match(r"\(\s*foo\b", text, re.I):
            return reply.startswith('(error "unknown message type')
        message = parse_message(text)
        if isinstance(message, Info):
            return reply == info_reply("tester", busy=bool(self.matches))
        if isinstance(message, Preview):
            return reply == "ready"
        if isinstance(message, Start):
            if self.matches and message.match_id not in self.matches:
                return reply == "busy"
            game = game_from_text(message.rules, message.match_id)
            role = [r.lower() for r in game.roles].index(message.role.lower())
            self.matches[message.match_id] = (game, role, game.initial_state())
            return reply == "ready"
        if message.match_id not in self.matches:
            return reply.startswith(f'(error "no match {message.match_id} ')
        if isinstance(message, Play):
            game, role, state = self.matches[message.match_id]
            if message.moves is not None:
                state = state.next(message.moves)
                self.matches[message.match_id] = (game, role, state)
            return reply in state.legal_moves(role)
        del self.matches[message.match_id]
        return reply == ("done" if isinstance(message, Stop) else "aborted")


@pytest.mark.asyncio
@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda path: path.name)
async def test_recorded_requests_get_the_replies_the_protocol_asks(
    shared_dir, aiohttp_server, recording: Path
) -> None:
    server = await aiohttp_server(create_app(PlayerConfig(name="tester", iterations=30)))
    manager = Manager()
    requests = recorded_requests(recording)
    assert requests
    for request in requests:
        status, headers, body = await exchange(server.host, server.port, request)
        assert status.endswith(" 200 OK"), (request, status)
        assert headers["Content-Type"] == "text/acl"
        assert all(headers[name] == value for name, value in CORS_HEADERS.items())
        assert manager.expected(request, body), (request[-80:], body)
    assert not manager.matches  # every match was ended


def test_the_replayed_messages_include_every_kind(shared_dir) -> None:
    bodies = b" ".join(r for path in RECORDINGS for r in recorded_requests(path)).upper()
    for kind in (b"( INFO )", b"(INFO)", b"START", b"PLAY", b"STOP", b"ABORT", b"PREVIEW"):
        assert kind in bodies
    assert b"OPTIONS / HTTP/1.1" in bodies and b"GET /%28+INFO+%29" in bodies
