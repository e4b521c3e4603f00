"""Othello (World Othello Federation rules), with the names of ggp.org's ``reversi``.

Roles ``black`` (moves first) and ``red`` (the white discs); moves ``(move X Y)``
with X (column) and Y (row) in 1..8, ``noop`` for the role not on move, and
``noop`` as the pass: a player on move without a flipping move must pass, and
that is then its only legal move.  Facts ``(cell X Y ROLE)`` for the occupied
squares only and ``(control ROLE)``; control alternates after every move,
passes included.  The game ends when neither player can move (a full board,
or earlier); most discs wins (100 to the winner, 0 to the loser), equal counts
are a draw (50 each).  Outside the end the goals follow the disc count too, as
in the GDL.

The start position has black on (4 4) and (5 5), red on (4 5) and (5 4): the
standard one with row 1 at the bottom (``render`` draws row 8 on top).  The
public ``reversi.kif`` is exactly this game, so its recorded playouts check
these rules.  (``othello-comp2007.kif`` has other move names and gives 0 to
both roles before the end.)

The board is a bitboard per role, square (X, Y) at bit ``(X-1)*8 + (Y-1)``, so
ascending bits are the sorted order of the move texts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.games.base import Game, Goals, PlayoutResult, check_joint
from ggp.games.board_facts import read_board_facts
from ggp.games.playouts import FastRandomState

ROLES = ("black", "red")
NOOP = ("noop",)
SIZE = 8
FULL = (1 << 64) - 1
ROW_1 = sum(1 << (8 * x) for x in range(SIZE))
ROW_8 = ROW_1 << 7
SQUARES = tuple((x, y) for x in range(1, SIZE + 1) for y in range(1, SIZE + 1))
MOVE_TEXT = tuple(f"(move {x} {y})" for x, y in SQUARES)
SQUARE_OF = {text: index for index, text in enumerate(MOVE_TEXT)}
SQUARE_OF_CELL = {(str(x), str(y)): index for index, (x, y) in enumerate(SQUARES)}
"""The square of the X and Y texts of a ``cell`` fact."""

UP_SHIFTS = ((1, FULL & ~ROW_1), (8, FULL), (9, FULL & ~ROW_1), (7, FULL & ~ROW_8))
"""Shifts to higher bits, each with the squares a shifted disc may land on.

