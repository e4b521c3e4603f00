"""benchmarks/heuristic_features.py as documented (docs/per-game-search.md), on small
games: the held-out figures of the counts alone and of the fit kept, per seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_gdl_native import needs_native

ROOT = Path(__file__).resolve().parent.parent


@needs_native
def test_the_benchmark_writes_each_games_held_out_figures(tmp_path) -> None:
    out = tmp_path / "features.json"
    games = "games/gdl/tictactoe.kif,games/gdl/breakthrough.kif"
    command = [sys.executable, "benchmarks/heuristic_features.py", "--games", games]
    command += ["--seeds", "1", "--out", str(out)]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    assert done.stdout.startswith(b"| game | seed |")
    tictactoe, breakthrough = json.loads(out.read_text())
    assert tictactoe["game"] == "tictactoe" and not tictactoe["heuristic"]
    assert breakthrough["heuristic"] and len(breakthrough["counts"]) == 2
    assert min(breakthrough["counts"]) > 0.3 and "load" in breakthrough
    assert set(breakthrough["kept"]) <= set(breakthrough["tried"])
    assert breakthrough["cpu"] > 0 and breakthrough["cpu_counts"] > 0
