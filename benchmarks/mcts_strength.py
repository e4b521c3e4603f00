"""MCTS against a perfect tic-tac-toe player, over more matches than the tests play.

    python benchmarks/mcts_strength.py --iterations 2000 --matches 300

plays MATCHES matches in each seat against the exhaustive-search player of
the tests (which picks at random among its best moves) and prints the losses
and draws per seat.  A perfect player cannot be beaten, so a draw is the best
result.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from ggp.games.registry import load_game  # noqa: E402
from ggp.player.agents import make_agent  # noqa: E402
from ggp.server.match import derive_seed, play_match  # noqa: E402
from perfect_play import PerfectAgent  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=2000, help="MCTS iterations a move")
    parser.add_argument("--c", type=float, help="exploration constant (default: the agent's)")
    parser.add_argument("--matches", type=int, default=300, help="matches in each seat")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = load_game("tictactoe")
    spec = f"mcts:iterations={args.iterations}" + (f",c={args.c}" if args.c is not None else "")
    start = time.perf_counter()
    for seat, role in enumerate(game.roles):
        losses = draws = 0
        for match in range(args.matches):
            mcts = make_agent(spec, derive_seed(args.seed, seat, match))
            perfect = PerfectAgent(derive_seed(args.seed, seat, match, "perfect"))
            agents = [mcts, perfect] if seat == 0 else [perfect, mcts]
            goal = play_match(game, agents).goals[seat]
            losses += goal < 50
            draws += goal == 50
        print(f"{spec} as {role}: {losses} lost, {draws} drawn of {args.matches}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
