"""Bottom-up evaluation: recursion, or, distinct, not, nested terms, demand."""

from __future__ import annotations

import ggp.gdl.interpreter.magic
import pytest
from ggp.gdl.interpreter.magic import demand_reasoner, demand_strata
from ggp.gdl.interpreter.reasoner import Reasoner
from ggp.gdl.syntax.parser import parse_rules, parse_terms
from ggp.gdl.syntax.validator import check

GAME = "(role r)\n(<= terminal (true done))\n(goal r 0)\n"
"""Enough for the validator; the tests ask for other relations."""


def reasoner(text: str) -> Reasoner:
    return Reasoner(check(parse_rules(GAME + text)))


def ask(r: Reasoner, name: str, state: str = "", does: str = "") -> set[str]:
    """The facts of `name`, as KIF argument lists, in a state given as terms."""
    layers = r.state_layers(parse_terms(state))
    if does:
        moves = parse_terms(does)
        layers = r.move_layers(layers, zip(moves[::2], moves[1::2], strict=True))
    return {" ".join(map(str, args)) for args in r.facts(name, layers)}


def test_recursion_transitive_closure() -> None:
    r = reasoner(
        "(edge a b) (edge b c) (edge c d) (edge d b)\n"
        "(<= (path ?x ?y) (edge ?x ?y))\n"
        "(<= (path ?x ?z) (edge ?x ?y) (path ?y ?z))"
    )
    assert ask(r, "path") == {f"{x} {y}" for x in "abcd" for y in "bcd"}


def test_recursion_through_the_state() -> None:
    r = reasoner(
        "(adjacent 1 2) (adjacent 2 3) (adjacent 3 4) (adjacent 4 5)\n"
        "(<= (reach 1) (true (open 1)))\n"
        "(<= (reach ?y) (reach ?x) (adjacent ?x ?y) (true (open ?y)))"
    )
    assert ask(r, "reach", "(open 1) (open 2) (open 3) (open 5)") == {"1", "2", "3"}
    assert ask(r, "reach", "(open 2) (open 3)") == set()


def test_mutual_recursion_and_negation_of_a_lower_stratum() -> None:
    r = reasoner(
        "(num 0) (num 1) (num 2) (num 3) (num 4) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)\n"
        "(even 0)\n"
        "(<= (odd ?y) (succ ?x ?y) (even ?x))\n"
        "(<= (even ?y) (succ ?x ?y) (odd ?x))\n"
        "(<= (neither ?x) (num ?x) (not (even ?x)) (not (odd ?x)))\n"
        "(<= (odd_only ?x) (odd ?x) (not (even ?x)))"
    )
    assert ask(r, "even") == {"0", "2", "4"}
    assert ask(r, "odd_only") == {"1", "3"}
    assert ask(r, "neither") == set()


def test_or_distinct_and_numbers_as_symbols() -> None:
    r = reasoner(
        "(n 1) (n 01) (n 10)\n"
        "(<= (pair ?x ?y) (n ?x) (n ?y) (distinct ?x ?y) (or (true (want ?x)) (true (all))))"
    )
    assert ask(r, "pair", "(want 1)") == {"1 01", "1 10"}
    assert len(ask(r, "pair", "(all)")) == 6


def test_nested_terms_repeated_variables_and_compound_values() -> None:
    r = reasoner(
        "(<= (same ?x) (true (pair ?x ?x)))\n"
        "(<= (inner ?a) (true (box (item ?a (tag red)))))\n"
        "(<= (whole ?b) (true (box ?b)))\n"
        "(<= (again ?a) (whole ?b) (true (box ?b)) (true (pair ?a ?a)))"
    )
    state = "(pair 1 1) (pair 1 2) (pair (f x) (f x)) (box (item 7 (tag red))) (box plain)"
    assert ask(r, "same", state) == {"1", "('f', 'x')"}
    assert ask(r, "inner", state) == {"7"}
    assert ask(r, "whole", state) == {"('item', '7', ('tag', 'red'))", "plain"}
    assert ask(r, "again", state) == {"1", "('f', 'x')"}


