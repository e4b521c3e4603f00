"""Depth-first search of a puzzle with a transposition table, by iterative deepening.

Finds the line to the best terminal goal where the states reachable are few
enough: each iteration searches deeper than the last (by one at first, then by
half the depth, so that a deep answer, a knight's tour, is not reached only after
every shallower depth; a deep game does not hide a shallow answer), and a
table keyed by the states' keys (a compiled state's bits where there are, else
`State.key`) remembers what was searched below each state: a
subtree searched to its end (*complete*) is never searched again, and one cut
at the depth limit is searched again only with more depth left.  The search
ends when a line reaches the best goal or the root is complete: then the best
line found is optimal.  Past `max_entries` table entries it gives up (the state
space is too large for it) and leaves the puzzle to the sampling searches.

As the other puzzle searches (`ggp.player.search.nmcs`), it is a generator: it
yields after every state it expands (None, or a better line from its root state):
expanding one costs a next state per move, and its score too where it orders them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ggp.games.base import State
from ggp.player.search.lines import ROLE, TOP_GOAL, Line

MAX_ENTRIES = 1_000_000
"""Table entries at most (about 200 bytes each with their keys) before the search gives up."""

FAIL_FIRST_MOVES = 24
"""`fail_first` counts the onward moves of a state only where it has at most this
many moves (and its parent too): the count costs a next state per pair."""


Children = list[tuple[str, State]]
"""The legal moves of a state, each with the state it leads to."""


def fail_first(state: State, children: Children) -> Children:
    """`children` in the order of Warnsdorff's rule, generalised: first a move that ends
    the puzzle at the best goal, then the moves to states with the fewest onward moves
    (moves that do not end it), and last those that end it lower.  Going first where
    the choices are fewest finds a knight's tour at once, where any other order
    searches for ever; a cheap `order` for `iterative_deepening`."""
    if len(children) > FAIL_FIRST_MOVES:
        return children

    def rank(entry: tuple[str, State]) -> tuple[int, int]:
        child = entry[1]
        if child.is_terminal():
            return (0, 0) if child.goals()[ROLE] >= TOP_GOAL else (2, 0)
        onward = child.legal_moves(ROLE)
        if len(onward) > FAIL_FIRST_MOVES:
            return (1, len(onward))
        return (1, sum(not child.next_listed([m]).is_terminal() for m in onward))

    return sorted(children, key=rank)


def state_key(state: State) -> object:
    """The key of `state` in a table: its bits for a compiled state (cheap), else its key."""
    bits = getattr(state, "bits", None)
    return bits if isinstance(bits, int) else state.key()


@dataclass
class Outcome:
    """What a finished depth-first search established."""

    complete: bool = False
    """Whether every line was searched: the best line is then optimal."""
    gave_up: bool = False
    """Whether the table grew past its limit first."""
    depth: int = 0
    """The depth limit of the last iteration begun."""
    cut: bool = False
    """Whether the bound cut a state off: *complete* then trusts the bound."""
    entries: int = 0


@dataclass
class Table:
    """What depth-first searches found below the states they searched: kept from one
    search to the next, a search from a state the last one went through (the move
    played) does not search again what that one searched below it."""

    entries: dict[object, tuple[int, bool, int]] = field(default_factory=dict)
    """Per state searched: the best goal found below it, whether that search was
    complete, and the depth left when it was searched."""
    cut: bool = False
    """Whether a bound cut a state off in a search that wrote to it: its entries then
    trust the bound."""


@dataclass
class _Search:
    order: Callable[[State, Children], Children] | None
    bound: Callable[[State], int] | None
    floor: Callable[[], int] | None
    max_entries: int
    table: Table
    path: list[str] = field(default_factory=list)
    best: int = -1


class GaveUp(Exception):
    """The table is full."""


def iterative_deepening(
    state: State,
    outcome: Outcome | None = None,
    order: Callable[[State, Children], Children] | None = None,
    max_entries: int = MAX_ENTRIES,
    first_depth: int = 1,
    bound: Callable[[State], int] | None = None,
    floor: Callable[[], int] | None = None,
    table: Table | None = None,
) -> Iterator[Line | None]:
    """Search `state` as the module says; `outcome`, if given, is filled in at the end.

    `order` may put the legal moves of a state (with the states they lead to) in
    the order to try them;
    `first_depth` is the depth limit of the first iteration (the length of every
    line, where all have one, makes it a plain depth-first search); `bound`, the
    most a line through a state can reach, cuts off the states where it is no
    better than the best line found (by this search, or as `floor` says, by any);
    `table`, what searches before this one found (from the state searched or a state
    before it, on the same rules, the lines as long), is read and added to.
    """
    outcome = outcome if outcome is not None else Outcome()
    search = _Search(order, bound, floor, max_entries, table if table is not None else Table())
    depth = first_depth
    try:
        while True:
            outcome.depth = depth
            value, complete = yield from _dfs(search, state, depth)
            if complete or search.best >= TOP_GOAL:
                outcome.complete = complete
                return
            depth += max(1, depth // 2)
    except GaveUp:
        outcome.gave_up = True
    finally:
        outcome.entries = len(search.table.entries)
        outcome.cut = search.table.cut


def _best(search: _Search) -> int:
    """The goal a line must beat to be worth searching for."""
    return search.best if search.floor is None else max(search.best, search.floor())


def _dfs(search: _Search, state: State, depth: int) -> Iterator[Line | None]:
    """The best goal found below `state` within `depth` moves, and whether the
    search below was complete (a generator: its return value)."""
    if state.is_terminal():
        goal = state.goals()[ROLE]
        if goal > search.best:
            search.best = goal
            yield Line(goal, tuple(search.path))
        return goal, True
    if depth == 0:
        return -1, False
    if search.bound is not None and search.bound(state) <= _best(search):
        search.table.cut = True
        return -1, True  # nothing better below
    key = state_key(state)
    entry = search.table.entries.get(key)
    if entry is not None and (entry[1] or entry[2] >= depth):
        return entry[0], entry[1]
    yield None
    children = [(move, state.next_listed([move])) for move in state.legal_moves(ROLE)]
    if search.order is not None:
        children = search.order(state, children)
    value, complete = -1, True
    for move, child in children:
        search.path.append(move)
        below, done = yield from _dfs(search, child, depth - 1)
        search.path.pop()
        value = max(value, below)
        complete = complete and done
        if search.best >= TOP_GOAL:
            complete = False  # not all searched, but nothing left to look for
            break
    entries = search.table.entries
    if len(entries) >= search.max_entries and key not in entries:
        raise GaveUp
    entries[key] = (value, complete, depth)
    return value, complete
