"""``ggp arena``: the referee as a web server, with a browser UI to run, watch and play matches."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import time
from pathlib import Path

from games.base import GameError

log = logging.getLogger("ggp.arena")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "arena",
        description="Serve the arena: a web page (and its JSON API) to start matches between "
        "agents, GGP players and people, watch them live, play by clicking, replay the "
        "history and run tournaments. Every match is logged in the ggp.org format and "
        "indexed in a SQLite file. Stop it with Ctrl-C.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    parser.add_argument(
        "--port", type=int, default=8080, help="port to listen on; 0 picks a free one (8080)"
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=Path("match_logs/arena.sqlite"),
        help="the SQLite index of matches (default: %(default)s)",
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        default=Path("match_logs"),
        metavar="DIR",
        help="where match logs are written and found (default: %(default)s)",
    )
    parser.add_argument(
        "--games", type=Path, metavar="DIR", help="a folder of .kif games offered on the page"
    )
    parser.add_argument(
        "--max-body",
        type=int,
        default=1_000_000,
        metavar="BYTES",
        help="largest request accepted, uploaded rules included (%(default)s)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from server.arena.arena import ArenaConfig

    if args.games is not None and not args.games.is_dir():
        raise GameError(f"--games {args.games}: no such folder")
    config = ArenaConfig(
        db=args.db, log_dir=args.log_dir, games_dir=args.games, max_body=args.max_body
    )
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(config, args.host, args.port))
    except OSError as error:
        raise GameError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    return 0


async def serve(config, host: str, port: int) -> None:
    """Serve the arena on `host`:`port` until SIGINT or SIGTERM."""
    from aiohttp import web

    from server.arena.app import create_app

    began = time.perf_counter()
    runner = web.AppRunner(create_app(config), access_log=None)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await web.TCPSite(runner, host, port).start()
        for address in runner.addresses:
            log.info(
                "arena at http://%s:%d/ (ready in %.2f s)",
                *address[:2],
                time.perf_counter() - began,
            )
        await stop.wait()
        log.info("stopping: matches under way are aborted and logged")
    finally:
        await runner.cleanup()
