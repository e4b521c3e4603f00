"""A perfect player for small two-role games, by exhaustive search (tests only)."""

from __future__ import annotations

import functools
import random

from ggp.games.base import State
from ggp.player.agents import Agent
from ggp.player.search.tree import Node, subtree


@functools.cache
def value(state: State) -> tuple[int, ...]:
    """The goals of `state` under perfect play by both roles (turn-taking games)."""
    if state.is_terminal():
        return state.goals()
    mover, moves = mover_and_moves(state)
    return max((value(after) for _, after in children(state, mover, moves)), key=lambda g: g[mover])


def bounds_hold(node: Node) -> bool:
    """Whether the solver's bounds at `node` hold every role's perfect-play reward."""
    truth = [goal / 100 for goal in value(node.state)]
    return all(
        low <= true <= high for low, true, high in zip(node.lower, truth, node.upper, strict=True)
    )


def checked_bounds(root: Node) -> int:
    """Asserts `bounds_hold` at every node under `root` that has bounds; returns
    how many nodes were checked."""
    checked = 0
    for node in subtree(root):
        if node.lower is not None:
            assert bounds_hold(node), node.state.render()
            checked += 1
    return checked


def mover_and_moves(state: State) -> tuple[int, tuple[str, ...]]:
    legal = state.all_legal_moves()
    mover = next(i for i, moves in enumerate(legal) if moves != ("noop",))
    return mover, legal[mover]


def children(state: State, mover: int, moves: tuple[str, ...]):
    roles = len(state.game.roles)
    for move in moves:
        joint = ["noop"] * roles
        joint[mover] = move
        yield move, state.next(joint)


class PerfectAgent(Agent):
    """Plays a move of the best value, chosen at random among equally good ones."""

    spec = "perfect"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: State, deadline: float | None) -> str:
        moves = state.legal_moves(self.role)
        if moves == ("noop",):
            return "noop"
        best = value(state)[self.role]
        good = [
            move
            for move, after in children(state, self.role, moves)
            if value(after)[self.role] == best
        ]
        return self.rng.choice(good)
