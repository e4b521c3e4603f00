"""The compiled GDL reasoner against the interpreter, and what its steps cost.

    python benchmarks/gdl_compiled.py [GAME ...] [--seconds 5] [--runs 5]
    python benchmarks/gdl_compiled.py --calibrate [GAME ...]

The first form measures, for each corpus game named (default: ticTacToe,
connectFour, breakthrough, hex, nineBoardTicTacToe, reversi, speedChess), random
playouts per CPU-second with the interpreter and with the compiled reasoner
in the same process (median of the runs), their ratio, and the CPU time to
ground and compile the rules (ready).  The compiled game is
warmed up first with a few playouts: a joint move's next-state function is
written on its first use.  The last column is what ``--reasoner auto``
(`ggp.gdl.load`) picks and how long it takes to be ready, trial included (see
`ggp.gdl.compiled.trial`).

The second form prints the CPU time per unit of work of each step of
grounding and compiling (`ggp.gdl.network.grounding.WORK_UNITS`), unbounded.
How much of the corpus gets the fast path is `benchmarks/gdl_coverage.py`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from ggp.games.base import Game
from ggp.games.playouts import RANDOM
from ggp.gdl.compiled.codegen import Generator, compile_source
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import with_reasoner
from ggp.gdl.network.formulas import build_network, cone
from ggp.gdl.network.grounding import WORK_UNITS, Budget, GroundingError, Work, ground

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"
GAMES = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "hex",
    "nineBoardTicTacToe",
    "reversi",
    "speedChess",
]


def auto(name: str) -> str:
    """What ``auto`` picks for the game, and in how long."""
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    start = time.process_time()
    chosen = with_reasoner(game, "auto")
    ready = time.process_time() - start
    picked = "compiled" if isinstance(chosen, CompiledGame) else "interpreter"
    return f"{picked}, ready in {ready:.2f} CPU-s"


def per_cpu_second(game: Game, seconds: float, runs: int) -> tuple[float, float]:
    """Median playouts and states per CPU-second of random playouts from the initial state."""
    rng = random.Random(1)
    state = game.initial_state()
    results = []
    for _ in range(runs):
        playouts = steps = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds / runs:
            steps += state.playouts(rng, 1, RANDOM)[0][1]
            playouts += 1
        results.append((playouts / elapsed, steps / elapsed))
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def compare(name: str, seconds: float, runs: int) -> str:
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    interpreted = per_cpu_second(game, seconds, runs)
    start = time.process_time()
    try:
        compiled_rules = compile_rules(game.strata, game.role_terms)
    except GroundingError as error:
        ready = time.process_time() - start
        return (
            f"| {name} | {interpreted[1]:,.0f} | - | - | {interpreted[0]:,.1f} | - | "
            f"not compiled after {ready:.2f} s: {error} | {auto(name)} |"
        )
    ready = time.process_time() - start
    compiled = CompiledGame.from_game(game, compiled_rules)
    warm = time.process_time()
    rng = random.Random(2)
    while time.process_time() - warm < seconds / runs:
        compiled.initial_state().playouts(rng, 1, RANDOM)[0]
    warmup = time.process_time() - warm
    fast = per_cpu_second(compiled, seconds, runs)
    return (
        f"| {name} | {interpreted[1]:,.0f} | {fast[1]:,.0f} | {fast[1] / interpreted[1]:,.0f}x "
        f"| {interpreted[0]:,.1f} | {fast[0]:,.0f} | {ready:.2f} CPU-s "
        f"({compiled_rules.network.rule_count():,} ground rules; "
        f"{len(compiled_rules.next_functions)} joint moves specialised in {warmup:.1f} s warm-up) "
        f"| {auto(name)} |"
    )


def calibrate(names: list[str]) -> None:
    """CPU microseconds per unit of work of each step, to check `WORK_UNITS`."""
    print("| game | units | grounding us/unit | network us/unit | code us/unit | compile us/unit |")
    print("|---|---|---|---|---|---|")
    clock = time.process_time
    for name in names:
        game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
        work = Work(Budget(work=10**12, ground_rules=10**8))
        start = clock()
        program = ground(game.strata, work=work)
        grounded = clock()
        literals = sum(1 + len(positive) + len(negative) for _, positive, negative in program.rules)
        network = build_network(program, game.role_terms)
        built = clock()
        generator = Generator(network)
        source = generator.state_source()
        written = clock()
        cones = [cone(network, generator.step_targets()), cone(network, generator.goal_targets())]
        compile_source(source, generator.constants)
        done = clock()
        units = (
            work.spent,
            literals * WORK_UNITS["ground rule literal"],
            sum(map(network.literal_count, cones)) * WORK_UNITS["network literal"],
            len(source) * WORK_UNITS["source byte"],
        )
        times = (grounded - start, built - grounded, written - built, done - written)
        cells = " | ".join(f"{1e6 * t / max(u, 1):.2f}" for t, u in zip(times, units, strict=True))
        print(f"| {name} | {sum(units):,.0f} | {cells} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help=f"corpus games (default: {' '.join(GAMES)})")
    parser.add_argument("--seconds", type=float, default=5.0, help="per reasoner and game")
    parser.add_argument("--runs", type=int, default=5, help="runs per measure (median)")
    parser.add_argument(
        "--calibrate", action="store_true", help="CPU time per unit of work of each step"
    )
    args = parser.parse_args()
    if args.calibrate:
        calibrate(args.games or GAMES)
        return
    print(
        "| game | interpreter states/s | compiled states/s | ratio | interpreter playouts/s "
        "| compiled playouts/s | ready | auto |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.games or GAMES:
        print(compare(name, args.seconds, args.runs), flush=True)


if __name__ == "__main__":
    main()
