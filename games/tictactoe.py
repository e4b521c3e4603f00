"""Tic-tac-toe, with the roles, moves and facts of the classic ggp.org rules.

Roles ``xplayer`` (moves first) and ``oplayer``; moves ``(mark ROW COL)`` with
ROW, COL in 1..3, and ``noop`` for the role not on move; facts
``(cell ROW COL x|o|b)`` and ``(control ROLE)``.  A line of three wins (100 to
the winner, 0 to the loser); a full board without a line is a draw (50 each).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, PlayoutResult, check_joint
from ggp.games.playouts import FastRandomState

ROLES = ("xplayer", "oplayer")
MARKS = ("x", "o")
LINES = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
MOVE_TEXT = tuple(f"(mark {i // 3 + 1} {i % 3 + 1})" for i in range(9))
MOVE_INDEX = {text: i for i, text in enumerate(MOVE_TEXT)}
NOOP = ("noop",)


def winner(board: Sequence[str]) -> str | None:
    """The mark (``x`` or ``o``) with a line of three on `board`, if any."""
    for a, b, c in LINES:
        if board[a] != "b" and board[a] == board[b] == board[c]:
            return board[a]
    return None


class TicTacToe(Game):
    name = "tictactoe"
    roles = ROLES

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState(self, ("b",) * 9, 0)

    def state_from_facts(self, facts: Sequence[str]) -> TicTacToeState:
        board = [""] * 9
        mover = None
        for fact in facts:
            parts = fact.strip("()").split()
            if parts[0] == "cell" and len(parts) == 4:
                index = MOVE_INDEX.get(f"(mark {parts[1]} {parts[2]})")
                if index is not None and parts[3] in ("x", "o", "b"):
                    board[index] = parts[3]
                    continue
            elif parts[0] == "control" and len(parts) == 2 and parts[1] in ROLES:
                mover = ROLES.index(parts[1])
                continue
            raise GameError(f"not a tic-tac-toe fact: {fact!r}")
        if "" in board or mover is None:
            raise GameError("tic-tac-toe facts need all nine cells and a control fact")
        return TicTacToeState(self, tuple(board), mover)


class TicTacToeState(FastRandomState):
    __slots__ = ("_game", "board", "mover")

    def __init__(self, game: TicTacToe, board: tuple[str, ...], mover: int) -> None:
        self._game = game
        self.board = board
        self.mover = mover

    @property
    def game(self) -> TicTacToe:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.is_terminal():
            return ()
        if role != self.mover:
            return NOOP
        return tuple(MOVE_TEXT[i] for i, cell in enumerate(self.board) if cell == "b")

    def next(self, joint: Sequence[str]) -> TicTacToeState:
        check_joint(self, joint)
        index = MOVE_INDEX[joint[self.mover]]
        board = list(self.board)
        board[index] = MARKS[self.mover]
        return TicTacToeState(self._game, tuple(board), 1 - self.mover)

    def is_terminal(self) -> bool:
        return "b" not in self.board or winner(self.board) is not None

    def goals(self) -> Goals:
        mark = winner(self.board)
        if mark is None:
            return (50, 50)
        return (100, 0) if mark == "x" else (0, 100)

    def key(self) -> str:
        return "".join(self.board) + str(self.mover)

    def facts(self) -> tuple[str, ...]:
        cells = [f"(cell {i // 3 + 1} {i % 3 + 1} {c})" for i, c in enumerate(self.board)]
        return tuple(sorted(cells + [f"(control {ROLES[self.mover]})"]))

    def fast_random_playout(self, rng: random.Random) -> PlayoutResult:
        board = list(self.board)
        mover = self.mover
        empty = [i for i, c in enumerate(board) if c == "b"]
        steps = 0
        mark = winner(board)
        while mark is None and empty:
            index = empty.pop(rng.randrange(len(empty)))
            board[index] = MARKS[mover]
            mover = 1 - mover
            steps += 1
            mark = winner(board)
        if mark is None:
            return (50, 50), steps
        return ((100, 0) if mark == "x" else (0, 100)), steps

    def render(self) -> str:
        rows = []
        for r in range(3):
            cells = (self.board[3 * r + c] for c in range(3))
            rows.append(f" {r + 1}  " + " ".join("." if c == "b" else c.upper() for c in cells))
        return "    1 2 3  (row, column)\n" + "\n".join(rows)
