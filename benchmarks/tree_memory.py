"""Memory and speed of a match's search worker with and without a node limit.

    python benchmarks/tree_memory.py ../shared/gdl-corpus/games/connect4.kif \
        --seconds 30 --max-nodes 50000

plays a match as a ``ggp serve`` worker does (`ggp.player.service.search_worker`: search
until the play clock runs out, play the best moves, re-root the tree), once
without a limit and once with ``--max-nodes``, each in a fresh process so
that their memory does not mix, for `--seconds` of search each.  It prints
the bytes per node held (growth of the resident memory, RSS, over the nodes
held, without the limit), the nodes and RSS of each run, and simulations per
second of each over the same stretches of time: before the limited run
reaches its limit, and after.  Then, in this process, seeded searches from the
initial state with no limit and with a limit never reached, alternated: the
cost of the bookkeeping alone.  Timings are noisy on a shared machine.

With ``--at-limit SIMS`` it measures instead how a tree that stays at the
limit grows: one search from the initial state up to ``--max-nodes``, then
SIMS more simulations in three steps, printing the bytes per node held and
the share of nodes expanded after each.

The trees measured are Python's; with ``--native`` the match's runs search the
tree the native library holds instead (`ggp.player.search.native_search`, where a
C compiler builds the game's native code), its nodes in C arrays.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from ggp.games.playouts import RANDOM
from ggp.player.search import native_search
from ggp.player.search.mcts import MCTS
from ggp.player.search.tree import subtree
from ggp.player.service.game_factory import game_from_text
from ggp.player.service.search_worker import SearchWorker

SLICE = 200
"""Simulations between two samples of the time and the nodes held."""


def rss_bytes() -> int:
    """This process's resident memory (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise OSError("no VmRSS in /proc/self/status")


def worker_match(rules: str, seconds: float, play_clock: float, max_nodes: int | None) -> dict:
    """Search `play_clock` per move, as a worker does, for `seconds` in all.

    Returns the RSS growth, the most nodes held, and samples (seconds, sims,
    nodes held); a game that ends is begun again.
    """
    worker = SearchWorker()
    roles = len(worker.load(rules, None, 4, max_nodes)["roles"])
    worker.settle()
    # the native tree comes with what the worker takes with it (the heuristic too);
    # the Python tree is measured as it was, the default tree of the compiled rules
    while native_search.NATIVE_TREE and worker.improving:
        time.sleep(0.1)
        worker.take_better_search()
    base = rss_bytes()
    samples: list[tuple[float, int, int]] = []
    sims = peak = 0
    began = time.monotonic()
    while (now := time.monotonic() - began) < seconds:
        tree = worker.tree
        assert tree is not None
        move_ends = min(now + play_clock, seconds)
        while (elapsed := time.monotonic() - began) < move_ends:
            done = tree.search(iterations=SLICE)
            if done == 0:
                break
            sims += done
            samples.append((elapsed, sims, tree.node_count))
        peak = max(peak, tree.node_count)
        if tree.root.rewards is not None:
            worker.load(rules, None, 4, max_nodes)
        else:
            worker.advance([tree.best_move(role) for role in range(roles)])
    return {"growth": rss_bytes() - base, "rss": rss_bytes(), "peak": peak, "samples": samples}


def sims_at(samples: list[list[float]], moment: float) -> float:
    """The simulations run by `moment` (seconds), from the samples."""
    i = bisect.bisect_left([sample[0] for sample in samples], moment)
    return samples[min(i, len(samples) - 1)][1]


def bookkeeping_ratio(rules: str, iterations: int, rounds: int) -> float:
    """Time of a search with a limit it never reaches over one without (best of `rounds`)."""
    state = game_from_text(rules, "the game").initial_state()
    best = {None: float("inf"), 10**9: float("inf")}
    for _ in range(rounds):
        for limit in best:
            search = MCTS(state, rng=random.Random(1), max_nodes=limit)
            began = time.perf_counter()
            search.search(iterations=iterations)
            best[limit] = min(best[limit], time.perf_counter() - began)
    return best[10**9] / best[None]


