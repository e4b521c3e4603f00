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

import pytest

from games.base import State
from games.registry import GDL_DIR, load_game
from ggp.cli import main

TWINS = ("tictactoe",)
"""The built-in games whose GDL twin is written so far."""

CHUNKS = 4
PLAYOUTS = {"tictactoe": 200}
"""Random playouts per game, split into `CHUNKS` tests so xdist can balance them."""


def assert_agree(native: State, twin: State) -> None:
    """The two states are the same state of the same game."""
    where = f"in state {' '.join(native.facts())}"
    assert twin.facts() == native.facts(), where
    assert twin.is_terminal() == native.is_terminal(), where
    assert twin.all_legal_moves() == native.all_legal_moves(), where
    assert twin.goals() == native.goals(), where


def play_both(name: str, seed: int) -> int:
    """One random playout on the native game and its twin; its length."""
    native = load_game(name).initial_state()
    twin = load_game(name, gdl=True).initial_state()
    rng = random.Random(seed)
    steps = 0
    assert_agree(native, twin)
    while not native.is_terminal():
        joint = [rng.choice(moves) for moves in native.all_legal_moves()]
        native, twin = native.next(joint), twin.next(joint)
        assert_agree(native, twin)
        steps += 1
    return steps


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", TWINS)
def test_random_playouts_agree(name: str, chunk: int) -> None:
    per_chunk = PLAYOUTS[name] // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        assert play_both(name, seed) > 0


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


@pytest.mark.parametrize("name", TWINS)
def test_twin_loads_by_name_with_the_native_roles(name: str) -> None:
    twin = load_game(name, gdl=True)
    assert twin.name == name
    assert twin.roles == load_game(name).roles


@pytest.mark.parametrize("name", TWINS)
def test_twin_passes_check(name: str, capsys) -> None:
    assert main(["check", str(GDL_DIR / f"{name}.kif")]) == 0
    assert f"{name}: valid GDL" in capsys.readouterr().out
