"""``ggp bench GAME``: random playouts per second through the game interface."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import NamedTuple

from ggp.games.base import Game, GameDefinitionError, State
from ggp.games.playouts import RANDOM
from ggp.games.registry import load_game
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import REASONERS, describe_reasoner
from ggp.native_notice import native_warning
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import DEFAULT_C, MCTS
from ggp.progress import status
from tqdm import tqdm


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench",
        description="Run random playouts from the initial state of GAME and print "
        "playouts/s and states/s (state transitions per second) by the wall clock, and "
        "states per CPU-second, the median of several runs. A GDL game is played as ggp "
        "serve plays it: on native code when that can be built (waited for).",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a .kif file")
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="total time to measure, split between the runs (default: %(default)s)",
    )
    parser.add_argument("--runs", type=int, default=5, help="runs (default: %(default)s)")
    parser.add_argument(
        "--generic",
        action="store_true",
        help="use the interface's generic playout (legal moves and next states one by "
        "one) instead of the game's own fast playout, to see what the interface costs",
    )
    parser.add_argument(
        "--mcts",
        action="store_true",
        help="measure MCTS simulations (iterations: select, expand, playout, back up) "
        "per second from the initial state, each run with a fresh tree, and compare "
        "them with bare playouts measured in turn",
    )
    parser.add_argument(
        "--c",
        type=float,
        default=DEFAULT_C,
        help="exploration constant for --mcts (default: %(default)s)",
    )
    parser.add_argument("--gdl", action="store_true", help="use the GDL twin of a built-in game")
    add_reasoner_option(parser, "native")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    parser.set_defaults(run=run)


def add_reasoner_option(parser: argparse.ArgumentParser, default: str = "auto") -> None:
    """``--reasoner``: how a GDL game's rules are evaluated."""
    parser.add_argument(
        "--reasoner",
        choices=REASONERS,
        default=default,
        help="for a GDL game: compiled rules, the interpreter, compiled when that is "
        "ready within its budget, or that and then native code, as ggp serve plays "
        "(default: %(default)s)",
    )


def load_for_measure(spec: str, gdl: bool, reasoner: str) -> Game:
    """The game `spec` on `reasoner`, its native code built (waited for) when asked for;
    a warning on stderr if native code was asked for and cannot be had."""
    game = load_game(spec, gdl=gdl, reasoner=reasoner)
    if isinstance(game, CompiledGame) and game.native_build is not None:
        game.native_build.join()  # measure the native code, not the Python before it
    if isinstance(game, GdlGame) and game.not_native is not None:
        print(f"warning: {native_warning(game.not_native)}", file=sys.stderr)
    return game


def reasoner_note(game: Game, seconds: float) -> str:
    """Which reasoner plays a GDL game and how long loading took; empty for a native game."""
    which = describe_reasoner(game)
    return f"; {which}, ready in {seconds:.2f} s" if which else ""


class Measured(NamedTuple):
    """Random playouts measured: the rates of those that ended, and those that broke."""

    playouts: float
    """Playouts per second, over the time spent in playouts that ended."""
    states: float
    """State transitions per second, over the same time."""
    cpu_states: float
    """State transitions per CPU-second of this process, over the same playouts."""
    ended: int
    broken: int
    """Playouts in which the rules broke (`GameDefinitionError`: no legal move, no
    goal...): neither their time nor their states count in the rates."""
    fault: str = ""
    """The first of those faults."""


def measure(
    state: State,
    seconds: float,
    rng: random.Random,
    generic: bool,
    progress: Callable[[float], None] = lambda seconds: None,
) -> Measured:
    """Random playouts from `state` for `seconds` (at least one, however long it takes);
    `progress` is told the seconds gone as each playout ends."""
    playout = (
        (lambda: RANDOM.play(state, rng, 1)[0])
        if generic
        else (lambda: state.playouts(rng, 1, RANDOM)[0])
    )
    ended = broken = steps = 0
    fault = ""
    counted = cpu = 0.0
    start = time.perf_counter()
    end = start + seconds
    while True:
        began, began_cpu = time.perf_counter(), time.process_time()
        try:
            steps += playout()[1]
        except GameDefinitionError as error:
            broken += 1
            fault = fault or str(error)
        else:
            ended += 1
            counted += time.perf_counter() - began
            cpu += time.process_time() - began_cpu
        now = time.perf_counter()
        progress(now - start)
        if now >= end:
            break
    if not ended:
        return Measured(0.0, 0.0, 0.0, 0, broken, fault)
    return Measured(ended / counted, steps / counted, steps / max(cpu, 1e-9), ended, broken, fault)


