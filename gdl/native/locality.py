"""Which facts of the state each move touches, from the rules' dependencies (no game named).

The native tactics (`ggp.gdl.native.tactics`) may restrict the moves of the side
that needs one good move to those *near* what the last moves changed, as Sancho's
local search does around the last move.  Near is read off the network: a move
touches the base facts its ``legal`` sentence reads and the base facts whose
``next`` sentence reads the move.  Facts that most moves of a role touch (whose
turn it is, a step counter) say nothing of where a move is, so they are dropped.

The part playouts (`NativeRules.part_playouts`) read the ``next`` half whole
(`write_masks`): where no move of the role choosing in a part can change a fact that
a frozen role's moves can, what those moves change is worked out once a state.
"""

from __future__ import annotations

from collections.abc import Iterable

from ggp.gdl.network.formulas import Network, support

MAX_LITERALS = 2_000_000
"""Networks with more literals than this get no masks (the work is one pass over them)."""

COMMON_SHARE = 0.5
"""A fact touched by more than this share of a role's moves is dropped from every mask."""


def touch_masks(network: Network) -> list[int] | None:
    """Per input (move) index, the bits of the base facts it touches (see the module);
    None where the network is too large to read in time."""
    if network.literal_count() > MAX_LITERALS:
        return None
    legal_nodes = [node for moves in network.legal for node, _ in moves]
    next_nodes = [node for node in network.next if node is not None]
    bases, inputs = support(network, legal_nodes + next_nodes)
    reads = [0] * len(network.inputs)
    for moves in network.legal:
        for node, move in moves:
            reads[move] |= bases.get(node, 0)
    writes = _writes(network, inputs)
    return [
        read | write
        for read, write in zip(_uncommon(network, reads), _uncommon(network, writes), strict=True)
    ]


def write_masks(network: Network) -> list[int] | None:
    """Per input (move) index, the bits of the base facts whose ``next`` sentence
    reads it, through any rule: a fact outside the mask of every move of a role is
    the same in the successor whichever of them the role makes.  None where the
    network is too large to read in time."""
    if network.literal_count() > MAX_LITERALS:
        return None
    _, inputs = support(network, [node for node in network.next if node is not None])
    return _writes(network, inputs)


def _writes(network: Network, inputs: dict[int, int]) -> list[int]:
    """Per input index, the base facts whose next node reads it (`inputs`: the
    input bits each node reads, from `support`)."""
    writes = [0] * len(network.inputs)
    for base, node in enumerate(network.next):
        found = 0 if node is None else inputs.get(node, 0)
        while found:
            low = found & -found
            writes[low.bit_length() - 1] |= 1 << base
            found ^= low
    return writes


def _uncommon(network: Network, masks: list[int]) -> list[int]:
    """`masks` without the bits that more than `COMMON_SHARE` of some role's moves have
    (a next sentence that reads every move, such as a frame rule written with
    ``distinct``, says nothing of where a move is)."""
    common = 0
    for moves in network.legal:
        counts = _bit_counts(masks[move] for _, move in moves)
        common |= _more_than(counts, int(COMMON_SHARE * len(moves)))
    return [mask & ~common for mask in masks]


def _bit_counts(masks: Iterable[int]) -> list[int]:
    """For every bit position at once, how many of `masks` have it, bit-sliced: bit k
    of the count of position i is bit i of the k-th integer (a ripple-carry adder
    over whole masks, a few integer operations a mask however many bits it has:
    chess_200's moves counted bit by bit took 11 s)."""
    counts: list[int] = []
    for mask in masks:
        carry, k = mask, 0
        while carry:
            if k == len(counts):
                counts.append(0)
            counts[k], carry = counts[k] ^ carry, counts[k] & carry
            k += 1
    return counts


def _more_than(counts: list[int], limit: int) -> int:
    """The bit positions whose count (`_bit_counts`) is more than `limit` (>= 0)."""
    if limit.bit_length() > len(counts):
        return 0
    above, equal = 0, -1  # compared from the highest bit of the counts down
    for k in range(len(counts) - 1, -1, -1):
        if limit >> k & 1:
            equal &= counts[k]
        else:
            above |= equal & counts[k]
            equal &= ~counts[k]
    return above
