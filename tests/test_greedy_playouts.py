"""Greedy playouts: a role that alone has a choice takes a move that wins at once.

The generic version goes through the game interface; native code plays
exactly the same playouts for the seed it draws, as it does for random ones.
"""

from __future__ import annotations

import random

import pytest
from ggp.games.base import Game, GameError, State
from ggp.games.playouts import RANDOM, Decisive, Greedy, winning_joint
from ggp.games.registry import GDL_DIR
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native import build
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import MCTS
from test_gdl_native import native_game, needs_native

TWO_IN_A_ROW = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]
"""Tic-tac-toe moves after which xplayer, on move, wins with (mark 1 3)."""


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def tictactoe() -> GdlGame:
    return GdlGame.from_text((GDL_DIR / "tictactoe.kif").read_text(), name="tictactoe")


def play(state: State, moves: list[str]) -> State:
    """`moves` played in turn by the role that has more than one legal move."""
    for move in moves:
        joint = [move if move in legal else legal[0] for legal in state.all_legal_moves()]
        state = state.next(joint)
    return state


def test_the_winning_move_is_found_and_taken_in_the_first_plies_only() -> None:
    state = play(tictactoe().initial_state(), TWO_IN_A_ROW)
    assert winning_joint(state) == ["(mark 1 3)", "noop"]
    assert winning_joint(tictactoe().initial_state()) is None
    greedy = state.playouts(random.Random(1), 30, Greedy(plies=1))
    assert greedy == [((100, 0), 1)] * 30
    plain = state.playouts(random.Random(1), 30, Greedy(plies=0))
    assert plain == state.playouts(random.Random(1), 30, RANDOM)
    assert any(goals != (100, 0) for goals, _ in plain)


def test_greedy_evaluation_values_a_leaf_won_in_one_move_as_won() -> None:
    state = play(tictactoe().initial_state(), TWO_IN_A_ROW)
    assert RandomPlayout(greedy=1).evaluate(state, random.Random(2)) == [1.0, 0.0]
    search = MCTS(state, rng=random.Random(3), greedy=2)
    search.search(iterations=40)
    assert search.best_move(0) == "(mark 1 3)"


def test_the_agent_switches_greedy_playouts_on() -> None:
    assert make_agent("mcts:greedy=3").greedy == 3
    assert make_agent("mcts").greedy == 0
    with pytest.raises(GameError, match="greedy"):
        make_agent("mcts:greedy=-1")


@needs_native
@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
@pytest.mark.parametrize("plies", [1, 3, 1000])
def test_native_greedy_playouts_are_the_generic_ones_for_their_seed(name: str, plies: int) -> None:
    interpreted, native = native_game((GDL_DIR / f"{name}.kif").read_text(), name)
    assert_native_playouts_agree(interpreted, native, Greedy, plies, states=6)


def assert_native_playouts_agree(
    interpreted: Game, native: Game, policy: type[Greedy | Decisive], plies: int, states: int
) -> None:
    """The native playouts of `policy` (with `plies`) give the generic ones for
    their seed, in `states` states along a random line."""
    walk = random.Random(plies)
    a, b = interpreted.initial_state(), native.initial_state()
    for _ in range(states):
        for seed in range(3):
            python = random.Random(random.Random(seed).getrandbits(32))
            expected = a.playouts(python, 4, policy(plies))
            assert b.playouts(random.Random(seed), 4, policy(plies)) == expected
        joint = [walk.choice(moves) for moves in a.all_legal_moves()]
        a, b = a.next(joint), b.next(joint)
        if a.is_terminal():
            break
