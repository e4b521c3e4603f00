"""Relations restricted to the arguments they are asked for with (`ggp.gdl.network.demand`)."""

from __future__ import annotations

from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.network.demand import restrict_to_demand
from ggp.gdl.network.grounding import ground
from ggp.gdl.syntax.terms import to_kif
from test_gdl_compiled import assert_same_random_playouts
from test_gdl_factoring import UNTOUCHED, hoppers

ROWS = """
(<= (row ?a ?b ?c ?r) (true (cell ?a 1 ?r)) (true (cell ?b 1 ?r)) (true (cell ?c 1 ?r)))
(<= (owns ?r ?x) (true (cell ?x ?y ?r)))
(<= terminal (row 1 2 3 red))
(<= terminal (row 3 4 5 blue) (owns blue ?x))
"""
"""Three cells of a row held by one role, asked for two rows only."""


def test_a_relation_asked_with_constants_is_restricted_to_them() -> None:
    game = GdlGame.from_text(hoppers(UNTOUCHED) + ROWS)
    restricted = restrict_to_demand(game.strata.clauses)
    texts = {to_kif(c.head): [to_kif(lit) for lit in c.body] for c in restricted}
    assert texts["(demand row 1 2 3 red)"] == [] and texts["(demand row 3 4 5 blue)"] == []
    assert texts["(row ?a ?b ?c ?r)"][0] == "(demand row ?a ?b ?c ?r)"
    assert texts["(owns ?r ?x)"][0] == "(demand owns ?r)"  # ?x is asked as a variable
    assert "(demand legal ?r)" not in str(texts)  # read from outside the rules: never


def test_restricted_relations_ground_only_what_is_asked_and_play_the_same() -> None:
    text = hoppers(UNTOUCHED) + ROWS
    rules = ground(GdlGame.from_text(text).strata).rules
    assert sum(head[0] == "row" for head, _, _ in rules) == 2  # of 3 values times 5 cubed
    assert_same_random_playouts(
        GdlGame.from_text(text, name="rows"), CompiledGame.from_text(text, name="rows"), 30
    )
