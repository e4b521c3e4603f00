from __future__ import annotations

import pytest
from corpus_traces import load_traces, replay
from ggp.games.base import GameError, IllegalMoveError
from ggp.games.connect_four import ConnectFour, ConnectFourState
from ggp.games.registry import load_game
from turns import check_fast_playouts, play_turns

DRAWN_GAME = "234327377567473335165216456472451561112264"
"""The columns of a full 7x6 game without a line, red first."""


def drops(*columns: int, game: ConnectFour | None = None) -> ConnectFourState:
    state = (game or ConnectFour()).initial_state()
    return play_turns(state, *(f"(drop {column})" for column in columns))  # type: ignore[return-value]


def test_initial_state() -> None:
    state = ConnectFour().initial_state()
    assert state.facts() == ("(control red)",)
    assert state.legal_moves(0) == tuple(f"(drop {c})" for c in range(1, 8))
    assert state.legal_moves(1) == ("noop",)
    assert not state.is_terminal() and state.goals() == (0, 0)


def test_a_drop_lands_on_top_of_its_column() -> None:
    state = drops(3, 3, 4)
    assert state.facts() == (
        "(cell 3 1 red)",
        "(cell 3 2 black)",
        "(cell 4 1 red)",
        "(control black)",
    )


def test_vertical_line_wins() -> None:
    state = drops(1, 2, 1, 2, 1, 2, 1)
    assert state.is_terminal() and state.goals() == (100, 0)
    assert state.legal_moves(0) == () and state.legal_moves(1) == ()


def test_horizontal_line_wins() -> None:
    state = drops(1, 2, 1, 3, 7, 4, 7)
    assert not state.is_terminal()
    state = drops(1, 2, 1, 3, 7, 4, 7, 5)
    assert state.is_terminal() and state.goals() == (0, 100)


def test_rising_diagonal_wins() -> None:
    moves = (1, 2, 2, 3, 4, 3, 3, 4, 5, 4)
    assert not drops(*moves).is_terminal()
    state = drops(*moves, 4)
    assert "(cell 4 4 red)" in state.facts()
    assert state.is_terminal() and state.goals() == (100, 0)


def test_falling_diagonal_wins() -> None:
    moves = (7, 6, 6, 5, 4, 5, 5, 4, 3, 4)
    assert not drops(*moves).is_terminal()
    state = drops(*moves, 4)
    assert state.is_terminal() and state.goals() == (100, 0)


def test_three_in_a_row_does_not_win() -> None:
    state = drops(1, 7, 2, 7, 3)
    assert not state.is_terminal()


def test_lines_do_not_wrap_round_the_board() -> None:
    # Black on the top of column 1 and the bottom of column 2: adjacent bits
    # of the bitboard if there were no spare bit between columns.
    state = drops(1, 1, 1, 1, 3, 1, 3, 1, 5, 2, 5, 2)
    black = {"(cell 1 5 black)", "(cell 1 6 black)", "(cell 2 1 black)", "(cell 2 2 black)"}
    assert black <= set(state.facts())
    assert not state.is_terminal()


def test_full_board_is_a_draw() -> None:
    state = drops(*map(int, DRAWN_GAME[:-1]))
    assert not state.is_terminal() and state.legal_moves(1) == ("(drop 4)",)
    state = drops(*map(int, DRAWN_GAME))
    assert state.is_terminal() and state.goals() == (50, 50)
    assert len(state.facts()) == 43


def test_full_column_is_not_legal() -> None:
    state = drops(5, 5, 5, 5, 5, 5)
    assert "(drop 5)" not in state.legal_moves(0) and len(state.legal_moves(0)) == 6
    with pytest.raises(IllegalMoveError, match="drop 5"):
        state.next(["(drop 5)", "noop"])


def test_role_not_on_move_can_only_wait() -> None:
    state = ConnectFour().initial_state()
    with pytest.raises(IllegalMoveError, match="black"):
        state.next(["(drop 1)", "(drop 2)"])


