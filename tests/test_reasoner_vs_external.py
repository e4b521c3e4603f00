"""benchmarks/reasoner_vs_external.py: another reasoner's figures read from a file, the
ratios and their geometric mean, and a run on a corpus game."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import reasoner_vs_external as bench  # noqa: E402


def test_figures_are_read_from_json_and_csv(tmp_path: Path) -> None:
    data = {
        "reasoner": "Other 1.0",
        "games": {
            "a": {"states_per_cpu_s": 1000, "ready_cpu_s": 2.5},
            "b": {"error": "could not build"},
        },
    }
    (tmp_path / "other.json").write_text(json.dumps(data))
    name, figures = bench.read_external(tmp_path / "other.json")
    assert name == "Other 1.0"
    assert figures["a"] == bench.External(1000.0, 2.5, "")
    assert figures["b"] == bench.External(None, None, "could not build")
    (tmp_path / "other.csv").write_text("game,states_per_cpu_s,ready_cpu_s\na,1000,2.5\nb,,\n")
    name, figures = bench.read_external(tmp_path / "other.csv")
    assert name == "other"
    assert figures["a"] == bench.External(1000.0, 2.5, "")
    assert figures["b"].states is None


def test_a_figure_that_is_not_one_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({"games": {"a": {"states_per_cpu_s": -3}}}))
    with pytest.raises(ValueError, match="not a figure"):
        bench.read_external(tmp_path / "bad.json")
    (tmp_path / "flat.json").write_text(json.dumps({"a": 3}))
    with pytest.raises(ValueError, match="'games' object"):
        bench.read_external(tmp_path / "flat.json")


def test_ratios_and_their_geometric_mean() -> None:
    games = [
        bench.Ours("a", ready=1.0, one=[100.0, 200.0, 300.0], batched=[400.0, 400.0, 400.0]),
        bench.Ours("b", ready=2.0, one=[50.0], batched=[100.0]),
        bench.Ours("c", note="interpreter: past the budget"),
    ]
    external = {"a": bench.External(100.0, 3.0), "b": bench.External(200.0, None)}
    lines = bench.table(games, "Other", external)
    rows = {line.split("|")[1].strip(): line for line in lines[2:]}
    assert "| 2.00x | 4.00x |" in rows["a"]  # medians 200 and 400 against 100
    assert "| 0.25x | 0.50x |" in rows["b"]
    assert "interpreter: past the budget" in rows["c"] and "| -x |" not in rows["c"]
    mean = rows["geometric mean (2 games)"]
    assert f"| {math.sqrt(2.0 * 0.25):.2f}x | {math.sqrt(4.0 * 0.5):.2f}x |" in mean


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_corpus_game_beside_given_figures(shared_dir: Path, tmp_path: Path) -> None:
    figures = tmp_path / "other.json"
    figures.write_text(
        json.dumps(
            {
                "reasoner": "Other",
                "games": {"ticTacToe": {"states_per_cpu_s": 1000.0, "ready_cpu_s": 1.0}},
            }
        )
    )
    out = tmp_path / "ours.json"
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "reasoner_vs_external.py"),
        "ticTacToe",
        "--external",
        str(figures),
        "--seconds",
        "0.05",
        "--rounds",
        "1",
        "--corpus",
        str(shared_dir / "gdl-corpus"),
        "--json",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| ticTacToe"))
    ours = json.loads(out.read_text())["games"]["ticTacToe"]
    assert ours["states_per_cpu_s"] > 0 and ours["ready_cpu_s"] > 0
    assert f"| {ours['states_per_cpu_s'] / 1000.0:.2f}x |" in row
    assert "geometric mean (1 games)" in done.stdout


def test_our_figures_are_kept_and_read_back(tmp_path: Path) -> None:
    games = [bench.Ours("a", ready=1.5, one=[100.0, 300.0], batched=[900.0, 700.0], note="n")]
    path = tmp_path / "ours.json"
    path.write_text(json.dumps(bench.figures_of(games)))
    external = {"a": bench.External(100.0, 3.0)}
    assert bench.table(bench.read_ours(path), "Other", external) == bench.table(
        games, "Other", external
    )
