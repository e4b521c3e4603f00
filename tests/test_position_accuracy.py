"""benchmarks/position_accuracy.py: the served search graded against exact values."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import position_accuracy  # noqa: E402
from gdl_texts import TICTACTOE_MOVES  # noqa: E402
from position_accuracy import Grade, Position, paired  # noqa: E402


def positions(tmp_path: Path, values: dict[str, int]) -> Path:
    log = tmp_path / "match.json"
    log.write_text(json.dumps({"moves": TICTACTOE_MOVES, "x-game": "tictactoe"}))
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


def fake_solver(tmp_path: Path, values: dict[str, str]) -> Path:
    """A stand-in for the built connect4_solver: the values of the open columns
    after the drops given (its first argument), from `values`, in its output's form."""
    script = tmp_path / "solver"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"for column, value in json.loads({json.dumps(json.dumps(values))})[sys.argv[1]]:\n"
        "    print(f'col {column}: {value}  (1 nodes, 0.0 s)')\n"
    )
    script.chmod(0o755)
    return script


def connect_four_log(tmp_path: Path) -> Path:
    """We are red (the port not Sancho's); our drops at 0, 2 and 4 discs."""
    log = tmp_path / "connectFour.20261206T000000.abcdef.0.json"
    moves = [["(drop 4)", "noop"], ["noop", "(drop 4)"], ["(drop 5)", "noop"]]
    moves += [["noop", "(drop 3)"], ["(drop 2)", "noop"]]
    log.write_text(
        json.dumps(
            {
                "moves": moves,
                "x-game": "connectFour",
                "playerNamesFromHost": ["http://127.0.0.1:40000", "http://127.0.0.1:9160"],
            }
        )
    )
    return log


VALUES = {
    "44": [[1, "-1"], [2, "+1"], [5, "-1"]],  # a choice that matters: kept
    "4453": [[1, "-1"], [2, "-1"], [6, "-1"]],  # lost whatever we drop: left out
}


def test_build_keeps_the_choices_that_matter_and_says_why_others_are_left_out(
    tmp_path, capsys, monkeypatch
) -> None:
    log, solver = connect_four_log(tmp_path), fake_solver(tmp_path, VALUES)
    out = tmp_path / "positions.json"
    argv = ["position_accuracy.py", "build", str(log), "--solver", str(solver), "--discs", "1-4"]
    monkeypatch.setattr(sys, "argv", [*argv, "--timeout", "30", "--out", str(out)])
    position_accuracy.main()
    captured = capsys.readouterr()
    err = captured.err
    assert "step 2: {'(drop 1)': -1, '(drop 2)': 1, '(drop 5)': -1}" in err
    assert "step 4: every drop -1, left out" in err
    (kept,) = [Position.from_json(p) for p in json.loads(out.read_text())]
    assert (kept.step, kept.role, kept.played, kept.discs) == (2, 0, "(drop 5)", 2)
    assert not kept.right(kept.played) and kept.right("(drop 2)")
    assert "the moves played in the matches: right at 0 of 1 (0.00, 0.00-0.79)" in captured.out


def test_build_takes_the_opponents_decisions_when_asked(tmp_path, monkeypatch, capsys) -> None:
    """Sancho (black, port 9160) dropped at 1 and 3 discs: its 3 discs are graded."""
    values = {"4": [[3, "0"], [4, "+1"]], "445": [[3, "+1"], [6, "-1"]]}
    log, solver = connect_four_log(tmp_path), fake_solver(tmp_path, values)
    out = tmp_path / "positions.json"
    argv = ["position_accuracy.py", "build", str(log), "--solver", str(solver), "--discs", "1-3"]
    monkeypatch.setattr(sys, "argv", [*argv, "--opponent", "--out", str(out)])
    position_accuracy.main()
    found = [Position.from_json(p) for p in json.loads(out.read_text())]
    assert [(p.step, p.role, p.played) for p in found] == [(1, 1, "(drop 4)"), (3, 1, "(drop 3)")]
    printed = capsys.readouterr().out
    assert "the moves played in the matches: right at 2 of 2" in printed
    assert "  as role 1: right at 2 of 2" in printed


def test_build_hands_over_each_position_as_it_is_found(tmp_path) -> None:
    log, solver = connect_four_log(tmp_path), fake_solver(tmp_path, VALUES)
    seen: list[list[int]] = []
    found = position_accuracy.build(
        [log], solver, range(1, 5), 30, {9160}, lambda so_far: seen.append([p.step for p in so_far])
    )
    assert seen == [[2]] and [p.step for p in found] == [2]


def test_specs_are_compared_position_by_position() -> None:
    first, other = Grade(), Grade()
    for right in (1, 1, 0, 0, 1, 0):  # three positions, two seeds each
        first.add(bool(right), 10)
    for right in (0, 0, 1, 1, 1, 0):
        other.add(bool(right), 10)
    assert paired(first, other, 2) == "better at 1, worse at 1, same at 1 (sign test p 1.000)"
    with pytest.raises(ValueError):
        paired(first, Grade(), 2)


def test_a_second_spec_is_shown_against_the_first(tmp_path, capsys) -> None:
    values = {"(mark 1 3)": 1, "(mark 3 3)": -1, "(mark 2 3)": 0}
    args = ("--simulations", "300", "--seeds", "2", "--spec", "serve", "--spec", "c=0.7")
    out = grade(tmp_path, capsys, values, *args)
    assert "positions against serve:" in out
    assert "better at 0, worse at 0, same at 1 (sign test p 1.000)" in out
