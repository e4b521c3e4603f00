"""The node limit of MCTS: the tree stops growing, the search goes on."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.player.search.mcts import MCTS
from ggp.player.search.tree import Node
from ggp.server.tournament import run_tournament
from test_mcts import TICTACTOE, CountingPlayout, position


def held(root: Node) -> int:
    """The nodes under `root`, root included, counted independently of MCTS."""
    return 1 + sum(held(child) for child in root.children.values())


@pytest.mark.parametrize("limit", [1, 2, 7, 60])
def test_the_count_never_exceeds_the_limit_and_matches_the_tree(limit: int) -> None:
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(2), max_nodes=limit)
    for _ in range(300):
        assert search.search(iterations=1) == 1
        assert search.node_count == held(search.root) <= limit
    assert search.node_count == limit
    assert search.root.visits == 300


def test_without_a_limit_every_iteration_adds_a_node_until_the_game_ends() -> None:
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(2))
    search.search(iterations=200)
    assert search.node_count == held(search.root) == 201


def test_at_the_limit_leaves_are_still_evaluated_and_backed_up() -> None:
    playout = CountingPlayout()
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(3), evaluator=playout, max_nodes=1)
    assert search.search(iterations=100) == 100
    assert playout.calls == 100
    assert sum(s.visits for s in search.statistics(0)) == 100
    assert search.root.children == {}


@pytest.mark.parametrize("limit", [1, 10])
def test_a_tiny_tree_still_wins_in_one_and_blocks(limit: int) -> None:
    win = MCTS(position("xx. oo. ...", "xplayer"), rng=random.Random(1), max_nodes=limit)
    win.search(iterations=300)
    assert win.best_move(0) == "(mark 1 3)"
    block = MCTS(position("xx. o.. ..o", "oplayer"), rng=random.Random(1), max_nodes=limit)
    block.search(iterations=500)
    assert block.best_move(1) == "(mark 1 3)"


def test_after_advance_the_count_is_the_subtree_kept_and_the_tree_grows_again() -> None:
    state = TICTACTOE.initial_state()
    search = MCTS(state, rng=random.Random(0), max_nodes=400)
    search.search(iterations=2000)
    assert search.node_count == 400
    joint = ("(mark 2 2)", "noop")
    kept = search.root.children[(4, 0)]
    search.advance(joint, state.next(joint))
    assert search.root is kept
    assert search.node_count == held(kept) < 400
    search.search(iterations=2000)
    assert search.node_count == held(search.root) == 400
    # A joint move not in the tree starts afresh: one node.
    search.advance(("noop", "(mark 9 9)"), search.root.state)
    assert search.node_count == 1


def test_the_count_after_advance_is_exact_before_the_limit_too() -> None:
    state = TICTACTOE.initial_state()
    search = MCTS(state, rng=random.Random(0), max_nodes=100_000)
    search.search(iterations=1500)
    joint = ("(mark 1 1)", "noop")
    search.advance(joint, state.next(joint))
    assert search.node_count == held(search.root)
    search.search(iterations=100)
    assert search.node_count == held(search.root)


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(GameError, match="at least 1"):
        MCTS(TICTACTOE.initial_state(), max_nodes=0)


def test_a_capped_agent_still_beats_random() -> None:
    # 30 nodes against the ~300 an uncapped search of 300 iterations holds;
    # seeded, so the same every run (capped: no loss, 94 wins; uncapped: no loss, 92).
    results = run_tournament(
        "tictactoe", ["mcts:iterations=300,nodes=30", "random"], games=100, swap=True, seed=1
    )
    losses = [r for r in results if r.goals[r.seats.index(0)] < 50]
    assert not losses
    assert sum(r.goals[r.seats.index(0)] == 100 for r in results) > 85
