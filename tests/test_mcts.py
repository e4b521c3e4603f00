"""The UCT search itself: selection rules, backups, budgets, tree reuse.

Tests of plain UCT's own behaviour switch the solver off (it would prove
these small positions and stop searching); test_mcts_solver.py tests it.
"""

from __future__ import annotations

import random

import ggp.player.search.mcts as mcts_module
import pytest
from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import MCTS
from pick_game import PickGame

TICTACTOE = load_game("tictactoe")


def position(rows: str, mover: str):
    """A tic-tac-toe state from three rows of x, o and . (blank)."""
    cells = rows.replace(" ", "")
    facts = [
        f"(cell {i // 3 + 1} {i % 3 + 1} {'b' if c == '.' else c})" for i, c in enumerate(cells)
    ]
    return TICTACTOE.state_from_facts([*facts, f"(control {mover})"])


class CountingPlayout(RandomPlayout):
    def __init__(self) -> None:
        self.calls = 0

    def evaluate(self, state, rng):
        self.calls += 1
        return super().evaluate(state, rng)


def test_takes_a_win_in_one_and_blocks_a_loss() -> None:
    win = MCTS(position("xx. oo. ...", "xplayer"), rng=random.Random(1))
    win.search(iterations=300)
    assert win.best_move(0) == "(mark 1 3)"
    block = MCTS(position("xx. o.. ..o", "oplayer"), rng=random.Random(1))
    block.search(iterations=500)
    assert block.best_move(1) == "(mark 1 3)"


def test_every_move_is_tried_once_before_any_is_tried_twice() -> None:
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(3))
    search.search(iterations=9)
    assert [s.visits for s in search.statistics(0)] == [1] * 9
    search.search(iterations=1)
    assert sorted(s.visits for s in search.statistics(0)) == [1] * 8 + [2]


def test_a_terminal_node_is_backed_up_without_a_playout() -> None:
    # One blank cell left: X's only move ends the game in a draw.
    playout = CountingPlayout()
    search = MCTS(
        position("xox xoo ox.", "xplayer"), rng=random.Random(0), evaluator=playout, solver=False
    )
    assert search.search(iterations=20) == 20
    assert playout.calls == 0
    [only] = search.statistics(0)
    assert (only.move, only.visits, only.value) == ("(mark 3 3)", 20, 0.5)


def test_a_terminal_root_needs_no_search() -> None:
    search = MCTS(position("xxx oo. ...", "oplayer"), rng=random.Random(0))
    assert search.search(iterations=10) == 0
    with pytest.raises(GameError, match="terminal"):
        search.best_move(1)


def test_simultaneous_moves_and_three_roles_decoupled() -> None:
    # Each role has its own favourite number; decoupled UCT finds all three.
    game = PickGame(roles=3, rounds=2)
    search = MCTS(game.initial_state(), c=0.5, rng=random.Random(2))
    search.search(iterations=400)
    assert [search.best_move(role) for role in range(3)] == ["(pick 1)", "(pick 2)", "(pick 3)"]
    best = search.statistics(2)[0]
    assert best.visits > 200 and best.value > 0.7


def test_rewards_are_goals_over_100_so_a_draw_is_half() -> None:
    search = MCTS(position("xox xoo ox.", "xplayer"), rng=random.Random(0))
    search.search(iterations=3)
    assert [s.value for s in search.statistics(0)] == [0.5]
    assert [s.value for s in search.statistics(1)] == [0.5]


def test_final_choice_by_visits_or_by_mean() -> None:
    state = TICTACTOE.initial_state()
    by_visits = MCTS(state, final="visits", rng=random.Random(0))
    by_mean = MCTS(state, final="mean", rng=random.Random(0))
    for search in (by_visits, by_mean):
        root = search.root  # its moves are in random order
        first, second = root.moves[0].index("(mark 1 1)"), root.moves[0].index("(mark 1 2)")
        root.counts[0][first], root.sums[0][first] = 10, 6.0
        root.counts[0][second], root.sums[0][second] = 3, 2.7
        root.untried[0] = []
    assert by_visits.best_move(0) == "(mark 1 1)"
    assert by_mean.best_move(0) == "(mark 1 2)"
    assert [s.move for s in by_mean.statistics(0)[:2]] == ["(mark 1 2)", "(mark 1 1)"]
    with pytest.raises(GameError, match="visits, mean, lower"):
        MCTS(state, final="best")


