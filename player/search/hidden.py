"""Playing without seeing: GDL-II games, where a role is told only its own move and
its percepts (`ggp.games.base.State.percepts`), never the state.

- `Belief`: the states consistent with everything seen so far, as a particle
  filter (HyperPlay, Schofield and Thielscher, "Lifting Model Sampling for General
  Game Playing to Incomplete-Information Models", AAAI 2015).  Each observation
  (our move, our percepts) is filtered by rejection: the other roles' moves are
  uniform (chance moves as the rules' uniform chance, opponents as uniform
  players), and a successor is kept if we would have seen exactly what we saw.
  Accepted successors are distributed as the posterior under that model (Monty
  Hall: the car behind the other door with probability 2/3).  The tries are
  stratified rather than drawn independently: the particles are taken in turn,
  and each one's successive tries go through the others' joint moves in turn
  from a random one, so that each particle and each joint move is tried as
  often as the others, give or take one (Monty Hall's hidden car behind each door
  in a third of the particles exactly, where independent draws gave 86, 71 and 43
  of 200 in one of 300 matches, and the search then stayed).  When rejection
  finds too few, the history is searched depth first for states consistent with
  it, so a belief is never empty while one exists.
- `InformationSetSearch`: single-observer information-set MCTS (Cowling, Powley
  and Whitehouse, "Information Set Monte Carlo Tree Search", 2012): each
  iteration draws a determinization from the belief and descends one tree whose
  nodes are our information sets (our moves and percepts since the root); every
  role with a choice picks by UCB1 over its moves available in the
  determinization (availability counts), chance moves uniformly at random (so
  they are averaged), and a random playout values the leaf.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ggp.games.base import Game, GameError, State
from ggp.games.playouts import RANDOM

Observation = tuple[str, tuple[str, ...]]
"""What a role learns from one joint move: its own move and its percepts (sorted)."""

DEFAULT_PARTICLES = 200
"""States a belief keeps: enough for the posteriors of small card and dice games."""

TRIES_PER_PARTICLE = 40
"""Rejection draws per particle wanted before the history is searched instead."""


class BeliefLost(GameError):
    """No state of the game is consistent with what the role has seen: the rules or
    the referee contradict themselves (or the observations were not this game's)."""


@dataclass
class Belief:
    """The states a role of a GDL-II game may be in, sampled (see the module)."""

    game: Game
    role: int
    size: int = DEFAULT_PARTICLES
    rng: random.Random = field(default_factory=random.Random)
    history: list[Observation] = field(default_factory=list)
    particles: list[State] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.particles:
            self.particles = [self.game.initial_state()]

    def observe(self, move: str, percepts: Sequence[str]) -> None:
        """We played `move` and saw `percepts`: keep the successors consistent with it.

        Percepts are compared in any case, as managers that spell everything in upper
        case (the Dresden GameController) send them; `move` as our legal moves spell it.
        """
        observation = (move, _folded(percepts))
        self.history.append(observation)
        kept: list[State] = []
        order = list(self.particles)
        self.rng.shuffle(order)
        starts = [self.rng.getrandbits(32) for _ in order]
        for tried in range(self.size * TRIES_PER_PARTICLE):
            if len(kept) >= self.size:
                break
            index = tried % len(order)
            after = self._successor(order[index], observation, starts[index] + tried // len(order))
            if after is not None:
                kept.append(after)
        if len(kept) < self.size // 4:
            kept += self._searched(self.size - len(kept))
        if not kept:
            raise BeliefLost(
                f"{self.game.name}: no state is consistent with what role "
                f"{self.game.roles[self.role]} saw: {self.history}"
            )
        self.particles = kept

    def move_to(self, game: Game) -> None:
        """Go on with `game`: the same rules on another reasoner (`ggp.gdl.load`), each
        particle the state of `game` with the same facts."""
        converted: dict[str, State] = {}
        particles = []
        for state in self.particles:
            key = state.key()
            if key not in converted:
                converted[key] = game.state_from_facts(state.facts())
            particles.append(converted[key])
        self.game, self.particles = game, particles

    def sample(self) -> State:
        """A state drawn from the belief."""
        return self.rng.choice(self.particles)

    def legal_moves(self) -> tuple[str, ...]:
        """Our legal moves (the same in every state we may be in, in a well-formed game)."""
        return self.particles[0].legal_moves(self.role)

    def _successor(self, state: State, observation: Observation, others: int) -> State | None:
        """The successor of `state` by our move and the others' joint move numbered
        `others` (its digits in the mixed radix of their numbers of moves, modulo their
        number of joint moves), if it shows `observation`."""
        move, percepts = observation
        if state.is_terminal():
            return None
        legal = state.all_legal_moves()
        if move not in legal[self.role]:
            return None
        joint = []
        for role, moves in enumerate(legal):
            if role == self.role:
                joint.append(move)
            else:
                others, digit = divmod(others, len(moves))
                joint.append(moves[digit])
        if _folded(state.percepts_listed(joint)[self.role]) != percepts:
            return None
        return state.next_listed(joint)

    def _searched(self, wanted: int) -> list[State]:
        """Up to `wanted` states consistent with the whole history, found depth first
        from the initial state in random order (HyperPlay's backtracking)."""
        found: list[State] = []
        self._extend(self.game.initial_state(), 0, found, wanted)
        return found

    def _extend(self, state: State, step: int, found: list[State], wanted: int) -> None:
        if len(found) >= wanted:
            return
        if step == len(self.history):
            found.append(state)
            return
        move, percepts = self.history[step]
        if state.is_terminal() or move not in state.legal_moves(self.role):
            return
        legal = [list(moves) for moves in state.all_legal_moves()]
        legal[self.role] = [move]
        joints = _joint_moves(legal)
        self.rng.shuffle(joints)
        for joint in joints:
            if _folded(state.percepts_listed(joint)[self.role]) == percepts:
                self._extend(state.next_listed(joint), step + 1, found, wanted)
                if len(found) >= wanted:
                    return


def _folded(percepts: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(percept.lower() for percept in percepts))


def _joint_moves(legal: Sequence[Sequence[str]]) -> list[list[str]]:
    joints: list[list[str]] = [[]]
    for moves in legal:
        joints = [joint + [move] for joint in joints for move in moves]
    return joints


class _Node:
    """One information set of ours: per role, its moves' visits and summed goals."""

    __slots__ = ("stats", "available", "children")

    def __init__(self, roles: int) -> None:
        self.stats: list[dict[str, list[float]]] = [{} for _ in range(roles)]
        self.available: list[dict[str, int]] = [{} for _ in range(roles)]
        self.children: dict[Observation, _Node] = {}


@dataclass
class InformationSetSearch:
    """Single-observer ISMCTS over a `Belief` (see the module)."""

    belief: Belief
    c: float = 0.7
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        game = self.belief.game
        self.role = self.belief.role
        self.chance = game.random_role
        self.root = _Node(len(game.roles))
        self.iterations = 0
        self.nodes = 1
        """The information sets in the tree, the root included."""

    def run(self, iterations: int | None = None, deadline: float | None = None) -> None:
        """Search `iterations` times, or until `deadline` (monotonic seconds), or both."""
        if iterations is None and deadline is None:
            raise GameError("a search needs iterations, a deadline or both")
        done = 0
        while iterations is None or done < iterations:
            if deadline is not None and time.monotonic() >= deadline:
                break
            self._iterate(self.belief.sample())
            done += 1
        self.iterations += done

    def values(self) -> dict[str, tuple[int, float]]:
        """Our moves at the root: visits and mean goal (0..100)."""
        return {
            move: (int(visits), total / visits if visits else 0.0)
            for move, (visits, total) in self.root.stats[self.role].items()
        }

    def best_move(self) -> str:
        """Our most visited move at the root (ties: the higher mean, then the text)."""
        values = self.values()
        if not values:
            return self.belief.legal_moves()[0]
        return max(values, key=lambda move: (values[move][0], values[move][1], move))

    def _iterate(self, state: State) -> None:
        path: list[tuple[_Node, list[str]]] = []
        node = self.root
        goals = None
        while not state.is_terminal():
            joint = self._select(node, state)
            path.append((node, joint))
            observation = (joint[self.role], state.percepts_listed(joint)[self.role])
            state = state.next_listed(joint)
            child = node.children.get(observation)
            if child is None:
                node.children[observation] = _Node(len(joint))
                self.nodes += 1
                if not state.is_terminal():
                    goals, _ = state.playouts(self.rng, 1, RANDOM)[0]
                break
            node = child
        if goals is None:
            goals = state.goals()
        for node, joint in path:
            for role, move in enumerate(joint):
                entry = node.stats[role].get(move)
                if entry is not None:
                    entry[0] += 1
                    entry[1] += goals[role]

    def _select(self, node: _Node, state: State) -> list[str]:
        joint = []
        for role, moves in enumerate(state.all_legal_moves()):
            if len(moves) == 1 or role == self.chance:
                joint.append(self.rng.choice(moves))
                continue
            stats, available = node.stats[role], node.available[role]
            for move in moves:
                available[move] = available.get(move, 0) + 1
            untried = [move for move in moves if move not in stats]
            if untried:
                move = self.rng.choice(untried)
                stats[move] = [0, 0.0]
            else:
                move = max(moves, key=lambda m: _ucb(stats[m], available[m], self.c))
            joint.append(move)
        return joint


def _ucb(entry: list[float], available: int, c: float) -> float:
    visits, total = entry
    if visits == 0:
        return math.inf
    return total / visits / 100 + c * math.sqrt(math.log(available) / visits)
