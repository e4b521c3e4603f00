"""A search tree held and searched by a game's native library (`tree_source`).

`NativeTree` is the optional capability a compiled game with native code offers
the search (`CompiledGame.native_tree`): `ggp.player.search.native_search` runs
`MCTS`'s iterations through it where they are the kind the C loop runs, and reads
its nodes back as states and move texts.  Nodes are numbered, the root 0; in a tree
a child always has a larger number than its parent (in a graph, ``transpose``, a
node reached again may have a smaller one).
"""

from __future__ import annotations

import random
import struct
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

FLAG_TERMINAL = 1
FLAG_BOUNDS = 2
FLAG_PROVEN = 4
FLAG_ALLOWED = 8
FLAG_IMM_MOVES = 16
FLAG_EXPANDED = 32
FLAG_JOINT = 64

EXPANDED = 0
"""`expand`: the node's moves are known."""
SEVERAL = 1
"""`expand`, `search`: several roles have a choice there, with more joint moves than
`configure`'s ``joint`` (the C loop leaves such a node to the Python tree)."""
BROKEN = 2
"""`search`: the rules broke in an iteration (with ``stop_on_broken``)."""
RULES_BREAK = -1
"""`expand`: a role has no legal move."""
NO_MEMORY = -2
FULL = 3
"""`expand`: several roles choose and the node cap leaves no room for the edges of
their joint moves (the C loop plays out from such a node)."""


class NodeData(NamedTuple):
    """One node as the library holds it: moves as input indexes, the chooser's move i
    at position i of `children`, `allowed` and `values` (-1: no child holds a value).
    Where several roles choose (`FLAG_JOINT`), `children` are in the order of the
    joint moves (``itertools.product`` of each role's move indexes), and each role's
    next untried move and allowed moves are in `untried_of` and `allowed_of`."""

    bits: int
    visits: int
    flags: int
    chooser: int
    moves: tuple[tuple[int, ...], ...] | None
    counts: list[list[int]]
    sums: list[list[float]]
    decisive: int
    untried: int
    children: list[int]
    allowed: list[int]
    values: list[float]
    imm: list[float]
    lower: list[float]
    upper: list[float]
    untried_of: list[int]
    allowed_of: list[list[int]]


class SearchResult(NamedTuple):
    done: int
    """The iterations run."""
    stopped: int
    """0 when done (iterations, time or a proven root); else `SEVERAL` or `BROKEN`."""
    broken: int
    """Iterations in which the rules broke."""
    playouts: int
    settled: int
    """Iterations that ended on a node already proven (`MCTS.settled`)."""


