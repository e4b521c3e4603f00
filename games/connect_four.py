"""Connect Four on a board of any size, with the names of ggp.org's ``connectFour``.

Roles ``red`` (moves first) and ``black``; moves ``(drop COL)`` with COL in
1..width, and ``noop`` for the role not on move; facts ``(cell COL ROW ROLE)``
for the occupied cells only (ROW 1 is the bottom row) and ``(control ROLE)``.
A line of `line` discs of one role in a row, column or diagonal wins (100 to
its role, 0 to the other); a full board without one is a draw (50 each).
Before the end both goals are 0, as in the GDL.

The public ``connectFour.kif`` is this game with ``width=8`` (same names, same
facts), so its recorded playouts check these rules exactly; ``conn4.kif`` is
the 7x6 default under other names (roles white/black, marks x/o, blank cells
as facts) and checks the default size through a renaming.

The board is a bitboard per role: column c (0-based) holds bits
``c*(height+1) .. c*(height+1)+height-1`` from the bottom up, and the spare top
bit of every column stays clear, so shifted lines never wrap to the next column.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, PlayoutResult, check_joint
from ggp.games.board_facts import read_board_facts
from ggp.games.playouts import FastRandomState

ROLES = ("red", "black")
NOOP = ("noop",)
WIN = ((100, 0), (0, 100))
DRAW = (50, 50)
UNDECIDED = (0, 0)
WIDTH, HEIGHT, LINE = 7, 6, 4
"""The default options."""


def line_shifts(direction: int, line: int) -> tuple[int, ...]:
    """The shifts that turn a bitboard into "a run of `line` starts here" along `direction`.

    After ``run &= run >> shift`` for each shift, a bit is set where `line`
    bits spaced `direction` apart are all set; the run doubles at each step.
    """
    shifts = []
    have = 1
    while have < line:
        step = min(have, line - have)
        shifts.append(step * direction)
        have += step
    return tuple(shifts)


class ConnectFour(Game):
    """Connect Four; options `width`, `height` and `line` (how many in a row win)."""

    roles = ROLES

    def __init__(self, *, width: int = WIDTH, height: int = HEIGHT, line: int = LINE) -> None:
        if width < 1 or height < 1:
            raise GameError(
                f"connect_four: width and height must be at least 1, got {width}x{height}"
            )
        if not 1 <= line <= max(width, height):
            raise GameError(
                f"connect_four: line must be 1..{max(width, height)} on a {width}x{height} "
                f"board, got {line}"
            )
        self.width = width
        self.height = height
        self.line = line
        options = {"height": (height, HEIGHT), "line": (line, LINE), "width": (width, WIDTH)}
        changed = [
            f"{key}={value}" for key, (value, default) in options.items() if value != default
        ]
        self.name = "connect_four" + (":" + ",".join(changed) if changed else "")
        self.stride = height + 1
        self.moves = tuple(f"(drop {column + 1})" for column in range(width))
        self.column_of = {move: column for column, move in enumerate(self.moves)}
        self.full = sum(((1 << height) - 1) << (column * self.stride) for column in range(width))
        """The bits of all the cells: the board is full when the discs cover them."""
        self.move_order = tuple(sorted(range(width), key=self.moves.__getitem__))
        self.line_shifts = tuple(
            line_shifts(direction, line)
            for direction in (1, self.stride, self.stride - 1, self.stride + 1)
        )

    def has_line(self, bits: int) -> bool:
        """Whether the discs in `bits` include a line."""
        for shifts in self.line_shifts:
            run = bits
            for shift in shifts:
                run &= run >> shift
            if run:
                return True
        return False

    def initial_state(self) -> ConnectFourState:
        return ConnectFourState(self, (0, 0), (0,) * self.width, 0, None)

    def state_from_facts(self, facts: Sequence[str]) -> ConnectFourState:
        def square(x: str, y: str) -> int | None:
            column, row = _index(x, self.width), _index(y, self.height)
            return None if column is None or row is None else column * self.stride + row

        bits, mover = read_board_facts(
            facts, game=self.name, relation="cell", roles=ROLES, square=square
        )
        occupied = bits[0] | bits[1]
        heights = []
        for column in range(self.width):
            discs = occupied >> (column * self.stride) & ((1 << self.height) - 1)
            if discs & (discs + 1):
                raise GameError(f"{self.name}: column {column + 1} has a gap under a disc")
            heights.append(discs.bit_length())
        lines = [role for role in (0, 1) if self.has_line(bits[role])]
        if len(lines) == 2:
            raise GameError(f"{self.name}: both roles have a line; no game reaches that")
        return ConnectFourState(
            self, (bits[0], bits[1]), tuple(heights), mover, (lines or [None])[0]
        )


def _index(text: str, size: int) -> int | None:
    """The 0-based index written as `text` (1..size, canonical digits), or None."""
    if text.isdigit() and str(int(text)) == text and 1 <= int(text) <= size:
        return int(text) - 1
    return None


class ConnectFourState(FastRandomState):
    __slots__ = ("_game", "bits", "heights", "mover", "winner", "_legal")

    def __init__(
        self,
        game: ConnectFour,
        bits: tuple[int, int],
        heights: tuple[int, ...],
        mover: int,
        winner: int | None,
    ) -> None:
        self._game = game
        self.bits = bits
        self.heights = heights
        self.mover = mover
        self.winner = winner
        self._legal: tuple[str, ...] | None = None

    @property
    def game(self) -> ConnectFour:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.is_terminal():
            return ()
        if role != self.mover:
            return NOOP
        if self._legal is None:
            game, heights = self._game, self.heights
            self._legal = tuple(
                game.moves[column] for column in game.move_order if heights[column] < game.height
            )
        return self._legal

    def next(self, joint: Sequence[str]) -> ConnectFourState:
        check_joint(self, joint)
        game = self._game
        mover = self.mover
        column = game.column_of[joint[mover]]
        height = self.heights[column]
        bits = list(self.bits)
        bits[mover] |= 1 << (column * game.stride + height)
        heights = self.heights[:column] + (height + 1,) + self.heights[column + 1 :]
        winner = mover if game.has_line(bits[mover]) else None
        return ConnectFourState(game, (bits[0], bits[1]), heights, 1 - mover, winner)

    def is_terminal(self) -> bool:
        return self.winner is not None or self.bits[0] | self.bits[1] == self._game.full

    def goals(self) -> Goals:
        if self.winner is not None:
            return WIN[self.winner]
        return DRAW if self.bits[0] | self.bits[1] == self._game.full else UNDECIDED

    def key(self) -> str:
        return f"{self.bits[0]:x}.{self.bits[1]:x}.{self.mover}"

    def facts(self) -> tuple[str, ...]:
        game = self._game
        facts = [f"(control {ROLES[self.mover]})"]
        for column, height in enumerate(self.heights):
            for row in range(height):
                bit = 1 << (column * game.stride + row)
                role = ROLES[0] if self.bits[0] & bit else ROLES[1]
                facts.append(f"(cell {column + 1} {row + 1} {role})")
        return tuple(sorted(facts))

    def fast_random_playout(
        self, rng: random.Random, joints: list[tuple[str, str]] | None = None
    ) -> PlayoutResult:
        """A uniformly random playout on the bitboards.

        If `joints` is a list, the joint moves played are appended to it (for tests).
        """
        if self.is_terminal():
            return self.goals(), 0
        game = self._game
        height, stride, has_line, moves = game.height, game.stride, game.has_line, game.moves
        bits = list(self.bits)
        heights = list(self.heights)
        open_columns = [column for column in range(game.width) if heights[column] < height]
        mover = self.mover
        steps = 0
        uniform = rng.random
        while open_columns:
            index = int(uniform() * len(open_columns))
            column = open_columns[index]
            row = heights[column]
            played = bits[mover] | 1 << (column * stride + row)
            bits[mover] = played
            steps += 1
            if joints is not None:
                joints.append((moves[column], "noop") if mover == 0 else ("noop", moves[column]))
            if has_line(played):
                return WIN[mover], steps
            heights[column] = row + 1
            if row + 1 == height:
                del open_columns[index]
            mover ^= 1
        return DRAW, steps

    def render(self) -> str:
        game = self._game
        width = len(str(game.width)) + 1
        rows = ["".join(f"{column + 1:>{width}}" for column in range(game.width))]
        for row in reversed(range(game.height)):
            cells = []
            for column in range(game.width):
                bit = 1 << (column * game.stride + row)
                mark = "R" if self.bits[0] & bit else "B" if self.bits[1] & bit else "."
                cells.append(f"{mark:>{width}}")
            rows.append("".join(cells))
        turn = "game over" if self.is_terminal() else f"{ROLES[self.mover]} to move"
        rows.append(f"(drop COLUMN); R is red, B is black; {turn}")
        return "\n".join(rows)
