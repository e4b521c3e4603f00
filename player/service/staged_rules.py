"""The rules of a match in stages: the interpreter at once, the faster game when it is ready.

Compiling a large game's rules takes seconds of CPU (chess_200 about 6 CPU-s on
an idle core), minutes on a loaded machine, and its native code longer still;
a search that waits for them runs no simulation during the start clock and
answers its first ``play`` messages with fallbacks.  So the search worker
(`ggp.player.service.search_worker`) starts on the interpreter, which reads the rules in
a fraction of a second, while `StagedRules` builds the game again in a thread
with the reasoner asked for (``native``: compiled, then native code attached in
the background when it is built, see `ggp.gdl.load`).  Once it is there the
worker moves its search over (`SearchWorker.take_faster_rules`): a state of the
new game is reached by replaying the match's joint moves from its initial
state, and a new tree grows there (the interpreter's tree is small: it ran a
hundredth of the simulations).

The thread shares the interpreter (the GIL) with the search, so each runs at
about half speed until the build ends; the rules are parsed again in the
thread rather than shared, so that no object of the interpreter's game is
used by two threads.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence

from ggp.games.base import Game, GameError, State
from ggp.gdl.compiled.compiled_game import CompiledGame

Builder = Callable[[str], Game]
"""Builds the game of a rules text on the faster reasoner (raises `GameError`)."""


class StagedRules:
    """The faster game of `rules`, built by `build` in a daemon thread.

    `done` is set when the build has ended; `game` is then the built game if it
    is faster than the interpreter (a `CompiledGame`), else None, with `why`
    saying what happened.  `seconds` is the build's wall-clock time.
    """

    def __init__(self, rules: str, build: Builder) -> None:
        self.rules = rules
        self.build = build
        self.game: CompiledGame | None = None
        self.why = ""
        self.seconds = 0.0
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rules", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        began = time.perf_counter()
        try:
            game = self.build(self.rules)
            if isinstance(game, CompiledGame):
                self._finish(game)
        except GameError as error:
            self.why = f"not compiled: {error}"
        except Exception as error:  # a bug in a faster reasoner: the interpreter plays on
            self.why = f"building the faster rules failed: {error!r}"
            print(f"search worker: {self.why}", file=sys.stderr)
        else:
            if isinstance(game, CompiledGame):
                self.game = game
            else:
                self.why = getattr(game, "not_compiled", "") or "the interpreter was kept"
        finally:
            self.seconds = time.perf_counter() - began
            self.done.set()

    def _finish(self, game: CompiledGame) -> None:
        """Make `game` ready for a search in this thread.  The next-state code left out
        of the compiler's budget (`CompiledRules.general_left`) is written here, not
        at its first use, a search's (kalaha_2009: 35 s of a 4.5 s search, five
        replies in a row fallbacks).  Where native code is being built, that code
        is not written at all: the game is handed over once the native code is
        attached (or has failed, then with it): kalaha_2009's takes 12 CPU-s to write,
        and the generated Python it completes ran 3 simulations in a 4 s search, where
        the interpreter ran a hundred."""
        compiled, build = game.compiled, game.native_build
        if compiled.general_left and build is not None:
            build.join()
            if game.native is not None:
                return
        compiled.write_general()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the build to end (at most `timeout` seconds); whether it has."""
        return self.done.wait(timeout)


def replay(game: Game, joints: Sequence[Sequence[str]]) -> State:
    """The state of `game` after the joint moves `joints` from its initial state."""
    state = game.initial_state()
    for joint in joints:
        state = state.next(list(joint))
    return state
