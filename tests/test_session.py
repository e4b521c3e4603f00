"""When replies are due (`ggp.player.service.session.reply_deadline`), and the server's
copy of the game."""

from __future__ import annotations

import asyncio
import sys
import time
from asyncio.subprocess import PIPE

import pytest
from gdl_texts import TICTACTOE
from ggp.gdl.load import game_from_text as load_gdl
from ggp.player.service import game_factory
from ggp.player.service.game_client import GameClient
from ggp.player.service.game_process import GameCopy
from ggp.player.service.session import (
    DEFAULT_COPY_MEMORY,
    MAX_CLOCK,
    TACTICS,
    Session,
    _Position,
    answer_grace,
    clamp_clock,
    reply_deadline,
)
from ggp.player.service.worker_client import WorkerClient, WorkerTimeout


def test_the_deadline_is_arrival_plus_clock_minus_margin() -> None:
    assert reply_deadline(100.0, 2.0, 0.5) == pytest.approx(101.5)
    assert reply_deadline(100.0, 30.0, 0.5) == pytest.approx(129.5)


def test_a_margin_larger_than_the_clock_leaves_a_tenth_of_it() -> None:
    assert reply_deadline(100.0, 1.0, 0.95) == pytest.approx(100.1)
    assert reply_deadline(100.0, 2.0, 5.0) == pytest.approx(100.2)


def test_a_late_answer_is_waited_for_up_to_half_the_margin() -> None:
    assert answer_grace(0.5) == pytest.approx(0.25)
    assert answer_grace(0.1) == pytest.approx(0.05)
    assert answer_grace(0.0) == 0.0
    assert answer_grace(5.0) == pytest.approx(0.25)


class _LateWorker:
    """A search worker answering `late` seconds after the end it was given (a loaded
    machine holding it up), and like `WorkerPool.request`, not after `timeout`."""

    alive = True

    def __init__(self, late: float) -> None:
        self.late = late

    async def request(self, command: dict, timeout: float | None) -> dict:
        answered = max(0.0, command["until"] - time.time()) + self.late
        if timeout is not None and answered > timeout:
            await asyncio.sleep(timeout)
            raise WorkerTimeout(f"no answer to search within {timeout:.3f} s")
        await asyncio.sleep(answered)
        move = {"move": "(mark 2 2)", "sims": 100, "nodes": 10, "steps": 0}
        return move | {"pondered": 0, "ponder_seconds": 0.0}


@pytest.mark.asyncio
@pytest.mark.parametrize(("late", "grace", "searched"), [(0.1, 0.25, True), (0.1, 0.0, False)])
async def test_a_search_answer_late_within_the_grace_is_played(
    late: float, grace: float, searched: bool
) -> None:
    """The worker's search ends `REPLY_ALLOWANCE` before the deadline; an answer later
    than the deadline by less than the grace is still the reply, not a random move."""
    session = Session("m", "xplayer", 1.0, answer_grace=grace)
    session.worker = _LateWorker(late)  # type: ignore[assignment]
    legal = ("(mark 1 1)", "(mark 2 2)", "(mark 3 3)")
    session._position = _Position(0, legal, False, 0)
    choice = await session._search(time.monotonic() + 0.3, legal)
    assert (choice.fallback is None) is searched
    if searched:
        assert choice.move == "(mark 2 2)" and choice.sims == 100


def test_absurd_clocks_are_clamped() -> None:
    assert clamp_clock(1e20) == MAX_CLOCK
    assert clamp_clock(30.0) == 30.0


def test_the_copy_of_the_game_is_interpreted(monkeypatch) -> None:
    """The server's copy (moves checked, fallback moves) is interpreted: it is
    ready at once, even when the worker spends seconds compiling the rules."""
    loaded = []

    def recorded(text: str, name: str, source: str, reasoner: str) -> object:
        loaded.append(reasoner)
        return load_gdl(text, name, source, reasoner=reasoner)

    monkeypatch.setattr(game_factory, "load_gdl", recorded)
    answer = GameCopy().build(TICTACTOE, "XPLAYER")
    assert loaded == ["interpreter"]
    assert answer["role"] == 0 and "(mark 1 1)" in answer["legal"]


