"""`MCTS`'s iterations in the game's native library, where the search is of the kind it runs.

A game whose native code plays whole playouts offers a tree the library holds and
searches (`Game.native_tree`, `ggp.gdl.native.tree`): select, expand, step,
evaluate and back up in C over flat arrays, with no Python a simulation.  It runs
UCT at nodes where at most one role has a choice and decoupled UCT where several
choose at once (up to `NATIVE_JOINT_MOVES` joint moves, with the solver's
full-matrix proofs; not with `partial_proofs`), with the solver's proofs,
implicit minimax, the heuristic prior (an evaluation of fact counts), a node cap,
transpositions (the tree a graph, as `MCTS` ``transpose`` makes it), and random,
greedy or decisive playouts; RAVE, MAST, state tables, parts, the shallow proof
search and stochastic choice stay on the Python tree.
It draws from the search's `random.Random` as the Python search does, so a seed's
search makes the same choices with the same statistics on either side.

`NativeSearch.start` decides at a tree's start whether it applies.  The root the
rest of the search reads (`MCTS.root`) is then a view: the root's `Node` and its
children (their states, visits, proofs and values; their moves and children are not
read, and not made), made when asked for after the tree changed.  Where the
C loop meets a node it does not search (several roles choose among more joint moves
than it takes), `materialize` gives the whole tree as `Node`s and the Python search
goes on from there.
"""

from __future__ import annotations

import heapq
import itertools
import random
import time
from collections.abc import Sequence
from typing import Any

from ggp.games.base import GameDefinitionError, State
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.tree import Node

NATIVE_TREE = True
"""Whether a search runs in the native library where it can (off: the Python tree always)."""

NATIVE_NODE_SHARE = 5
"""The native tree holds this many times the search's `max_nodes`: a node of it costs
about 0.2 KB, a `Node` 1.1 to 2 KB (docs/results.md, the memory of the search tree),
so the cap bounds its memory no higher.  Where the Python search goes on from it
(`materialize`), the `max_nodes` most visited nodes are kept."""

NATIVE_JOINT_MOVES = 512
"""The most joint moves of a node where several roles choose that the C loop searches
(an edge each, 16 bytes, made at once); more, and the Python tree takes the search
from there (its children are made one by one, as they are reached)."""

# The library's node flags (`ggp.gdl.native.tree`) and answers.
_TERMINAL, _BOUNDS, _PROVEN, _ALLOWED, _IMM_MOVES, _EXPANDED, _JOINT = 1, 2, 4, 8, 16, 32, 64
_SEVERAL, _BROKEN = 1, 2
_VIEW, _NUMBERS, _NONE = 0, 1, 2

ADVANCED, NOT_HERE, EXPAND = 0, 1, 2
"""What `NativeSearch.advance` did."""


