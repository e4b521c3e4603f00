"""Playouts of one part of the state, the other parts frozen (`playouts.Part`,
`mcts:part_playouts=yes`): the generic version, native code's, and the search's use."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from ggp.games.base import GameError
from ggp.games.playouts import RANDOM, Part
from ggp.gdl.load import game_from_text
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import MCTS
from ggp.player.service import search_worker
from ggp.player.service.search_worker import SearchWorker
from test_gdl_native import native_game, needs_native
from test_mcts_factored import DRY, MARKS, RACE

C4SIM = (
    Path(__file__).parents[2] / "shared" / "gdl-corpus" / "games" / "connectFourSimultaneous.kif"
)
RED = frozenset({"(go red 1)", "(go red 2)"})

SPRINT = """
; Both roles at once mark one of their own cells; the first with 1 and 2 wins.
(role red) (role blue)
(cell 1) (cell 2) (cell 3)
(<= (legal ?r (put ?r ?x)) (role ?r) (cell ?x) (not (true (has ?r ?x))))
(<= (next (has ?r ?x)) (does ?r (put ?r ?x)))
(<= (next (has ?r ?x)) (true (has ?r ?x)))
(<= (done ?r) (true (has ?r 1)) (true (has ?r 2)))
(<= terminal (done ?r))
(<= (goal ?r 100) (done ?r) (role ?o) (distinct ?r ?o) (not (done ?o)))
(<= (goal ?r 50) (done ?r) (role ?o) (distinct ?r ?o) (done ?o))
(<= (goal ?r 0) (role ?r) (not (done ?r)))
"""
SPRINT_RED = frozenset({"(put red 1)", "(put red 2)", "(put red 3)"})

ENTANGLED = """
; Both roles at once; what blue's move marks depends on red's move, so what blue's
; move changes (undone in red's part) is not the same for each of red's moves.
(role red) (role blue)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(choice a) (choice b) (place x) (place y)
(<= (legal red (pick ?m)) (choice ?m) (true (step ?s)))
(<= (legal blue (put ?p)) (place ?p) (true (step ?s)))
(<= (next (mark ?m ?p)) (does red (pick ?m)) (does blue (put ?p)))
(<= (next (step ?n)) (true (step ?s)) (succ ?s ?n))
(<= marked (true (mark ?m ?p)))
(<= terminal marked)
(<= terminal (true (step 3)))
(<= (goal red 100) marked)
(<= (goal red 0) (not marked))
(<= (goal blue 0) marked)
(<= (goal blue 100) (not marked))
"""


@pytest.mark.parametrize("reasoner", ["interpreter", "compiled"])
def test_the_other_parts_stay_as_they_are(reasoner: str) -> None:
    state = game_from_text(RACE, reasoner=reasoner).initial_state()
    # Blue's steps are undone: red alone reaches the end, in two to four steps.
    results = state.playouts(random.Random(0), 40, Part(RED))
    assert {goals for goals, _ in results} == {(100, 0)}
    assert {steps for _, steps in results} == {2, 3, 4}
    # Played whole, blue gets there first or at once in some of them.
    whole = {goals for goals, _ in state.playouts(random.Random(0), 40, RANDOM)}
    assert whole - {(100, 0)}


def test_a_part_out_of_moves_ends_the_playout_even() -> None:
    # Blue's part: red's count goes on (both its moves change it alike, nothing
    # to undo), and after its two marks blue has no move left: even, at step 2.
    state = game_from_text(DRY, reasoner="interpreter").initial_state()
    part = frozenset(state.legal_moves(1))
    assert state.playouts(random.Random(1), 5, Part(part)) == [((50, 50), 2)] * 5


def test_the_playouts_are_those_of_their_seed() -> None:
    state = game_from_text(MARKS, reasoner="interpreter").initial_state()
    part = frozenset(state.legal_moves(0))
    first = state.playouts(random.Random(4), 6, Part(part))
    assert first == state.playouts(random.Random(4), 6, Part(part))


def _assert_native_agrees(
    interpreted,
    native,
    part: frozenset[str],
    states: int,
    decisive: int = 0,
    first: int = 0,
    seeds: int = 3,
) -> None:
    """Both give the same playouts of `part` for the same seeds, at `states` states of
    a random walk, the first `first` of them not looked at (the interpreter's playouts
    of a large game are slow)."""
    walk = random.Random(0)
    a, b = interpreted.initial_state(), native.initial_state()
    for step in range(states):
        for seed in range(seeds if step >= first else 0):
            expected = a.playouts(random.Random(seed), 5, Part(part, decisive))
            assert b.playouts(random.Random(seed), 5, Part(part, decisive)) == expected
        joint = [walk.choice(moves) for moves in a.all_legal_moves()]
        a, b = a.next(joint), b.next(joint)
        if a.is_terminal():
            break


@needs_native
@pytest.mark.parametrize(
    ("text", "states"),
    [(RACE, 4), (MARKS, 4), (DRY, 2), (SPRINT, 3), (ENTANGLED, 2)],
    ids=["race", "marks", "dry", "sprint", "entangled"],
)
def test_native_part_playouts_are_the_generic_ones_for_their_seed(text: str, states: int) -> None:
    interpreted, native = native_game(text, "game")
    state = interpreted.initial_state()
    for part in {frozenset(state.legal_moves(role)) for role in range(2)}:
        for decisive in (0, 1, 100):
            _assert_native_agrees(interpreted, native, part, states, decisive)


@needs_native
def test_a_frozen_move_is_undone_against_each_move_of_the_chooser() -> None:
    # Red's part: every mark is blue's move undone, so red never wins; native code
    # works the undo out once a state only where no move of red's changes what
    # blue's moves do, which is not so here.
    interpreted, native = native_game(ENTANGLED, "entangled")
    part = frozenset(interpreted.initial_state().legal_moves(0))
    for game in (interpreted, native):
        for decisive in (0, 100):
            results = game.initial_state().playouts(random.Random(1), 10, Part(part, decisive))
            assert results == [((0, 100), 3)] * 10


@needs_native
@pytest.mark.skipif(not C4SIM.exists(), reason="needs ../shared/gdl-corpus")
def test_native_part_playouts_of_one_board_of_simultaneous_connect_four() -> None:
    interpreted, native = native_game(C4SIM.read_text(), "c4sim")
    board = frozenset(f"(drop {x} 1)" for x in range(1, 9))
    _assert_native_agrees(interpreted, native, board, states=2, seeds=2)
    # decisive playouts deep in the game, where some moves win
    _assert_native_agrees(interpreted, native, board, states=12, decisive=1000, first=10, seeds=1)
    # Each playout ends on board 1 (a line or a full board) and takes longer
    # than whole playouts, which end on either board.
    state = native.initial_state()
    part = state.playouts(random.Random(2), 300, Part(board))
    whole = state.playouts(random.Random(2), 300, RANDOM)
    assert sum(s for _, s in part) > sum(s for _, s in whole)


@pytest.mark.parametrize("reasoner", ["interpreter", "compiled"])
def test_decisive_part_playouts_take_a_win_in_the_part(reasoner: str) -> None:
    state = game_from_text(SPRINT, reasoner=reasoner).initial_state()
    state = state.next(["(put red 1)", "(put blue 3)"])  # red wins with 2, blue frozen
    assert state.playouts(random.Random(0), 20, Part(SPRINT_RED, 5)) == [((100, 0), 1)] * 20
    drawn = state.playouts(random.Random(0), 20, Part(SPRINT_RED))
    assert {steps for _, steps in drawn} == {1, 2}  # red marks 3 first in some


def test_a_part_tree_with_part_playouts_values_its_part_alone() -> None:
    state = game_from_text(SPRINT, reasoner="interpreter").initial_state()
    values = []
    for part_playouts in (False, True):
        lowest = 1.0
        for seed in range(10):  # a few iterations: the values are the playouts'
            tree = MCTS(
                state, rng=random.Random(seed), part=SPRINT_RED, part_playouts=part_playouts
            )
            tree.search(iterations=6)
            lowest = min(lowest, *(stats.value for stats in tree.statistics(0)))
        values.append(lowest)
    assert values[0] < 1.0 and values[1] == 1.0  # blue never moves: red always wins


def test_part_playouts_are_random_ones() -> None:
    state = game_from_text(RACE, reasoner="interpreter").initial_state()
    for options in ({"decisive": 2}, {"greedy": 2}, {"mast": True}):
        with pytest.raises(GameError, match="part playouts"):
            MCTS(state, part=RED, part_playouts=True, **options)
    with pytest.raises(GameError, match="evaluator"):
        MCTS(state, part=RED, part_playouts=True, evaluator=object())
    MCTS(state, part=RED, part_playouts=True, evaluator=RandomPlayout())


def test_the_agent_takes_the_option_with_factor() -> None:
    race = game_from_text(RACE, reasoner="interpreter")
    for part_playouts in ("no", "yes"):
        spec = f"mcts:factor=yes,solver=yes,part_playouts={part_playouts},iterations=100"
        agent = make_agent(spec, seed=3)
        agent.start(race, 0)
        agent.choose_move(race.initial_state(), None)
        tree = agent.parts.searched
        # A part searched as a game of its own is proven by the solver too.
        assert tree.part_playouts == tree.solver == (part_playouts == "yes")
    with pytest.raises(GameError, match="factor=yes"):
        make_agent("mcts:part_playouts=yes")
    with pytest.raises(GameError, match="random"):
        make_agent("mcts:factor=yes,part_playouts=yes,decisive=4")


def test_serve_plays_part_playouts_in_part_trees_as_set(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_FACTOR", True)
    for setting in (False, True):
        monkeypatch.setattr(search_worker, "SEARCH_PART_PLAYOUTS", setting)
        lowest = 1.0
        for seed in range(10):
            worker = SearchWorker()
            worker.rng.seed(seed)
            worker.handle({"cmd": "load", "rules": SPRINT})
            worker.settle(120)
            search = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 6}
            answer = worker.handle(search)
            part = worker.parts.part
            assert part is not None and part.part_playouts == part.solver == setting
            lowest = min(lowest, *(row[2] for row in answer["stats"]))
        assert (lowest == 1.0) == setting
