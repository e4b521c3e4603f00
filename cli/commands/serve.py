"""``ggp serve``: the GGP HTTP player, answering a game manager until stopped."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from ggp.games.base import GameError
from ggp.native_notice import probe_warning
from ggp.player.search.mcts import DEFAULT_FINAL, FINAL_CHOICES
from ggp.player.service.http_player import (
    DEFAULT_IDLE_CLOCKS,
    DEFAULT_MARGIN,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_NODES,
    DEFAULT_MAX_TABLES,
    DEFAULT_READ_TIMEOUT,
    IDLE_SECONDS,
    PlayerConfig,
    create_app,
    server_options,
)
from ggp.player.service.logs import EscapingFormatter
from ggp.player.service.session import (
    DEFAULT_COPY_MEMORY,
    DEFAULT_WORKER_MEMORY,
    MIB,
    TACTICS,
    TACTICS_RACE,
    Limits,
)
from ggp.serving import serve_until_signal

log = logging.getLogger("ggp.serve")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

SHUTDOWN_GRACE = 1.0
"""Seconds a message being answered may take to finish once the server stops."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        description="Run the GGP player: answer a game manager's info, start, play, stop, "
        "abort and preview messages over HTTP, choosing moves by Monte Carlo tree search "
        "in one worker process per match, and reply before every clock runs out. "
        "Stop it with Ctrl-C.",
    )
    parser.add_argument(
        "--host", default="0.0.0.0", help="address to listen on (default: every interface)"
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=9147,
        help="port to listen on; 0 picks a free one (9147)",
    )
    parser.add_argument(
        "--name", default="ggp-player", help="the name given in info replies (ggp-player)"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=DEFAULT_MARGIN,
        metavar="SECONDS",
        help=f"seconds each reply is sent before its clock runs out ({DEFAULT_MARGIN})",
    )
    parser.add_argument(
        "--max-matches",
        type=int,
        default=1,
        metavar="N",
        help="matches played at once; beyond them start answers busy (1)",
    )
    parser.add_argument(
        "--table-dir",
        type=Path,
        metavar="DIR",
        help="keep a state table per game in DIR, saved at the end of each match",
    )
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=DEFAULT_READ_TIMEOUT,
        metavar="SECONDS",
        help="a message must arrive whole within this; a connection stalled mid-header or "
        f"mid-body is closed or answered 408 ({DEFAULT_READ_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-body",
        type=int,
        default=DEFAULT_MAX_BODY,
        metavar="BYTES",
        help=f"largest message accepted ({DEFAULT_MAX_BODY})",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        metavar="N",
        help="at most N iterations of the tree per search (default: search until the deadline)",
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help="at most N nodes in a match's search trees (shared among its workers), 1.1 to "
        "2 KB each (a tree in the game's native code: 5N, 0.2 KB each); at the limit the "
        f"search goes on without growing the tree; 0: no limit ({DEFAULT_MAX_NODES})",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="search worker processes per match, their statistics summed (default: the "
        "machine's cores divided by --max-matches, at least 1)",
    )
    parser.add_argument(
        "--races",
        choices=("yes", "no"),
        default="yes",
        help="choose the search's configuration for each game by quick self-play races on "
        "it, in the start clock and while pondering (docs/per-game-search.md) (yes)",
    )
    parser.add_argument(
        "--tactics",
        choices=("yes", "no", "race"),
        default="yes" if TACTICS else "race" if TACTICS_RACE else "no",
        help="search each position for forced wins and losses a few moves deep before "
        "the MCTS search, and let what it proves override the choice (docs/tactics.md): "
        "yes, no, or race: off until the races choose them on this game, where they win "
        "its race games (%(default)s)",
    )
    parser.add_argument(
        "--final",
        choices=FINAL_CHOICES,
        default=DEFAULT_FINAL,
        help="how the move is chosen from the search's root statistics: the most visited "
        "(visits), the best mean (mean), or the best mean - 1/sqrt(visits) (lower), "
        "which counts a mean found over few visits for less (docs/mcts-enhancements.md) "
        "(%(default)s)",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=DEFAULT_MAX_TABLES,
        metavar="N",
        help="state tables kept in --table-dir; the oldest beyond are deleted "
        f"({DEFAULT_MAX_TABLES})",
    )
    parser.add_argument(
        "--idle-clocks",
        type=float,
        default=DEFAULT_IDLE_CLOCKS,
        metavar="N",
        help="end a match that has had no message for N play clocks since the last reply, "
        f"and at least {IDLE_SECONDS:g} s (its manager is gone), and free its slot "
        f"({DEFAULT_IDLE_CLOCKS:g})",
    )
    parser.add_argument(
        "--copy-memory",
        type=int,
        default=DEFAULT_COPY_MEMORY // MIB,
        metavar="MIB",
        help="memory of the server's own copy of each game, a child process "
        f"({DEFAULT_COPY_MEMORY // MIB})",
    )
    parser.add_argument(
        "--worker-memory",
        type=int,
        default=DEFAULT_WORKER_MEMORY // MIB,
        metavar="MIB",
        help=f"memory of each search worker; 0: no limit ({DEFAULT_WORKER_MEMORY // MIB})",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        type=str.upper,
        choices=LOG_LEVELS,
        help="INFO logs a line per reply, DEBUG also each message received (INFO)",
    )
    parser.set_defaults(run=run)


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse's type for ``--port``)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: ports go from 0 to 65535")
    return port


