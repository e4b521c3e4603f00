"""A finished match's record, and who won it: what standings and ratings are made of."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MatchResult:
    """One finished match: which agent sat in which role, and the goals."""

    index: int
    seed: int
    seats: tuple[int, ...]
    """The agent number (position in the tournament's list) of each role."""
    agents: tuple[str, ...]
    """The agent spec of each role, in role order."""
    goals: tuple[int, ...]
    steps: int
    errors: tuple[tuple[int, ...], ...] = ()
    """Per role, how many errors of each kind in `ggp.server.record.ERROR_CODES` (TO, CE, IL)."""
    match_id: str = field(default="", compare=False)
    refused: str = ""
    """Why the match has no result (a player answered ``busy``, or it reached the step
    limit); then it has no goals and counts in no standing."""


def outcome(goals: Sequence[int], role: int) -> int:
    """1 for a win (more than every other role), 0 for a draw, -1 for a loss.

    In a one-role game, 100 is a win, 0 a loss and anything between a draw.
    """
    others = [goal for index, goal in enumerate(goals) if index != role]
    best_other = max(others) if others else 50
    mine = goals[role]
    if others or mine in (0, 100):
        return (mine > best_other) - (mine < best_other)
    return 0
