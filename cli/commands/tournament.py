"""``ggp tournament GAME PLAYER...``: many matches between players, and their standings."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from ggp.backend_options import add_backend_options, check_jobs, cluster_of
from ggp.games.base import GameError
from ggp.referee_options import PLAYER_HELP, add_referee_options, clocks_of
from ggp.server.plots import INSTALL_HINT, plot_ratings, plotting_available
from ggp.server.ratings import format_ratings, ratings
from ggp.server.tournament import (
    cached_game,
    check_output_path,
    format_standings,
    player_specs,
    run_tournament,
    standings,
    write_results,
)
from tqdm import tqdm


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tournament",
        description="Play GAMES matches of GAME between the players (one per role, in role "
        "order: agents played in this process or GGP players at http://HOST:PORT) and "
        "print, per player and per seat, wins, draws, losses, the mean goal and the score "
        "(mean of goal/100) with its 95% confidence interval (Wilson score interval), "
        "and the errors recorded (TO late, CE connection "
        "failure, IL illegal move). Every match is logged. With iteration budgets the same "
        "--seed gives the same results, whatever --jobs; time budgets (mcts:time=...) "
        "depend on the machine's speed and load, so they cannot be reproduced exactly. "
        "With more players than roles, the matches go round the ways of seating them, and "
        "with more than two players each gets a rating (Bradley-Terry fitted to all "
        "results, on the Elo scale) with a 95% interval.",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a .kif file")
    parser.add_argument("agents", metavar="PLAYER", nargs="+", help=PLAYER_HELP)
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
    add_backend_options(parser)
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="write every match to FILE: CSV (.csv, one row per match) or JSON (.json, "
        "a list 'matches' with each match's 'agents' and 'goals' in role order, and the "
        "standings)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        type=Path,
        help="with more than two players, draw their ratings as FILE.png and FILE.svg "
        "(needs the extra 'plot')",
    )
    parser.add_argument("--gdl", action="store_true", help="use the GDL twin of a built-in game")
    add_referee_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise GameError(f"--games must be at least 1, got {args.games}")
    check_jobs(args)
    if args.out is not None:
        check_output_path(args.out)
    game = cached_game(args.game, args.gdl).game
    if args.plot is not None:
        if len(player_specs(game, args.agents)) < 3:
            raise GameError("--plot draws ratings, which need more than two players")
        if not plotting_available():
            raise GameError(INSTALL_HINT)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    with (
        cluster_of(args) as cluster,
        tqdm(total=args.games, unit="match", desc=game.name, disable=None) as bar,
    ):
        results = run_tournament(
            args.game,
            args.agents,
            games=args.games,
            swap=args.swap,
            seed=seed,
            jobs=args.jobs,
            gdl=args.gdl,
            clocks=clocks_of(args),
            grace=args.grace,
            log_dir=args.log_dir,
            on_result=lambda result: bar.update(1),
            cluster=cluster,
        )
    swapped = ", seats rotated" if args.swap else ""
    played = [result for result in results if not result.refused]
    refused = len(results) - len(played)
    counted = f"{len(played)} matches" + (f" played, {refused} refused" if refused else "")
    print(f"{game.name}: {counted}, seed {seed}{swapped}")
    if refused:
        reasons = sorted({result.refused for result in results if result.refused})
        print(f"Not counted: {refused} of {len(results)} matches: {'; '.join(reasons)}")
        if not played:
            return 1
    specs = player_specs(game, args.agents)
    print(format_standings(standings(played, specs, game.roles)))
    table = ratings(played, specs) if len(specs) > 2 else []
    if table:
        print(format_ratings(table))
    prefix = results[0].match_id.rpartition(".")[0]
    print(f"Match logs: {args.log_dir / prefix}.N.json, N from 0 to {len(results) - 1}")
    if args.out is not None:
        write_results(args.out, game, specs, seed, args.swap, played, table)
        print(f"Matches written to {args.out}")
    if args.plot is not None:
        title = f"{game.name}: {len(played)} matches, seed {seed}{swapped}"
        paths = plot_ratings(table, title, args.plot.with_suffix(""))
        print("Ratings plotted: " + ", ".join(map(str, paths)))
    return 0
