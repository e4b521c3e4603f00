"""Monte Carlo tree search: UCT, decoupled for simultaneous moves.

Every node keeps statistics per role per move (visits and summed reward), and
each role chooses its own move by UCB1 over its own statistics; the joint of
these choices leads to the child.  In turn-taking games the roles not on move
have the single move ``noop``, so this is ordinary UCT.  Rewards are the goal
values divided by 100, one per role: a draw is worth half a win.

`MCTS` is the search (select, expand, evaluate, back up) over the nodes of
`tree`; the leaf evaluation is another object (`evaluation.RandomPlayout`,
`mast.MastPlayout`), and the enhancements are parts it composes: the solver's
proofs (`solver`), the shallow proof search (`shallow`), RAVE (`rave`), implicit
minimax and the heuristic prior (`imm`).  None of those imports this module.
The search only uses the `ggp.games.base` interface, so it plays GDL games
unchanged; where a game's native code offers to hold and search the tree itself
(`Game.native_tree`), the iterations run there (`native_search`), with the same
decisions for a seed.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import log, sqrt
from typing import TYPE_CHECKING

from ggp.games.base import Finishers, GameDefinitionError, GameError, State
from ggp.games.playouts import Guide
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mast import MastPlayout, MoveAverages
from ggp.player.search.native_search import ADVANCED, EXPAND, NativeSearch
from ggp.player.search.proof_distance import proven_choice
from ggp.player.search.rave import BIAS, REF, Rave
from ggp.player.search.shallow import proven_moves
from ggp.player.search.solver import allowed_moves, joints_to_prove, move_bounds, prove
from ggp.player.search.tree import Node, Rewards, Ucb, subtree

if TYPE_CHECKING:
    from ggp.player.search.state_table import StateTable


FINAL_CHOICES = ("visits", "mean", "lower")
"""How the move is read from the root's statistics (`ranked`)."""

DEFAULT_FINAL = "visits"
"""The most visited move, for the agent and for ``ggp serve`` (``--final``).  ``lower``
(the best mean - 1/sqrt(visits)), right more often on 262 Connect Four middle-game
positions graded by a solver (389 of 524 searches against 379), lost in matches against
Sancho 1.61c: 8 of 19 on the four tuning games, Breakthrough 0 of 5, where it ranks by
the playouts' mean against the tree's implicit-minimax steering (docs/results.md)."""

PROOF_DISTANCE = False
"""At a proven root where one role chooses, play the quickest proven win or the
slowest proven loss (`ggp.player.search.proof_distance`) rather than the most visited.
Off: at equal time against the search without it (3 s a move, one worker,
load 16 to 24), simultaneous Connect Four, whose two boards are searched apart
and were proven one won and one lost in both matches lost to Sancho 1.61c,
scored 0.417 (0.24-0.61, 24 matches; docs/results.md)."""

DEFAULT_C = 0.7
"""The default exploration constant, chosen by measurement (docs/mcts-study.md)."""

SOLVER = False
"""Whether MCTS-Solver is on by default: only if it wins against plain UCT."""

MAST = False
"""Whether MAST playouts are on by default: only if they win against plain UCT."""

GREEDY = 0
"""Playout moves in which winning moves are taken by default (`RandomPlayout`)."""

DECISIVE = 0
"""Playout moves in which decisive moves are taken and anti-decisive ones
avoided by default (`RandomPlayout`; 0: none)."""

TRANSPOSE = False
"""Whether transpositions are shared by default: only if they win against plain UCT."""

SHALLOW = 0
"""Plies of the shallow proof search by default (`ggp.player.search.shallow`; 0: none)."""

SHALLOW_VISITS = 200
"""Visits after which a node gets its shallow proof search by default: at 1 (every
node, when expanded) depth 2 costs 80% of the simulations a second on native
Connect Four and 94% on Breakthrough, at 200 7% and 13% (docs/mcts-enhancements.md)."""

RAVE = False
"""Whether RAVE/GRAVE (`rave.py`) is on by default: only if it wins against plain UCT."""

PARTIAL_PROOFS = False
"""Whether the solver proves simultaneous-move nodes from the children known so far
(`ggp.player.search.solver.joints_to_prove`) by default: only if it wins against the full-matrix
proofs (docs/mcts-enhancements.md)."""

PART_PLAYOUTS = False
"""Whether a tree over a part plays its playouts on that part alone by default
(`playouts.Part`): only if it wins against random playouts of the whole
state (docs/mcts-enhancements.md)."""


@dataclass(frozen=True)
class MoveStats:
    """What the search knows about one move of one role at the root."""

    move: str
    visits: int
    value: float
    """The mean reward of the role after this move (0..1), 0 when unvisited."""
    lower: float = 0.0
    upper: float = 1.0
    """What the solver proved of the role's reward after this move, whatever
    the other roles do (`ggp.player.search.solver`); 0 and 1 when nothing is proven."""