def at_limit(rules: str, max_nodes: int, sims: int) -> None:
    """Print the bytes per node of a tree kept at `max_nodes` for `sims` simulations."""
    state = game_from_text(rules, "the game").initial_state()
    state.playouts(random.Random(1), 1, RANDOM)[0]  # the game's own memory, before the tree's
    base = rss_bytes()
    search = MCTS(state, rng=random.Random(1), max_nodes=max_nodes)
    search.search(iterations=max_nodes)
    for done in range(4):
        growth = rss_bytes() - base  # before walking the tree, which takes memory too
        held = expanded = 0
        for node in subtree(search.root):
            held += 1
            expanded += node.moves is not None
        print(
            f"{done * (sims // 3):>9,} sims at the limit: {held:,} nodes, "
            f"{expanded / held:.0%} expanded, {growth / held:,.0f} bytes a node",
            flush=True,
        )
        if done < 3:
            search.search(iterations=sims // 3)


def child(args: argparse.Namespace, max_nodes: int | None) -> dict:
    command = [sys.executable, __file__, str(args.game), "--seconds", str(args.seconds)]
    command += ["--play-clock", str(args.play_clock), "--max-nodes", str(max_nodes or 0)]
    command += ["--child", "--native"] if args.native else ["--child"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    native_search.NATIVE_TREE = False  # the Python tree's nodes are walked and timed here
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", type=Path, help="a .kif file")
    parser.add_argument("--seconds", type=float, default=30.0, help="search time of a run (30)")
    parser.add_argument("--play-clock", type=float, default=15.0, help="per move (15)")
    parser.add_argument("--max-nodes", type=int, default=50_000, help="the limit (50000)")
    parser.add_argument("--iterations", type=int, default=5000, help="of each timed search")
    parser.add_argument("--at-limit", type=int, metavar="SIMS", help="see above")
    parser.add_argument("--native", action="store_true", help="the native tree (see above)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.native and args.at_limit is not None:
        parser.error("--at-limit walks the Python tree's nodes: not with --native")
    rules = args.game.read_text()
    if args.at_limit is not None:
        at_limit(rules, args.max_nodes, args.at_limit)
        return
    if args.child:
        native_search.NATIVE_TREE = args.native  # the match-like runs: the tree asked for
        limit = args.max_nodes or None
        print(json.dumps(worker_match(rules, args.seconds, args.play_clock, limit)))
        return
    free = child(args, None)
    capped = child(args, args.max_nodes)
    tree = "the native tree" if args.native else "the Python tree"
    print(
        f"{args.game.name}: {args.seconds:g} s of search a run, play clock "
        f"{args.play_clock:g} s, {tree}"
    )
    print(f"bytes per node held (no limit): {free['growth'] / free['peak']:,.0f}")
    for name, run in (("no limit", free), (f"{args.max_nodes:,} nodes", capped)):
        sims = run["samples"][-1][1]
        print(
            f"{name:>15}: {sims:,} sims, at most {run['peak']:,} nodes, "
            f"RSS {run['rss'] / 2**20:,.0f} MiB"
        )
    print(f"RSS with the limit / without: {capped['rss'] / free['rss']:.2f}")
    full = [s[0] for s in capped["samples"] if s[2] >= args.max_nodes]
    reached = full[0] if full else args.seconds
    end = args.seconds
    for stretch, start, stop in (
        ("before the limit", 0.0, reached),
        ("at the limit", reached, end),
    ):
        if stop - start < 1:
            continue
        rates = [
            (sims_at(r["samples"], stop) - sims_at(r["samples"], start)) / (stop - start)
            for r in (free, capped)
        ]
        print(
            f"{stretch} ({start:.0f}-{stop:.0f} s): {rates[0]:,.0f} sims/s without, "
            f"{rates[1]:,.0f} with; ratio {rates[1] / rates[0]:.2f}"
        )
    ratio = bookkeeping_ratio(rules, args.iterations, 3)
    print(f"search time with a limit never reached / without ({args.iterations} sims): {ratio:.3f}")


if __name__ == "__main__":
    main()