def bench_game(
    game: Game, seconds: float, runs: int, seed: int, generic: bool, show_progress: bool = False
) -> Measured:
    """The median playouts/s and states/s over `runs` runs (of the playouts that
    ended), and how many ended and broke in all; with `show_progress`, a progress
    bar on a terminal."""
    rng = random.Random(seed)
    state = game.initial_state()
    with tqdm(
        total=round(seconds, 1),
        unit="s",
        desc=f"{game.name}: playouts",
        disable=None if show_progress else True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total} s",
    ) as bar:
        results = []
        per_run = seconds / runs
        for run in range(runs):

            def advance(gone: float, done_before: float = run * per_run) -> None:
                bar.update(round(done_before + min(gone, per_run), 1) - bar.n)

            results.append(measure(state, per_run, rng, generic, advance))
    timed = [r for r in results if r.ended] or results
    return Measured(
        statistics.median(r.playouts for r in timed),
        statistics.median(r.states for r in timed),
        statistics.median(r.cpu_states for r in timed),
        sum(r.ended for r in results),
        sum(r.broken for r in results),
        next((r.fault for r in results if r.fault), ""),
    )


class GenericPlayout(RandomPlayout):
    """A playout through the interface, one legal-move list and next state at a time."""

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        self.playouts += 1
        goals, _ = RANDOM.play(state, rng, 1)[0]
        return [goal * 0.01 for goal in goals]


class MctsMeasured(NamedTuple):
    """MCTS from the initial state measured, with bare playouts in turn as a baseline."""

    simulations: float
    """Simulations (playouts) per second, over the time of the iterations that ended."""
    iterations: float
    """Iterations per second, over the same time."""
    cpu_simulations: float
    """Simulations per CPU-second of this process, over the same iterations."""
    playouts: float
    """Bare playouts per second (of those that ended, as `measure`)."""
    ended: int
    broken: int
    """Iterations in which the rules broke (`GameDefinitionError`): neither their time
    nor their simulations count in the rates."""
    bare: Measured
    """The bare playouts of all runs: how many ended and broke."""
    fault: str = ""
    """The first fault, of an iteration or a bare playout."""


def search_for(
    search: MCTS, evaluator: RandomPlayout, seconds: float
) -> tuple[int, int, int, float, float, str]:
    """Run `search` an iteration at a time for `seconds`; the iterations that ended,
    those that broke, the simulations of those that ended, their time, their CPU time
    and the first fault."""
    ended = broken = simulations = 0
    counted = cpu = 0.0
    fault = ""
    end = time.perf_counter() + seconds
    while True:
        began, began_cpu = time.perf_counter(), time.process_time()
        before = evaluator.playouts
        try:
            if not search.search(iterations=1):
                break  # the root is terminal or solved
        except GameDefinitionError as error:
            broken += 1
            fault = fault or str(error)
        else:
            ended += 1
            simulations += evaluator.playouts - before
            counted += time.perf_counter() - began
            cpu += time.process_time() - began_cpu
        if time.perf_counter() >= end:
            break
    return ended, broken, simulations, counted, cpu, fault


