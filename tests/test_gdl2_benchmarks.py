"""The GDL-II benchmark scripts: gdl2_matches.py's figures, gdl2_percepts.py's speeds,
and the comparison with the Dresden GameController's logs (gamecontroller_percepts.py)
finding agreement and disagreement, on any reasoner."""

from __future__ import annotations

import sys
from pathlib import Path

from ggp.games.registry import load_game

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import gamecontroller_percepts  # noqa: E402
import gdl2_matches  # noqa: E402
import gdl2_percepts  # noqa: E402

LOG = """\
INFO(19:26:19.445): current state:((STEP 1))
INFO(19:26:26.641): moves: (NOOP (HIDE_CAR 1))
INFO(19:26:26.643): current state:((STEP 2)(CLOSED 1)(CLOSED 2)(CLOSED 3)(CAR 1))
INFO(19:26:27.285): seesTerms(CANDIDATE) = []
INFO(19:26:27.286): seesTerms(RANDOM) = []
INFO(19:26:28.017): moves: ((CHOOSE 1) NOOP)
INFO(19:26:28.018): current state:((CHOSEN 1)(STEP 3)(CLOSED 1)(CLOSED 2)(CLOSED 3)(CAR 1))
INFO(19:26:28.667): seesTerms(CANDIDATE) = []
INFO(19:26:30.428): moves: (NOOP (OPEN_DOOR 2))
INFO(19:26:30.428): current state:((CHOSEN 1)(STEP 4)(CLOSED 1)(CLOSED 3)(CAR 1))
INFO(19:26:30.931): seesTerms(CANDIDATE) = [(OPEN_DOOR 2 )]
INFO(19:26:31.943): moves: (SWITCH NOOP)
INFO(19:26:31.943): current state:((CHOSEN 3)(STEP 5)(CLOSED 1)(CLOSED 3)(CAR 1))
INFO(19:26:32.158): seesTerms(CANDIDATE) = [(CAR 1 )]
INFO(19:26:32.200): Game over! results: 0 0
"""


def test_a_gamecontroller_log_that_agrees() -> None:
    logged = gamecontroller_percepts.parse_log(LOG)
    assert logged.moves[2] == ("noop", "(open_door 2)")
    assert logged.percepts[2] == {"candidate": ("(open_door 2)",)}
    assert logged.goals == (0, 0)
    assert gamecontroller_percepts.differences(load_game("monty_hall"), logged) == []


def test_a_gamecontroller_log_that_disagrees_is_reported() -> None:
    seen_wrong = LOG.replace("[(OPEN_DOOR 2 )]", "[(OPEN_DOOR 3 )]")
    problems = gamecontroller_percepts.differences(
        load_game("monty_hall"), gamecontroller_percepts.parse_log(seen_wrong)
    )
    assert problems == ["step 2: candidate sees ('(open_door 2)',), theirs ('(open_door 3)',)"]
    illegal = LOG.replace("(OPEN_DOOR 2)", "(OPEN_DOOR 1)")
    problems = gamecontroller_percepts.differences(
        load_game("monty_hall"), gamecontroller_percepts.parse_log(illegal)
    )
    assert problems == ["step 2: (open_door 1) is not legal for random here"]


def test_gdl2_matches_counts_scores_and_moves() -> None:
    figures = gdl2_matches.run("monty_hall", ["ismcts:iterations=100"], 6, False, 1)
    assert figures["matches"] == 6 and 0 <= figures["score"] <= 1
    low, high = figures["interval"]
    assert low <= figures["score"] <= high
    assert sum(count for key, count in figures["moves"].items() if key.startswith("3 ")) == 6


def test_the_gamecontroller_comparison_runs_on_a_reasoner(tmp_path, capsys) -> None:
    (tmp_path / "monty_hall.1.log").write_text(LOG)
    assert gamecontroller_percepts.main([str(tmp_path), "--reasoner", "compiled"]) == 0
    assert "1 matches, 4 joint moves, 5 percept sets compared; 0 matches" in capsys.readouterr().out
    (tmp_path / "monty_hall.2.log").write_text(LOG.replace("(OPEN_DOOR 2 )", "(OPEN_DOOR 3 )"))
    assert gamecontroller_percepts.main([str(tmp_path), "--reasoner", "compiled"]) == 1


def test_gdl2_percepts_prints_a_speed_per_reasoner(capsys) -> None:
    gdl2_percepts.main(["monty_hall", "--seconds", "0.01"])
    lines = [line for line in capsys.readouterr().out.splitlines() if "percepts/CPU-s" in line]
    assert [line.split()[1] for line in lines] == gdl2_percepts.reasoners()
    for line in lines:
        assert float(line.split()[2].replace(",", "")) > 0
