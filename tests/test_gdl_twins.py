"""The GDL twins in games/gdl/ play exactly like the native games they copy.

Native and twin are driven with the same random joint moves and compared at
every step: the state facts, every role's legal moves, terminality and the
goals.  Both list legal moves sorted (native games use sorted move tables,
GDL games sort what the reasoner derives), so the test compares the tuples:
the same order is what lets a seeded random agent play the same game with
or without ``--gdl``.
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pytest
from ggp.cli import main
from ggp.games.base import Game, State
from ggp.games.registry import GDL_DIR, NATIVE_GAMES, load_game

TWINS = tuple(NATIVE_GAMES)
"""Every built-in game has a GDL twin."""

PLAYOUTS = 200
CHUNKS = 4
"""Random playouts per game, split into `CHUNKS` tests so xdist can balance them."""


def assert_agree(native: State, twin: State) -> None:
    """The two states are the same state of the same game."""
    where = f"in state {' '.join(native.facts())}"
    assert twin.facts() == native.facts(), where
    assert twin.is_terminal() == native.is_terminal(), where
    assert twin.all_legal_moves() == native.all_legal_moves(), where
    assert twin.goals() == native.goals(), where


def play_both(native_game: Game, twin_game: Game, seed: int) -> None:
    """One random playout on the native game and its twin, compared at every step."""
    native, twin = native_game.initial_state(), twin_game.initial_state()
    rng = random.Random(seed)
    assert_agree(native, twin)
    while not native.is_terminal():
        joint = [rng.choice(moves) for moves in native.all_legal_moves()]
        native, twin = native.next(joint), twin.next(joint)
        assert_agree(native, twin)


def assert_agree_around(name: str, facts: list[str]) -> None:
    """The position given by `facts` and every position one joint move later agree."""
    native = load_game(name).state_from_facts(facts)
    twin = load_game(name, gdl=True).state_from_facts(facts)
    assert_agree(native, twin)
    for joint in _joints(native):
        assert_agree(native.next(joint), twin.next(joint))


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", TWINS)
def test_random_playouts_agree(name: str, chunk: int) -> None:
    native_game, twin_game = load_game(name), load_game(name, gdl=True)
    per_chunk = PLAYOUTS // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        play_both(native_game, twin_game, seed)


def test_whole_tictactoe_game_tree_agrees() -> None:
    native_game, twin_game = load_game("tictactoe"), load_game("tictactoe", gdl=True)
    start = native_game.initial_state(), twin_game.initial_state()
    seen = {start[0]}
    queue = deque([start])
    while queue:
        native, twin = queue.popleft()
        assert_agree(native, twin)
        if native.is_terminal():
            continue
        for joint in _joints(native):
            after = native.next(joint)
            if after not in seen:
                seen.add(after)
                queue.append((after, twin.next(joint)))
    assert len(seen) == 5478


def _joints(state: State) -> list[list[str]]:
    joints: list[list[str]] = [[]]
    for moves in state.all_legal_moves():
        joints = [joint + [move] for joint in joints for move in moves]
    return joints


def connect_four_board(*columns: str) -> list[str]:
    """The cell facts of columns spelled bottom-up with ``r`` (red) and ``b`` (black)."""
    role = {"r": "red", "b": "black"}
    return [
        f"(cell {c} {r} {role[disc]})"
        for c, column in enumerate(columns, 1)
        for r, disc in enumerate(column, 1)
    ]


def test_connect_four_full_board_draw_agrees() -> None:
    # A full board without four in a row; black fills its last cell.
    columns = ["rrbbrr", "rrbbrr", "bbrrbb", "rrbbrr", "bbrrbb", "rbrbrb", "bbrrbb"]
    assert_agree_around("connect_four", [*connect_four_board(*columns), "(control red)"])
    columns[-1] = columns[-1][:-1]
    before = load_game("connect_four").state_from_facts(
        [*connect_four_board(*columns), "(control black)"]
    )
    assert before.legal_moves(1) == ("(drop 7)",)
    assert before.next(["noop", "(drop 7)"]).goals() == (50, 50)
    assert_agree_around("connect_four", [*connect_four_board(*columns), "(control black)"])


def test_othello_pass_and_early_end_agree() -> None:
    # Red has no disc to flank: it must pass; black then takes the last red disc.
    facts = ["(cell 1 1 black)", "(cell 1 2 red)", "(control red)"]
    native = load_game("othello").state_from_facts(facts)
    assert native.all_legal_moves() == (("noop",), ("noop",))
    assert not native.is_terminal()
    assert_agree_around("othello", facts)
    after = native.next(["noop", "noop"])
    assert after.all_legal_moves() == (("(move 1 3)",), ("noop",))
    assert after.next(["(move 1 3)", "noop"]).goals() == (100, 0)
    assert_agree_around("othello", list(after.facts()))


@pytest.mark.parametrize(
    ("facts", "capture", "goals"),
    [
        # White takes black's last pawn (or could step ahead instead).
        (
            ["(cellholds 3 4 white)", "(cellholds 4 5 black)", "(control white)"],
            ["(move 3 4 4 5)", "noop"],
            (100, 0),
        ),
        # Black takes white's last pawn, far from either far row.
        (
            [
                "(cellholds 5 4 white)",
                "(cellholds 6 5 black)",
                "(cellholds 1 7 black)",
                "(control black)",
            ],
            ["noop", "(move 6 5 5 4)"],
            (0, 100),
        ),
    ],
)
def test_breakthrough_wipe_out_agrees(facts: list[str], capture: list[str], goals: tuple) -> None:
    assert_agree_around("breakthrough", facts)
    after = load_game("breakthrough").state_from_facts(facts).next(capture)
    assert after.is_terminal() and after.goals() == goals
    assert_agree_around("breakthrough", list(after.facts()))


@pytest.mark.parametrize("mover", ["white", "black"])
def test_breakthrough_side_without_pawns_has_lost(mover: str) -> None:
    for survivor, goals in (("white", (100, 0)), ("black", (0, 100))):
        facts = [f"(cellholds 4 4 {survivor})", f"(control {mover})"]
        assert load_game("breakthrough").state_from_facts(facts).goals() == goals
        assert_agree_around("breakthrough", facts)


@pytest.mark.parametrize("name", TWINS)
def test_twin_loads_by_name_with_the_native_roles(name: str) -> None:
    twin = load_game(name, gdl=True)
    assert twin.name == name
    assert twin.roles == load_game(name).roles


@pytest.mark.parametrize("name", TWINS)
def test_twin_passes_check(name: str, capsys) -> None:
    assert main(["check", str(GDL_DIR / f"{name}.kif")]) == 0
    assert f"{name}: valid GDL" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "corpus_game"),
    [("tictactoe", "ticTacToe"), ("othello", "reversi"), ("breakthrough", "breakthrough")],
)
def test_twin_replays_the_corpus_playouts_of_the_same_game(
    name: str, corpus_game: str, shared_dir: Path, capsys
) -> None:
    # These public games have the twin's rules, names and facts (see the native
    # modules), so their recorded playouts check the twins independently.
    traces = shared_dir / "gdl-corpus" / "traces" / f"{corpus_game}.jsonl.gz"
    assert main(["check", str(GDL_DIR / f"{name}.kif"), "--traces", str(traces)]) == 0
    assert "traces: 5 of 5 playouts agree" in capsys.readouterr().out


@pytest.mark.parametrize("name", TWINS)
def test_twin_states_are_drawn_as_the_native_board(name: str) -> None:
    native_game, twin_game = load_game(name), load_game(name, gdl=True)
    native, twin = native_game.initial_state(), twin_game.initial_state()
    rng = random.Random(5)
    for _ in range(6):
        assert twin.render() == native.render()
        if native.is_terminal():
            break
        joint = [rng.choice(moves) for moves in native.all_legal_moves()]
        native, twin = native.next(joint), twin.next(joint)


def test_facts_a_board_cannot_draw_are_listed() -> None:
    twin = load_game("tictactoe", gdl=True)
    twin.board_view = load_game("connect_four")
    state = twin.initial_state()
    assert state.render() == "\n".join(state.facts())
