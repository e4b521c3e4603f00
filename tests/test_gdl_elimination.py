"""Variables of large rules eliminated a bucket at a time (`ggp.gdl.network.elimination`).

The rules with a bucket eliminated must give the same game (the compiled
reasoner plays as the interpreter) with fewer ground rules.
"""

from __future__ import annotations

import pytest
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.network import grounding
from ggp.gdl.network.elimination import buckets, split_move
from ggp.gdl.network.grounding import ground
from ggp.gdl.syntax.strata import clauses
from ggp.gdl.syntax.terms import to_kif
from test_gdl_compiled import assert_same_random_playouts
from test_gdl_factoring import UNTOUCHED, hoppers

THREATS = """
(<= (threatens ?r ?s) (true (cell ?x ?y ?r)) (true (cell ?u ?v ?s)) (neighbour ?x ?y ?u ?v)
    (distinct ?r ?s))
(<= terminal (threatens ?r ?s) (true (step 4)))
(<= (next (trail ?r ?u ?v)) (does ?r (move ?x ?y ?u ?v)) (true (paint ?x ?y)))
"""
"""A piece of one role next to another's: cells times neighbours times pieces as written;
and a move from a painted cell leaves a trail where it lands."""


def test_buckets_are_the_literals_of_a_local_variable_with_a_safe_rule() -> None:
    game = GdlGame.from_text(hoppers(UNTOUCHED) + THREATS)
    (clause,) = clauses(game.rules[-3])
    found = buckets(clause, game.strata.phase, "e")
    # ?x ?y go with the literals of ?x; ?r ?u ?v are needed outside them.
    assert [to_kif(b.clause.head) for b in found] == ["(e 0 ?s ?x ?y)", "(e 1 ?r ?u ?v)"]
    assert [sorted(b.members) for b in found] == [[1, 2], [0, 2]]


def test_a_large_rule_has_its_buckets_eliminated(monkeypatch) -> None:
    strata = GdlGame.from_text(hoppers(UNTOUCHED) + THREATS).strata

    def count(above: int) -> int:
        with monkeypatch.context() as patch:
            patch.setattr(grounding, "ELIMINATE_ABOVE", above)
            patch.setattr(grounding, "LARGE_RULE", above)  # any fewer ground rules kept
            rules = ground(strata).rules
        return sum(1 for head, _, _ in rules if head[0] == "threatens" or "eliminated" in head[0])

    # 3 piece values, 25 cells and their neighbours: 480 ground rules as written.
    written, eliminated = count(10**9), count(10)
    assert eliminated < written, (eliminated, written)


@pytest.mark.parametrize("above", [10, 10**9])
def test_eliminated_rules_play_as_the_interpreter(above: int, monkeypatch) -> None:
    monkeypatch.setattr(grounding, "ELIMINATE_ABOVE", above)
    monkeypatch.setattr(grounding, "LARGE_RULE", above)
    text = hoppers(UNTOUCHED) + THREATS
    interpreted = GdlGame.from_text(text, name="threats")
    compiled = CompiledGame.from_text(text, name="threats")
    assert_same_random_playouts(interpreted, compiled, playouts=30)


def test_a_move_is_split_into_the_parts_other_literals_use() -> None:
    game = GdlGame.from_text(hoppers(UNTOUCHED) + THREATS)
    (clause,) = clauses(game.rules[-1])
    rewritten, parts = split_move(clause, "m")
    assert [to_kif(part.head) for part in parts] == ["(m 0 ?r ?x ?y)", "(m 1 ?r ?u ?v)"]
    assert [to_kif(lit) for lit in rewritten.body] == [
        "(true (paint ?x ?y))",
        "(m 0 ?r ?x ?y)",
        "(m 1 ?r ?u ?v)",
    ]


def test_rules_rewritten_wherever_possible_play_as_the_interpreter(monkeypatch) -> None:
    """No work to measure a rule as written: every split and elimination is taken."""
    monkeypatch.setattr(grounding, "ELIMINATE_ABOVE", 0)
    monkeypatch.setattr(grounding, "LARGE_RULE", 0)
    monkeypatch.setattr(grounding, "ATTEMPT_WORK", 0)
    text = hoppers(UNTOUCHED) + THREATS
    rules = ground(GdlGame.from_text(text).strata).rules
    assert any(" move " in head[0] for head, _, _ in rules)  # moves were split
    interpreted = GdlGame.from_text(text, name="split")
    compiled = CompiledGame.from_text(text, name="split")
    assert_same_random_playouts(interpreted, compiled, playouts=30)


def groups_touching_both_sides(groups: int, one: int = 0, other: int = 0) -> str:
    """A one-role game whose end asks for a group touching both sides, as Hex's path
    does: ``(a ?k ?i)`` and ``(b ?k ?j)`` of one group ``?k``, its ``?i`` and ``?j``
    independent given ``?k``; ``groups`` values of ``?k``, of ``?i`` and ``?j`` as
    many (or `one` and `other`): groups times one times other ground rules as written."""
    numbers = " ".join(f"(num {n})" for n in range(groups))
    sides = " ".join(f"(one {n})" for n in range(one or groups))
    sides += " " + " ".join(f"(other {n})" for n in range(other or groups))
    return f"""
(role p) {numbers} {sides} (init (step 0))
(<= (legal p (seta ?k ?i)) (num ?k) (one ?i))
(<= (legal p (setb ?k ?j)) (num ?k) (other ?j))
(<= (legal p (own ?k)) (num ?k))
(<= (next (a ?k ?i)) (does p (seta ?k ?i)))
(<= (next (b ?k ?j)) (does p (setb ?k ?j)))
(<= (next (c ?k)) (does p (own ?k)))
(<= (next (a ?k ?i)) (true (a ?k ?i)))
(<= (next (b ?k ?j)) (true (b ?k ?j)))
(<= (next (c ?k)) (true (c ?k)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (next (step 3)) (true (step 2)))
(<= path (true (a ?k ?i)) (true (b ?k ?j)) (true (c ?k)))
(<= terminal path)
(<= terminal (true (step 3)))
(<= (goal p 100) path)
(<= (goal p 0) (not path))
"""


def test_a_path_of_a_few_thousand_ground_rules_is_eliminated_by_default() -> None:
    """Hex's path (81 groups times 9 cells of one side times 9 of the other: 6,561
    ground rules, read at every step) is eliminated at the default threshold; read
    as written it made a Hex step 35 times as slow (docs/native-reasoner.md)."""
    text = groups_touching_both_sides(18)  # 5,832 ground rules as written
    rules = ground(GdlGame.from_text(text).strata).rules
    paths = sum(1 for head, _, _ in rules if head == "path")
    assert paths <= 18, paths
    interpreted = GdlGame.from_text(text, name="groups")
    compiled = CompiledGame.from_text(text, name="groups")
    assert_same_random_playouts(interpreted, compiled, playouts=20)


@pytest.mark.parametrize("gain", [1.0, grounding.MIN_GAIN])
def test_a_rule_below_the_large_ones_is_rewritten_only_where_that_halves_it(
    gain: float, monkeypatch
) -> None:
    """700 groups, sides of 2 and 4 cells: 5,600 ground rules as written, 4,900 with both
    sides eliminated: fewer, but not half, so kept as written unless any gain will do."""
    monkeypatch.setattr(grounding, "MIN_GAIN", gain)
    rules = ground(GdlGame.from_text(groups_touching_both_sides(700, 2, 4)).strata).rules
    paths = sum(1 for head, _, _ in rules if head == "path")
    assert (paths == 5600) == (gain > 1), paths
