"""The search starts on the interpreter and moves to the compiled rules when they
are ready (`ggp.player.service.staged_rules`): no wait for a slow compile, no lost step."""

from __future__ import annotations

import math
import os
import threading
import time
import types

import pytest
from gdl_texts import TICTACTOE
from ggp.games.base import GameError
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import game_from_text, with_reasoner
from ggp.gdl.native import build
from ggp.gdl.native.attach import attach_native
from ggp.player.service import search_worker, serve_playouts
from ggp.player.service.search_worker import LineReader, SearchWorker
from ggp.player.service.staged_rules import StagedRules, replay
from test_gdl_budgets import COUNTING, budget_without_general
from test_gdl_native import needs_native


class HeldBuilder:
    """Builds the compiled game only once `release` is set: a compile as slow as the test wants."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, rules: str) -> CompiledGame:
        self.calls += 1
        assert self.release.wait(120)
        game = game_from_text(rules, reasoner="compiled")
        assert isinstance(game, CompiledGame)
        return game


def search(worker: SearchWorker, role: int, iterations: int = 40) -> dict:
    command = {"cmd": "search", "role": role, "until": time.time() + 60, "iterations": iterations}
    return worker.handle(command)


def test_the_search_runs_on_the_interpreter_until_the_compiled_rules_are_ready() -> None:
    builder = HeldBuilder()
    worker = SearchWorker(builder)
    assert worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False}) == {
        "roles": ["xplayer", "oplayer"]
    }
    first = search(worker, 0)
    assert first["sims"] == 40 and first["reasoner"] == "interpreter"
    worker.handle({"cmd": "advance", "joint": [first["move"], "noop"]})
    second = search(worker, 1)
    assert second["sims"] == 40 and second["reasoner"] == "interpreter"
    interpreted = worker.tree.root.state
    builder.release.set()
    assert worker.staged is not None and worker.staged.wait(120)
    worker.handle({"cmd": "advance", "joint": ["noop", second["move"]]})
    tree = worker.tree
    assert worker.staged is None and isinstance(tree.root.state.game, CompiledGame)
    assert tree.root.depth == 2 and worker.steps == 2
    assert tree.root.state.key() == interpreted.next(["noop", second["move"]]).key()
    third = search(worker, 0)
    assert third["sims"] == 40 and third["reasoner"] == "compiled"
    assert third["steps"] == 2 and builder.calls == 1


def test_rules_ready_in_the_middle_of_a_search_are_taken_if_it_is_at_most_half_over(
    monkeypatch,
) -> None:
    builder = HeldBuilder()
    worker = SearchWorker(builder)
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    tree = worker.tree
    search_once = tree.search
    looks = []

    def release_after_ten(**budget) -> int:
        looks.append(1)
        if len(looks) == 10:
            builder.release.set()
            worker.staged.wait(120)
        return search_once(**budget)

    monkeypatch.setattr(tree, "search", release_after_ten)
    answer = search(worker, 0, 200)
    assert answer["reasoner"] == "interpreter, then compiled"
    assert isinstance(worker.tree.root.state.game, CompiledGame)
    assert worker.tree.root.visits < 200  # the new tree holds the simulations after the move


@pytest.mark.parametrize(
    ("small", "start_clock"), [(search_worker.SMALL_TREE, False), (0, False), (0, True)]
)
def test_past_half_a_search_moves_to_the_rules_only_from_a_small_tree(
    small, start_clock, monkeypatch
) -> None:
    """The rules come when 40 of the search's 60 s have passed (a clock moved on,
    not waited for): a tree of a few nodes is left for them, unless none is small;
    the start clock's search moves to them whatever its tree."""
    monkeypatch.setattr(search_worker, "SMALL_TREE", small)
    builder = HeldBuilder()
    worker = SearchWorker(builder)
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    tree = worker.tree
    search_once = tree.search
    skipped = [0.0]
    looks = []

    def release_late(**budget) -> int:
        looks.append(1)
        if len(looks) == 3:
            builder.release.set()
            worker.staged.wait(120)
            skipped[0] = 40.0
        return search_once(**budget)

    class Clock(types.SimpleNamespace):
        """The time module, its monotonic clock moved on by `skipped`."""

        def monotonic(self) -> float:
            return time.monotonic() + skipped[0]

        def __getattr__(self, name: str):
            return getattr(time, name)

    monkeypatch.setattr(search_worker, "time", Clock())
    monkeypatch.setattr(tree, "search", release_late)
    command = {"cmd": "search", "role": 0, "until": time.time() + 60, "iterations": 6}
    answer = worker.handle(command | {"start": True} if start_clock else command)
    assert tree.node_count <= 10  # a few nodes at the release
    if small or start_clock:
        assert answer["reasoner"] == "interpreter, then compiled"
        assert isinstance(worker.tree.root.state.game, CompiledGame)
    else:
        assert answer["reasoner"] == "interpreter" and worker.tree is tree


def test_rules_that_do_not_compile_leave_the_interpreter_playing() -> None:
    def refuse(rules: str) -> CompiledGame:
        raise GameError("too large")

    worker = SearchWorker(refuse)
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    worker.settle(120)
    assert worker.staged is None
    assert search(worker, 0)["reasoner"] == "interpreter"


def test_a_failing_builder_is_reported_not_raised(capsys) -> None:
    def broken(rules: str) -> CompiledGame:
        raise ZeroDivisionError("a bug")

    staged = StagedRules(TICTACTOE, broken)
    assert staged.wait(120) and staged.game is None
    assert "ZeroDivisionError" in staged.why and "ZeroDivisionError" in capsys.readouterr().err


