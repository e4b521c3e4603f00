"""``ggp match GAME AGENT...``: one match between agents, played in this process."""

from __future__ import annotations

import argparse

from games.base import GameError
from games.registry import load_game
from player.agents import HumanAgent, MatchQuit
from player.mcts import MoveStats
from server.match import MatchRecord, make_agents, play_match

RANKING_LINES = 8
"""How many moves of a ranking are shown."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play one match between agents in this process",
        description="Play one match of GAME, the first AGENT taking the first role, and so "
        "on in role order, and print the goals. Agents: random, legal (first legal move), "
        "human, mcts with options such as mcts:iterations=200,c=0.7 or mcts:time=1.5 "
        "(see the README for all of them).",
    )
    parser.add_argument("game", metavar="GAME", help="a built-in game or a .kif file")
    parser.add_argument("agents", metavar="AGENT", nargs="+", help="one agent spec per role")
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
    parser.set_defaults(run=run)


def format_ranking(stats: list[MoveStats], lines: int = RANKING_LINES) -> list[str]:
    """A ranking as text lines: move, visits and mean value, best first."""
    width = max(len(s.move) for s in stats)
    shown = [f"  {s.move:<{width}}  visits {s.visits:>7}  value {s.value:.3f}" for s in stats]
    if len(shown) > lines:
        shown = shown[:lines] + [f"  ... and {len(stats) - lines} more"]
    return shown


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game, gdl=args.gdl)
    if len(args.agents) != len(game.roles):
        raise GameError(
            f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}): "
            f"give one agent per role, got {len(args.agents)}"
        )
    agents = make_agents(args.agents, args.seed)
    show = args.show or any(isinstance(agent, HumanAgent) for agent in agents)

    def on_step(record: MatchRecord) -> None:
        if record.moves:
            if args.ranking:
                for role, agent in zip(game.roles, agents, strict=True):
                    if ranking := agent.ranking():
                        print(f"{role} ({agent.spec}) ranked its moves:")
                        print("\n".join(format_ranking(ranking)))
            if show or args.ranking:
                played = ", ".join(
                    f"{role} {move}"
                    for role, move in zip(game.roles, record.moves[-1], strict=True)
                    if move != "noop"
                )
                print(f"Move {len(record.moves)}: {played}")
        if show:
            print(record.states[-1].render() + "\n")

    try:
        record = play_match(game, agents, on_step=on_step)
    except MatchQuit:
        print("Match left by a person.")
        return 0
    goals = record.goals or ()
    print(
        f"Result after {len(record.moves)} moves: "
        + ", ".join(
            f"{role} {goal} ({spec})"
            for role, goal, spec in zip(game.roles, goals, args.agents, strict=True)
        )
    )
    return 0
