"""The native library of one game's rules, called with the compiled reasoner's integers.

`NativeRules` answers the same questions as the generated Python functions
of `ggp.gdl.compile.CompiledRules`, in the same form (input indexes, goal entry
positions, states as integers), so the compiled game can use either.
`playouts` runs whole random playouts in one call; it draws one 32-bit seed
from the caller's generator and plays exactly the playouts that the Python
reasoners play with ``random.Random(seed)`` (a Mersenne Twister in C, seeded
and drawn from as Python does it).  Synchronising the caller's own generator
instead (``getstate``/``setstate``) would cost about 90 us a call, several
Connect Four playouts.
"""

from __future__ import annotations

import random
import struct
import threading
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ggp.games.amaf import Tree
from ggp.games.base import PlayoutResult
from ggp.games.move_averages import MoveAverages
from ggp.games.playouts import Guide
from ggp.gdl.compiled.compiled_game import PlayoutBroke
from ggp.gdl.native.build import NativeUnavailable, build_library, new_ffi
from ggp.gdl.native.csource import CGenerator
from ggp.gdl.native.locality import touch_masks, write_masks
from ggp.gdl.native.tree import NativeTree
from ggp.gdl.network.formulas import Network

MAX_CONE_WORDS = 1 << 20
"""The largest table of cones (inputs times state words) the part playouts get (8 MB)."""


