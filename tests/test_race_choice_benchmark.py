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
