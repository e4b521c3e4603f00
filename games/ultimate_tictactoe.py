"""Ultimate tic-tac-toe: nine tic-tac-toe boards laid out in a 3x3 big board.

A cell is named by four numbers 1..3: ``BOARDROW BOARDCOL`` (which small
board, in the big board) and ``ROW COL`` (which cell, in that small board).
Roles ``xplayer`` (moves first, anywhere) and ``oplayer``; moves
``(mark BOARDROW BOARDCOL ROW COL)`` and ``noop`` for the role not on move.
Facts: ``(cell BOARDROW BOARDCOL ROW COL x|o|b)`` for all 81 cells,
``(control ROLE)``, and after the first move ``(target ROW COL)``: the ROW COL
of the last mark, which names the small board the player on move is sent to.

A small board is finished once it is won (a line of three) or full, and
takes no more marks.  If the target board is finished, or there is no target
yet, the player marks any empty cell of any unfinished board.  Three won small
boards in a line win the game (100 to the winner, 0 to the loser); when every
small board is finished without such a line, it is a draw (50 each, which is
also the goal value of both roles before the end).

The cell naming keeps a GDL twin small: the target is copied from the move
itself, and small-board lines are tic-tac-toe lines with two more arguments.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, PlayoutResult, check_joint
from ggp.games.playouts import FastRandomState
from ggp.games.tictactoe import LINES

ROLES = ("xplayer", "oplayer")
MARKS = ("x", "o")
OPEN, FULL = "b", "d"
"""Small-board status: open, or full without a line (else the winner's mark)."""


def _coords(index: int) -> str:
    """``BOARDROW BOARDCOL ROW COL`` of cell `index` = 9 * board + position."""
    board, position = divmod(index, 9)
    return f"{board // 3 + 1} {board % 3 + 1} {position // 3 + 1} {position % 3 + 1}"


MOVE_TEXT = tuple(f"(mark {_coords(i)})" for i in range(81))
"""Move texts by cell index; index order is also sorted string order."""
MOVE_INDEX = {text: i for i, text in enumerate(MOVE_TEXT)}
CELL_PREFIX = tuple(f"(cell {_coords(i)} " for i in range(81))
NOOP = ("noop",)

# A 3x3 board (nine cells, or the nine statuses of the big board) is read as a
# 9-bit mask by translating it to 0s and 1s and parsing that in base 2, so
# position i (0..8, row by row) is bit 8 - i.
BIT = tuple(1 << (8 - i) for i in range(9))
EMPTY_BITS = str.maketrans({OPEN: "1", "x": "0", "o": "0", FULL: "0"})
MARK_BITS = {
    mark: str.maketrans({c: "1" if c == mark else "0" for c in (OPEN, "x", "o", FULL)})
    for mark in MARKS
}
LINE_MASKS = tuple(BIT[a] | BIT[b] | BIT[c] for a, b, c in LINES)
WINS = tuple(any(mask & line == line for line in LINE_MASKS) for mask in range(512))
"""Whether a 9-bit mask holds a line of three."""
BOARD_MOVES = tuple(
    tuple(tuple(MOVE_TEXT[9 * b + i] for i in range(9) if mask & BIT[i]) for mask in range(512))
    for b in range(9)
)
"""The moves of small board b whose empty cells make the 9-bit mask."""


def has_line(cells: str, mark: str) -> bool:
    """Whether `mark` has a line of three in the nine `cells` (or statuses)."""
    return WINS[int(cells.translate(MARK_BITS[mark]), 2)]


def line_owner(cells: str) -> str | None:
    """The mark with a line of three in the nine `cells` (or statuses), if any."""
    return next((mark for mark in MARKS if has_line(cells, mark)), None)


def small_board_status(cells: str) -> str:
    """The status of a small board from its nine cells (x, o, or b)."""
    if has_line(cells, "x") and has_line(cells, "o"):
        raise GameError(f"a small board has lines of both marks: {cells}")
    return line_owner(cells) or (OPEN if OPEN in cells else FULL)


class UltimateTicTacToe(Game):
    name = "ultimate_tictactoe"
    roles = ROLES

    def initial_state(self) -> UltimateState:
        return UltimateState(self, OPEN * 81, OPEN * 9, -1, 0, None)

    def state_from_facts(self, facts: Sequence[str]) -> UltimateState:
        board = [""] * 81
        mover = None
        target = -1
        for fact in facts:
            parts = fact.strip("()").split() or [""]
            if parts[0] == "cell" and len(parts) == 6:
                index = MOVE_INDEX.get(f"(mark {' '.join(parts[1:5])})")
                if index is not None and parts[5] in ("x", "o", OPEN):
                    board[index] = parts[5]
                    continue
            elif parts[0] == "control" and len(parts) == 2 and parts[1] in ROLES:
                mover = ROLES.index(parts[1])
                continue
            elif parts[0] == "target" and len(parts) == 3:
                index = MOVE_INDEX.get(f"(mark 1 1 {parts[1]} {parts[2]})")
                if index is not None:
                    target = index
                    continue
            raise GameError(f"not an ultimate tic-tac-toe fact: {fact!r}")
        if "" in board or mover is None:
            raise GameError("ultimate tic-tac-toe facts need all 81 cells and a control fact")
        cells = "".join(board)
        status = "".join(small_board_status(cells[9 * b : 9 * b + 9]) for b in range(9))
        if has_line(status, "x") and has_line(status, "o"):
            raise GameError("both players have a line of won small boards")
        return UltimateState(self, cells, status, target, mover, line_owner(status))


class UltimateState(FastRandomState):
    """The 81 cells (``x``, ``o``, ``b``), the nine small-board statuses, the
    target position (-1 before the first move), the role on move, the winner."""

    __slots__ = ("_game", "board", "status", "target", "mover", "winner", "_legal")

    def __init__(
        self,
        game: UltimateTicTacToe,
        board: str,
        status: str,
        target: int,
        mover: int,
        winner: str | None,
    ) -> None:
        self._game = game
        self.board = board
        self.status = status
        self.target = target
        self.mover = mover
        self.winner = winner
        self._legal: tuple[str, ...] | None = None

    @property
    def game(self) -> UltimateTicTacToe:
        return self._game

    def open_boards(self) -> tuple[int, ...]:
        """The small boards the player on move may mark in (none at the end)."""
        if self.winner is not None:
            return ()
        if self.target >= 0 and self.status[self.target] == OPEN:
            return (self.target,)
        return tuple(b for b, status in enumerate(self.status) if status == OPEN)

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if role != self.mover:
            return () if self.is_terminal() else NOOP
        if self._legal is None:
            board = self.board
            self._legal = tuple(
                itertools.chain.from_iterable(
                    BOARD_MOVES[b][int(board[9 * b : 9 * b + 9].translate(EMPTY_BITS), 2)]
                    for b in self.open_boards()
                )
            )
        return self._legal

    def _allows(self, index: int) -> bool:
        board = index // 9
        return (
            self.winner is None
            and self.board[index] == OPEN
            and self.status[board] == OPEN
            and (self.target < 0 or board == self.target or self.status[self.target] != OPEN)
        )

    def next(self, joint: Sequence[str]) -> UltimateState:
        mover = self.mover
        index = MOVE_INDEX.get(joint[mover]) if len(joint) == 2 else None
        if index is None or joint[1 - mover] != "noop" or not self._allows(index):
            check_joint(self, joint)  # raises the error that says why
        mark = MARKS[mover]
        board = self.board[:index] + mark + self.board[index + 1 :]
        small, position = divmod(index, 9)
        status, winner = self.status, None
        cells = board[9 * small : 9 * small + 9]
        if has_line(cells, mark):
            status = status[:small] + mark + status[small + 1 :]
            winner = mark if has_line(status, mark) else None
        elif OPEN not in cells:
            status = status[:small] + FULL + status[small + 1 :]
        return UltimateState(self._game, board, status, position, 1 - mover, winner)

    def is_terminal(self) -> bool:
        return self.winner is not None or OPEN not in self.status

    def goals(self) -> Goals:
        if self.winner is None:
            return (50, 50)
        return (100, 0) if self.winner == "x" else (0, 100)

    def key(self) -> str:
        return f"{self.board}{self.target + 1}{self.mover}"

    def facts(self) -> tuple[str, ...]:
        # Already sorted: cells in index order, then control, then target.
        facts = [f"{prefix}{c})" for prefix, c in zip(CELL_PREFIX, self.board, strict=True)]
        facts.append(f"(control {ROLES[self.mover]})")
        if self.target >= 0:
            facts.append(f"(target {self.target // 3 + 1} {self.target % 3 + 1})")
        return tuple(facts)

    def fast_random_playout(self, rng: random.Random) -> PlayoutResult:
        """Random marks on lists of empty positions and 9-bit masks of marks."""
        if self.is_terminal():
            return self.goals(), 0
        board = self.board
        empty = [[i for i in range(9) if board[9 * b + i] == OPEN] for b in range(9)]
        unfinished = [b for b in range(9) if self.status[b] == OPEN]
        is_open = [status == OPEN for status in self.status]
        marks = [
            [int(board[9 * b : 9 * b + 9].translate(MARK_BITS[mark]), 2) for b in range(9)]
            for mark in MARKS
        ]
        won = [int(self.status.translate(MARK_BITS[mark]), 2) for mark in MARKS]
        target, mover, steps = self.target, self.mover, 0
        draw = rng.random
        while True:
            if target >= 0 and is_open[target]:
                small = target
                k = int(draw() * len(empty[small]))
            else:  # free choice: uniform over every empty cell of every open board
                k = int(draw() * sum(len(empty[b]) for b in unfinished))
                for small in unfinished:
                    if k < len(empty[small]):
                        break
                    k -= len(empty[small])
            cells = empty[small]
            position = cells[k]
            cells[k] = cells[-1]
            cells.pop()
            steps += 1
            own = marks[mover]
            own[small] |= BIT[position]
            if WINS[own[small]]:
                is_open[small] = False
                unfinished.remove(small)
                won[mover] |= BIT[small]
                if WINS[won[mover]]:
                    return ((100, 0) if mover == 0 else (0, 100)), steps
            elif not cells:
                is_open[small] = False
                unfinished.remove(small)
            if not unfinished:
                return (50, 50), steps
            target, mover = position, 1 - mover

    def render(self) -> str:
        out = ["         1       2       3    (board column)", "       1 2 3   1 2 3   1 2 3"]
        for row in range(9):
            big_row, small_row = divmod(row, 3)
            label = f" {big_row + 1} " if small_row == 0 else "   "
            bands = []
            for big_col in range(3):
                start = 9 * (3 * big_row + big_col) + 3 * small_row
                cells = self.board[start : start + 3]
                bands.append(" ".join("." if c == OPEN else c.upper() for c in cells))
            out.append(f"{label} {small_row + 1}  " + " | ".join(bands))
            if small_row == 2 and big_row < 2:
                out.append("       ------+-------+------")
        won = [
            f"{b // 3 + 1} {b % 3 + 1} by {mark.upper()}"
            for b, mark in enumerate(self.status)
            if mark in MARKS
        ]
        out.append("Won boards: " + (", ".join(won) if won else "none"))
        if not self.is_terminal():
            boards = self.open_boards()
            where = (
                f"board {boards[0] // 3 + 1} {boards[0] % 3 + 1}"
                if len(boards) == 1 and self.target == boards[0]
                else "any unfinished board"
            )
            out.append(f"{ROLES[self.mover]} marks in {where}")
        out.append("Moves: (mark BOARDROW BOARDCOL ROW COL)")
        return "\n".join(out)
