"""Breadth-first search of a puzzle for the shortest line to each goal.

Where the goal depends on the number of moves played (the tiles in order at the
30th move score 100, at any other 99), the line that matters is not any line to
the goal's position but one of the right length, and the shortest is the one to
find: it can be made no shorter, and a search that reaches the position first by
a longer way (best first, depth first) scores the lower goal.  Breadth first
reaches every state by a shortest line.  Its table holds the states' *positions*:
their bits but the step counter's (`ggp.player.search.guidance.Profile.counters`),
so that a position reached again more moves later is not searched again (with the
counter in them no two states would ever be the same, and the table would hold
every line).  Every terminal state reached by a line better than those found
before is offered; past `MAX_STATES` positions it gives up.  A generator, as the
other puzzle searches: it yields after every state it expands (None, or a line
from its root state).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from ggp.games.base import State
from ggp.player.search.dfs import state_key
from ggp.player.search.lines import ROLE, TOP_GOAL, Line, MovePath, path_moves

MAX_STATES = 250_000
"""Positions in the table at most (an int and a link of the line each; the eight
puzzle has 181,440)."""


def _position(state: State, counters: int) -> object:
    key = state_key(state)
    return key & ~counters if isinstance(key, int) else key


def breadth_first(
    state: State, counters: int = 0, max_states: int = MAX_STATES
) -> Iterator[Line | None]:
    """Search `state` as the module says, `counters` being the bits of the step
    counter (left out of the positions)."""
    seen = {_position(state, counters)}
    frontier: deque[tuple[State, MovePath]] = deque([(state, None)])
    best = -1
    while frontier and len(seen) < max_states:
        current, path = frontier.popleft()
        for move in current.legal_moves(ROLE):
            child = current.next_listed([move])
            position = _position(child, counters)
            if position in seen:
                continue
            seen.add(position)
            reached: MovePath = (move, path)
            if not child.is_terminal():
                frontier.append((child, reached))
                continue
            goal = child.goals()[ROLE]
            if goal > best:
                best = goal
                yield Line(goal, path_moves(reached))
                if goal >= TOP_GOAL:
                    return
        yield None
