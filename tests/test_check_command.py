"""`ggp check`: the summary, trace replay, disagreements and exit status."""

from __future__ import annotations

import copy
import gzip
import json
import re
from pathlib import Path

import pytest
from ggp.cli import main
from ggp.commands import check
from ggp.games.registry import GDL_DIR
from test_gdl_game import RACE
from test_gdl_native import needs_native

PLAYOUT = {
    "game": "race",
    "playout": 0,
    "seed": 7,
    "roles": ["left", "right"],
    "steps": [
        {
            "state": ["(control left)", "(count 0)"],
            "legal": {"left": ["(add 1)", "(add 2)"], "right": ["noop"]},
            "joint": ["(add 2)", "noop"],
        },
        {
            "state": ["(control right)", "(count 2)"],
            "legal": {"left": ["noop"], "right": ["(add 1)", "(add 2)"]},
            "joint": ["noop", "(add 2)"],
        },
    ],
    "terminal_state": ["(control left)", "(count 4)"],
    "goals": {"left": 100, "right": 0},
    "truncated": False,
}
"""A playout of `RACE` as the corpus records it (lower-cased)."""


def write(tmp_path: Path, rules: str, *playouts: dict) -> tuple[str, str]:
    game = tmp_path / "race.kif"
    game.write_text(rules)
    traces = tmp_path / "race.jsonl.gz"
    with gzip.open(traces, "wt") as out:
        for playout in playouts:
            out.write(json.dumps(playout) + "\n")
    return str(game), str(traces)


def test_summary_and_agreeing_traces(tmp_path: Path, capsys) -> None:
    game, traces = write(tmp_path, RACE, PLAYOUT, dict(PLAYOUT, playout=1))
    assert main(["check", game, "--traces", traces]) == 0
    out = capsys.readouterr().out
    assert "race: valid GDL, 18 rules and facts\nroles (2): left, Right\n" in out
    assert (
        "relations (9): does/2 goal/2 init/1 legal/2 next/1 role/1 succ/2 terminal/0 true/1" in out
    )
    assert "strata: 7 (3 static, 3 per state, 1 per joint move; 0 recursive)" in out
    assert "static facts: 8 (computed once per game)" in out
    assert "turn-taking: yes, in all 4 recorded states" in out
    assert "traces: 2 of 2 playouts agree, 4 of 4 steps" in out


def test_first_disagreement_is_shown_as_a_difference(tmp_path: Path, capsys) -> None:
    wrong = copy.deepcopy(PLAYOUT)
    wrong["steps"][1]["legal"]["right"] = ["(add 1)", "(add 3)"]
    game, traces = write(tmp_path, RACE, PLAYOUT, wrong)
    assert main(["check", game, "--traces", traces]) == 1
    out = capsys.readouterr().out
    assert "traces: 1 of 2 playouts agree, 3 of 4 steps" in out
    assert (
        "first disagreement: playout 0, step 1: the legal moves of right differ\n"
        "  expected but not computed: (add 3)\n"
        "  computed but not expected: (add 2)\n"
        "  in state: (control Right) (count 2)"
    ) in out


def test_goals_and_states_are_checked_too(tmp_path: Path, capsys) -> None:
    wrong = copy.deepcopy(PLAYOUT)
    wrong["goals"] = {"left": 0, "right": 100}
    game, traces = write(tmp_path, RACE, wrong)
    assert main(["check", game, "--traces", traces]) == 1
    assert "step 2: the goals differ" in capsys.readouterr().out
    wrong = copy.deepcopy(PLAYOUT)
    wrong["steps"][1]["state"] = ["(control right)", "(count 3)"]
    game, traces = write(tmp_path, RACE, wrong)
    assert main(["check", game, "--traces", traces]) == 1
    out = capsys.readouterr().out
    assert "step 1: the state differs\n  expected but not computed: (count 3)" in out


def test_a_reference_failure_agrees_when_we_fail_in_the_same_state(tmp_path: Path, capsys) -> None:
    rules = RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", "")
    failed = dict(PLAYOUT, goals={"left": None, "right": 0}, error="GoalDefinitionException")
    game, traces = write(tmp_path, rules, failed)
    assert main(["check", game, "--traces", traces]) == 0
    assert "(in 1 the recording's reasoner found the game broken)" in capsys.readouterr().out
    game, traces = write(tmp_path, RACE, failed)
    assert main(["check", game, "--traces", traces]) == 1
    assert "the recording failed here" in capsys.readouterr().out