class MCTS:
    """UCT search from a root state, for every role at once.

    `c` is the exploration constant of UCB1 (mean + c * sqrt(ln N / n)).
    `final` is how `best_move` chooses: ``visits`` (the most visited move,
    ties broken by mean), ``mean`` (the best mean among visited moves) or ``lower``
    (the best mean - 1/sqrt(visits): a mean found over few visits counts for less).
    With `stochastic`, a role samples its move in proportion to the UCB
    values instead of taking the largest.  Moves not tried yet at a node are
    tried first, in random order, with one exception: once a move is seen to
    end the game with the full goal (100) for the one role on move, that role
    always takes it there (nothing can be better), in the search and as its
    final choice; on Connect Four with 10 iterations a move this wins 4 to 6
    more matches in 100 against a random player.  A `table` of statistics
    saved by earlier matches presets the nodes it knows (see
    `ggp.player.search.state_table`).

    `max_nodes` caps the nodes the tree holds (None: no cap), to bound its
    memory (1.1 to 2 KB a node on Connect Four and Breakthrough).  At the cap the search goes
    on without growing: a move that would add a node is evaluated from the
    state it leads to, and the rewards are backed up along the path without
    storing that state.  `node_count` is the nodes held, root included; after
    `advance` it counts the subtree kept.  The native library's tree, at 0.2 KB a
    node, holds `native_search.NATIVE_NODE_SHARE` times as many.

    With `solver` (MCTS-Solver, `ggp.player.search.solver`), terminal outcomes are backed
    up as proofs: bounds on each role's reward at each node.  A node whose
    bounds meet is proven and is then valued like a terminal node, without a
    playout; moves proven worse than another are no longer chosen, so a
    proven win is played and a proven loss avoided while a move that may not
    lose is left; a proven root ends the search.  With `mast` (Move-Average
    Sampling Technique, `ggp.player.search.mast`), playouts prefer the moves with the
    best average reward so far, over the whole search (`playouts.Mast`:
    in native code where the game has it); with `mast_steps`, for that many
    moves only, uniformly random moves playing the rest.
    With `greedy` (not with `mast`), random playouts take a winning move where
    they see one in their first `greedy` moves (`RandomPlayout`); with
    `decisive` (not with `mast` or `greedy`), in their first `decisive` moves
    they also avoid the moves after which another role can win at once; with
    `finishers`, both look for wins among those moves only; with `guide`, the
    decisive playouts are guided by a learnt evaluation (`evaluation.Guide`).

    With `transpose`, the tree is a graph: a move that leads to a state the
    tree already holds at the same depth (reached by another order of moves)
    leads to that node, whose statistics every path then shares; the moves'
    statistics at the parent stay per edge (UCT1 of Childs, Brodeur and
    Kocsis, 2008).  Keying by depth as well as state keeps the graph acyclic
    in games that repeat states.  The first visit of such an edge is
    evaluated from the shared node (a playout, or its proof) like a new leaf.
    A proof reaches the parents the node was proven under at once and each
    other parent when a path through it next reaches the proven node.  On native
    code the C loop holds the graph too (`ggp.player.search.native_search`), its
    nodes found by a hash table of depth and state.

    With `partial_proofs` (needs `solver`), a node where several roles move at
    once is bounded from the joint moves that have children so far, the others
    unknown, instead of only once every joint move has one
    (`ggp.player.search.solver.joints_to_prove`).

    With `maxn` (needs `solver`), the proofs take each role to choose what is best for
    itself (max^n) instead of the security values' every other role against it: a
    node is proven with the goal vector of the child its chooser takes
    (`ggp.player.search.solver.maxn_bounds`), for games of more than two roles.

    With `bounded` (needs `solver`), the search is score-bounded (after Cazenave and
    Saffidine, 2010), so that a node whose chooser's best move is proven does not take
    every iteration through it to that move again: where the one chooser of a node has a
    child proven and another allowed one open, it chooses among the open ones; the
    rewards backed up through a node with bounds are held within them, so that the
    node's value as its parent sees it stays within what is proven of it; and with two
    roles, the other role's bounds are over the moves the chooser may still take
    (`ggp.player.search.solver.prove` ``rational``), so that a move the chooser ruled out
    does not keep the node from being proven.  Without it, on kalaha_2009, 3.7 million
    of 3.7 million iterations in 3 s went to proven nodes (docs/results.md).

    With `part`, a set of moves, the tree branches only on the roles' choices
    that include one of them (`ggp.player.search.factored`: the search of one part of a
    game whose roles move at once on separate parts of the state).  A role none
    of whose legal moves is in `part` makes no move there, as Sancho's "pseudo
    no-op": it plays one of them, drawn at random when its node is expanded,
    and what that choice changed is undone (`State.reverted`, against the state
    another of its moves leads to).  With `part_playouts` as well, so do the
    playouts (`playouts.Part`: random moves on the part, the other parts
    as they are at the leaf) instead of random play of the whole state.

    With `shallow` (needs `solver`), a node of a turn-taking game reached
    `shallow_visits` times (at the earliest when it is expanded, its second
    visit) is searched `shallow` plies deep for forced wins (`ggp.player.search.shallow`),
    once; what that proves goes into the solver's bounds.

    With `rave` (not with `mast`, `greedy`, `decisive` or `stochastic`), moves are chosen by GRAVE
    (`rave.py`): their mean blended with the AMAF value of the closest
    node up the path whose table holds more than `rave_ref` simulations
    (0: the node's own, plain RAVE), weighted by `rave_bias`; the random
    playouts report their moves to the tables of the path.

    With `imm` (`ggp.player.search.imm`, not with `rave`), every node keeps a minimax value
    of the heuristic evaluations below it, and a node's one chooser values its
    moves by their means blended with those values.  With `prior`
    (`ggp.player.search.imm.HeuristicPrior`), a move's statistics start, when the child it
    leads to is added, with virtual visits worth the child's evaluation.
    """

    def __init__(
        self,
        state: State,
        *,
        c: float = DEFAULT_C,
        final: str = DEFAULT_FINAL,
        stochastic: bool = False,
        rng: random.Random | None = None,
        evaluator: RandomPlayout | None = None,
        depth: int = 0,
        table: StateTable | None = None,
        max_nodes: int | None = None,
        solver: bool = SOLVER,
        mast: bool = MAST,
        mast_steps: int | None = None,
        greedy: int = GREEDY,
        decisive: int = DECISIVE,
        finishers: Finishers | None = None,
        guide: Guide | None = None,
        transpose: bool = TRANSPOSE,
        shallow: int = SHALLOW,
        shallow_visits: int = SHALLOW_VISITS,
        rave: bool = RAVE,
        rave_ref: int = REF,
        rave_bias: float = BIAS,
        imm: ImplicitMinimax | None = None,
        prior: HeuristicPrior | None = None,
        partial_proofs: bool = PARTIAL_PROOFS,
        part: frozenset[str] | None = None,
        part_playouts: bool = PART_PLAYOUTS,
        broken_rules: bool = False,
        maxn: bool = False,
        bounded: bool = False,
    ) -> None:
        if shallow < 0 or shallow_visits < 1:
            raise GameError(
                f"shallow needs plies >= 0 and visits >= 1, got {shallow} and {shallow_visits}"
            )
        if shallow and not solver:
            raise GameError("the shallow proof search needs the solver (solver=yes)")
        if partial_proofs and not solver:
            raise GameError("partial proofs are the solver's (solver=yes)")
        if maxn and (not solver or shallow or partial_proofs):
            raise GameError("max^n proofs are the solver's, without shallow or partial proofs")
        if bounded and not solver:
            raise GameError("a score-bounded search needs the solver's bounds (solver=yes)")
        if rave and (mast or greedy or decisive or stochastic or evaluator is not None):
            raise GameError(
                "RAVE chooses by its value on its own random playouts: "
                "not with mast, greedy, decisive, stochastic or another evaluator"
            )
        if decisive and (mast or evaluator is not None):
            raise GameError("decisive playouts are random ones: not with mast or another evaluator")
        if part_playouts and (mast or greedy or decisive or rave):
            raise GameError(
                "part playouts are random ones: not with mast, greedy, decisive or rave"
            )
        if part_playouts and not isinstance(evaluator, RandomPlayout | None):
            raise GameError("part playouts are random ones: not with another evaluator")
        if rave and imm is not None:
            raise GameError("RAVE and implicit minimax both change the choice: not together")
        if max_nodes is not None and max_nodes < 1:
            raise GameError(f"the node limit must be at least 1, got {max_nodes}")
        self.c = c
        self.final = checked_final(final)
        self.broken_rules = broken_rules
        """Whether an iteration in which the rules break is counted in `broken` and
        the search goes on (a player's search: the rules are the game's fault, and
        the way is backed up as a loss for every role) rather than raising."""
        self.broken = 0
        """Iterations in which the rules broke, with `broken_rules`."""
        self.settled = 0
        """Iterations that ended on a node already proven (or terminal) and backed its
        value up without evaluating a leaf: iterations, not simulations.  Where the
        solver has proven much of a small tree (an endgame), nearly every iteration
        is one, millions a second."""
        self.slowest = 0.0
        """The slowest iteration of the searches with `finish_by` (monotonic seconds);
        the caller may set it (to 0 for a new measure)."""
        self.stochastic = stochastic
        self.rng = rng or random.Random()
        self.solver = solver
        self.partial = partial_proofs
        self.maxn = maxn
        self.bounded = bounded
        self.part = part
        """With `part`: the moves the tree branches on (`ggp.player.search.factored`)."""
        self.part_playouts = part_playouts
        self.shallow = shallow
        self.shallow_visits = shallow_visits
        self.averages = MoveAverages(len(state.game.roles)) if mast else None
        """MAST's move averages, learnt from every simulation (None: no MAST)."""
        if evaluator is None:
            if self.averages is None:
                evaluator = RandomPlayout(greedy, decisive, finishers, guide)
            else:
                evaluator = MastPlayout(self.averages, steps=mast_steps)
        self.evaluator = evaluator
        self.rave = Rave(state.game, rave_ref, rave_bias) if rave else None
        """GRAVE's tables and choice (None: UCB1 alone)."""
        self.imm = imm
        """The implicit minimax values' keeper (None: none kept)."""
        self.prior = prior
        """What seeds new edges with virtual visits (None: nothing)."""
        self.table = table
        self.max_nodes = max_nodes
        self._nodes = 0
        """The nodes held, or after `advance` an upper bound (see `_exact`)."""
        self._exact = True
        """Whether `_nodes` is exact: `advance` keeps it as a bound, counted
        only when the bound reaches `max_nodes`, so that a search far below the
        cap never walks the tree."""
        self.positions: dict[tuple[int, str], Node] | None = {} if transpose else None
        """With `transpose`: every node held, by depth and state key."""
        self._native = None if PROOF_DISTANCE else NativeSearch.start(self, state, depth)
        """The tree in the game's native library, where the search is of the kind it
        runs (`ggp.player.search.native_search`; None: the Python tree)."""
        if self._native is None:
            self._root = self._new_node(state, depth)
            self._ensure_expanded(self._root)

    @property
    def root(self) -> Node:
        """The root node (with the native tree, a view of it and its children)."""
        native = self._native
        return self._root if native is None else native.root()

    @root.setter
    def root(self, node: Node) -> None:
        self._root = node

    @property
    def root_state(self) -> State:
        """The root's state, without making the native tree's view of the root (its
        children's views cost a few microseconds each, per slice of a search)."""
        native = self._native
        return self._root.state if native is None else native.root_state

    @property
    def root_depth(self) -> int:
        """The root's depth (joint moves from the initial state), as `root_state`."""
        native = self._native
        return self._root.depth if native is None else native.depth

    @property
    def native(self) -> bool:
        """Whether the game's native library holds and searches the tree."""
        return self._native is not None

    def _leave_native(self) -> None:
        """Go on with the Python tree: the native tree's nodes as `Node`s."""
        native = self._native
        assert native is not None
        self._root = native.materialize(self.max_nodes)
        self._nodes, self._exact = min(native.count, self.max_nodes or native.count), True
        self._native = None
        if self.positions is not None:
            self.positions = _held(self._root)

    def search(
        self,
        iterations: int | None = None,
        deadline: float | None = None,
        *,
        finish_by: float | None = None,
        thread_deadline: float | None = None,
    ) -> int:
        """Run iterations until `iterations` are done or `deadline` (monotonic) passes.

        The clock is read between iterations, so one slow playout can overrun
        the deadline by its own length, no more.  With `finish_by` (monotonic), an
        iteration starts only if one as slow as the slowest so far (`slowest`)
        would end by then; with `thread_deadline`, only until the calling thread's
        CPU clock (`time.thread_time`) reaches it.  Returns the iterations run.
        """
        limits = (deadline, finish_by, thread_deadline)
        if iterations is None and all(limit is None for limit in limits):
            raise ValueError("search needs a number of iterations, a deadline or both")
        done = 0
        if self._native is not None:
            done, over = self._native.run(iterations, deadline, finish_by, thread_deadline)
            if over:
                return done
            self._leave_native()  # a node where several roles choose: Python's from here
        root = self.root
        while iterations is None or done < iterations:
            if root.proven is not None:  # terminal or solved: nothing to search
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            if thread_deadline is not None and time.thread_time() >= thread_deadline:
                break
            if finish_by is not None:
                began = time.monotonic()
                if began + self.slowest >= finish_by:
                    break
            self._iterate()
            done += 1
            if finish_by is not None:
                self.slowest = max(self.slowest, time.monotonic() - began)
        return done

    def _iterate(self) -> None:
        """One iteration: select down to a new node, evaluate it, back the rewards up.

        An iteration in which the rules break (`GameDefinitionError`: no legal
        move, no goal value...) is backed up as a loss for every role, so that
        the search does not take the same way as an untried move again, and
        the error is raised (with `broken_rules`, counted instead).
        """
        node = self.root
        path: list[tuple[Node, tuple[int, ...]]] = []
        proof = False
        """Whether a new proof (a new terminal node) is to be backed up."""
        reference = None
        """With RAVE: the AMAF table the choices use (`Rave.reference`)."""
        try:
            while node.proven is None:
                if node.stale:
                    self._refresh(node)
                    continue
                if node.moves is None:
                    node.expand(self.rng, self.part)
                if self.shallow and not node.probed and node.visits >= self.shallow_visits:
                    self._probe(node, path)
                    if node.proven is not None:
                        continue  # proven now: backed up as such, below
                if self.rave is not None:
                    reference = self.rave.reference(node, reference)
                choosers = node.choosers
                if len(choosers) == 1:  # a turn-taking game: `_choose_joint`, one call less
                    joint = node.joints[self._choose(node, choosers[0], reference)]
                else:
                    joint = self._choose_joint(node, reference)
                path.append((node, joint))
                child = node.children.get(joint)
                if child is None:
                    state = _next_state(node, joint)
                    key = None if self.positions is None else (node.depth + 1, state.key())
                    child = None if key is None else self.positions.get(key)
                    if child is None and self._full():
                        rewards = self._evaluate_unstored(node, joint, state, path)
                        break
                    node = self._add_child(node, joint, state, child or key)
                    node.visits += 1
                    if node.proven is None:
                        rewards = self._playout(node.state, path)
                    else:
                        rewards = node.proven
                        if self.rave is not None:
                            self.rave.record(path, rewards)
                    # A new terminal node, or a shared one that brings its bounds.
                    proof = self.solver and node.lower is not None
                    break
                node = child
            else:  # a terminal or proven node: backed up without a playout
                rewards = node.proven
                node.visits += 1
                self.settled += 1
                if self.rave is not None:
                    self.rave.record(path, rewards)
                # In a tree the parent knew the proof; in a graph, maybe not.
                proof = self.solver and self.positions is not None
        except GameDefinitionError:
            self._back_up(path, [0.0] * len(self.root.state.game.roles), False)
            if not self.broken_rules:
                raise
            self.broken += 1
            return
        self._back_up(path, rewards, proof)

    def _back_up(
        self, path: list[tuple[Node, tuple[int, ...]]], rewards: Rewards, proof: bool
    ) -> None:
        imm = self.imm
        changed = imm is not None  # whether the minimax value below changed: a leaf's is new
        every = self.positions is not None  # shared nodes: no early stop (`ggp.player.search.imm`)
        passed = rewards
        """The rewards as they pass each node (with `bounded`, held within its bounds)."""
        for node, joint in reversed(path):
            node.visits += 1
            counts, sums = node.counts, node.sums
            for role, i in enumerate(joint):
                counts[role][i] += 1
                sums[role][i] += passed[role]
            if proof:
                proof = prove(node, self.partial, self.maxn, self.bounded)
            if imm is not None and (changed or proof or every):
                changed = imm.back_up(node, joint)
            if self.bounded and node.lower is not None:
                passed = [
                    min(max(reward, low), high)
                    for reward, low, high in zip(passed, node.lower, node.upper, strict=True)
                ]
            terms = node.ucb
            if terms is not None:  # `_update_ucb`, inline
                for role, ucb in enumerate(terms):
                    if ucb is not None:
                        i = joint[role]
                        n = counts[role][i]
                        ucb.roots[i] = sqrt(n)
                        if ucb.minimax:
                            ucb.bases[i] = imm.base(node, role, i)
                        else:
                            ucb.bases[i] = sums[role][i] / n
        if self.averages is not None:
            self.averages.learn_path(path, rewards)

    def _probe(self, node: Node, path: list[tuple[Node, tuple[int, ...]]]) -> None:
        """The shallow proof search at `node` (reached by `path`): store the
        children it proves and back the proofs up at once."""
        node.probed = True
        if len(node.choosers) != 1:  # simultaneous moves (or none): not searched
            return

        def children() -> Iterator[tuple[tuple[int, ...], State]]:
            for joint in node.joints:
                child = node.children.get(joint)
                if child is None:
                    yield joint, _next_state(node, joint)
                elif child.proven is None:
                    yield joint, child.state

        roles = len(node.moves)
        found = proven_moves(children(), roles, self.shallow)
        for joint, state, rewards in found:
            child = node.children.get(joint)
            if child is None:
                key = None if self.positions is None else (node.depth + 1, state.key())
                shared = None if key is None else self.positions.get(key)
                if shared is None and self._full():
                    continue
                child = self._add_child(node, joint, state, shared or key)
            if rewards is not None:
                child.lower = child.upper = tuple(rewards)
                child.proven = rewards
        changed = bool(found) and prove(node, self.partial, self.maxn, self.bounded)
        for ancestor, _ in reversed(path):
            if not changed:
                break
            changed = prove(ancestor, self.partial, self.maxn, self.bounded)

    def _choose_joint(self, node: Node, reference: array | None = None) -> tuple[int, ...]:
        """The joint move (move indices) chosen at `node`: each role chooses its own
        (by GRAVE with the AMAF table `reference`, if any)."""
        choosers = node.choosers
        if len(choosers) == 1:  # a turn-taking game: one role has a choice
            return node.joints[self._choose(node, choosers[0], reference)]
        joint = [0] * len(node.moves)
        for role in choosers:
            joint[role] = self._choose(node, role, reference)
        return tuple(joint)

    def _choose(self, node: Node, role: int, reference: array | None = None) -> int:
        """The move index role `role` takes at `node`: untried first, then UCB1
        (with an AMAF table `reference`: by GRAVE's value, `Rave.choose`)."""
        if node.decisive is not None:
            return node.decisive
        allowed = None if node.allowed is None else node.allowed[role]
        if reference is not None:
            indices = range(len(node.counts[role])) if allowed is None else allowed
            explore = self.c * sqrt(log(max(node.visits, 1)))
            return self.rave.choose(node, role, reference, explore, indices)
        untried = node.untried[role]
        if allowed is not None:  # the solver ruled some moves out for good
            while untried and untried[-1] not in allowed:
                untried.pop()
        if untried:
            return untried.pop()
        if self.bounded and node.lower is not None and len(node.choosers) == 1:
            allowed = _open_moves(node, role, allowed)
        explore = self.c * sqrt(log(node.visits))
        terms = node.ucb
        if terms is None:
            terms = node.ucb = [None] * len(node.moves)
        ucb = terms[role]
        if ucb is None or ucb.minimax != (node.imm_moves is not None):
            ucb = terms[role] = self._ucb(node, role)
        bases, roots = ucb.bases, ucb.roots
        indices = range(len(bases)) if allowed is None else allowed
        try:
            if allowed is None:  # every move: the lists side by side, no indexing
                values = [base + explore / root for base, root in zip(bases, roots, strict=True)]
            else:
                values = [bases[i] + explore / roots[i] for i in indices]
        except ZeroDivisionError:
            # A move dropped from `untried` while the solver ruled it out, allowed again
            # (its bounds' verdict changed: every move lost, or a simultaneous move's
            # worst case): never visited, so it is tried now.
            return next(i for i in indices if not roots[i])
        if self.stochastic:
            return indices[self.rng.choices(range(len(values)), values)[0]]
        return indices[values.index(max(values))]

    def _ucb(self, node: Node, role: int) -> Ucb:
        """Role `role`'s UCB terms at `node` (`Ucb`), from its statistics; a move the
        solver ruled out before its first visit gets placeholders (never chosen)."""
        counts = node.counts[role]
        roots = [sqrt(n) for n in counts]
        if node.imm_moves is not None:  # the one chooser's minimax values (`ggp.player.search.imm`)
            base = self.imm.base
            return Ucb([base(node, role, i) for i in range(len(counts))], roots, True)
        sums = node.sums[role]
        return Ucb([s / n if n else 0.0 for s, n in zip(sums, counts, strict=True)], roots, False)

    def _update_ucb(self, node: Node, joint: tuple[int, ...]) -> None:
        """The statistics of `joint`'s moves at `node` changed: so do their UCB terms."""
        for role, ucb in enumerate(node.ucb):
            if ucb is not None:
                i = joint[role]
                n = node.counts[role][i]
                ucb.roots[i] = sqrt(n)
                if ucb.minimax:
                    ucb.bases[i] = self.imm.base(node, role, i)
                else:
                    ucb.bases[i] = node.sums[role][i] / n

    def _add_child(
        self,
        node: Node,
        joint: tuple[int, ...],
        state: State,
        shared: Node | tuple[int, str] | None,
    ) -> Node:
        """Link `joint` at `node` to `state`'s node: `shared`, the one the tree holds
        already, or a new one (held by its key `shared` when transposing)."""
        if isinstance(shared, Node):
            child = node.children[joint] = shared
        else:
            child = node.children[joint] = self._new_node(state, node.depth + 1, shared)
        if self.prior is not None:
            self.prior.seed(node, joint, child)
            if node.ucb is not None:
                self._update_ucb(node, joint)
        if child.rewards is not None:
            _note_decisive(node, joint, child.rewards)
        return child

    def _full(self) -> bool:
        """Whether the tree holds `max_nodes` nodes (counting them if only bounded)."""
        if self.max_nodes is None or self._nodes < self.max_nodes:
            return False
        return self.node_count >= self.max_nodes

    def _evaluate_unstored(
        self, node: Node, joint: tuple[int, ...], state: State, path: list[tuple[Node, tuple]]
    ) -> Rewards:
        """The rewards of `state`, where `joint` leads from `node` (the end of
        `path`), which is not stored."""
        if state.is_terminal():
            rewards = [goal * 0.01 for goal in state.goals()]
            _note_decisive(node, joint, rewards)
            if self.rave is not None:
                self.rave.record(path, rewards)
            return rewards
        return self._playout(state, path)

    def _playout(self, state: State, path: list[tuple[Node, tuple]]) -> Rewards:
        """The rewards of the new leaf `state` at the end of `path`: the evaluator's,
        or with RAVE playouts recorded in the path's AMAF tables."""
        if self.rave is not None:
            return self.rave.evaluate(state, self.rng, path)
        if self.part is None:
            return self.evaluator.evaluate(state, self.rng)
        if self.part_playouts:
            assert isinstance(self.evaluator, RandomPlayout)
            return self.evaluator.evaluate_part(state, self.rng, self.part)
        try:
            return self.evaluator.evaluate(state, self.rng)
        except GameDefinitionError:  # the part ran out of moves first: see `_new_node`
            return [0.5] * len(state.game.roles)

    @property
    def node_count(self) -> int:
        """The nodes the tree holds, root included."""
        if self._native is not None:
            return self._native.count
        if not self._exact:
            self._nodes = sum(1 for _ in subtree(self.root))
            self._exact = True
        return self._nodes

    def _new_node(self, state: State, depth: int, key: tuple[int, str] | None = None) -> Node:
        """A node for `state` at `depth` (held under `key`, computed if not given,
        when transposing), preset from the state table if it has the state."""
        self._nodes += 1
        node = Node(state, depth)
        if self.part is not None and node.rewards is None and not _moves_for_all(state):
            # With the other parts frozen, ours can fill up (a full board) in a
            # state the game never reaches, where a role has no move: an even end.
            node.rewards = node.proven = [0.5] * len(state.game.roles)
            node.lower = node.upper = tuple(node.rewards)
        if self.imm is not None:
            self.imm.evaluate(node)
        if self.positions is not None:
            self.positions[key or (depth, state.key())] = node
        if self.table is not None and node.rewards is None:
            self.table.preset(node, self.rng)
        return node

    def _ensure_expanded(self, node: Node) -> None:
        if node.moves is None and node.rewards is None:
            node.expand(self.rng, self.part)

    def statistics(self, role: int) -> list[MoveStats]:
        """The root's moves for role index `role`, best first (by the final choice)."""
        root = self.root
        if root.moves is None:
            return []
        counts, sums = root.counts[role], root.sums[role]
        lows, highs = self._move_bounds(role)
        stats = [
            MoveStats(move, n, sums[i] / n if n else 0.0, lows[i], highs[i])
            for i, (move, n) in enumerate(zip(root.moves[role], counts, strict=True))
        ]
        return ranked(stats, self.final)

    def best_move(self, role: int) -> str:
        """The move to play now for role index `role` (any legal move before any search)."""
        root = self.root
        if root.decisive is not None and root.choosers == (role,):
            return root.moves[role][root.decisive]
        if PROOF_DISTANCE:
            chosen = proven_choice(root, role)
            if chosen is not None:
                return root.moves[role][chosen]
        stats = self.statistics(role)
        if not stats:
            raise GameError("no move to choose: the root state is terminal")
        return choose_move(stats, self.rng)

    def _move_bounds(self, role: int) -> tuple[list[float], list[float]]:
        """The proven bounds of role `role`'s reward after each of its root moves."""
        root = self.root
        count = len(root.moves[role])
        joints = joints_to_prove(root, self.partial) if self.solver else None
        if joints is None:
            return [0.0] * count, [1.0] * count
        lows, highs, _ = move_bounds(root, role, joints)
        return lows, highs

    def advance(self, joint: Sequence[str], state: State) -> None:
        """The joint move `joint` was played, leading to `state`: re-root the tree.

        The matching subtree, if the search has built it, becomes the root
        (tree reuse); otherwise the search starts afresh from `state`.  With
        transpositions, the nodes the new root cannot reach are dropped (a walk
        of what is kept, which counts it too).
        """
        native = self._native
        if native is not None:
            done = native.advance(joint, state)
            if done == ADVANCED:
                return
            self._leave_native()
            if done == EXPAND:  # the new root is the library's: expanded here, or raises
                self._ensure_expanded(self._root)
                return
        root = self.root
        child = None
        if root.moves is not None and len(joint) == len(root.moves):
            pairs = list(zip(root.moves, joint, strict=True))
            if all(move in moves for moves, move in pairs):
                child = root.children.get(tuple(moves.index(move) for moves, move in pairs))
        if child is None or child.state != state:
            self._nodes, self._exact = 0, True
            if self.positions is not None:
                self.positions = {}
            child = self._new_node(state, root.depth + 1)
        elif self.positions is not None:
            self.positions = _held(child)
            self._nodes, self._exact = len(self.positions), True
        else:
            self._nodes -= 1  # the old root goes: the rest is a bound until counted
            self._exact = False
        self.root = child
        self._ensure_expanded(child)

    def advance_part(self, joint: Sequence[str], state: State) -> bool:
        """In a tree over a part (`part`): the joint move `joint` was played,
        leading to `state`.  The child its moves on the part lead to (the
        drawn move of a role whose choice lies elsewhere stands for any such
        move) becomes the root, its subtree rebased onto `state`
        (`State.rebased`: the other parts as they are now).  Returns whether
        there was one; False leaves the tree as it was, of no further use.

        The statistics below were gathered with the other parts as they were:
        they are kept as they are, as Sancho keeps its factors' trees.  A
        rebased node's moves are checked when the search next comes by
        (`_refresh`): a drawn move no longer legal is drawn again.
        """
        root = self.root
        if self.part is None or root.moves is None or len(joint) != len(root.moves):
            return False
        frozen = root.frozen or {}
        index = []
        for role, (moves, move) in enumerate(zip(root.moves, joint, strict=True)):
            if role in frozen and move not in self.part:
                index.append(0)
            elif move in moves:
                index.append(moves.index(move))
            else:
                return False
        child = root.children.get(tuple(index))
        if child is None or child.proven is not None:
            return False
        base = child.state
        for node in subtree(child):
            node.state = node.state.rebased(base, state)
            node.stale = True
        self._refresh(child)
        if child.proven is not None:
            return False
        if self.positions is not None:
            self.positions = _held(child)
        self.root = child
        self._nodes -= 1  # the old root goes: the rest is a bound until counted
        self._exact = False
        self._ensure_expanded(child)
        return True

    def _refresh(self, node: Node) -> None:
        """Check a rebased node against its state: a terminal state ends there,
        a role with a choice whose legal moves changed gets the node expanded
        afresh (its children dropped), and a drawn move outside the part
        (`frozen`) that is no longer legal is drawn again."""
        node.stale = False
        state = node.state
        if state.is_terminal():
            node.rewards = node.proven = [goal * 0.01 for goal in state.goals()]
            node.lower = node.upper = tuple(node.rewards)
            node.moves, node.children = None, {}
            return
        if node.moves is None:
            return
        legal = state.all_legal_moves()
        frozen = node.frozen or {}
        moves = list(node.moves)
        for role, kept in enumerate(node.moves):
            if role not in frozen:
                if set(kept) != set(legal[role]):
                    node.children = {}
                    node.decisive = None
                    node.frozen = None
                    node.expand(self.rng, self.part)
                    return
            elif kept[0] not in legal[role] or frozen[role] not in legal[role]:
                drawn = list(legal[role])
                self.rng.shuffle(drawn)
                moves[role] = (drawn[0],)
                if len(drawn) > 1:
                    frozen[role] = drawn[1]
                else:
                    del frozen[role]
        node.moves = tuple(moves)


