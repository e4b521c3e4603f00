"""MCTS-Solver: bounds on the outcome of tree nodes, proven from terminal states.

A node may carry, for every role r, a lower and an upper bound on r's
*security value* there: the reward r can make sure of when it plays as well
as it can and every other role plays against it.  In a two-player zero-sum
game this is the minimax value, so the bounds are the classic solver's
proven wins, losses and draws (and scores between); in other games it is
what r can guarantee, which is all a proof about goal vectors can promise
without assuming what the other roles want.

A terminal node's bounds are its rewards.  At a node, group the joint moves
by the move i of role r ("rows") and by the moves o of the other roles
("columns"); with the children's bounds lo(i, o) and up(i, o), and unknown
children counting as 0 and 1:

- lower = max_i min_o lo(i, o): some move of r gets at least this whatever
  the others do;
- upper = min_o max_i up(i, o): some joint move of the others holds r to this.

In turn-taking games these are max/max over the children for the role on
move and min/min for the others.  With simultaneous moves they bound the
value of the matrix game (mixed strategies lie between the two), and are
computed only once every joint move has a child, so there most proofs come
from states where every continuation is terminal.  With `partial` they are
computed from the children known so far, missing ones unknown (0 and 1): a
move of r whose every reply has a child proven, say, to complete r's line is
then a proven win as soon as those few children exist (one per move of the
others, not one per joint move).

A move i of role r whose best case max_o up(i, o) is below the node's lower
bound can only do worse than another move: it is not chosen again, in the
search or at the end.  Neither is one whose best case merely equals that
bound without being sure of it.  A proven win is then the only move left,
and a proven loss is dropped while a move that may not lose remains.

With `rational` and two roles, where one chooses, the other's bounds are taken
over the moves the chooser may still take: a move it ruled out gives it less, so with
constant-sum goals it gives the other role more, never less.  Over every move
instead, a node whose chooser's value is known stays unproven while a move it
ruled out is unknown, and since that move is never chosen again it stays unknown:
every iteration through the node goes to its proven child (kalaha_2009: 3.7 million
of 3.7 million iterations in 3 s, docs/results.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product
from math import prod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ggp.player.search.tree import Node

Joint = tuple[int, ...]


def joints_to_prove(node: Node, partial: bool = False) -> Iterable[Joint] | None:
    """The joint moves whose children bound `node`, or None if too few are known.

    Turn-taking: every move of the role on move (missing children are
    unknown).  Simultaneous moves: every joint move, once all have children
    (with `partial`, at once, missing children unknown).
    """
    if len(node.choosers) == 1:
        return node.joints
    if not partial and len(node.children) < prod(len(moves) for moves in node.moves):
        return None
    return product(*(range(len(moves)) for moves in node.moves))


def move_bounds(node: Node, role: int, joints: Iterable[Joint]) -> tuple[list[float], ...]:
    """Per move of `role`: its worst and best case (over the others' moves), and
    the node's upper bound for `role` as a one-element list."""
    count = len(node.moves[role])
    lows, highs = [1.0] * count, [0.0] * count
    columns: dict[Joint, float] = {}
    children = node.children
    for joint in joints:
        child = children.get(joint)
        if child is None or child.lower is None:
            low, high = 0.0, 1.0
        else:
            low, high = child.lower[role], child.upper[role]
        i = joint[role]
        if low < lows[i]:
            lows[i] = low
        if high > highs[i]:
            highs[i] = high
        others = joint[:role] + joint[role + 1 :]
        if high >= columns.get(others, 0.0):
            columns[others] = high
    return lows, highs, [min(columns.values())]


def allowed_moves(lows: Sequence[float], highs: Sequence[float]) -> list[int] | None:
    """The moves still worth choosing given their bounds; None: all of them.

    A move may be chosen if its best case beats the best guarantee `best`, or
    if it is itself sure of `best` (when `best` is more than nothing); if no
    move qualifies (every move is a proven loss) all may be chosen.
    """
    best = max(lows)
    allowed = [
        i
        for i, (low, high) in enumerate(zip(lows, highs, strict=True))
        if high > best or (low == best and best > 0.0)
    ]
    if not allowed or len(allowed) == len(lows):
        return None
    return allowed


def prove(node: Node, partial: bool = False, maxn: bool = False, rational: bool = False) -> bool:
    """Recompute the bounds of the expanded `node` from its children (with
    `partial`, see `joints_to_prove`; with `maxn`, see `maxn_bounds`; with `rational`,
    see the module's docstring); return whether they changed (so that its parent
    needs recomputing too)."""
    roles = range(len(node.moves))
    lower, upper = [0.0] * len(roles), [1.0] * len(roles)
    allowed: list[list[int] | None] = [None] * len(roles)
    joints = None if maxn else joints_to_prove(node, partial)
    if maxn:
        allowed = maxn_bounds(node, lower, upper)
    elif joints is not None:
        joints = list(joints)
        choosers = node.choosers
        rational = rational and len(choosers) == 1 and len(roles) == 2
        # with `rational`, the chooser first: its allowed moves bound the other role
        order = sorted(roles, key=lambda role: role not in choosers) if rational else roles
        for role in order:
            bounding = joints
            if rational and allowed[choosers[0]]:
                # two roles: the other's bounds over the moves its chooser may still take
                kept = allowed[choosers[0]]
                bounding = [joint for joint in joints if joint[choosers[0]] in kept]
            lows, highs, [high] = move_bounds(node, role, bounding)
            lower[role], upper[role] = max(lows), high
            if role in choosers:
                allowed[role] = allowed_moves(lows, highs)
    if lower == [0.0] * len(roles) and upper == [1.0] * len(roles):
        new_lower = new_upper = None
    else:
        new_lower, new_upper = tuple(lower), tuple(upper)
    node.allowed = None if all(a is None for a in allowed) else allowed
    if new_lower == node.lower and new_upper == node.upper:
        return False
    node.lower, node.upper = new_lower, new_upper
    if new_lower is not None and new_lower == new_upper:
        node.proven = list(new_lower)
    return True


def maxn_bounds(node: Node, lower: list[float], upper: list[float]) -> list[list[int] | None]:
    """Max^n proofs, for games of more than two roles: fill `lower` and `upper` (0
    and 1 on entry) and return the moves each role may still choose.

    Security values take every other role to play against each role; here each
    role is taken to choose what is best for itself, so a node's value is the
    goal vector of the child its chooser takes.  Where one role chooses, its own
    bounds are the best of its moves' (as `prove`'s), its moves proven worse than
    another are not chosen again, and once its value is known the node is proven
    with that child's vector: the first child (in move order) proven to give it
    100, or else where every child that can reach that value is proven with one
    vector (a tie between vectors is left open).  The other roles' bounds stay 0
    and 1 until then.  Where several roles choose at once, or none, the node is
    proven only once every child is, all with one vector.
    """
    children = node.children
    roles = len(node.moves)
    allowed: list[list[int] | None] = [None] * roles
    if len(node.choosers) != 1:
        joints = product(*(range(len(moves)) for moves in node.moves))
        vector = _one_vector([children.get(joint) for joint in joints])
    else:
        chooser = node.choosers[0]
        count = len(node.moves[chooser])
        lows, highs = [0.0] * count, [1.0] * count
        for joint in node.joints:
            child = children.get(joint)
            if child is not None and child.lower is not None:
                lows[joint[chooser]] = child.lower[chooser]
                highs[joint[chooser]] = child.upper[chooser]
        lower[chooser], upper[chooser] = max(lows), max(highs)
        allowed[chooser] = allowed_moves(lows, highs)
        value = lower[chooser]
        if value != upper[chooser]:
            return allowed
        # the children that can reach the chooser's value: one of them is taken
        taken = [children.get(j) for j in node.joints if highs[j[chooser]] >= value]
        if value == 1.0:
            vector = next((c.proven for c in taken if c is not None and c.proven), None)
        else:
            vector = _one_vector(taken)
    if vector is not None:
        lower[:], upper[:] = vector, vector
    return allowed


def _one_vector(children: Sequence[Node | None]) -> list[float] | None:
    """The goal vector every one of `children` is proven with (None: one is missing or
    unproven, or two differ)."""
    vector = None
    for child in children:
        if child is None or child.proven is None:
            return None
        if vector is not None and child.proven != vector:
            return None
        vector = child.proven
    return vector
