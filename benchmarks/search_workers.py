"""Simulations per second of a match's search with 1, 2, ... worker processes.

    python benchmarks/search_workers.py [GAME.kif ...] [--seconds 5] [--rounds 3]
                                        [--workers 1 2]

For each game (default: the GDL twins of Connect Four and Breakthrough), each
round starts, for each worker count N in turn, the N workers of a match as
``ggp serve`` does (`ggp.player.service.worker_pool`, no pondering), loads the rules and
asks for one search of `--seconds` from the initial state.  It prints the
simulations of the search summed over the workers, per wall second (what a
move gets) and per CPU second of the workers (what each core gives, the
figure to trust on a shared machine), each as a ratio to 1 worker in the same
round, and the machine's load average.  Rounds alternate the counts so that
a change of load touches them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from ggp.player.service.worker_pool import WorkerPool

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "gdl" / "connect_four.kif", ROOT / "games" / "gdl" / "breakthrough.kif"]


async def search_once(rules: str, workers: int, seconds: float) -> tuple[int, float, float]:
    """The simulations, wall seconds and worker CPU seconds of one search."""
    pool = await WorkerPool.spawn(workers)
    try:
        await pool.request({"cmd": "load", "rules": rules, "settle": 600}, None)
        began = time.monotonic()
        command = {"cmd": "search", "role": 0, "until": time.time() + seconds, "iterations": None}
        answer = await pool.request(command, None)
        wall = time.monotonic() - began
    finally:
        await pool.close()
    if len(pool.workers) != workers:
        raise SystemExit(f"only {len(pool.workers)} of {workers} workers answered")
    return answer["sims"], wall, answer["cpu"]


async def run(args: argparse.Namespace) -> None:
    print(f"{os.cpu_count()} cores; {args.seconds} s searches from the initial state")
    for path in args.games:
        rules = path.read_text()
        rates: dict[int, list[tuple[float, float]]] = {n: [] for n in args.workers}
        for round_ in range(args.rounds):
            load = os.getloadavg()[0]
            for workers in args.workers:
                sims, wall, cpu = await search_once(rules, workers, args.seconds)
                rates[workers].append((sims / wall, sims / cpu if cpu else 0.0))
                print(
                    f"  {path.stem} round {round_ + 1}, {workers} worker(s): {sims} simulations "
                    f"in {wall:.2f} s wall, {cpu:.2f} s CPU (load {load:.1f})",
                    flush=True,
                )
        base_wall = statistics.median(r[0] for r in rates[args.workers[0]])
        base_cpu = statistics.median(r[1] for r in rates[args.workers[0]])
        print(f"{path.stem}: median of {args.rounds} rounds")
        for workers, samples in rates.items():
            wall = statistics.median(r[0] for r in samples)
            cpu = statistics.median(r[1] for r in samples)
            print(
                f"  {workers} worker(s): {wall:,.0f} simulations per wall second "
                f"(x{wall / base_wall:.2f}), {cpu:,.0f} per CPU second (x{cpu / base_cpu:.2f})"
            )
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", type=Path, default=GAMES, metavar="GAME.kif")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each search")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], metavar="N")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
