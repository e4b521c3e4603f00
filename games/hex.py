"""Hex on a SIZE x SIZE rhombus of hexagons (option ``size``, default 7).

Roles ``red`` (moves first) and ``blue``.  Rows are letters ``a``, ``b``, ...
from top to bottom, columns numbers 1..SIZE from left to right; a move is
``(place ROW COL)`` (e.g. ``(place c 4)``), and ``noop`` for the role not on
move.  Facts: ``(cell ROW COL red|blue)`` for every stone, and
``(control ROLE)``.  Each row sits half a cell to the right of the row above,
so cell (r, c) touches (r, c-1), (r, c+1), (r-1, c), (r-1, c+1), (r+1, c-1)
and (r+1, c).  Red connects the top row with the bottom row; blue connects
column 1 with column SIZE.  The first to connect wins (100 to the winner, 0 to
the loser; both have 0 before the end).  A full board always holds exactly one
connection, so Hex has no draw.  There is no swap (pie) rule.

These are the rules, roles, moves and cell facts of the public ``hex.kif``
(size 9).  That file also records its connection tracking in the state
(groups numbered by the move that last grew them); that is left out here, so a
state is the position alone, whatever the move order that led to it, and a GDL
twin finds connections with a recursive rule instead.
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, PlayoutResult, check_joint
from ggp.games.board_facts import read_board_facts
from ggp.games.playouts import FastRandomState

ROLES = ("red", "blue")
DEFAULT_SIZE = 7
MAX_SIZE = 26
"""Rows are named by single letters."""
NOOP = ("noop",)


class Hex(Game):
    """Hex, with per-size tables of cell names, bits and neighbours.

    Two cell numberings are used: a dense index ``r * size + c`` for lists,
    and a bit ``r * (size + 1) + c`` for bitboards, where the unused column
    ``size`` keeps the six neighbour shifts from wrapping around a row.
    """

    roles = ROLES

    def __init__(self, *, size: int = DEFAULT_SIZE) -> None:
        if not 1 <= size <= MAX_SIZE:
            raise GameError(f"hex: size must be 1..{MAX_SIZE}, got {size}")
        self.size = size
        self.name = "hex" if size == DEFAULT_SIZE else f"hex:size={size}"
        self.width = width = size + 1
        cells = [(r, c) for r in range(size) for c in range(size)]
        self.cell_names = tuple(f"{string.ascii_lowercase[r]} {c + 1}" for r, c in cells)
        self.bits = tuple(1 << (r * width + c) for r, c in cells)
        self.dense = {bit: k for k, bit in enumerate(self.bits)}
        self.move_text = tuple(f"(place {name})" for name in self.cell_names)
        self.move_index = {text: k for k, text in enumerate(self.move_text)}
        self.sorted_moves = tuple(sorted(zip(self.move_text, self.bits, strict=True)))
        self.neighbours = tuple(
            tuple(
                (r + dr) * size + c + dc
                for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
                if 0 <= r + dr < size and 0 <= c + dc < size
            )
            for r, c in cells
        )
        row = sum(1 << c for c in range(size))
        column = sum(1 << (r * width) for r in range(size))
        self.sides = (
            (row, row << ((size - 1) * width)),  # red: top row, bottom row
            (column, column << (size - 1)),  # blue: left column, right column
        )
        self.side_flags = tuple(
            tuple((1 if bit & first else 0) | (2 if bit & last else 0) for bit in self.bits)
            for first, last in self.sides
        )  # per role and dense cell: 1 on the role's first side, 2 on its last

    def initial_state(self) -> HexState:
        return HexState(self, (0, 0), 0, None)

    def group(self, seed: int, stones: int) -> int:
        """The stones of `stones` connected to the cells of `seed` (bitboards)."""
        width = self.width
        group = seed & stones
        while True:
            grown = (
                group
                | group << 1
                | group >> 1
                | group << width
                | group >> width
                | group << (width - 1)
                | group >> (width - 1)
            ) & stones
            if grown == group:
                return group
            group = grown

    def connects(self, role: int, stones: int, seed: int | None = None) -> bool:
        """Whether `stones` of `role` join its two sides (through `seed` if given)."""
        first, last = self.sides[role]
        group = self.group(first if seed is None else seed, stones)
        return bool(group & first and group & last)

    def state_from_facts(self, facts: Sequence[str]) -> HexState:
        def square(x: str, y: str) -> int | None:
            k = self.move_index.get(f"(place {x} {y})")
            return None if k is None else self.bits[k].bit_length() - 1

        stones, mover = read_board_facts(
            facts, game=self.name, relation="cell", roles=ROLES, square=square
        )
        # At most one role connects: a red chain and a blue chain would cross.
        winner = next((role for role in (0, 1) if self.connects(role, stones[role])), None)
        return HexState(self, (stones[0], stones[1]), mover, winner)


class HexState(FastRandomState):
    """Stone bitboards per role, the role on move, and the winner (or None)."""

    __slots__ = ("_game", "stones", "mover", "winner", "_legal")

    def __init__(self, game: Hex, stones: tuple[int, int], mover: int, winner: int | None) -> None:
        self._game = game
        self.stones = stones
        self.mover = mover
        self.winner = winner
        self._legal: tuple[str, ...] | None = None

    @property
    def game(self) -> Hex:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.winner is not None:
            return ()
        if role != self.mover:
            return NOOP
        if self._legal is None:
            occupied = self.stones[0] | self.stones[1]
            self._legal = tuple(text for text, bit in self._game.sorted_moves if not occupied & bit)
        return self._legal

    def next(self, joint: Sequence[str]) -> HexState:
        game, mover = self._game, self.mover
        k = game.move_index.get(joint[mover]) if len(joint) == 2 else None
        if (
            k is None
            or joint[1 - mover] != "noop"
            or self.winner is not None
            or (self.stones[0] | self.stones[1]) & game.bits[k]
        ):
            check_joint(self, joint)  # raises the error that says why
        bit = game.bits[k]
        own = self.stones[mover] | bit
        stones = (own, self.stones[1]) if mover == 0 else (self.stones[0], own)
        winner = mover if game.connects(mover, own, bit) else None
        after = HexState(game, stones, 1 - mover, winner)
        if self._legal is not None:  # the same moves but one, without a scan of the board
            i = self._legal.index(game.move_text[k])
            after._legal = self._legal[:i] + self._legal[i + 1 :]
        return after

    def is_terminal(self) -> bool:
        return self.winner is not None

    def goals(self) -> Goals:
        if self.winner is None:
            return (0, 0)
        return (100, 0) if self.winner == 0 else (0, 100)

    def key(self) -> str:
        return f"{self.stones[0]:x} {self.stones[1]:x} {self.mover}"

    def facts(self) -> tuple[str, ...]:
        game = self._game
        facts = [
            f"(cell {name} {role})"
            for name, bit in zip(game.cell_names, game.bits, strict=True)
            for role, stones in zip(ROLES, self.stones, strict=True)
            if stones & bit
        ]
        facts.append(f"(control {ROLES[self.mover]})")
        return tuple(sorted(facts))

    def fast_random_playout(self, rng: random.Random) -> PlayoutResult:
        """Random stones with a union-find of groups that knows which sides each touches."""
        if self.winner is not None:
            return self.goals(), 0
        game = self._game
        cells = len(game.bits)
        colour = [-1] * cells
        parent = list(range(cells))
        touches = [0] * cells
        occupied = self.stones[0] | self.stones[1]
        empty = [k for k, bit in enumerate(game.bits) if not occupied & bit]
        for role, stones in enumerate(self.stones):
            while stones:
                bit = stones & -stones  # the lowest stone
                stones ^= bit
                k = game.dense[bit]
                _place(k, role, colour, parent, touches, game.neighbours, game.side_flags)
        role, steps, draw = self.mover, 0, rng.random
        while True:
            i = int(draw() * len(empty))
            k = empty[i]
            empty[i] = empty[-1]
            empty.pop()
            steps += 1
            if _place(k, role, colour, parent, touches, game.neighbours, game.side_flags):
                return ((100, 0) if role == 0 else (0, 100)), steps
            role = 1 - role

    def render(self) -> str:
        game = self._game
        size = game.size
        columns = [str(c + 1) for c in range(size)]
        out = []
        if size >= 10:  # two-digit columns: tens above units
            out.append("  " + "".join(f" {c[0] if len(c) == 2 else ' '}" for c in columns))
        out.append("  " + "".join(f" {c[-1]}" for c in columns))
        for r in range(size):
            red, blue = self.stones
            symbols = "".join(
                " R" if red & bit else " B" if blue & bit else " ."
                for bit in game.bits[r * size : r * size + size]
            )
            out.append(" " * r + f"{string.ascii_lowercase[r]} {symbols}")
        last_row = string.ascii_lowercase[size - 1]
        out.append(f"R = red, joins row a (top) and row {last_row} (bottom)")
        out.append(f"B = blue, joins column 1 (left) and column {size} (right)")
        out.append("Moves: (place ROW COL)")
        return "\n".join(out)


def _place(
    k: int,
    role: int,
    colour: list[int],
    parent: list[int],
    touches: list[int],
    neighbours: tuple[tuple[int, ...], ...],
    side_flags: tuple[tuple[int, ...], ...],
) -> bool:
    """Put a stone of `role` on dense cell `k` of a union-find; whether it wins.

    The new stone becomes the root of its group; `touches` of a root holds
    which of the role's sides the group reaches (1 first, 2 last, 3 both).
    """
    colour[k] = role
    sides = side_flags[role][k]
    for other in neighbours[k]:
        if colour[other] == role:
            root = other
            while parent[root] != root:
                parent[root] = parent[parent[root]]
                root = parent[root]
            if root != k:
                parent[root] = k
                sides |= touches[root]
    touches[k] = sides
    return sides == 3
