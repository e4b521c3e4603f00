"""Loading a GDL game with the reasoner that suits it: the one seam to call.

``reasoner="auto"`` compiles the rules (`ggp.gdl.compiled.compile`) and uses the compiled
game if that is done within the budget, else keeps the interpreter and logs
why; ``"compiled"`` insists (an error if the rules cannot be compiled) and
``"interpreter"`` never compiles.  When ``auto`` compiles a game whose joint
moves all go through the general next-state function, which can be slower
than the interpreter, a short measured trial (`ggp.gdl.compiled.trial`) keeps the faster.
``"native"`` is ``auto`` and then native code (`ggp.gdl.native`), built in the
background and attached when ready (the generated Python serves meanwhile);
without cffi or a C compiler it is ``auto``, logged.
Either way the game is a `GdlGame`: same roles, moves, facts and keys.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ggp.games.base import GameError
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.compiled.trial import Measure, states_per_second, trial
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native.attach import attach_in_background
from ggp.gdl.native.build import NativeUnavailable, check_available
from ggp.gdl.network.grounding import Budget, GroundingError

REASONERS = ("auto", "compiled", "interpreter", "native")

log = logging.getLogger(__name__)


def game_from_text(
    text: str,
    name: str = "gdl",
    source: str = "",
    reasoner: str = "auto",
    budget: Budget | None = None,
) -> GdlGame:
    """The game described by GDL `text`, on the reasoner asked for (see the module)."""
    _check_reasoner(reasoner)
    return with_reasoner(GdlGame.from_text(text, name, source), reasoner, budget)


def game_from_file(
    path: str | Path,
    name: str | None = None,
    reasoner: str = "auto",
    budget: Budget | None = None,
) -> GdlGame:
    """The game in a ``.kif`` file (named after it unless `name` is given)."""
    _check_reasoner(reasoner)
    return with_reasoner(GdlGame.from_file(path, name), reasoner, budget)


def with_reasoner(
    game: GdlGame,
    reasoner: str,
    budget: Budget | None = None,
    measure: Measure = states_per_second,
) -> GdlGame:
    """`game` itself, or compiled, as `reasoner`, the budget and a trial decide.

    `measure` gives a game's states per second in a trial (given figures in tests).
    """
    _check_reasoner(reasoner)
    if reasoner == "interpreter":
        return game
    if reasoner == "native":
        try:
            check_available()
        except NativeUnavailable as error:
            log.info("%s: no native code (%s): as auto", game.name, error)
            game.not_native = error
            reasoner = "auto"
    try:
        compiled = compile_rules(game.strata, game.role_terms, budget)
    except GroundingError as error:
        if reasoner == "compiled":
            raise GameError(f"{game.name}: the rules cannot be compiled: {error}") from None
        log.info("%s: on the interpreter, as the rules cannot be compiled: %s", game.name, error)
        game.not_compiled = f"the rules cannot be compiled: {error}"
        return game
    log.info("%s: compiled: %s", game.name, compiled.summary())
    compiled_game = CompiledGame.from_game(game, compiled)
    if reasoner == "auto" and compiled_game.uses_general_next():
        verdict = trial(compiled_game, game, measure)
        if verdict is not None:
            log.info("%s: %s", game.name, verdict.describe())
            if not verdict.keep_compiled:
                game.not_compiled = verdict.describe()
                return game
    if reasoner == "native":
        compiled_game.native_build = attach_in_background(compiled_game)
    return compiled_game


def describe_reasoner(game: object) -> str:
    """What plays `game`'s rules now, in words; empty for a game that is not GDL.

    Native code; the compiled rules' generated Python (while native code is built, or
    why there is none when it was asked for); or the interpreter (and why not compiled).
    """
    if not isinstance(game, GdlGame):
        return ""
    if isinstance(game, CompiledGame):
        if game.native is not None:
            return "native code"
        if game.native_build is not None and game.native_build.is_alive():
            return "compiled (generated Python while its native code is built)"
        if game.not_native is not None:
            return f"compiled (generated Python; no native code: {game.not_native})"
        return "compiled (generated Python)"
    if game.not_compiled:
        return f"interpreter ({game.not_compiled})"
    return "interpreter"


def _check_reasoner(reasoner: str) -> None:
    if reasoner not in REASONERS:
        raise GameError(f"unknown reasoner {reasoner!r}; choose one of {', '.join(REASONERS)}")
