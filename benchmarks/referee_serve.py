"""A tournament of our referee between two ``ggp serve`` processes over HTTP.

    python benchmarks/referee_serve.py [--game connect_four] [--matches 20]
        [--playclock 1] [--startclock 5] [--jobs 2] [--iterations N] [--log-dir DIR]

Starts two players (``python -m ggp serve`` on free loopback ports), plays
the matches with seats swapped every other match, checks every match log
(present, complete, and its states what the moves lead to under the rules it
carries), and prints the logs written, the steps, the errors recorded (TO, CE,
IL) and the time taken; the players' own logs are left beside the match logs
(serve1.log, serve2.log).  A built-in game is refereed by its GDL twin, the rules
the players receive.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ggp.player.agents import Clocks  # noqa: E402
from ggp.server.match_log import read_log, replay  # noqa: E402
from ggp.server.rules import game_from_rules  # noqa: E402
from ggp.server.tournament import (  # noqa: E402
    cached_game,
    format_standings,
    run_tournament,
    standings,
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_player(
    name: str, port: int, jobs: int, iterations: int | None, log: Path
) -> subprocess.Popen:
    """``ggp serve`` on `port`, its output (a line a reply) going to the file `log`."""
    command = [sys.executable, "-m", "ggp", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--name", name, "--max-matches", str(jobs)]
    if iterations is not None:
        command += ["--iterations", str(iterations)]
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def stop_player(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def wait_until_up(url: str, process: subprocess.Popen, seconds: float = 30) -> None:
    """Ask ``(info)`` until the player answers."""
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"the player at {url} exited (see its log)")
            try:
                async with session.post(url, data=b"(info)") as response:
                    if "available" in await response.text():
                        return
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
    raise SystemExit(f"the player at {url} did not answer within {seconds} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--startclock", type=float, default=5)
    parser.add_argument("--playclock", type=float, default=1)
    parser.add_argument("--grace", type=float, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="matches at once")
    parser.add_argument("--iterations", type=int, help="cap on the players' simulations a move")
    parser.add_argument("--log-dir", type=Path, help="default: a temporary folder")
    args = parser.parse_args()

    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="referee-serve-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    players = [
        start_player(f"serve{n}", port, args.jobs, args.iterations, log_dir / f"serve{n}.log")
        for n, port in enumerate(ports, 1)
    ]
    try:
        for url, process in zip(urls, players, strict=True):
            asyncio.run(wait_until_up(url, process))
        began = time.perf_counter()
        results = run_tournament(
            args.game,
            urls,
            games=args.matches,
            swap=True,
            seed=1,
            jobs=args.jobs,
            gdl=True,
            clocks=Clocks(args.startclock, args.playclock),
            grace=args.grace,
            log_dir=log_dir,
        )
        elapsed = time.perf_counter() - began
    finally:
        for process in players:
            stop_player(process)

    valid = 0
    for result in results:
        logged = read_log(log_dir / f"{result.match_id}.json")
        states = replay(logged, game_from_rules(logged.rules or ""))
        if logged.completed and states[-1].goals() == logged.goals == result.goals:
            valid += 1
    steps = sum(result.steps for result in results)
    totals = [sum(r.errors[role][kind] for r in results for role in range(2)) for kind in range(3)]
    print(
        f"{args.game} (GDL), {args.matches} matches, {args.jobs} at once, start clock "
        f"{args.startclock:g} s, play clock {args.playclock:g} s, grace {args.grace:g} s"
    )
    roles = cached_game(args.game, True).game.roles
    print(format_standings(standings(results, urls, roles)))
    print(f"logs written and valid: {valid} of {len(results)} in {log_dir}")
    print(f"steps: {steps} ({steps / len(results):.1f} a match)")
    print(f"errors: TO {totals[0]}, CE {totals[1]}, IL {totals[2]}")
    print(f"time: {elapsed:.1f} s ({elapsed / steps:.2f} s a step)")
    return 0 if valid == len(results) and not any(totals) else 1


if __name__ == "__main__":
    sys.exit(main())
