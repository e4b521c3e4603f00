"""Move averages: per role and move, how often it was played and the reward it got.

MAST (`ggp.player.search.mast`) learns them from every simulation and its playouts
prefer the move with the best average (`playouts.Mast`).  They are
kept as two flat arrays, a count and a summed reward per slot, with a slot
per (role, move text): a game whose playouts run in native code numbers the
slots as its own move indexes (`renumber`), so that its playouts read and
update the very same arrays in place, with no Python work per move, while
the search's own moves are learnt by text.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

UNSEEN = 1.0
"""The average a move starts with: optimistic, so that new moves get played."""


class MoveAverages:
    """Per role, move text -> the simulations that played it and the role's summed reward.

    `counts[i]` and `sums[i]` belong to the move of `slots[role][move] == i`;
    the average is ``sums[i] / counts[i]`` (so that native code, computing it
    the same way, ranks moves exactly as this class does).
    """

    def __init__(self, roles: int) -> None:
        self.slots: list[dict[str, int]] = [{} for _ in range(roles)]
        self.counts = array("q")
        self.sums = array("d")
        self.numbering: object | None = None
        """The numbering the slots follow (`renumber`), None while they are this
        object's own (in order of first use)."""

    def slot(self, role: int, move: str) -> int:
        """The slot of `move` of `role`, made on first use (after all the others)."""
        slots = self.slots[role]
        index = slots.get(move)
        if index is None:
            index = slots[move] = len(self.counts)
            self.counts.append(0)
            self.sums.append(0.0)
        return index

    def learn(self, role: int, move: str, reward: float) -> None:
        """One more simulation in which `role` played `move` and got `reward`."""
        index = self.slot(role, move)
        self.counts[index] += 1
        self.sums[index] += reward

    def value(self, role: int, move: str) -> float:
        """The average reward of `move` for `role`, `UNSEEN` if it was never played."""
        index = self.slots[role].get(move)
        if index is None or not self.counts[index]:
            return UNSEEN
        return self.sums[index] / self.counts[index]

    def best(self, role: int, moves: Sequence[str]) -> str:
        """The move of `moves` with the best average for `role` (the first on ties)."""
        slots, counts, sums = self.slots[role], self.counts, self.sums
        best, top = moves[0], -1.0
        for move in moves:
            index = slots.get(move)
            value = UNSEEN if index is None or not counts[index] else sums[index] / counts[index]
            if value > top:
                best, top = move, value
        return best

    def table(self, role: int) -> dict[str, tuple[int, float]]:
        """The moves `role` has played: move -> (count, summed reward)."""
        counts, sums = self.counts, self.sums
        return {
            move: (counts[index], sums[index])
            for move, index in self.slots[role].items()
            if counts[index]
        }

    def renumber(self, numbering: object, slots: Sequence[Mapping[str, int]], size: int) -> None:
        """Use the slots `slots` (per role, move -> slot below `size`) from now on.

        What was learnt moves along; a move that `slots` lacks gets a slot from
        `size` on.  `numbering` names the numbering (a game's moves, say), so
        that a caller can tell whether it is already in use.  The arrays are
        new ones, at least `size` long.
        """
        if len(slots) != len(self.slots):
            raise ValueError(f"{len(slots)} roles numbered, the averages have {len(self.slots)}")
        old_counts, old_sums, old_slots = self.counts, self.sums, self.slots
        self.counts = array("q", bytes(8 * size))
        self.sums = array("d", bytes(8 * size))
        self.slots = [dict(role_slots) for role_slots in slots]
        self.numbering = numbering
        for role, learnt in enumerate(old_slots):
            for move, index in learnt.items():
                if old_counts[index]:
                    new = self.slot(role, move)
                    self.counts[new] = old_counts[index]
                    self.sums[new] = old_sums[index]
