"""Pondering's simulations per CPU-second, the root's state read with or without its view.

    python benchmarks/ponder_speed.py GAME.kif [GAME.kif ...] [--rounds 3] [--seconds 2]

The search worker ponders in slices of `PONDER_SLICE` seconds and reads the root's
state between two (`SearchWorker.ponder`).  On the native tree the root `Node` is a
view made from the library's arrays with a view of each child (`NativeSearch.root`);
`MCTS.root_state` reads the state without it.  In one process, a search worker loads
the rules, waits for the native code, searches 50 simulations, and then ponders in
alternating rounds of `--seconds` of this thread's CPU time: with the state read
through the view (the baseline, as the worker read it before `root_state`) and as it
reads it now.  It prints each version's simulations per CPU second over its rounds
and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ggp.player.search.mcts import MCTS
from ggp.player.service.search_worker import SearchWorker


def ponder_rates(rules: str, rounds: int, seconds: float) -> tuple[float, float, bool]:
    """Pondering's simulations per CPU second with the view made each slice and without,
    and whether the tree was the native library's."""
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": rules, "traps": False, "races": False})
    worker.settle(120)
    build = worker.tree.root_state.game.native_build
    if build is not None:
        build.join()
    worker.handle({"cmd": "search", "role": 0, "until": time.time() + 60, "iterations": 50})
    worker.ponder_until = time.monotonic() + 1e9
    without_view = MCTS.root_state
    with_view = property(lambda search: search.root.state)
    totals = {"view": [0, 0.0], "no view": [0, 0.0]}
    try:
        for _ in range(rounds):
            for label, reader in (("view", with_view), ("no view", without_view)):
                MCTS.root_state = reader
                sims, cpu = worker.pondered, time.thread_time()
                while time.thread_time() < cpu + seconds:
                    worker.ponder()
                totals[label][0] += worker.pondered - sims
                totals[label][1] += time.thread_time() - cpu
    finally:
        MCTS.root_state = without_view
    before, after = (sims / cpu for sims, cpu in totals.values())
    return before, after, worker.tree.native


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    for path in args.games:
        before, after, native = ponder_rates(path.read_text(), args.rounds, args.seconds)
        tree = "native tree" if native else "Python tree"
        print(
            f"{path.stem}: with the view {before:,.0f} simulations/CPU-s, without "
            f"{after:,.0f} (x{after / before:.2f}), {tree}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