Bit + 1 is one row up (Y+1), + 8 one column right (X+1); a step up from row 8
would wrap to row 1 of the next column, so row 1 is masked out (and so on).
"""
DOWN_SHIFTS = ((1, FULL & ~ROW_8), (8, FULL), (9, FULL & ~ROW_8), (7, FULL & ~ROW_1))
"""Shifts to lower bits: the mirror images of `UP_SHIFTS`."""


def move_bits(own: int, other: int) -> int:
    """The squares where the owner of `own` may play: each flanks a run of `other`."""
    empty = FULL & ~(own | other)
    moves = 0
    for shift, mask in UP_SHIFTS:
        other_m, empty_m = other & mask, empty & mask
        run = (own << shift) & other_m
        while run:
            run <<= shift
            moves |= run & empty_m
            run &= other_m
    for shift, mask in DOWN_SHIFTS:
        other_m, empty_m = other & mask, empty & mask
        run = (own >> shift) & other_m
        while run:
            run >>= shift
            moves |= run & empty_m
            run &= other_m
    return moves


def flipped_bits(move: int, own: int, other: int) -> int:
    """The discs of `other` that a disc of `own` played on the bit `move` flips."""
    flips = 0
    for shift, mask in UP_SHIFTS:
        run = 0
        square = (move << shift) & mask
        while square & other:
            run |= square
            square = (square << shift) & mask
        if square & own:
            flips |= run
    for shift, mask in DOWN_SHIFTS:
        run = 0
        square = (move >> shift) & mask
        while square & other:
            run |= square
            square = (square >> shift) & mask
        if square & own:
            flips |= run
    return flips


def disc_goals(black: int, red: int) -> Goals:
    """100/0, 0/100 or 50/50 by who has more discs."""
    black_count, red_count = black.bit_count(), red.bit_count()
    if black_count == red_count:
        return (50, 50)
    return (100, 0) if black_count > red_count else (0, 100)


class Othello(Game):
    name = "othello"
    roles = ROLES

    def initial_state(self) -> OthelloState:
        black = 1 << _bit(4, 4) | 1 << _bit(5, 5)
        red = 1 << _bit(4, 5) | 1 << _bit(5, 4)
        return OthelloState(self, (black, red), 0)

    def state_from_facts(self, facts: Sequence[str]) -> OthelloState:
        bits, mover = read_board_facts(
            facts,
            game=self.name,
            relation="cell",
            roles=ROLES,
            square=lambda x, y: SQUARE_OF_CELL.get((x, y)),
        )
        return OthelloState(self, (bits[0], bits[1]), mover)


def _bit(x: int, y: int) -> int:
    return (x - 1) * SIZE + (y - 1)


class OthelloState(FastRandomState):
    __slots__ = ("_game", "bits", "mover", "_moves", "_terminal", "_legal")

    def __init__(self, game: Othello, bits: tuple[int, int], mover: int) -> None:
        self._game = game
        self.bits = bits
        self.mover = mover
        self._moves = move_bits(bits[mover], bits[1 - mover])
        self._terminal: bool | None = None
        self._legal: tuple[str, ...] | None = None

    @property
    def game(self) -> Othello:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.is_terminal():
            return ()
        if role != self.mover or not self._moves:
            return NOOP
        if self._legal is None:
            moves, legal = self._moves, []
            while moves:
                low = moves & -moves
                legal.append(MOVE_TEXT[low.bit_length() - 1])
                moves ^= low
            self._legal = tuple(legal)
        return self._legal

    def next(self, joint: Sequence[str]) -> OthelloState:
        check_joint(self, joint)
        mover = self.mover
        move = joint[mover]
        if move == "noop":
            return OthelloState(self._game, self.bits, 1 - mover)
        own, other = self.bits[mover], self.bits[1 - mover]
        square = 1 << SQUARE_OF[move]
        flips = flipped_bits(square, own, other)
        own |= square | flips
        other ^= flips
        bits = (own, other) if mover == 0 else (other, own)
        return OthelloState(self._game, bits, 1 - mover)

    def is_terminal(self) -> bool:
        if self._terminal is None:
            self._terminal = not self._moves and not move_bits(
                self.bits[1 - self.mover], self.bits[self.mover]
            )
        return self._terminal

    def goals(self) -> Goals:
        return disc_goals(*self.bits)

    def key(self) -> str:
        return f"{self.bits[0]:x}.{self.bits[1]:x}.{self.mover}"

    def facts(self) -> tuple[str, ...]:
        facts = [f"(control {ROLES[self.mover]})"]
        for index, (x, y) in enumerate(SQUARES):
            for role in (0, 1):
                if self.bits[role] >> index & 1:
                    facts.append(f"(cell {x} {y} {ROLES[role]})")
        return tuple(sorted(facts))

    def fast_random_playout(
        self, rng: random.Random, joints: list[tuple[str, str]] | None = None
    ) -> PlayoutResult:
        """A uniformly random playout on the bitboards.

        If `joints` is a list, the joint moves played are appended to it (for tests).
        """
        mover = self.mover
        own, other = self.bits[mover], self.bits[1 - mover]
        moves = self._moves
        steps = 0
        uniform = rng.random
        while True:
            if moves:
                skip = int(uniform() * moves.bit_count())
                for _ in range(skip):
                    moves &= moves - 1
                square = moves & -moves
                flips = flipped_bits(square, own, other)
                own |= square | flips
                other ^= flips
                move = MOVE_TEXT[square.bit_length() - 1]
            elif move_bits(other, own):
                move = "noop"
            else:
                break
            if joints is not None:
                joints.append((move, "noop") if mover == 0 else ("noop", move))
            own, other = other, own
            mover ^= 1
            steps += 1
            moves = move_bits(own, other)
        return disc_goals(*((own, other) if mover == 0 else (other, own))), steps

    def render(self) -> str:
        rows = ["    " + " ".join(str(x) for x in range(1, SIZE + 1))]
        for y in range(SIZE, 0, -1):
            cells = []
            for x in range(1, SIZE + 1):
                index = _bit(x, y)
                black, red = self.bits[0] >> index & 1, self.bits[1] >> index & 1
                cells.append("B" if black else "R" if red else ".")
            rows.append(f" {y}  " + " ".join(cells))
        black, red = self.bits[0].bit_count(), self.bits[1].bit_count()
        turn = "game over" if self.is_terminal() else f"{ROLES[self.mover]} to move"
        rows.append(f"(move X Y), X across, Y up; B black {black}, R red {red}; {turn}")
        return "\n".join(rows)
