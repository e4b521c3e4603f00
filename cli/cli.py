"""The ``ggp`` command: one subcommand per module in `ggp.commands`.

A command's module is imported only when that command is run (or its own
``--help`` asked for): the modules pull in the reasoners, aiohttp and the
referee, which take about half a second to import, and ``ggp --help`` needs
none of them.  To add a command, write a module with `register(subparsers)`
(adding its parser and ``set_defaults(run=...)``) and give it a line in
`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ggp.games.base import GameError


@dataclass(frozen=True)
class Command:
    name: str
    module: str
    summary: str  # the line `ggp --help` shows for the command


COMMANDS = (
    Command("play", "ggp.commands.play", "play a game against the computer in the terminal"),
    Command("serve", "ggp.commands.serve", "play matches for a GGP game manager over HTTP"),
    Command("bench", "ggp.commands.bench", "measure random playouts per second"),
    Command(
        "check",
        "ggp.commands.check",
        "validate a GDL game and check it against recorded playouts",
    ),
    Command("match", "ggp.commands.match", "referee one match between agents and GGP players"),
    Command(
        "tournament",
        "ggp.commands.tournament",
        "play many matches between players and print the standings",
    ),
    Command(
        "study",
        "ggp.commands.study",
        "measure how an agent's score changes with one of its options, and plot it",
    ),
    Command("replay", "ggp.commands.replay", "show a logged match step by step"),
    Command(
        "arena",
        "ggp.commands.arena",
        "run, watch and play matches and tournaments from a web page",
    ),
)


def package_version() -> str:
    import importlib.metadata  # only for --version: it takes longer to import than argparse

    try:
        return importlib.metadata.version("ggp-player")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (the ggp-player package is not installed)"


class PrintVersion(argparse.Action):
    """``--version``: print the installed package's version and exit."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"ggp {package_version()}")
        parser.exit()


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for `argv`: only the command named in it gets its full parser."""
    parser = argparse.ArgumentParser(
        prog="ggp",
        description="General Game Playing: play, check, benchmark and serve games "
        "described in GDL or built in.",
    )
    parser.add_argument("--version", action=PrintVersion)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The top-level parser has no option taking a value, so the first word that is
    # not an option names the command.
    chosen = next((word for word in argv if not word.startswith("-")), None)
    for command in COMMANDS:
        if command.name == chosen:
            importlib.import_module(command.module).register(subparsers)
        else:
            subparsers.add_parser(command.name, help=command.summary)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
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