def bench_mcts(
    game: Game, seconds: float, runs: int, seed: int, generic: bool, c: float
) -> MctsMeasured:
    """The median MCTS simulations (playouts)/s and iterations/s from the initial
    state (a fresh tree each run) and, measured in turns with it as a baseline,
    the median bare playouts/s.  Iterations and playouts in which the rules break
    are counted and left out of the rates."""
    rng = random.Random(seed)
    state = game.initial_state()
    simulations, iterations, cpu_simulations, bares = [], [], [], []
    ended = broken = 0
    fault = ""
    for _ in range(runs):
        evaluator = GenericPlayout() if generic else RandomPlayout()
        try:
            search = MCTS(state, c=c, rng=rng, evaluator=evaluator)
        except GameDefinitionError as error:  # the initial state's legal moves
            broken += 1
            fault = fault or str(error)
        else:
            done, failed, playouts, counted, cpu, first = search_for(
                search, evaluator, seconds / runs / 2
            )
            ended += done
            broken += failed
            fault = fault or first
            if done and counted:
                simulations.append(playouts / counted)
                iterations.append(done / counted)
                cpu_simulations.append(playouts / max(cpu, 1e-9))
        bares.append(measure(state, seconds / runs / 2, rng, generic))
    timed = [bare.playouts for bare in bares if bare.ended]
    return MctsMeasured(
        statistics.median(simulations) if simulations else 0.0,
        statistics.median(iterations) if iterations else 0.0,
        statistics.median(cpu_simulations) if cpu_simulations else 0.0,
        statistics.median(timed) if timed else 0.0,
        ended,
        broken,
        Measured(0.0, 0.0, 0.0, sum(b.ended for b in bares), sum(b.broken for b in bares)),
        fault or next((b.fault for b in bares if b.fault), ""),
    )


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    with status(f"loading {args.game}"):
        game = load_for_measure(args.game, args.gdl, args.reasoner)
    which = reasoner_note(game, time.perf_counter() - start)
    if args.mcts:
        return report_mcts(
            game,
            bench_mcts(game, args.seconds, max(1, args.runs), args.seed, args.generic, args.c),
            args,
            which,
        )
    measured = bench_game(
        game, args.seconds, max(1, args.runs), args.seed, args.generic, show_progress=True
    )
    how = " (generic playout)" if args.generic else ""
    broken = ""
    if measured.broken:
        total = measured.ended + measured.broken
        broken = (
            f"; {measured.broken:,} of {total:,} playouts broke and are not counted, the first "
            f"with: {measured.fault}"
        )
    if not measured.ended:
        print(f"{game.name}: no figure: every playout broke{broken}")
        return 1
    print(
        f"{game.name}: {measured.playouts:,.0f} playouts/s, {measured.states:,.0f} states/s{how} "
        f"by the wall clock, {measured.cpu_states:,.0f} states per CPU-second "
        f"(median of {max(1, args.runs)} runs{which}){broken}"
    )
    return 0


def report_mcts(game: Game, measured: MctsMeasured, args: argparse.Namespace, which: str) -> int:
    """Print the figures of `ggp bench --mcts` and the iterations and playouts that broke;
    1 if there is no figure (every iteration or every bare playout broke)."""
    broken = ""
    bare = measured.bare
    if measured.broken or bare.broken:
        broken = (
            f"; {measured.broken:,} of {measured.ended + measured.broken:,} iterations and "
            f"{bare.broken:,} of {bare.ended + bare.broken:,} bare playouts broke and are not "
            f"counted, the first with: {measured.fault}"
        )
    if not measured.ended or not bare.ended:
        which_broke = "iteration" if not measured.ended else "bare playout"
        print(f"{game.name}: no figure: every {which_broke} broke{broken}")
        return 1
    how = ", generic playout" if args.generic else ""
    print(
        f"{game.name}: {measured.simulations:,.0f} simulations/s (MCTS from the initial "
        f"state, c={args.c}{how}; {measured.iterations:,.0f} iterations/s, "
        f"{game.playout_batch} playouts per leaf; {measured.cpu_simulations:,.0f} simulations "
        f"per CPU-second), {measured.simulations / measured.playouts:.2f} x the "
        f"{measured.playouts:,.0f} bare playouts/s measured in turn "
        f"(median of {max(1, args.runs)} runs{which}){broken}"
    )
    return 0