@pytest.mark.asyncio
async def test_moves_are_answered_while_the_worker_does_not_answer(monkeypatch) -> None:
    """A worker that never answers (compiling large rules, say) costs the search,
    not the move: the copy's legal moves give a fallback in time."""

    async def silent() -> WorkerClient:
        sleeper = "import time; time.sleep(60)"
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", sleeper, stdin=PIPE, stdout=PIPE
        )
        return WorkerClient(process)

    monkeypatch.setattr(WorkerClient, "spawn", silent)
    # The copy is started (imports done) before the clocks run, as the server keeps one
    # ready: on a loaded machine, starting Python alone could take the whole start clock.
    copy = await GameClient.spawn(DEFAULT_COPY_MEMORY)
    await copy.request({"cmd": "ready"}, 120)

    async def ready_copy() -> GameClient:
        return copy

    session = Session("m", "xplayer", 1.0, iterations=20, spawn_copy=ready_copy)
    try:
        await session.prepare(TICTACTOE, 10.0, time.monotonic() + 5.0)
        choice = await session.play(None, time.monotonic() + 1.0)
        worker = session.worker
    finally:
        await session.close(grace=0)
    assert choice.move.startswith("(mark ") and choice.fallback is not None
    assert worker is not None and all(w.process.returncode is not None for w in worker.workers)


def test_the_worker_is_told_whether_to_race_configurations() -> None:
    assert Session("m", "xplayer", 1.0)._load_command()["races"] is True
    assert Session("m", "xplayer", 1.0, races=False)._load_command()["races"] is False


def test_the_worker_is_told_how_to_choose_the_move_from_its_statistics() -> None:
    assert Session("m", "xplayer", 1.0)._load_command()["final"] == "visits"
    assert Session("m", "xplayer", 1.0, final="lower")._load_command()["final"] == "lower"


def test_the_worker_is_told_whether_to_search_tactics() -> None:
    assert Session("m", "xplayer", 1.0)._load_command()["tactics"] is TACTICS
    assert Session("m", "xplayer", 1.0, tactics=True)._load_command()["tactics"] is True
    assert Session("m", "xplayer", 1.0, tactics=False)._load_command()["tactics"] is False
    raced = Session("m", "xplayer", 1.0, tactics=False, tactics_race=True)._load_command()
    assert raced["tactics_race"] is True
    assert Session("m", "xplayer", 1.0, tactics_race=False)._load_command()["tactics_race"] is False
    # the tactics on from the start: nothing to race
    assert Session("m", "xplayer", 1.0, tactics=True)._load_command()["tactics_race"] is False


def test_a_puzzle_fallback_plays_the_next_move_of_the_best_line_while_it_is_followed() -> None:
    """A late search in a puzzle (a loaded machine) must not leave the line it holds:
    the fallback plays the line's next move while every move since followed it."""
    session = Session("m", "solver", 1.0)
    session._plan = (1, ("b", "c", "a"))  # answered after the first joint move
    session._history = [("a",), ("b",)]
    session._position = _Position(0, ("a", "b", "c"), False, 2)
    choice = session._fallback("no answer in time")
    assert choice.move == "c" and choice.fallback == "no answer in time; the best line's next move"
    session._history = [("a",), ("c",)]  # another move was played: the line is left
    assert "best line" not in session._fallback("late").fallback
    session._history = [("a",), ("b",), ("c",), ("a",)]  # the line is over
    assert "best line" not in session._fallback("late").fallback
    session._plan = (0, ())  # no line known
    session._history = []
    assert "best line" not in session._fallback("late").fallback