def test_moves_are_a_separate_phase() -> None:
    r = reasoner(
        "(<= (legal r (push ?x)) (true (cell ?x)))\n"
        "(<= (next (cell ?y)) (does r (push ?x)) (true (cell ?x)) (succ ?x ?y))\n"
        "(succ 1 2) (succ 2 3)"
    )
    layers = r.state_layers(parse_terms("(cell 1) (cell 2)"))
    assert {str(a) for a in r.facts("legal", layers)} == {
        "('r', ('push', '1'))",
        "('r', ('push', '2'))",
    }
    assert ask(r, "next", "(cell 1) (cell 2)", "r (push 2)") == {"('cell', '3')"}


def test_the_parts_of_a_relation_negating_itself() -> None:
    r = reasoner(
        "(<= (score r 100) (true win))\n(<= (score r 0) (not (score r 100)))\n"
        "(<= (score r 50) (true draw) (not (score r 100)))"
    )
    assert ask(r, "score", "win") == {"r 100"}
    assert ask(r, "score", "draw") == {"r 0", "r 50"}


DEMANDED = """
(index 1) (index 2) (index 3) (index 4) (index 5) (index 6)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (far ?a ?b ?c ?d) (index ?a) (index ?b) (index ?c) (index ?d) (distinct ?a ?d))
(<= (count_from ?x ?n ?n) (succ 6 ?x) (index ?n))
(<= (count_from 6 ?n ?n) (index ?n))
(<= (count_from ?x ?n ?m) (true (cell ?x black)) (succ ?x ?y) (succ ?n ?n1)
    (count_from ?y ?n1 ?m))
(<= (count_from ?x ?n ?m) (true (cell ?x white)) (succ ?x ?y) (count_from ?y ?n ?m))
(<= (blacks ?m) (count_from 1 0 ?m))
(<= (legal r (go ?a ?d)) (true (cell ?a ?c)) (true (cell ?d ?c)) (far ?a ?a ?d ?d))
(<= (legal r (stay ?a)) (true (cell ?a white)) (not (far ?a 1 2 ?a)))
"""
STATES = [
    "(cell 1 black) (cell 2 white) (cell 3 black) (cell 4 black) (cell 5 white) (cell 6 white)",
    "(cell 1 white) (cell 2 white) (cell 3 white) (cell 4 white) (cell 5 white) (cell 6 black)",
    "(cell 2 black) (cell 4 white)",
]


@pytest.mark.parametrize("state", STATES)
def test_demand_driven_relations_give_the_same_facts(state: str) -> None:
    strata = check(parse_rules(GAME + DEMANDED))
    plain = Reasoner(strata)
    demanding = Reasoner(demand_strata(strata, {"far", "count_from", "blacks"}))
    assert set(demanding.strata.demand) == {"far", "count_from"}
    for name in ("legal", "blacks"):
        assert ask(demanding, name, state) == ask(plain, name, state)
    layers = demanding.state_layers(parse_terms(state))
    demanding.facts("legal", layers)
    asked = demanding.facts("far", layers)
    assert len(asked) < len(plain.facts("far")) / 10


def test_expensive_relations_are_found_and_computed_on_demand(monkeypatch) -> None:
    monkeypatch.setattr(ggp.gdl.interpreter.magic, "STATIC_WORK_LIMIT", 200)
    chosen = demand_reasoner(check(parse_rules(GAME + DEMANDED + "(init (cell 1 black))")))
    assert "far" in chosen.strata.demand
    plain = Reasoner(check(parse_rules(GAME + DEMANDED)))
    for state in STATES:
        assert ask(chosen, "legal", state) == ask(plain, "legal", state)


def test_variables_no_later_literal_reads_are_dropped_before_a_join() -> None:
    """`(p ?x ?z)` gives 20 bindings of 2 values of ?x; ?z is read by nothing after it,
    so `(q ?x ?y)` joins 2 bindings, not 20: the same facts for a fraction of the work."""
    facts = "".join(f"(p {x} {z}) " for x in (1, 2) for z in range(10))
    facts += "".join(f"(q {x} {y}) " for x in (1, 2, 3) for y in range(30))
    r = reasoner(facts + "\n(<= (r ?x ?y) (p ?x ?z) (q ?x ?y))")
    r.limits = (10**6,)
    r.counter = [0]
    assert ask(r, "r") == {f"{x} {y}" for x in (1, 2) for y in range(30)}
    # 20 bindings of p, 2 of ?x, 60 of q (not 600)
    assert r.counter[0] == 20 + 2 + 60
