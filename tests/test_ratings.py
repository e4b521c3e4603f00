"""Round robins of more players than roles, and their Bradley-Terry ratings."""

from __future__ import annotations

import json
import math

import pytest
from ggp.cli import main
from ggp.server.ratings import ELO, fit, ratings
from ggp.server.results import MatchResult
from ggp.server.tournament import run_tournament, seating


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)


def _match(index: int, first: int, second: int, goals: tuple[int, int]) -> MatchResult:
    return MatchResult(index, 0, (first, second), (str(first), str(second)), goals, 5)


def test_more_players_than_roles_go_round_every_seating() -> None:
    assert [seating(i, 3, True, 2) for i in range(7)] == [
        (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (0, 1),
    ]  # fmt: skip
    assert [seating(i, 3, False, 2) for i in range(4)] == [(0, 1), (0, 2), (1, 2), (0, 1)]
    assert seating(3, 2, True, 2) == (1, 0)  # as many players as roles: rotation


def test_the_fit_recovers_known_strengths() -> None:
    # Expected scores of a Bradley-Terry model with log-strengths 1, 0, -1, as counts
    # of 1,000 games a pair: the fit gives those strengths back (the virtual draws
    # pull them in by a hair).
    truth = [1.0, 0.0, -1.0]
    games = [[0.0 if i == j else 1000.0 for j in range(3)] for i in range(3)]
    scores = [
        [games[i][j] / (1 + math.exp(truth[j] - truth[i])) for j in range(3)] for i in range(3)
    ]
    assert fit(scores, games) == pytest.approx(truth, abs=0.01)


def test_ratings_order_the_players_and_their_intervals_hold_them() -> None:
    results = []
    for index in range(30):  # 0 beats 1 and 2 mostly, 1 beats 2 mostly
        results.append(_match(3 * index, 0, 1, (100, 0) if index % 5 else (0, 100)))
        results.append(_match(3 * index + 1, 1, 2, (100, 0) if index % 4 else (50, 50)))
        results.append(_match(3 * index + 2, 2, 0, (0, 100)))
    table = ratings(results, ["a", "b", "c"])
    assert [row.spec for row in sorted(table, key=lambda row: -row.rating)] == ["a", "b", "c"]
    assert sum(row.rating for row in table) == pytest.approx(0, abs=1e-6)
    for row in table:
        assert row.low < row.rating < row.high and row.games == 60
    assert ratings(results, ["a", "b", "c"]) == table  # the bootstrap is seeded
    # Two players, 24 to 6 in 30 games, plus the virtual draw: odds of 24.5 to 6.5.
    a, b = ratings([m for m in results if set(m.seats) == {0, 1}], ["a", "b"])
    assert a.rating - b.rating == pytest.approx(ELO * math.log(24.5 / 6.5))


def test_a_player_who_lost_everything_still_gets_a_finite_rating() -> None:
    results = [_match(i, 0, 1, (100, 0)) for i in range(10)]
    best, worst = ratings(results, ["a", "b"])
    assert math.isfinite(worst.rating) and worst.rating < 0 < best.rating


def test_tournament_of_four_players_prints_ratings_and_plots_them(capsys, tmp_path) -> None:
    agents = ["mcts:iterations=16", "mcts:iterations=4", "random", "legal"]
    results = run_tournament("tictactoe", agents, games=12, swap=True, seed=2)
    assert {r.seats for r in results} == {(a, b) for a in range(4) for b in range(4) if a != b}
    args = ["tournament", "tictactoe", *agents, "--games", "12", "--swap", "--seed", "2"]
    out = tmp_path / "r.json"
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "95% interval (Bradley-Terry, Elo scale)" in printed
    data = json.loads(out.read_text())
    assert [rating["spec"] for rating in data["ratings"]] == agents
    pytest.importorskip("matplotlib", reason="matplotlib (extra 'plot') is absent")
    assert main([*args, "--plot", str(tmp_path / "ratings.png")]) == 0
    assert (tmp_path / "ratings.png").stat().st_size > 1000
    assert (tmp_path / "ratings.svg").exists()


def test_plotting_ratings_of_two_players_is_refused(capsys) -> None:
    assert main(["tournament", "tictactoe", "random", "legal", "--plot", "r.png"]) == 2
    assert "need more than two players" in capsys.readouterr().err
