"""Breakthrough on 8x8, with the names of ggp.org's ``breakthrough``.

Roles ``white`` (moves first, starts on rows 1 and 2, moves up) and ``black``
(rows 7 and 8, moves down); moves ``(move X1 Y1 X2 Y2)`` and ``noop`` for the
role not on move; facts ``(cellholds X Y ROLE)`` for the occupied squares only
and ``(control ROLE)``.  A pawn moves one square forward, straight or
diagonally, to an empty square, and captures diagonally forward only.  A role
wins (100, the other 0) when one of its pawns reaches the far row or the other
role has no pawn left; the game ends when a role wins.  Before the end both
goals are 0.  A side on move always has a move (its most advanced pawn can
always step diagonally), so there is no pass.

The public ``breakthrough.kif`` is exactly this game (its ``cellHolds`` is
lower-cased here, as the corpus traces and the project's conventions do), so
its recorded playouts check these rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, PlayoutResult, check_joint
from ggp.games.board_facts import read_board_facts
from ggp.games.playouts import FastRandomState

ROLES = ("white", "black")
NOOP = ("noop",)
SIZE = 8
WIN = ((100, 0), (0, 100))
UNDECIDED = (0, 0)
SQUARES = tuple((x, y) for x in range(1, SIZE + 1) for y in range(1, SIZE + 1))
"""Square (X, Y) is index ``(X-1)*8 + (Y-1)``: ascending indexes sort like the move texts."""
INDEX_OF = {square: index for index, square in enumerate(SQUARES)}
INDEX_OF_CELL = {(str(x), str(y)): index for index, (x, y) in enumerate(SQUARES)}
"""The square of the X and Y texts of a ``cellholds`` fact."""
FORWARD = (1, -1)
"""The row step of each role's pawns."""
FAR_ROW = tuple(sum(1 << INDEX_OF[x, far] for x in range(1, SIZE + 1)) for far in (SIZE, 1))
"""Per role, the bits of the row its pawns win on."""
AT_FAR_ROW = tuple(tuple(bool(far >> index & 1) for index in range(SIZE * SIZE)) for far in FAR_ROW)
"""Per role and square: whether a pawn of that role wins there."""


def _steps(role: int, index: int) -> tuple[tuple[int, bool, str] | None, ...]:
    """Per direction (left, straight, right): the target square, whether the
    step is straight, and the move text; None where the step leaves the board."""
    x, y = SQUARES[index]
    y2 = y + FORWARD[role]
    steps = []
    for x2 in (x - 1, x, x + 1):
        if 1 <= x2 <= SIZE and 1 <= y2 <= SIZE:
            steps.append((INDEX_OF[x2, y2], x2 == x, f"(move {x} {y} {x2} {y2})"))
        else:
            steps.append(None)
    return tuple(steps)


STEPS = tuple(tuple(_steps(role, index) for index in range(SIZE * SIZE)) for role in (0, 1))
"""STEPS[role][square]: the three forward steps of a pawn of `role` on `square`."""
MOVES = {
    text: (index, target)
    for role in (0, 1)
    for index in range(SIZE * SIZE)
    for step in STEPS[role][index]
    if step
    for target, _, text in [step]
}
"""Move text -> (from square, to square)."""


def winner(white: int, black: int) -> int | None:
    """The role that has won with these pawns, if any (white's win checked first)."""
    if white & FAR_ROW[0] or not black:
        return 0
    if black & FAR_ROW[1] or not white:
        return 1
    return None


class Breakthrough(Game):
    name = "breakthrough"
    roles = ROLES

    def initial_state(self) -> BreakthroughState:
        white = sum(1 << INDEX_OF[x, y] for x in range(1, SIZE + 1) for y in (1, 2))
        black = sum(1 << INDEX_OF[x, y] for x in range(1, SIZE + 1) for y in (SIZE - 1, SIZE))
        return BreakthroughState(self, (white, black), 0)

    def state_from_facts(self, facts: Sequence[str]) -> BreakthroughState:
        bits, mover = read_board_facts(
            facts,
            game=self.name,
            relation="cellholds",
            roles=ROLES,
            square=lambda x, y: INDEX_OF_CELL.get((x, y)),
        )
        white, black = bits
        if (white & FAR_ROW[0] or not black) and (black & FAR_ROW[1] or not white):
            raise GameError("breakthrough: both roles have won; no game reaches that")
        return BreakthroughState(self, (white, black), mover)


