"""The tactical search of a game's native library (`ggp.gdl.native.tactics_source`).

`NativeTactics` holds one role's transposition table over a match and asks the
library's ``gdl_tactics`` for the forced wins and losses of that role's moves at a
state; `ggp.player.search.tactics` turns the answer into its `Verdict`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ggp.gdl.native.rules import NativeRules

TABLE_BYTES = 32 << 20
"""Bytes of a transposition table at most (entries: the largest power of two that fits)."""


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


class NativeTactics:
    """Role `role`'s tactical search over `native`, with its own transposition table."""

    def __init__(self, native: NativeRules, role: int, table_bytes: int = TABLE_BYTES) -> None:
        if not 0 <= role < native.roles:
            raise ValueError(f"no role {role} in a game of {native.roles} roles")
        self.native = native
        self.role = role
        words = native.lib.gdl_tactics_entry_words()
        entries = 1
        while entries * 2 * words * 8 <= table_bytes:
            entries *= 2
        self.entries = entries
        self.table: Any = native.ffi.new("uint64_t[]", entries * words)
        self._info: Any = native.ffi.new("int64_t[]", 3)
        self._wins: Any = native.ffi.new("int[]", native.moves_max + 1)
        self._losses: Any = native.ffi.new("int[]", native.moves_max + 1)

    def search(self, bits: int, max_depth: int, budget: int, deadline: float) -> Found | None:
        """The role's moves at the state `bits` proven to win or lose within `max_depth`
        plies, deepening a ply at a time until `budget` states are made or `deadline`
        (`time.monotonic`); None where nothing can be searched (a terminal state, a role
        without moves, too many joint moves)."""
        native = self.native
        state = native.ffi.from_buffer("uint64_t[]", bits.to_bytes(native.state_bytes, "little"))
        count = native.lib.gdl_tactics(
            state,
            self.role,
            max_depth,
            budget,
            deadline,
            self.table,
            self.entries,
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
