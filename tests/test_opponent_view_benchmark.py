"""benchmarks/opponent_view.py as documented (docs/results.md): Sancho's best score at each
turn of its log, and the steps where the match turned in its view."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
US, SANCHO = "http://127.0.0.1:40000", "http://127.0.0.1:9160"


def sancho_log(scores: list[list[float]]) -> str:
    """A log as Sancho writes it: each turn, a score a move (noise lines between)."""
    lines = ["2026-12-06T00:15:35,935 INFO  Sancho   This is Sancho 1.61c"]
    for turn, moves in enumerate(scores, start=1):
        lines.append(f"2026-12-06T00:16:33,715 INFO  Sancho   > > > > > Starting turn {turn} < <")
        lines.append(
            "2026-12-06T00:16:41,217 DEBUG TreeNode     Response ( move 1 1 ) scores [99.0]"
        )
        for i, score in enumerate(moves):
            lines.append(
                f"2026-12-06T00:16:41,216 INFO  TreeNode       Move ( move {i} ) scores"
                f" {score:.2f} (selectionScore 46.86, selection count 83419)"
            )
    return "\n".join(lines) + "\n"


def run(*args: str) -> list[str]:
    """The benchmark's output lines with these arguments."""
    command = [sys.executable, "benchmarks/opponent_view.py", *args]
    done = subprocess.run(
        command, cwd=ROOT, check=True, capture_output=True, text=True, timeout=120
    )
    return done.stdout.splitlines()


def test_the_steps_where_sancho_thought_itself_ahead_and_proved_its_win(tmp_path: Path) -> None:
    # we move at even steps, Sancho at odd ones; its best score each turn (turn = step + 1),
    # once at 100 before it stayed there (Sancho's log has such turns)
    best = [50, 49, 100, 45, 48, 55, 65, 100]
    scores = [[score - 10, score] for score in best]
    moves = [["(a)", "noop"] if step % 2 == 0 else ["noop", "(b)"] for step in range(8)]
    log = {"matchId": "m.1", "playerNamesFromHost": [US, SANCHO], "moves": moves}
    log["goalValues"] = [0, 100]
    (tmp_path / "m.1.json").write_text(json.dumps(log))
    (tmp_path / "m.1-9160.txt").write_text(sancho_log(scores))
    serve_log = "\n".join(  # our server's log: a play line a step, ours searched with a value
        f"2026-12-06 00:16:43,164 INFO ggp.player.service.http_player: play m.1: (a) in 9.4 s,"
        f" 7 simulations, 5 nodes, value {60 - step}"
        if step % 2 == 0
        else "2026-12-06 00:16:43,177 INFO ggp.player.service.http_player: play m.1: noop in"
        " 0.001 s, the only legal move"
        for step in range(8)
    )
    (tmp_path / "ours.log").write_text(serve_log + "\n")
    lines = run(
        str(tmp_path / "m.1.json"),
        *("--sancho-logs", str(tmp_path), "--every", "--serve-log", str(tmp_path / "ours.log")),
    )
    assert lines[0] == (
        "m.1.json: our goal 0; Sancho at most 50 last at step 4 (after Sancho's (b) at"
        " step 3); at 60 or more from step 6 (after Sancho's (b) at step 5); 100 from"
        " step 7 (after ours (a) at step 6)"
    )
    assert lines[1] == "  0:50/60 1:49 2:100/58 3:45 4:48/56 5:55 6:65/54 7:100"


def test_a_match_without_sanchos_log_is_skipped(tmp_path: Path) -> None:
    log = {"matchId": "m.2", "playerNamesFromHost": [SANCHO, US], "moves": [], "goalValues": None}
    (tmp_path / "m.2.json").write_text(json.dumps(log))
    lines = run(str(tmp_path / "m.2.json"), "--sancho-logs", str(tmp_path))
    assert lines == ["m.2.json: skipped (no seat of ours, or no m.2-9160.txt)"]


def test_files_that_are_not_match_records_are_skipped(tmp_path: Path) -> None:
    # a positions file beside the match records (a wildcard over a log folder), a list, no JSON
    (tmp_path / "early-connectFour.json").write_text(json.dumps({"positions": [], "game": "c"}))
    (tmp_path / "grades.json").write_text(json.dumps([1, 2]))
    (tmp_path / "notes.json").write_text("not json")
    log = {"matchId": "m.3", "playerNamesFromHost": [SANCHO, US], "moves": [], "goalValues": None}
    (tmp_path / "m.3.json").write_text(json.dumps(log))
    names = ["early-connectFour.json", "grades.json", "notes.json", "m.3.json"]
    lines = run(*(str(tmp_path / name) for name in names), "--sancho-logs", str(tmp_path))
    assert lines == [
        "early-connectFour.json: skipped (not a match record of strength.py)",
        "grades.json: skipped (not a match record of strength.py)",
        "notes.json: skipped (not a match record of strength.py)",
        "m.3.json: skipped (no seat of ours, or no m.3-9160.txt)",
    ]
