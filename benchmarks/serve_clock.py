"""Is ``ggp serve`` on time?  Matches against it with short clocks, every reply timed.

    python benchmarks/serve_clock.py [GAME.kif ...] [--plays 200] [--play-clock 2]
                                     [--start-clock 3] [--margin 0.5] [--seed 1]
                                     [--workers N] [--think 0] [--log FILE]

starts ``ggp serve`` as its own process on a free port and plays it, as a game
manager would (one connection per message, GGP-Base's headers), whole matches
of each game (default: the GDL twins of Connect Four and Breakthrough), its
role alternating, the other roles moving at random, until `--plays` searched
moves (not forced ``noop``s) have been asked for per game.  It prints, per
game, the reply times of ``play`` as the manager sees them (slowest, median),
how many came later than the clock or than clock - margin, the simulations
behind each searched move (from the server's log) and how many moves were
fallbacks.  As a baseline, the same game is searched in this process from its
initial state for clock - margin seconds.

``--workers`` is passed to ``ggp serve``.  With ``--think S`` the manager waits
S seconds before each ``play`` but the first, as if the other players were
thinking: the server's workers ponder meanwhile, and the report says how many
simulations they ran so and what share of the time from a searched reply to
the next searched ``play`` (the others' time) they spent pondering.  With
``--log FILE`` the server's whole log is written there (the reasons behind a slow
reply or a fallback: what the search was doing then).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from ggp.games.base import Game  # noqa: E402
from ggp.player.search.mcts import MCTS  # noqa: E402
from ggp.player.service.game_factory import game_from_text  # noqa: E402
from served import served  # noqa: E402

GAMES = [ROOT / "games" / "gdl" / "connect_four.kif", ROOT / "games" / "gdl" / "breakthrough.kif"]
HEADERS = {"Accept": "text/delim", "Sender": "GAMESERVER", "Content-Type": "text/acl"}
PLAY_LINE = re.compile(
    r"INFO ggp\.player\.service\.http_player: play (\S+): (.*?) in [\d.]+ s, (.*)$"
)
SIMULATIONS = re.compile(r"^(\d+) simulations(?: \+ (\d+) pondered in ([\d.]+) s)?")


@dataclass
class Timings:
    """What the manager saw of one game's matches."""

    matches: int = 0
    searched: list[float] = field(default_factory=list)
    """Reply times of plays where the player had a choice."""
    forced: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    between: float = 0.0
    """Seconds from each searched reply (or ``ready``) to the next ``play`` that
    is searched: the others' time, in which the workers may ponder."""


def wire(joint: list[str]) -> str:
    return "(" + " ".join(joint) + ")"


async def play_match(
    http: aiohttp.ClientSession,
    url: str,
    game: Game,
    rules: str,
    match_id: str,
    us: int,
    clocks: tuple[int, int],
    rng: random.Random,
    timings: Timings,
    think: float,
) -> None:
    async def send(text: str) -> tuple[str, float]:
        began = time.monotonic()
        async with http.post(url, data=text, headers=HEADERS) as response:
            reply = (await response.text()).strip()
        return reply, time.monotonic() - began

    reply, took = await send(
        f"(start {match_id} {game.roles[us]} ({rules}) {clocks[0]} {clocks[1]})"
    )
    assert reply == "ready", reply
    timings.starts.append(took)
    state = game.initial_state()
    last = "nil"
    replied = time.monotonic()
    while not state.is_terminal():
        legal = state.all_legal_moves()
        if last != "nil":
            await asyncio.sleep(think)
        if len(legal[us]) > 1:
            timings.between += time.monotonic() - replied
        reply, took = await send(f"(play {match_id} {last})")
        if len(legal[us]) > 1:
            replied = time.monotonic()
        if reply not in legal[us]:
            raise SystemExit(f"{match_id}: illegal reply {reply!r}; legal: {legal[us]}")
        (timings.searched if len(legal[us]) > 1 else timings.forced).append(took)
        joint = [reply if i == us else rng.choice(moves) for i, moves in enumerate(legal)]
        state = state.next(joint)
        last = wire(joint)
    await send(f"(stop {match_id} {last})")
    timings.matches += 1


def baseline(game: Game, seconds: float) -> int:
    """Simulations of an MCTS search in this process from the initial state."""
    tree = MCTS(game.initial_state(), rng=random.Random(1))
    return tree.search(deadline=time.monotonic() + seconds)


