"""What happened in a match, as the referee records it while it runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ggp.games.base import Game, Goals, State
from ggp.player.agents import Clocks

ERROR_CODES = ("TO", "CE", "IL")
"""The kinds of errors a referee records: late, connection failure, illegal move."""


@dataclass
class MatchRecord:
    """Every state, joint move and error of a match, its goals and how it ended.

    `errors` has one entry per role for the start (index 0) and then one per
    step: ``errors[i + 1]`` goes with ``moves[i]``; an entry is ``""``, ``TO``,
    ``CE``, ``IL <move>`` or ``IL null``.  `states` are the true states, which
    the players of a GDL-II game never see.
    """

    match_id: str
    game: Game
    players: list[str]
    """The name of the player in each role (an agent spec or an address)."""
    game_spec: str = ""
    rules: str | None = None
    clocks: Clocks = field(default_factory=Clocks)
    grace: float = 1.0
    start_time: int = 0
    """Milliseconds since the epoch."""
    states: list[State] = field(default_factory=list)
    state_times: list[int] = field(default_factory=list)
    moves: list[tuple[str, ...]] = field(default_factory=list)
    percepts: list[tuple[tuple[str, ...], ...]] = field(default_factory=list)
    """GDL-II (`Game.gdl_ii`): per step, what each role saw of ``moves[i]``
    (`State.percepts`); a role's view of the match is its own moves and these."""
    errors: list[tuple[str, ...]] = field(default_factory=list)
    goals: Goals | None = None
    aborted: bool = False
    failure: str | None = None
    """Why the match was aborted (cancelled, a player or the rules broke down)."""

    @property
    def completed(self) -> bool:
        return self.goals is not None


def error_counts(errors: Sequence[Sequence[str]], roles: int) -> tuple[tuple[int, ...], ...]:
    """Per role, how many errors of each code in `ERROR_CODES` a match recorded."""
    counts = [[0] * len(ERROR_CODES) for _ in range(roles)]
    for step in errors:
        for role, error in enumerate(step):
            if error:
                counts[role][ERROR_CODES.index(error.split()[0])] += 1
    return tuple(tuple(row) for row in counts)