class NativeLater:
    """Builds COUNTING compiled without its general next-state function, its native
    code attached by a thread held until `release` (none attached with `attach` off)."""

    def __init__(self, attach: bool) -> None:
        self.attach = attach
        self.release = threading.Event()
        self.game: CompiledGame | None = None

    def __call__(self, rules: str) -> CompiledGame:
        game = with_reasoner(GdlGame.from_text(rules), "compiled", budget_without_general())
        assert isinstance(game, CompiledGame) and game.compiled.general_left

        def native_code() -> None:
            assert self.release.wait(120)
            if self.attach:
                attach_native(game)

        game.native_build = threading.Thread(target=native_code, daemon=True)
        game.native_build.start()
        self.game = game
        return game


@needs_native
def test_rules_without_their_general_next_state_wait_for_native_code(monkeypatch, tmp_path) -> None:
    """The generated Python's general next state, left out of the budget, is not
    written where native code is coming: the game is handed over with it attached."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    builder = NativeLater(attach=True)
    staged = StagedRules(COUNTING, builder)
    assert not staged.wait(0.5)  # compiled, but native code not yet attached
    builder.release.set()
    assert staged.wait(120) and staged.game is builder.game and staged.game.native is not None
    assert staged.game.native is not None and "next" not in staged.game.compiled.functions
    state = replay(staged.game, [[staged.game.initial_state().all_legal_moves()[0][0]]])
    assert state.key() != staged.game.initial_state().key()


def test_rules_whose_native_code_fails_get_their_general_next_state_written() -> None:
    builder = NativeLater(attach=False)
    staged = StagedRules(COUNTING, builder)
    builder.release.set()
    assert staged.wait(120) and staged.game is builder.game and staged.game.native is None
    assert "next" in staged.game.compiled.functions and not staged.game.compiled.general_left


def test_replay_reaches_the_same_state_on_either_reasoner() -> None:
    joints = [["(mark 2 2)", "noop"], ["noop", "(mark 1 1)"]]
    interpreted = replay(game_from_text(TICTACTOE, reasoner="interpreter"), joints)
    compiled = replay(game_from_text(TICTACTOE, reasoner="compiled"), joints)
    assert interpreted.key() == compiled.key()
    assert interpreted.all_legal_moves() == compiled.all_legal_moves()


LONG_RACE = (
    "(role runner) (init (at 0)) (legal runner step) (legal runner rest)\n"
    "(<= (next (at ?n)) (true (at ?m)) (succ ?m ?n))\n"
    "(<= terminal (true (at 300)))\n(goal runner 100)\n"
    + "\n".join(f"(succ {n} {n + 1})" for n in range(300))
)
"""A one-role game whose every playout takes 300 moves on the interpreter (searched
by MCTS, not the puzzle search, where these tests say so)."""


class LookCounter:
    """The worker's clock, moving 10 ms at each look."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.01
        return self.now

    def time(self) -> float:
        return 1_000_000.0 + self.monotonic()

    @staticmethod
    def thread_time() -> float:
        return time.thread_time()

    @staticmethod
    def process_time() -> float:
        return time.process_time()


def test_a_playout_on_the_interpreter_stops_at_the_search_deadline(monkeypatch) -> None:
    """One playout longer than the whole search: it ends at the deadline, valued as
    nothing known, and the search answers (a first simulation no longer decides
    whether a reply is in time)."""
    monkeypatch.setattr(search_worker, "SEARCH_PUZZLES", False)  # MCTS's playouts
    worker = SearchWorker(HeldBuilder())
    worker.handle({"cmd": "load", "rules": LONG_RACE, "traps": False})
    clock = LookCounter()
    monkeypatch.setattr(search_worker, "time", clock)
    until = clock.time() + 1.0  # a hundred looks: a third of one playout
    answer = worker.handle({"cmd": "search", "role": 0, "until": until, "iterations": None})
    assert answer["sims"] == 1 and answer["reasoner"] == "interpreter"
    assert answer["move"] in ("step", "rest")
    assert worker.tree.root.visits == 1 and worker.stop_at == math.inf
    (row,) = [row for row in answer["stats"] if row[1]]
    assert row[2] == serve_playouts.STOPPED


def test_pondering_on_the_interpreter_stops_when_a_command_is_waiting(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_PUZZLES", False)  # MCTS's playouts
    worker = SearchWorker(HeldBuilder())
    worker.handle({"cmd": "load", "rules": LONG_RACE, "traps": False, "ponder": 60})
    looks = []
    worker.waiting = lambda: looks.append(1) or len(looks) > 5
    worker.ponder()
    assert len(looks) == 6 and worker.tree.root.visits == 1
    rewards = worker.tree.root.sums[0]
    assert sum(rewards) == serve_playouts.STOPPED


def test_the_line_reader_says_when_a_line_is_waiting() -> None:
    read, write = os.pipe()
    lines = LineReader(read)
    assert not lines.pending()
    os.write(write, b'{"cmd": "quit"}\n')
    assert lines.pending() and lines.readline(1) == '{"cmd": "quit"}\n'
    assert not lines.pending()
    os.close(write)
    assert lines.pending() and lines.readline(1) == ""
    os.close(read)


def test_no_pondering_on_the_interpreter_after_slow_simulations() -> None:
    worker = SearchWorker(HeldBuilder())
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False, "ponder": 60})
    worker.heard("load")
    assert worker.pondering  # no search yet: nothing known to be slow
    worker.slowest = search_worker.PONDER_INTERPRETED
    assert not worker.pondering and worker.patience() is None  # waits for the next command
    worker.slowest = search_worker.PONDER_INTERPRETED / 2
    assert worker.pondering