class NativeSearch:
    """An `MCTS` tree held by the native library (`start`).  The search is typed `Any`
    here: `mcts` imports this module, not the other way round."""

    def __init__(self, search: Any, tree: Any, state: State, depth: int, heuristic: Any) -> None:
        self.search_ = search
        self.tree = tree
        self.game = state.game
        self.root_state = state
        """The root's state (also what the evaluator's native playouts are asked for)."""
        self.depth = depth
        self.heuristic = heuristic
        self._view: Node | None = None

    @classmethod
    def start(cls, search: Any, state: State, depth: int) -> NativeSearch | None:
        """The native tree for `search` at `state`, or None where it does not apply
        (then nothing was drawn from the search's generator)."""
        if not NATIVE_TREE or not _applies(search):
            return None
        heuristic = _heuristic(search, state)
        if heuristic is False:
            return None
        bits = getattr(state, "bits", None)
        if bits is None or state.is_terminal() or search.evaluator.native_playouts(state) is None:
            return None
        capability = getattr(state.game, "native_tree", None)  # `Game.native_tree`
        tree = None if capability is None else capability()
        if tree is None:
            return None
        self = cls(search, tree, state, depth, heuristic)
        self._configure()
        if not tree.reset(bits) or tree.expand(0, search.rng) != 0:
            return None
        return self

    def _configure(self) -> None:
        search = self.search_
        evaluator = search.evaluator
        assert isinstance(evaluator, RandomPlayout)
        policy = evaluator.native_playouts(self.root_state)
        assert policy is not None
        greedy, safe, finish = policy
        guide = evaluator.guide
        self.tree.configure(
            c=search.c,
            solver=search.solver,
            alpha=None if search.imm is None else search.imm.alpha,
            prior=0 if search.prior is None else search.prior.visits,
            heuristic=self.heuristic,
            batch=self.game.playout_batch,
            greedy=greedy,
            safe=safe,
            max_nodes=None if search.max_nodes is None else search.max_nodes * NATIVE_NODE_SHARE,
            stop_on_broken=not search.broken_rules,
            finish=finish,
            guide=1 if guide is None else guide.moves,
            joint=0 if search.partial else NATIVE_JOINT_MOVES,
            maxn=search.maxn,
            bounded=search.bounded,
            transpose=search.positions is not None,
        )

    def run(
        self,
        iterations: int | None,
        deadline: float | None,
        finish_by: float | None = None,
        thread_deadline: float | None = None,
    ) -> tuple[int, bool]:
        """`MCTS.search` in the library: the iterations done and whether the search is
        over (False: a node the C loop does not search is next, for the Python tree)."""
        search = self.search_
        self._view = None
        self._configure()
        now = time.monotonic()
        result = self.tree.search(
            search.rng,
            iterations,
            None if deadline is None else deadline - now,
            None if thread_deadline is None else thread_deadline - time.thread_time(),
            None if finish_by is None else (finish_by - now, search.slowest),
        )
        if finish_by is not None:
            search.slowest = self.tree.slowest
        search.evaluator.playouts += result.playouts
        search.settled += result.settled
        search.broken += result.broken
        if result.stopped == _BROKEN:  # the rules' own error there, as the Python tree raises
            state = self.tree.state(self.tree.failed())
            if state.is_terminal():
                state.goals()
            else:
                state.all_legal_moves()
            raise GameDefinitionError("the rules break in the search (a move or goal missing)")
        return result.done, result.stopped != _SEVERAL

    @property
    def count(self) -> int:
        return self.tree.count

    def root(self) -> Node:
        """The root's view (see the module's docstring)."""
        if self._view is None:
            self._view = self._node(0, self.depth, _VIEW)
        return self._view

    def advance(self, joint: Sequence[str], state: State) -> int:
        """`MCTS.advance` in the library: `ADVANCED`; `NOT_HERE` where the new root is
        not for the C loop and nothing changed (then `materialize` and advance the
        Python tree); `EXPAND` where the new root is the library's root but the C loop
        does not search it or its rules break (then `materialize` and expand it)."""
        self._view = None
        tree = self.tree
        data = tree.node(0)
        child = -1
        bits = getattr(state, "bits", None)
        if bits is None or state.game is not self.game:
            return NOT_HERE
        if data.moves is not None and len(joint) == len(data.moves):
            texts = tree.texts
            index = []
            for moves, move in zip(data.moves, joint, strict=True):
                named = [texts[i] for i in moves]
                if move not in named:
                    break
                index.append(named.index(move))
            else:
                chooser = data.chooser
                if data.flags & _JOINT:
                    code = 0
                    for moves, i in zip(data.moves, index, strict=True):
                        code = code * len(moves) + i
                    child = tree.child(0, code)
                else:
                    child = tree.child(0, index[chooser] if chooser >= 0 else 0)
        if child >= 0 and tree.bits(child) == bits:
            tree.reroot(child)
        elif state.is_terminal() or not tree.reset(bits):
            return NOT_HERE
        self.depth += 1
        self.root_state = state
        if tree.node(0).flags & (_EXPANDED | _TERMINAL):
            return ADVANCED
        return ADVANCED if tree.expand(0, self.search_.rng) == 0 else EXPAND

    def materialize(self, limit: int | None = None) -> Node:
        """The tree as `Node`s (the root returned): the whole tree, or where it holds more
        than `limit` nodes, the `limit` most visited (a tree from the root, since a node
        has no more visits than its parent; a move whose child is left out is searched
        as at the node cap).  A graph's node reached by several moves is one `Node`."""
        count = self.tree.count
        if limit is None or count <= limit:
            nodes: dict[int, Node] = {0: self._node(0, self.depth, _NUMBERS)}
            waiting = [0]
            while waiting:  # each node made once (a graph's too), at its depth
                node = nodes[waiting.pop()]
                for child in node.children.values():
                    if child not in nodes:
                        nodes[child] = self._node(child, node.depth + 1, _NUMBERS)
                        waiting.append(child)
            for node in nodes.values():
                node.children = {joint: nodes[child] for joint, child in node.children.items()}
            return nodes[0]
        kept: dict[int, Node] = {}
        waiting = [(0, 0, self.depth)]  # (minus the visits through the edge, node, depth)
        while waiting and len(kept) < limit:
            _, index, depth = heapq.heappop(waiting)
            if index in kept:  # a graph's node, reached again
                continue
            node = kept[index] = self._node(index, depth, _NUMBERS)
            choosers = node.choosers
            for joint, child in node.children.items():
                visits = min(  # where several choose, a bound on the visits of the joint move
                    (node.counts[role][joint[role]] for role in choosers), default=node.visits
                )
                heapq.heappush(waiting, (-visits, child, depth + 1))
        for node in kept.values():
            node.children = {
                joint: kept[child] for joint, child in node.children.items() if child in kept
            }
        return kept[0]

    def _node(self, index: int, depth: int, children: int) -> Node:
        """Node `index` as a `Node`, its children as `Node`s (`_VIEW`), as node numbers
        for `materialize` to link (`_NUMBERS`), or as a child in a view (`_NONE`): its
        state, visits, proofs and values, not its moves (read as not expanded)."""
        tree = self.tree
        data = tree.node(index, children != _NONE)
        node = Node.__new__(Node)
        node.state = tree.state(data.bits)
        node.depth = depth
        flags = data.flags
        node.rewards = list(data.lower) if flags & _TERMINAL else None
        node.visits = data.visits
        node.moves = None
        node.counts, node.sums, node.untried, node.joints = [], [], [], []
        node.choosers = ()
        node.children = {}
        node.decisive = None if data.decisive < 0 else data.decisive
        node.lower = tuple(data.lower) if flags & _BOUNDS else None
        node.upper = tuple(data.upper) if flags & _BOUNDS else None
        node.proven = node.rewards if flags & _TERMINAL else None
        if flags & _PROVEN and node.proven is None:
            node.proven = list(data.lower)
        node.allowed = None
        node.probed = False
        node.amaf = None
        node.slots = None
        node.imm = list(data.imm) if self.search_.imm is not None else None
        node.imm_moves = list(data.values) if flags & _IMM_MOVES else None
        node.frozen = None
        node.stale = False
        node.ucb = None
        if data.moves is None:
            return node
        texts = tree.texts
        node.moves = tuple(tuple(map(texts.__getitem__, moves)) for moves in data.moves)
        node.counts = data.counts
        node.sums = data.sums
        roles = len(data.moves)
        chooser = data.chooser
        node.untried = [[0] for _ in range(roles)]
        if flags & _JOINT:
            node.choosers = tuple(r for r, moves in enumerate(data.moves) if len(moves) > 1)
            for role in node.choosers:
                k = len(data.moves[role])
                node.untried[role] = list(range(k - 1, data.untried_of[role] - 1, -1))
            if flags & _ALLOWED:
                node.allowed = [
                    [i for i, a in enumerate(data.allowed_of[role]) if a]
                    if role in node.choosers and not all(data.allowed_of[role])
                    else None
                    for role in range(roles)
                ]
            joints = list(itertools.product(*(range(len(moves)) for moves in data.moves)))
        elif chooser >= 0:
            k = len(data.moves[chooser])
            node.untried[chooser] = list(range(k - 1, data.untried - 1, -1))
            node.choosers = (chooser,)
            before, after = (0,) * chooser, (0,) * (roles - chooser - 1)
            node.joints = [(*before, i, *after) for i in range(k)]
            if flags & _ALLOWED:
                node.allowed = [None] * roles
                node.allowed[chooser] = [i for i, a in enumerate(data.allowed) if a]
            joints = node.joints
        else:
            joints = [(0,) * roles]
        for joint, child in zip(joints, data.children, strict=True):
            if child < 0 or children == _NONE:
                continue
            if children == _VIEW:
                node.children[joint] = self._node(child, depth + 1, _NONE)
            else:
                node.children[joint] = child
        return node


