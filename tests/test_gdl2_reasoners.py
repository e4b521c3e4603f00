"""GDL-II's percepts computed by every reasoner itself: the interpreter, the compiled
rules' generated Python and native code agree on random playouts of the shipped
GDL-II games, of a game written to reach the corners of ``sees`` (static percepts,
negation, derived and recursive relations, cyclic ground rules), and on the Dresden
GameController's logs when a run of it left them (see
``benchmarks/gamecontroller_percepts.py``)."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from ggp.games.registry import gdl_ii_games, load_game
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import game_from_text
from ggp.gdl.native.build import NativeUnavailable, check_available

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import gamecontroller_percepts  # noqa: E402

CORNERS = """
(role watcher) (role random)
(init (hidden 0)) (init (count 0))
(value 1) (value 2) (value 3)
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (less ?a ?b) (succ ?a ?b))
(<= (less ?a ?c) (succ ?a ?b) (less ?b ?c))
(adj 1 2) (adj 2 1) (adj 2 3) (adj 3 2)
(<= (legal random (set ?n)) (value ?n))
(<= (legal watcher (guess ?n)) (value ?n))
(<= (legal watcher wait) (true (count 1)))
(<= (next (hidden ?n)) (does random (set ?n)))
(<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))
(<= (next done) (true (count 2)))
(<= (conn ?n) (does random (set ?n)) (true (count 1)))
(<= (conn ?b) (conn ?a) (adj ?a ?b))
(<= (sees watcher (right ?n)) (does watcher (guess ?n)) (true (hidden ?n)))
(<= (sees watcher wrong) (does watcher (guess ?n)) (not (true (hidden ?n))))
(<= (sees watcher (above ?n)) (does random (set ?m)) (less ?n ?m) (value ?n))
(<= (sees random (conn ?n)) (conn ?n))
(sees watcher always)
(<= terminal (true done))
(goal watcher 50) (goal random 0)
"""
"""Percepts that are static (``always``), negated (``wrong``), read a recursive static
relation (``above``) and a cyclic component of ground rules on the moves (``conn``:
1, 2 and 3 reach each other)."""

LOGS = Path(os.environ.get("GGP_GAMECONTROLLER_LOGS", "/tmp/gc/logs"))
"""The GameController's console logs, if a run of it left them (never in the project)."""


def faster_reasoners() -> list[str]:
    names = ["compiled"]
    try:
        check_available()
        names.append("native")
    except NativeUnavailable:
        pass
    return names


def on_its_own(game: GdlGame, reasoner: str) -> CompiledGame:
    """`game` as `reasoner` built it, native code attached if asked for, and unable to
    ask the interpreter anything (percepts included): it must answer itself."""
    assert isinstance(game, CompiledGame)
    if reasoner == "native":
        assert game.native_build is not None
        game.native_build.join()
        assert game.native is not None, game.not_native

    def no_interpreter(bits: int) -> None:
        raise AssertionError("the interpreter was asked")

    game.interpreted = no_interpreter  # type: ignore[method-assign]
    return game


def replay_agrees(reference: GdlGame, other: GdlGame, seeds: range) -> set[str]:
    """Random playouts on `reference`, replayed on `other`: the same legal moves,
    percepts, states and goals at every step.  Returns every percept seen."""
    seen: set[str] = set()
    for seed in seeds:
        rng = random.Random(seed)
        state, mirror = reference.initial_state(), other.initial_state()
        while not state.is_terminal():
            moves = state.all_legal_moves()
            assert mirror.all_legal_moves() == moves
            joint = [rng.choice(legal) for legal in moves]
            percepts = state.percepts(joint)
            assert mirror.percepts(joint) == percepts, (seed, joint)
            seen.update(p for role in percepts for p in role)
            state, mirror = state.next(joint), mirror.next(joint)
            assert mirror.key() == state.key()
        assert mirror.is_terminal() and mirror.goals() == state.goals()
    return seen


@pytest.mark.parametrize("reasoner", faster_reasoners())
@pytest.mark.parametrize("name", sorted(gdl_ii_games()))
def test_every_reasoner_computes_the_percepts_of_the_shipped_games(
    name: str, reasoner: str
) -> None:
    reference = load_game(name, reasoner="interpreter")
    other = on_its_own(load_game(name, reasoner=reasoner), reasoner)
    assert replay_agrees(reference, other, range(60))


@pytest.mark.parametrize("reasoner", faster_reasoners())
def test_percepts_static_negated_derived_and_cyclic(reasoner: str) -> None:
    reference = game_from_text(CORNERS, "corners", reasoner="interpreter")
    other = on_its_own(game_from_text(CORNERS, "corners", reasoner=reasoner), reasoner)
    seen = replay_agrees(reference, other, range(80))
    for percept in ("always", "wrong", "(right 2)", "(above 2)", "(conn 1)", "(conn 3)"):
        assert percept in seen


@pytest.mark.parametrize("reasoner", faster_reasoners())
def test_percepts_that_can_never_hold(reasoner: str) -> None:
    rules = [line for line in CORNERS.splitlines() if "sees" not in line]
    blind = "\n".join(rules) + "(<= (sees watcher seen) (true (hidden 7)))"
    reference = game_from_text(blind, "blind", reasoner="interpreter")
    other = on_its_own(game_from_text(blind, "blind", reasoner=reasoner), reasoner)
    assert other.gdl_ii and replay_agrees(reference, other, range(5)) == set()


@pytest.mark.parametrize("reasoner", faster_reasoners())
def test_compiled_percepts_are_checked_and_spelt_as_the_interpreters(reasoner: str) -> None:
    reference = game_from_text(CORNERS, "corners", reasoner="interpreter").initial_state()
    state = on_its_own(game_from_text(CORNERS, "corners", reasoner=reasoner), reasoner)
    state = state.initial_state()
    assert state.percepts(["(GUESS 1)", "(set 3)"]) == reference.percepts(["(guess 1)", "(set 3)"])
    for wrong in (["(guess 4)", "(set 1)"], ["(guess 1)"]):
        with pytest.raises(Exception) as ours:
            state.percepts(wrong)
        with pytest.raises(Exception) as theirs:
            reference.percepts(wrong)
        assert type(ours.value) is type(theirs.value)


@pytest.mark.parametrize("reasoner", ["interpreter", *faster_reasoners()])
def test_the_gamecontroller_logs_agree_with_every_reasoner(reasoner: str) -> None:
    """Skipped unless the GameController's logs are at `LOGS`."""
    logs = sorted(LOGS.glob("*.log")) if LOGS.is_dir() else []
    if not logs:
        pytest.skip(f"no GameController logs in {LOGS}")
    games = {}
    compared = 0
    for path in logs:
        name = path.name.split(".")[0]
        text = path.read_text(errors="replace")
        if name not in gdl_ii_games() or "Game over!" not in text:
            continue
        if name not in games:
            game = load_game(name, reasoner=reasoner)
            games[name] = game if reasoner == "interpreter" else on_its_own(game, reasoner)
        logged = gamecontroller_percepts.parse_log(text)
        assert gamecontroller_percepts.differences(games[name], logged) == [], path.name
        compared += 1
    assert compared
