"""benchmarks/root_diagnosis.py: a logged position replayed and searched on native code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import mcts_enhancements  # noqa: E402
import root_diagnosis  # noqa: E402
from gdl_texts import PENNIES, TICTACTOE_MOVES  # noqa: E402


def run(tmp_path: Path, capsys, *args: str) -> str:
    log = tmp_path / "match.json"
    log.write_text(json.dumps({"moves": TICTACTOE_MOVES}))
    argv = ["root_diagnosis.py", str(log), "--game", "tictactoe", *args]
    old = sys.argv
    sys.argv = argv
    try:
        root_diagnosis.main()
    finally:
        sys.argv = old
    return capsys.readouterr().out


def test_the_search_of_a_logged_position_is_shown_against_the_exact_values(
    tmp_path, capsys
) -> None:
    out = run(
        tmp_path,
        capsys,
        "--step",
        "4",
        "--simulations",
        "300",
        "--trees",
        "2",
        "--playouts",
        "50",
        "--values",
        "(mark 1 3)=1,(mark 3 3)=0",
    )
    assert "step 4: xplayer to move, played (mark 3 3)" in out
    assert "plays (mark 1 3) keeps the value" in out
    flat = [line for line in out.splitlines() if line.strip().startswith("(mark 1 3)")]
    assert flat[0].split()[3:6] == ["1.000"] * 3  # a win at once, random, greedy or decisive


def test_a_move_that_throws_the_value_away_is_named(tmp_path, capsys) -> None:
    out = run(
        tmp_path,
        capsys,
        "--step",
        "4",
        "--simulations",
        "300",
        "--values",
        "(mark 1 3)=0,(mark 3 3)=1",
    )
    assert "LOSES VALUE" in out


def test_bad_input_is_refused(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit, match="step 9 is not a step"):
        run(tmp_path, capsys, "--step", "9")
    with pytest.raises(SystemExit, match="not MOVE=VALUE"):
        root_diagnosis.parse_values("(mark 1 3)")


PENNIES_MOVES = [["Heads", "Tails"], ["Tails", "Tails"]]
"""Matching pennies (`gdl_texts.PENNIES`), both roles on move at every step."""


def test_a_simultaneous_move_is_shown_for_the_role_asked(tmp_path, capsys) -> None:
    rules = tmp_path / "pennies.kif"
    rules.write_text(PENNIES)
    log = tmp_path / "match.json"
    log.write_text(json.dumps({"moves": PENNIES_MOVES}))
    old = sys.argv
    sys.argv = ["root_diagnosis.py", str(log), "--game", str(rules), "--step", "1"]
    sys.argv += ["--role", "right", "--simulations", "200", "--playouts", "40", "--depths"]
    try:
        root_diagnosis.main()
    finally:
        sys.argv = old
    out = capsys.readouterr().out
    assert "step 1: right to move, played Tails" in out
    flat = {line.split()[0]: line.split()[1:] for line in out.splitlines()[4:6]}
    # Round 1 was not matched; whatever right plays now, left matches it in half
    # of its moves (right gets 50) and not in the other half (right gets 100).
    assert flat == {"Heads": ["0.750"] * 3, "Tails": ["0.750"] * 3}
    shape = [line.split() for line in out.splitlines() if line.startswith("  first tree")][0]
    assert shape[6] == "1" and 1 <= int(shape[7]) <= 4 and len(shape) == 8  # then terminal
    assert "its most visited line: visits " in out
    state = root_diagnosis.replay(root_diagnosis.native_game(str(rules)), PENNIES_MOVES, 1)
    assert root_diagnosis.mover(state, "left") == 0
    with pytest.raises(SystemExit, match="'middle' is not a role"):
        root_diagnosis.mover(state, "middle")


def test_the_rules_are_read_from_the_log_itself(tmp_path, capsys) -> None:
    """A match log of `benchmarks/strength.py` holds the rules' text (``x-rules``)."""
    log = tmp_path / "match.json"
    log.write_text(json.dumps({"moves": PENNIES_MOVES, "x-rules": PENNIES}))
    old = sys.argv
    sys.argv = ["root_diagnosis.py", str(log), "--step", "1", "--role", "left"]
    sys.argv += ["--simulations", "50"]
    try:
        root_diagnosis.main()
    finally:
        sys.argv = old
    assert "step 1: left to move, played Tails" in capsys.readouterr().out


def test_a_game_file_whose_path_holds_a_parenthesis_is_read_as_a_file(tmp_path) -> None:
    """Only a log's ``x-rules`` is rules' text: a ``.kif`` path is a path whatever it holds."""
    rules = tmp_path / "pennies (copy).kif"
    rules.write_text(PENNIES)
    state = root_diagnosis.replay(root_diagnosis.native_game(str(rules)), PENNIES_MOVES, 1)
    assert root_diagnosis.mover(state, "left") == 0


def test_a_log_without_rules_or_a_game_is_refused() -> None:
    with pytest.raises(SystemExit, match="holds no rules and names no game"):
        root_diagnosis.log_game({"moves": PENNIES_MOVES})


def test_logs_of_the_same_rules_share_one_game() -> None:
    games = mcts_enhancements.log_game
    first = games({"moves": PENNIES_MOVES, "x-rules": PENNIES})
    assert games({"moves": [], "x-rules": PENNIES}) is first
    other = games({"moves": [], "x-rules": PENNIES.replace("Heads", "Crowns")})
    assert other is not first
    assert "Crowns" in other.initial_state().all_legal_moves()[0]
