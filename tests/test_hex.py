"""Rules of Hex: sizes, wins along bent paths, positions without a win."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from game_invariants import check_random_playouts
from ggp.games.base import GameError
from ggp.games.hex import Hex, HexState
from ggp.games.registry import load_game
from playout_outcomes import check_fast_playouts

Cell = tuple[str, int]

# A red path from row a to row e of a 5x5 board that goes down column 1,
# climbs back up to row b, and comes down again along column 5; blue walls
# off the bottom row so that no shortcut exists.
RED_PATH: list[Cell] = [
    ("a", 1), ("b", 1), ("c", 1), ("d", 1), ("d", 2), ("c", 3),
    ("b", 4), ("b", 5), ("c", 5), ("d", 5), ("e", 5),
]  # fmt: skip
BLUE_WALL: list[Cell] = [
    ("e", 1), ("e", 2), ("e", 3), ("e", 4), ("d", 3), ("d", 4),
    ("c", 4), ("a", 3), ("c", 2), ("b", 2),
]  # fmt: skip


def transpose(cell: Cell) -> Cell:
    """The mirror image across the a1-e5 diagonal: it swaps red's and blue's sides."""
    row, col = cell
    return "abcdefghijklmnopqrstuvwxyz"[col - 1], ord(row) - ord("a") + 1


def place(row: str, col: int) -> str:
    return f"(place {row} {col})"


def play(state: HexState, *cells: Cell) -> HexState:
    for cell in cells:
        joint = ["noop", "noop"]
        joint[state.mover] = place(*cell)
        state = state.next(joint)
    return state


def alternate(first: list[Cell], second: list[Cell]) -> list[Cell]:
    moves = [cell for pair in zip(first, second, strict=False) for cell in pair]
    return moves + first[len(second) :]


def test_name_spells_the_size_and_loads_back() -> None:
    assert Hex().name == "hex" and load_game("hex").size == 7
    game = load_game("hex:size=9")
    assert game.name == "hex:size=9" and load_game(game.name).size == 9
    for bad in ("hex:size=0", "hex:size=27"):
        with pytest.raises(GameError, match="size must be 1..26"):
            load_game(bad)
    with pytest.raises(GameError, match="must be int"):
        load_game("hex:size=big")


def test_initial_moves_in_sorted_order() -> None:
    state = Hex().initial_state()
    assert state.facts() == ("(control red)",)
    assert len(state.legal_moves(0)) == 49 and state.legal_moves(1) == ("noop",)
    assert state.legal_moves(0)[:2] == ("(place a 1)", "(place a 2)")
    moves = load_game("hex:size=11").initial_state().legal_moves(0)
    assert list(moves) == sorted(moves) and moves[:3] == (
        "(place a 1)",
        "(place a 10)",
        "(place a 11)",
    )


def test_red_wins_along_a_path_that_turns_back() -> None:
    moves = alternate(RED_PATH, BLUE_WALL)
    state = play(load_game("hex:size=5").initial_state(), *moves[:-1])
    assert not state.is_terminal() and state.goals() == (0, 0)
    assert len(state.legal_moves(0)) == 25 - 20
    state = play(state, moves[-1])
    assert state.is_terminal() and state.goals() == (100, 0)
    assert state.legal_moves(0) == () and state.legal_moves(1) == ()


def test_blue_wins_along_a_path_that_turns_back() -> None:
    blue_path = [transpose(cell) for cell in RED_PATH]
    red_wall = [transpose(cell) for cell in BLUE_WALL] + [("e", 1)]
    moves = alternate(red_wall, blue_path)
    state = play(load_game("hex:size=5").initial_state(), *moves[:-1])
    assert not state.is_terminal() and state.goals() == (0, 0)
    state = play(state, moves[-1])
    assert state.is_terminal() and state.goals() == (0, 100)


def test_a_crowded_board_without_a_connection() -> None:
    # Red holds rows a-d but not e; blue holds column 1 of row e only.
    game = load_game("hex:size=5")
    facts = [f"(cell {row} {col} red)" for row in "abcd" for col in range(1, 6)]
    facts += ["(cell e 1 blue)", "(control blue)"]
    state = game.state_from_facts(sorted(facts))
    assert not state.is_terminal() and state.goals() == (0, 0)
    assert state.legal_moves(1) == tuple(place("e", col) for col in range(2, 6))
    check_fast_playouts(state, playouts=20)
    state = play(state, ("e", 2))
    assert not state.is_terminal()
    assert play(state, ("e", 3)).goals() == (100, 0)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_fast_playouts_reach_only_legal_outcomes_on_small_boards(size: int) -> None:
    check_fast_playouts(load_game(f"hex:size={size}").initial_state(), playouts=40)


def test_fast_playouts_from_positions_late_in_games() -> None:
    rng = random.Random(5)
    game = load_game("hex:size=4")
    for _ in range(20):
        state = game.initial_state()
        while not state.is_terminal():
            if len(state.legal_moves(state.mover)) <= 7:
                check_fast_playouts(state, playouts=5, seed=rng.randrange(1000))
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])


def test_size_one_is_won_by_the_first_stone() -> None:
    state = play(load_game("hex:size=1").initial_state(), ("a", 1))
    assert state.goals() == (100, 0)


@pytest.mark.parametrize("size", [2, 3, 5, 9, 11])
def test_invariants_on_several_sizes(size: int) -> None:
    check_random_playouts(load_game(f"hex:size={size}"), playouts=6, seed=size)


@pytest.mark.parametrize("size", [3, 6, 9])
def test_incremental_win_and_moves_agree_with_a_rebuild_from_facts(size: int) -> None:
    rng = random.Random(size)
    game = load_game(f"hex:size={size}")
    for _ in range(10):
        state = game.initial_state()
        while not state.is_terminal():
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
            rebuilt = game.state_from_facts(state.facts())
            assert rebuilt.winner == state.winner
            assert rebuilt.all_legal_moves() == state.all_legal_moves()


@pytest.mark.parametrize(
    "facts",
    [
        ["(cell a 1 red)"],
        ["(cell h 1 red)", "(control red)"],
        ["(cell a 1 red)", "(cell a 1 blue)", "(control red)"],
        ["(step 1)", "(control red)"],
    ],
)
def test_bad_facts_are_refused(facts: list[str]) -> None:
    with pytest.raises(GameError):
        Hex().state_from_facts(facts)


def test_render_draws_the_rhombus() -> None:
    picture = play(Hex().initial_state(), ("b", 3), ("c", 1)).render()
    lines = picture.splitlines()
    assert lines[2] == " b  . . R . . . ." and lines[3] == "  c  B . . . . . ."
    assert "row a (top) and row g (bottom)" in picture


def test_agrees_with_the_recorded_playouts_of_the_public_hex(shared_dir) -> None:
    """The corpus game is this one at size 9; its connection-tracking facts
    (connected, owner, step) are left out of the comparison."""
    game = load_game("hex:size=9")
    path = shared_dir / "gdl-corpus" / "traces" / "hex.jsonl.gz"
    with gzip.open(path, "rt") as lines:
        playouts = [json.loads(line) for line in lines]
    assert playouts

    def board(facts: list[str]) -> tuple[str, ...]:
        return tuple(f for f in facts if f.startswith(("(cell ", "(control ")))

    for playout in playouts:
        assert list(game.roles) == playout["roles"]
        state = game.initial_state()
        for step in playout["steps"]:
            assert state.facts() == board(step["state"])
            assert not state.is_terminal()
            for index, role in enumerate(game.roles):
                assert list(state.legal_moves(index)) == step["legal"][role]
            state = state.next(step["joint"])
        assert state.facts() == board(playout["terminal_state"])
        if not playout["truncated"]:
            assert state.is_terminal()
            assert dict(zip(game.roles, state.goals(), strict=True)) == playout["goals"]
