"""The tactical search of a game's native library (`ggp.gdl.native.tactics_source`).

`NativeTactics` holds one role's transposition tables over a match and asks the
library's ``gdl_tactics`` for the forced wins and losses of that role's moves at a
state, full-width or local (`ggp.gdl.native.locality`), and ``gdl_pn_loss`` whether
one move loses by force, by proof-number search (`ggp.gdl.native.proof_number_source`);
`ggp.player.search.tactics` turns the answers into its `Verdict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ggp.gdl.native.rules import NativeRules
from ggp.gdl.native.tactics_source import TACTICS_JOINTS

TABLE_BYTES = 16 << 20
"""Bytes of a transposition table at most (entries: the largest power of two that fits)."""

ARENA_WORDS = 1 << 20
"""64-bit words the proof-number search keeps the successors of its path in (8 MB)."""


MASK64 = (1 << 64) - 1

STACK_BYTES = 1 << 20
"""Bytes of the caller's stack the deepening's recursion may take at most: a ply is a
frame of `frame_bytes` (the search runs on the search worker's main thread, whose stack
is 8 MB where ``ulimit -s`` is Linux's default)."""


def frame_bytes(native: NativeRules) -> int:
    """An upper estimate of the stack one ply of ``gdl_tactics``'s recursion takes on
    `native` (the locals of ``tactics_node`` and ``tactics_child``: the legal moves, the
    two sides' orders of at most `TACTICS_JOINTS` joint moves, a joint move and three
    states)."""
    ints = native.moves_max + 1 + 2 * TACTICS_JOINTS + 4 * native.roles + 8
    return 4 * ints + 8 * (native.input_words + 3 * native.words) + 256


def deepest(native: NativeRules, stack_bytes: int = STACK_BYTES) -> int:
    """The most plies the deepening searches on `native` within `stack_bytes`."""
    return max(1, stack_bytes // frame_bytes(native))


class Found(NamedTuple):
    """What one call proved: per legal move of the role (in the order of its input
    indexes), the plies within which it wins or loses (0: not proven)."""

    wins: list[int]
    losses: list[int]
    nodes: int
    """Successor states made."""
    depth: int
    """Plies searched completely."""
    finished: bool
    """Whether the search ended by itself (not out of budget or time)."""


def table_entries(words: int, table_bytes: int) -> int:
    """The entries of `words` 64-bit words each in a table of at most `table_bytes`: the
    largest power of two that fits (the library's tables find a state by its hash's low
    bits)."""
    entries = 1
    while entries * 2 * words * 8 <= table_bytes:
        entries *= 2
    return entries


class LossProof(NamedTuple):
    """What one proof-number search of a move said (`NativeTactics.loss_proof`)."""

    proven: bool
    """Whether the others can force the role's loss after the move."""
    plies: int
    """With a proof: the plies of the proof found, the move's included (not the fewest)."""
    nodes: int
    """Successor states made."""
    finished: bool
    """Whether the search ended by itself (not out of budget or time)."""


class NativeTactics:
    """Role `role`'s tactical search over `native`, with its own transposition table;
    with `touch` (per input index, the bits of the facts its move touches), a local
    search too, with a table of its own."""

    def __init__(
        self,
        native: NativeRules,
        role: int,
        touch: Sequence[int] | None = None,
        table_bytes: int = TABLE_BYTES,
    ) -> None:
        if not 0 <= role < native.roles:
            raise ValueError(f"no role {role} in a game of {native.roles} roles")
        if touch is not None and len(touch) != native.inputs:
            raise ValueError(f"{len(touch)} touch masks for {native.inputs} inputs")
        self.native = native
        self.role = role
        ffi = native.ffi
        words = native.lib.gdl_tactics_entry_words()
        self.entries = entries = table_entries(words, table_bytes)
        self.table: Any = ffi.new("uint64_t[]", entries * words)
        self.touch: Any = None
        self.local_table: Any = None
        if touch is not None:
            words_of = native.words
            self.touch = ffi.new(
                "uint64_t[]",
                [mask >> (64 * w) & MASK64 for mask in touch for w in range(words_of)],
            )
            self.local_table = ffi.new("uint64_t[]", entries * words)
        self.table_bytes = table_bytes
        self.pn_table: Any = None
        """The proof-number search's table and arena, made at its first search."""
        self.pn_arena: Any = None
        self.pn_entries = 0
        self._info: Any = native.ffi.new("int64_t[]", 3)
        self._wins: Any = native.ffi.new("int[]", native.moves_max + 1)
        self._losses: Any = native.ffi.new("int[]", native.moves_max + 1)
        self.deepest = deepest(native)
        """Plies `search` deepens to at most, whatever it is asked, and the longest path
        `loss_proof` follows (`STACK_BYTES`: ``gdl_tactics``'s frame is the larger)."""

    def search(
        self,
        bits: int,
        max_depth: int,
        budget: int,
        deadline: float,
        local: bool = False,
        only: int | None = None,
    ) -> Found | None:
        """The role's moves at the state `bits` proven to win or lose within `max_depth`
        plies (at most `deepest`), deepening a ply at a time until `budget` states are made
        or `deadline` (`time.monotonic`); None where nothing can be searched (a terminal
        state, a role without moves, too many joint moves, `only` not a move).  `local`:
        the local search (needs touch masks); `only`: the role's move of that index alone."""
        if local and self.touch is None:
            raise ValueError("a local search needs the moves' touch masks")
        native = self.native
        state = native.ffi.from_buffer("uint64_t[]", bits.to_bytes(native.state_bytes, "little"))
        count = native.lib.gdl_tactics(
            state,
            self.role,
            min(max_depth, self.deepest),
            budget,
            deadline,
            self.local_table if local else self.table,
            self.entries,
            self.touch if local else native.ffi.NULL,
            -1 if only is None else only,
            self._wins,
            self._losses,
            self._info,
        )
        if count < 0:
            return None
        info = self._info
        return Found(
            list(self._wins[0:count]),
            list(self._losses[0:count]),
            int(info[0]),
            int(info[1]),
            bool(info[2]),
        )

    def loss_proof(self, bits: int, only: int, budget: int, deadline: float) -> LossProof | None:
        """Whether the other roles can force the role's loss after its move of position
        `only` in its list at the state `bits`, by proof-number search until `budget`
        states are made or `deadline` (`time.monotonic`), its table kept from call to
        call; None where nothing can be searched (a terminal state, a role without
        moves, too many joint moves, `only` not a move)."""
        native = self.native
        ffi = native.ffi
        if self.pn_table is None:
            words = native.lib.gdl_pn_entry_words()
            self.pn_entries = table_entries(words, self.table_bytes)
            self.pn_table = ffi.new("uint64_t[]", self.pn_entries * words)
            self.pn_arena = ffi.new("uint64_t[]", ARENA_WORDS)
        state = ffi.from_buffer("uint64_t[]", bits.to_bytes(native.state_bytes, "little"))
        status = native.lib.gdl_pn_loss(
            state,
            self.role,
            only,
            self.deepest,
            budget,
            deadline,
            self.pn_table,
            self.pn_entries,
            self.pn_arena,
            ARENA_WORDS,
            self._info,
        )
        if status == -2:
            return None
        info = self._info
        return LossProof(status == 1, int(info[1]), int(info[0]), status >= 0)