def _applies(search: Any) -> bool:
    """Whether `search` is of the kind the C loop runs (see the module's docstring)."""
    evaluator = search.evaluator
    return (
        type(search.rng) is random.Random
        and not search.stochastic
        and search.shallow == 0
        and search.rave is None
        and search.averages is None
        and search.table is None
        and search.part is None
        and not search.part_playouts
        and isinstance(evaluator, RandomPlayout)
        and (  # a subclass playing otherwise says what it plays, or is not taken
            type(evaluator).evaluate is RandomPlayout.evaluate
            or type(evaluator).native_playouts is not RandomPlayout.native_playouts
        )
        and (search.imm is None or type(search.imm) is ImplicitMinimax)
        and (search.prior is None or type(search.prior) is HeuristicPrior)
    )


def _heuristic(search: Any, state: State) -> Any:
    """The learnt evaluation the C loop computes (None: none needed), or False where it
    cannot: not one of fact counts over this game's state bits, or two of them."""
    found = [part.heuristic for part in (search.imm, search.prior) if part is not None]
    guide = getattr(search.evaluator, "guide", None)
    if guide is not None:
        found.append(guide.evaluation)
    if not found:
        return None
    heuristic = found[0]
    if any(other is not heuristic for other in found):
        return False
    if not getattr(heuristic, "counts_only", False) or getattr(heuristic, "game", None) is not (
        state.game
    ):
        return False
    return heuristic
