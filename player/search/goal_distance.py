"""How far each of a role's pieces is from the role's goal, read from the rules (no game named).

The material term (`ggp.player.search.heuristic.material_term`) counts a role's pieces
alike.  Where the rules move pieces towards a goal, a piece's *distance* is the fewest
of the role's moves that take it onto a fact its best goal reads: a move whose
``legal`` sentence needs fact f (positively) and whose ``does`` makes fact g true
(positively, in g's ``next`` sentence) takes f to g.  On Breakthrough a pawn's
distance is the rows it has left to go.  Where pieces are placed and never moved
(Connect Four's discs: no move needs a disc of its own side), no move takes a piece
anywhere and there are no distances.  Negative conditions are not followed: they
say what must not hold, not where a piece comes from.
"""

from __future__ import annotations

from ggp.gdl.network.formulas import BASE, INPUT, NODE, Network, bit_indexes, support

MAX_LITERALS = 2_000_000
"""Networks with more literals than this get no distances (the work is one pass over them)."""


def goal_distances(
    network: Network, pieces: int, role: int, goal_node: int
) -> dict[int, int] | None:
    """Per base fact of `pieces` (a mask over the network's base facts) from which the
    role's moves lead to a fact that `goal_node` (the role's best goal) reads positively,
    the fewest such moves (0 on such a fact); None where the network is too large, no
    piece is such a fact, or no move takes a piece to another."""
    if network.literal_count() > MAX_LITERALS:
        return None
    legal = network.legal[role]
    nexts = {b: network.next[b] for b in bit_indexes(pieces) if network.next[b] is not None}
    targets = [node for node, _ in legal] + list(nexts.values()) + [goal_node]
    bases, inputs = support(network, targets, positive_only=True)
    goal = bases.get(goal_node, 0) & pieces
    if not goal:
        return None
    writes: dict[int, int] = {}  # per move (input index): the pieces it makes true
    for b, node in nexts.items():
        for move in bit_indexes(_made_by(network, node, b, inputs)):
            writes[move] = writes.get(move, 0) | 1 << b
    successors: dict[int, int] = {}  # per piece: the pieces a move takes it to
    for node, move in legal:
        made = writes.get(move, 0)
        if made:
            for b in bit_indexes(bases.get(node, 0) & pieces):
                successors[b] = successors.get(b, 0) | (made & ~(1 << b))
    if not any(successors.values()):
        return None
    distances = {b: 0 for b in bit_indexes(goal)}
    reached, frontier, steps = goal, goal, 0
    while frontier:
        steps += 1
        found = 0
        for b, after in successors.items():
            if after & frontier and not reached >> b & 1:
                distances[b] = steps
                found |= 1 << b
        reached |= found
        frontier = found
    return distances


def _made_by(network: Network, node: int, fact: int, inputs: dict[int, int]) -> int:
    """The inputs (moves) that make base fact `fact` true through `node`, its ``next``
    sentence: those its bodies read positively, but for the bodies that keep the fact
    (frame rules, which read the fact itself), whose moves only say it is not taken."""
    found = 0
    for body in network.bodies[node]:
        if (BASE, fact, True) in body:
            continue
        for kind, index, positive in body:
            if positive and kind == INPUT:
                found |= 1 << index
            elif positive and kind == NODE:
                found |= inputs.get(index, 0)
    return found
