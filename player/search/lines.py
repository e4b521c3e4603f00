"""Lines of play in a puzzle (a game of one role) and the best one found so far.

A puzzle is deterministic and has no opponent: a sequence of moves from a state
always reaches the same terminal state and goal.  So the answer of a puzzle
search is a *line*, a sequence of moves with the goal it reaches, and the best
line found is worth keeping whole: playing its moves one by one reaches its goal
without searching again.  `BestLine` holds it from the start clock on; searches
offer it lines, and it takes only better ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ggp.games.base import State

ROLE = 0
"""A puzzle's one role."""

TOP_GOAL = 100
"""The best goal there is: a line reaching it is never replaced."""


@dataclass(frozen=True)
class Line:
    """A sequence of moves of the one role and the goal it reaches at its end."""

    goal: int
    moves: tuple[str, ...]

    def better_than(self, other: Line | None) -> bool:
        """A higher goal, or the same goal in fewer moves."""
        if other is None:
            return True
        return self.goal > other.goal or (
            self.goal == other.goal and len(self.moves) < len(other.moves)
        )


NO_LINE = Line(-1, ())
"""Worse than every line (goals are 0 to 100)."""


def line_goal(state: State, moves: Sequence[str]) -> int:
    """The goal of our role after playing `moves` from `state` to a terminal state
    (raises `ggp.games.base.GameError` if a move is illegal or the end is not terminal)."""
    for move in moves:
        state = state.next([move])
    if not state.is_terminal():
        raise ValueError(f"the line of {len(moves)} moves does not end the game")
    return state.goals()[ROLE]


class BestLine:
    """The best line known from the current state, kept across moves.

    `offer` replaces it only with a better line (`Line.better_than`); `played`
    shortens it by the move that was played, or forgets it when another move
    was (the line no longer starts from the current state).
    """

    def __init__(self) -> None:
        self.line: Line | None = None
        self.found = 0
        """How many times a better line was taken (for logs and tests)."""

    @property
    def goal(self) -> int | None:
        """The goal the best line reaches (None: no line known)."""
        return None if self.line is None else self.line.goal

    @property
    def solved(self) -> bool:
        """Whether the best line reaches the best goal there is: nothing to search for."""
        return self.line is not None and self.line.goal >= TOP_GOAL

    def offer(self, line: Line) -> bool:
        """Keep `line` if it is better than the one held; whether it was kept."""
        if not line.better_than(self.line):
            return False
        self.line = line
        self.found += 1
        return True

    def next_move(self) -> str | None:
        """The line's first move (None: no line, or the line is over)."""
        if self.line is None or not self.line.moves:
            return None
        return self.line.moves[0]

    def played(self, move: str) -> None:
        """`move` was played from the state the line starts in."""
        if self.line is None:
            return
        if self.line.moves and self.line.moves[0] == move:
            self.line = Line(self.line.goal, self.line.moves[1:])
        else:
            self.line = None


MovePath = tuple[str, "MovePath"] | None
"""The moves to a state, last first, as a linked list (shared among siblings)."""


def path_moves(path: MovePath) -> tuple[str, ...]:
    """The moves of `path`, first first."""
    moves = []
    while path is not None:
        move, path = path
        moves.append(move)
    return tuple(reversed(moves))
