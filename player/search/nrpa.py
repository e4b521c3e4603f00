"""Nested Rollout Policy Adaptation (Rosin 2011, "Nested Rollout Policy Adaptation
for Monte Carlo Tree Search", IJCAI).

A playout draws each move with probability proportional to exp(weight) of its
code in a policy (here the move's text: a puzzle's move names what it does,
``(mark 3 4 7)``).  A search of level 0 is one playout; a search of level n runs
`iterations` searches of level n - 1, each from a copy of its policy, keeps the
best line, and after each adapts the policy towards that line: every move of
the line gains `alpha`, and every legal move where it was chosen loses alpha
times its probability there (the gradient of the line's log-likelihood).

As in `ggp.player.search.nmcs`, searches are generators that yield after every
playout (None, or a line that was the best of the search of some level when found).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from ggp.games.base import State
from ggp.player.search.lines import ROLE, TOP_GOAL, Line

DEFAULT_ITERATIONS = 100
"""Searches of the level below in one search of a level (Rosin's N)."""

ALPHA = 1.0
"""The step of a policy adaptation (Rosin's alpha)."""

Policy = dict[str, float]
"""The weight of each move code; absent codes weigh 0."""


class Rollout:
    """A line and, for each of its moves, the legal moves it was chosen among."""

    __slots__ = ("line", "choices")

    def __init__(self, line: Line, choices: tuple[tuple[str, ...], ...]) -> None:
        self.line = line
        self.choices = choices


def playout(state: State, policy: Policy, rng: random.Random) -> Rollout:
    """A playout from `state` whose moves are drawn by the softmax of `policy`."""
    moves: list[str] = []
    choices: list[tuple[str, ...]] = []
    while not state.is_terminal():
        legal = state.legal_moves(ROLE)
        if len(legal) == 1:
            move = legal[0]
        else:
            weights = [math.exp(policy.get(m, 0.0)) for m in legal]
            move = rng.choices(legal, weights)[0]
        state = state.next_listed([move])
        moves.append(move)
        choices.append(legal)
    return Rollout(Line(state.goals()[ROLE], tuple(moves)), tuple(choices))


def adapt(policy: Policy, rollout: Rollout, alpha: float = ALPHA) -> Policy:
    """A new policy moved towards the moves of `rollout` (see the module)."""
    new = dict(policy)
    for move, legal in zip(rollout.line.moves, rollout.choices, strict=True):
        if len(legal) == 1:
            continue
        weights = [math.exp(policy.get(m, 0.0)) for m in legal]
        total = sum(weights)
        new[move] = new.get(move, 0.0) + alpha
        for other, weight in zip(legal, weights, strict=True):
            new[other] = new.get(other, 0.0) - alpha * weight / total
    return new


def nested(
    state: State,
    level: int,
    policy: Policy,
    rng: random.Random,
    iterations: int = DEFAULT_ITERATIONS,
) -> Iterator[Line | None]:
    """NRPA of `level` (>= 1) from `state` with `policy` (not changed); yields as the
    module says and returns (as the generator's value) the best rollout found."""
    best: Rollout | None = None
    for _ in range(iterations):
        if level == 1:
            found = playout(state, policy, rng)
        else:
            found = yield from nested(state, level - 1, policy, rng, iterations)
        if best is None or found.line.goal >= best.line.goal:
            improved = best is None or found.line.goal > best.line.goal
            best = found
            yield found.line if improved else None
            if best.line.goal >= TOP_GOAL:
                return best
        else:
            yield None
        policy = adapt(policy, best)
    assert best is not None
    return best


def restarted(
    state: State, level: int, rng: random.Random, iterations: int = DEFAULT_ITERATIONS
) -> Iterator[Line | None]:
    """NRPA of `level` from `state` with a uniform policy, again and again (each run
    a fresh start, as restarts help NRPA out of a policy that converged too early)."""
    best_goal = -1
    while best_goal < TOP_GOAL:
        search = nested(state, level, {}, rng, iterations)
        while True:
            try:
                line = next(search)
            except StopIteration:
                break
            if line is not None and line.goal > best_goal:
                best_goal = line.goal
                yield line
            else:
                yield None
