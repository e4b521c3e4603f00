"""benchmarks/local_share.py as documented (docs/tactics.md), on the tic-tac-toe match
lost by the edge reply (tests/test_tactics_blunders_benchmark.py)."""

from __future__ import annotations

import subprocess
import sys

from test_gdl_native import needs_native
from test_tactics_blunders_benchmark import ROOT, lost_log


@needs_native
def test_the_benchmark_counts_the_positions_and_what_each_search_proves(tmp_path) -> None:
    path = lost_log(tmp_path)
    command = [sys.executable, "benchmarks/local_share.py", str(path)]
    command += ["--budget", "20000", "--every", "1", "--from-ply", "0"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith("load average before: ")
    summary = next(line for line in lines if line.startswith("ticTacToe: "))
    # O chose at plies 1, 3 and 5; at each, some move loses by force (after the corner,
    # the edge beside it), which 20,000 states prove full width: the searches finish,
    # and the local one never runs
    assert summary.startswith("ticTacToe: matches 1, positions 3, full proves 3, local adds 0,")
    assert "served only 0," in summary and "full only 0," in summary