def checked_final(final: str) -> str:
    """`final`, if it is one of `FINAL_CHOICES` (GameError if not)."""
    if final not in FINAL_CHOICES:
        raise GameError(f"final must be one of {', '.join(FINAL_CHOICES)}: {final!r}")
    return final


def ranked(stats: Sequence[MoveStats], final: str) -> list[MoveStats]:
    """`stats` best first by the final choice `final` (`FINAL_CHOICES`): ``visits``
    ranks by visits (ties: the mean), ``mean`` by the mean of the visited moves,
    ``lower`` by the mean - 1/sqrt(visits) of the visited moves."""
    if final == "mean":
        return sorted(stats, key=lambda s: (s.visits > 0, s.value, s.visits), reverse=True)
    if final == "lower":
        return sorted(stats, key=_lower_bound, reverse=True)
    return sorted(stats, key=lambda s: (s.visits, s.value), reverse=True)


def _lower_bound(stats: MoveStats) -> tuple[bool, float, int]:
    """The key of ``final="lower"``: visited first, then mean - 1/sqrt(visits)."""
    if stats.visits == 0:
        return False, 0.0, 0
    return True, stats.value - 1 / math.sqrt(stats.visits), stats.visits


def choose_move(stats: Sequence[MoveStats], rng: random.Random) -> str:
    """The move to play from root statistics ranked best first (`MCTS.statistics`).

    The first move the proofs allow (`ggp.player.search.solver.allowed_moves`), or a
    random one if none was visited.  Statistics merged from several searches
    of the same root (root-parallel workers, say) can be chosen from the same
    way: their visits and rewards add up, and of each move's bounds the
    highest lower and the lowest upper hold.
    """
    allowed = allowed_moves([s.lower for s in stats], [s.upper for s in stats])
    if allowed is not None:
        stats = [stats[i] for i in allowed]
    if stats[0].visits == 0:
        return rng.choice(stats).move
    return stats[0].move


