"""Rules of Ultimate tic-tac-toe on the positions where bugs hide."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError, IllegalMoveError
from ggp.games.ultimate_tictactoe import UltimateState, UltimateTicTacToe
from playout_outcomes import check_fast_playouts

GAME = UltimateTicTacToe()
EMPTY = ["." * 9] * 9


def mark(*cell: int) -> str:
    return f"(mark {' '.join(map(str, cell))})"


def play(state: UltimateState, *cells: tuple[int, int, int, int]) -> UltimateState:
    for cell in cells:
        joint = ["noop", "noop"]
        joint[state.mover] = mark(*cell)
        state = state.next(joint)
    return state


def position(grid: list[str], target: tuple[int, int] | None, mover: str) -> UltimateState:
    """A state from a 9x9 picture (rows top to bottom, ``x``, ``o`` or ``.``)."""
    facts = [f"(control {mover})"]
    for row, line in enumerate(grid):
        for col, char in enumerate(line):
            coords = f"{row // 3 + 1} {col // 3 + 1} {row % 3 + 1} {col % 3 + 1}"
            facts.append(f"(cell {coords} {'b' if char == '.' else char})")
    if target:
        facts.append(f"(target {target[0]} {target[1]})")
    return GAME.state_from_facts(sorted(facts))


def boards_of(moves: tuple[str, ...]) -> set[tuple[str, str]]:
    return {tuple(move.strip("()").split()[1:3]) for move in moves}


def test_first_move_anywhere_then_sent_to_the_matching_board() -> None:
    state = GAME.initial_state()
    assert not any(fact.startswith("(target") for fact in state.facts())
    assert len(state.legal_moves(0)) == 81 and state.legal_moves(1) == ("noop",)
    assert list(state.legal_moves(0)) == sorted(state.legal_moves(0))
    state = play(state, (1, 1, 2, 3))
    assert "(target 2 3)" in state.facts() and "(cell 1 1 2 3 x)" in state.facts()
    assert state.legal_moves(1) == tuple(mark(2, 3, r, c) for r in (1, 2, 3) for c in (1, 2, 3))
    assert state.legal_moves(0) == ("noop",)
    with pytest.raises(IllegalMoveError, match=r"\(mark 1 1 1 1\)"):
        state.next(["noop", mark(1, 1, 1, 1)])


def test_sent_to_an_unfinished_board_with_marks_in_it() -> None:
    state = play(GAME.initial_state(), (2, 2, 2, 2), (2, 2, 1, 1), (1, 1, 2, 2))
    # O is sent back to board 2 2, where two cells are taken.
    assert boards_of(state.legal_moves(1)) == {("2", "2")}
    assert len(state.legal_moves(1)) == 7


def test_won_small_board_takes_no_more_marks_and_sends_to_free_choice() -> None:
    grid = ["xx.......", "oo.......", "........."] + EMPTY[3:]
    state = position(grid, (1, 1), "xplayer")
    state = play(state, (1, 1, 1, 3))  # X wins board 1 1 and sends O to board 1 3
    assert state.status[0] == "x" and "Won boards: 1 1 by X" in state.render()
    assert boards_of(state.legal_moves(1)) == {("1", "3")}
    state = play(state, (1, 3, 1, 1))  # O sends X to the won board 1 1: free choice
    moves = state.legal_moves(0)
    assert ("1", "1") not in boards_of(moves) and len(boards_of(moves)) == 8
    assert len(moves) == 72 - 1
    assert "any unfinished board" in state.render()
    with pytest.raises(IllegalMoveError):
        state.next([mark(1, 1, 3, 3), "noop"])


def test_full_small_board_without_line_is_finished_too() -> None:
    grid = EMPTY[:3] + ["...xox...", "...xoo...", "...ox...."] + EMPTY[6:]
    state = position(grid, (2, 2), "xplayer")
    state = play(state, (2, 2, 3, 3))  # fills board 2 2 without a line
    assert state.status[4] == "d" and not state.is_terminal()
    state = play(state, (3, 3, 2, 2))  # O sends X to the full board 2 2
    moves = state.legal_moves(0)
    assert ("2", "2") not in boards_of(moves) and len(boards_of(moves)) == 8
    assert len(moves) == 72 - 1


def test_three_won_boards_in_a_line_win_the_game() -> None:
    grid = ["xxx......", "oo.......", ".........", "...xxx...", "...oo....", "........."]
    grid += ["......xx.", "......oo.", "........."]
    state = position(grid, (3, 3), "xplayer")
    assert not state.is_terminal() and state.goals() == (50, 50)
    state = play(state, (3, 3, 1, 3))
    assert state.is_terminal() and state.goals() == (100, 0)
    assert state.legal_moves(0) == () and state.legal_moves(1) == ()
    with pytest.raises(IllegalMoveError, match="legal moves: none"):
        state.next([mark(1, 2, 1, 1), "noop"])


def test_oplayer_wins_with_a_column_of_boards() -> None:
    grid = ["...ooo...", ".........", ".........", "...o.....", "...o.....", "...o....."]
    grid += ["...oo....", ".........", "........."]
    state = position(grid, None, "oplayer")
    state = play(state, (3, 2, 1, 3))
    assert state.is_terminal() and state.goals() == (0, 100)


def test_every_board_finished_without_a_line_is_a_draw() -> None:
    # Big board x o x / x o o / o x ? where board 3 3 is one mark from full.
    won = {"x": ["xxx", "...", "..."], "o": ["ooo", "...", "..."]}
    last = ["xox", "xoo", "ox."]
    boards = ["x", "o", "x", "x", "o", "o", "o", "x"]
    pictures = [won[b] for b in boards] + [last]
    grid = [
        "".join(pictures[3 * big_row + big_col][row] for big_col in range(3))
        for big_row in range(3)
        for row in range(3)
    ]
    state = position(grid, (3, 3), "xplayer")
    assert state.legal_moves(0) == (mark(3, 3, 3, 3),)
    check_fast_playouts(state, playouts=5)
    state = play(state, (3, 3, 3, 3))
    assert state.is_terminal() and state.goals() == (50, 50)


def test_fast_playout_outcomes_are_reachable_near_the_end() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        state = GAME.initial_state()
        while not state.is_terminal():
            empty = sum(state.board[9 * b : 9 * b + 9].count("b") for b in state.open_boards())
            free = sum(
                state.board[9 * b : 9 * b + 9].count("b")
                for b, status in enumerate(state.status)
                if status == "b"
            )
            if free <= 7 and empty:
                check_fast_playouts(state, playouts=10, seed=checked)
                checked += 1
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
    assert checked > 100


def test_incremental_statuses_agree_with_a_rebuild_from_facts() -> None:
    rng = random.Random(3)
    for _ in range(30):
        state = GAME.initial_state()
        while not state.is_terminal():
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
            rebuilt = GAME.state_from_facts(state.facts())
            assert (rebuilt.status, rebuilt.winner) == (state.status, state.winner)
            assert rebuilt.all_legal_moves() == state.all_legal_moves()


@pytest.mark.parametrize(
    "facts",
    [
        ["(control xplayer)"],
        ["(cell 1 1 1 4 x)"],
        ["(target 1 4)"],
        ["(control nobody)"],
    ],
)
def test_bad_facts_are_refused(facts: list[str]) -> None:
    with pytest.raises(GameError):
        GAME.state_from_facts(facts)


def test_render_shows_marks_and_where_to_play() -> None:
    picture = play(GAME.initial_state(), (2, 3, 1, 1)).render()
    assert picture.count("X") == 1 and picture.count(".") == 80
    assert "oplayer marks in board 1 1" in picture
