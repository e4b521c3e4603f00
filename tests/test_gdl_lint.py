"""`ggp.gdl.syntax.lint` and `ggp check`'s warnings for GDL authors (issue 32, item 5):
typos that are valid GDL, legal rules that never held, and a game that never ends."""

from __future__ import annotations

import re
from pathlib import Path

from gdl_texts import NIM
from ggp.cli import main
from ggp.gdl.syntax.lint import lint, matches, unplayed_legal_rules
from ggp.gdl.syntax.parser import parse_rules, parse_term

TYPO = NIM.replace(
    "(true (pile ?n)) (minus2 ?n ?m))\n(<= (legal ?p noop)",
    "(true (pile ?n)) (minsu2 ?n ?m))\n(<= (legal ?p noop)",
)
"""`minus2` misspelt in the legal rule of (take 2): valid GDL, but the move is never legal."""

NEVER_ENDS = """
(role a) (role b)
(init (pile 5)) (init (control a))
(<= (legal ?p (take 1)) (true (control ?p)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (pile ?n)) (true (pile ?n)))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= terminal (true (pile 0)))
(<= (goal a 100) (true (pile 0)))
(<= (goal a 0) (not (true (pile 0))))
(<= (goal b 50) (true (control b)))
"""
"""A move that takes nothing: the pile never empties, so the game never ends."""


def test_a_valid_game_has_no_warning() -> None:
    assert lint(parse_rules(NIM)) == []


def test_a_misspelt_relation_is_used_but_defined_nowhere() -> None:
    assert lint(parse_rules(TYPO)) == [
        "line 8: minsu2 is used but defined nowhere (no rule or fact has it as its head), so "
        "(minsu2 ?n ?m) never holds; did you mean minus2?"
    ]


def test_a_relation_defined_and_never_used_is_found_through_cycles() -> None:
    rules = parse_rules(NIM + "(plus1 0 1)\n(<= (even ?x) (odd ?x))\n(<= (odd ?x) (even ?x))\n")
    found = lint(rules)
    assert len(found) == 3
    assert found[0].startswith("line 18: plus1 is defined but never used (no legal, next, goal")
    assert found[1].startswith("line 19: even is defined but never used")
    assert found[2].startswith("line 20: odd is defined but never used")
    assert (
        lint(
            parse_rules(
                NIM.replace("(init (pile 5))", "(<= (init (pile ?n)) (plus1 ?n 5))") + "(plus1 4 5)"
            )
        )
        == []
    )  # used by an init rule


def test_facts_no_rule_makes_and_moves_no_rule_gives() -> None:
    rules = parse_rules(
        NIM.replace("(<= terminal (true (pile 0)))", "(<= terminal (true (piles 0)))").replace(
            "(does ?p (take ?k))", "(does ?p (tkae ?k))"
        )
    )
    assert lint(rules) == [
        "line 15: (true (piles 0)) never holds: no init or next rule makes a piles fact; did "
        "you mean pile?",
        "line 14: (does ?p (tkae ?k)) never holds: no legal rule gives a tkae move; did you "
        "mean take?",
    ]


def test_a_pattern_matches_its_instances_with_its_variables_bound_alike() -> None:
    assert matches(parse_term("(cell ?x ?x b)"), parse_term("(cell 1 1 b)"))
    assert not matches(parse_term("(cell ?x ?x b)"), parse_term("(cell 1 2 b)"))
    assert not matches(parse_term("(cell ?x b)"), parse_term("(cell 1 2 b)"))
    assert matches("?m", parse_term("(take 1)")) and not matches("noop", parse_term("(noop)"))


def test_legal_rules_whose_moves_were_never_legal() -> None:
    rules = parse_rules(NIM)
    seen = {("a", parse_term("(take 1)")), ("b", "noop")}
    assert unplayed_legal_rules(rules, seen) == [
        "line 8: the rule for (legal ?p (take 2)) never held in the random playouts (its "
        "move could not be played)"
    ]


def write(tmp_path: Path, rules: str) -> str:
    path = tmp_path / "nim.kif"
    path.write_text(rules)
    return str(path)


def test_ggp_check_warns_of_a_typo_and_of_the_move_it_makes_unplayable(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, TYPO)]) == 0  # warnings, not errors
    out = capsys.readouterr().out
    assert (
        "\nwarning: line 8: minsu2 is used but defined nowhere (no rule or fact has it as its"
        in out
    )
    assert "did you mean minus2?\n" in out
    assert (
        "\nwarning: line 8: the rule for (legal ?p (take 2)) never held in the random playouts "
        "(its move could\n    not be played)\n"
    ) in out
    assert main(["check", write(tmp_path, NIM)]) == 0
    assert "warning" not in capsys.readouterr().out


def test_ggp_check_shows_where_a_game_without_end_stands(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, NEVER_ENDS), "--playouts", "2"]) == 1
    out = capsys.readouterr().out
    assert "random playouts: no terminal state after 1000 joint moves\n" in out
    assert re.search(r"\nlast state: \(control [ab]\) \(pile 5\)\n", out)
    assert (
        "terminal and goal rules that never held (in 200 states of the playouts):\n"
        "  line 9: (<= terminal (true (pile 0)))\n"
        "  line 10: (<= (goal a 100) (true (pile 0)))\n"
        "checked in "
    ) in out
