"""Nested Monte Carlo Search (Cazenave 2009, "Nested Monte-Carlo Search", IJCAI).

A search of level 0 is a random playout.  A search of level n, at each state of
its line, tries every legal move followed by a search of level n - 1, and plays
the first move of the best line found so far (best over the whole search, not
only this step: the memorised line is what makes the nested search better than
its lower level).  It returns the best line it found.

The searches are generators: they yield after every playout (None, or a line
from the state the search began in that was the best of the search of some
level when found: the caller keeps the best), so that a caller can share time
between searches, stop at a deadline, and keep every line as soon as it is found.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from ggp.games.base import State
from ggp.player.search.lines import NO_LINE, ROLE, TOP_GOAL, Line

Search = Iterator[Line | None]
"""A puzzle search as a generator: yields None or a line found, after each playout."""

Tiebreak = Callable[[State], float]
"""A score of a state (higher first) to choose among lines of the same goal."""


def random_line(state: State, rng: random.Random) -> Line:
    """A uniformly random playout from `state`, with its moves."""
    moves: list[str] = []
    while not state.is_terminal():
        move = rng.choice(state.legal_moves(ROLE))
        state = state.next_listed([move])
        moves.append(move)
    return Line(state.goals()[ROLE], tuple(moves))


def nested(
    state: State, level: int, rng: random.Random, tiebreak: Tiebreak | None = None
) -> Iterator[Line | None]:
    """NMCS of `level` (>= 1) from `state`; yields as the module says and returns
    (as the generator's value) the best line found."""
    best = NO_LINE
    played: list[str] = []
    while not state.is_terminal():
        moves = state.legal_moves(ROLE)
        if tiebreak is not None:
            moves = _ordered(state, moves, rng, tiebreak)
        for move in moves:
            child = state.next_listed([move])
            if level == 1:
                found = random_line(child, rng)
            else:
                below = nested(child, level - 1, rng, tiebreak)
                found = yield from _prefixed(below, (*played, move))
            line = Line(found.goal, (*played, move, *found.moves))
            if line.goal > best.goal:
                best = line
                yield line
            else:
                yield None
            if best.goal >= TOP_GOAL:
                return best
        move = best.moves[len(played)]
        state = state.next_listed([move])
        played.append(move)
    if best is NO_LINE:  # the search began in a terminal state
        best = Line(state.goals()[ROLE], ())
        yield best
    return best


def _prefixed(search: Iterator[Line | None], prefix: tuple[str, ...]) -> Iterator[Line | None]:
    """The yields of `search` (from a state `prefix` leads to) as lines from here;
    returns what it returns."""
    while True:
        try:
            line = next(search)
        except StopIteration as stop:
            return stop.value
        yield None if line is None else Line(line.goal, (*prefix, *line.moves))


def _ordered(
    state: State, moves: tuple[str, ...], rng: random.Random, tiebreak: Tiebreak
) -> list[str]:
    """`moves` best first by the score of the state each leads to (ties at random):
    with equal goals, the first line found is kept, so the order breaks ties."""
    scored = [(-tiebreak(state.next_listed([m])), rng.random(), m) for m in moves]
    scored.sort()
    return [move for _, _, move in scored]


def iterated(
    state: State, rng: random.Random, first: int = 1, tiebreak: Tiebreak | None = None
) -> Search:
    """NMCS of level `first`, then of each level above, from `state`, for ever
    (each level searches anew; a level that finds the best goal there is ends it)."""
    level = first
    best = NO_LINE
    while True:
        search = nested(state, level, rng, tiebreak)
        while True:
            try:
                line = next(search)
            except StopIteration:
                break
            if line is not None and line.goal > best.goal:
                best = line
                yield line
            else:
                yield None
        if best.goal >= TOP_GOAL:
            return
        level += 1
