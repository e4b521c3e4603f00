"""Helpers for tests of turn-taking games: play moves by text, replay fast playouts."""

from __future__ import annotations

import random

from ggp.games.base import State


def play_turns(state: State, *moves: str) -> State:
    """Play each move by the role that has it, every other role playing ``noop``.

    ``noop`` itself is played by every role (a pass).
    """
    for move in moves:
        state = state.next([move if move in legal else "noop" for legal in state.all_legal_moves()])
    return state


def check_fast_playouts(state: State, playouts: int, opening: int = 10, seed: int = 0) -> None:
    """The game's fast playout plays legal moves to a terminal state and reports it truly.

    Each playout starts after fewer than `opening` random moves from `state`;
    it records its joint moves, and replaying them through the interface must
    be legal all the way and end in a terminal state with the same goals and
    the same number of steps.
    """
    rng = random.Random(seed)
    for _ in range(playouts):
        start = state
        for _ in range(rng.randrange(opening)):
            if not start.is_terminal():
                start = start.next([rng.choice(moves) for moves in start.all_legal_moves()])
        joints: list[tuple[str, ...]] = []
        goals, steps = start.fast_random_playout(rng, joints)
        end = start
        for joint in joints:
            end = end.next(joint)
        assert end.is_terminal()
        assert end.goals() == goals
        assert steps == len(joints)
