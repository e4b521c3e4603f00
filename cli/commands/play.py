"""``ggp play GAME``: a person plays against the computer in the terminal."""

from __future__ import annotations

import argparse
import sys

from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.gdl.load import describe_reasoner
from ggp.player.agents import HumanAgent, MatchQuit, make_agent
from ggp.server.match import MatchRecord, play_match


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play",
        description="Play GAME against the computer. The board is shown after every "
        "move; type the number of a legal move or its text, or quit to leave. In a "
        "GDL-II game (hidden information) you are shown only your own moves and what "
        "you see, and the board at the end; the role random is chance.",
    )
    parser.add_argument(
        "game",
        metavar="GAME",
        help="a built-in game (tictactoe, connect_four:width=5,height=4, ...) or a .kif file",
    )
    parser.add_argument(
        "--role",
        metavar="ROLE",
        help="the role you play (default: the first role of the game)",
    )
    parser.add_argument(
        "--ai",
        metavar="AGENT",
        default="mcts",
        help="the computer's agent for every other role: random, legal, mcts (about 1 s "
        "of thinking a move), or mcts with options, e.g. mcts:time=3 or "
        "mcts:iterations=200,c=0.7 (default: %(default)s; in a GDL-II game, where mcts "
        "would see the hidden state, ismcts)",
    )
    parser.add_argument(
        "--gdl",
        action="store_true",
        help="play a built-in game through its GDL twin instead of the native rules",
    )
    parser.add_argument("--seed", type=int, help="seed of the computer's random choices")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game, gdl=args.gdl)
    human_role = game.role_index(args.role) if args.role else 0
    if human_role == game.random_role:
        raise GameError("the role random is chance, moved by the referee: choose another")
    ai = "ismcts" if game.gdl_ii and args.ai == "mcts" else args.ai
    agents = [
        HumanAgent() if index == human_role else make_agent(ai, seed=args.seed)
        for index in range(len(game.roles))
        if index != game.random_role
    ]

    def show(record: MatchRecord) -> None:
        if game.gdl_ii and not record.completed and not record.states[-1].is_terminal():
            return  # the person is told only their own moves and percepts (HumanAgent)
        if record.moves:
            played = ", ".join(
                f"{role} {move}"
                for role, move in zip(game.roles, record.moves[-1], strict=True)
                if move != "noop"
            )
            print(f"\nPlayed: {played}")
        print(record.states[-1].render())

    if which := describe_reasoner(game):
        print(f"reasoner: {which}")
    print(f"{game.name}: you are {game.roles[human_role]}.")
    try:
        record = play_match(game, agents, on_step=show)
    except MatchQuit:
        print("You left the game.")
        return 0
    goals = record.goals or ()
    scores = ", ".join(
        f"{role} {goal}"
        for index, (role, goal) in enumerate(zip(game.roles, goals, strict=True))
        if index != game.random_role  # chance has no stake
    )
    players = [goal for index, goal in enumerate(goals) if index != game.random_role]
    best = max(players)
    mine = goals[human_role]
    if len(players) == 1 and game.random_role is not None:  # alone against chance
        verdict = f"Your goal: {mine}."
    elif mine == best and players.count(best) == 1:
        verdict = "You win!"
    else:
        verdict = "Draw." if mine == best else "You lose."
    print(f"\nGame over: {scores}. {verdict}")
    sys.stdout.flush()
    return 0
