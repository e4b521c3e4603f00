"""Tournaments and single matches: seeds, seats, standings, output files, the commands."""

from __future__ import annotations

import csv
import json

import pytest
from ggp.cli import main
from ggp.games.base import GameError
from ggp.server.results import MatchResult, outcome
from ggp.server.tournament import (
    format_standings,
    run_tournament,
    seating,
    standings,
)

AGENTS = ["mcts:iterations=30", "random"]


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch) -> None:
    """The commands write match logs to ./match_logs: here, a temporary folder."""
    monkeypatch.chdir(tmp_path)


def test_the_same_seed_gives_the_same_matches_whatever_the_number_of_processes() -> None:
    one = run_tournament("tictactoe", AGENTS, games=8, swap=True, seed=5, jobs=1)
    two = run_tournament("tictactoe", AGENTS, games=8, swap=True, seed=5, jobs=2)
    assert one == two
    other = run_tournament("tictactoe", AGENTS, games=8, swap=True, seed=6, jobs=1)
    assert [r.goals for r in other] != [r.goals for r in one]


def test_swap_seats_half_the_matches_each_way() -> None:
    results = run_tournament("tictactoe", AGENTS, games=6, swap=True, seed=1)
    assert [r.seats for r in results] == [(0, 1), (1, 0)] * 3
    assert results[1].agents == ("random", "mcts:iterations=30")
    assert seating(4, 3, swap=True) == (1, 2, 0)
    assert seating(4, 3, swap=False) == (0, 1, 2)


def test_outcomes_and_standings() -> None:
    assert [outcome((100, 0), 0), outcome((50, 50), 1), outcome((0, 100), 0)] == [1, 0, -1]
    assert outcome((30, 70, 70), 1) == 0 and outcome((30, 70, 60), 2) == -1
    results = [
        MatchResult(0, 0, (0, 1), ("a", "b"), (100, 0), 5),
        MatchResult(1, 0, (1, 0), ("b", "a"), (50, 50), 9),
        MatchResult(2, 0, (0, 1), ("a", "b"), (0, 100), 6),
        MatchResult(3, 0, (1, 0), ("b", "a"), (0, 100), 7),
    ]
    table = standings(results, ["a", "b"], ["x", "o"])
    assert [(row.spec, row.seat, row.games) for row in table] == [
        ("a", "all", 4),
        ("a", "x", 2),
        ("a", "o", 2),
        ("b", "all", 4),
        ("b", "x", 2),
        ("b", "o", 2),
    ]
    a = table[0]
    assert (a.wins, a.draws, a.losses, a.mean_goal, a.score) == (2, 1, 1, 62.5, 0.625)
    # scores 1, .5, 0, 1: 2.5 of 4, Wilson interval 0.219-0.908
    assert (a.ci_low, a.ci_high) == pytest.approx((0.219, 0.908), abs=1e-3)


def test_a_clean_sweep_is_shown_with_an_interval_that_is_not_a_point() -> None:
    results = [MatchResult(i, 0, (0, 1), ("a", "b"), (100, 0), 5) for i in range(20)]
    text = format_standings(standings(results, ["a", "b"], ["x", "o"]))
    sweep = text.splitlines()[1]
    assert sweep.startswith("1 a") and "20" in sweep and "0.84-1.00" in sweep


def test_tournament_command_prints_standings_and_writes_json_and_csv(capsys, tmp_path) -> None:
    out = tmp_path / "results.json"
    args = ["tournament", "tictactoe", *AGENTS, "--games", "4", "--swap", "--seed", "3"]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "tictactoe: 4 matches, seed 3, seats rotated" in printed
    assert "1 mcts:iterations=30" in printed and "95% CI" in printed and "oplayer" in printed
    data = json.loads(out.read_text())
    assert len(data["matches"]) == 4
    assert data["matches"][1]["agents"] == ["random", "mcts:iterations=30"]
    assert all(len(match["goals"]) == 2 for match in data["matches"])
    assert main([*args, "--out", str(tmp_path / "results.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert [row["agent:xplayer"] for row in rows] == [AGENTS[0], AGENTS[1]] * 2
    assert [int(row["goal:xplayer"]) for row in rows] == [m["goals"][0] for m in data["matches"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tictactoe", "random"], "give one player per role, got 1"),
        (["tictactoe", "random", "human"], "cannot seat a human"),
        (["tictactoe", "random", "mcts:x=1"], "unknown option 'x'"),
        (["tictactoe", "random", "random", "--out", "r.txt"], "must end in .csv or .json"),
        (["tictactoe", "random", "random", "--games", "0"], "--games must be at least 1"),
        (
            ["tictactoe", "127.0.0.1:9147", "random"],
            "'127.0.0.1:9147' is not an agent; the address of a GGP player is written "
            "http://127.0.0.1:9147",
        ),
    ],
)
def test_tournament_errors_are_explained(capsys, args, message) -> None:
    assert main(["tournament", *args]) == 2
    assert message in capsys.readouterr().err


def test_match_command_shows_the_board_and_the_ranking(capsys) -> None:
    code = main(
        ["match", "tictactoe", "mcts:iterations=200", "legal", "--show", "--ranking", "--seed", "1"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "xplayer (mcts:iterations=200) ranked its moves:" in out
    assert "visits" in out and "value" in out and "... and 1 more" in out
    assert "Move 1: xplayer (mark" in out and " 2  " in out
    assert "Result after" in out and "xplayer 100 (mcts:iterations=200), oplayer 0 (legal)" in out


def test_match_command_is_repeatable_with_a_seed(capsys) -> None:
    outputs = []
    for _ in range(2):
        assert main(["match", "tictactoe", "random", "mcts:iterations=50", "--seed", "4"]) == 0
        out = capsys.readouterr().out
        outputs.append(out.partition("Match log: ")[0])
    assert outputs[0] == outputs[1] and "Result after" in outputs[0]


def test_match_command_needs_one_agent_per_role(capsys) -> None:
    assert main(["match", "tictactoe", "random"]) == 2
    assert "give one player per role" in capsys.readouterr().err


def test_an_unknown_game_is_refused_before_any_match() -> None:
    with pytest.raises(GameError, match="unknown game"):
        run_tournament("nosuchgame", AGENTS, games=1)
