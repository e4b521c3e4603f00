"""Trees over our part as a search worker serves them, over one match.

Where the roles move at once on separate parts of the state
(`ggp.player.search.factored.independent_choices`), a step's search can be a tree over
our moves' part instead of the tree of joint moves (`ggp.player.search.factored`).
`ServedParts` decides which tree a search of this step runs: the joint tree where the
moves are not independent; a tree over our part where they are, made once a step and
kept from move to move (`PartTrees`); and the joint tree again for the rest of a step
where the part tree has proven every move an even end (`spent`: a part that ended at
once, as where a piece's move undone against another move takes it off the board,
tells nothing of the game). It says in the server's log, once a match, when trees over
parts start to play and when a part tree's proof first leaves the choice to the joint
tree.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from ggp.games.base import State
from ggp.player.search.factored import PartTrees, independent_choices, proves_only_even_ends
from ggp.player.search.mcts import MCTS


class ServedParts:
    """The trees over our part of one match. `make` builds a fresh tree at a state
    over a set of moves; with `keep`, each part's tree is kept from move to move."""

    def __init__(self, make: Callable[[State, frozenset[str]], MCTS], keep: bool) -> None:
        self.make = make
        self.kept = PartTrees(make, keep)
        """The trees over parts, kept or fresh at each move."""
        self.part: MCTS | None = None
        """This step's tree over our part, if the step has one."""
        self.part_key: tuple[int, int] | None = None
        """The step and role `part` was built for."""
        self.spent_key: tuple[int, int] | None = None
        """The step and role whose tree over our part has proven every move an even end
        (`spent`): the joint tree searches for the rest of that step."""
        self.independence: tuple[State | None, bool] = (None, False)
        """The last state `tree_for` asked `independent_choices` of, and the answer
        (asked at every slice of a search otherwise: 3% of point_grab's)."""
        self.factored_told = False
        """Whether the log has been told that the search plays trees over parts..."""
        self.spent_told = False
        """...and that a part tree's proof left the choice to the joint tree."""

    def restart(self, keep: bool) -> None:
        """The search starts afresh (a match, or new rules at the same step): no part
        tree is kept, and from now on with `keep` they are kept from move to move.
        What the log was told, and a proof of this step's even ends, stay."""
        self.kept = PartTrees(self.make, keep)
        self.part = None

    @property
    def trees(self) -> list[MCTS]:
        """The trees over parts held now."""
        return self.kept.trees

    def tree_for(self, joint: MCTS, step: int, role: int) -> MCTS:
        """The tree to search for role `role` at step `step`, whose joint-move tree is
        `joint`: a tree over our part where the roles' moves are independent at the
        joint tree's root, unless this step's part tree has proven every move an even
        end (`spent`); otherwise `joint`."""
        if self.spent_key == (step, role):
            return joint
        if self.part is not None and self.part_key == (step, role):
            return self.part
        state = joint.root_state
        if self.independence[0] is not state:
            self.independence = (state, independent_choices(state))
        if not self.independence[1]:
            return joint
        self.part = self.kept.tree_for(state, role)
        self.part_key = (step, role)
        if not self.factored_told:
            self.factored_told = True
            print(
                f"search worker: the roles move on separate parts: from move {step} "
                "our moves are searched by trees over our part",
                file=sys.stderr,
            )
        return self.part

    def spent(self, tree: MCTS, step: int, role: int) -> bool:
        """Whether `tree` is a tree over our part that has proven every move of `role`
        an even end (`factored.proves_only_even_ends`): then the joint tree searches and
        chooses for the rest of step `step`."""
        if tree.part is None or not proves_only_even_ends(tree, role):
            return False
        self.spent_key = (step, role)
        if not self.spent_told:
            self.spent_told = True
            print(
                f"search worker: the tree over our part proved every move an even end at move "
                f"{step}: the joint tree chooses where that happens",
                file=sys.stderr,
            )
        return True

    def advance(self, joint: Sequence[str], state: State) -> None:
        """The joint move `joint` was played, leading to `state`: the kept trees follow."""
        self.part = None
        self.kept.advance(joint, state)

    def ponder_tree(self) -> MCTS | None:
        """A kept part tree to search while the opponents think (`PartTrees.ponder_tree`)."""
        return self.kept.ponder_tree()
