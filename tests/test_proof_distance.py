"""At a proven root the search plays the quickest proven win and the slowest proven loss."""

from __future__ import annotations

import random

import pytest
from ggp.gdl.load import game_from_text
from ggp.player.search import mcts
from ggp.player.search.mcts import MCTS
from ggp.player.search.proof_distance import proven_choice

ENDS = """
; a chooses at once: quick ends the game now, slow after five forced steps, and
; b chooses on the way (two moves, the same end); who wins is WINNER either way.
(role a) (role b)
(init (at 0))
(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal a quick) (true (at 0)))
(<= (legal a slow) (true (at 0)))
(<= (legal b noop) (true (at 0)))
(<= (legal a noop) (true (at ?n)) (succ ?n ?m))
(<= (legal b left) (true (at ?n)) (succ ?n ?m))
(<= (legal b right) (true (at ?n)) (succ ?n ?m))
(<= (next (at 6)) (does a quick))
(<= (next (at 1)) (does a slow))
(<= (next (at ?m)) (true (at ?n)) (succ ?n ?m))
(<= terminal (true (at 6)))
(<= (goal WINNER 100) (true (at 6)))
(<= (goal LOSER 0) (true (at 6)))
"""


@pytest.mark.parametrize(("winner", "loser", "expected"), [("a", "b", "quick"), ("b", "a", "slow")])
def test_the_quickest_proven_win_and_the_slowest_proven_loss(
    winner, loser, expected, monkeypatch
) -> None:
    monkeypatch.setattr(mcts, "PROOF_DISTANCE", True)
    game = game_from_text(ENDS.replace("WINNER", winner).replace("LOSER", loser))
    tree = MCTS(game.initial_state(), rng=random.Random(1), solver=True)
    tree.search(iterations=2_000)
    assert tree.root.proven is not None
    assert proven_choice(tree.root, 0) == tree.root.moves[0].index(expected)
    assert tree.best_move(0) == expected


def test_an_unproven_root_or_another_roles_turn_is_left_to_visits() -> None:
    game = game_from_text(ENDS.replace("WINNER", "a").replace("LOSER", "b"))
    tree = MCTS(game.initial_state(), rng=random.Random(1), solver=True)
    assert proven_choice(tree.root, 0) is None  # nothing searched, nothing proven
    tree.search(iterations=2_000)
    assert proven_choice(tree.root, 1) is None  # b does not choose at the root
    lost = game_from_text(ENDS.replace("WINNER", "b").replace("LOSER", "a"))
    tree = MCTS(lost.initial_state(), rng=random.Random(1), solver=True)
    tree.search(iterations=2_000)
    assert proven_choice(tree.root, 0) is not None
    assert proven_choice(tree.root, 0, max_nodes=3) is None  # past the budget: visits
