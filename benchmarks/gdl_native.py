"""The native reasoner against the generated Python and the interpreter, per CPU-second.

    python benchmarks/gdl_native.py [GAME ...] [--seconds 2] [--runs 3] [--corpus DIR]

For each corpus game (default: the seven of issue 13), random playouts from
the initial state with the interpreter, the compiled reasoner's generated
Python (warmed up: a joint move's function is written on first use) and
native code (`ggp.gdl.native`), all in this process, one after the other:
states/s and playouts/s per CPU-second of this process (`time.process_time`,
as the machine may be shared), the median of the runs.  Native playouts are
measured one a call (`playouts.Random`, what a search does with one
playout per leaf) and `BATCH` a call (`playouts.Random`).  Ready times:
grounding and generated Python (`compile_rules`, with the work budget raised
to `--budget-work`, ten times the default, so that large games are measured at
all), and
the native build from an empty cache (wall-clock, and CPU including the C
compiler's).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ggp.games.base import State
from ggp.games.playouts import RANDOM
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native import build
from ggp.gdl.native.attach import attach_native
from ggp.gdl.network.grounding import Budget, GroundingError

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"
GAMES = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "nineBoardTicTacToe",
    "reversi",
    "hex",
    "speedChess",
]
BATCH = 16

Playouts = Callable[[random.Random], list[tuple[tuple[int, ...], int]]]


def rate(playouts: Playouts, seconds: float, runs: int) -> tuple[float, float]:
    """Median states/s and playouts/s per CPU-second over `runs` runs of `seconds`."""
    rng = random.Random(1)
    states, games = [], []
    for _ in range(runs):
        done = steps = 0
        start = time.process_time()
        while True:
            results = playouts(rng)
            done += len(results)
            steps += sum(length for _, length in results)
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                break
        states.append(steps / elapsed)
        games.append(done / elapsed)
    return statistics.median(states), statistics.median(games)


def one(state: State) -> Playouts:
    return lambda rng: state.playouts(rng, 1, RANDOM)


def cpu_with_children() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def compare(path: Path, seconds: float, runs: int, budget: Budget) -> str:
    name = path.stem
    game = GdlGame.from_file(path)
    interpreted = rate(one(game.initial_state()), seconds, runs)
    start = time.perf_counter()
    try:
        rules = compile_rules(game.strata, game.role_terms, budget)
    except GroundingError as error:
        return f"| {name} | {interpreted[0]:,.0f} | not compiled: {error} |"
    ready = time.perf_counter() - start
    compiled = CompiledGame.from_game(game, rules)
    state = compiled.initial_state()
    warm = random.Random(2)
    end = time.process_time() + seconds
    while time.process_time() < end:
        state.playouts(warm, 1, RANDOM)
    python = rate(one(state), seconds, runs)
    with tempfile.TemporaryDirectory() as cache:
        previous = os.environ.get(build.CACHE_ENV)
        os.environ[build.CACHE_ENV] = cache
        try:
            wall, cpu = time.perf_counter(), cpu_with_children()
            try:
                attach_native(compiled)
            except build.NativeUnavailable as error:
                return f"| {name} | {interpreted[0]:,.0f} | {python[0]:,.0f} | no native: {error} |"
            wall, cpu = time.perf_counter() - wall, cpu_with_children() - cpu
        finally:
            if previous is None:
                del os.environ[build.CACHE_ENV]
            else:
                os.environ[build.CACHE_ENV] = previous
    native = rate(one(state), seconds, runs)
    batched = rate(lambda rng: state.playouts(rng, BATCH, RANDOM), seconds, runs)
    return (
        f"| {name} | {interpreted[0]:,.0f} | {python[0]:,.0f} | {native[0]:,.0f} "
        f"| {batched[0]:,.0f} | {native[0] / python[0]:,.1f}x | {batched[0] / python[0]:,.1f}x "
        f"| {interpreted[1]:,.1f} | {python[1]:,.0f} | {native[1]:,.0f} | {batched[1]:,.0f} "
        f"| {ready:.2f} s | {wall:.1f} s ({cpu:.1f} s CPU) | {compiled.playout_batch} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help=f"corpus games (default: {' '.join(GAMES)})")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per measure (median)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the GDL corpus folder")
    parser.add_argument(
        "--budget-work", type=int, default=40_000_000, help="work budget for grounding"
    )
    args = parser.parse_args()
    budget = Budget(work=args.budget_work)
    print(
        "| game | interpreter states/s | compiled states/s | native states/s "
        f"| native x{BATCH} states/s | native / compiled | native x{BATCH} / compiled "
        "| interpreter playouts/s | compiled playouts/s | native playouts/s "
        f"| native x{BATCH} playouts/s | compiled ready | native build | playouts per leaf |"
    )
    print("|---" * 14 + "|")
    for name in args.games or GAMES:
        path = args.corpus / "games" / f"{name}.kif"
        print(compare(path, args.seconds, args.runs, budget), flush=True)


if __name__ == "__main__":
    main()
