"""The GDL restrictions: one test per restriction, with the message it gives."""

from __future__ import annotations

import pytest
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.syntax.errors import GdlValidationError
from ggp.gdl.syntax.parser import parse_rules
from ggp.gdl.syntax.validator import check, validate

BASE = """
(role a)
(init (count 0))
(<= (legal a go) (true (count 0)))
(<= (next (count 1)) (does a go))
(<= terminal (true (count 1)))
(goal a 100)
"""
"""A valid one-role game that the tests below break in one way each."""


def faults_of(extra: str) -> list[str]:
    faults, _ = validate(parse_rules(BASE + extra))
    return faults


def only_fault(extra: str) -> str:
    faults = faults_of(extra)
    assert len(faults) == 1, faults
    return faults[0]


def test_the_base_game_is_valid() -> None:
    assert faults_of("") == []


def test_unsafe_variable_in_the_head() -> None:
    fault = only_fault("(<= (p ?x ?y) (true (count ?x)))")
    assert fault.startswith("line 8: (<= (p ?x ?y) (true (count ?x))): unsafe variable ?y:")
    assert "appears in the head but in no positive sentence of the body" in fault


def test_unsafe_variable_under_not() -> None:
    fault = only_fault("(<= (p ?x) (true (count ?x)) (not (q ?y)))\n(q 1)")
    assert "unsafe variable ?y: it appears in (not (q ?y)) but in no positive sentence" in fault


def test_unsafe_variable_in_distinct() -> None:
    fault = only_fault("(<= (p ?x) (true (count ?x)) (distinct ?x ?z))")
    assert "unsafe variable ?z: it appears in (distinct ?x ?z)" in fault


def test_unsafe_variable_in_one_alternative_of_an_or() -> None:
    fault = only_fault("(<= (p ?x) (or (true (count ?x)) (true (other 1))))")
    assert "unsafe variable ?x: it appears in the head" in fault
    assert "(in one alternative of its or)" in fault


def test_negation_through_a_cycle_is_not_stratified() -> None:
    fault = only_fault(
        "(<= (p ?x) (true (count ?x)) (not (q ?x)))\n(<= (q ?x) (true (count ?x)) (p ?x))"
    )
    assert fault.startswith("line 8: (<= (p ?x) (true (count ?x)) (not (q ?x))): negation is")
    assert "p depends on (not (q ?x)) and q depends on p again (cycle p -> q -> p)" in fault


def test_a_relation_negating_itself_is_not_stratified() -> None:
    fault = only_fault("(<= (p ?x) (true (count ?x)) (not (p ?x)))")
    assert "negation is not stratified: p depends on its own negation (not (p ?x))" in fault


def test_negation_of_another_part_of_a_relation_is_stratified_by_its_values() -> None:
    # As in several public games: the 0 goal is "not the 100 goal".
    rules = parse_rules(
        BASE.replace("(goal a 100)", "")
        + "(<= (goal a 100) (true (count 1)))\n(<= (goal a 0) (not (goal a 100)))"
    )
    strata = check(rules)
    assert strata.split == {"goal": (0, 1)}
    assert strata.notes == [
        "goal depends on its own negation; it is stratified by the values of its "
        "arguments 1, 2 (2 parts) instead of as a whole"
    ]


def test_recursion_restriction() -> None:
    fault = only_fault(
        "(n 0)\n(n (s 0))\n(<= (bad ?y) (n ?y) (bad (s ?y)))\n(<= (bad 0) (true (count 0)))"
    )
    assert fault.startswith("line 10: (<= (bad ?y) (n ?y) (bad (s ?y))): breaks the recursion")
    assert (
        "in (bad (s ?y)), which is recursive with bad, the argument (s ?y) is not ground" in fault
    )


def test_recursion_with_head_arguments_or_outside_bindings_is_allowed() -> None:
    assert (
        faults_of(
            "(succ 0 1)\n(succ 1 2)\n(<= (less ?x ?y) (succ ?x ?y))\n"
            "(<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))"
        )
        == []
    )


def test_a_relation_used_with_two_arities() -> None:
    fault = only_fault("(<= (p ?x) (true (count ?x)))\n(<= (q ?x) (p ?x ?x))")
    assert fault == (
        "line 9: (<= (q ?x) (p ?x ?x)): relation p is used with 2 arguments here "
        "but with 1 at line 8"
    )


def test_gdl_relations_with_the_wrong_arity() -> None:
    fault = only_fault("(<= (legal a) (true (count 1)))")
    assert "legal takes 2 arguments, here it has 1: (legal a)" in fault


@pytest.mark.parametrize("keyword", ["true", "does"])
def test_true_and_does_in_a_rule_head(keyword: str) -> None:
    args = "(count 2)" if keyword == "true" else "a go"
    fault = only_fault(f"(<= ({keyword} {args}) (true (count 1)))")
    assert f"{keyword} cannot be the head of a rule" in fault


@pytest.mark.parametrize("keyword", ["init", "role", "base"])
def test_init_role_base_must_not_depend_on_the_state(keyword: str) -> None:
    fault = only_fault(f"(<= ({keyword} (x ?c)) (helper ?c))\n(<= (helper ?c) (true (count ?c)))")
    assert fault == (
        f"line 8: (<= ({keyword} (x ?c)) (helper ?c)): {keyword} must not depend on true, "
        f"but it does: {keyword} -> helper -> true"
    )


def test_input_must_not_depend_on_moves() -> None:
    fault = only_fault("(<= (input a ?m) (does a ?m))")
    assert fault.endswith("input must not depend on does, but it does: input -> does")


@pytest.mark.parametrize("keyword", ["legal", "goal", "terminal"])
def test_legal_goal_terminal_must_not_depend_on_moves(keyword: str) -> None:
    head = {"legal": "(legal a stop)", "goal": "(goal a 50)", "terminal": "terminal"}[keyword]
    fault = only_fault(f"(<= {head} (moved))\n(<= (moved) (does a go))")
    assert f"{keyword} must not depend on does, but it does: {keyword} -> moved -> does" in fault


def test_no_roles() -> None:
    faults, _ = validate(parse_rules(BASE.replace("(role a)", "")))
    assert faults == ["no roles: a game needs at least one (role NAME) fact"]


def test_no_terminal_and_no_goal() -> None:
    text = BASE.replace("(<= terminal (true (count 1)))", "").replace("(goal a 100)", "")
    faults, _ = validate(parse_rules(text))
    assert faults == [
        "no terminal: a game needs a terminal rule, or it never ends",
        "no goal: a game needs (goal ROLE VALUE) rules, or it has no result",
    ]


def test_all_faults_are_listed_when_the_game_is_refused() -> None:
    text = BASE + "(<= (p ?x) (q ?y))\n(<= (true (count 2)) (p 1))\n(<= (legal a) (p 1))"
    with pytest.raises(GdlValidationError) as error:
        GdlGame.from_text(text, source="broken.kif")
    message = str(error.value)
    assert message.startswith("broken.kif: not a valid GDL game description (3 faults):")
    assert "unsafe variable ?x" in message
    assert "true cannot be the head of a rule" in message
    assert "legal takes 2 arguments" in message
    assert len(error.value.faults) == 3
