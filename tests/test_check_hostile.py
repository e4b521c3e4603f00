"""`ggp check` on the hostile rules of issue 17 ends with one clear line, soon.

Each file costs the reasoner far more than its size suggests; `ggp check`
must end with exit status 2 and a one-line ``ggp check: ...`` error (no
traceback), its work bounded by the loader's budgets and by the budget of
each state in the random playouts (`ggp.commands.check.STEP_WORK_LIMIT`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ggp.cli import main
from ggp.commands import check
from hostile_rules import BIG_RELATION, COSTLY_STEP, MANY_ORS, PARENTHESES

GROWING = """
(role r) (init (n z)) (legal r go)
(<= (next (n (f ?x ?x))) (true (n ?x)))
(<= terminal (true (n done)))
(goal r 100)
"""
"""A state term that doubles at every step (shared subterms: hashing it once
unfolded takes 2^steps): the game never ends."""


def check_error(tmp_path: Path, capsys, rules: str, lines: int = 1) -> str:
    """The error `ggp check` ends with on `rules`: `lines` lines (a validation
    fault is listed on a line of its own)."""
    game = tmp_path / "hostile.kif"
    game.write_text(rules)
    assert main(["check", str(game)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ggp check: ") and err.count("\n") == lines, err
    return err


def test_a_relation_of_30_to_the_6_tuples_is_refused_before_it_is_built(
    tmp_path: Path, capsys
) -> None:
    err = check_error(tmp_path, capsys, BIG_RELATION)
    assert "the rules are too expensive to play: computing big for the initial state" in err


def test_a_body_of_16_or_literals_is_refused_by_the_validator(tmp_path: Path, capsys) -> None:
    err = check_error(tmp_path, capsys, MANY_ORS, lines=2)
    assert "its (or ...) literals multiply out to 65,536 alternatives" in err


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (PARENTHESES, "line 1, column 101"),
        ("(role a)\n; (((\n" + "(f " * 200, "line 3, column 301"),
    ],
)
def test_lists_nested_too_deep_are_refused_at_their_first_level_too_many(
    tmp_path: Path, capsys, text: str, where: str
) -> None:
    err = check_error(tmp_path, capsys, text)
    assert f"{where}: lists nested more than 100 deep" in err


def test_a_step_too_expensive_to_compute_ends_the_random_playouts(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(check, "STEP_WORK_LIMIT", 5_000)  # 20^3 bindings from the 2nd step on
    err = check_error(tmp_path, capsys, COSTLY_STEP)
    assert "the rules are too expensive to play: computing next for a joint move" in err
    assert "needs more than 5,000 join bindings; the state: (step 1) (x 1)" in err
    assert err.endswith("(after 1 joint moves of random playouts)\n")


def test_a_state_term_doubling_at_every_step_ends_the_random_playouts(
    tmp_path: Path, capsys
) -> None:
    err = check_error(tmp_path, capsys, GROWING)
    assert "computing next for a joint move from this state: a fact of next holds more" in err


def test_the_step_budget_lets_an_ordinary_game_through(tmp_path: Path, capsys) -> None:
    game = tmp_path / "growing.kif"
    game.write_text(GROWING.replace("(f ?x ?x)", "(s ?x)").replace("done", "(s (s (s z)))"))
    assert main(["check", str(game)]) == 0
    assert "random playouts: 5 of 5 played to the end, 15 joint moves, no fault" in (
        capsys.readouterr().out
    )
