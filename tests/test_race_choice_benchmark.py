"""benchmarks/race_choice.py as documented (docs/per-game-search.md), on tic-tac-toe
with small budgets: what the races chose, with their verdicts and the load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmark_writes_each_games_verdicts_and_choice(tmp_path) -> None:
    out = tmp_path / "choice.json"
    command = [sys.executable, "benchmarks/race_choice.py", "--games", "games/gdl/tictactoe.kif"]
    command += ["--race-cpu", "1", "--check", "2", "--move-cpu", "0.2", "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    (entry,) = json.loads(out.read_text())
    assert entry["game"] == "tictactoe" and entry["roles"] == 2
    assert entry["default"] == "decisive playouts, c=0.35"
    assert entry["race_cpu"] >= 1 and len(entry["load"]) == 2
    assert ("check" in entry) == (entry["chosen"] != entry["default"])
    assert all(" against decisive playouts, c=0.35: " in v for v in entry["verdicts"][:1])


STUCK = """
(role left) (role right)
(init (step 0))
(<= (legal ?r (go ?n)) (role ?r) (true (step 0)) (num ?n))
(num 1) (num 2)
(<= (next (step 1)) (true (step 0)))
(<= terminal (true (step 2)))
(<= (goal ?r 50) (role ?r))
"""
"""After the first move no role has a legal move, and the game is not over: rules that
break in every playout, where the search worker races nothing."""


def test_a_game_the_worker_does_not_race_is_recorded_as_such(tmp_path) -> None:
    rules = tmp_path / "stuck.kif"
    rules.write_text(STUCK)
    out = tmp_path / "choice.json"
    command = [sys.executable, "benchmarks/race_choice.py", "--games", str(rules)]
    command += ["--race-cpu", "1", "--tactics", "no", "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    (entry,) = json.loads(out.read_text())
    assert entry["game"] == "stuck" and entry["races"].startswith("none")
    assert "verdicts" not in entry and len(entry["load"]) == 2