class NativeRules:
    """The rules of `network` as a native library (built or found in the cache)."""

    def __init__(self, network: Network, goal_values: Sequence[Sequence[int | None]]) -> None:
        self.ffi = ffi = new_ffi()
        source = CGenerator(network, goal_values).source()
        path = build_library(source)
        try:
            self.lib: Any = ffi.dlopen(str(path))
        except OSError as error:
            raise NativeUnavailable(f"the native library cannot be loaded: {error}") from None
        sizes = ffi.new("int[]", 8)
        self.lib.gdl_sizes(sizes)
        self.words, self.input_words, self.roles, self.moves_max, self.goal_entries = sizes[0:5]
        self.state_bytes = 8 * self.words
        self.inputs = len(network.inputs)
        self.percept_entries = sum(len(entries) for entries in network.sees)
        self.played_size = self.lib.gdl_played_size()
        self._random_playouts = self.lib.gdl_random_playouts
        self._local = threading.local()
        """Each thread's result buffers for `playouts` (a call releases the GIL)."""
        self.missing_goal = -1
        """The library's setting for a role without a goal (`count_missing_goals_as`)."""
        self._network: Network | None = network
        """Read once, by the first part playouts (`_cones`), then dropped."""
        self._cone_table: Any = None
        self._cone_lock = threading.Lock()
        self._touch_network: Network | None = network
        """Read once, by `touch_masks`, then dropped."""
        self._touch: list[int] | None = None
        self._touch_lock = threading.Lock()

    def _state(self, bits: int) -> Any:
        """The state as the library reads it: written into this thread's buffer
        (one conversion, no new C object a call)."""
        scratch = self._scratch()
        scratch.state_bytes[:] = bits.to_bytes(self.state_bytes, "little")
        return scratch.state

    def _inputs(self, bits: int) -> Any:
        """Input bits (a joint move, a set of moves) as the library reads them."""
        return self.ffi.from_buffer("uint64_t[]", bits.to_bytes(8 * self.input_words, "little"))

    def legal(self, bits: int) -> tuple[list[int], ...]:
        """Per role, the input indexes of its legal moves, in increasing order."""
        return self._per_role(self.lib.gdl_legal, self._state(bits))

    def terminal(self, bits: int) -> bool:
        """Whether the state is terminal (without its legal moves, which `step` adds)."""
        return bool(self.lib.gdl_terminal(self._state(bits)))

    def step(self, bits: int) -> tuple[list[int], ...] | None:
        """None in a terminal state, else what `legal` gives."""
        state = self._state(bits)
        if self.lib.gdl_terminal(state):
            return None
        return self._per_role(self.lib.gdl_legal, state)

    def goals(self, bits: int) -> tuple[list[int], ...]:
        """Per role, the positions of its goal entries that hold."""
        return self._per_role(self.lib.gdl_goals, self._state(bits))

    def count_missing_goals_as(self, value: int | None) -> None:
        """Playouts give `value` to a role without a goal in their terminal state;
        None (the default): they break there (`PlayoutBroke`).  Set again before each
        call of playouts, as the library's setting is shared by every `NativeRules`
        of the same rules in this process."""
        self.missing_goal = -1 if value is None else value
        self.lib.gdl_count_missing_goals_as(self.missing_goal)

    def _per_role(self, function: Any, *arguments: Any) -> tuple[list[int], ...]:
        """What a C `function(*arguments, counts, found)` lists for each role in turn
        (`counts` per role, `found` their items one role after the other)."""
        scratch = self._scratch()
        function(*arguments, scratch.counts, scratch.found)
        found = scratch.found_items
        lists = []
        start = 0
        for count in scratch.count_items:
            end = start + count
            lists.append(found[start:end].tolist())
            start = end
        return tuple(lists)

    def next(self, bits: int, does: int) -> int:
        """The state after the joint move whose input bits are `does`."""
        scratch = self._scratch()
        scratch.state_bytes[:] = bits.to_bytes(self.state_bytes, "little")
        scratch.does_bytes[:] = does.to_bytes(len(scratch.does_bytes), "little")
        self.lib.gdl_next(scratch.state, scratch.does, scratch.out)
        return int.from_bytes(scratch.out_words, "little")

    def sees(self, bits: int, does: int) -> tuple[list[int], ...]:
        """GDL-II: per role, the positions of its ``sees`` entries that hold when the
        joint move whose input bits are `does` is played."""
        scratch = self._scratch()
        scratch.state_bytes[:] = bits.to_bytes(self.state_bytes, "little")
        scratch.does_bytes[:] = does.to_bytes(len(scratch.does_bytes), "little")
        return self._per_role(self.lib.gdl_sees, scratch.state, scratch.does)

    def tree(self, texts: Sequence[str], state: Callable[[int], Any]) -> NativeTree:
        """A search tree this library holds and searches (`ggp.gdl.native.tree`), its
        moves named by `texts` (by input index) and its states made by `state`."""
        return NativeTree(self, texts, state)

    def _scratch(self) -> _Scratch:
        """This thread's buffers for one call of `legal`, `goals`, `sees` or `next` (made
        once, not per call)."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = _Scratch(self)
        return scratch

    def playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        greedy: int = 0,
        safe: bool = False,
        finish: int | None = None,
        guide: Guide | None = None,
    ) -> list[PlayoutResult]:
        """`count` random playouts from `bits`: per playout, the goals and the steps.

        With `greedy`, winning moves are taken in the first `greedy` moves of
        each playout, as `ggp.games.playouts.Greedy` takes them; with
        `safe` as well, the moves after which another role can win at once are
        avoided there, as `ggp.games.playouts.Decisive` avoids them.
        With `finish` (input bits), only those moves are looked at for wins; with
        `guide`, the safe moves are chosen as `ggp.games.playouts.Guide` says.

        Raises `PlayoutBroke` with the state where the rules break (a role
        without legal moves, a role without exactly one goal).
        """
        ffi = self.ffi
        results, goals, steps, fail = self._buffers(count)
        seed = rng.getrandbits(32)
        state = bits.to_bytes(self.state_bytes, "little")
        mask = ffi.NULL if finish is None else self._inputs(finish)
        moves, features, masks, weights = 1, 0, ffi.NULL, ffi.NULL
        if guide is not None and guide.moves > 1:
            masks, weights = guide.evaluation.native_tables(self)
            moves, features = guide.moves, len(guide.evaluation.masks)
        lib = self.lib
        args = (moves, features, masks, weights)
        if lib.gdl_playouts(state, count, seed, greedy, safe, mask, goals, steps, fail, *args) < 0:
            raise PlayoutBroke(int.from_bytes(ffi.buffer(fail), "little"))
        return results.read(count, self.roles)

    def random_playouts(self, bits: int, rng: random.Random, count: int) -> list[PlayoutResult]:
        """The random playouts of `playouts` (no greedy moves), by the shortest way:
        a call of six arguments and the results unpacked from one array.  A
        one-playout ticTacToe call is a microsecond of playout beside about two of
        seeding, so what the call costs around them counts."""
        try:
            out = self._local.random
        except AttributeError:
            out = self._local.random = _RandomResults(self)
        if count > out.size:
            out.grow(count)
        state = bits.to_bytes(self.state_bytes, "little")
        seed = rng.getrandbits(32)  # the library's missing goal set by the same call
        if self._random_playouts(state, count, seed, self.missing_goal, out.results, out.fail) < 0:
            raise PlayoutBroke(int.from_bytes(self.ffi.buffer(out.fail), "little"))
        if count == 1:  # `_RandomResults.read`, inline
            values = out.unpack_one(out.array)
            return [(values[:-1], values[-1])]
        return out.read(count)

    def finishing_moves(self, bits: int, rng: random.Random, count: int) -> int:
        """The input bits of the moves that ended `count` random playouts from `bits`,
        those of the roles with a choice in each one's last joint move (the
        playouts of `playouts` for the same draw from `rng`)."""
        ffi = self.ffi
        _, goals, steps, fail = self._buffers(count)
        seed = rng.getrandbits(32)
        state = bits.to_bytes(self.state_bytes, "little")
        last = ffi.new("uint64_t[]", self.input_words)
        if self.lib.gdl_finishing_moves(state, count, seed, last, goals, steps, fail) < 0:
            raise PlayoutBroke(int.from_bytes(ffi.buffer(fail), "little"))
        return int.from_bytes(ffi.buffer(last), "little")

    def mast_playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        averages: MoveAverages,
        epsilon: float,
        plies: int | None = None,
    ) -> list[PlayoutResult]:
        """`count` MAST playouts from `bits` (`ggp.games.playouts.Mast`).

        `averages` must be numbered by input index (`MoveAverages.renumber`):
        the C code reads and updates its arrays in place.  `PlayoutBroke` as
        for `playouts`.
        """
        if len(averages.counts) < self.inputs:
            raise ValueError("the move averages are not numbered by this game's inputs")
        ffi = self.ffi
        results, goals, steps, fail = self._buffers(count)
        seed = rng.getrandbits(32)
        state = bits.to_bytes(self.state_bytes, "little")
        seen = ffi.from_buffer("int64_t[]", averages.counts)
        sums = ffi.from_buffer("double[]", averages.sums)
        limit = -1 if plies is None else plies
        if (
            self.lib.gdl_mast_playouts(
                state, count, seed, limit, epsilon, seen, sums, goals, steps, fail
            )
            < 0
        ):
            raise PlayoutBroke(int.from_bytes(ffi.buffer(fail), "little"))
        return results.read(count, self.roles)

    def part_playouts(
        self, bits: int, rng: random.Random, count: int, part: int, decisive: int = 0
    ) -> list[PlayoutResult]:
        """`count` playouts of one part from `bits` (`playouts.Part`), `part`
        the input bits of its moves, decisive in the part for `decisive` moves.
        `PlayoutBroke` as for `playouts`."""
        ffi = self.ffi
        results, goals, steps, fail = self._buffers(count)
        seed = rng.getrandbits(32)
        state = bits.to_bytes(self.state_bytes, "little")
        mask = self._inputs(part)
        call = self.lib.gdl_part_playouts
        if call(state, count, seed, mask, decisive, self._cones(), goals, steps, fail) < 0:
            raise PlayoutBroke(int.from_bytes(ffi.buffer(fail), "little"))
        return results.read(count, self.roles)

    def touch_masks(self) -> list[int] | None:
        """Per input, the base facts the move touches (`locality.touch_masks`, for the
        local tactics), worked out once: `ggp.gdl.native.attach.attach_native` does it
        while the rules are prepared, so that no search waits for it (chess_200: 1.5 s
        of Python)."""
        with self._touch_lock:
            network, self._touch_network = self._touch_network, None
            if network is not None:
                self._touch = touch_masks(network)
            return self._touch

    def _cones(self) -> Any:
        """The part playouts' cones (``gdl_part_playouts``): per input, the words of the
        next-state bits whose rules read it (`locality.write_masks`), or NULL where the
        rules are too large to read or the table would pass `MAX_CONE_WORDS`."""
        with self._cone_lock:
            network, self._network = self._network, None
            if network is not None:
                self._cone_table = self._cone_words(network)
            return self.ffi.NULL if self._cone_table is None else self._cone_table

    def _cone_words(self, network: Network) -> Any:
        size = self.inputs * self.words
        masks = write_masks(network) if size <= MAX_CONE_WORDS else None
        if masks is None:
            return None
        data = b"".join(mask.to_bytes(self.state_bytes, "little") for mask in masks)
        table = self.ffi.new("uint64_t[]", max(1, size))
        self.ffi.memmove(table, data, len(data))
        return table

    def amaf_playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        tables: Sequence[array | None],
        tree: Tree,
    ) -> list[PlayoutResult]:
        """The playouts of `playouts`, recorded in the AMAF `tables` of a path
        whose tree part played `tree` (`ggp.games.amaf`; slots are input indexes,
        every table at least ``1 + 2 * inputs`` long).  `PlayoutBroke` as for
        `playouts` (and nothing recorded)."""
        ffi = self.ffi
        results, goals, steps, fail = self._buffers(count)
        played = getattr(self._local, "played", None)
        if played is None or len(played) < count * self.played_size:
            played = self._local.played = ffi.new("int[]", max(count, 16) * self.played_size)
        pointers = [
            ffi.NULL if table is None else ffi.from_buffer("double[]", table) for table in tables
        ]
        seed = rng.getrandbits(32)
        state = bits.to_bytes(self.state_bytes, "little")
        if (
            self.lib.gdl_amaf_playouts(
                state,
                count,
                seed,
                0,
                goals,
                steps,
                fail,
                len(tables),
                pointers,
                tree,
                len(tree) // 3,
                played,
            )
            < 0
        ):
            raise PlayoutBroke(int.from_bytes(ffi.buffer(fail), "little"))
        return results.read(count, self.roles)

    def _buffers(self, count: int) -> tuple[_Results, Any, Any, Any]:
        """This thread's result buffers, for `count` playouts at least: the goals and
        steps as Python arrays (read back without a cffi call an item) and the C views
        of them, and the state where the rules break.  Sets the library's missing goal
        to this object's (`count_missing_goals_as`) for the playouts about to run."""
        self.lib.gdl_count_missing_goals_as(self.missing_goal)
        buffers = getattr(self._local, "buffers", None)
        if buffers is None or buffers[0].size < count:
            ffi = self.ffi
            size = max(count, 16)
            results = _Results(
                size, array("i", bytes(4 * size * self.roles)), array("i", bytes(4 * size))
            )
            buffers = self._local.buffers = (
                results,
                ffi.from_buffer("int[]", results.goals),
                ffi.from_buffer("int[]", results.steps),
                ffi.new("uint64_t[]", self.words),
            )
        return buffers


