"""The loader is bounded: hostile descriptions stop within budgets counted in work.

Small versions of the hostile files of issue 17: a join of many variables over
many constants, a rule of many ``(or ...)`` literals, and a state term that
grows at every step.  Each ends with a clear error (or the interpreter) and
the work counted never passes its budget.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from gdl_texts import TICTACTOE
from ggp.games.playouts import RANDOM
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter import joins, magic
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import game_from_text
from ggp.gdl.network import grounding
from ggp.gdl.network.formulas import cone
from ggp.gdl.network.grounding import WORK_UNITS, Budget, GroundingError, Work, ground
from ggp.gdl.syntax.errors import GdlError, GdlValidationError
from ggp.gdl.syntax.parser import parse_rules
from ggp.gdl.syntax.validator import MAX_ALTERNATIVES, validate

CONSTANTS = "".join(f"(k c{i})\n" for i in range(12))
JOIN = "(<= (big ?a ?b ?c ?d) (k ?a) (k ?b) (k ?c) (k ?d))\n"
"""12^4 = 20,736 facts: small enough for a test, big against small budgets."""

GROWING = """
(role r) (init (n z)) (legal r go)
(<= (next (n (s ?x))) (true (n ?x)))
(<= terminal (true (n (s (s (s z))))))
(goal r 100)
"""


def test_a_join_over_its_budget_stops_before_making_its_bindings() -> None:
    text = TICTACTOE + CONSTANTS + JOIN + "(<= (next (hit ?a)) (big ?a ?b ?c ?d))\n"
    strata = GdlGame.from_text(text).strata
    work = Work(Budget(work=5_000))
    with pytest.raises(GroundingError, match="work budget of 5,000 units exceeded while"):
        ground(strata, work=work)
    assert work.spent <= 5_000  # refused before the 20,736 bindings were made


def test_relations_nothing_needs_are_not_grounded() -> None:
    unused = "(<= (bigger ?a ?b ?c ?d ?e) (k ?a) (k ?b) (k ?c) (k ?d) (k ?e))\n"  # 12^5 facts
    game = GdlGame.from_text(TICTACTOE + CONSTANTS + unused)
    rules = compile_rules(game.strata, game.role_terms, Budget(work=100_000))
    assert rules.work <= 100_000


def test_the_interpreter_refuses_rules_too_expensive_for_one_state(monkeypatch) -> None:
    monkeypatch.setattr(magic, "STATIC_WORK_LIMIT", 1_000)
    monkeypatch.setattr(magic, "CEILING", 5_000)
    text = TICTACTOE.replace("(<= terminal", "(<= terminal (big ?a ?b ?c ?d))\n(<= terminal", 1)
    with pytest.raises(GdlError, match="too expensive to play: computing big .* 5,000 join"):
        GdlGame.from_text(text + CONSTANTS + JOIN)


def test_or_literals_multiplying_out_too_far_are_a_validation_fault() -> None:
    alternatives = " ".join("(or (true (cell 1 1 x)) (true (cell 1 1 o)))" for _ in range(9))
    faults, strata = validate(parse_rules(TICTACTOE + f"(<= (goal xplayer 10) {alternatives})"))
    assert strata is None
    assert faults == [
        faults[0].split(": its")[0]
        + f": its (or ...) literals multiply out to 512 alternatives; at most "
        f"{MAX_ALTERNATIVES} are accepted"
    ]
    with pytest.raises(GdlValidationError, match="512 alternatives"):
        GdlGame.from_text(TICTACTOE + f"(<= (goal xplayer 10) {alternatives})")


def test_a_term_growing_at_every_step_stops_grounding_and_plays_interpreted() -> None:
    game = GdlGame.from_text(GROWING)
    grows = "relaxed model of next grows without bound: a fact of next holds more than 200 sym"
    with pytest.raises(GroundingError, match=grows):
        compile_rules(game.strata, game.role_terms)
    loaded = game_from_text(GROWING)
    assert "grows without bound" in loaded.not_compiled
    assert loaded.initial_state().next(["go"]).facts() == ("(n (s z))",)


def test_term_size_counts_repeated_subterms_and_stops_at_its_cap() -> None:
    term: tuple | str = "z"
    for _ in range(40):
        term = ("n", term, term)  # 2^41 symbols unfolded, 41 tuples shared
    assert joins.term_size(("n", "a", ("s", "b")), 100) == 4
    assert joins.term_size(term, 100) == 101


COUNTING = """
(role p) (init (n 0)) (init (c 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal p (add ?k)) (true (n ?m)) (succ ?m ?k))
(legal p stay)
(<= (next (n ?k)) (does p (add ?k)))
(<= (next (n ?m)) (does p stay) (true (n ?m)))
(<= (next (c ?k)) (true (c ?m)) (succ ?m ?k))
(<= terminal (true (c 4)))
(<= (score ?m) (true (n ?m)))
(<= (score ?k) (score ?m) (succ ?m ?k) (true (c ?k)))
(<= (goal p 100) (score 4))
(<= (goal p 0) (not (score 4)))
"""


def test_goals_too_expensive_to_ground_are_left_to_the_interpreter(monkeypatch) -> None:
    interpreted = GdlGame.from_text(COUNTING)
    full = compile_rules(interpreted.strata, interpreted.role_terms)
    assert not full.goals_left
    monkeypatch.setattr(grounding, "GOAL_SHARE", 10**9)  # no work left for goals
    rules = compile_rules(interpreted.strata, interpreted.role_terms)
    assert "work budget" in rules.goals_left and "goals by the interpreter" in rules.summary()
    assert rules.network.goals == [[]]
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    for seed in range(5):
        expected = interpreted.initial_state().playouts(random.Random(seed), 1, RANDOM)[0]
        assert compiled.initial_state().playouts(random.Random(seed), 1, RANDOM)[0] == expected


def test_goals_whose_code_does_not_fit_are_left_to_the_interpreter() -> None:
    interpreted = GdlGame.from_text(COUNTING)
    whole = compile_rules(interpreted.strata, interpreted.role_terms)
    assert "goals" in whole.functions and not whole.goals_code_left
    short = Budget(work=whole.work - 1)  # the goals' code, written last, does not fit
    rules = compile_rules(interpreted.strata, interpreted.role_terms, short)
    assert rules.work < whole.work and not rules.goals_left
    assert "work budget" in rules.goals_code_left and "on the Python path" in rules.summary()
    assert "goals" not in rules.functions and rules.network.goals != [[]]
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    for seed in range(5):
        expected = interpreted.initial_state().playouts(random.Random(seed), 1, RANDOM)[0]
        assert compiled.initial_state().playouts(random.Random(seed), 1, RANDOM)[0] == expected


def budget_without_general() -> Budget:
    """A budget in which COUNTING's general next-state function does not fit."""
    interpreted = GdlGame.from_text(COUNTING)
    whole = compile_rules(interpreted.strata, interpreted.role_terms)
    assert "next" in whole.functions and not whole.general_left
    generator, network = whole.generator, whole.network
    goals = int(
        network.literal_count(cone(network, generator.goal_targets()))
        * WORK_UNITS["network literal"]
    )
    goals += int(len(generator.goals_source()) * WORK_UNITS["source byte"])
    return Budget(work=whole.work - goals - 1)  # the general function, written before, fails


