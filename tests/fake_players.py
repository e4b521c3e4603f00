"""Players written for the referee's tests: GGP HTTP players that misbehave on purpose.

A `FakePlayer` follows its matches (it reads the rules from ``start`` and the
joint moves from ``play``; several matches at once) and answers the first legal
move, except at the steps given in `faults`, where it misbehaves in one of the
`FAULTS` ways.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from aiohttp import web
from ggp.games.base import State
from ggp.gdl.syntax.parser import parse_sexprs
from ggp.gdl.syntax.terms import to_kif
from ggp.server.rules import game_from_rules

TICTACTOE_GDL = """
; Tic-tac-toe with the roles, moves and facts of the built-in game.
(role xplayer) (role oplayer)
(index 1) (index 2) (index 3)
(<= (base (cell ?r ?c ?v)) (index ?r) (index ?c) (mark_of ?p ?v))
(<= (base (cell ?r ?c b)) (index ?r) (index ?c))
(<= (base (control ?p)) (role ?p))
(mark_of xplayer x) (mark_of oplayer o)
(init (cell 1 1 b)) (init (cell 1 2 b)) (init (cell 1 3 b))
(init (cell 2 1 b)) (init (cell 2 2 b)) (init (cell 2 3 b))
(init (cell 3 1 b)) (init (cell 3 2 b)) (init (cell 3 3 b))
(init (control xplayer))
(<= (legal ?p (mark ?r ?c)) (true (control ?p)) (true (cell ?r ?c b)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (cell ?r ?c ?v)) (does ?p (mark ?r ?c)) (mark_of ?p ?v))
(<= (next (cell ?r ?c ?v)) (true (cell ?r ?c ?v)) (distinct ?v b))
(<= (next (cell ?r ?c b)) (true (cell ?r ?c b)) (does ?p (mark ?x ?y)) (distinct ?r ?x))
(<= (next (cell ?r ?c b)) (true (cell ?r ?c b)) (does ?p (mark ?x ?y)) (distinct ?c ?y))
(<= (next (control oplayer)) (true (control xplayer)))
(<= (next (control xplayer)) (true (control oplayer)))
(<= (row ?r ?v) (true (cell ?r 1 ?v)) (true (cell ?r 2 ?v)) (true (cell ?r 3 ?v)))
(<= (column ?c ?v) (true (cell 1 ?c ?v)) (true (cell 2 ?c ?v)) (true (cell 3 ?c ?v)))
(<= (diagonal ?v) (true (cell 1 1 ?v)) (true (cell 2 2 ?v)) (true (cell 3 3 ?v)))
(<= (diagonal ?v) (true (cell 1 3 ?v)) (true (cell 2 2 ?v)) (true (cell 3 1 ?v)))
(<= (line ?v) (row ?r ?v))
(<= (line ?v) (column ?c ?v))
(<= (line ?v) (diagonal ?v))
(<= open (true (cell ?r ?c b)))
(<= (goal ?p 100) (mark_of ?p ?v) (line ?v))
(<= (goal ?p 0) (mark_of ?p ?v) (mark_of ?q ?w) (distinct ?p ?q) (line ?w))
(<= (goal ?p 50) (role ?p) (not (line x)) (not (line o)))
(<= terminal (line x))
(<= terminal (line o))
(<= terminal (not open))
"""

FAULTS = ("late", "illegal", "garbage", "close", "noop_case", "wrong_noop")
"""How a fake player misbehaves at a step: reply after the deadline, reply
``(mark 9 9)``, reply ``(((``, close the connection without a reply, reply
``NOOP`` for ``noop``, reply ``noop`` when it has other moves."""


@dataclass
class Seat:
    """Where a fake player is in one match."""

    state: State
    role: int
    step: int = 0


@dataclass
class FakePlayer:
    """One fake GGP player: its faults by step (0 is the first ``play``), and what it saw."""

    faults: dict[int, str] = field(default_factory=dict)
    busy: set[int] = field(default_factory=set)
    """The starts (0 the first received) answered ``busy``, as a player does when it
    plays as many matches as it accepts."""
    silent_start: bool = False
    """Answer ``start`` late."""
    delay: float = 60.0
    """How long a late reply waits at most: it waits for the player's next message,
    which the referee sends only once it has given up on this reply, so a late reply
    is late however slowly the machine runs."""
    messages: list[str] = field(default_factory=list)
    matches: dict[str, Seat] = field(default_factory=dict)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/", self.handle)
        return app

    async def handle(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        self.messages.append(text)
        message = parse_sexprs(text)[0]
        kind = message[0].lower()
        if kind == "start" and self.starts_received() - 1 in self.busy:
            return web.Response(text="busy")
        if kind == "start":
            game = game_from_rules(" ".join(map(to_kif, message[3])))
            self.matches[message[1]] = Seat(game.initial_state(), game.roles.index(message[2]))
            if self.silent_start:
                await self.wait_for_next_message()
            return web.Response(text="ready")
        if kind != "play":
            return web.Response(text="done" if kind == "stop" else "aborted")
        seat = self.matches[message[1]]
        if not isinstance(message[2], str):  # NIL at the first step
            seat.state = seat.state.next([to_kif(move) for move in message[2]])
        fault = self.faults.get(seat.step)
        seat.step += 1
        legal = seat.state.legal_moves(seat.role)
        move = legal[0]
        if fault == "late":
            await self.wait_for_next_message()
        elif fault == "illegal":
            move = "(mark 9 9)"
        elif fault == "garbage":
            move = "((("
        elif fault == "close":
            assert request.transport is not None
            request.transport.close()
        elif fault == "noop_case":
            assert legal == ("noop",), "noop_case needs a step where the player must noop"
            move = "NOOP"
        elif fault == "wrong_noop":
            assert "noop" not in legal, "wrong_noop needs a step where the player must move"
            move = "noop"
        return web.Response(text=move, content_type="text/acl")

    def starts_received(self) -> int:
        return sum(message.lstrip("( ").lower().startswith("start") for message in self.messages)

    async def wait_for_next_message(self) -> None:
        received = len(self.messages)
        give_up = asyncio.get_running_loop().time() + self.delay
        while len(self.messages) == received and asyncio.get_running_loop().time() < give_up:
            await asyncio.sleep(0.01)


def served(*fakes: FakePlayer) -> contextlib.AbstractContextManager[list[str]]:
    """Serve the fake players on loopback ports from a thread of their own (for code
    that runs its own event loop, such as `run_tournament`); yield their addresses."""
    return served_apps(*(fake.app() for fake in fakes))


@contextlib.contextmanager
def served_apps(*apps: web.Application) -> Iterator[list[str]]:
    """Serve aiohttp applications on loopback ports from a thread of their own."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runners: list[web.AppRunner] = []

    async def setup() -> list[str]:
        urls = []
        for app in apps:
            runner = web.AppRunner(app, shutdown_timeout=0.5)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            runners.append(runner)
            host, port = runner.addresses[0][:2]
            urls.append(f"http://{host}:{port}")
        return urls

    async def cleanup() -> None:
        for runner in runners:
            await runner.cleanup()

    try:
        yield asyncio.run_coroutine_threadsafe(setup(), loop).result(10)
    finally:
        asyncio.run_coroutine_threadsafe(cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
