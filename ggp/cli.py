"""The ``ggp`` command: one subcommand per module in `ggp.commands`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from games.base import GameError
from ggp.commands import arena, bench, check, match, play, replay, serve, study, tournament

COMMANDS = (play, serve, bench, check, match, tournament, study, replay, arena)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ggp",
        description="General Game Playing: play, check, benchmark and serve games "
        "described in GDL or built in.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except GameError as error:
        print(f"ggp {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`ggp ... | head`): stop quietly, as Unix tools do.
        sys.stderr.close()
        return 1
    except KeyboardInterrupt:
        print(f"\nggp {args.command}: interrupted", file=sys.stderr)
        return 130
