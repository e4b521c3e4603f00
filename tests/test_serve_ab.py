"""benchmarks/serve_ab.py: both sides of matches between two ``ggp serve`` options."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import serve_ab  # noqa: E402

PLAY = "2026-12-04 12:30:11,027 INFO ggp.player.service.http_player: play {match}: {move} in "


def play(match: str, sims: int, pondered: int, seconds: float = 9.4) -> str:
    return (
        PLAY.format(match=match, move="(mark 1 1)")
        + f"{seconds} s, {sims} simulations + {pondered} pondered in 9.3 s, 10 nodes "
        "(native, 2 playouts a leaf; random playouts, c=0.35)"
    )


def stop(match: str) -> str:
    return f"2026-12-04 12:37:47,449 INFO ggp.player.service.http_player: stop {match}: done"


OPPONENT_LOG = "\n".join(
    [
        play("m1", 100, 50),
        play("m1", 300, 70),
        "2026-12-04 12:31:00,000 INFO ggp.player.service.http_player: play m1: (mark 2 2) "
        "in 9.9 s, fallback (the search did not answer in time)",
        stop("m1"),
        play("m2", 200, 60, seconds=10.2),
        stop("m2"),
    ]
)


def our_match(match: str, role: int, goals: list[int], sims: list[int]) -> dict:
    return {
        "match_id": match,
        "ours_role": role,
        "goals": goals,
        "load_before": 1.0,
        "load_after": 3.0,
        "replies": {
            "simulations": sims,
            "pondered": [0] * len(sims),
            "late": 0,
            "fallbacks": 0,
        },
        "search": {
            "plays": "random playouts, c=0.35",
            "verdicts": [{"verdict": "out of reach, dropped", "challenger": "RAVE"}],
            "race_seconds": {"searches": 10.0, "pondering": 5.5, "tree_pondering": 100.0},
        },
    }


def test_both_sides_figures_come_from_the_results_and_the_opponent_s_log(
    tmp_path: Path, capsys
) -> None:
    results = {
        "opponent": "ggp serve --races no",
        "serve_args": "",
        "playclock": 10,
        "games": {
            "tictactoe": {
                "matches_detail": [
                    our_match("m1", 0, [100, 0], [400, 600]),
                    our_match("m2", 1, [50, 50], [500]),
                ]
            }
        },
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    log = tmp_path / "opponent.log"
    log.write_text(OPPONENT_LOG)
    out = tmp_path / "figures.json"
    assert serve_ab.main([str(path), "--opponent-log", str(log), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    figures = json.loads(out.read_text())["tictactoe"]
    assert figures["points"] == 1.5 and figures["matches"] == 2
    assert figures["by_seat"] == {"0": [1.0, 1], "1": [0.5, 1]}
    ours, theirs = figures["a"], figures["b"]
    assert (ours["simulations"], ours["moves"]) == (500, 3)
    assert ours["race_seconds"] == [20.0, 11.0] and ours["verdicts"] == 2
    # the opponent's searched moves of those two matches: 100, 300 and 200; one fallback,
    # one reply past the play clock; no races in its log
    assert (theirs["simulations"], theirs["moves"]) == (200, 3)
    assert (theirs["fallbacks"], theirs["late"]) == (1, 1)
    assert theirs["race_seconds"] == [0, 0] and theirs["verdicts"] == 0
    assert "A / B: x2.50" in printed
    assert "all: A 1.5 of 2 (0.75, " in printed
