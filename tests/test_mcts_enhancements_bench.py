"""benchmarks/mcts_enhancements.py in games of more than two roles: the variant in one
seat, going round, the baseline in the others, compared seat by seat."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from ggp.gdl.load import game_from_text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import mcts_enhancements  # noqa: E402

THREE_SEATS = """
(role a) (role b) (role c)
(init (control a))
(<= (legal ?r go) (role ?r))
(<= (next done) (true (control a)))
(<= terminal (true done))
(<= (goal a 100) (true done))
(<= (goal b 50) (true done))
(<= (goal c 0) (true done))
"""
"""One joint move, and the seats alone decide the goals: a 100, b 50, c 0."""


def test_the_variant_is_compared_with_the_baseline_seat_by_seat() -> None:
    # match i: the variant in seat i % 3; the third seat is worth least
    goals = [(100, 50, 0), (100, 60, 0), (90, 50, 10), (100, 50, 0)]
    variant, baseline = mcts_enhancements.seat_balanced(goals)
    assert variant == pytest.approx((100 + 60 + 10 + 100) / 4 / 100)
    # the baseline: seat 0 (matches 1, 2) 95, seat 1 (0, 2, 3) 50, seat 2 (0, 1, 3) 0
    assert baseline == pytest.approx((95 + 50 + 0) / 3 / 100)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_in_a_game_of_three_roles_the_variant_goes_round_the_seats() -> None:
    game = game_from_text(THREE_SEATS, reasoner="native")
    game.native_build.join()
    if game.native is None:
        pytest.skip("no native code here")
    specs = ["mcts:iterations=5", "mcts:iterations=5"]
    goals = [mcts_enhancements.play_native(game, specs, index, 1) for index in range(3)]
    assert goals == [(100, 50, 0)] * 3
    variant, baseline = mcts_enhancements.seat_balanced(goals)
    assert variant == pytest.approx(0.5) and baseline == pytest.approx(0.5)
