"""benchmarks/position_accuracy.py: the served search graded against exact values."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import position_accuracy  # noqa: E402
from position_accuracy import Position  # noqa: E402

MOVES = [
    ["(mark 1 1)", "noop"],
    ["noop", "(mark 2 1)"],
    ["(mark 1 2)", "noop"],
    ["noop", "(mark 2 2)"],
    ["(mark 3 3)", "noop"],
]
"""Tic-tac-toe where xplayer, on move at step 4, wins at once with (mark 1 3) and
loses after (mark 3 3) (oplayer completes its row with (mark 2 3))."""


def positions(tmp_path: Path, values: dict[str, int]) -> Path:
    log = tmp_path / "match.json"
    log.write_text(json.dumps({"moves": MOVES, "x-game": "tictactoe"}))
    position = Position(str(log), 4, 0, values, "(mark 3 3)", "tictactoe", 4)
    path = tmp_path / "positions.json"
    path.write_text(json.dumps([position.as_json()]))
    return path


def grade(tmp_path: Path, capsys, values: dict[str, int], *args: str) -> str:
    argv = ["position_accuracy.py", "grade", str(positions(tmp_path, values)), *args]
    old = sys.argv
    sys.argv = argv
    try:
        position_accuracy.main()
    finally:
        sys.argv = old
    return capsys.readouterr().out


def test_a_move_is_right_only_where_it_keeps_the_best_value() -> None:
    position = Position("log", 0, 0, {"a": 1, "b": 1, "c": -1}, "c", "g", 0)
    assert position.right("a") and position.right("b")
    assert not position.right("c")
    assert not position.right("d")  # a move the solver did not value


def test_the_search_keeps_a_win_at_once(tmp_path, capsys) -> None:
    values = {"(mark 1 3)": 1, "(mark 3 3)": -1, "(mark 2 3)": 0}
    out = grade(tmp_path, capsys, values, "--simulations", "300", "--seeds", "2")
    assert "serve (300 simulations a search, 2 seeds" in out
    assert "all                      1.000 (0.34-1.00) of 2," in out  # proven at once


def test_a_move_that_throws_the_value_away_is_graded_wrong(tmp_path, capsys) -> None:
    values = {"(mark 1 3)": -1, "(mark 3 3)": 1}  # not the game's values: the grade must fall
    out = grade(tmp_path, capsys, values, "--simulations", "300", "--seeds", "2", "--spec", "c=0.7")
    assert "c=0.7 (300 simulations" in out
    assert "tictactoe                0.000 (0.00-0.66) of 2" in out
