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
attack each other) and whether every line has the same length.
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
    bounded = True
    fell = False
    for _ in range(lines):
        state = game.initial_state()
        steps = 0
        while not state.is_terminal():
            if bounded:
                before = _goal_or_none(state)
            state = state.next_listed([rng.choice(state.legal_moves(ROLE))])
            steps += 1
            if bounded:
                after = state.goals()[ROLE] if state.is_terminal() else _goal_or_none(state)
                bounded = before is not None and after is not None and after <= before
                fell = fell or (bounded and after < before)
        if guidance is not None:
            scores.append(guidance(state))
        goals.append(state.goals()[ROLE])
        lengths.add(steps)
    varied = len(set(goals)) > 1
    if guidance is not None and varied and correlation(scores, goals) < MIN_CORRELATION:
        guidance = None
    length = lengths.pop() if len(lengths) == 1 else None
    return Profile(guidance, bounded and fell, length)


def _goal_or_none(state: State) -> int | None:
    try:
        return state.goals()[ROLE]
    except GameError:
        return None
