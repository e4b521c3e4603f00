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
(`ggp.player.search.mcts.MCTS` with `part`): it branches on the choices that include a
move named as one of ours at the root (on simultaneous Connect Four, the
drops on our board, by either role), and every other choice is one legal
move drawn at random when its node is expanded, not branched on.  It knows
no game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations, islice, product

from ggp.games.base import State
from ggp.player.search.mcts import MCTS

FACTOR = False
"""Whether the `mcts` agent searches separate parts apart by default: only if it
wins against the joint-move tree (docs/mcts-enhancements.md)."""

KEEP_PARTS = False
"""Whether the trees over parts are kept from move to move (`PartTrees`) by
default: only if it wins against fresh trees (docs/mcts-enhancements.md)."""

CHECKED_JOINTS = 256
"""Joint moves whose effect `independent_choices` checks at most."""

PLAYOUT_PLIES = 200
"""Joint moves of the random playout `independent_somewhere` looks along at most."""


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


def independent_somewhere(state: State, rng: random.Random, plies: int = PLAYOUT_PLIES) -> bool:
    """Whether the roles' moves are independent at `state` or at a state of one random
    playout from it (at most `plies` joint moves): whether trees over parts may play."""
    for _ in range(plies + 1):
        if state.is_terminal():
            return False
        if independent_choices(state):
            return True
        state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
    return False


def proves_only_even_ends(tree: MCTS, role: int) -> bool:
    """Whether `tree` has proven every move of role index `role` an even end (0.5): a
    proof that tells no move from another, so another tree must choose.

    A tree over a part makes the other roles' moves "no move" by undoing what
    they changed against another of their moves.  Where a role's piece moves, both
    moves take it from where it stood: undone, it stands nowhere, has no move, and
    the part ends even there (`MCTS` with `part`), a state the game never reaches.
    battlebrushes' and crossers3's part trees proved every move so at once.  Every
    move proven lost (or won) in the part's own game is that game's result, not
    this: chinook's part trees prove so late in the game, and handing those
    choices to the joint tree lost there in self-play (docs/mcts-enhancements.md)."""
    if tree.root.proven is None:
        return False
    stats = tree.statistics(role)
    return bool(stats) and all(s.lower == s.upper == 0.5 for s in stats)


class PartTrees:
    """The trees over parts of a match (`mcts:factor=yes`), fresh at each move,
    or with `keep` kept from move to move (`mcts:keep_parts=yes`).

    On simultaneous Connect Four our board changes every turn: the tree of
    the board we drop on now was searched two turns ago, when we last dropped
    there, and its subtree after our drop and the opponent's reply is the
    position now, but for the other board, which moved on meanwhile.  Kept,
    each tree follows the joint moves (`MCTS.advance_part`, its states
    rebased onto the other parts as they are), and a move's search starts from
    the statistics of the last search of that part.  `make` builds a fresh
    tree at a state over a set of moves.
    """

    def __init__(self, make: Callable[[State, frozenset[str]], MCTS], keep: bool) -> None:
        self.make = make
        self.keep = keep
        self.trees: list[MCTS] = []
        self.searched: MCTS | None = None
        """The tree `tree_for` gave last."""

    def tree_for(self, state: State, role: int) -> MCTS:
        """The tree to search role `role`'s move at `state`, where the roles'
        moves are independent: a tree whose root is `state` with `role` its one
        chooser, over moves that include its legal ones, or a fresh one."""
        legal = frozenset(state.legal_moves(role))
        for tree in self.trees:
            root = tree.root
            part = tree.part or frozenset()
            if root.choosers == (role,) and legal <= part and root.state == state:
                self.searched = tree
                return tree
        tree = self.make(state, legal)
        self.trees = [*self.trees, tree] if self.keep else [tree]
        self.searched = tree
        return tree

    def advance(self, joint: Sequence[str], state: State) -> None:
        """The joint move `joint` was played, leading to `state`: the kept trees
        that have the position follow it, the others go."""
        if self.keep and not state.is_terminal():
            self.trees = [tree for tree in self.trees if tree.advance_part(joint, state)]
        else:
            self.trees = []
        self.searched = None

    def ponder_tree(self) -> MCTS | None:
        """A kept tree to search while the opponents think: one that was not
        searched last (on simultaneous Connect Four, the board the opponent
        drops on now, ours next turn); None if there is none."""
        for tree in self.trees:
            if tree is not self.searched and tree.root.proven is None:
                return tree
        return None
