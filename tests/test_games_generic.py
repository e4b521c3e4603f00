"""Every built-in native game passes the generic invariants and refuses bad moves."""

from __future__ import annotations

import pytest
from game_invariants import check_random_playouts
from ggp.games.base import GameError, IllegalMoveError, canonical_move
from ggp.games.registry import NATIVE_GAMES, load_game


@pytest.mark.parametrize("name", sorted(NATIVE_GAMES))
def test_random_playout_invariants(name: str) -> None:
    check_random_playouts(load_game(name), playouts=40)


@pytest.mark.parametrize("name", sorted(NATIVE_GAMES))
def test_illegal_move_is_refused_with_the_legal_ones(name: str) -> None:
    state = load_game(name).initial_state()
    joint = [moves[0] for moves in state.all_legal_moves()]
    joint[0] = "(not a move)"
    with pytest.raises(IllegalMoveError) as error:
        state.next(joint)
    assert "(not a move)" in str(error.value)
    assert state.legal_moves(0)[0] in str(error.value)


@pytest.mark.parametrize("name", sorted(NATIVE_GAMES))
def test_joint_move_of_wrong_length_is_refused(name: str) -> None:
    state = load_game(name).initial_state()
    with pytest.raises(GameError, match="one move per role"):
        state.next([state.legal_moves(0)[0]] * (len(state.game.roles) + 1))


def test_unknown_game_and_bad_options_are_explained() -> None:
    with pytest.raises(GameError, match="unknown game 'chess'"):
        load_game("chess")
    with pytest.raises(GameError, match="unknown option"):
        load_game("tictactoe:size=4")
    with pytest.raises(GameError, match="key=value"):
        load_game("tictactoe:size")


def test_canonical_move() -> None:
    assert canonical_move("( mark  1 2 )") == "(mark 1 2)"
    assert canonical_move(" noop ") == "noop"
    assert canonical_move("(move (a b) ( c ))") == "(move (a b) (c))"
    assert canonical_move("(Mark 1 2)") == "(Mark 1 2)"
