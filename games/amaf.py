"""AMAF ("all moves as first") tables: per move, the simulations that played it and their reward.

RAVE and GRAVE (`ggp.player.search.rave`) keep, at a tree node, for every move of every
role, the simulations through the node in which that role played that move
anywhere below it (in the tree or in the playout) and the role's summed
reward in them.  A move is numbered by a slot (`MoveSlots`): a game with
compiled rules numbers them by its input indexes, distinct for the moves of
different roles, so that native playouts update the tables in place; other
games number moves as they first appear.

A table is one ``array('d')``: ``table[0]`` counts the simulations recorded
(iterations: the playouts of one leaf together count one), and for slot s,
``table[1 + 2 * s]`` the (fractional) simulations that played its move and
``table[2 + 2 * s]`` their summed reward.  Only moves of a role that had a
choice are recorded (a ``noop`` while another role moves says nothing), and
each at most once per playout (the first play).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

Tree = Sequence[int]
"""The moves of a simulation's tree part, three numbers each, flat: path position,
slot, role, positions increasing; the table at path position j learns the moves
from position j on."""


class MoveSlots:
    """Per role, move text -> slot: fixed (`numbered`) or made as moves appear."""

    def __init__(self, roles: int, numbered: Sequence[Mapping[str, int]] | None = None) -> None:
        self.slots: list[dict[str, int]] = [{} for _ in range(roles)]
        self.size = 0
        """One more than the largest slot in use."""
        self.fixed = numbered is not None
        if numbered is not None:
            if len(numbered) != roles:
                raise ValueError(f"{len(numbered)} roles numbered, the game has {roles}")
            self.slots = [dict(role_slots) for role_slots in numbered]
            self.size = 1 + max((s for role in self.slots for s in role.values()), default=-1)

    def slot(self, role: int, move: str) -> int:
        """The slot of `move` of `role` (a new one, after the others, if not fixed)."""
        slots = self.slots[role]
        index = slots.get(move)
        if index is None:
            if self.fixed:
                raise ValueError(f"move {move!r} of role {role} has no slot in this numbering")
            index = slots[move] = self.size
            self.size += 1
        return index

    def new_table(self) -> array:
        """An empty table for the slots known now (`add` lengthens it as needed)."""
        return array("d", bytes(8 * (1 + 2 * self.size)))


def add(
    tables: Sequence[array | None],
    tree: Tree,
    playouts: Sequence[tuple[Sequence[float], Sequence[tuple[int, int]]]],
) -> None:
    """Record one simulation in the tables of its path (None: a node without one).

    `playouts` are the simulation's playouts from its leaf, each its rewards
    (per role) and the distinct (slot, role) moves it played; none for a leaf
    valued without a playout, which then counts once with the moves of the
    tree.  Each playout weighs 1/len(playouts), so a simulation counts one.
    """
    if not playouts:
        return
    weight = 1.0 / len(playouts)
    for rewards, played in playouts:
        seen = {slot for slot, _ in played}
        moves = list(played)
        step = len(tree) - 3
        for j in range(len(tables) - 1, -1, -1):
            while step >= 0 and tree[step] >= j:
                slot, role = tree[step + 1], tree[step + 2]
                if slot not in seen:
                    seen.add(slot)
                    moves.append((slot, role))
                step -= 3
            table = tables[j]
            if table is None:
                continue
            for slot, role in moves:
                position = 1 + 2 * slot
                if position + 1 >= len(table):
                    table.frombytes(bytes(8 * (position + 2 - len(table))))
                table[position] += weight
                table[position + 1] += weight * rewards[role]
    for table in tables:
        if table is not None:
            table[0] += 1.0
