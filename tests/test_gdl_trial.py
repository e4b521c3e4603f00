"""Choosing between the compiled reasoner and the interpreter by a measured trial.

The trial's figures are injected (`with_reasoner`'s ``measure``), so these
tests decide nothing by the clock.
"""

from __future__ import annotations

import pytest
from ggp.games.base import Game, GameError
from ggp.gdl.compiled import compile as compile_module
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.compiled.trial import Verdict, states_per_second
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import with_reasoner
from test_gdl_compiled import assert_same_random_playouts
from test_gdl_game import RACE


def figures(compiled: float, interpreted: float):
    """A `Measure` giving these states/s to the compiled game and the interpreter."""
    seen: list[str] = []

    def measure(game: Game, seconds: float) -> float:
        seen.append(type(game).__name__)
        return compiled if isinstance(game, CompiledGame) else interpreted

    measure.seen = seen  # type: ignore[attr-defined]
    return measure


def refuse(game: Game, seconds: float) -> float:
    raise AssertionError("no trial was expected")


@pytest.fixture
def general_next(monkeypatch) -> None:
    """Every joint move's own function counts as too long: the general one is used."""
    monkeypatch.setattr(compile_module, "MAX_SPECIALISED_LINES", 0)


def race() -> GdlGame:
    return GdlGame.from_text(RACE, name="race")


@pytest.mark.parametrize(
    ("compiled", "interpreted", "keep"),
    [(1_000, 2_000, False), (2_000, 1_000, True), (1_500, 1_500, True)],
)
def test_the_verdict_keeps_the_compiled_reasoner_unless_it_is_slower(
    compiled, interpreted, keep
) -> None:
    verdict = Verdict(compiled, interpreted)
    assert verdict.keep_compiled is keep
    assert ("slower" in verdict.describe()) is not keep
    assert f"{compiled:,} against {interpreted:,} states/s" in verdict.describe()


def test_auto_keeps_the_interpreter_when_the_general_function_is_slower(general_next) -> None:
    measure = figures(compiled=1_000, interpreted=3_000)
    game = with_reasoner(race(), "auto", measure=measure)
    assert not isinstance(game, CompiledGame)
    assert measure.seen == ["CompiledGame", "GdlGame"]
    assert "slower than the interpreter in a trial (1,000 against 3,000 states/s)" in (
        game.not_compiled
    )


def test_auto_keeps_the_compiled_game_when_the_general_function_is_faster(general_next) -> None:
    measure = figures(compiled=3_000, interpreted=1_000)
    game = with_reasoner(race(), "auto", measure=measure)
    assert isinstance(game, CompiledGame) and not game.compiled.specialise
    assert measure.seen == ["CompiledGame", "GdlGame"]
    assert_same_random_playouts(race(), game, playouts=3)


def test_no_trial_when_joint_moves_have_functions_of_their_own() -> None:
    game = with_reasoner(race(), "auto", measure=refuse)
    assert isinstance(game, CompiledGame) and game.compiled.specialise
    assert game.not_compiled == ""


def test_no_trial_when_the_compiled_reasoner_is_asked_for(general_next) -> None:
    assert isinstance(with_reasoner(race(), "compiled", measure=refuse), CompiledGame)


def test_rules_that_break_during_the_trial_keep_the_compiled_reasoner(general_next) -> None:
    def broken(game: Game, seconds: float) -> float:
        raise GameError("no legal moves for left")

    assert isinstance(with_reasoner(race(), "auto", measure=broken), CompiledGame)


def test_states_per_second_counts_random_steps_on_either_reasoner() -> None:
    game = race()
    assert states_per_second(game, 0.01) > 0
    assert states_per_second(with_reasoner(race(), "compiled"), 0.01) > 0
