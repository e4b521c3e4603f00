"""The GGP HTTP player: an aiohttp application answering a game manager.

`create_app(PlayerConfig(...))` builds it; ``ggp serve`` runs it.  Messages
come as POST bodies (as GGP-Base sends them) or as ``GET /<url-encoded
message>``; an OPTIONS preflight is answered for browser-based managers.
Every reply is ``text/acl`` with the CORS headers, and the connection is
closed after it (managers open one per message).  The event loop does no
work that grows with what it is sent beyond reading a message of at most
`READ_AT_ONCE` bytes: the rules are read, checked and played in child
processes (`ggp.player.service.session`), so `info` and other matches are answered at
once whatever a match costs.  Each reply is logged on one line once written:
message type, match, reply, the time since the message arrived, and for
``play`` the simulations behind the move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote_plus

from aiohttp import web
from ggp.player.search.mcts import DEFAULT_FINAL, FINAL_CHOICES
from ggp.player.search.state_table import prune_tables
from ggp.player.service.front_page import front_page
from ggp.player.service.game_client import GameClient
from ggp.player.service.logs import escape_controls
from ggp.player.service.protocol import (
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
    read_message,
)
from ggp.player.service.session import (
    TACTICS,
    TACTICS_RACE,
    Choice,
    Limits,
    MoveError,
    Session,
    answer_grace,
    clamp_clock,
    reply_deadline,
)

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

DEFAULT_IDLE_CLOCKS = 3.0
"""Play clocks without a message after which a match is taken as abandoned..."""

IDLE_SECONDS = 60.0
"""...and at least this many seconds, whatever the play clock: a referee's own step of a
large game can outlast a few short play clocks (a referee on kalaha_2009, waiting for
its rules' native code, sent nothing for 15 s at a 5 s play clock), and a match ended
then is lost whole."""

DEFAULT_MAX_TABLES = 100
"""State tables kept in the table folder; the oldest beyond are deleted."""

_LOGGED = 200
"""How much of a message the debug log shows."""

_REAP_EVERY = 0.5
"""Seconds between two looks for abandoned matches."""

DEFAULT_READ_TIMEOUT = 10.0
"""Seconds a message may take to arrive whole, headers and body (a game manager's
arrives in well under one); a connection stalled longer is closed."""


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
    """At most this many iterations per search (None: until the deadline)."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """At most this many nodes in a match's search trees, shared among its
    workers (None: no limit)."""
    workers: int = 1
    """Search worker processes per match (`ggp.player.service.worker_pool`)."""
    races: bool = True
    """Whether the search's configuration is chosen by races on each game
    (`ggp.player.search.races`)."""
    tactics: bool = TACTICS
    """Whether each position is searched for forced wins and losses before the MCTS
    search (`ggp.player.search.tactics`)..."""
    tactics_race: bool = TACTICS_RACE
    """...and where not, whether the races judge them on each game."""
    final: str = DEFAULT_FINAL
    """How the move is chosen from the search's root statistics
    (`ggp.player.search.mcts.FINAL_CHOICES`)."""
    idle_clocks: float = DEFAULT_IDLE_CLOCKS
    """A match without a message for this many play clocks since the last reply is ended."""
    max_tables: int = DEFAULT_MAX_TABLES
    """State tables kept in `table_dir` (the oldest beyond are deleted)."""
    limits: Limits = Limits()
    """The memory of each match's child processes."""
    read_timeout: float = DEFAULT_READ_TIMEOUT
    """Seconds a message may take to arrive (`server_options` for its headers)."""

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
        if self.read_timeout <= 0:
            raise ValueError(f"the read timeout must be over 0 seconds, got {self.read_timeout}")
        if self.idle_clocks <= 0:
            raise ValueError(f"the idle time must be over 0 play clocks, got {self.idle_clocks}")
        if self.max_tables < 1:
            raise ValueError(f"the tables kept must be at least 1, got {self.max_tables}")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.final not in FINAL_CHOICES:
            raise ValueError(f"final must be one of {', '.join(FINAL_CHOICES)}, got {self.final!r}")


class _ReplyLine(NamedTuple):
    """What the log says of a reply."""

    kind: str
    match_id: str
    reply: str
    detail: str

    def log(self, took: float) -> None:
        log.info(
            "%s%s: %s in %.3f s%s",
            self.kind,
            f" {_short(self.match_id)}" if self.match_id else "",
            _short(self.reply),
            took,
            f", {_short(self.detail)}" if self.detail else "",
        )


PLAYER = web.AppKey("player", "Player")


def server_options(config: PlayerConfig) -> dict[str, float]:
    """The options of the server (`aiohttp.web.AppRunner`) that serves `create_app(config)`:
    a connection with no whole request within the read timeout (headers that stall, an
    idle connection) is closed; the body's own timeout is `Player.handle_post`'s."""
    return {"keepalive_timeout": config.read_timeout}


def create_app(config: PlayerConfig) -> web.Application:
    """The aiohttp application of a player configured by `config`."""
    app = web.Application(client_max_size=config.max_body)
    player = Player(config)
    app[PLAYER] = player
    app.router.add_route("POST", "/{path:.*}", player.handle_post)
    app.router.add_route("GET", "/{path:.*}", player.handle_get)
    app.router.add_route("OPTIONS", "/{path:.*}", player.handle_options)
    app.on_startup.append(player.startup)
    app.on_shutdown.append(player.shutdown)
    return app


def _response(text: str, status: int = 200) -> web.Response:
    response = web.Response(
        body=text.encode(), status=status, headers={"Content-Type": "text/acl", **CORS_HEADERS}
    )
    response.force_close()
    return response


async def _sent(request: web.Request, response: web.Response) -> web.Response:
    """`response`, written to the manager (so that the time logged after is the time it saw)."""
    with contextlib.suppress(ConnectionError):
        await response.prepare(request)
        await response.write_eof()
    return response


class Player:
    """The matches being played and the answer to each message."""

    def __init__(self, config: PlayerConfig) -> None:
        self.config = config
        self.sessions: dict[str, Session] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._spare: asyncio.Future[GameClient] | None = None
        """A game process started ahead, for the next match (`_take_copy`)."""

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
            async with asyncio.timeout(self.config.read_timeout):
                body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return self._too_large(None)
        except TimeoutError:
            return self._refused(
                408, f"the message did not arrive whole in {self.config.read_timeout:g} s"
            )
        except web.RequestPayloadError:  # a Content-Encoding the body does not have
            encoding = request.headers.get("Content-Encoding", "")
            return self._refused(
                400, f"the body is not encoded as its Content-Encoding ({encoding}) says"
            )
        return await self._reply(request, body.decode("utf-8", errors="replace"), arrival)

    async def handle_get(self, request: web.Request) -> web.Response:
        if request.raw_path == "/":  # a person with a browser, not a manager
            return front_page(request, self.config.name, self.busy)
        arrival = time.monotonic()
        return await self._reply(request, unquote_plus(request.raw_path[1:]), arrival)

    async def _reply(self, request: web.Request, text: str, arrival: float) -> web.Response:
        """Answer the message `text`, write the reply, then log it with the time taken."""
        reply, line = await self.answer(text, arrival)
        response = await _sent(request, _response(reply))
        if line is not None:
            line.log(time.monotonic() - arrival)
        return response

    async def handle_options(self, request: web.Request) -> web.Response:
        return _response("")

    def _refused(self, status: int, reason: str) -> web.Response:
        log.warning("refused a message: %s", reason)
        return _response(error_reply(reason), status=status)

    def _too_large(self, length: int | None) -> web.Response:
        size = f"{length} bytes" if length is not None else "too large"
        reason = f"message {size}: the limit is {self.config.max_body} bytes (--max-body)"
        log.warning("refused a message: %s", reason)
        return _response(error_reply(reason), status=413)

    # ------------------------------------------------------------ messages

    async def answer(self, text: str, arrival: float) -> tuple[str, _ReplyLine | None]:
        """The reply to the message `text`, which arrived at `arrival` (monotonic),
        and what to log once it is written."""
        log.debug("received: %s", _short(text))
        try:
            message = read_message(text)
        except ProtocolError as error:
            log.warning("unreadable message %s: %s", _short(text), error)
            return error_reply(str(error)), None
        match_id = getattr(message, "match_id", "")
        session = self.sessions.get(match_id)
        if session is not None:
            session.last_active = arrival
        reply, detail = await self._dispatch(message, arrival)
        if (session := self.sessions.get(match_id)) is not None:  # also a match just started
            session.last_active = time.monotonic()
        return reply, _ReplyLine(message.kind, match_id, reply, detail)

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
        running = self.sessions.get(message.match_id)
        if running is not None:
            reason = (
                f"match {message.match_id} is already being played here, as {running.role}; "
                "a start for it is refused until it ends (stop or abort)"
            )
            return error_reply(reason), "refused"
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
            races=self.config.races,
            tactics=self.config.tactics,
            tactics_race=self.config.tactics_race,
            final=self.config.final,
            limits=self.config.limits,
            spawn_copy=self._take_copy,
            answer_grace=answer_grace(self.config.margin),
        )
        self.sessions[message.match_id] = session
        start_clock = clamp_clock(message.start_clock)
        session.quiet_until = arrival + start_clock
        deadline = reply_deadline(arrival, start_clock, self.config.margin)
        async with session.lock:
            choice = await session.prepare(message.rules, start_clock, deadline)
        if session.problem is not None:
            return READY, f"but cannot play: {session.problem}"
        if session.lost is not None:
            return READY, f"but the server cannot follow the game: {session.lost}"
        if choice is None or choice.fallback is not None:
            return READY, f"as {message.role}, 0 simulations"
        line = f", {choice.line}" if choice.line else ""
        return READY, f"as {message.role}, {choice.sims} simulations{_searched_by(choice)}{line}"

    async def _play(self, session: Session, message: Play, arrival: float) -> tuple[str, str]:
        deadline = reply_deadline(arrival, session.play_clock, self.config.margin)
        async with session.lock:
            try:
                choice = await session.play(message.moves, deadline, message.seen)
            except MoveError as error:
                shown = "nil" if message.moves is None else " ".join(message.moves)
                log.warning("match %s: joint move %s refused: %s", session.match_id, shown, error)
                return error_reply(str(error)), "refused"
        if choice.forced:
            line = f", {session.line}" if session.line else ""
            return choice.move, f"the only legal move{line}"
        if choice.move == NIL:
            return NIL, f"cannot play: {choice.fallback}"
        if choice.fallback is not None:
            return choice.move, f"fallback: {choice.fallback}"
        unchecked = ", unchecked (the server's copy is stopped)" if choice.unchecked else ""
        pondered = (
            f" + {choice.pondered} pondered in {choice.ponder_seconds:.2f} s"
            if choice.pondered
            else ""
        )
        value = "" if choice.value is None else f", value {choice.value}"
        if choice.passed_over:
            value += f", over the most visited {choice.passed_over}"
        proven = "" if choice.proven is None else f", proven goal {choice.proven}"
        if choice.settled:
            proven += f", {choice.settled} iterations on proven nodes"
        tactics = f", tactics: {choice.tactics}" if choice.tactics else ""
        line = f"{choice.line}, " if choice.line else ""  # first: the log line is cut
        return (
            choice.move,
            f"{line}{choice.sims} simulations{pondered}, {choice.nodes} nodes{value}{proven}"
            f"{_searched_by(choice)}{tactics}{unchecked}",
        )

    async def _finish(
        self, session: Session, message: Stop | Abort, arrival: float
    ) -> tuple[str, str]:
        self.sessions.pop(session.match_id, None)  # the slot is free at once
        if session.lock.locked():  # a start or play still being handled: it ends now
            session.interrupt()
        deadline = reply_deadline(arrival, session.play_clock, self.config.margin)
        moves = message.moves if isinstance(message, Stop) else None
        async with session.lock:
            saved = await session.finish(moves, deadline)
        if saved and self.config.table_dir is not None:
            for dropped in prune_tables(self.config.table_dir, self.config.max_tables):
                log.info("deleted the state table %s (--max-tables)", dropped)
        reply = DONE if isinstance(message, Stop) else ABORTED
        return reply, f"state table saved in {saved}" if saved else ""

    # ------------------------------------------------------------ life cycle

    async def startup(self, app: web.Application) -> None:
        """Start looking for abandoned matches, and a game process for the first match."""
        self._reaper = asyncio.create_task(self._reap())
        self._spare = self._spawn_spare()

    def _spawn_spare(self) -> asyncio.Future[GameClient]:
        spare = asyncio.ensure_future(GameClient.spawn(self.config.limits.copy_memory))
        spare.add_done_callback(lambda done: done.cancelled() or done.exception())
        return spare

    async def warmed(self) -> None:
        """Wait until the game process kept for the next match has started (as it has
        long before a manager's first start; tests start matches at once)."""
        if self._spare is not None:
            with contextlib.suppress(OSError):
                await (await self._spare).request({"cmd": "ready"}, None)

    async def _take_copy(self) -> GameClient:
        """The game process started ahead (it has paid Python's start and the imports,
        seconds on a loaded machine), or a new one; another is started for the next match."""
        spare, self._spare = self._spare, self._spawn_spare()
        if spare is not None:
            with contextlib.suppress(OSError):
                copy = await spare
                if copy.alive:
                    return copy
                await copy.close(0)
        return await GameClient.spawn(self.config.limits.copy_memory)

    async def _reap(self) -> None:
        """End every match that has had no message for `idle_clocks` play clocks and
        `IDLE_SECONDS` (counted from the start clock's end at the earliest)."""
        while True:
            await asyncio.sleep(_REAP_EVERY)
            now = time.monotonic()
            for match_id, session in list(self.sessions.items()):
                idle = now - max(session.last_active, session.quiet_until)
                limit = max(self.config.idle_clocks * session.play_clock, IDLE_SECONDS)
                if session.lock.locked() or idle < limit:
                    continue
                log.warning(
                    "match %s: abandoned (no message for %.1f s, %g play clocks): ended",
                    match_id,
                    idle,
                    self.config.idle_clocks,
                )
                self.sessions.pop(match_id, None)
                await session.close(grace=0)

    async def shutdown(self, app: web.Application) -> None:
        """Kill every match's child processes at once (the server is going down)."""
        if self._reaper is not None:
            self._reaper.cancel()
        spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(OSError):
                copy = await spare
                copy.kill("the server is stopping")
                await copy.close(0)
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            session.interrupt()
        await asyncio.gather(*(session.close(grace=0) for session in sessions))


def _searched_by(choice: Choice) -> str:
    """What played the rules in a search and how it searched, for the log:
    `` (native, 8 playouts a leaf; random playouts, c=0.35)``."""
    said = "; ".join(part for part in (choice.reasoner, choice.config) if part)
    return f" ({said})" if said else ""


def _short(text: str) -> str:
    """`text` on one line, shortened, its control characters escaped (it comes from
    the network and goes to the log)."""
    flat = " ".join(text[: 2 * _LOGGED].split())  # a bounded part of a long message
    flat = escape_controls(flat if len(text) <= 2 * _LOGGED else flat + " ...")
    return flat if len(flat) <= _LOGGED else flat[: _LOGGED - 3] + "..."
