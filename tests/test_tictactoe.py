from ggp.games.tictactoe import TicTacToe


def play(*moves: tuple[int, int]):
    state = TicTacToe().initial_state()
    for row, col in moves:
        mover = state.mover
        joint = ["noop", "noop"]
        joint[mover] = f"(mark {row} {col})"
        state = state.next(joint)
    return state


def test_initial_state_facts_and_moves() -> None:
    state = TicTacToe().initial_state()
    assert "(control xplayer)" in state.facts()
    assert state.legal_moves(0)[0] == "(mark 1 1)" and len(state.legal_moves(0)) == 9
    assert state.legal_moves(1) == ("noop",)


def test_row_column_and_diagonal_wins() -> None:
    assert play((1, 1), (2, 1), (1, 2), (2, 2), (1, 3)).goals() == (100, 0)
    assert play((1, 1), (1, 2), (2, 1), (2, 2), (3, 3), (3, 2)).goals() == (0, 100)
    state = play((1, 3), (1, 1), (2, 2), (1, 2), (3, 1))
    assert state.is_terminal() and state.goals() == (100, 0)
    assert state.legal_moves(0) == () and state.legal_moves(1) == ()


def test_full_board_draw() -> None:
    state = play((1, 1), (1, 2), (1, 3), (2, 2), (2, 1), (2, 3), (3, 2), (3, 1), (3, 3))
    assert state.is_terminal() and state.goals() == (50, 50)


def test_render_shows_marks() -> None:
    picture = play((2, 2)).render()
    assert "X" in picture and picture.count(".") == 8
