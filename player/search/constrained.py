"""Depth-first search of a puzzle read as a constraint problem: fewest choices first.

Many puzzles (sudoku, futoshiki, nonograms, queens) are filled in: each move
takes away one fact of the state for good (``(cell 1 1 b)``, a blank), and the
moves that would take away the same fact are the values one variable can take.
A blind search branches over every move, every variable in every order; this
one branches, in each state, over the moves of the one open variable with the
fewest moves left (the "minimum remaining values" rule of constraint solving),
and drops a state where an open variable has no move left (a dead end for a
puzzle that must fill it).

The variables are read from the moves, not from the game's name or facts: a
*variable* is a base proposition of the state (a bit of a compiled state) that
some move of the initial state takes away and some other does not (a step
counter every move advances is no variable).  Where that reading does not fit the
puzzle (peg solitaire: a peg that can no longer be jumped is no dead end), the
search finds nothing and ends at once; it is one search of a portfolio
(`ggp.player.search.puzzle`) and never claims a line optimal.  A table of the
states searched (their keys) keeps it from searching one twice.  A generator,
as the other puzzle searches: it yields after every state it expands.
"""

from __future__ import annotations

from collections.abc import Iterator

from ggp.games.base import State
from ggp.player.search.dfs import MAX_ENTRIES
from ggp.player.search.lines import ROLE, TOP_GOAL, Line


def _variables(state: State) -> int:
    """The bits of `state` that some of its moves take away and some do not (0: none)."""
    bits = getattr(state, "bits", None)
    if not isinstance(bits, int) or state.is_terminal():
        return 0
    taken = [bits & ~child.bits for child in _children(state)]
    some = 0
    every = ~0
    for removed in taken:
        some |= removed
        every &= removed
    return some & ~every


def _children(state: State) -> list[State]:
    return [state.next_listed([move]) for move in state.legal_moves(ROLE)]


def fewest_choices(state: State, max_states: int = MAX_ENTRIES) -> Iterator[Line | None]:
    """Search `state` as the module says (nothing where no variable is found)."""
    variables = _variables(state)
    if not variables:
        return
    seen: set[int] = set()
    path: list[str] = []
    best = -1

    def search(current: State) -> Iterator[Line | None]:
        nonlocal best
        if current.is_terminal():
            goal = current.goals()[ROLE]
            if goal > best:
                best = goal
                yield Line(goal, tuple(path))
            return
        bits = current.bits  # type: ignore[attr-defined]
        if bits in seen or len(seen) >= max_states:
            return
        seen.add(bits)
        yield None
        choices: dict[int, list[tuple[str, State]]] = {}
        for move in current.legal_moves(ROLE):
            child = current.next_listed([move])
            removed = bits & ~child.bits & variables
            while removed:
                low = removed & -removed
                choices.setdefault(low, []).append((move, child))
                removed ^= low
        open_variables = bits & variables
        while open_variables:
            low = open_variables & -open_variables
            if low not in choices:
                return  # a variable no move can fill any more: a dead end
            open_variables ^= low
        if not choices:
            return
        for move, child in min(choices.values(), key=len):
            path.append(move)
            yield from search(child)
            path.pop()
            if best >= TOP_GOAL:
                return

    yield from search(state)
