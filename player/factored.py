"""Simultaneous moves that act on separate parts of the state (`mcts:factor=yes`).

In some games the roles move at once but each on its own part of the state:
simultaneous Connect Four is two boards, each role dropping on the board it
controls, control swapping every turn.  A tree over joint moves then splits
what it learns about one part by every move made on the others (8 x 8 = 64
children a turn there), so each part is searched half as deep, and the
others' random play adds noise (docs/mcts-enhancements.md).  Sancho 1.61c
finds such parts from the rules ("factors") and searches each as its own game.

This is a light version of that, found by play rather than from the rules.
`independent_choices` says whether, at a state, the choosers' moves change
disjoint facts and every joint move changes the state by the sum of its
parts' changes (each role's moves tried against fixed moves of the others,
then the joint moves checked).  Where they do, the `mcts` agent with
`factor=yes` searches its move with a tree over its own part
(`player.mcts.MCTS` with `part`): it branches on the choices that include a
move named as one of ours at the root (on simultaneous Connect Four, the
drops on our board, by either role), and every other choice is one legal
move drawn at random when its node is expanded, not branched on.  It knows
no game.
"""

from __future__ import annotations

from itertools import combinations, islice, product

from games.base import State

FACTOR = False
"""Whether the `mcts` agent searches separate parts apart by default: only if it
wins against the joint-move tree (docs/mcts-enhancements.md)."""

CHECKED_JOINTS = 256
"""Joint moves whose effect `independent_choices` checks at most."""


def independent_choices(state: State) -> bool:
    """Whether at `state` two or more roles choose and their moves change
    disjoint facts, every joint move changing the state by its parts' changes."""
    if state.is_terminal():
        return False
    legal = state.all_legal_moves()
    choosers = [role for role, moves in enumerate(legal) if len(moves) > 1]
    if len(choosers) < 2:
        return False
    base_joint = [moves[0] for moves in legal]
    base = frozenset(state.next(base_joint).facts())
    effects: dict[tuple[int, str], frozenset[str]] = {}
    touched = {}
    for role in choosers:
        changed: set[str] = set()
        for move in legal[role][1:]:
            joint = list(base_joint)
            joint[role] = move
            effects[role, move] = frozenset(state.next(joint).facts()) ^ base
            changed |= effects[role, move]
        touched[role] = changed
    if any(touched[a] & touched[b] for a, b in combinations(choosers, 2)):
        return False
    for joint in islice(product(*legal), CHECKED_JOINTS):
        expected = set(base)
        for role in choosers:
            if joint[role] != legal[role][0]:
                expected ^= effects[role, joint[role]]
        if frozenset(state.next(list(joint)).facts()) != expected:
            return False
    return True
