"""Check a game's fast playout against its rules: every result must be reachable."""

from __future__ import annotations

import itertools
import random

from ggp.games.base import Goals, State
from ggp.games.playouts import RANDOM


def reachable_outcomes(state: State, memo: dict[str, set[tuple[Goals, int]]] | None = None):
    """Every (goals, steps) a playout from `state` can end with, through the interface."""
    memo = {} if memo is None else memo
    key = state.key()
    if key not in memo:
        if state.is_terminal():
            memo[key] = {(state.goals(), 0)}
        else:
            memo[key] = {
                (goals, steps + 1)
                for joint in itertools.product(*state.all_legal_moves())
                for goals, steps in reachable_outcomes(state.next(joint), memo)
            }
    return memo[key]


def check_fast_playouts(state: State, playouts: int, seed: int = 0) -> None:
    """The fast playouts from `state` end only in outcomes the rules allow."""
    outcomes = reachable_outcomes(state)
    rng = random.Random(seed)
    for _ in range(playouts):
        result = state.playouts(rng, 1, RANDOM)[0]
        assert result in outcomes, f"{result} cannot be reached from {state.render()}"
