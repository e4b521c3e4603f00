from __future__ import annotations

import pytest
from corpus_traces import load_traces, replay
from ggp.games.base import GameError, IllegalMoveError
from ggp.games.breakthrough import Breakthrough, BreakthroughState
from turns import check_fast_playouts, play_turns

GAME = Breakthrough()


def position(
    white: list[tuple[int, int]], black: list[tuple[int, int]], mover: str = "white"
) -> BreakthroughState:
    facts = [f"(cellholds {x} {y} white)" for x, y in white]
    facts += [f"(cellholds {x} {y} black)" for x, y in black]
    return GAME.state_from_facts(sorted([*facts, f"(control {mover})"]))


def test_initial_state() -> None:
    state = GAME.initial_state()
    assert len(state.facts()) == 33 and "(control white)" in state.facts()
    white = state.legal_moves(0)
    assert white[:3] == ("(move 1 2 1 3)", "(move 1 2 2 3)", "(move 2 2 1 3)")
    assert len(white) == 22 and list(white) == sorted(white)
    assert state.legal_moves(1) == ("noop",)
    assert not state.is_terminal() and state.goals() == (0, 0)


def test_white_blocked_straight_and_by_own_pawn_captures_diagonally() -> None:
    state = position([(4, 4), (3, 5)], [(4, 5), (5, 5), (8, 8)])
    assert state.legal_moves(0) == (
        "(move 3 5 2 6)",
        "(move 3 5 3 6)",
        "(move 3 5 4 6)",
        "(move 4 4 5 5)",
    )
    after = play_turns(state, "(move 4 4 5 5)")
    assert after.facts() == (
        "(cellholds 3 5 white)",
        "(cellholds 4 5 black)",
        "(cellholds 5 5 white)",
        "(cellholds 8 8 black)",
        "(control black)",
    )
    assert not after.is_terminal()


def test_black_blocked_straight_and_by_own_pawn_captures_diagonally() -> None:
    state = position([(5, 4), (4, 4), (1, 1)], [(5, 5), (6, 4)], mover="black")
    assert state.legal_moves(1) == (
        "(move 5 5 4 4)",
        "(move 6 4 5 3)",
        "(move 6 4 6 3)",
        "(move 6 4 7 3)",
    )
    assert state.legal_moves(0) == ("noop",)
    after = play_turns(state, "(move 5 5 4 4)")
    assert "(cellholds 4 4 black)" in after.facts() and len(after.facts()) == 5


def test_straight_capture_is_not_legal() -> None:
    state = position([(4, 4)], [(4, 5), (1, 8)])
    with pytest.raises(IllegalMoveError, match="move 4 4 4 5"):
        state.next(["(move 4 4 4 5)", "noop"])


def test_reaching_the_far_row_wins() -> None:
    state = position([(2, 7)], [(1, 8), (8, 8)])
    for move in ("(move 2 7 2 8)", "(move 2 7 1 8)", "(move 2 7 3 8)"):
        won = play_turns(state, move)
        assert won.is_terminal() and won.goals() == (100, 0)
        assert won.legal_moves(0) == () and won.legal_moves(1) == ()
    state = position([(8, 1), (1, 1)], [(7, 2)], mover="black")
    won = play_turns(state, "(move 7 2 7 1)")
    assert won.is_terminal() and won.goals() == (0, 100)


def test_capturing_every_enemy_pawn_wins() -> None:
    state = play_turns(position([(4, 4)], [(5, 5)]), "(move 4 4 5 5)")
    assert state.is_terminal() and state.goals() == (100, 0)
    state = play_turns(position([(4, 4)], [(5, 5)], mover="black"), "(move 5 5 4 4)")
    assert state.is_terminal() and state.goals() == (0, 100)


def test_won_states_from_facts() -> None:
    assert position([(3, 8)], [(3, 7)], mover="black").goals() == (100, 0)
    assert position([], [(3, 7)]).goals() == (0, 100)
    with pytest.raises(GameError, match="both roles have won"):
        position([(3, 8)], [(3, 1)])


def test_facts_round_trip_and_bad_facts_are_refused() -> None:
    state = play_turns(GAME.initial_state(), "(move 1 2 1 3)", "(move 8 7 8 6)")
    assert GAME.state_from_facts(state.facts()) == state
    with pytest.raises(GameError, match="control"):
        GAME.state_from_facts(["(cellholds 1 1 white)"])
    with pytest.raises(GameError, match="not a fact of breakthrough"):
        GAME.state_from_facts(["(cellholds 1 9 white)", "(control white)"])
    with pytest.raises(GameError, match="repeated"):
        GAME.state_from_facts(["(cellholds 1 1 black)", "(cellholds 1 1 white)", "(control white)"])


def test_render_draws_row_8_on_top() -> None:
    lines = GAME.initial_state().render().splitlines()
    assert lines[1] == " 8  B B B B B B B B" and lines[8] == " 1  W W W W W W W W"
    assert lines[4] == " 5  . . . . . . . ." and lines[-1].endswith("white to move")


def test_fast_playouts_replay_through_the_interface() -> None:
    check_fast_playouts(GAME.initial_state(), playouts=20)
    for mover in ("white", "black"):
        endgame = position([(4, 4)], [(5, 5)], mover=mover)
        check_fast_playouts(endgame, playouts=20, opening=1)


def test_corpus_breakthrough_traces(shared_dir) -> None:
    """``breakthrough.kif`` is this game (``cellHolds`` lower-cased)."""
    assert sum(replay(GAME, trace) for trace in load_traces(shared_dir, "breakthrough")) > 200
