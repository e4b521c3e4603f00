"""``ggp replay FILE``: a logged match, step by step, with its errors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ggp.games.base import Game, GameError
from ggp.games.registry import NATIVE_GAMES, load_game, parse_spec
from ggp.server.match_log import LoggedMatch, read_log, replay
from ggp.server.rules import game_from_rules


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        description="Show the match logged in FILE (a match log of ggp match or ggp "
        "tournament, or any ggp.org match JSON) move by move: the board of a built-in game, "
        "the facts of the state otherwise, and the errors recorded (TO late, CE connection "
        "failure, IL illegal move, each replaced by a random legal move). The moves are "
        "replayed through the rules and checked against the logged states.",
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="a match log (.json)")
    parser.add_argument(
        "--game",
        metavar="GAME",
        help="the game's rules, for a log that does not carry them (a built-in game or a "
        ".kif file)",
    )
    parser.add_argument(
        "--pause", action="store_true", help="wait for Enter after every move (q to stop)"
    )
    parser.set_defaults(run=run)


def logged_game(logged: LoggedMatch, spec: str | None) -> Game:
    """The rules to replay a log with: `spec`, else the built-in game the log names
    (for its board view), else the GDL text the log carries."""
    if spec is not None:
        return load_game(spec)
    if logged.game_spec and parse_spec(logged.game_spec)[0] in NATIVE_GAMES:
        return load_game(logged.game_spec)
    if logged.rules:
        return game_from_rules(logged.rules, logged.game_spec or "gdl")
    raise GameError("the log carries no rules (x-rules): name the game with --game")


def run(args: argparse.Namespace) -> int:
    logged = read_log(args.file)
    game = logged_game(logged, args.game)
    states = replay(logged, game)
    roles = game.roles
    players = logged.players or ("?",) * len(roles)
    print(f"Match {logged.match_id}: {game.name}")
    clocks = f"start clock {logged.start_clock or '-'} s, play clock {logged.play_clock or '-'} s"
    print(f"Players: {', '.join(f'{r} {p}' for r, p in zip(roles, players, strict=False))}")
    print(f"Clocks: {clocks}")
    show_errors(logged, 0, roles)
    print(states[0].render())
    for step, joint in enumerate(logged.moves, 1):
        if args.pause:
            answer = input("-- Enter: next move, q: stop -- ")
            if answer.strip().lower() == "q":
                return 0
        played = ", ".join(f"{role} {move}" for role, move in zip(roles, joint, strict=True))
        print(f"\nMove {step}: {played}")
        show_errors(logged, step, roles)
        print(states[step].render())
    print()
    if logged.completed and logged.goals is not None:
        goals = ", ".join(f"{role} {goal}" for role, goal in zip(roles, logged.goals, strict=True))
        print(f"Result after {len(logged.moves)} moves: {goals}")
    else:
        why = f": {logged.failure}" if logged.failure else ""
        print(f"Aborted after {len(logged.moves)} moves{why}")
    sys.stdout.flush()
    return 0


def show_errors(logged: LoggedMatch, step: int, roles: tuple[str, ...]) -> None:
    """Print the errors of `step` (0: the start), if any."""
    if step >= len(logged.errors):
        return
    what = "at the start" if step == 0 else "(replaced by a random legal move)"
    for role, error in zip(roles, logged.errors[step], strict=False):
        if error:
            print(f"  error: {role} {error} {what}")
