"""benchmarks/tactics_blunders.py as documented (docs/tactics.md), on a tic-tac-toe
match log that our player lost by a reply that loses by force within 6 plies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gdl_texts import TICTACTOE
from test_gdl_native import needs_native

ROOT = Path(__file__).resolve().parent.parent

LOST = [  # X takes a corner, we (O) answer on an edge beside it: lost by force
    ["(mark 1 1)", "noop"],
    ["noop", "(mark 2 1)"],
    ["(mark 2 2)", "noop"],
    ["noop", "(mark 3 3)"],
    ["(mark 1 2)", "noop"],
    ["noop", "(mark 1 3)"],
    ["(mark 3 2)", "noop"],
]


def lost_log(folder: Path) -> Path:
    """The tic-tac-toe match lost by the edge reply, as `benchmarks/strength.py` logs it
    (we are O, not on an opponent's port), written in `folder`."""
    log = {
        "playerNamesFromHost": ["http://127.0.0.1:9311", "http://127.0.0.1:40000"],
        "goalValues": [100, 0],
        "x-rules": TICTACTOE,
        "moves": LOST,
    }
    path = folder / "ticTacToe.1.json"
    path.write_text(json.dumps(log))
    return path


@needs_native
def test_the_benchmark_finds_the_losing_reply_and_what_would_have_avoided_it(tmp_path) -> None:
    path = lost_log(tmp_path)
    command = [sys.executable, "benchmarks/tactics_blunders.py", str(path)]
    command += ["--deep", "200000", "--python", "20000", "--native", "20000"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    row = json.loads(lines[1])
    assert row["blunder"] == "(mark 2 1)" and row["lost from our move"] == 1
    assert row["within"] == 6  # beyond the 5 plies of the search in Python
    assert not row["python"]["avoided"] and row["python"]["depth"] == 5
    for name in ("native 20000", "native+local 20000"):
        assert row[name]["avoided"] and row[name]["safe"], row[name]
    assert "losses: 1, with a blunder the deep search proves: 1" in lines
    assert lines[-4].startswith("python: avoided 0 of 1 (0 for a move not proven lost), ")
    assert lines[-3].startswith("native 20000: avoided 1 of 1 (1 for a move not proven lost)")
    assert lines[0].startswith("load average before: ")


WIDE = """
; Both roles pick one of 21 numbers at once (441 joint moves, past what the tactics take).
(role left) (role right)
(init (step 0))
(num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8) (num 9) (num 10) (num 11)
(num 12) (num 13) (num 14) (num 15) (num 16) (num 17) (num 18) (num 19) (num 20) (num 21)
(<= (legal ?r (pick ?n)) (role ?r) (num ?n))
(<= (next (step 1)) (true (step 0)))
(<= terminal (true (step 1)))
(goal left 0)
(goal right 100)
"""


@needs_native
def test_the_check_of_the_move_played_avoids_what_a_small_search_misses(tmp_path) -> None:
    """1,000 states for every move miss the loss within 6 plies; 20,000 more for the
    move played alone (the served search's check of its favourite) prove it, and the
    move the check stops at is not lost."""
    path = lost_log(tmp_path)
    command = [sys.executable, "benchmarks/tactics_blunders.py", str(path), "--deep", "200000"]
    command += ["--python", "1000", "--native", "1000", "--check", "20000"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    row = json.loads(lines[1])
    assert not row["native+local 1000"]["avoided"]
    checked = row["native+local 1000, check 20000"]
    assert checked["avoided"] and checked["plays safe"], checked
    assert 1000 < checked["states"] <= 21000
    assert any(
        line.startswith("native+local 1000, check 20000: avoided 1 of 1")
        and "playing a move not proven lost 1," in line
        for line in lines
    )


@needs_native
def test_a_position_the_search_does_not_take_ends_the_walk_back(tmp_path) -> None:
    """A loss at a position with more joint moves than the tactics search: nothing is
    proven there, so it is where the game was lost, and no blunder is claimed."""
    log = {
        "playerNamesFromHost": ["http://127.0.0.1:40000", "http://127.0.0.1:9311"],
        "goalValues": [0, 100],
        "x-rules": WIDE,
        "moves": [["(pick 1)", "(pick 2)"]],
    }
    path = tmp_path / "wide.1.json"
    path.write_text(json.dumps(log))
    command = [sys.executable, "benchmarks/tactics_blunders.py", str(path), "--deep", "1000"]
    command += ["--python", "1000", "--native", "1000"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    row = json.loads(done.stdout.decode().splitlines()[1])
    assert row["lost from our move"] == 1 and row["blunder"] is None
    assert row["deep"].startswith("nothing proven")
