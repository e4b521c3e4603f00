"""MAST: move averages learnt from simulations, and the playouts they steer."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mast import MastPlayout, MoveAverages
from ggp.player.search.mcts import MCTS
from test_mcts import TICTACTOE, position


def test_averages_count_and_average_each_roles_moves() -> None:
    averages = MoveAverages(2)
    for reward in (1.0, 0.0, 0.5):
        averages.learn(0, "(mark 1 1)", reward)
    averages.learn(1, "(mark 1 1)", 0.25)
    assert averages.table(0) == {"(mark 1 1)": (3, 1.5)}
    assert averages.table(1) == {"(mark 1 1)": (1, 0.25)}
    assert averages.value(0, "(mark 1 1)") == 0.5
    # A move never seen counts as the best, so that it gets played.
    assert averages.best(0, ["(mark 1 1)", "(mark 2 2)"]) == "(mark 2 2)"
    averages.learn(0, "(mark 2 2)", 0.1)
    assert averages.best(0, ["(mark 1 1)", "(mark 2 2)"]) == "(mark 1 1)"


def test_a_greedy_playout_follows_the_averages_and_learns_what_it_played() -> None:
    averages = MoveAverages(2)
    for column in (1, 2, 3):  # X likes the top row, O the bottom row
        averages.learn(0, f"(mark 1 {column})", 0.9)
        averages.learn(1, f"(mark 3 {column})", 0.9)
    for move in TICTACTOE.initial_state().legal_moves(0):
        for role in (0, 1):
            if move not in averages.table(role):
                averages.learn(role, move, 0.1)
    rewards = MastPlayout(averages, epsilon=0.0).evaluate(
        TICTACTOE.initial_state(), random.Random(0)
    )
    assert rewards == [1.0, 0.0]  # X completes the top row first
    learnt = [averages.table(role) for role in (0, 1)]
    assert sum(learnt[0][f"(mark 1 {c})"][0] for c in (1, 2, 3)) == 3 + 3
    assert sum(learnt[1][f"(mark 3 {c})"][0] for c in (1, 2, 3)) == 3 + 2
    assert "noop" not in learnt[1]  # forced moves are not learnt


def test_with_steps_mast_plays_only_the_first_moves_then_random_ones() -> None:
    averages = MoveAverages(2)
    playout = MastPlayout(averages, steps=3)
    for seed in range(20):
        rewards = playout.evaluate(TICTACTOE.initial_state(), random.Random(seed))
        assert sorted(rewards) in ([0.0, 1.0], [0.5, 0.5])  # played to the end
    # Three moves a playout are learnt (X twice, O once), no more.
    assert sum(count for count, _ in averages.table(0).values()) == 40
    assert sum(count for count, _ in averages.table(1).values()) == 20


def test_the_search_learns_the_moves_it_chose_in_the_tree() -> None:
    search = MCTS(
        TICTACTOE.initial_state(), mast=True, evaluator=RandomPlayout(), rng=random.Random(3)
    )
    search.search(iterations=1)
    [(move, (count, _))] = search.averages.table(0).items()
    assert count == 1 and search.root.counts[0][search.root.moves[0].index(move)] == 1
    assert search.averages.table(1) == {}  # O had no choice at the root
    search.search(iterations=199)
    assert sum(count for count, _ in search.averages.table(0).values()) >= 200


def test_mast_search_finds_the_block() -> None:
    search = MCTS(position("xx. o.. ..o", "oplayer"), mast=True, rng=random.Random(1))
    search.search(iterations=500)
    assert search.best_move(1) == "(mark 1 3)"


def test_agent_options_switch_the_enhancements() -> None:
    agent = make_agent("mcts:iterations=50,solver=yes,mast=1", seed=1)
    assert agent.solver and agent.mast
    agent.start(TICTACTOE, 0)
    agent.choose_move(TICTACTOE.initial_state(), None)
    assert agent.tree.solver and agent.tree.averages is not None
    plain = make_agent("mcts:solver=no,mast=off")
    assert not plain.solver and not plain.mast
    short = make_agent("mcts:iterations=50,mast=yes,mast_steps=4", seed=1)
    short.start(TICTACTOE, 0)
    short.choose_move(TICTACTOE.initial_state(), None)
    assert short.tree.evaluator.steps == 4


@pytest.mark.parametrize("option", ["solver", "mast"])
def test_bad_switch_values_are_explained(option: str) -> None:
    with pytest.raises(GameError, match=f"option {option} must be yes or no .1 or 0., got 'maybe'"):
        make_agent(f"mcts:{option}=maybe")


def test_a_bad_number_of_mast_steps_is_explained() -> None:
    with pytest.raises(GameError, match="option mast_steps must be int >= 1, got '0'"):
        make_agent("mcts:mast=yes,mast_steps=0")
