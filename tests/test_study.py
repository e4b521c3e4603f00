"""ggp study with local processes: outputs, summary, plot, resuming, bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from ggp.cli import main
from ggp.server.study import (
    JOURNAL_FILE,
    Study,
    StudyPlan,
    opponent_spec,
    parse_vary,
    with_options,
)

STUDY = [
    "study", "tictactoe", "--vary", "iterations=2,16", "--against", "random",
    "--games", "6", "--swap", "--seed", "3",
]  # fmt: skip

PLAN = StudyPlan(
    games=("tictactoe",),
    agent="mcts",
    parameter="iterations",
    values=("2", "16"),
    against="random",
    matches=5,
    swap=True,
    seed=7,
)


def test_a_small_study_writes_matches_summary_and_plot(tmp_path, capsys) -> None:
    out = tmp_path / "study"
    assert main([*STUDY, "--out", str(out), "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "2 points, seed 3" in printed and "95% CI" in printed
    results = json.loads((out / "results.json").read_text())
    assert len(results["matches"]) == 12
    assert [m["agents"] for m in results["matches"][:2]] == [
        ["mcts:iterations=2", "random"],
        ["random", "mcts:iterations=2"],
    ]
    summary = list(csv.DictReader((out / "summary.csv").open()))
    assert [(row["iterations"], row["seat"]) for row in summary] == [
        ("2", "all"), ("2", "xplayer"), ("2", "oplayer"),
        ("16", "all"), ("16", "xplayer"), ("16", "oplayer"),
    ]  # fmt: skip
    for row in summary:
        games = int(row["games"])
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == games
        assert games == (6 if row["seat"] == "all" else 3)
        assert float(row["ci_low"]) <= float(row["score"]) <= float(row["ci_high"])
    rows = list(csv.DictReader((out / "matches.csv").open()))
    assert len(rows) == 12 and rows[1]["studied_role"] == "oplayer"
    logs = sorted((out / "logs").glob("*.json"))
    assert len(logs) == 12 and rows[0]["match_id"] + ".json" in {log.name for log in logs}


def test_the_plot_is_a_png_that_opens(tmp_path) -> None:
    image = pytest.importorskip("matplotlib.image", reason="matplotlib (extra 'plot') is absent")
    out = tmp_path / "study"
    assert main([*STUDY, "--out", str(out)]) == 0
    pixels = image.imread(out / "score.png")
    assert pixels.shape[0] > 200 and pixels.shape[1] > 300
    assert (out / "score.svg").read_text().lstrip().startswith("<?xml")


def test_a_stopped_study_resumes_without_replaying_finished_matches(tmp_path) -> None:
    whole = Study(PLAN, tmp_path / "whole")
    expected = whole.run(whole.open())

    study = Study(PLAN, tmp_path / "stopped")
    seen = []

    def stop_after_four(match) -> None:
        seen.append(match)
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        study.run(study.open(), on_match=stop_after_four)
    journal = tmp_path / "stopped" / JOURNAL_FILE
    assert len(journal.read_text().splitlines()) == 4
    with journal.open("a") as cut:  # killed while writing a line
        cut.write('{"point": 1, "ind')

    again = Study(PLAN, tmp_path / "stopped")
    done = again.open()
    assert len(done) == 4
    replayed = []
    matches = again.run(done, on_match=replayed.append)
    assert len(replayed) == 6
    assert [m.result for m in matches] == [m.result for m in expected]
    assert len(journal.read_text().splitlines()) == 10


def _without_ids(matches: list[dict]) -> list[dict]:
    return [{key: value for key, value in m.items() if key != "match_id"} for m in matches]


def test_the_same_command_resumes_or_extends_and_another_study_is_refused(tmp_path, capsys) -> None:
    out = tmp_path / "study"
    assert main([*STUDY, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main([*STUDY[:-2], "--out", str(out)]) == 0  # no --seed: the saved one
    assert "12 of 12 matches already played" in capsys.readouterr().out
    assert main([*STUDY, "--out", str(out), "--against", "legal"]) == 2
    assert "holds another study" in capsys.readouterr().err
    assert main([*STUDY, "--out", str(out), "--games", "8"]) == 0  # two more a point
    assert "12 of 16 matches already played" in capsys.readouterr().out
    extended = json.loads((out / "results.json").read_text())["matches"]
    fresh = tmp_path / "fresh"
    assert main([*STUDY, "--out", str(fresh), "--games", "8"]) == 0
    assert _without_ids(extended) == _without_ids(
        json.loads((fresh / "results.json").read_text())["matches"]
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--vary", "x=1,2"], "unknown option 'x'"),
        (["--vary", "c=0.5,high"], "values must be numbers, got 'high'"),
        (["--vary", "c"], "expected NAME=VALUE,VALUE"),
        (["--vary", "iterations=2,2.5"], "option iterations must be int >= 1, got '2.5'"),
        (["--agent", "mcts:iterations"], "expected key=value"),
        (["--agent", "wizard"], "unknown agent 'wizard'"),
        (["--against", "mcts:depth=-1"], "option depth must be int >= 0"),
        (["--games", "0"], "at least 1 match per point"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path, capsys, change, message):
    out = tmp_path / "study"
    args = list(STUDY)
    for option, value in zip(change[::2], change[1::2], strict=True):
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    assert main([*args, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_specs_options_and_opponents() -> None:
    assert with_options("mcts:iterations=200,c=0.7", {"c": "1.4"}) == "mcts:iterations=200,c=1.4"
    assert with_options("mcts", {"iterations": "8"}) == "mcts:iterations=8"
    assert parse_vary(" c = 0.3, 0.5 ") == ("c", ("0.3", "0.5"))
    assert opponent_spec("mcts:iterations=200", "c=1.4") == "mcts:iterations=200,c=1.4"
    assert opponent_spec("mcts:iterations=200", "random") == "random"
    assert opponent_spec("mcts", "http://127.0.0.1:9147") == "http://127.0.0.1:9147"


def test_a_folder_that_holds_something_else_is_not_used(tmp_path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main([*STUDY, "--out", str(tmp_path)]) == 2
    assert "not empty and holds no study" in capsys.readouterr().err
    assert sorted(path.name for path in Path(tmp_path).iterdir()) == ["notes.txt"]


def test_a_study_of_two_games_has_a_line_per_game(tmp_path) -> None:
    out = tmp_path / "study"
    games = ["tictactoe", "connect_four:width=4,height=4,line=3"]
    args = ["study", *games, "--vary", "iterations=2,4", "--against", "random", "--swap"]
    assert main([*args, "--games", "2", "--seed", "1", "--out", str(out)]) == 0
    summary = list(csv.DictReader((out / "summary.csv").open()))
    assert {row["game"] for row in summary} == set(games)
    assert {row["seat"] for row in summary} == {"all", "xplayer", "oplayer", "red", "black"}
    if (out / "score.svg").exists():  # with matplotlib: one line per game, named
        svg = (out / "score.svg").read_text()
        assert all(game in svg for game in games)