class BreakthroughState(FastRandomState):
    __slots__ = ("_game", "bits", "mover", "winner", "_legal")

    def __init__(self, game: Breakthrough, bits: tuple[int, int], mover: int) -> None:
        self._game = game
        self.bits = bits
        self.mover = mover
        self.winner = winner(*bits)
        self._legal: tuple[str, ...] | None = None

    @property
    def game(self) -> Breakthrough:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.winner is not None:
            return ()
        if role != self.mover:
            return NOOP
        if self._legal is None:
            own = self.bits[role]
            occupied = own | self.bits[1 - role]
            steps = STEPS[role]
            legal = []
            pawns = own
            while pawns:
                low = pawns & -pawns
                pawns ^= low
                for step in steps[low.bit_length() - 1]:
                    if step:
                        target, straight, text = step
                        if not ((occupied if straight else own) >> target & 1):
                            legal.append(text)
            self._legal = tuple(legal)
        return self._legal

    def next(self, joint: Sequence[str]) -> BreakthroughState:
        check_joint(self, joint)
        mover = self.mover
        source, target = MOVES[joint[mover]]
        own = self.bits[mover] ^ (1 << source | 1 << target)
        other = self.bits[1 - mover] & ~(1 << target)
        bits = (own, other) if mover == 0 else (other, own)
        return BreakthroughState(self._game, bits, 1 - mover)

    def is_terminal(self) -> bool:
        return self.winner is not None

    def goals(self) -> Goals:
        return UNDECIDED if self.winner is None else WIN[self.winner]

    def key(self) -> str:
        return f"{self.bits[0]:x}.{self.bits[1]:x}.{self.mover}"

    def facts(self) -> tuple[str, ...]:
        facts = [f"(control {ROLES[self.mover]})"]
        for index, (x, y) in enumerate(SQUARES):
            for role in (0, 1):
                if self.bits[role] >> index & 1:
                    facts.append(f"(cellholds {x} {y} {ROLES[role]})")
        return tuple(sorted(facts))

    def fast_random_playout(
        self, rng: random.Random, joints: list[tuple[str, str]] | None = None
    ) -> PlayoutResult:
        """A uniformly random playout on a square list.

        Picks a random pawn and a random direction until the step is legal:
        every legal move is one (pawn, direction) pair, so this is uniform
        over the legal moves.  If `joints` is a list, the joint moves played
        are appended to it (for tests).
        """
        if self.winner is not None:
            return WIN[self.winner], 0
        board = [0] * (SIZE * SIZE)
        pawns: list[list[int]] = [[], []]
        for role in (0, 1):
            rest = self.bits[role]
            while rest:
                low = rest & -rest
                rest ^= low
                board[low.bit_length() - 1] = role + 1
                pawns[role].append(low.bit_length() - 1)
        mover = self.mover
        steps = 0
        uniform = rng.random
        while True:
            own = pawns[mover]
            mine = mover + 1
            role_steps = STEPS[mover]
            while True:
                pick = int(uniform() * len(own))
                step = role_steps[own[pick]][int(uniform() * 3)]
                if step is None:
                    continue
                target, straight, text = step
                content = board[target]
                if (content == 0) if straight else (content != mine):
                    break
            board[own[pick]] = 0
            board[target] = mine
            own[pick] = target
            steps += 1
            if joints is not None:
                joints.append((text, "noop") if mover == 0 else ("noop", text))
            if content:
                enemy = pawns[1 - mover]
                enemy.remove(target)
                if not enemy:
                    return WIN[mover], steps
            if AT_FAR_ROW[mover][target]:
                return WIN[mover], steps
            mover ^= 1

    def render(self) -> str:
        rows = ["    " + " ".join(str(x) for x in range(1, SIZE + 1))]
        for y in range(SIZE, 0, -1):
            cells = []
            for x in range(1, SIZE + 1):
                index = INDEX_OF[x, y]
                white, black = self.bits[0] >> index & 1, self.bits[1] >> index & 1
                cells.append("W" if white else "B" if black else ".")
            rows.append(f" {y}  " + " ".join(cells))
        turn = "game over" if self.is_terminal() else f"{ROLES[self.mover]} to move"
        rows.append(f"(move X1 Y1 X2 Y2), X across, Y up; W white moves up, B black down; {turn}")
        return "\n".join(rows)
