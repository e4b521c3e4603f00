"""Exact values of small positions: a memoized minimax over the game's states.

MCTS-Solver proves a win as soon as one move is proven to win, but a draw only
once every reply of the opponent is refuted, and UCT starves the replies that
look bad: on tic-tac-toe (5,478 states) the tree had not proven the empty
board after 4 million iterations, nor most moves after the first three plies.
A plain depth-first minimax over the states, each valued once (memoized by its
key), settles such a game in a second.  It gives up, keeping what it settled
for the next try, when it has looked at its budget of states or reaches its
deadline, so that it costs little where the game is too large.

The value is role `role`'s *security value*, as the solver's
(`ggp.player.search.solver`): its goal where it chooses the best move and every other
role plays against it.  Positions where several roles choose at once are not
valued (`Unsolved`).
"""

from __future__ import annotations

import sys
import time

from ggp.games.base import State

MAX_STATES = 300_000
"""States valued at most per match; past this the memo is dropped."""

CLOCK_EVERY = 64
"""States valued between two looks at the clock."""

MAX_DEPTH = 400
"""Plies below the position at which the search gives up (Python's stack)."""


class Unsolved(Exception):
    """The position could not be valued: out of time or budget, or simultaneous moves."""


class ExactValues:
    """Role `role`'s exact security values of states, memoized for a match."""

    def __init__(self, role: int, max_states: int = MAX_STATES) -> None:
        self.role = role
        self.max_states = max_states
        self.values: dict[str, float] = {}
        self._deadline = 0.0
        self._budget = 0

    def move_values(
        self, state: State, deadline: float | None, budget: int | None = None
    ) -> list[float]:
        """The value after each of role `role`'s moves at `state`, a turn-taking
        position where it alone chooses, in `legal_moves` order; raises
        `Unsolved` when that takes past `deadline` (monotonic) or more than
        `budget` new states."""
        legal = state.all_legal_moves()
        if [r for r, moves in enumerate(legal) if len(moves) > 1] != [self.role]:
            raise Unsolved("not a position where this role alone chooses")
        self.within(deadline, budget)
        joint = [moves[0] for moves in legal]
        values = []
        for move in legal[self.role]:
            joint[self.role] = move
            values.append(self.value(state.next(joint)))
        return values

    def within(self, deadline: float | None, budget: int | None = None) -> None:
        """Let `value` look at `budget` more states (None: any number) until
        `deadline` (monotonic; None: no end) before it raises `Unsolved`."""
        if len(self.values) > self.max_states:
            self.values.clear()
        self._deadline = float("inf") if deadline is None else deadline
        self._budget = sys.maxsize if budget is None else budget

    def value(self, state: State, depth: int = 0) -> float:
        """The security value of `state` (memoized), `depth` plies below the
        position asked about.  A choice stops at the first move that reaches
        the bound (1 for role `role`'s own, 0 for another's): the value is
        exact all the same."""
        key = state.key()
        known = self.values.get(key)
        if known is not None:
            return known
        self._budget -= 1
        if self._budget < 0:
            raise Unsolved("out of budget")
        if self._budget % CLOCK_EVERY == 0 and time.monotonic() >= self._deadline:
            raise Unsolved("out of time")
        if depth > MAX_DEPTH:
            raise Unsolved("too deep")
        if state.is_terminal():
            value = state.goals()[self.role] * 0.01
        else:
            legal = state.all_legal_moves()
            choosers = [r for r, moves in enumerate(legal) if len(moves) > 1]
            if len(choosers) > 1:
                raise Unsolved("simultaneous moves")
            joint = [moves[0] for moves in legal]
            if not choosers:
                value = self.value(state.next(joint), depth + 1)
            else:
                chooser = choosers[0]
                ours = chooser == self.role
                bound = 1.0 if ours else 0.0
                value = 1.0 - bound
                for move in legal[chooser]:
                    joint[chooser] = move
                    child = self.value(state.next(joint), depth + 1)
                    value = max(value, child) if ours else min(value, child)
                    if value == bound:
                        break
        self.values[key] = value
        return value