class NativeTree:
    """A tree of `native`'s library (a `ggp.gdl.native.rules.NativeRules`)."""

    def __init__(self, native: Any, texts: Sequence[str], state: Callable[[int], Any]) -> None:
        self.native = native
        self.texts = texts
        """The move text of each input index."""
        self.state = state
        """The game's state of given bits."""
        self.ffi = ffi = native.ffi
        self.lib = lib = native.lib
        tree = lib.gdl_tree_new()
        if tree == ffi.NULL:
            raise MemoryError("no memory for a native search tree")
        self.tree = ffi.gc(tree, lib.gdl_tree_free)
        self._words = array("I", bytes(4 * 625))
        self._mt = ffi.from_buffer("uint32_t[]", self._words)
        self._limits = ffi.new("double[]", 4)
        self._values = struct.Struct(f"{3 * native.roles}d")
        self._out = ffi.new("int64_t[]", 4)
        self._tables: Any = None
        self._finish: Any = None

    def configure(
        self,
        *,
        c: float,
        solver: bool,
        alpha: float | None,
        prior: int,
        heuristic: Any,
        batch: int,
        greedy: int,
        safe: bool,
        max_nodes: int | None,
        stop_on_broken: bool,
        finish: int | None = None,
        guide: int = 1,
        joint: int = 0,
        maxn: bool = False,
        bounded: bool = False,
        transpose: bool = False,
    ) -> None:
        """The search's settings: implicit minimax's weight (None: off), the prior's
        virtual visits (0: off), both with `heuristic` (`heuristic.Heuristic` of fact
        counts), the playouts a leaf and their policy (`playouts.Greedy`,
        `playouts.Decisive`; with `finish`, input bits, they look for wins among those
        moves only; with `guide` above 1 and `heuristic`, the chooser's move is the
        best by it of `guide` safe moves drawn), the node cap (None: none), and the
        most joint moves a node where several roles choose may have to be searched here
        (0: none such, the Python tree takes them), and with `solver` whether its proofs
        are max^n ones (`ggp.player.search.solver.maxn_bounds`), whether the search is
        score-bounded (`MCTS` ``bounded``), and whether the tree is a graph (`MCTS`
        ``transpose``: a move that leads to a state held at the same depth leads to its
        node)."""
        tree = self.tree
        tree.c = c
        tree.solver = 2 if solver and maxn else int(solver)
        tree.bounded = bounded
        tree.imm = alpha is not None
        tree.alpha = 0.0 if alpha is None else alpha
        tree.prior = prior
        tree.batch = batch
        tree.greedy = greedy
        tree.safe = safe
        tree.guide = guide
        tree.max_nodes = max_nodes or 0
        tree.stop_on_broken = stop_on_broken
        tree.joint = joint
        tree.transpose = transpose
        self._finish = None if finish is None else self.native._inputs(finish)
        tree.finish = self.ffi.NULL if self._finish is None else self._finish
        if heuristic is not None:
            self._tables = masks, weights = heuristic.native_tables(self.native)
            tree.masks, tree.weights = masks, weights
            tree.features = len(heuristic.masks)
        else:
            tree.features = 0

    def reset(self, bits: int) -> bool:
        """Hold the one node of state `bits`; False where the rules break in its goals."""
        state = self.native._state(bits)
        return self.lib.gdl_tree_reset(self.tree, state) == 0

    def expand(self, node: int, rng: random.Random) -> int:
        """Expand `node`, drawing from `rng` as `Node.expand`: `EXPANDED`, or `SEVERAL`,
        `FULL` or `RULES_BREAK` (then nothing is drawn)."""
        with self._drawing(rng) as mt:
            status = self.lib.gdl_tree_expand(self.tree, node, mt)
        if status == NO_MEMORY:
            raise MemoryError("no memory for the native search tree")
        return status

    def search(
        self,
        rng: random.Random,
        iterations: int | None,
        seconds: float | None = None,
        cpu_seconds: float | None = None,
        finish: tuple[float, float] | None = None,
    ) -> SearchResult:
        """Iterations until `iterations` are done or the root is proven, or until
        `seconds` pass (monotonic clock), `cpu_seconds` (this thread's CPU clock), or
        with `finish` (seconds, slowest), until an iteration as slow as the slowest
        so far would end after those seconds (`slowest` gives the new slowest),
        drawing from `rng` as the Python search does."""
        self.lib.gdl_count_missing_goals_as(self.native.missing_goal)
        out, limits = self._out, self._limits
        out[1] = out[2] = out[3] = 0
        limits[0] = -1.0 if seconds is None else max(0.0, seconds)
        limits[1] = -1.0 if cpu_seconds is None else max(0.0, cpu_seconds)
        limits[2], limits[3] = (-1.0, 0.0) if finish is None else (max(0.0, finish[0]), finish[1])
        limit = -1 if iterations is None else iterations
        with self._drawing(rng) as mt:
            done = self.lib.gdl_tree_search(self.tree, mt, limit, limits, out)
        if out[0] == NO_MEMORY:
            raise MemoryError("no memory for the native search tree")
        return SearchResult(done, int(out[0]), int(out[1]), int(out[2]), int(out[3]))

    @property
    def slowest(self) -> float:
        """The slowest iteration of the last `search` with `finish` (seconds)."""
        return self._limits[3]

    def _drawing(self, rng: random.Random) -> _Drawing:
        return _Drawing(self._mt, self._words, rng)

    def reroot(self, node: int) -> None:
        """Keep `node`'s subtree alone, `node` the root."""
        if self.lib.gdl_tree_reroot(self.tree, node) != 0:
            raise MemoryError("no memory for the native search tree")

    def failed(self) -> int:
        """The state where the rules broke in the last `search` that stopped there."""
        words = self.native.words
        return int.from_bytes(self.ffi.buffer(self.tree.fail, 8 * words), "little")

    @property
    def count(self) -> int:
        """The nodes held."""
        return self.tree.n

    def bits(self, node: int) -> int:
        """The state of `node`."""
        words = self.native.words
        start = node * words
        return int.from_bytes(self.ffi.buffer(self.tree.word + start, 8 * words), "little")

    def child(self, node: int, i: int) -> int:
        """The child the chooser's move i (0 without a chooser; where several choose,
        joint move i in `NodeData.children`'s order) leads to at the expanded `node`;
        -1: none yet."""
        return self.tree.edge[self.tree.node[node].edges + i].child

    def node(self, node: int, moves: bool = True) -> NodeData:
        """What the library holds of `node` (read as bytes: a cffi access a field
        would cost more than the rest); without `moves`, not its moves (None)."""
        tree, buffer = self.tree, self.ffi.buffer
        roles = self.native.roles
        visits, slots, edges, chooser, k, decisive, untried, flags, dims = _NODE.unpack(
            buffer(tree.node + node, _NODE.size)
        )
        values = self._values.unpack(buffer(tree.val + 3 * roles * node, self._values.size))
        listed = moves
        moves = None
        counts: list[list[int]] = []
        sums: list[list[float]] = []
        children: list[int] = []
        allowed: list[int] = []
        edge_values: list[float] = []
        untried_of: list[int] = []
        allowed_of: list[list[int]] = []
        if flags & FLAG_EXPANDED and listed:
            if flags & FLAG_JOINT:
                sizes = list(tree.dim[dims : dims + roles])
                untried_of = list(tree.dim[dims + roles : dims + 2 * roles])
                flat = list(tree.dim[dims + 2 * roles : dims + 2 * roles + sum(sizes)])
                start = 0
                for size in sizes:
                    allowed_of.append(flat[start : start + size])
                    start += size
            else:
                sizes = [k if role == chooser else 1 for role in range(roles)]
            items = list(_SLOT.iter_unpack(buffer(tree.slot + slots, 16 * sum(sizes))))
            rows = []
            start = 0
            for size in sizes:
                rows.append(items[start : start + size])
                start += size
            moves = tuple(tuple(item[0] for item in row) for row in rows)
            counts = [[item[1] for item in row] for row in rows]
            sums = [[item[2] for item in row] for row in rows]
            columns = zip(*_SLOT.iter_unpack(buffer(tree.edge + edges, 16 * k)), strict=True)
            children, allowed, edge_values = (list(column) for column in columns)
        return NodeData(
            self.bits(node),
            visits,
            flags,
            chooser,
            moves,
            counts,
            sums,
            decisive,
            untried,
            children,
            allowed,
            edge_values,
            list(values[0:roles]),
            list(values[roles : 2 * roles]),
            list(values[2 * roles : 3 * roles]),
            untried_of,
            allowed_of,
        )


_NODE = struct.Struct("9i")
"""A node as the library lays it out (`TNode`)."""
_SLOT = struct.Struct("iid")
"""A move's slot (`TSlot`: input, count, sum) or an edge (`TEdge`: child, allowed, value)."""


class _Drawing:
    """Python's generator state lent to the library for one call: its Mersenne
    Twister words in, the words the library leaves back into the generator."""

    def __init__(self, mt: Any, words: array, rng: random.Random) -> None:
        self.mt = mt
        self.words = words
        self.rng = rng

    def __enter__(self) -> Any:
        _, state, self.gauss = self.rng.getstate()
        self.words[:] = array("I", state)
        return self.mt

    def __exit__(self, *exc: object) -> None:
        self.rng.setstate((3, tuple(self.words), self.gauss))