class _Scratch:
    """A thread's buffers for the calls of one state (`NativeRules._scratch`): the
    counts per role and the items a call lists, the state, the input bits of a joint
    move and the next state, each a Python array the library reads or writes through
    a C view of it (so filling one or reading it back makes no C object)."""

    def __init__(self, native: NativeRules) -> None:
        ffi = native.ffi
        most = max(native.moves_max, native.goal_entries, native.percept_entries)
        self.count_items = array("i", bytes(4 * native.roles))
        self.counts = ffi.from_buffer("int[]", self.count_items)
        self.found_items = array("i", bytes(4 * (most + 1)))
        self.found = ffi.from_buffer("int[]", self.found_items)
        state_words = array("Q", bytes(native.state_bytes))
        self.state_bytes = memoryview(state_words).cast("B")
        self.state = ffi.from_buffer("uint64_t[]", state_words)
        does_words = array("Q", bytes(8 * native.input_words))
        self.does_bytes = memoryview(does_words).cast("B")
        self.does = ffi.from_buffer("uint64_t[]", does_words)
        self.out_words = array("Q", bytes(native.state_bytes))
        self.out = ffi.from_buffer("uint64_t[]", self.out_words)


class _RandomResults:
    """A thread's results of `NativeRules.random_playouts`: room for `size` playouts,
    the goals (one per role) and then the steps of each in one array, read back by a
    `struct.Struct` per count of playouts."""

    def __init__(self, native: NativeRules) -> None:
        self._ffi = native.ffi
        self._roles = native.roles
        self.fail = native.ffi.new("uint64_t[]", native.words)
        self._readers: dict[int, struct.Struct] = {}
        self.unpack_one = struct.Struct(f"{self._roles + 1}i").unpack_from
        self.size = 0
        self.grow(16)

    def grow(self, size: int) -> None:
        """Room for `size` playouts at least."""
        self.size = max(size, 2 * self.size)
        self.array = array("i", bytes(4 * self.size * (self._roles + 1)))
        self.results = self._ffi.from_buffer("int[]", self.array)

    def read(self, count: int) -> list[PlayoutResult]:
        """The first `count` playouts' goals and steps, as a call filled them."""
        roles = self._roles
        if count == 1:
            values = self.unpack_one(self.array)
            return [(values[:roles], values[roles])]
        reader = self._readers.get(count)
        if reader is None:
            reader = self._readers[count] = struct.Struct(f"{count * (roles + 1)}i")
        values = reader.unpack_from(self.array)
        steps = count * roles
        return [(values[i * roles : (i + 1) * roles], values[steps + i]) for i in range(count)]


class _Results(NamedTuple):
    """A thread's result arrays: room for `size` playouts' goals (one per role) and steps."""

    size: int
    goals: array
    steps: array

    def read(self, count: int, roles: int) -> list[PlayoutResult]:
        """The first `count` playouts' goals and steps, as a call filled them."""
        goals, steps = self.goals, self.steps
        if count == 1:
            return [(tuple(goals[0:roles]), steps[0])]
        return [(tuple(goals[i * roles : (i + 1) * roles]), steps[i]) for i in range(count)]
