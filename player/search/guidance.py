"""Goal-directed guidance for a puzzle: how much of its goal's conditions hold.

The goal of a puzzle is usually all or nothing (``(goal player 100)`` when no
light is on, when every tile is in place), so random lines all score 0 and the
goal itself says nothing about which state is nearer.  Its rules do: each goal
is a disjunction of conjunctions of conditions over the state, and the share of
a conjunction's conditions that hold grows as a state comes nearer.  This module
reads the goal rules of a compiled game (its ground network, `ggp.gdl.network`)
and scores a state by *partial satisfaction*: a conjunction is worth the mean of
its literals, a disjunction the best of its bodies, and a negated one its De
Morgan dual (``not lighton``, lighton being "some cell is lit", is worth the
share of cells not lit); a literal over the state is 1 or 0.  A state scores the
best, over the goals of the one role, of value/100 times the goal's satisfaction.

It is used only where it tracks the goal on this puzzle (`profile`), and only
where the goal's rules are small and acyclic enough to evaluate per state.  The
same random lines tell whether the goal, where the rules define it before the
end, is a bound (it never rises along a line: ten queens scored by the pairs that
attack each other), whether every line has the same length, and which facts of
the state count the moves (a step counter: the same in every state reached by as
many moves), to be told apart from the goal's reading them (100 for the tiles in
order at exactly the 30th move).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ggp.games.base import Game, GameError, State
from ggp.gdl.network.formulas import BASE, INPUT, NODE, Body, cone, fold
from ggp.player.search.heuristic import correlation
from ggp.player.search.lines import ROLE

MAX_LITERALS = 4000
"""Literals in the goal's rules at most: each state evaluated costs about that many steps."""

MIN_CORRELATION = 0.2
"""The correlation of the score with the goal, over terminal states of random
lines, below which the guidance is not used (where the goal varies among them)."""

SAMPLE_LINES = 200
"""Random lines sampled to check the guidance."""

Guidance = Callable[[State], float]
"""A score of a state, 0..1: higher nearer the goal."""

_Program = list[tuple[int, list[Body]]]
"""The nodes of the goal's rules in evaluation order, with their (folded) bodies."""


def goal_satisfaction(game: Game) -> Guidance | None:
    """The partial satisfaction of `game`'s goal rules (see the module), or None
    where the game is not compiled, or its goal rules are cyclic or too large."""
    compiled = getattr(game, "compiled", None)
    network = getattr(compiled, "network", None)
    if network is None or len(game.roles) != 1:
        return None
    goals = [
        (node, value)
        for (node, _), value in zip(network.goals[ROLE], compiled.goal_values[ROLE], strict=True)
        if value
    ]
    if not goals:
        return None
    components = cone(network, [node for node, _ in goals])
    if any(network.cyclic[component] for component in components):
        return None
    folded = fold(network, components)
    program: _Program = []
    constants: dict[int, bool] = {}
    for component in components:
        for node in network.components[component]:
            bodies = folded[node]
            if isinstance(bodies, bool):
                constants[node] = bodies
            else:
                program.append((node, bodies))
    if sum(len(body) + 1 for _, bodies in program for body in bodies) > MAX_LITERALS:
        return None

    def score(state: State) -> float:
        bits = getattr(state, "bits", None)
        if not isinstance(bits, int):
            return 0.0
        true, false = _evaluate(program, constants, bits)
        return max(value * 0.01 * true[node] for node, value in goals)

    return score


def _evaluate(
    program: _Program, constants: dict[int, bool], bits: int
) -> tuple[dict[int, float], dict[int, float]]:
    """Per node of `program`: how much it holds, and how much its negation does."""
    true: dict[int, float] = {node: float(value) for node, value in constants.items()}
    false: dict[int, float] = {node: 1.0 - value for node, value in true.items()}
    for node, bodies in program:
        best = 0.0
        dual = 0.0
        for body in bodies:
            held = 0.0
            broken = 0.0
            for kind, index, positive in body:
                if kind == BASE:
                    value = float(bits >> index & 1)
                elif kind == NODE:
                    value = true[index]
                    if not positive:
                        value = false[index]
                    held += value
                    broken = max(broken, 1.0 - value)
                    continue
                else:
                    assert kind == INPUT
                    value = 0.5
                if not positive:
                    value = 1.0 - value
                held += value
                broken = max(broken, 1.0 - value)
            best = max(best, held / len(body) if body else 1.0)
            dual += broken
        true[node] = best
        false[node] = dual / len(bodies) if bodies else 1.0
    return true, false