async def run(args: argparse.Namespace) -> None:
    options = ["--margin", str(args.margin)]
    options += ["--workers", str(args.workers)] if args.workers else []
    async with served(*options, name="ggp-player") as server:
        results = await play_all(args, server.url + "/")
        server.process.terminate()
        await server.process.wait()
    log = server.log.decode()
    if args.log is not None:
        args.log.write_text(log)
    report(args, results, log.splitlines())


async def play_all(args: argparse.Namespace, url: str) -> dict[str, tuple[Game, Timings]]:
    """Whole matches of each game against the server at `url`, until `--plays` searched moves."""
    rng = random.Random(args.seed)
    results: dict[str, tuple[Game, Timings]] = {}
    connector = aiohttp.TCPConnector(force_close=True)  # one connection per message
    async with aiohttp.ClientSession(connector=connector) as http:
        for path in args.games:
            rules = Path(path).read_text()
            game = game_from_text(rules, str(path))
            build = getattr(game, "native_build", None)
            if build is not None:  # the referee's own steps at full speed before the match: a
                build.join()  # step that waits for native code would outlast `--idle-clocks`
            name = Path(path).stem
            timings = Timings()
            results[name] = (game, timings)
            while len(timings.searched) < args.plays:
                match_id = f"bench.{name}.{timings.matches + 1}"
                us = timings.matches % len(game.roles)
                clocks = (args.start_clock, args.play_clock)
                await play_match(
                    http, url, game, rules, match_id, us, clocks, rng, timings, args.think
                )
                print(f"{match_id}: {len(timings.searched)} searched plays so far", flush=True)
    return results


def report(args: argparse.Namespace, results: dict[str, tuple[Game, Timings]], log: list[str]):
    budget = args.play_clock - args.margin
    print(f"\nplay clock {args.play_clock} s, margin {args.margin} s (budget {budget:.2f} s)")
    print(next((line for line in log if "search worker(s) each" in line), "(no settings logged)"))
    print("reply times are measured by the manager, from sending the message to the reply")
    for name, (game, timings) in results.items():
        plays = timings.searched + timings.forced
        sims, fallbacks, pondered, ponder_seconds = [], [], [], 0.0
        for line in log:
            found = PLAY_LINE.search(line)
            if found and found.group(1).startswith(f"bench.{name}."):
                detail = found.group(3)
                if detail.startswith("fallback"):
                    fallbacks.append(line)
                if counted := SIMULATIONS.match(detail):
                    sims.append(int(counted.group(1)))
                    pondered.append(int(counted.group(2) or 0))
                    ponder_seconds += float(counted.group(3) or 0)
        searched = sorted(timings.searched)
        late = sum(t > args.play_clock for t in plays)
        over = sum(t > budget for t in plays)
        base = baseline(game, budget)
        print(
            f"{name}: {timings.matches} matches, {len(searched)} searched plays "
            f"(+ {len(timings.forced)} forced, answered at once)\n"
            f"  searched play replies: slowest {searched[-1]:.3f} s, median "
            f"{statistics.median(searched):.3f} s; {late} later than the clock, {over} after "
            f"clock - margin\n"
            f"  simulations per searched move: median {statistics.median(sims):.0f}, "
            f"min {min(sims)}, max {max(sims)}; fallbacks: {len(fallbacks)}\n"
            f"  baseline, this process from the initial state in {budget:.2f} s: {base} "
            f"simulations (median per move / baseline: {statistics.median(sims) / base:.2f})\n"
            f"  start replies: slowest {max(timings.starts):.3f} s of a {args.start_clock} s "
            "clock\n"
            f"  pondering: median {statistics.median(pondered):.0f} simulations per searched "
            f"move ({sum(pondered) / max(sum(sims), 1):.0%} of the simulations searched), "
            f"{ponder_seconds:.1f} s pondered of {timings.between:.1f} s from a searched reply "
            f"to the next searched play ({ponder_seconds / max(timings.between, 1e-9):.0%})"
        )
        for line in fallbacks[:5]:
            print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", type=Path, default=GAMES, metavar="GAME.kif")
    parser.add_argument("--plays", type=int, default=200, help="searched plays per game")
    parser.add_argument("--play-clock", type=int, default=2)
    parser.add_argument("--start-clock", type=int, default=3)
    parser.add_argument("--margin", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1, help="seed of the random opponents")
    parser.add_argument("--workers", type=int, help="passed to ggp serve (default: its own)")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds the manager waits before each play"
    )
    parser.add_argument("--log", type=Path, help="write the server's log to this file")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
