"""Native code for a compiled game: built (or found in the cache) and attached.

`attach_native` builds the library of a `CompiledGame`'s network and makes
the game answer through it; `attach_in_background` does that in a thread,
so that the generated Python serves until the library is ready (seconds for
most games, a minute or more for the largest ones on a loaded machine).
Either way the answers are the same.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time

from ggp.gdl.compiled.compile import goal_values, percept_texts
from ggp.gdl.compiled.compiled_game import CompiledGame, PlayoutBroke
from ggp.gdl.native.build import NativeUnavailable
from ggp.gdl.native.rules import NativeRules
from ggp.gdl.network.formulas import Network, build_network
from ggp.gdl.network.grounding import Budget, GroundingError, ground

log = logging.getLogger(__name__)

TREE_SECONDS = 40e-6
"""What one MCTS iteration costs besides its playout (select, expand, back up), in
CPU seconds: about 32 us on the corpus Connect Four, from ``ggp bench --mcts``
(iterations/s and bare playouts/s, scaled from wall-clock to CPU time)."""
MAX_BATCH = 64
NATIVE_GOALS_WORK = 3 * Budget().work
"""Units of work for grounding the rules again, goals included, when the default
budget left the goals to the interpreter (othello-comp2007: 5.2 million in all).
Spent in the build's thread, while the generated Python serves."""
MEASURE_SECONDS = 0.02


def playout_batch(game: CompiledGame, native: NativeRules) -> int:
    """Playouts per search leaf so that playouts take about as long as the tree.

    Measured on playouts from the initial state for `MEASURE_SECONDS` of
    this thread's CPU time.
    """
    rng = random.Random(0)
    bits = game.compiled.network.init
    playouts = 0
    start = time.thread_time()
    try:
        while time.thread_time() - start < MEASURE_SECONDS:
            native.playouts(bits, rng, 1)
            playouts += 1
    except PlayoutBroke:
        return 1
    each = (time.thread_time() - start) / playouts
    return max(1, min(MAX_BATCH, math.ceil(TREE_SECONDS / max(each, 1e-9))))


def attach_native(game: CompiledGame) -> None:
    """Build the game's native code and attach it; `NativeUnavailable` says why not.

    Where the compiled rules left the goals to the interpreter, the native code
    is built from the rules grounded again with the goals (`network_with_goals`),
    when that fits in `NATIVE_GOALS_WORK`: native playouts then compute their goals.
    """
    network, values = game.compiled.network, game.compiled.goal_values
    with_goals = network_with_goals(game) if game.compiled.goals_left else None
    if with_goals is not None:
        network, values = with_goals, goal_values(with_goals)
    native = NativeRules(network, values)
    native.count_missing_goals_as(game.missing_goal)  # before its playouts are measured
    native.touch_masks()  # here, not in a search's time
    game.use_native(
        native,
        playout_batch(game, native),
        None if with_goals is None else values,
        percept_texts(network) if any(network.sees) else None,  # else no gdl_sees
    )


def network_with_goals(game: CompiledGame) -> Network | None:
    """The game's rules grounded with their goals within `NATIVE_GOALS_WORK`, with the
    same state bits and inputs as its compiled network; None if they do not fit."""
    try:
        program = ground(game.strata, Budget(work=NATIVE_GOALS_WORK))
        if program.goals_left:
            raise GroundingError(program.goals_left)
        network = build_network(program, game.role_terms)
    except GroundingError as error:
        log.info("%s: the goals stay with the interpreter: %s", game.name, error)
        return None
    compiled = game.compiled.network
    if network.base != compiled.base or network.inputs != compiled.inputs:
        log.info("%s: the goals stay with the interpreter (another grounding)", game.name)
        return None
    return network


def attach_in_background(game: CompiledGame) -> threading.Thread:
    """Start `attach_native` in a daemon thread; failures are logged, never raised."""

    def run() -> None:
        start = time.perf_counter()
        try:
            attach_native(game)
        except NativeUnavailable as error:
            log.info("%s: no native code, the generated Python serves: %s", game.name, error)
            game.not_native = error
            return
        except Exception as error:  # the game plays on, on the generated Python
            log.exception("%s: native code failed; the generated Python serves", game.name)
            game.not_native = NativeUnavailable(f"native code failed: {error}")
            return
        log.info(
            "%s: native code attached after %.1f s (%d playouts per search leaf)",
            game.name,
            time.perf_counter() - start,
            game.playout_batch,
        )

    thread = threading.Thread(target=run, name=f"native {game.name}", daemon=True)
    thread.start()
    return thread