@dataclass(frozen=True)
class Profile:
    """What random lines of a puzzle say about how to search it (`profile`)."""

    guidance: Guidance | None = None
    """Partial goal satisfaction, where it tracks the goal."""
    bounded: bool = False
    """Whether the goal is defined in every state, falls along some lines and never
    rises along one: the goal of a state is then taken as an upper bound of every
    line through it (a cut-off; random lines suggest it, they do not prove it)."""
    length: int | None = None
    """The length of every line, where all have one (filling a grid: one move a cell)."""
    counters: int = 0
    """The bits of the state that count the moves: in the random lines, the same in
    every state reached by as many moves, and not the same at every number of moves."""
    length_matters: bool = False
    """Whether the goal's rules read a counter bit (the goal depends on the number of
    moves played, not only on the position reached) and a random line came back to
    a position it had left (positions are reached by lines of different lengths)."""


def profile(game: Game, rng: random.Random, lines: int = SAMPLE_LINES) -> Profile:
    """Random lines from the initial state of `game`, and what they say (`Profile`).

    The guidance is kept where, over the terminal states of the lines, its
    correlation with the goal is at least `MIN_CORRELATION`, or the goal never
    varies among them (random play then tells nothing, and the guidance is all
    there is to go by).
    """
    guidance = goal_satisfaction(game)
    scores: list[float] = []
    goals: list[int] = []
    lengths: set[int] = set()
    played: list[list[int]] = []
    """Per line, the bits of its states (compiled states only)."""
    bounded = True
    fell = False
    for _ in range(lines):
        state = game.initial_state()
        states = [state]
        while not state.is_terminal():
            if bounded:
                before = _goal_or_none(state)
            state = state.next_listed([rng.choice(state.legal_moves(ROLE))])
            states.append(state)
            if bounded:
                after = state.goals()[ROLE] if state.is_terminal() else _goal_or_none(state)
                bounded = before is not None and after is not None and after <= before
                fell = fell or (bounded and after < before)
        if guidance is not None:
            scores.append(guidance(state))
        goals.append(state.goals()[ROLE])
        lengths.add(len(states) - 1)
        bits = [getattr(each, "bits", None) for each in states]
        if all(isinstance(each, int) for each in bits):
            played.append(bits)  # type: ignore[arg-type]
    varied = len(set(goals)) > 1
    if guidance is not None and varied and correlation(scores, goals) < MIN_CORRELATION:
        guidance = None
    length = lengths.pop() if len(lengths) == 1 else None
    counters = _counters(played)
    reads = goal_bases(game)
    length_matters = reads is not None and bool(reads & counters) and _revisits(played, counters)
    return Profile(guidance, bounded and fell, length, counters, length_matters)


def _counters(lines: list[list[int]]) -> int:
    """The bits the same in every state at each number of moves (where at least two
    lines reached it) but not the same at all numbers of moves."""
    fixed = -1  # every bit
    always = -1
    ever = 0
    for depth in range(max((len(line) for line in lines), default=0)):
        reached = [line[depth] for line in lines if depth < len(line)]
        all_set, any_set = -1, 0
        for bits in reached:
            all_set &= bits
            any_set |= bits
        always &= all_set
        ever |= any_set
        if len(reached) >= 2:
            fixed &= ~(all_set ^ any_set)
    return fixed & (always ^ ever)


def _revisits(lines: list[list[int]], counters: int) -> bool:
    """Whether a line came back to a position it had left (its bits but the
    `counters` the same): positions are then reached by lines of different lengths."""
    for line in lines:
        positions = {bits & ~counters for bits in line}
        if len(positions) < len(line):
            return True
    return False


def goal_bases(game: Game) -> int | None:
    """The bits of the state the goal's rules of a compiled game read (through the
    rules they need), or None where the game is not compiled."""
    compiled = getattr(game, "compiled", None)
    network = getattr(compiled, "network", None)
    if network is None:
        return None
    read = 0
    goal_nodes = [node for goals in network.goals for node, _ in goals]
    for component in cone(network, goal_nodes):
        for node in network.components[component]:
            for body in network.bodies[node]:
                for kind, index, _ in body:
                    if kind == BASE:
                        read |= 1 << index
    return read


def _goal_or_none(state: State) -> int | None:
    try:
        return state.goals()[ROLE]
    except GameError:
        return None