def test_custom_size_and_line() -> None:
    game = load_game("connect_four:width=5,height=4,line=3")
    assert game.name == "connect_four:height=4,line=3,width=5"
    assert load_game(game.name).name == game.name
    state = game.initial_state()
    assert state.legal_moves(0) == tuple(f"(drop {c})" for c in range(1, 6))
    full = drops(1, 1, 1, 1, game=game)
    assert not full.is_terminal() and "(drop 1)" not in full.legal_moves(0)
    state = drops(2, 2, 3, 3, game=game)
    assert not state.is_terminal()
    state = drops(2, 2, 3, 3, 4, game=game)
    assert state.is_terminal() and state.goals() == (100, 0)


def test_wide_board_lists_moves_in_string_order() -> None:
    game = ConnectFour(width=10)
    assert game.name == "connect_four:width=10"
    assert list(game.initial_state().legal_moves(0)) == sorted(f"(drop {c})" for c in range(1, 11))
    state = drops(10, 10, 9, 9, 8, 8, 7, game=game)
    assert state.is_terminal() and state.goals() == (100, 0)


def test_default_options_are_not_spelled() -> None:
    assert load_game("connect_four:width=7,line=4").name == "connect_four"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("connect_four:width=0", "at least 1"),
        ("connect_four:line=8", "line must be 1..7"),
        ("connect_four:width=wide", "must be int"),
    ],
)
def test_bad_options_are_explained(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        load_game(spec)


def test_facts_round_trip_and_bad_facts_are_refused() -> None:
    game = ConnectFour()
    state = drops(4, 4, 3, game=game)
    assert game.state_from_facts(state.facts()) == state
    with pytest.raises(GameError, match="gap"):
        game.state_from_facts(["(cell 1 2 red)", "(control black)"])
    with pytest.raises(GameError, match="control"):
        game.state_from_facts(["(cell 1 1 red)"])
    with pytest.raises(GameError, match="not a fact of connect_four"):
        game.state_from_facts(["(cell 8 1 red)", "(control black)"])
    with pytest.raises(GameError, match="repeated"):
        game.state_from_facts(["(cell 1 1 red)", "(cell 1 1 black)", "(control red)"])
    both = [f"(cell {c} 1 red)" for c in range(1, 5)] + [f"(cell {c} 2 black)" for c in range(1, 5)]
    with pytest.raises(GameError, match="both roles"):
        game.state_from_facts([*both, "(control red)"])


def test_won_state_from_facts_is_terminal() -> None:
    facts = [f"(cell 1 {row} black)" for row in range(1, 5)] + ["(control red)"]
    state = ConnectFour().state_from_facts(facts)
    assert state.is_terminal() and state.goals() == (0, 100)


def test_render_shows_discs() -> None:
    picture = drops(4, 4).render()
    assert picture.count("R") == 1 + picture.count("R is red")
    assert "red to move" in picture


def test_fast_playouts_replay_through_the_interface() -> None:
    check_fast_playouts(ConnectFour().initial_state(), playouts=30)
    check_fast_playouts(ConnectFour(width=4, height=3, line=3).initial_state(), playouts=30)


def test_corpus_connect_four_traces(shared_dir) -> None:
    """``connectFour.kif`` is this game on an 8x6 board, with the same names."""
    game = ConnectFour(width=8)
    assert sum(replay(game, trace) for trace in load_traces(shared_dir, "connectFour")) > 100


def conn4_facts(facts: list[str]) -> list[str]:
    """``conn4.kif`` facts in our names: roles white/black, marks x/o, blanks b."""
    renamed = {"x": "red", "o": "black", "white": "red", "black": "black"}
    ours = []
    for fact in facts:
        *head, last = fact.strip("()").split()
        if last != "b":
            ours.append("(" + " ".join([*head, renamed[last]]) + ")")
    return ours


def test_corpus_conn4_traces(shared_dir) -> None:
    """``conn4.kif`` is the default 7x6 game under other names."""
    game = ConnectFour()
    traces = load_traces(shared_dir, "conn4")
    assert sum(replay(game, trace, conn4_facts) for trace in traces) > 50
