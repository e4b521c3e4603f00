"""``ggp match GAME PLAYER...``: one match between agents and GGP players, refereed here."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from ggp.gdl.load import describe_reasoner
from ggp.player.agents import HumanAgent, MatchQuit
from ggp.player.search.mcts import MoveStats
from ggp.referee_options import PLAYER_HELP, add_referee_options, clocks_of
from ggp.server.match import make_players, referee_match
from ggp.server.players import AgentPlayer
from ggp.server.record import MatchRecord
from ggp.server.rules import referee_game

RANKING_LINES = 8
"""How many moves of a ranking are shown."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        description="Referee one match of GAME, the first PLAYER taking the first role, and "
        "so on in role order, and print the goals. A player is an agent played in this "
        "process (random, legal, human, mcts with options such as mcts:iterations=200,c=0.7 "
        "or mcts:time=1.5; see the README) or a GGP player at http://HOST:PORT. A late, "
        "failed or illegal move is replaced by a random legal one and recorded (TO, CE, "
        "IL), as game managers do; the match is logged in the ggp.org format.",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a .kif file")
    parser.add_argument("agents", metavar="PLAYER", nargs="+", help=PLAYER_HELP)
    parser.add_argument("--show", action="store_true", help="show the board after every move")
    parser.add_argument(
        "--ranking",
        action="store_true",
        help="show how each searching agent ranked its moves (visits, mean value) at its turns",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="seed of the agents' random choices: with iteration budgets, the same seed "
        "gives the same match (time budgets depend on the machine's speed)",
    )
    parser.add_argument("--gdl", action="store_true", help="use the GDL twin of a built-in game")
    add_referee_options(parser)
    parser.set_defaults(run=run)


def format_ranking(stats: list[MoveStats], lines: int = RANKING_LINES) -> list[str]:
    """A ranking as text lines: move, visits and mean value, best first."""
    width = max(len(s.move) for s in stats)
    shown = [f"  {s.move:<{width}}  visits {s.visits:>7}  value {s.value:.3f}" for s in stats]
    if len(shown) > lines:
        shown = shown[:lines] + [f"  ... and {len(stats) - lines} more"]
    return shown


def format_errors(record: MatchRecord, step: int) -> list[str]:
    """The errors recorded at `step` (0: the start), one line each."""
    roles = record.game.roles
    when = "at the start" if step == 0 else f"at move {step}"
    return [
        f"  {roles[role]} ({record.players[role]}): {error} {when}"
        for role, error in enumerate(record.errors[step])
        if error
    ]


def run(args: argparse.Namespace) -> int:
    game = referee_game(args.game, gdl=args.gdl)
    if which := describe_reasoner(game.game):
        print(f"reasoner: {which}")
    roles = game.game.roles
    players = make_players(game.game, args.agents, args.seed)
    agents = [player.agent if isinstance(player, AgentPlayer) else None for player in players]
    show = args.show or any(isinstance(agent, HumanAgent) for agent in agents)

    def on_step(record: MatchRecord) -> None:
        step = len(record.moves)
        if step:
            if args.ranking:
                for role, agent in zip(roles, agents, strict=True):
                    if agent is not None and (ranking := agent.ranking()):
                        print(f"{role} ({agent.spec}) ranked its moves:")
                        print("\n".join(format_ranking(ranking)))
            if show or args.ranking:
                played = ", ".join(
                    f"{role} {move}"
                    for role, move in zip(roles, record.moves[-1], strict=True)
                    if move != "noop"
                )
                print(f"Move {step}: {played}")
        if show or args.ranking:
            print("\n".join(format_errors(record, step)))
        if show:
            print(record.states[-1].render() + "\n")

    match = referee_match(
        game,
        players,
        clocks=clocks_of(args),
        grace=args.grace,
        seed=args.seed,
        log_dir=args.log_dir,
        on_step=on_step,
    )
    try:
        record = asyncio.run(match)
    except MatchQuit:
        print("Match left by a person.")
        return 0
    print(result_line(record, args.agents))
    errors = [line for step in range(len(record.errors)) for line in format_errors(record, step)]
    if errors:
        print("Errors (each replaced by a random legal move):")
        print("\n".join(errors))
    print(f"Match log: {args.log_dir / (record.match_id + '.json')}")
    return 0


def result_line(record: MatchRecord, names: Sequence[str]) -> str:
    """``Result after 7 moves: xplayer 100 (mcts), oplayer 0 (random)``."""
    goals = record.goals or ()
    return f"Result after {len(record.moves)} moves: " + ", ".join(
        f"{role} {goal} ({name})"
        for role, goal, name in zip(record.game.roles, goals, record.players, strict=True)
    )
