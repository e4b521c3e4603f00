"""Replay every recorded playout of the shared GDL corpus and time it.

    python benchmarks/gdl_corpus.py [--workers 2] [GAME ...]

Prints, per game that disagrees, its first disagreement; then the number of
games, playouts and steps that agree, the wall time of the whole corpus and
the slowest games.  This is what tests/test_gdl_corpus.py checks, with
timings (tests never assert on time).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.traces import ReplayReport, read_playouts, replay

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"


def replay_game(name: str) -> tuple[str, float, ReplayReport]:
    start = time.perf_counter()
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    report = replay(game, read_playouts(CORPUS / "traces" / f"{name}.jsonl.gz"))
    return name, time.perf_counter() - start, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="games to replay (default: all)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default: 2)")
    parser.add_argument("--slowest", type=int, default=10, help="slowest games to list")
    args = parser.parse_args()
    lines = (CORPUS / "INDEX.tsv").read_text().splitlines()[1:]
    names = args.games or [line.split("\t")[0] for line in lines]
    start = time.perf_counter()
    total = ReplayReport()
    timings = []
    disagreeing = 0
    with ProcessPoolExecutor(args.workers) as pool:
        for name, seconds, report in pool.map(replay_game, names):
            total.add(report)
            timings.append((seconds, name))
            if not report.agrees:
                disagreeing += 1
                print(f"{name}: {report.disagreements[0].describe()}")
    wall = time.perf_counter() - start
    print(
        f"{len(names) - disagreeing} of {len(names)} games, {total.agreeing_playouts} of "
        f"{total.playouts} playouts, {total.agreeing_steps} of {total.steps} steps agree "
        f"({total.recorded_errors} playouts recorded where the reference failed)"
    )
    print(
        f"wall time {wall:.1f} s with {args.workers} workers; "
        f"{sum(s for s, _ in timings):.1f} s of replay in all"
    )
    slowest = sorted(timings, reverse=True)[: args.slowest]
    print("slowest: " + ", ".join(f"{name} {seconds:.1f} s" for seconds, name in slowest))


if __name__ == "__main__":
    main()
