"""benchmarks/serve_log.py: how the served search was set up in each match, from the log."""

from __future__ import annotations

import sys
from pathlib import Path

from ggp.player.search.races import SearchConfig, Standing

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import serve_log  # noqa: E402
import strength  # noqa: E402

PLAIN = SearchConfig(c=0.35, imm=True, prior=True)
DECISIVE = SearchConfig(c=0.35, decisive=True, imm=True, prior=True)


def verdict(kind: str, challenger: SearchConfig, points: float, games: int) -> str:
    standing = Standing("change", challenger, PLAIN, games=games, points=points)
    return (
        f"search worker: race after 40 games: {kind}: {standing.describe()} "
        "(the match's searches: 1000 simulations a move, a race move at scale 0.1 CPU-s)"
    )


LOG = "\n".join(
    [
        "2026-12-01 10:00:00,000 INFO ggp.serve: ours listening on http://127.0.0.1:1",
        "search worker: the rules are compiled after 0.4 s; the search moves from the "
        "interpreter (9 nodes) to them at move 0",
        "search worker: the native library searches from move 0 (the Python tree's 46 nodes "
        "dropped)",
        "search worker: learnt heuristic",
        "  material: (cell ?x ?y white) +0.3",
        "2026-12-01 10:01:00,000 INFO ggp.player.service.http_player: start game.1: ready in "
        "59.4 s, as white, 635357 simulations (interpreter, then native)",
        f"search worker: racing configurations against {PLAIN.describe()}, 0.036 CPU-s a move",
        "2026-12-01 10:01:10,000 INFO ggp.player.service.http_player: play game.1: (a) in "
        "9.4 s, 500 simulations, 90 nodes, value 52, over the most visited (b): 301 visits at "
        "49 (native)",
        "2026-12-01 10:01:20,000 INFO ggp.player.service.http_player: play game.1: (b) in "
        "9.4 s, 500 simulations, 90 nodes, value 52 (native)",
        "2026-12-01 10:01:30,000 INFO ggp.player.service.http_player: play other.7: (b) in "
        "9.4 s, 500 simulations, 90 nodes, value 52, over the most visited (c): 3 visits at 9",
        verdict("dropped", SearchConfig(c=0.35, rave=True), 0, 4),
        verdict("no verdict, dropped", SearchConfig(c=0.7, imm=True, prior=True), 8.5, 16),
        verdict("out of reach, dropped", SearchConfig(c=0.175), 2.5, 5),
        verdict("chosen", DECISIVE, 14, 16),
        "search worker: tactics at move 12: 3 of 9 moves lose within 4 plies",
        "search worker: the tactics overrode the search at move 12: (a) loses within 4 plies, "
        "(b) played instead",
        "search worker: tactics at move 14: (b) wins within 3 plies (80 states, 3 plies, 0.01 s)",
        f"search worker: the search plays {DECISIVE.describe()}",
        "search worker: the races took 29.5 s of the searches and 41.2 s of pondering, the "
        "tree pondered 180.3 s",
        "2026-12-01 10:09:00,000 INFO ggp.player.service.http_player: stop game.1: done",
        "search worker: the rules are compiled, with their native code, after 0.6 s; the "
        "search moves from the interpreter (2 nodes) to them at move 0",
        "search worker: decisive playouts, wins looked for among the game's few finishing moves",
        "search worker: the roles move on separate parts: from move 0 our moves are searched "
        "by trees over our part",
        "search worker: race after 1 games: races ended, their games too small to judge: "
        "tactics on/off in 1 games ran 2 and 47 simulations a move, fewer than the 81 moves "
        "a search chose among (the match's searches: 0 simulations a move)",
        "search worker: learnt heuristic",
        "bias -0.006 +0.006",
        "material alone (no fit predicted the goals): held-out correlation 0.172 0.172",
        "2026-12-01 10:10:00,000 INFO ggp.player.service.http_player: start game.2: ready in "
        "59.4 s, as black, 1200 simulations (interpreter, then compiled)",
        "2026-12-01 10:19:00,000 INFO ggp.player.service.http_player: stop game.2: done",
        "2026-12-01 10:19:01,000 INFO ggp.serve: stopping",
    ]
)


def test_each_match_has_the_lines_since_the_match_before_stopped():
    found = serve_log.sections(LOG)
    assert list(found) == ["game.1", "game.2"]
    assert any("learnt heuristic" in line for line in found["game.1"])
    assert any("material alone" in line for line in found["game.2"])
    assert any("decisive playouts" in line for line in found["game.2"])


def test_a_match_s_decisions_are_read_from_the_worker_lines():
    found = serve_log.sections(LOG)
    first = serve_log.search_of(found["game.1"], "game.1")
    assert first["rules"] == "native tree"
    assert (first["compiled_after"], first["native_from_move"]) == (0.4, 0)
    assert first["heuristic"] and not first["decisive_finishers"]
    assert not first["material_alone"]
    assert first["raced_from"] == PLAIN.describe()
    assert first["plays"] == DECISIVE.describe()
    assert [(v["verdict"], v["challenger"]) for v in first["verdicts"]] == [
        ("dropped", SearchConfig(c=0.35, rave=True).describe()),
        ("no verdict, dropped", SearchConfig(c=0.7, imm=True, prior=True).describe()),
        ("out of reach, dropped", SearchConfig(c=0.175).describe()),
        ("chosen", DECISIVE.describe()),
    ]
    assert first["verdicts"][1]["record"] == "8.5 of 16 games (0.53, 0.31-0.74)"
    assert first["tactics_found"] == 2
    assert (first["tactics_wins"], first["tactics_overrides"]) == (1, 1)
    assert first["start_simulations"] == 635357
    assert first["race_seconds"] == {"searches": 29.5, "pondering": 41.2, "tree_pondering": 180.3}

    second = serve_log.search_of(found["game.2"], "game.2")
    assert second["rules"] == "compiled" and second["native_from_move"] is None
    assert second["decisive_finishers"] and second["heuristic"] and second["material_alone"]
    assert second["raced_from"] is None and second["plays"] is None
    assert second["verdicts"] == [] and second["races_too_small"]
    assert not first["races_too_small"]
    assert second["parts_from_move"] == 0 and first["parts_from_move"] is None
    assert (second["tactics_found"], second["tactics_overrides"]) == (0, 0)
    assert second["race_seconds"] is None
    assert (first["passed_over"], second["passed_over"]) == (1, 0)  # not another match's


