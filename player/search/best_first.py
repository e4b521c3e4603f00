"""Greedy best-first search of a puzzle, guided by partial goal satisfaction.

States are expanded best score first (`ggp.player.search.guidance`; ties in the
order they were reached), each once (a table of the keys of the states reached),
and every terminal state reached is offered as a line.  Where the guidance points
the way (lights to switch off, tiles to put in place) it reaches the goal after
far fewer states than a blind search.  Past `MAX_STATES` states reached it gives
up.  A generator, as the other puzzle searches: it yields after every
expansion (None, or a line from its root state).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator

from ggp.games.base import State
from ggp.player.search.dfs import state_key
from ggp.player.search.guidance import Guidance
from ggp.player.search.lines import ROLE, TOP_GOAL, Line, MovePath, path_moves

MAX_STATES = 500_000


def best_first(
    state: State, guidance: Guidance, max_states: int = MAX_STATES
) -> Iterator[Line | None]:
    """Search `state` as the module says."""
    order = itertools.count()
    seen = {state_key(state)}
    frontier: list[tuple[float, int, State, MovePath]] = [(0.0, next(order), state, None)]
    best = -1
    while frontier and len(seen) < max_states:
        _, _, current, path = heapq.heappop(frontier)
        for move in current.legal_moves(ROLE):
            child = current.next_listed([move])
            key = state_key(child)
            if key in seen:
                continue
            seen.add(key)
            reached: MovePath = (move, path)
            if child.is_terminal():
                goal = child.goals()[ROLE]
                if goal > best:
                    best = goal
                    yield Line(goal, path_moves(reached))
                    if goal >= TOP_GOAL:
                        return
                continue
            heapq.heappush(frontier, (-guidance(child), next(order), child, reached))
        yield None
