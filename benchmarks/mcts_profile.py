"""Where an MCTS search spends its time: a cProfile of one search, grouped by part.

    python benchmarks/mcts_profile.py connect_four --iterations 20000

prints the share of time in the tree (player/search/mcts.py: selection, expansion
bookkeeping, backup), in the game's rules (games/: playouts, next states,
legal moves) and elsewhere, then the functions that take the most time.
Profiling slows Python code down unevenly, so read the shares as a guide and
take speeds from ``ggp bench GAME --mcts``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
from collections import defaultdict

from ggp.games.registry import load_game
from ggp.player.search.mcts import DEFAULT_C, MCTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a built-in game or a .kif file")
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--c", type=float, default=DEFAULT_C)
    parser.add_argument("--top", type=int, default=12, help="functions to list")
    args = parser.parse_args()

    search = MCTS(load_game(args.game).initial_state(), c=args.c, rng=random.Random(1))
    profile = cProfile.Profile()
    profile.runcall(search.search, iterations=args.iterations)
    stats = pstats.Stats(profile)

    parts: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if filename.endswith("player/search/mcts.py"):
            parts["tree (player/search/mcts.py)"] += tottime
        elif "/games/" in filename:
            parts["rules (games/)"] += tottime
        else:
            parts["elsewhere (random, builtins...)"] += tottime
    total = sum(parts.values())
    print(f"{args.game}: {args.iterations} iterations, {total:.2f} s under the profiler")
    for part, seconds in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"  {part:<34} {seconds:6.2f} s  {100 * seconds / total:5.1f}%")
    print()
    stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
