"""The match loop: agents take turns at a game until it ends.

One loop serves every kind of player: in-process agents now, remote HTTP
players (through an agent that speaks the protocol) later.  Each step asks
every agent for its move in the current state, applies the joint move, and
tells every agent what was played.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.base import Game, Goals, State
from player.agents import Agent, Clocks, make_agent


@dataclass
class MatchRecord:
    """What happened in a match: every state, every joint move, the goals."""

    game: Game
    agents: list[str]
    states: list[State] = field(default_factory=list)
    moves: list[tuple[str, ...]] = field(default_factory=list)
    goals: Goals | None = None


StepCallback = Callable[[MatchRecord], None]


def derive_seed(*parts: object) -> int:
    """A seed made from `parts` (a tournament seed, a match index...), the same in
    every process and on every run."""
    return random.Random(":".join(map(str, parts))).getrandbits(63)


def make_agents(specs: Sequence[str], seed: int | None) -> list[Agent]:
    """One agent per spec, each with its own seed derived from `seed` and its seat."""
    return [
        make_agent(spec, None if seed is None else derive_seed(seed, seat))
        for seat, spec in enumerate(specs)
    ]


def request_moves(agents: Sequence[Agent], state: State, deadline: float | None) -> tuple[str, ...]:
    """Ask every agent for its move in `state`: the joint move, in role order."""
    return tuple(agent.choose_move(state, deadline) for agent in agents)


def play_match(
    game: Game,
    agents: Sequence[Agent],
    *,
    clocks: Clocks | None = None,
    on_step: StepCallback | None = None,
) -> MatchRecord:
    """Play one match of `game`, agent i taking role i; return its record.

    `clocks` are announced to the agents; a play clock gives every request a
    deadline.  `on_step` is called with the record after the initial state
    and after every joint move (to show the board, for instance).
    """
    if len(agents) != len(game.roles):
        raise ValueError(
            f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}), "
            f"got {len(agents)} agents"
        )
    state = game.initial_state()
    record = MatchRecord(game, [agent.spec for agent in agents], [state])
    clocks = clocks or Clocks()
    for index, agent in enumerate(agents):
        agent.start(game, index, clocks)
    if on_step:
        on_step(record)
    try:
        while not state.is_terminal():
            deadline = time.monotonic() + clocks.play if clocks.play else None
            joint = request_moves(agents, state, deadline)
            state = state.next(joint)
            record.moves.append(joint)
            record.states.append(state)
            for agent in agents:
                agent.observe(joint, state)
            if on_step:
                on_step(record)
        record.goals = state.goals()
    finally:
        for agent in agents:
            agent.stop(state)
    return record
