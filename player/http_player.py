"""The GGP HTTP player: an aiohttp application answering a game manager.

`create_app(PlayerConfig(...))` builds it; ``ggp serve`` runs it.  Messages
come as POST bodies (as GGP-Base sends them) or as ``GET /<url-encoded
message>``; an OPTIONS preflight is answered for browser-based managers.
Every reply is ``text/acl`` with the CORS headers, and the connection is
closed after it (managers open one per message).  Searches run in one worker
process per match (`player.session`), so `info` and other matches are
answered at once while a move is being thought about.  Each reply is logged
on one line: message type, match, reply, time taken, and for ``play`` the
simulations behind the move.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote_plus

from aiohttp import web

from player.protocol import (
    ABORTED,
    BUSY,
    DONE,
    NIL,
    READY,
    Abort,
    Info,
    Message,
    Play,
    Preview,
    ProtocolError,
    Start,
    Stop,
    check_name,
    error_reply,
    info_reply,
    parse_message,
)
from player.session import MoveError, Session, reply_deadline

log = logging.getLogger(__name__)

DEFAULT_MARGIN = 0.5
"""Seconds kept back from every clock for the network (see the README for the measurement)."""

DEFAULT_MAX_NODES = 500_000
"""Nodes a match's search tree may hold: 0.6 to 1 GB of worker memory at the
1.1 to 2 KB a node measured on Connect Four and Breakthrough (README, ``ggp serve``)."""

DEFAULT_MAX_BODY = 1_000_000
"""Largest message accepted, in bytes (the largest public game description is 70 kB)."""

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
}

_LOGGED = 200
"""How much of a message the debug log shows."""


@dataclass(frozen=True)
class PlayerConfig:
    """How the player runs; `ggp serve` makes one from its options."""

    name: str = "ggp-player"
    margin: float = DEFAULT_MARGIN
    """Seconds replies are sent before the clock runs out."""
    max_matches: int = 1
    """Matches played at once; beyond, ``start`` answers ``busy``."""
    table_dir: Path | None = None
    """Where state tables are kept between matches (None: no tables)."""
    max_body: int = DEFAULT_MAX_BODY
    iterations: int | None = None
    """At most this many simulations per search (None: until the deadline)."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """At most this many nodes in a match's search trees, shared among its
    workers (None: no limit)."""
    workers: int = 1
    """Search worker processes per match (`player.worker_pool`)."""

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.margin < 0:
            raise ValueError(f"the margin must be 0 or more seconds, got {self.margin}")
        if self.max_matches < 1:
            raise ValueError(f"max matches must be at least 1, got {self.max_matches}")
        if self.max_body < 1:
            raise ValueError(f"the largest body must be at least 1 byte, got {self.max_body}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"the node limit must be at least 1, got {self.max_nodes}")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")


PLAYER = web.AppKey("player", "Player")


def create_app(config: PlayerConfig) -> web.Application:
    """The aiohttp application of a player configured by `config`."""
    app = web.Application(client_max_size=config.max_body)
    player = Player(config)
    app[PLAYER] = player
    app.router.add_route("POST", "/{path:.*}", player.handle_post)
    app.router.add_route("GET", "/{path:.*}", player.handle_get)
    app.router.add_route("OPTIONS", "/{path:.*}", player.handle_options)
    app.on_shutdown.append(player.shutdown)
    return app


def _response(text: str, status: int = 200) -> web.Response:
    response = web.Response(
        body=text.encode(), status=status, headers={"Content-Type": "text/acl", **CORS_HEADERS}
    )
    response.force_close()
    return response


class Player:
    """The matches being played and the answer to each message."""

    def __init__(self, config: PlayerConfig) -> None:
        self.config = config
        self.sessions: dict[str, Session] = {}

    @property
    def busy(self) -> bool:
        return len(self.sessions) >= self.config.max_matches

    # ------------------------------------------------------------ HTTP

    async def handle_post(self, request: web.Request) -> web.Response:
        arrival = time.monotonic()
        limit = self.config.max_body
        if request.content_length is not None and request.content_length > limit:
            return self._too_large(request.content_length)
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return self._too_large(None)
        return _response(await self.answer(body.decode("utf-8", errors="replace"), arrival))

    async def handle_get(self, request: web.Request) -> web.Response:
        arrival = time.monotonic()
        return _response(await self.answer(unquote_plus(request.raw_path[1:]), arrival))

    async def handle_options(self, request: web.Request) -> web.Response:
        return _response("")

    def _too_large(self, length: int | None) -> web.Response:
        size = f"{length} bytes" if length is not None else "too large"
        reason = f"message {size}: the limit is {self.config.max_body} bytes (--max-body)"
        log.warning("refused a message: %s", reason)
        return _response(error_reply(reason), status=413)

    # ------------------------------------------------------------ messages

    async def answer(self, text: str, arrival: float) -> str:
        """The reply to the message `text`, which arrived at `arrival` (monotonic)."""
        log.debug("received: %s", _short(text))
        try:
            message = parse_message(text)
        except ProtocolError as error:
            log.warning("unreadable message %s: %s", _short(text), error)
            return error_reply(str(error))
        reply, detail = await self._dispatch(message, arrival)
        match_id = getattr(message, "match_id", "")
        took = time.monotonic() - arrival
        log.info(
            "%s%s: %s in %.3f s%s",
            message.kind,
            f" {match_id}" if match_id else "",
            _short(reply),
            took,
            f", {_short(detail)}" if detail else "",
        )
        return reply

    async def _dispatch(self, message: Message, arrival: float) -> tuple[str, str]:
        """The reply to `message` and what the log line adds to it."""
        if isinstance(message, Info):
            return info_reply(self.config.name, self.busy), ""
        if isinstance(message, Preview):
            return READY, ""
        if isinstance(message, Start):
            return await self._start(message, arrival)
        session = self.sessions.get(message.match_id)
        if session is None:
            return error_reply(f"no match {message.match_id} is being played here"), ""
        if isinstance(message, Play):
            return await self._play(session, message, arrival)
        assert isinstance(message, Stop | Abort)
        return await self._finish(session, message, arrival)

    async def _start(self, message: Start, arrival: float) -> tuple[str, str]:
        if message.match_id in self.sessions:
            return READY, "already started"
        if self.busy:
            playing = ", ".join(self.sessions)
            return BUSY, f"playing {playing} (--max-matches {self.config.max_matches})"
        session = Session(
            message.match_id,
            message.role,
            message.play_clock,
            table_dir=self.config.table_dir,
            iterations=self.config.iterations,
            max_nodes=self.config.max_nodes,
            workers=self.config.workers,
        )
        self.sessions[message.match_id] = session
        deadline = reply_deadline(arrival, message.start_clock, self.config.margin)
        async with session.lock:
            sims = await session.prepare(message.rules, deadline)
        if session.problem is not None:
            return READY, f"but cannot play: {session.problem}"
        return READY, f"as {message.role}, {sims} simulations"

    async def _play(self, session: Session, message: Play, arrival: float) -> tuple[str, str]:
        deadline = reply_deadline(arrival, session.play_clock, self.config.margin)
        async with session.lock:
            try:
                choice = await session.play(message.moves, deadline)
            except MoveError as error:
                shown = "nil" if message.moves is None else " ".join(message.moves)
                log.warning("match %s: joint move %s refused: %s", session.match_id, shown, error)
                return error_reply(str(error)), "refused"
        if choice.forced:
            return choice.move, "the only legal move"
        if choice.move == NIL:
            return NIL, f"cannot play: {choice.fallback}"
        if choice.fallback is not None:
            return choice.move, f"fallback: {choice.fallback}"
        pondered = (
            f" + {choice.pondered} pondered in {choice.ponder_seconds:.2f} s"
            if choice.pondered
            else ""
        )
        return choice.move, f"{choice.sims} simulations{pondered}, {choice.nodes} nodes"

    async def _finish(
        self, session: Session, message: Stop | Abort, arrival: float
    ) -> tuple[str, str]:
        self.sessions.pop(session.match_id, None)  # the slot is free at once
        deadline = reply_deadline(arrival, session.play_clock, self.config.margin)
        moves = message.moves if isinstance(message, Stop) else None
        async with session.lock:
            saved = await session.finish(moves, deadline)
        reply = DONE if isinstance(message, Stop) else ABORTED
        return reply, f"state table saved in {saved}" if saved else ""

    async def shutdown(self, app: web.Application) -> None:
        """Stop every match's worker (the server is going down)."""
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            await session.close()


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _LOGGED else flat[: _LOGGED - 3] + "..."
