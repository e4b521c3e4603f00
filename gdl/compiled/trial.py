"""A short measured trial between the compiled reasoner and the interpreter.

Compiled code is usually many times faster than the interpreter, but not
always: when a joint move changes too much of the state for a next-state
function of its own to pay (`ggp.gdl.compiled.compile.MAX_SPECIALISED_LINES`), every joint
move goes through the general next-state function, which evaluates every
``next`` of the game; on a big network (hex) that is slower than the
interpreter.  `ggp.gdl.load` then runs both reasoners for a moment and keeps the
faster, so that ``auto`` never picks the slower one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ggp.games.base import Game, GameError
from ggp.gdl.compiled.compiled_game import CompiledGame

TRIAL_SECONDS = 0.3
"""How long each reasoner plays random steps in a trial."""

Measure = Callable[[Game, float], float]
"""States per second of a game, measured for about the given seconds."""


def states_per_second(game: Game, seconds: float, seed: int = 0) -> float:
    """Random steps per second from the initial state (again after each end), for `seconds`."""
    rng = random.Random(seed)
    clock = time.perf_counter
    start = clock()
    state = game.initial_state()
    steps = 0
    while True:
        if state.is_terminal():
            state = game.initial_state()
        else:
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
            steps += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return steps / elapsed


@dataclass(frozen=True)
class Verdict:
    """The outcome of a trial: which reasoner to keep, and the figures that decided."""

    compiled: float
    interpreted: float

    @property
    def keep_compiled(self) -> bool:
        """The compiled reasoner unless it was slower (a tie keeps it)."""
        return self.compiled >= self.interpreted

    def describe(self) -> str:
        faster = "faster" if self.keep_compiled else "slower"
        return (
            f"the compiled reasoner, on its general next-state function, was {faster} than "
            f"the interpreter in a trial ({self.compiled:,.0f} against "
            f"{self.interpreted:,.0f} states/s)"
        )


def trial(
    compiled: CompiledGame,
    interpreted: Game,
    measure: Measure = states_per_second,
    seconds: float = TRIAL_SECONDS,
) -> Verdict | None:
    """Both reasoners measured on random steps; None if the rules break during play.

    (A broken game raises the same error on both reasoners; the caller then
    keeps the compiled one, whose errors are the interpreter's own.)
    """
    try:
        return Verdict(measure(compiled, seconds), measure(interpreted, seconds))
    except GameError:
        return None
