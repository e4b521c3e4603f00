"""A player behind an HTTP address, spoken to as GGP-Base's game manager speaks.

One POST per message on a fresh connection (HTTP/1.0, as GGP-Base), with its
headers; the reply is the trimmed body, whatever the status line says.  A
reply that does not come within the clock plus the grace period is ``TO``;
a refused, reset or closed connection is ``CE``.

The referee may be asked to reach an address by someone else (the arena's
visitors), so the request is held to a policy whoever names the player: no
user name or password in the address, no redirect followed, a connect timeout,
a reply of at most `MAX_REPLY` bytes (a protocol reply is a move or ``ready``),
nothing decoded or proxied.  What went wrong is said in the referee's own words
(`RemotePlayer.problem`), never by quoting what the address answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from urllib.parse import urlsplit

import aiohttp
from ggp.games.base import GameError, State
from ggp.player.agents import Sight
from ggp.server.messages import (
    abort_message,
    gdl_ii_message,
    parse_move,
    play_message,
    start_message,
    stop_message,
)
from ggp.server.players import MatchSetup, Player, Reply

MAX_REPLY = 64 * 1024
"""Bytes of a reply read at most; a longer one is a connection error."""
CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection to a player at most (within the clock)."""


class ReplyTooLong(Exception):
    """The player's reply was over `MAX_REPLY` bytes."""


def is_player_url(spec: str) -> bool:
    """Whether a player spec names a remote player (``http://HOST:PORT``)."""
    return spec.lower().startswith(("http://", "https://"))


def player_url(spec: str) -> str:
    """``http://HOST:PORT/`` from a spec; a clear error if it is not such an address."""
    try:
        parts = urlsplit(spec)
        port = parts.port
    except ValueError as error:
        raise GameError(f"bad player address {spec!r}: {error}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or port is None:
        raise GameError(f"bad player address {spec!r}: expected http://HOST:PORT")
    if parts.username is not None or parts.password is not None:
        raise GameError("a player's address carries no user name or password")
    return f"{parts.scheme.lower()}://{parts.netloc}{parts.path or '/'}"


async def _read_capped(response: aiohttp.ClientResponse) -> bytes:
    """The body of `response`, or `ReplyTooLong` as soon as it passes `MAX_REPLY` bytes."""
    chunks: list[bytes] = []
    size = 0
    while chunk := await response.content.read(MAX_REPLY + 1 - size):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY:
            raise ReplyTooLong
    return b"".join(chunks)


def _connect_problem(error: aiohttp.ClientConnectorError) -> str:
    if isinstance(error.os_error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return "no such host"
    return "could not connect"


class RemotePlayer(Player):
    """A GGP player at `url`, reached over HTTP.

    With ``quote_replies=False`` (the arena) a reply that is not a legal move is
    judged ``IL`` without its text, so that what an address answers is never shown.
    """

    needs_rules = True
    quote_replies = True

    def __init__(self, spec: str) -> None:
        self.url = player_url(spec)
        self.name = spec
        self.role = 0
        self.problem: str | None = None
        """What went wrong with the last message, in the referee's words (None: nothing)."""
        netloc = urlsplit(self.url).netloc
        self.headers = {
            "Accept": "text/delim",
            "Sender": "GAMESERVER",
            "Receiver": netloc,
            "Content-Type": "text/acl",
        }
        self.session: aiohttp.ClientSession | None = None
        self.setup: MatchSetup | None = None
        self.turn = 0

    async def send(self, message: str, timeout: float | None) -> Reply:
        """POST `message`; the reply's trimmed text, or ``TO``/``CE`` (`problem` says why)."""
        if self.session is None:
            self.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(force_close=True),
                version=aiohttp.HttpVersion10,
                auto_decompress=False,
                trust_env=False,
            )
        connect = CONNECT_TIMEOUT if timeout is None else min(CONNECT_TIMEOUT, timeout)
        self.problem = None
        try:
            async with self.session.post(
                self.url,
                data=message.encode(),
                headers=self.headers,
                timeout=aiohttp.ClientTimeout(total=timeout, connect=connect),
                allow_redirects=False,
            ) as response:
                if 300 <= response.status < 400:
                    return self._failed("CE", f"it answered a redirect ({response.status})")
                body = await _read_capped(response)
        except TimeoutError:
            return self._failed("TO", "no reply in time")
        except ReplyTooLong:
            return self._failed("CE", f"reply over {MAX_REPLY // 1024} KB")
        except aiohttp.ClientConnectorError as error:
            return self._failed("CE", _connect_problem(error))
        except (aiohttp.ClientError, OSError):
            return self._failed("CE", "the connection broke")
        return Reply(body.decode("utf-8", errors="replace").strip())

    def _failed(self, code: str, problem: str) -> Reply:
        self.problem = problem
        return Reply(None, code)

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup = setup
        self.role = role
        self.turn = 0
        clocks = setup.clocks
        # The referee checks these before the match (`ggp.server.match.check_players`).
        assert setup.rules is not None and clocks.start is not None and clocks.play is not None
        message = start_message(
            setup.match_id, setup.game.roles[role], setup.rules, clocks.start, clocks.play
        )
        return await self.send(message, setup.timeout(clocks.start))

    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        assert self.setup is not None
        if self.setup.game.gdl_ii:
            message = self._gdl_ii("PLAY", sight)
        else:
            message = play_message(self.setup.match_id, joint)
        reply = await self.send(message, self.setup.timeout(self.setup.clocks.play))
        if reply.text is None or self.quote_replies:
            return reply
        if parse_move(reply.text) not in state.legal_moves(self.role):
            return self._failed("IL", "not a legal move")
        return reply

    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        assert self.setup is not None
        if self.setup.game.gdl_ii:
            message = self._gdl_ii("STOP", sight)
        else:
            message = stop_message(self.setup.match_id, joint or ())
        await self.send(message, self.setup.timeout(self.setup.clocks.play))

    def _gdl_ii(self, kind: str, sight: Sight | None) -> str:
        """A GDL-II message: the turn (joint moves so far), our last move, our percepts."""
        assert self.setup is not None
        turn = self.turn
        self.turn += 1
        if sight is None:
            return gdl_ii_message(kind, self.setup.match_id, turn, None, ())
        return gdl_ii_message(kind, self.setup.match_id, turn, sight.move, sight.percepts)

    async def abort(self) -> None:
        if self.setup is not None:
            await self.send(abort_message(self.setup.match_id), self.setup.grace)

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None
            await asyncio.sleep(0)  # let the connector close its transports
