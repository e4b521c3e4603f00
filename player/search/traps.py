"""Traps: where a position is solved exactly, the best move a fallible opponent
is likeliest to answer badly.

Against perfect play every move that keeps a solved position's value is as
good as another.  Real opponents are not perfect.  The model of one here is
the simplest player there is, a flat Monte Carlo player (GGP-Base's
SampleMonteCarloGamer): it plays the reply whose uniformly random playouts
give it the most.  Of the moves that keep the value, the one to play is the
one after which that reply gives us more than the value; where none does,
the search's favourite of them.  On tic-tac-toe, a
draw, that is the corner opening's trap: corner, centre, opposite corner,
after which random playouts favour a corner reply, which loses.

`Traps.solve` values our moves exactly (`ggp.player.search.exact`) where the game is
small enough; it gives up within its deadline otherwise, and after each
failure waits twice as many moves before it tries again, so that a large
game loses little time to it.  `Traps.trap` gives the move to play at once
(the only best one, or the trap); else the search goes on as usual and
`Traps.best_of` keeps its choice to the best moves.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from math import sqrt

from ggp.games.base import State
from ggp.games.playouts import RANDOM
from ggp.player.search.exact import ExactValues, Unsolved

TRAPS = False
"""Whether the `mcts` agent plays solved positions exactly, with traps, by
default: only if it wins against the search without (docs/mcts-enhancements.md)."""

SOLVE_SHARE = 0.1
"""The share of a move's time the exact solver may take."""

TRAP_SHARE = 0.5
"""The share of a move's time left after solving that the model may take."""

SOLVE_BUDGET = 200_000
"""The states the exact solver may value per move where no deadline is given."""

ROUND_PLAYOUTS = 32
"""Random playouts after each reply per round of the opponent's model."""

MAX_PLAYOUTS = 4000
"""Playouts after a reply at which its estimate is final."""

TIED = 2.0
"""Replies whose means lie within this many standard errors of the best one's
are ones the model cannot tell from it: each may be played."""


@dataclass(frozen=True)
class Plan:
    """A solved position: our best value and the moves that keep it."""

    value: float
    best: tuple[str, ...]


class Traps:
    """Exact values and traps for role index `role`, over one match."""

    def __init__(self, role: int, playouts: int = MAX_PLAYOUTS) -> None:
        self.role = role
        self.playouts = playouts
        """Random playouts after each reply at which the model's estimate is final."""
        self.exact = ExactValues(role)
        self.misses = 0
        """Failed tries so far: after the n-th, 2**n - 1 moves are not tried."""
        self.wait = 0

    def solve(self, state: State, deadline: float | None) -> Plan | None:
        """Our best value at `state` and the moves that keep it, if found by
        `deadline` (monotonic; None: within `SOLVE_BUDGET` states)."""
        if self.wait:
            self.wait -= 1
            return None
        budget = SOLVE_BUDGET if deadline is None else None
        try:
            values = self.exact.move_values(state, deadline, budget)
        except Unsolved:
            self.misses += 1
            self.wait = 2**self.misses - 1
            return None
        value = max(values)
        moves = state.legal_moves(self.role)
        return Plan(value, tuple(m for m, v in zip(moves, values, strict=True) if v == value))

    def trap(
        self, plan: Plan, state: State, rng: random.Random, deadline: float | None
    ) -> str | None:
        """The move to play at the solved `state` without searching: the only
        best one, or the trap, if there is one and the model finds it by
        `deadline` (monotonic; None: with all its playouts); else None."""
        if len(plan.best) == 1:
            return plan.best[0]
        if plan.value >= 1.0:
            return None
        return self._trap(plan, state, rng, deadline)

    @staticmethod
    def best_of(plan: Plan, ranking: list[str]) -> str:
        """The first of the moves in `ranking` (a search's, best first) that keeps
        the value, else the first that does."""
        return next((move for move in ranking if move in plan.best), plan.best[0])

    def _trap(
        self, plan: Plan, state: State, rng: random.Random, deadline: float | None
    ) -> str | None:
        """The best move whose modelled reply gives us the most, if more than
        the value; None if none does or the model is not done by `deadline`."""
        replies: dict[str, list[_Reply]] = {}
        legal = state.all_legal_moves()
        joint = [moves[0] for moves in legal]
        self.exact.within(deadline, SOLVE_BUDGET if deadline is None else None)
        try:
            for move in plan.best:
                joint[self.role] = move
                found = self._replies(state.next(joint))
                if found:
                    replies[move] = found
        except Unsolved:
            return None
        if not replies or not _estimate(list(replies.values()), rng, deadline, self.playouts):
            return None
        scores = {move: _modelled_value(found) for move, found in replies.items()}
        best = max(scores, key=scores.__getitem__)
        return best if scores[best] > plan.value else None

    def _replies(self, after: State) -> list[_Reply]:
        """The replies at `after` of the one other role on move there, with our
        exact value after each (none if the game ended, or several roles, or
        we, are to move)."""
        if after.is_terminal():
            return []
        legal = after.all_legal_moves()
        choosers = [r for r, moves in enumerate(legal) if len(moves) > 1]
        if len(choosers) != 1 or choosers[0] == self.role:
            return []
        opponent = choosers[0]
        joint = [moves[0] for moves in legal]
        replies = []
        for move in legal[opponent]:
            joint[opponent] = move
            reached = after.next(joint)
            replies.append(_Reply(reached, opponent, self.exact.value(reached)))
        return replies


class _Reply:
    """One reply of the opponent: the state it leads to, our exact value there,
    and the opponent's rewards in random playouts from it."""

    __slots__ = ("state", "opponent", "ours", "total", "squares", "count")

    def __init__(self, state: State, opponent: int, ours: float) -> None:
        self.state = state
        self.opponent = opponent
        self.ours = ours
        self.total = self.squares = 0.0
        self.count = 0

    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def error(self) -> float:
        """The standard error of `mean`."""
        if self.count < 2:
            return 1.0
        variance = max(self.squares / self.count - self.mean() ** 2, 0.0)
        return sqrt(variance / (self.count - 1))

    def play(self, rng: random.Random) -> None:
        """`ROUND_PLAYOUTS` more random playouts from the reply's state."""
        state = self.state
        if state.is_terminal():
            results = [(state.goals(), 0)] * ROUND_PLAYOUTS
        else:
            results = state.playouts(rng, ROUND_PLAYOUTS, RANDOM)
        for goals, _ in results:
            reward = goals[self.opponent] * 0.01
            self.total += reward
            self.squares += reward * reward
        self.count += len(results)


def _estimate(
    moves: list[list[_Reply]], rng: random.Random, deadline: float | None, playouts: int
) -> bool:
    """Random playouts from every reply, in rounds, until each has had
    `playouts` or `deadline` is near; whether every reply had a round."""
    pending = [reply for replies in moves for reply in replies]
    slowest = 0.0
    while pending:
        for reply in pending:
            began = time.monotonic()
            if deadline is not None and began + slowest >= deadline:
                return all(reply.count for replies in moves for reply in replies)
            reply.play(rng)
            slowest = max(slowest, time.monotonic() - began)
        pending = [reply for reply in pending if reply.count < playouts]
    return True


def _modelled_value(replies: list[_Reply]) -> float:
    """Our value after the flat Monte Carlo opponent's reply: the mean over the
    replies it cannot tell from its best."""
    best = max(replies, key=_Reply.mean)
    tied = [
        reply
        for reply in replies
        if best.mean() - reply.mean() <= TIED * sqrt(best.error() ** 2 + reply.error() ** 2)
    ]
    return sum(reply.ours for reply in tied) / len(tied)