def run(args: argparse.Namespace) -> int:
    if args.max_nodes < 0:
        raise GameError(f"--max-nodes must be 0 (no limit) or more, got {args.max_nodes}")
    if args.copy_memory < 1 or args.worker_memory < 0:
        raise GameError("--copy-memory must be at least 1 MiB and --worker-memory 0 or more")
    try:
        config = PlayerConfig(
            name=args.name,
            margin=args.margin,
            max_matches=args.max_matches,
            table_dir=args.table_dir,
            max_body=args.max_body,
            iterations=args.iterations,
            max_nodes=args.max_nodes or None,
            workers=default_workers(args.max_matches) if args.workers is None else args.workers,
            races=args.races == "yes",
            tactics=args.tactics == "yes",
            tactics_race=args.tactics == "race",
            final=args.final,
            idle_clocks=args.idle_clocks,
            max_tables=args.max_tables,
            limits=Limits(args.copy_memory * MIB, args.worker_memory * MIB or None),
            read_timeout=args.read_timeout,
        )
    except ValueError as error:
        raise GameError(str(error)) from None
    handler = logging.StreamHandler()
    handler.setFormatter(EscapingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=args.log_level, handlers=[handler])
    warning = probe_warning()  # logged after the listening lines, which tools read first
    serve_until_signal(
        lambda: create_app(config),
        args.host,
        args.port,
        lambda addresses: announce(config, addresses, warning),
        lambda: log.info("stopping"),
        shutdown_timeout=SHUTDOWN_GRACE,
        server_options=server_options(config),
    )
    return 0


def default_workers(max_matches: int) -> int:
    """The machine's cores shared among `max_matches` matches, at least one each."""
    return max(1, (os.cpu_count() or 1) // max(1, max_matches))


def announce(config: PlayerConfig, addresses: list, warning: str | None = None) -> None:
    """Log where `config`'s player listens and how it will play, and `warning` (why
    there is no native code) if there is one."""
    for address in addresses:
        log.info("%s listening on http://%s:%d", config.name, *address[:2])
    log.info(
        "margin %.2f s, at most %d match(es) at once, %d search worker(s) each, %s nodes a tree"
        "%s%s%s%s",
        config.margin,
        config.max_matches,
        config.workers,
        f"at most {config.max_nodes:,}" if config.max_nodes else "any number of",
        "" if config.races else ", no races",
        _tactics(config),
        "" if config.final == DEFAULT_FINAL else f", final choice {config.final}",
        f", state tables in {config.table_dir}" if config.table_dir else "",
    )
    if warning is not None:
        log.warning(warning)


def _tactics(config: PlayerConfig) -> str:
    """What the listening line says of the tactics."""
    if config.tactics:
        return ", tactics"
    if config.tactics_race and config.races:
        return ", tactics where the races choose them"
    return ", no tactics"
