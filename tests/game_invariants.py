"""Checks every game must pass on random playouts, whatever its rules."""

from __future__ import annotations

import random

from ggp.games.base import Game, State
from ggp.games.playouts import RANDOM


def check_random_playouts(game: Game, playouts: int, seed: int = 0, max_steps: int = 2000) -> None:
    """Play random playouts through the interface and check the invariants:

    the game terminates, every non-terminal state has legal moves for every
    role, keys are stable and tell states apart, facts round-trip, goals are
    ints 0..100, and the game's fast playout gives a valid result too.
    """
    rng = random.Random(seed)
    roles = len(game.roles)
    for _ in range(playouts):
        state = game.initial_state()
        assert state.key() == game.initial_state().key()
        steps = 0
        while not state.is_terminal():
            check_state(game, state)
            joint = [rng.choice(moves) for moves in state.all_legal_moves()]
            after = state.next(joint)
            assert after.key() != state.key() or after.facts() == state.facts()
            state = after
            steps += 1
            assert steps <= max_steps, f"{game.name}: no end after {max_steps} steps"
        check_state(game, state)
        goals = state.goals()
        assert len(goals) == roles
        assert all(isinstance(g, int) and 0 <= g <= 100 for g in goals)
    for _ in range(max(1, playouts // 4)):
        goals, steps = game.initial_state().playouts(rng, 1, RANDOM)[0]
        assert len(goals) == roles and all(0 <= g <= 100 for g in goals)
        assert steps >= 1


def check_state(game: Game, state: State) -> None:
    facts = state.facts()
    assert list(facts) == sorted(facts)
    rebuilt = game.state_from_facts(facts)
    assert rebuilt.key() == state.key() and rebuilt.facts() == facts
    assert rebuilt == state and hash(rebuilt) == hash(state)
    assert rebuilt.is_terminal() == state.is_terminal()
    assert rebuilt.all_legal_moves() == state.all_legal_moves()
    if state.is_terminal():
        assert rebuilt.goals() == state.goals()
    if not state.is_terminal():
        for role in range(len(game.roles)):
            moves = state.legal_moves(role)
            assert moves and len(set(moves)) == len(moves)
            assert moves == state.legal_moves(role)
