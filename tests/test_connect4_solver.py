"""benchmarks/connect4_solver.c, the exact values the Connect Four diagnosis trusts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "benchmarks" / "connect4_solver.c"

LATE = "545554445227477312743778885133"
"""A position of a logged match (thirty discs), its values checked by a plain negamax."""


@pytest.fixture(scope="module")
def solver(tmp_path_factory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    binary = tmp_path_factory.mktemp("solver") / "connect4_solver"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(SOURCE)], check=True)
    return binary


def values(solver: Path, moves: str) -> dict[int, str]:
    out = subprocess.run([str(solver), moves], capture_output=True, text=True, check=True).stdout
    return {int(line[4]): line[7:9].strip() for line in out.splitlines()}


def test_values_of_a_late_position(solver) -> None:
    found = values(solver, LATE)
    assert found == {1: "-1", 2: "-1", 3: "+1", 4: "fu", 5: "fu", 6: "-1", 7: "fu", 8: "-1"}


def test_wins_at_once_and_moves_that_let_one_happen(solver) -> None:
    assert values(solver, "151515")[1] == "+1"  # the first player completes column 1
    found = values(solver, "1515152")  # the first player let the second complete column 5
    assert found[5] == "+1"
    assert all(found[column] == "-1" for column in (2, 3, 4, 6, 7, 8))  # column 1 left open


def test_the_depth_of_a_forced_win(solver) -> None:
    out = subprocess.run([str(solver), LATE[:24], "25"], capture_output=True, text=True).stdout
    assert out.startswith("forced win in 17 plies")


def test_bad_moves_are_refused(solver) -> None:
    done = subprocess.run([str(solver), "9"], capture_output=True, text=True)
    assert done.returncode == 2 and "bad move '9'" in done.stderr
    done = subprocess.run([str(solver), "1111111"], capture_output=True, text=True)
    assert done.returncode == 2
