"""Finishing moves: the moves that ended random playouts, the only ones greedy and
decisive playouts look at for a win when given them.

The generic version goes through the game interface; native code finds the same
moves, and plays the same restricted playouts, for the seed it draws.
"""

from __future__ import annotations

import random

import pytest
from ggp.games.base import Finishers, GameError
from ggp.games.playouts import FINISHING_MOVES, RANDOM, Decisive, Greedy
from ggp.games.registry import GDL_DIR
from ggp.gdl.native import build
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from test_decisive_playouts import THREAT, grab_text
from test_gdl_native import native_game, needs_native
from test_greedy_playouts import TWO_IN_A_ROW, play, tictactoe

NONE = (frozenset(), frozenset())
"""No finishing move for either role: no win is ever looked for."""


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def test_the_moves_that_ended_random_games_are_found_per_role() -> None:
    finishers = tictactoe().initial_state().playouts(random.Random(3), 200, FINISHING_MOVES)
    assert len(finishers) == 2
    assert all(move.startswith("(mark ") for moves in finishers for move in moves)
    assert len(finishers[0]) > 3 and len(finishers[1]) > 3
    assert "noop" not in finishers[0] | finishers[1]  # no choice: never kept


def test_a_terminal_state_has_no_finishing_moves() -> None:
    over = play(tictactoe().initial_state(), [*TWO_IN_A_ROW, "(mark 1 3)"])
    assert over.is_terminal()
    assert over.playouts(random.Random(0), 5, FINISHING_MOVES) == NONE


def test_a_win_outside_the_finishers_is_not_looked_at() -> None:
    state = play(tictactoe().initial_state(), TWO_IN_A_ROW)
    everything = state.playouts(random.Random(1), 20, Greedy(1))
    assert all(result == ((100, 0), 1) for result in everything)
    elsewhere = (frozenset({"(mark 3 3)"}), frozenset())
    blind = state.playouts(random.Random(1), 20, Greedy(1, elsewhere))
    assert any(result != ((100, 0), 1) for result in blind)
    found = (frozenset({"(mark 1 3)"}), frozenset())
    assert state.playouts(random.Random(1), 20, Greedy(1, found)) == everything


@pytest.mark.parametrize("rule", [Greedy, Decisive])
def test_without_finishers_the_playouts_are_random_ones(rule: type[Greedy | Decisive]) -> None:
    """Nothing to look at: neither a win nor a threat is seen, and the draws are
    those of random playouts."""
    state = play(tictactoe().initial_state(), THREAT)
    restricted = state.playouts(random.Random(5), 12, rule(1000, NONE))
    assert restricted == state.playouts(random.Random(5), 12, RANDOM)


def test_threats_are_seen_through_the_opponents_finishers() -> None:
    state = play(tictactoe().initial_state(), THREAT)
    blocking = (frozenset({"(mark 1 3)"}), frozenset())  # xplayer's win
    decisive = state.playouts(random.Random(1), 40, Decisive(1000, blocking))
    assert all(result != ((100, 0), 2) for result in decisive)
    elsewhere = (frozenset({"(mark 3 3)"}), frozenset())
    unseen = state.playouts(random.Random(1), 40, Decisive(1000, elsewhere))
    assert any(result == ((100, 0), 2) for result in unseen)


@needs_native
@pytest.mark.parametrize(
    "text",
    [(GDL_DIR / "tictactoe.kif").read_text(), (GDL_DIR / "connect_four.kif").read_text()]
    + [grab_text(simultaneous=False), grab_text(simultaneous=True)],
    ids=["tictactoe", "connect_four", "grab", "grab-simultaneous"],
)
def test_native_code_finds_the_generic_finishing_moves_and_plays_with_them(text: str) -> None:
    interpreted, native = native_game(text, "game")
    a, b = interpreted.initial_state(), native.initial_state()
    walk = random.Random(7)
    for _ in range(4):
        for seed in range(3):
            python = random.Random(random.Random(seed).getrandbits(32))
            finishers = a.playouts(python, 30, FINISHING_MOVES)
            assert b.playouts(random.Random(seed), 30, FINISHING_MOVES) == finishers
            half = _half(finishers)
            for rule in (Greedy, Decisive):
                python = random.Random(random.Random(seed).getrandbits(32))
                expected = a.playouts(python, 4, rule(1000, half))
                assert b.playouts(random.Random(seed), 4, rule(1000, half)) == expected
        joint = [walk.choice(moves) for moves in a.all_legal_moves()]
        a, b = a.next(joint), b.next(joint)
        if a.is_terminal():
            break


def _half(finishers: Finishers) -> Finishers:
    """Every other move of each role's finishers, so that some wins go unseen."""
    return tuple(frozenset(sorted(moves)[::2]) for moves in finishers)


@needs_native
def test_breakthrough_finishes_by_a_step_onto_the_last_row() -> None:
    _, native = native_game((GDL_DIR / "breakthrough.kif").read_text(), "breakthrough")
    white, black = native.initial_state().playouts(random.Random(0), 300, FINISHING_MOVES)
    assert white and black
    assert all(move.endswith(" 8)") for move in white)  # (move x 7 x' 8)
    assert all(move.endswith(" 1)") for move in black)


def test_the_agent_learns_the_finishing_moves_at_the_start_of_a_match() -> None:
    agent = make_agent("mcts:decisive=4,finish=50", seed=1)
    game = tictactoe()
    agent.start(game, 0)
    assert agent.finishers == game.initial_state().playouts(
        random.Random(random.Random(1).getrandbits(32)), 50, FINISHING_MOVES
    )
    assert make_agent("mcts:decisive=4").finishers is None
    with pytest.raises(GameError, match="finish"):
        make_agent("mcts:finish=50")


def test_the_playouts_of_a_search_look_among_its_finishers() -> None:
    state = play(tictactoe().initial_state(), TWO_IN_A_ROW)
    blind = RandomPlayout(greedy=1, finishers=(frozenset({"(mark 3 3)"}), frozenset()))
    seeing = RandomPlayout(greedy=1, finishers=(frozenset({"(mark 1 3)"}), frozenset()))
    assert all(seeing.evaluate(state, random.Random(s)) == [1.0, 0.0] for s in range(10))
    assert any(blind.evaluate(state, random.Random(s)) != [1.0, 0.0] for s in range(10))
