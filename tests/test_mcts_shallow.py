"""The shallow proof search (`ggp.player.search.shallow`) inside MCTS-Solver."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.player.agents import make_agent
from ggp.player.search.mcts import MCTS
from ggp.player.search.shallow import strict_winner, winner, wins
from ggp.player.search.tree import Node
from perfect_play import bounds_hold, value
from pick_game import PickGame
from test_mcts import TICTACTOE, position

BLOCK_OR_LOSE = position("oo. x.. .x.", "xplayer")
"""X to move must block (mark 1 3): every other move lets O win at once."""

WIN_IN_THREE = position("xo. .x. ..o", "xplayer")
"""X wins in three plies ((mark 2 1) or (mark 3 1): two threats), not in one."""


def random_states(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        state = TICTACTOE.initial_state()
        for _ in range(rng.randrange(7)):
            if state.is_terminal():
                break
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
        if not state.is_terminal():
            yield state


def test_a_strict_winner_takes_all() -> None:
    assert strict_winner((100, 0)) == 0
    assert strict_winner((0, 100, 0)) == 1
    assert strict_winner((50, 50)) is None
    assert strict_winner((100, 100)) is None
    assert strict_winner((0, 0)) is None


def test_the_forced_wins_found_are_wins_under_perfect_play() -> None:
    found = 0
    for state in random_states(200, seed=1):
        truth = value(state)
        for depth in range(1, 6):
            won = winner(state, depth)
            if won is not None:
                assert truth[won] == 100, state.render()
                found += 1
            for role in (0, 1):
                assert not wins(state, role, depth) or truth[role] == 100
    assert found > 50


def test_the_depth_limits_what_is_found() -> None:
    assert winner(WIN_IN_THREE, 1) is None and winner(WIN_IN_THREE, 2) is None
    assert winner(WIN_IN_THREE, 3) == 0
    assert wins(WIN_IN_THREE, 0, 3) and not wins(WIN_IN_THREE, 0, 2)
    assert not wins(WIN_IN_THREE, 1, 5)


def searched(state, iterations: int, seed: int, **options) -> MCTS:
    search = MCTS(state, solver=True, rng=random.Random(seed), **options)
    search.search(iterations=iterations)
    return search


def test_a_two_ply_trap_is_avoided_where_plain_search_falls_in() -> None:
    plain = {searched(BLOCK_OR_LOSE, 4, seed).best_move(0) for seed in range(20)}
    assert plain - {"(mark 1 3)"}  # few iterations: some seeds walk into the trap
    for seed in range(20):
        search = searched(BLOCK_OR_LOSE, 4, seed, shallow=2, shallow_visits=1)
        assert search.best_move(0) == "(mark 1 3)"
        losses = {s.move for s in search.statistics(0) if s.upper == 0.0}
        assert losses == set(BLOCK_OR_LOSE.legal_moves(0)) - {"(mark 1 3)"}


def test_a_win_in_three_plies_is_proven_at_once_and_played() -> None:
    assert searched(WIN_IN_THREE, 2, seed=1).root.proven is None
    search = searched(WIN_IN_THREE, 2, seed=1, shallow=3, shallow_visits=1)
    assert search.root.proven == [1.0, 0.0]
    assert search.best_move(0) in ("(mark 2 1)", "(mark 3 1)")
    assert search.search(iterations=10) == 0  # a proven root needs no more search


def test_proofs_deeper_in_the_tree_are_backed_up_to_the_root() -> None:
    # O to move loses: blocking at (mark 3 3) leads to WIN_IN_THREE, found when
    # that child is searched; every other move lets X win at once.
    state = position("xo. .x. ...", "oplayer")
    assert all(searched(state, 30, seed).root.proven is None for seed in range(5))
    for seed in range(5):
        search = searched(state, 30, seed, shallow=3, shallow_visits=3)
        assert search.root.proven == [1.0, 0.0]
        assert {s.upper for s in search.statistics(1)} == {0.0}


@pytest.mark.parametrize("transpose", [False, True])
def test_every_bound_in_the_tree_holds_the_true_value(transpose: bool) -> None:
    for seed in range(3):
        search = searched(
            TICTACTOE.initial_state(), 2_000, seed, shallow=3, shallow_visits=2, transpose=transpose
        )
        stack: list[Node] = [search.root]
        probed = checked = 0
        while stack:
            node = stack.pop()
            stack.extend(node.children.values())
            probed += node.probed
            if node.lower is not None:
                assert bounds_hold(node), node.state.render()
                checked += 1
        assert probed > 50 and checked > 100


def test_off_the_search_is_unchanged_and_probes_nothing() -> None:
    def ranking(**options) -> list:
        search = searched(TICTACTOE.initial_state(), 500, 4, **options)
        return [search.statistics(0), search.node_count, search.root.probed]

    assert ranking() == ranking(shallow=3, shallow_visits=10**9)
    assert ranking(shallow=0)[2] is False


def test_bad_options_are_refused() -> None:
    with pytest.raises(GameError, match="needs solver=yes"):
        make_agent("mcts:shallow=2")
    with pytest.raises(GameError, match="shallow"):
        make_agent("mcts:solver=yes,shallow=-1")
    with pytest.raises(GameError, match="solver"):
        MCTS(TICTACTOE.initial_state(), shallow=2)
    agent = make_agent("mcts:solver=yes,shallow=3,shallow_visits=50")
    assert (agent.shallow, agent.shallow_visits) == (3, 50)


def test_simultaneous_moves_are_not_searched() -> None:
    state = PickGame(roles=2, rounds=1).initial_state()  # every joint move ends the game
    assert winner(state, 2) is None and not wins(state, 0, 2)

    def grown(**options) -> MCTS:
        search = MCTS(state, solver=True, stochastic=True, rng=random.Random(0), **options)
        search.search(iterations=3)
        return search

    probed = grown(shallow=2, shallow_visits=1)
    assert probed.root.probed
    assert probed.node_count == grown().node_count == 4  # no child stored by a probe
