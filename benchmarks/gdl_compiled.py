"""The compiled GDL reasoner against the interpreter, and how much of the corpus it covers.

    python benchmarks/gdl_compiled.py [GAME ...] [--seconds 5] [--runs 5]
    python benchmarks/gdl_compiled.py --corpus [--replay]

The first form measures, for each corpus game named (default: ticTacToe,
connectFour, breakthrough, hex, nineBoardTicTacToe, reversi), random
playouts per second with the interpreter and with the compiled reasoner in
the same process (`ggp bench`'s measure, median of the runs), their ratio,
and the time to ground and compile the rules (ready).  The compiled game is
warmed up first with a few playouts: a joint move's next-state function is
written on its first use.  The last column is what ``--reasoner auto``
(`gdl.load`) picks and how long it takes to be ready, trial included (see
`gdl.compiled.trial`).

The second form tries to compile every corpus game within the default
budget and prints how many are compiled and, grouped, why the others are
not; with ``--replay`` it also replays the recorded playouts of the
compiled ones with the compiled reasoner.
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections import Counter
from pathlib import Path

from gdl.compiled.compile import compile_rules
from gdl.compiled.compiled_game import CompiledGame
from gdl.interpreter.game import GdlGame
from gdl.load import with_reasoner
from gdl.network.grounding import GroundingError
from gdl.traces import read_playouts, replay
from ggp.commands.bench import bench_game

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"
GAMES = ["ticTacToe", "connectFour", "breakthrough", "hex", "nineBoardTicTacToe", "reversi"]


def auto(name: str) -> str:
    """What ``auto`` picks for the game, and in how long."""
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    start = time.perf_counter()
    chosen = with_reasoner(game, "auto")
    ready = time.perf_counter() - start
    picked = "compiled" if isinstance(chosen, CompiledGame) else "interpreter"
    return f"{picked}, ready in {ready:.2f} s"


def compare(name: str, seconds: float, runs: int) -> str:
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    interpreted = bench_game(game, seconds, runs, 1, generic=False)
    start = time.perf_counter()
    try:
        compiled_rules = compile_rules(game.strata, game.role_terms)
    except GroundingError as error:
        ready = time.perf_counter() - start
        return (
            f"| {name} | {interpreted[1]:,.0f} | - | - | {interpreted[0]:,.1f} | - | "
            f"not compiled after {ready:.2f} s: {error} | {auto(name)} |"
        )
    ready = time.perf_counter() - start
    compiled = CompiledGame.from_game(game, compiled_rules)
    warm = time.perf_counter()
    rng = random.Random(2)
    while time.perf_counter() - warm < seconds / runs:
        compiled.initial_state().random_playout(rng)
    warmup = time.perf_counter() - warm
    fast = bench_game(compiled, seconds, runs, 1, generic=False)
    return (
        f"| {name} | {interpreted[1]:,.0f} | {fast[1]:,.0f} | {fast[1] / interpreted[1]:,.0f}x "
        f"| {interpreted[0]:,.1f} | {fast[0]:,.0f} | {ready:.2f} s "
        f"({compiled_rules.network.rule_count():,} ground rules; "
        f"{len(compiled_rules.next_functions)} joint moves specialised in {warmup:.1f} s warm-up) "
        f"| {auto(name)} |"
    )


def survey(with_replay: bool) -> None:
    compiled = 0
    reasons: Counter[str] = Counter()
    examples: dict[str, str] = {}
    agreeing = 0
    names = sorted(path.stem for path in (CORPUS / "games").glob("*.kif"))
    for name in names:
        game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
        try:
            rules = compile_rules(game.strata, game.role_terms)
        except GroundingError as error:
            kind = re.sub(r" \(.*", "", str(error))
            kind = re.sub(
                r"relaxed model of .* needs", "relaxed model of some relation needs", kind
            )
            kind = re.sub(r"[0-9][0-9,.]*", "N", kind)
            reasons[kind] += 1
            examples.setdefault(kind, f"{name}: {error}")
            continue
        compiled += 1
        if with_replay:
            report = replay(
                CompiledGame.from_game(game, rules),
                read_playouts(CORPUS / "traces" / f"{name}.jsonl.gz"),
            )
            if report.agrees:
                agreeing += 1
            else:
                print(f"{name}: {report.disagreements[0].describe()}")
    print(f"{compiled} of {len(names)} corpus games compiled within the default budget")
    if with_replay:
        print(f"{agreeing} of {compiled} replay all their recorded playouts exactly")
    for kind, count in reasons.most_common():
        print(f"{count:4} not compiled: {kind}\n       e.g. {examples[kind][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help=f"corpus games (default: {' '.join(GAMES)})")
    parser.add_argument("--seconds", type=float, default=5.0, help="per reasoner and game")
    parser.add_argument("--runs", type=int, default=5, help="runs per measure (median)")
    parser.add_argument("--corpus", action="store_true", help="survey the whole corpus")
    parser.add_argument("--replay", action="store_true", help="with --corpus: replay traces")
    args = parser.parse_args()
    if args.corpus:
        survey(args.replay)
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
