"""Which proven move to play: the quickest proven win, the slowest proven loss.

MCTS-Solver (`ggp.player.search.solver`) proves values, not how far away they
are.  Once the root is proven, every move that keeps its value is as good to
it as another, and the search picks among them by visits: among proven
losses it may take one that loses at the next ply where another holds out
for ten, and among proven wins a slow one.  Where the game is a race between
parts searched apart (`ggp.player.search.factored`: on simultaneous Connect
Four one board proven won and the other proven lost, the first line ending
the game) the distances decide the match; against an opponent that can err,
holding out longer gives it more chances to.

The distance is read from the proof the tree holds: the plies down to a
terminal node, the role we choose for taking the shortest way where its
value is a win and the longest where it is not, every other role the
opposite (as the solver's security values assume them against it).  Only
turn-taking nodes whose children are proven count; a proven node without
children (a shallow proof) or a simultaneous one is of unknown distance and
left out of the choice.  The proof's lines are those the search happened to
prove, so the distance is an estimate: a quicker win may exist unproven.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ggp.player.search.tree import Node

MAX_NODES = 200_000
"""Nodes looked at, at most, per choice: past that the choice is left to visits."""

WIN = 0.5
"""A proven reward above this is a win for the distance (taken quickly)."""


class _OutOfBudget(Exception):
    """More than `MAX_NODES` nodes were looked at."""


def proven_choice(root: Node, role: int, max_nodes: int = MAX_NODES) -> int | None:
    """The index of `role`'s move at the proven `root` where it alone chooses:
    of the moves that keep the root's proven reward, the one whose proof ends
    soonest (a win) or latest (otherwise), ties to the most visited; None if
    `root` is not such a node or no distance is known."""
    if root.proven is None or root.moves is None or root.choosers != (role,):
        return None
    target = root.proven[role]
    quick = target > WIN
    distances = _Distances(role, max_nodes)
    best: tuple[int, int] | None = None
    best_index = None
    counts = root.counts[role]
    try:
        for joint, child in root.children.items():
            if child.proven is None or child.proven[role] != target:
                continue
            plies = distances.of(child)
            if plies is None:
                continue
            i = joint[role]
            rank = (-plies if quick else plies, counts[i])
            if best is None or rank > best:
                best, best_index = rank, i
    except _OutOfBudget:
        return None
    return best_index


class _Distances:
    """Plies to the end along the proof below a node, seen from `role`, memoized."""

    def __init__(self, role: int, max_nodes: int) -> None:
        self.role = role
        self.left = max_nodes
        self.known: dict[int, int | None] = {}

    def of(self, node: Node) -> int | None:
        key = id(node)
        if key in self.known:
            return self.known[key]
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget
        self.known[key] = None  # a cycle (shared nodes) reads as unknown
        plies = self._measure(node)
        self.known[key] = plies
        return plies

    def _measure(self, node: Node) -> int | None:
        proven = node.proven
        if proven is None:
            return None
        if node.rewards is not None:  # terminal
            return 0
        if node.moves is None or len(node.choosers) > 1 or not node.children:
            return None
        chooser = node.choosers[0] if node.choosers else self.role  # none: one way on
        value = proven[chooser]
        # the role's way: quick to a win, slow otherwise; the others' the opposite
        quick = (proven[self.role] > WIN) == (chooser == self.role)
        pick: Callable[..., int] = min if quick else max
        found = [
            plies
            for child in node.children.values()
            if child.proven is not None and child.proven[chooser] == value
            for plies in (self.of(child),)
            if plies is not None
        ]
        return 1 + pick(found) if found else None
