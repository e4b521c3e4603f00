"""The learnt heuristic in the tree: implicit minimax backups, and a prior.

After Lanctot, Winands, Pepels and Sturtevant, "Monte Carlo Tree Search with
Heuristic Evaluations using Implicit Minimax Backups" (CIG 2014; Breakthrough
was one of their games, best there with alpha about 0.4).  Every node keeps,
beside its Monte Carlo statistics, `Node.imm`: one value per role (0..1), the
minimax value of the heuristic evaluations of the subtree the search has
built.  A new node gets its evaluation (`ggp.player.search.heuristic`; a terminal node its
goals / 100).  After each simulation the nodes of its path, from the bottom,
take the value of their best child: the whole vector of the expanded child
whose value is highest for the role on move (max^n, which is minimax in a
two-player zero-sum game, where Breakthrough's learnt evaluations of the two
roles add up to 1); a proven node its proven rewards (`ggp.player.search.solver`).  The
role on move then values its move i as

    (1 - alpha) * mean_i + alpha * v_i + c * sqrt(ln N / n_i)

v_i being its value in the child the move leads to: the mean says how the
simulations went, v_i what a minimax search over the tree's own shape says
the evaluation expects.  Untried moves are still tried first.

Where this differs from the paper, and why:

- Children are evaluated when the search adds them, one per simulation, not
  all when their parent is expanded (that would cost a step of the rules and
  an evaluation per legal move, about 30 on Breakthrough, per node).  Until
  every move is tried, a node's value is the best of the children it has.
- Back-ups stop at the first node whose value does not change: only the new
  leaf's value is new, so its ancestors' values cannot change either.  In a
  transposition graph (`transpose`) a shared node's other parents may hold an
  older value of it, so there every node of the path is recomputed.
- Only nodes where one role chooses use the values.  Where several roles
  move at once a node keeps its own evaluation and chooses by UCB1 alone
  (there is no sound value of a matrix of heuristic estimates as cheap as a
  maximum), so the backed-up values stop there; a node where no role has a
  choice takes its one child's value.
- A move that has no child holding a value (the tree at its node limit, or
  statistics preset from a state table) is valued by its mean alone.

`HeuristicPrior` is the cheaper way Sancho uses its heuristics: a new edge's
statistics start with a few virtual visits worth the evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ggp.games.base import GameError, State

if TYPE_CHECKING:
    from ggp.player.search.tree import Node

IMM = 0.0
"""The weight alpha of the backed-up values by default: 0, off, unless it wins at equal
time (docs/mcts-enhancements.md)."""

PRIOR = 0
"""Virtual visits of the heuristic prior by default (`HeuristicPrior`; 0: off)."""


class Evaluation(Protocol):
    """A state evaluation: each role's estimated reward, 0..1 (`heuristic.Heuristic`)."""

    def value(self, state: State) -> Sequence[float]: ...


class ImplicitMinimax:
    """The backed-up heuristic values of a search and the choice that blends them in.

    `MCTS` calls `evaluate` on every new node, `back_up` on each node of a
    simulation's path from the bottom while it reports a change, and
    `base` for the value of a move of a node's one chooser among its tried moves.
    """

    def __init__(self, heuristic: Evaluation, alpha: float) -> None:
        if not 0 <= alpha <= 1:
            raise GameError(f"implicit minimax needs a weight alpha in 0..1, got {alpha}")
        self.heuristic = heuristic
        self.alpha = alpha

    def evaluate(self, node: Node) -> None:
        """Give a new node its own value: its goals if terminal, else the evaluation."""
        if node.rewards is not None:
            node.imm = node.rewards
        else:
            node.imm = list(self.heuristic.value(node.state))

    def back_up(self, node: Node, joint: tuple[int, ...]) -> bool:
        """The child `joint` leads to from `node` is new or its value changed:
        recompute `node`'s value; return whether it changed."""
        if node.proven is not None:
            new = node.proven
        else:
            choosers = node.choosers
            child = node.children.get(joint)
            if child is None or len(choosers) > 1:
                return False
            if not choosers:
                new = _value(child)
            else:
                mover = choosers[0]
                values = node.imm_moves
                if values is None:
                    values = node.imm_moves = [-1.0] * len(node.moves[mover])
                values[joint[mover]] = _value(child)[mover]
                best = values.index(max(values))
                new = _value(node.children[node.joints[best]])
        if new == node.imm:
            return False
        node.imm = new
        return True

    def base(self, node: Node, role: int, i: int) -> float:
        """The blended value of `role`'s tried move `i` at `node` without its exploration
        term: ``(1 - alpha) * mean_i + alpha * v_i`` (the mean where v_i is unknown).
        `MCTS` adds ``c * sqrt(ln N / n_i)`` (`ggp.player.search.tree.Node.ucb`)."""
        n = node.counts[role][i]
        if n == 0:  # ruled out by the solver before its first visit: never chosen
            return 0.0
        mean = node.sums[role][i] / n
        v = node.imm_moves[i]
        return (1.0 - self.alpha) * mean + self.alpha * (v if v >= 0 else mean)


class HeuristicPrior:
    """Seeds a new edge's statistics with the heuristic, Sancho's way.

    When the search adds the child a joint move leads to, each role's move in
    that joint gets `visits` virtual visits worth the role's evaluation of the
    child (its goals / 100 if terminal) beside the real ones: the mean starts
    from the evaluation and the simulations take over as they come.  The
    parent's own visit count is left alone.  Cheaper than implicit minimax
    (one evaluation per new node, nothing backed up), but the evaluation's
    weight fades with the visits instead of following the tree's minimax.
    """

    def __init__(self, heuristic: Evaluation, visits: int) -> None:
        if visits < 1:
            raise GameError(f"the heuristic prior needs at least 1 virtual visit, got {visits}")
        self.heuristic = heuristic
        self.visits = visits

    def seed(self, node: Node, joint: tuple[int, ...], child: Node) -> None:
        """`joint` at `node` now leads to `child`: add the virtual visits, where one
        role chooses (where several move at once, a move leads to a child per joint
        move and would gather virtual visits from each; as implicit minimax, the
        prior stays out of such nodes)."""
        if len(node.choosers) > 1:
            return
        if child.imm is not None:  # evaluated already for implicit minimax
            value = child.imm
        elif child.rewards is not None:
            value = child.rewards
        else:
            value = self.heuristic.value(child.state)
        visits = self.visits
        counts, sums = node.counts, node.sums
        for role, i in enumerate(joint):
            counts[role][i] += visits
            sums[role][i] += visits * value[role]


def _value(node: Node) -> Sequence[float]:
    """A child's value as its parent sees it: proven rewards once proven (a proof
    found by the shallow search reaches the node before any back-up does)."""
    return node.proven if node.proven is not None else node.imm
