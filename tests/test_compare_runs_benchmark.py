"""benchmarks/compare_runs.py as documented (docs/tactics.md): two options' scores game by
game, the difference with Newcombe's interval, the mean over the games both played."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def results(path: Path, serve_args: str, games: dict[str, list[int]], opponent: str = "S") -> str:
    """A results file of strength.py: per game, our goal in each match (seats swapped)."""
    report = {
        "opponent": opponent,
        "startclock": 60.0,
        "playclock": 10.0,
        "serve_args": serve_args,
        "games": {
            game: {
                "matches_detail": [
                    {
                        "ours_role": i % 2,
                        "goals": [ours, 100 - ours] if i % 2 == 0 else [100 - ours, ours],
                        "errors": {},
                        "commit": "abc1234",
                    }
                    for i, ours in enumerate(goals)
                ]
            }
            for game, goals in games.items()
        },
    }
    path.write_text(json.dumps(report))
    return str(path)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "benchmarks/compare_runs.py", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_each_game_both_sides_played_is_compared_and_the_mean_taken(tmp_path: Path) -> None:
    on = results(
        tmp_path / "on.json", "--tactics yes", {"hex": [100] * 9 + [0], "bt": [100, 0] * 5}
    )
    more = results(tmp_path / "more.json", "--tactics yes", {"bt": [50, 50], "c4": [100]})
    off = results(tmp_path / "off.json", "", {"hex": [100] * 3 + [0] * 7, "bt": [100, 0] * 5})
    done = run("--a", on, f"{more}:bt", "--b", off, "--names", "on", "off")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "a: on; b: off; against S, 60.0 s / 10.0 s"
    bt, hexes, mean = lines[2].split(" | "), lines[3].split(" | "), lines[4].split(" | ")
    assert bt[0] == "bt" and bt[1].startswith("6/12 0.50 (") and bt[2].startswith("5/10 0.50 (")
    assert bt[3].startswith("+0.00 (")
    # Newcombe's method 10 at 9 of 10 against 3 of 10: 0.1705 to 0.8090.
    assert hexes[0] == "hex" and hexes[3] == "+0.60 (+0.17 to +0.81)"
    assert mean[0] == "mean of 2 games" and mean[1:3] == ["0.70", "0.40"]
    low, high = (float(x) for x in mean[3].split("(")[1].rstrip(")").split(" to "))
    assert -0.1 < low < 0.3 < high < 0.7  # narrower than hex's own, wider than nothing
    assert "c4" not in done.stdout  # only side a's second file played it, and it was not asked for


def test_a_game_of_one_side_is_named_and_left_out(tmp_path: Path) -> None:
    on = results(tmp_path / "on.json", "--tactics yes", {"hex": [100], "bt": [0]})
    off = results(tmp_path / "off.json", "", {"hex": [0]})
    done = run("--a", on, "--b", off)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "bt: played by a only, left out"


def test_results_against_another_opponent_are_refused(tmp_path: Path) -> None:
    on = results(tmp_path / "on.json", "--tactics yes", {"hex": [100]})
    off = results(tmp_path / "off.json", "", {"hex": [0]}, opponent="T")
    done = run("--a", on, "--b", off)
    assert done.returncode == 2 and "side a was played with" in done.stderr
    other = results(tmp_path / "other.json", "--tactics yes", {"hex": [0]}, opponent="T")
    done = run("--a", on, other, "--b", off)
    assert done.returncode == 2 and "other.json was played with" in done.stderr
    done = run("--a", on, "--b", results(tmp_path / "none.json", "", {"bt": [0]}))
    assert done.returncode == 2 and "no game was played by both sides" in done.stderr
