"""Rules of a move factored by what the move touches (`ggp.gdl.network.factoring`).

The factored rules must give the same games (the compiled reasoner plays as
the interpreter) with fewer ground rules; a condition true for few cells
(a neighbour) keeps the rule as written.
"""

from __future__ import annotations

import pytest
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.network import grounding
from ggp.gdl.network.grounding import ground
from test_gdl_compiled import assert_same_random_playouts

SIZE = 5


def hoppers(frame: str) -> str:
    """Two roles move at once, each one of its pieces to a neighbouring cell (or pass).

    Every cell a move leaves or enters changes; `frame` says when the others stay.
    Paint marks stay unless a move lands in their column or next to an eraser on them.
    """
    index = " ".join(f"(index {i})" for i in range(1, SIZE + 1))
    succ = " ".join(f"(succ {i} {i + 1})" for i in range(1, SIZE))
    start = {(1, 1): "red", (1, 2): "red", (SIZE, SIZE): "blue", (SIZE, 1): "blue"}
    cells = " ".join(
        f"(init (cell {x} {y} {start.get((x, y), 'b')}))"
        for x in range(1, SIZE + 1)
        for y in range(1, SIZE + 1)
    )
    return f"""
(role red) (role blue) {index} {succ} {cells}
(init (paint 2 2)) (init (paint 3 3)) (init (paint 3 4)) (init (paint 4 2))
(init (eraser 3 3)) (init (step 0))
(step 0 1) (step 1 2) (step 2 3) (step 3 4) (step 4 5) (step 5 6)
(<= (neighbour ?x ?y ?u ?y) (index ?y) (succ ?x ?u))
(<= (neighbour ?x ?y ?u ?y) (index ?y) (succ ?u ?x))
(<= (neighbour ?x ?y ?x ?v) (index ?x) (succ ?y ?v))
(<= (neighbour ?x ?y ?x ?v) (index ?x) (succ ?v ?y))
(<= (different_cells ?x ?y ?u ?v) (index ?x) (index ?y) (index ?u) (index ?v) (distinct ?x ?u))
(<= (different_cells ?x ?y ?u ?v) (index ?x) (index ?y) (index ?u) (index ?v) (distinct ?y ?v))
(<= (legal ?r (move ?x ?y ?u ?v)) (true (cell ?x ?y ?r)) (neighbour ?x ?y ?u ?v))
(<= (legal ?r pass) (role ?r))
(<= (next (cell ?u ?v ?r)) (does ?r (move ?x ?y ?u ?v)))
(<= (next (cell ?x ?y b)) (does ?r (move ?x ?y ?u ?v)))
{frame}
(<= (erases ?c ?d ?x ?y) (true (eraser ?x ?y)) (neighbour ?c ?d ?x ?y))
(<= (next (paint ?x ?y)) (true (paint ?x ?y)) (does ?r (move ?a ?b ?c ?d)) (distinct ?c ?x)
    (not (erases ?c ?d ?x ?y)))
(<= (next (paint ?x ?y)) (does red pass) (does blue pass) (true (paint ?x ?y)))
(<= (next (eraser ?x ?y)) (true (eraser ?x ?y)))
(<= (next (step ?n)) (true (step ?m)) (step ?m ?n))
(<= terminal (true (step 6)))
(<= (goal red 100) (true (paint 2 2)))
(<= (goal red 0) (not (true (paint 2 2))))
(<= (goal blue 50) (role blue))
"""


UNTOUCHED = """
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p))
    (does red (move ?a ?b ?c ?d)) (different_cells ?x ?y ?a ?b) (different_cells ?x ?y ?c ?d)
    (does blue (move ?e ?f ?g ?h)) (different_cells ?x ?y ?e ?f) (different_cells ?x ?y ?g ?h))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does red pass)
    (does blue (move ?e ?f ?g ?h)) (different_cells ?x ?y ?e ?f) (different_cells ?x ?y ?g ?h))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does blue pass)
    (does red (move ?a ?b ?c ?d)) (different_cells ?x ?y ?a ?b) (different_cells ?x ?y ?c ?d))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does red pass) (does blue pass))
"""
"""Frame rules: cells no move touches keep their piece (moves times cells as written)."""

NEAR = """
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does ?r (move ?a ?b ?c ?d))
    (neighbour ?a ?b ?x ?y) (different_cells ?x ?y ?c ?d))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (does red pass) (does blue pass))
(<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p)) (index ?x) (index ?y))
"""
"""A rule whose condition holds for few cells (the mover's neighbours): not factored."""


def rule_counts(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Ground rules of a game with the factoring, and without it."""
    strata = GdlGame.from_text(text).strata
    factored = len(ground(strata).rules)
    with monkeypatch.context() as patch:
        patch.setattr(grounding, "factor", lambda clause, phase, prefix: None)
        written = len(ground(strata).rules)
    return factored, written


def test_frame_rules_factored_by_the_cells_a_move_touches_are_fewer(monkeypatch) -> None:
    factored, written = rule_counts(hoppers(UNTOUCHED), monkeypatch)
    assert factored < written / 3, (factored, written)


def test_factored_rules_play_as_the_interpreter() -> None:
    text = hoppers(UNTOUCHED)
    interpreted = GdlGame.from_text(text, name="hoppers")
    compiled = CompiledGame.from_text(text, name="hoppers")
    assert_same_random_playouts(interpreted, compiled, playouts=30)


def test_a_condition_true_for_few_cells_keeps_its_rule(monkeypatch) -> None:
    factored, written = rule_counts(hoppers(NEAR), monkeypatch)
    assert factored <= written
    text = hoppers(NEAR)
    assert_same_random_playouts(
        GdlGame.from_text(text, name="near"), CompiledGame.from_text(text, name="near"), 10
    )
