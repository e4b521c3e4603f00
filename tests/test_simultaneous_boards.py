"""benchmarks/simultaneous_boards.py: a connectFourSimultaneous log split into its boards."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import simultaneous_boards as boards  # noqa: E402

SOLVER = Path(__file__).resolve().parent.parent / "benchmarks" / "connect4_solver.c"


def match(last_red: str) -> list[list[str]]:
    """Red stacks column 1 of board 1; black does not block it at turn 5."""
    return [
        ["(drop 1 1)", "(drop 1 2)"],
        ["(drop 5 2)", "(drop 2 1)"],
        ["(drop 1 1)", "(drop 1 2)"],
        ["(drop 5 2)", "(drop 3 1)"],
        ["(drop 1 1)", "(drop 1 2)"],
        ["(drop 1 2)", "(drop 4 1)"],  # red blocks black's column on board 2; black does not
        [last_red, "(drop 2 2)"],
    ]


def test_a_threat_left_and_the_line_that_follows() -> None:
    notes = boards.turns(match("(drop 1 1)"))
    assert notes[0].startswith("turn 5 ")
    assert "black dropped 4 on board 1, leaving red [1]" in notes[0]
    assert "1: []" in notes[0] and "4: [1]" in notes[0]  # blocking at 1 leaves nothing
    assert "red dropped" not in notes[0]  # red blocked at once on board 2
    assert notes[1].startswith("turn 6 ") and notes[1].endswith("red has a line on board 1")
    assert len(notes) == 2


def test_a_missed_win_and_the_boards_sequences() -> None:
    notes = boards.turns(match("(drop 8 1)"))
    assert "red missed a win on board 1 ([1]), dropped 8" in notes[-1]
    sequences = boards.board_sequences(match("(drop 8 1)"))
    assert sequences[1] == ("1213148", ["red", "black"] * 3 + ["red"])
    assert sequences[2] == ("1515112", ["black", "red"] * 3 + ["black"])


def test_exact_values_from_the_solver(tmp_path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "connect4_solver"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(SOLVER)], check=True)
    # A position of a logged connectFour match (test_connect4_solver.LATE); 4, 5, 7 full.
    values = boards.exact(binary, "545554445227477312743778885133", timeout=60)
    assert values == {1: -1, 2: -1, 3: 1, 6: -1, 8: -1}
    assert boards.exact(binary, "", timeout=0.2) is None  # the empty board takes longer


def test_a_move_of_another_game_is_refused() -> None:
    with pytest.raises(SystemExit, match="not a connectFourSimultaneous move"):
        boards.parse_move("(mark 1 1)")