def test_a_game_s_decisions_are_counted_and_told_in_a_line(tmp_path):
    log = tmp_path / "ours.log"
    log.write_text(LOG)
    searches = serve_log.searches_of(log)
    summary = serve_log.searches_summary(list(searches.values()))
    assert summary["plays"] == {DECISIVE.describe(): 1}
    assert summary["rules"] == {"native tree": 1, "compiled": 1}
    assert (summary["heuristic"], summary["decisive_finishers"]) == (2, 1)
    assert summary["material_alone"] == 1
    assert summary["verdicts"][f"chosen: {DECISIVE.describe()}"] == 1
    line = serve_log.describe(summary)
    assert f"played {DECISIVE.describe()} (1 of 2)" in line
    assert "rules: native tree 1, compiled 1; trees over our part in 1 of 2;" in line
    assert "heuristic learnt in 2 of 2 (the material alone in 1);" in line
    assert "1 chosen (ended, their games too small to judge, in 1);" in line
    assert "race verdicts: 1 dropped, 1 no verdict, 1 out of reach, 1 chosen " in line
    assert (
        "; races took 30 s of the searches and 41 s of pondering (the tree's 180 s) in 1 "
        "matches;" in line
    )
    assert summary["passed_over"] == 1
    assert line.endswith(
        "tactical finds: 2 (1 wins, 1 overrides of the search's choice); "
        "replies over the most visited: 1"
    )


def test_a_real_log_of_breakthrough_matches_gives_their_races():
    """A serve log of 28 November kept in docs: the worker lines as they were
    printed then."""
    logs = ROOT / "docs" / "strength" / "logs" / "sancho-60-10-breakthrough-decisive"
    searches = serve_log.searches_of(sorted(logs.glob("ours-*.log"))[0])
    first = searches["breakthrough.20261128T180927.453911.0"]
    assert first["rules"] == "native tree" and first["heuristic"]
    assert first["plays"] == DECISIVE.describe()
    assert [v["verdict"] for v in first["verdicts"]] == [
        "no verdict, dropped",
        "dropped",
        "dropped",
    ]
    assert first["verdicts"][1]["record"] == "1 of 8 games (0.12, 0.02-0.47)"


def test_the_strength_results_count_the_searches_of_each_game(capsys):
    found = serve_log.sections(LOG)
    matches = []
    for index, match_id in enumerate(found):
        matches.append(
            {
                "match_id": match_id,
                "ours_role": index % 2,
                "goals": [100, 0],
                "steps": 30,
                "errors": {side: {"TO": 0, "CE": 0, "IL": 0} for side in ("ours", "opponent")},
                "load_before": 1.0,
                "load_after": 2.0,
                "seconds": 300.0,
                "commit": "abc1234",
                "search": serve_log.search_of(found[match_id], match_id),
            }
        )
    report = {"opponent": "Sancho", "games": {"breakthrough": {"matches_detail": matches}}}
    strength.summarise(report)
    assert report["games"]["breakthrough"]["ours_search"]["heuristic"] == 2
    strength.print_summary(report)
    assert f"search: played {DECISIVE.describe()} (1 of 2)" in capsys.readouterr().out


def _match(match_id: str, *verdicts: str) -> list[str]:
    return [
        *verdicts,
        f"2026-12-01 10:19:00,000 INFO ggp.player.service.http_player: stop {match_id}: done",
    ]


def test_the_races_games_are_summed_over_a_game_s_matches(tmp_path, capsys):
    rave = SearchConfig(c=0.35, rave=True)
    wide = SearchConfig(c=0.7, imm=True, prior=True)
    lines = [
        *_match(
            "hex.1",
            verdict("won the screen, to be confirmed at scale", DECISIVE, 7, 8),
            verdict("chosen", DECISIVE, 7, 8),  # the same screen reported again
            verdict("dropped", rave, 1, 4),
        ),
        *_match("hex.2", verdict("out of reach, dropped", DECISIVE, 2, 5)),
        *_match("chess.3", verdict("no verdict, dropped", wide, 8.5, 16)),
    ]
    log = tmp_path / "ours.log"
    log.write_text("\n".join(lines) + "\n")
    tally = serve_log.race_tally(serve_log.searches_of(log))
    against = PLAIN.describe()
    assert tally == {
        ("hex", DECISIVE.describe(), against): {"points": 9.0, "games": 13, "matches": 2},
        ("hex", rave.describe(), against): {"points": 1.0, "games": 4, "matches": 1},
        ("chess", wide.describe(), against): {"points": 8.5, "games": 16, "matches": 1},
    }
    assert serve_log.main(["--tally", str(log)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (
        f"chess: {wide.describe()} against {against}: 8.5 of 16 race games (0.53, 0.31-0.74) "
        "in 1 matches"
    )
    assert printed[1].startswith(f"hex: {DECISIVE.describe()} against {against}: 9 of 13 ")
    assert printed[2].startswith(f"hex: {rave.describe()} against ")