def _held(root: Node) -> dict[tuple[int, str], Node]:
    """Every node `root` reaches, by depth and state key (a graph's `positions`)."""
    return {(node.depth, node.state.key()): node for node in subtree(root)}


def _next_state(node: Node, joint: tuple[int, ...]) -> State:
    moves = node.moves
    chosen = [moves[role][i] for role, i in enumerate(joint)]
    state = node.state.next_listed(chosen)
    for role, other in (node.frozen or {}).items():  # outside the part: undone
        alternative = list(chosen)
        alternative[role] = other
        state = state.reverted(node.state, node.state.next_listed(alternative))
    return state


def _moves_for_all(state: State) -> bool:
    """Whether every role has a legal move in the non-terminal `state` (rules
    that leave one without say so by raising `GameDefinitionError`, or by none)."""
    try:
        return all(state.all_legal_moves())
    except GameDefinitionError:
        return False


def _note_decisive(node: Node, joint: tuple[int, ...], rewards: Rewards) -> None:
    """Mark `joint` decisive at `node` if it gives the only chooser the full goal."""
    if len(node.choosers) == 1:
        role = node.choosers[0]
        if rewards[role] == 1.0:  # the full goal: no move can be better
            node.decisive = joint[role]


def _open_moves(node: Node, role: int, allowed: list[int] | None) -> list[int] | None:
    """Of the moves `allowed` (None: all), those whose child is not proven, where there
    is one and some are proven (`MCTS` ``bounded``); else `allowed`."""
    indices = range(len(node.moves[role])) if allowed is None else allowed
    children, joints = node.children, node.joints
    found = [i for i in indices if (c := children.get(joints[i])) is None or c.proven is None]
    return found if found and len(found) < len(indices) else allowed
