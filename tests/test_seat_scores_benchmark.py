"""benchmarks/seat_scores.py as documented (docs/results.md): each game's scores by seat
over match logs, ours and the opponent's, the logs it cannot read skipped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from seat_scores import our_seat  # noqa: E402


def write_log(folder: Path, name: str, urls: list[str], goals: list[int] | None) -> None:
    log = {"playerNamesFromHost": urls, "goalValues": goals, "moves": []}
    (folder / name).write_text(json.dumps(log))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The benchmark with these arguments, its output as text."""
    command = [sys.executable, "benchmarks/seat_scores.py", *args]
    return subprocess.run(
        command, cwd=ROOT, check=True, capture_output=True, text=True, timeout=120
    )


def test_the_benchmark_splits_each_games_points_by_seat(tmp_path: Path) -> None:
    us, them = "http://127.0.0.1:40000", "http://127.0.0.1:9160"
    write_log(tmp_path, "connectFour.1.json", [us, them], [0, 100])  # the second seat wins
    write_log(tmp_path, "connectFour.2.json", [them, us], [0, 100])
    write_log(tmp_path, "connectFour.3.json", [them, us], [50, 50])
    write_log(tmp_path, "ticTacToe.1.json", [us, them], [50, 50])
    write_log(tmp_path, "ticTacToe.2.json", [us, "http://127.0.0.1:40001"], [100, 0])  # unclear
    write_log(tmp_path, "pacman3p.1.json", [us, them, them], [0, 100, 0])  # three roles
    logs = sorted(str(path) for path in tmp_path.iterdir())
    done = run(*logs, "--opponent", "9160")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("game | first seat, whoever held it | ours first")
    four = lines[1].split(" | ")
    assert four[0] == "connectFour"
    assert four[1].startswith("0.5/3 0.17 (")  # the first seat, whoever held it
    assert four[2].startswith("0/1 0.00 (") and four[3].startswith("1.5/2 0.75 (")  # ours
    assert four[4].startswith("0.5/2 0.25 (") and four[5].startswith("1/1 1.00 (")  # theirs
    tic = lines[2].split(" | ")
    assert tic[0] == "ticTacToe" and tic[2].startswith("0.5/1 ") and tic[3] == "-"
    assert done.stderr.strip() == "skipped: 2"


def test_only_the_games_asked_for_are_counted(tmp_path: Path) -> None:
    us, them = "http://127.0.0.1:40000", "http://127.0.0.1:9160"
    write_log(tmp_path, "connectFour.1.json", [us, them], [100, 0])
    write_log(tmp_path, "hex.1.json", [us, them], [100, 0])
    logs = sorted(str(path) for path in tmp_path.iterdir())
    done = run(*logs, "--games", "hex")
    assert [line.split(" | ")[0] for line in done.stdout.splitlines()[1:]] == ["hex"]


def test_our_seat_reads_each_urls_port_whatever_the_ports_are_given_as() -> None:
    """One reading of a log's players for every log benchmark (position_accuracy's build
    included): the port parsed from the URL, so a trailing slash or a path does not hide
    the opponent, and a longer port that merely ends in its digits is not taken for it."""
    them_slash = {"playerNamesFromHost": ["http://127.0.0.1:9160/", "http://127.0.0.1:40000"]}
    assert our_seat(them_slash, ["9160"]) == 1
    assert our_seat(them_slash, {9160}) == 1
    longer = {"playerNamesFromHost": ["http://127.0.0.1:19160", "http://127.0.0.1:9160"]}
    assert our_seat(longer, [9160]) == 0
    both_ours = {"playerNamesFromHost": ["http://127.0.0.1:40000", "http://127.0.0.1:40001"]}
    assert our_seat(both_ours, ["9160"]) is None
    assert our_seat({}, ["9160"]) is None
