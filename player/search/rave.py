"""RAVE and GRAVE: move values shared across the tree through AMAF statistics.

Rapid Action Value Estimation (Gelly and Silver) values a move at a node
not only by the simulations that played it there but also by all those
through the node that played it anywhere later ("all moves as first",
AMAF, `ggp.games.amaf`): many more, and noisier, samples.  Generalized RAVE
(Cazenave, IJCAI 2015) takes them from the node's closest ancestor (itself
included) whose table holds more than `ref` simulations, so that nodes with
few visits borrow the statistics of a better-informed one; ``ref`` 0 is
plain RAVE.  A role's move i at a node is then valued

    (1 - beta) * mean_i + beta * amaf_i,
    beta = amaf_n / (amaf_n + n + bias * amaf_n * n)

(n and mean_i the move's visits and mean reward at the node, amaf_n and
amaf_i its AMAF count and mean in the reference table), plus UCB1's
exploration term c * sqrt(ln N / max(n, 1)).  A move never tried has its
AMAF value (beta 1), or 1 where the reference never saw it played, so that
moves are no longer tried all once before any is tried again: those that
did well elsewhere come first.  Where no table qualifies (the first
iterations), the node chooses as plain UCT does.

A node gets its table at its `ref`-th visit (at the earliest when it is
expanded, its second): tables cost 16 bytes per move the game has (5 KB a
node on Breakthrough's 310), so only the nodes that may soon serve as a
reference keep one.  It then counts the simulations from that visit on.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from math import sqrt
from typing import TYPE_CHECKING

from ggp.games import amaf
from ggp.games.base import Game, GameError, State
from ggp.games.playouts import Amaf
from ggp.player.search.evaluation import mean_rewards

if TYPE_CHECKING:
    from ggp.player.search.tree import Node, Rewards

Path = Sequence[tuple["Node", tuple[int, ...]]]
"""A simulation's path: each node and the joint move (move indices) chosen there."""

REF = 50
"""The default reference threshold: simulations a table needs to be used."""

BIAS = 1e-5
"""The default bias in beta (smaller: the AMAF value is trusted longer)."""


class Rave:
    """The AMAF tables of a search's nodes: kept up to date and used to choose."""

    def __init__(self, game: Game, ref: int = REF, bias: float = BIAS) -> None:
        if ref < 0 or bias < 0:
            raise GameError(f"RAVE needs ref >= 0 and bias >= 0, got {ref} and {bias}")
        self.slots = game.move_slots()
        self.ref = ref
        self.bias = bias
        self.start = max(1, ref)
        """Visits (before the current one) at which a node gets its table."""

    def reference(self, node: Node, table: array | None) -> array | None:
        """The reference table at the expanded `node`, reached with `table` as its
        parent's reference: its own table once it holds more than `ref` simulations."""
        own = node.amaf
        if own is None:
            if node.visits < self.start:
                return table
            own = node.amaf = self.slots.new_table()
        return own if own[0] > self.ref else table

    def choose(
        self, node: Node, role: int, table: array, explore: float, indices: Sequence[int]
    ) -> int:
        """The move index among `indices` with the best GRAVE value for `role`."""
        positions = (node.slots or self._positions(node))[role]
        if len(table) < 1 + 2 * self.slots.size:  # moves numbered since it was made
            table.frombytes(bytes(8 * (1 + 2 * self.slots.size - len(table))))
        counts, sums = node.counts[role], node.sums[role]
        bias = self.bias
        best, top = indices[0], -1.0
        for i in indices:
            position = positions[i]
            seen = table[position]
            n = counts[i]
            if n:
                mean = sums[i] / n
                value = mean + explore / sqrt(n)
                if seen:
                    beta = seen / (seen + n + bias * seen * n)
                    value += beta * (table[position + 1] / seen - mean)
            elif seen:
                value = table[position + 1] / seen + explore
            else:
                value = 1.0 + explore
            if value > top:
                best, top = i, value
        return best

    def _positions(self, node: Node) -> tuple[tuple[int, ...], ...]:
        """Per role with a choice, the table position (1 + 2 * slot) of each of the
        node's moves (kept in the node)."""
        slot, choosers = self.slots.slot, node.choosers
        positions = node.slots = tuple(
            tuple(1 + 2 * slot(role, move) for move in moves) if role in choosers else ()
            for role, moves in enumerate(node.moves)
        )
        return positions

    def _tree(self, path: Path) -> list[int]:
        """The moves chosen along `path` by the roles that had a choice (`amaf.Tree`)."""
        tree = []
        for j, (node, joint) in enumerate(path):
            positions = node.slots or self._positions(node)
            for role in node.choosers:
                tree += (j, positions[role][joint[role]] >> 1, role)
        return tree

    def evaluate(self, state: State, rng: random.Random, path: Path) -> Rewards:
        """The rewards of `state`, the leaf of `path`, by the game's playouts
        (`Game.playout_batch` of them), recorded in the path's tables."""
        count = state.game.playout_batch
        tables = [node.amaf for node, _ in path]
        policy = Amaf(self.slots, tables, self._tree(path))
        return mean_rewards(state.playouts(rng, count, policy))

    def record(self, path: Path, rewards: Rewards) -> None:
        """Record a simulation valued without a playout (a terminal or proven leaf)."""
        tables = [node.amaf for node, _ in path]
        if any(table is not None for table in tables):
            amaf.add(tables, self._tree(path), [(rewards, ())])
