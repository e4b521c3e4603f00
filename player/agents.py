"""Agents: whatever chooses a move for one role of a match.

An agent is told the game and its role at the start, is asked for a move in
each state (with a deadline, a `time.monotonic()` value, or None), and sees
every joint move as it is played, so that search can reuse its tree.
Agents are named by specs on the command line: ``random``, ``legal``,
``human``, with options after a colon (``mcts:iterations=200,c=0.7``).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from games.base import Game, GameError, State, canonical_move
from games.registry import parse_spec


class MatchQuit(Exception):
    """A person asked to leave the match."""


class Agent:
    """Base class: a stateless agent needs only `choose_move`."""

    spec = "agent"

    def start(self, game: Game, role: int) -> None:
        """A match begins; this agent plays `game.roles[role]`."""
        self.game = game
        self.role = role

    def choose_move(self, state: State, deadline: float | None) -> str:
        """The move to play in `state`, before `deadline` (monotonic seconds)."""
        raise NotImplementedError

    def observe(self, joint: Sequence[str], state: State) -> None:
        """The joint move `joint` was played and led to `state`."""

    def stop(self, state: State) -> None:
        """The match is over (or was stopped) in `state`."""


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    spec = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: State, deadline: float | None) -> str:
        return self.rng.choice(state.legal_moves(self.role))


class LegalAgent(Agent):
    """Plays the first legal move: a deterministic baseline."""

    spec = "legal"

    def choose_move(self, state: State, deadline: float | None) -> str:
        return state.legal_moves(self.role)[0]


class HumanAgent(Agent):
    """A person at a terminal: legal moves are listed, numbered; type one."""

    spec = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def choose_move(self, state: State, deadline: float | None) -> str:
        legal = state.legal_moves(self.role)
        if len(legal) == 1 and legal[0] == "noop":
            return legal[0]
        role = self.game.roles[self.role]
        self._say(f"Your moves ({role}):")
        for number, move in enumerate(legal, 1):
            self._say(f"  {number:>3}. {move}")
        while True:
            self.stdout.write(f"{role}> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("quit", "exit", "q"):
                raise MatchQuit()
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            move = canonical_move(answer)
            if move in legal:
                return move
            if not move.startswith("(") and f"({move})" in legal:
                return f"({move})"
            self._say(
                f"{answer!r} is not a legal move: type a number from 1 to {len(legal)}, "
                "a move as listed, or quit"
            )

    def _say(self, text: str) -> None:
        print(text, file=self.stdout)


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "legal": LegalAgent,
    "human": HumanAgent,
}


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent named by `spec`; `seed` makes random choices repeatable."""
    name, options = parse_spec(spec, what="agent")
    if name not in AGENTS:
        raise GameError(f"unknown agent {name!r}; agents: {', '.join(AGENTS)}")
    if options:
        raise GameError(f"agent {name!r} takes no options, got {spec!r}")
    agent = RandomAgent(seed) if name == "random" else AGENTS[name]()
    agent.spec = spec
    return agent
