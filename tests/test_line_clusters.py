"""benchmarks/line_clusters.py: a strength run's repeated lines counted once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import line_clusters  # noqa: E402

RED_WINS = [["(drop 4)", "noop"], ["noop", "(drop 4)"], ["(drop 5)", "noop"]]
BLACK_WINS = [["(drop 1)", "noop"], ["noop", "(drop 2)"], ["(drop 3)", "noop"]]


def test_distinct_lines_are_worth_every_match() -> None:
    assert line_clusters.effective_matches([1, 0, 1, 0], ["a", "b", "c", "d"]) == 4


def test_a_line_played_twice_with_the_same_result_counts_once() -> None:
    # mean 0.5: the independent sum of squares is 1, the lines' residual sums 1 and -1
    assert line_clusters.effective_matches([1, 1, 0, 0], ["a", "a", "b", "b"]) == 2


def test_matches_that_all_scored_alike_are_worth_their_lines() -> None:
    assert line_clusters.effective_matches([1, 1, 1], ["a", "a", "b"]) == 2


def test_lines_whose_results_differ_inside_are_worth_every_match() -> None:
    assert line_clusters.effective_matches([1, 0, 1, 0], ["a", "a", "b", "b"]) == 4


def test_no_matches_is_an_error() -> None:
    with pytest.raises(ValueError):
        line_clusters.effective_matches([], [])


def write_run(folder: Path, games: list[tuple[str, int, list[int], list]]) -> Path:
    """A results file of strength.py and a record per match: (id, our role, goals, moves)."""
    details = []
    for match_id, role, goals, moves in games:
        details.append({"match_id": match_id, "ours_role": role, "goals": goals})
        record = {"matchId": match_id, "playerNamesFromHost": ["ours", "sancho"], "moves": moves}
        (folder / f"{match_id}.json").write_text(json.dumps(record))
    results = folder / "results.json"
    results.write_text(json.dumps({"games": {"connectFour": {"matches_detail": details}}}))
    return results


def test_the_run_counts_lines_and_widens_the_interval(tmp_path: Path, capsys) -> None:
    results = write_run(
        tmp_path,
        [
            ("m0", 0, [100, 0], RED_WINS),
            ("m1", 0, [100, 0], RED_WINS),
            ("m2", 0, [100, 0], RED_WINS),
            ("m3", 0, [0, 100], BLACK_WINS),
            ("m4", 1, [100, 0], RED_WINS),  # the same moves from the other seat: another line
        ],
    )
    figures_file = tmp_path / "f.json"
    assert line_clusters.main([str(results), "--plies", "2", "--json", str(figures_file)]) == 0
    out = capsys.readouterr().out
    assert "connectFour: 5 matches, 3 lines, 2 repeating another to the end" in out
    figures = json.loads(figures_file.read_text())["games"]["connectFour"]
    assert figures["effective_matches"] < 5
    low, high = figures["interval95"]
    clow, chigh = figures["clustered_interval95"]
    assert clow < low and chigh > high


def test_matches_without_readable_records_are_counted_apart(tmp_path: Path, capsys) -> None:
    results = write_run(tmp_path, [("m0", 0, [100, 0], RED_WINS), ("m1", 1, [0, 100], RED_WINS)])
    (tmp_path / "m1.json").write_text("{not json")
    line_clusters.main([str(results)])
    assert "1 matches, 1 lines, 0 repeating another to the end, 1 without records" in (
        capsys.readouterr().out
    )


def test_an_unknown_game_is_refused(tmp_path: Path) -> None:
    results = write_run(tmp_path, [("m0", 0, [100, 0], RED_WINS)])
    with pytest.raises(SystemExit):
        line_clusters.main([str(results), "--games", "hex"])