def test_a_general_next_function_that_does_not_fit_is_not_written_before_play() -> None:
    interpreted = GdlGame.from_text(COUNTING)
    short = budget_without_general()
    rules = compile_rules(interpreted.strata, interpreted.role_terms, short)
    assert rules.general_left and "next" not in rules.functions
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    for seed in range(5):
        expected = interpreted.initial_state().playouts(random.Random(seed), 1, RANDOM)[0]
        assert compiled.initial_state().playouts(random.Random(seed), 1, RANDOM)[0] == expected
    assert rules.next_functions  # joint moves got their own functions from their first use
    # written in the background before play (`staged_rules.StagedRules`), the general
    # function serves every joint move's first uses, as where it fitted
    later = compile_rules(interpreted.strata, interpreted.role_terms, short)
    later.write_general()
    assert "next" in later.functions and not later.general_left
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), later)
    for seed in range(5):
        expected = interpreted.initial_state().playouts(random.Random(seed), 1, RANDOM)[0]
        assert compiled.initial_state().playouts(random.Random(seed), 1, RANDOM)[0] == expected
    assert not later.next_functions  # no joint move used SPECIALISE_AFTER times yet


def test_the_work_counted_never_passes_the_budget() -> None:
    strata = GdlGame.from_text(TICTACTOE).strata
    for limit in range(500, 8_000, 500):
        work = Work(Budget(work=limit))
        with contextlib.suppress(GroundingError):
            ground(strata, work=work)
        assert work.spent <= limit
