"""The agent interface: what the referee, the arena and the search worker ask of an agent.

The agents themselves, and `make_agent` that builds one from a spec, are in
`ggp.player.agents` (the puzzle agents in `ggp.player.puzzle_agents`); both build
on this module, which imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ggp.games.base import Game, GameError, State
from ggp.player.search.mcts import MoveStats


@dataclass(frozen=True)
class Clocks:
    """The clocks of a match in seconds, as a referee announces them (None: no limit)."""

    start: float | None = None
    play: float | None = None


@dataclass(frozen=True)
class Sight:
    """What a role of a GDL-II game (`Game.gdl_ii`) is told after a joint move: the
    move it played (the referee's stand-in if its own was late or illegal) and its
    percepts (`State.percepts`), sorted; never the others' moves nor the state."""

    move: str
    percepts: tuple[str, ...]


class MatchQuit(Exception):
    """A person asked to leave the match."""


class Agent:
    """Base class: a stateless agent needs only `choose_move`."""

    spec = "agent"

    def start(self, game: Game, role: int, clocks: Clocks | None = None) -> None:
        """A match begins; this agent plays `game.roles[role]` under `clocks`."""
        self.game = game
        self.role = role
        self.clocks = clocks or Clocks()

    def choose_move(self, state: State, deadline: float | None) -> str:
        """The move to play in `state`, before `deadline` (monotonic seconds)."""
        raise NotImplementedError

    def observe(self, joint: Sequence[str], state: State) -> None:
        """The joint move `joint` was played and led to `state`."""

    def stop(self, state: State) -> None:
        """The match is over (or was stopped) in `state`."""

    def ranking(self) -> list[MoveStats]:
        """How a searching agent ranked its moves at its last decision, best first."""
        return []

    plays_unseen = False
    """Whether the agent can play a GDL-II game, told only its own moves and percepts
    (`perceive`, `choose_unseen`); the others would see the whole state."""

    def perceive(self, sight: Sight) -> None:
        """GDL-II: what this role was told of the joint move just played (for `observe`)."""

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        """GDL-II: the move to play knowing only what was perceived; `legal` are this
        role's legal moves, which a well-formed GDL-II game lets the role know."""
        raise GameError(f"agent {self.spec} sees the whole state: it cannot play a GDL-II game")
