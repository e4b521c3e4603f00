"""The search starts on the interpreter and moves to the compiled rules when they
are ready (`ggp.player.service.staged_rules`): no wait for a slow compile, no lost step."""

from __future__ import annotations

import threading
import time

from gdl_texts import TICTACTOE
from ggp.games.base import GameError
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.load import game_from_text
from ggp.player.service.search_worker import SearchWorker
from ggp.player.service.staged_rules import StagedRules, replay


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


def test_replay_reaches_the_same_state_on_either_reasoner() -> None:
    joints = [["(mark 2 2)", "noop"], ["noop", "(mark 1 1)"]]
    interpreted = replay(game_from_text(TICTACTOE, reasoner="interpreter"), joints)
    compiled = replay(game_from_text(TICTACTOE, reasoner="compiled"), joints)
    assert interpreted.key() == compiled.key()
    assert interpreted.all_legal_moves() == compiled.all_legal_moves()
