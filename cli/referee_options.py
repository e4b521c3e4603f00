"""The options ``ggp match`` and ``ggp tournament`` share: players, clocks, grace, logs."""

from __future__ import annotations

import argparse
from pathlib import Path

from ggp.player.agents import Clocks
from ggp.server.match_log import DEFAULT_DIR

DEFAULT_CLOCK = 10.0
DEFAULT_GRACE = 1.0

PLAYER_HELP = (
    "one player per role, in role order: an agent spec (random, legal, mcts, "
    "mcts:iterations=200,c=0.7, human...) or the address http://HOST:PORT of a GGP player; "
    "roles named 'random' may be left out (the referee plays them)"
)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None


def seconds(text: str) -> float:
    """An argparse type: a number of seconds above zero."""
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def grace_seconds(text: str) -> float:
    """An argparse type: a number of seconds, zero or more."""
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more, got {text}")
    return value


def add_referee_options(parser: argparse.ArgumentParser) -> None:
    """Add --startclock, --playclock, --grace and --log-dir to `parser`."""
    parser.add_argument(
        "--startclock",
        type=seconds,
        default=DEFAULT_CLOCK,
        metavar="SECONDS",
        help="time the players have to get ready (default: %(default)g)",
    )
    parser.add_argument(
        "--playclock",
        type=seconds,
        default=DEFAULT_CLOCK,
        metavar="SECONDS",
        help="time a player has for each move; in-process agents search until then "
        "unless their own budget ends first (default: %(default)g)",
    )
    parser.add_argument(
        "--grace",
        type=grace_seconds,
        default=DEFAULT_GRACE,
        metavar="SECONDS",
        help="how long past a clock a reply still counts, as game managers allow "
        "for the network (default: %(default)g)",
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        default=DEFAULT_DIR,
        metavar="DIR",
        help="where match logs are written, one <matchId>.json a match (default: %(default)s)",
    )


def clocks_of(args: argparse.Namespace) -> Clocks:
    """The clocks the options give."""
    return Clocks(start=args.startclock, play=args.playclock)
