"""``ggp tournament GAME AGENT...``: many matches between agents, and their standings."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from tqdm import tqdm

from games.base import GameError
from server.tournament import (
    cached_game,
    check_output_path,
    format_standings,
    run_tournament,
    standings,
    write_results,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="play many matches between agents and print the standings",
        description="Play GAMES matches of GAME between the agents (one per role, in role "
        "order) and print, per agent and per seat, wins, draws, losses, the mean goal and "
        "the score (mean of goal/100) with a 95% confidence interval (normal "
        "approximation: mean +- 1.96 standard errors). With iteration budgets the same "
        "--seed gives the same results, whatever --jobs; time budgets (mcts:time=...) "
        "depend on the machine's speed and load, so they cannot be reproduced exactly.",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a .kif file")
    parser.add_argument(
        "agents",
        metavar="AGENT",
        nargs="+",
        help="one agent spec per role: random, legal, mcts, mcts:iterations=200,c=0.7, ...",
    )
    parser.add_argument(
        "--games", type=int, default=10, help="number of matches (default: %(default)s)"
    )
    parser.add_argument(
        "--swap",
        action="store_true",
        help="rotate the seats from match to match (two agents: half the matches with "
        "the seats swapped)",
    )
    parser.add_argument("--seed", type=int, help="tournament seed (default: a random one, printed)")
    parser.add_argument(
        "--jobs", type=int, default=1, help="worker processes (default: %(default)s)"
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="write every match to FILE: CSV (.csv, one row per match) or JSON (.json, "
        "a list 'matches' with each match's 'agents' and 'goals' in role order, and the "
        "standings)",
    )
    parser.add_argument("--gdl", action="store_true", help="use the GDL twin of a built-in game")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for option, value in (("--games", args.games), ("--jobs", args.jobs)):
        if value < 1:
            raise GameError(f"{option} must be at least 1, got {value}")
    if args.out is not None:
        check_output_path(args.out)
    game = cached_game(args.game, args.gdl)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)

    def progress(results, total):
        return tqdm(results, total=total, unit="match", desc=game.name, disable=None)

    results = run_tournament(
        args.game,
        args.agents,
        games=args.games,
        swap=args.swap,
        seed=seed,
        jobs=args.jobs,
        gdl=args.gdl,
        progress=progress,
    )
    swapped = ", seats rotated" if args.swap else ""
    print(f"{game.name}: {len(results)} matches, seed {seed}{swapped}")
    print(format_standings(standings(results, args.agents, game.roles)))
    if args.out is not None:
        write_results(args.out, game, args.agents, seed, args.swap, results)
        print(f"Matches written to {args.out}")
    return 0
