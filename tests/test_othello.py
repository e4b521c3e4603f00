from __future__ import annotations

import pytest
from corpus_traces import load_traces, replay
from ggp.games.base import GameError, IllegalMoveError
from ggp.games.othello import Othello, OthelloState
from turns import check_fast_playouts, play_turns

GAME = Othello()
DIRECTIONS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


def position(
    black: list[tuple[int, int]], red: list[tuple[int, int]], mover: str = "black"
) -> OthelloState:
    facts = [f"(cell {x} {y} black)" for x, y in black]
    facts += [f"(cell {x} {y} red)" for x, y in red]
    return GAME.state_from_facts(sorted([*facts, f"(control {mover})"]))


def discs(state: OthelloState, role: str) -> set[tuple[int, int]]:
    cells = (fact.strip("()").split() for fact in state.facts())
    return {(int(c[1]), int(c[2])) for c in cells if c[0] == "cell" and c[3] == role}


def test_initial_state() -> None:
    state = GAME.initial_state()
    assert discs(state, "black") == {(4, 4), (5, 5)}
    assert discs(state, "red") == {(4, 5), (5, 4)}
    assert "(control black)" in state.facts()
    assert state.legal_moves(0) == ("(move 3 5)", "(move 4 6)", "(move 5 3)", "(move 6 4)")
    assert state.legal_moves(1) == ("noop",)
    assert state.goals() == (50, 50)


def test_a_move_flips_the_flanked_run() -> None:
    state = play_turns(GAME.initial_state(), "(move 3 5)")
    assert discs(state, "black") == {(3, 5), (4, 5), (4, 4), (5, 5)}
    assert discs(state, "red") == {(5, 4)}
    assert state.legal_moves(1) == ("(move 3 4)", "(move 3 6)", "(move 5 6)")
    assert state.legal_moves(0) == ("noop",)


def test_flips_in_all_eight_directions() -> None:
    red = [(4 + dx, 4 + dy) for dx, dy in DIRECTIONS] + [(6, 4), (6, 6)]
    black = [(4 + 2 * dx, 4 + 2 * dy) for dx, dy in DIRECTIONS if (dx, dy) not in {(1, 0), (1, 1)}]
    black += [(7, 4), (7, 7)]
    state = position(black, red)
    after = play_turns(state, "(move 4 4)")
    assert discs(after, "red") == set()
    assert discs(after, "black") == {*black, *red, (4, 4)}


def test_only_closed_runs_flip() -> None:
    red = [(1, 2), (1, 3)] + [(x, 1) for x in range(2, 9)] + [(2, 2)]
    state = position([(1, 4), (4, 4)], red)
    after = play_turns(state, "(move 1 1)")
    assert discs(after, "black") == {(1, 1), (1, 2), (1, 3), (1, 4), (4, 4)}
    assert (2, 2) in discs(after, "red") and (8, 1) in discs(after, "red")


def test_a_move_that_flips_nothing_is_not_legal() -> None:
    state = GAME.initial_state()
    assert "(move 3 3)" not in state.legal_moves(0)
    with pytest.raises(IllegalMoveError, match="legal moves: \\(move 3 5\\)"):
        state.next(["(move 3 3)", "noop"])


def test_role_not_on_move_can_only_wait() -> None:
    with pytest.raises(IllegalMoveError, match="red"):
        GAME.initial_state().next(["(move 3 5)", "(move 3 3)"])


def test_a_player_without_a_move_passes() -> None:
    state = position([(1, 3)], [(1, 1), (1, 2)])
    assert not state.is_terminal()
    assert state.legal_moves(0) == ("noop",) and state.legal_moves(1) == ("noop",)
    passed = play_turns(state, "noop")
    assert passed.facts() == tuple(sorted([*state.facts()[:-1], "(control red)"]))
    assert passed.legal_moves(1) == ("(move 1 4)",) and passed.legal_moves(0) == ("noop",)


def test_game_ends_when_neither_can_move_before_the_board_is_full() -> None:
    state = play_turns(position([(1, 3)], [(1, 1), (1, 2)]), "noop", "(move 1 4)")
    assert discs(state, "black") == set()
    assert state.is_terminal() and state.goals() == (0, 100)
    assert state.legal_moves(0) == () and state.legal_moves(1) == ()
    apart = position([(1, 1), (1, 2)], [(8, 8)], mover="red")
    assert apart.is_terminal() and apart.goals() == (100, 0)
    assert position([(1, 1)], [(8, 8)]).goals() == (50, 50)


def test_full_board_ends_the_game() -> None:
    squares = [(x, y) for x in range(1, 9) for y in range(1, 9)]
    state = position(squares[:32], squares[32:])
    assert state.is_terminal() and state.goals() == (50, 50)
    state = position(squares[:33], squares[33:], mover="red")
    assert state.is_terminal() and state.goals() == (100, 0)


def test_goals_follow_the_disc_count_before_the_end() -> None:
    state = play_turns(GAME.initial_state(), "(move 3 5)")
    assert not state.is_terminal() and state.goals() == (100, 0)


def test_facts_round_trip_and_bad_facts_are_refused() -> None:
    state = play_turns(GAME.initial_state(), "(move 3 5)", "(move 3 6)")
    assert GAME.state_from_facts(state.facts()) == state
    with pytest.raises(GameError, match="control"):
        GAME.state_from_facts(["(cell 1 1 red)"])
    with pytest.raises(GameError, match="not a fact of othello"):
        GAME.state_from_facts(["(cell 9 1 red)", "(control red)"])
    with pytest.raises(GameError, match="repeated"):
        GAME.state_from_facts(["(cell 1 1 red)", "(cell 1 1 black)", "(control red)"])


def test_render_shows_discs_and_counts() -> None:
    lines = GAME.initial_state().render().splitlines()
    assert lines[1].startswith(" 8") and lines[4] == " 5  . . . R B . . ."
    assert sum(line.count("B") for line in lines[1:9]) == 2
    assert lines[-1].endswith("B black 2, R red 2; black to move")


def test_fast_playouts_replay_through_the_interface() -> None:
    check_fast_playouts(GAME.initial_state(), playouts=10)
    check_fast_playouts(position([(1, 3)], [(1, 1), (1, 2)]), playouts=1, opening=1)


def test_corpus_reversi_traces(shared_dir) -> None:
    """``reversi.kif`` is this game; its playouts include passes."""
    traces = list(load_traces(shared_dir, "reversi"))
    passes = sum(
        all(moves == ["noop"] for moves in step["legal"].values())
        for trace in traces
        for step in trace["steps"]
    )
    assert passes > 0
    assert sum(replay(GAME, trace) for trace in traces) > 200