def test_random_playouts_without_traces(tmp_path: Path, capsys) -> None:
    game, _ = write(tmp_path, RACE)
    assert main(["check", game, "--playouts", "3"]) == 0
    out = capsys.readouterr().out
    assert "turn-taking: yes" in out and "random playouts: 3 of 3 played to the end" in out
    broken, _ = write(tmp_path, RACE.replace("(<= (legal ?p noop)", "(<= (legal ?p (wait))"))
    assert main(["check", broken]) == 0
    game, _ = write(tmp_path, RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", ""))
    assert main(["check", game]) == 1
    assert "played to the end, " in (out := capsys.readouterr().out)
    assert "; the rules broke in 5 (in a state reached), the first with: race: role " in out


def test_malformed_traces_are_explained(tmp_path: Path, capsys) -> None:
    game, traces = write(tmp_path, RACE, {"game": "race", "playout": 0})
    assert main(["check", game, "--traces", traces]) == 2
    err = capsys.readouterr().err
    assert "recorded playout 1 is not in the corpus trace format (KeyError: 'steps')" in err
    Path(traces).write_text("not json\n")
    assert main(["check", game, "--traces", traces]) == 2
    assert "cannot read traces" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("(role a)\n(<= (legal a ?m) (true x))", "unsafe variable ?m"),
        ("(role a)\n(legal a (go)", "line 2, column 14: the text ends inside a list: the '(' at"),
    ],
)
def test_an_invalid_game_is_refused_with_its_faults(
    tmp_path: Path, capsys, rules: str, message: str
) -> None:
    game, _ = write(tmp_path, rules)
    assert main(["check", game]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ggp check: ") and message in err and "Traceback" not in err


def test_binary_junk_before_a_role_is_not_a_game(tmp_path: Path, capsys) -> None:
    game = tmp_path / "junk.kif"
    game.write_bytes(bytes(range(256)) * 2 + b"\n(role a)\n")
    assert main(["check", str(game)]) == 2
    err = capsys.readouterr().err
    assert "unexpected control character '\\x00'; is this a GDL file?" in err


def test_a_game_without_terminal_and_goal_is_refused(tmp_path: Path, capsys) -> None:
    game, _ = write(tmp_path, "(role a) (init (p)) (<= (legal a go) (true (p)))")
    assert main(["check", game]) == 2
    err = capsys.readouterr().err
    assert "no terminal: a game needs a terminal rule" in err and "no goal: a game needs" in err


HALF_BROKEN = """
; One move; the rules give no goal after the move bad: half the random playouts break.
(role a)
(init (start))
(<= (legal a good) (true (start)))
(<= (legal a bad) (true (start)))
(<= (next (done ?m)) (does a ?m))
(<= terminal (true (done ?m)))
(<= (goal a 100) (true (done good)))
"""


def test_playouts_where_the_rules_break_are_counted_and_the_others_reported(
    tmp_path: Path, capsys
) -> None:
    game, _ = write(tmp_path, HALF_BROKEN)
    assert main(["check", game, "--playouts", "20"]) == 1
    out = capsys.readouterr().out
    found = re.search(r"random playouts: (\d+) of 20 played to the end, (\d+) joint moves; ", out)
    assert found and 0 < int(found.group(1)) < 20
    broken = 20 - int(found.group(1))
    assert f"the rules broke in {broken} (in a state reached), the first with: " in out
    assert "role a has no goal value in the terminal state: (done bad)" in out
    assert main(["bench", game, "--seconds", "0.2", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"playouts/s.*; ([\d,]+) of ([\d,]+) playouts broke and are not counted", out)
    assert found and 0 < int(found.group(1).replace(",", "")) < int(found.group(2).replace(",", ""))


def test_a_game_whose_every_playout_breaks_has_no_figure(tmp_path: Path, capsys) -> None:
    game, _ = write(tmp_path, HALF_BROKEN.replace("(<= (legal a good) (true (start)))", ""))
    assert main(["bench", game, "--seconds", "0.2", "--runs", "1"]) == 1
    assert "no figure: every playout broke; " in capsys.readouterr().out


@needs_native
def test_what_the_player_learns_is_shown_with_the_pieces_distances(capsys) -> None:
    """On native code, as ``ggp serve`` learns: on compiled Python the check learns only
    where its playouts' CPU time says 1,500 fit in `LEARN_SECONDS`, which two of
    Breakthrough's did not on a cold cache (see the next tests for that rule)."""
    game = str(GDL_DIR / "breakthrough.kif")
    assert main(["check", game, "--playouts", "2", "--reasoner", "native"]) == 0
    out = capsys.readouterr().out
    learnt = out[out.index("what ggp serve learns") :]
    assert "material alone (tried first): held-out correlation" in learnt
    assert "(cellholds ? ? white) +0.5000 -0.5000" in learnt
    for role in ("white", "black"):
        pieces = f"(cellholds ? ? {role}), 0 to 7 moves; facts at each distance: " + "8 " * 7 + "8"
        assert f"{role}: {pieces}" in learnt


def test_no_playouts_to_explore_is_an_explained_error(capsys) -> None:
    assert main(["check", "tictactoe", "--playouts", "0"]) == 2
    assert "--playouts must be at least 1, got 0" in capsys.readouterr().err


def test_the_playouts_cost_leaves_out_the_first_which_compiles_code_on_first_use() -> None:
    assert check.playout_seconds([5.0, 1.0, 3.0, 2.0]) == 2.0
    assert check.playout_seconds([9.0, 1.0]) == 1.0
    assert check.playout_seconds([4.0]) == 4.0


def test_rules_too_slow_to_learn_on_in_python_are_not_learnt_on(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(check, "LEARN_SECONDS", 0.0)
    game, _ = write(tmp_path, RACE)
    assert main(["check", game, "--playouts", "2", "--reasoner", "compiled"]) == 0
    out = capsys.readouterr().out
    assert "what ggp serve learns" in out
    assert "not learnt here: the playouts would take about" in out
    assert main(["check", game, "--playouts", "2", "--reasoner", "interpreter"]) == 0
    assert "not learnt here: the rules are not compiled" in capsys.readouterr().out