def test_final_choice_by_the_lower_bound_discounts_means_of_few_visits() -> None:
    state = TICTACTOE.initial_state()
    choices = {}
    for final in ("visits", "mean", "lower"):
        search = MCTS(state, final=final, rng=random.Random(0))
        root = search.root
        for move, visits, total in (
            ("(mark 1 1)", 100, 50.0),
            ("(mark 1 2)", 4, 3.6),
            ("(mark 2 2)", 64, 38.4),
        ):
            index = root.moves[0].index(move)
            root.counts[0][index], root.sums[0][index] = visits, total
        root.untried[0] = []
        choices[final] = search.best_move(0)
    # bounds 0.5 - 0.1 = 0.4, 0.9 - 0.5 = 0.4 and 0.6 - 0.125 = 0.475
    assert choices == {"visits": "(mark 1 1)", "mean": "(mark 1 2)", "lower": "(mark 2 2)"}


def test_a_move_that_wins_at_once_is_always_taken_once_seen() -> None:
    search = MCTS(position("xx. oo. ...", "xplayer"), rng=random.Random(5), solver=False)
    search.search(iterations=40)
    win, *others = search.statistics(0)
    assert win.move == "(mark 1 3)" and win.value == 1.0
    assert all(s.visits <= 1 for s in others)
    assert win.visits == 40 - sum(s.visits for s in others)


def test_stochastic_selection_spreads_visits_and_still_finds_the_block() -> None:
    state = position("xx. o.. ..o", "oplayer")
    greedy = MCTS(state, rng=random.Random(4), solver=False)
    sampled = MCTS(state, stochastic=True, rng=random.Random(4), solver=False)
    for search in (greedy, sampled):
        search.search(iterations=1000)
        assert search.best_move(1) == "(mark 1 3)"
    assert sampled.statistics(1)[0].visits < greedy.statistics(1)[0].visits


def test_the_same_seed_gives_the_same_search() -> None:
    def run(seed: int) -> list:
        search = MCTS(TICTACTOE.initial_state(), rng=random.Random(seed))
        search.search(iterations=500)
        return search.statistics(0)

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_advance_reuses_the_matching_subtree() -> None:
    state = TICTACTOE.initial_state()
    search = MCTS(state, rng=random.Random(0))
    search.search(iterations=2000)
    joint = ("(mark 2 2)", "noop")
    subtree = search.root.children[(4, 0)]
    search.advance(joint, state.next(joint))
    assert search.root is subtree and search.root.depth == 1
    assert sum(s.visits for s in search.statistics(1)) == subtree.visits - 1 > 100
    # A joint move the tree has not explored yet starts afresh from the new state.
    fresh = MCTS(state, rng=random.Random(0))
    fresh.advance(joint, state.next(joint))
    assert fresh.root.visits == 0 and fresh.root.depth == 1
    assert fresh.root.state == state.next(joint)


def test_a_slow_playout_cannot_make_the_search_miss_its_deadline_by_more_than_one(
    monkeypatch,
) -> None:
    # A fake clock: every playout takes one "second".
    clock = [0.0]

    class SlowPlayout(RandomPlayout):
        def evaluate(self, state, rng):
            clock[0] += 1.0
            return super().evaluate(state, rng)

    monkeypatch.setattr(mcts_module.time, "monotonic", lambda: clock[0])
    search = MCTS(TICTACTOE.initial_state(), evaluator=SlowPlayout(), rng=random.Random(0))
    assert search.search(deadline=3.5) == 4
    assert clock[0] == 4.0
    assert search.search(iterations=100, deadline=2.0) == 0
    assert search.search(iterations=2, deadline=100.0) == 2
    with pytest.raises(ValueError, match="iterations, a deadline"):
        search.search()


def test_best_move_is_available_before_any_search() -> None:
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(0))
    assert search.best_move(0) in TICTACTOE.initial_state().legal_moves(0)
    assert search.best_move(1) == "noop"


def test_a_move_the_solver_allows_again_after_skipping_it_is_tried_first() -> None:
    # A served chinook match fell back at its last move (ZeroDivisionError): the solver's
    # allowed moves grew back to moves the search had dropped from the untried ones while
    # they were ruled out, never visited.
    tree = MCTS(TICTACTOE.initial_state(), rng=random.Random(1))
    tree.search(iterations=3)
    root = tree.root
    role = root.choosers[0]
    skipped = root.untried[role][-1]
    root.allowed = [None] * len(root.moves)
    root.allowed[role] = [i for i in range(len(root.moves[role])) if i != skipped]
    tree._choose(root, role)
    assert skipped not in root.untried[role]  # dropped while ruled out
    root.allowed[role] = [skipped]  # a subset again, with the skipped move
    assert tree._choose(root, role) == skipped
    assert root.untried[role] == []  # the others dropped in turn
    root.allowed = None  # every move again (as where every move is proven lost)
    again = tree._choose(root, role)
    assert root.counts[role][again] == 0
