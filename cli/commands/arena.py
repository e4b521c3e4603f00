"""``ggp arena``: the referee as a web server, with a browser UI to run, watch and play matches."""

from __future__ import annotations

import argparse
import logging
import secrets
import time
from pathlib import Path

from ggp.games.base import GameError
from ggp.native_notice import probe_warning
from ggp.serving import serve_until_signal

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
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: this machine only); beyond loopback the arena "
        "requires a key (--token, else one is made and its login link printed once)",
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
    parser.add_argument(
        "--max-steps",
        type=int,
        default=500,
        metavar="N",
        help="joint moves a match may make; one still going then ends without a result, "
        "logged as aborted (%(default)s; a request may ask for fewer)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the arena answers to besides its address and localhost (the Host "
        "header; others are refused against DNS rebinding); comma-separated, repeatable",
    )
    parser.add_argument(
        "--allow-players",
        action="append",
        default=[],
        metavar="HOST:PORT,...",
        help="the GGP players by URL a page may name; beyond loopback the only ones (none "
        "if not given); on loopback any http(s) player unless this is given",
    )
    parser.add_argument(
        "--token",
        help="the key of an arena open beyond loopback (default: a random one); sent as "
        "'Authorization: Bearer TOKEN' or set as a cookie by /login?token=TOKEN",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ggp.server.arena.app import create_app
    from ggp.server.arena.arena import ArenaConfig
    from ggp.server.arena.guard import is_loopback, listed_hosts

    if args.max_steps < 1:
        raise GameError(f"--max-steps {args.max_steps}: expected at least 1")
    if args.games is not None and not args.games.is_dir():
        raise GameError(f"--games {args.games}: no such folder")
    loopback = is_loopback(args.host)
    token = args.token or (None if loopback else secrets.token_urlsafe(24))
    config = ArenaConfig(
        db=args.db,
        log_dir=args.log_dir,
        games_dir=args.games,
        max_body=args.max_body,
        host=args.host,
        allowed_hosts=listed_hosts(args.allow_host),
        token=token,
        allow_players=tuple(args.allow_players),
        max_steps=args.max_steps,
    )
    policy = config.player_policy  # a malformed --allow-players is an error before listening
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    warning = probe_warning()  # logged after the address, which tools read first
    began = time.perf_counter()

    def announce(addresses: list) -> None:
        for address in addresses:
            log.info(
                "arena at http://%s:%d/ (ready in %.2f s)",
                *address[:2],
                time.perf_counter() - began,
            )
        if warning is not None:
            log.warning(warning)
        if not loopback:
            log.warning(
                "the arena listens beyond this machine (%s): whoever has its key can start "
                "matches and tournaments (this machine's CPU and memory)%s; keep the key secret "
                "and prefer a TLS reverse proxy on an untrusted network",
                args.host,
                " and make it reach "
                + ", ".join(f"{host}:{port}" for host, port in sorted(policy.allowed))
                if policy.allowed
                else " (no player by URL: --allow-players HOST:PORT)",
            )
        if token is not None and not args.token:
            port = addresses[0][1] if addresses else args.port
            host = "localhost" if args.host in ("0.0.0.0", "::") else args.host
            # Printed once, on stdout, not logged: the only place the key is shown.
            print(f"arena login link: http://{host}:{port}/login?token={token}", flush=True)

    serve_until_signal(
        lambda: create_app(config),
        args.host,
        args.port,
        announce,
        lambda: log.info("stopping: matches under way are aborted and logged"),
    )
    return 0
