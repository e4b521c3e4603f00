"""The ``nmcs`` and ``nrpa`` agents: the puzzle searches of `ggp.player.search` for
students to compare with ``mcts`` (``ggp match``, ``ggp study``, the arena).

Each runs its algorithm as published, at a fixed level, from the state it is
asked about: ``nmcs:level=2`` a Nested Monte Carlo Search of level 2,
``nrpa:level=2,iterations=100`` an NRPA of level 2 with 100 iterations a level.
The search ends when it has run its course, at the referee's deadline, or after
``time`` seconds, whichever comes first; the best line it found is kept from
move to move (`ggp.player.search.lines.BestLine`) and is only replaced by a
better one, so a search that has run its course is not run again while its line
lasts.  Puzzles only: a game of one role.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence

from ggp.games.base import Game, GameError, State
from ggp.player.agent_base import Agent, Clocks
from ggp.player.search import nmcs, nrpa
from ggp.player.search.lines import ROLE, BestLine, Line

DEFAULT_LEVEL = 2


class PuzzleAgent(Agent):
    """What the ``nmcs`` and ``nrpa`` agents share: the kept line, the time budget."""

    def __init__(
        self, *, level: int = DEFAULT_LEVEL, time: float | None = None, seed: int | None = None
    ) -> None:
        self.level = level
        self.time = time
        self.rng = random.Random(seed)
        self.best = BestLine()
        self.searched: State | None = None
        """The state the last search that ran its course began in."""

    def start(self, game: Game, role: int, clocks: Clocks | None = None) -> None:
        if len(game.roles) != 1:
            raise GameError(
                f"agent {self.spec}: a puzzle search plays games of one role; "
                f"{game.name} has {len(game.roles)}"
            )
        super().start(game, role, clocks)
        self.best = BestLine()
        self.searched = None

    def search(self, state: State) -> Iterator[Line | None]:
        raise NotImplementedError

    def choose_move(self, state: State, deadline: float | None) -> str:
        legal = state.legal_moves(ROLE)
        if len(legal) == 1:
            return legal[0]
        if self.time is not None:
            own = time.monotonic() + self.time
            deadline = own if deadline is None else min(own, deadline)
        if not self.best.solved and self.searched is None:
            self._run(self.search(state), state, deadline)
        move = self.best.next_move()
        return move if move in legal else self.rng.choice(legal)

    def _run(self, search: Iterator[Line | None], state: State, deadline: float | None) -> None:
        for line in search:
            if line is not None:
                self.best.offer(line)
            if deadline is not None and time.monotonic() >= deadline:
                return
        self.searched = state

    def observe(self, joint: Sequence[str], state: State) -> None:
        move = joint[ROLE]
        followed = self.best.next_move() == move
        self.best.played(move)
        if not followed:
            self.searched = None


class NMCSAgent(PuzzleAgent):
    """Nested Monte Carlo Search of a fixed level (`ggp.player.search.nmcs`)."""

    spec = "nmcs"

    def search(self, state: State) -> Iterator[Line | None]:
        return nmcs.nested(state, self.level, self.rng)


class NRPAAgent(PuzzleAgent):
    """Nested Rollout Policy Adaptation of a fixed level (`ggp.player.search.nrpa`)."""

    spec = "nrpa"

    def __init__(
        self,
        *,
        level: int = DEFAULT_LEVEL,
        iterations: int = nrpa.DEFAULT_ITERATIONS,
        time: float | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(level=level, time=time, seed=seed)
        self.iterations = iterations

    def search(self, state: State) -> Iterator[Line | None]:
        return nrpa.nested(state, self.level, {}, self.rng, self.iterations)
