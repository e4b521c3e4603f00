"""Does ``ggp serve`` survive hostile rules and messages?  The table of issue 17.

    python benchmarks/hostile_serve.py [--only CATEGORY ...] [--server-root DIR]
                                       [--server-memory MIB]

runs ``ggp serve`` as its own process for each category of hostile input
(the small rule sets and messages of ``tests/hostile_rules.py``), plays it as
a game manager would (one connection per message) and prints, per category:
the messages tried, those answered correctly (``ready``, a legal move or a
clear ``nil``, ``aborted``...), those late (after their clock, as the manager
sees it), how many ``info`` probes sent every 0.25 s meanwhile on other
connections came later than 0.5 s (and the slowest), the peak resident
memory of the server process and the largest sum of its children's, the
seconds SIGTERM took to end the server and the processes left running after
it.  Linux only (/proc).

``--server-root DIR`` runs the server of another checkout (an older commit,
for a baseline), under an address-space limit of ``--server-memory`` MiB so
that a server without limits cannot take the machine down; options it does
not know are then left out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from gdl_texts import PENNIES, TICTACTOE  # noqa: E402
from ggp.games.base import Game  # noqa: E402
from ggp.player.service.game_factory import game_from_text  # noqa: E402
from ggp_client import message_moves  # noqa: E402
from hostile_rules import BIG_RELATION, COSTLY_STEP, MANY_ORS, PARENTHESES  # noqa: E402
from served import Served, descendants, running, served  # noqa: E402

PROBE_EVERY = 0.25
PROBE_LATE = 0.5


@dataclass
class Row:
    """What one category of hostile input gave."""

    category: str
    tried: int = 0
    correct: int = 0
    late: int = 0
    probes: list[float] = field(default_factory=list)
    server_kib: int = 0
    children_kib: int = 0
    sigterm_s: float = 0.0
    left: int = 0
    notes: list[str] = field(default_factory=list)

    def check(self, ok: bool, took: float, clock: float, what: str) -> None:
        """Count one reply: right or not, late or not."""
        self.tried += 1
        self.correct += ok
        if took > clock:
            self.late += 1
            self.notes.append(f"{what} late: {took:.2f} s on {clock:g} s")
        if not ok:
            self.notes.append(f"{what}: wrong reply")


@dataclass
class Options:
    root: Path
    memory: int | None
    new: bool
    """Whether the server knows this branch's options."""


@contextlib.asynccontextmanager
async def server(options: Options, *args: str) -> AsyncIterator[Served]:
    """``ggp serve`` from `options.root` on a free port."""

    def limit() -> None:
        if options.memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (options.memory, options.memory))

    env = {**os.environ, "PYTHONPATH": str(options.root)}
    async with served(*args, cwd=options.root, env=env, preexec_fn=limit) as started:
        yield started


async def probing(served: Served, row: Row, stop: asyncio.Event) -> None:
    """Send `info` every `PROBE_EVERY` s until `stop`, timing each; sample the children."""
    while not stop.is_set():
        served.children()
        try:
            _, took = await served.timed("(info)", timeout=30)
        except Exception:  # noqa: BLE001 (a probe that fails counts as late)
            took = 30.0
        row.probes.append(took)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PROBE_EVERY)


async def measured(
    options: Options, category: str, args: list[str], body: Callable[[Served, Row], Awaitable[None]]
) -> Row:
    row = Row(category)
    async with server(options, *args) as served:
        stop = asyncio.Event()
        probe = asyncio.create_task(probing(served, row, stop))
        try:
            await body(served, row)
        except Exception as error:  # noqa: BLE001 (a failure is a finding)
            row.notes.append(f"{type(error).__name__}: {error}")
        stop.set()
        await probe
        served.children()
        row.server_kib = served.peak_kib()
        row.children_kib = served.peak_children_kib
        try:
            row.sigterm_s, left = await served.terminate(timeout=60)
        except TimeoutError:
            row.sigterm_s, left = (
                float("inf"),
                running(served.seen | descendants(served.process.pid)),
            )
        row.left = len(left)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    return row


async def play_legal(
    served: Served, row: Row, game: Game, match: str, role: str, clock: float, plays: int
) -> None:
    """Play `plays` moves of `match` (started), the other roles at random; check each reply."""
    state = game.initial_state()
    us = game.roles.index(role)
    moves = "nil"
    rng = random.Random(1)
    for _ in range(plays):
        if state.is_terminal():
            break
        reply, took = await served.timed(f"(play {match} {moves})")
        legal = state.legal_moves(us)
        row.check(reply in legal, took, clock, f"play {match}")
        mine = reply if reply in legal else rng.choice(legal)
        joint = [mine if i == us else rng.choice(m) for i, m in enumerate(state.all_legal_moves())]
        state = state.next(joint)
        moves = message_moves(joint)
        await asyncio.sleep(max(0.0, clock - took))


async def memory(served: Served, row: Row) -> None:
    start = asyncio.create_task(served.timed(f"(start big.1 xplayer ({BIG_RELATION}) 20 3)"))
    reply, took = await start
    row.check(reply == "ready", took, 20, "start")
    for _ in range(4):
        reply, took = await served.timed("(play big.1 nil)")
        row.check(reply == "nil" or reply.startswith("(mark "), took, 3, "play")
        await asyncio.sleep(max(0.0, 3 - took))
    reply, took = await served.timed("(abort big.1)")
    row.check(reply == "aborted", took, 3, "abort")


async def builds(served: Served, row: Row) -> None:
    for number in range(6):
        start = asyncio.create_task(
            served.timed(f"(start ors.{number} xplayer ({MANY_ORS}) 60 10)")
        )
        await asyncio.sleep(1.0)
        reply, took = await served.timed(f"(abort ors.{number})")
        row.check(reply == "aborted", took, 10, "abort")
        reply, took = await start
        row.check(reply == "ready", took, 60, "start")
    game = game_from_text(TICTACTOE, "ttt")
    reply, took = await served.timed(f"(start ttt.1 xplayer ({TICTACTOE}) 5 2)")
    row.check(reply == "ready", took, 5, "start ttt")
    await play_legal(served, row, game, "ttt.1", "xplayer", 2, 9)
    if b"fallback" in served.log:
        row.notes.append("fallbacks in the later match")


async def flood(served: Served, row: Row) -> None:
    game = game_from_text(TICTACTOE, "ttt")
    reply, took = await served.timed(f"(start ttt.2 oplayer ({TICTACTOE}) 5 1)")
    row.check(reply == "ready", took, 5, "start")
    flooding = asyncio.Event()

    async def bodies() -> None:
        while not flooding.is_set():
            reply, took = await served.timed(PARENTHESES)
            row.check(reply.startswith("(error "), took, 1, "990 KB of (")

    floods = [asyncio.create_task(bodies()) for _ in range(3)]
    await play_legal(served, row, game, "ttt.2", "oplayer", 1, 9)
    flooding.set()
    await asyncio.gather(*floods)
    reply, took = await served.timed("(abort ttt.2)")
    row.check(reply == "aborted", took, 1, "abort")
    start = asyncio.create_task(served.timed(f"(start big.3 xplayer ({PARENTHESES}) 5 2)"))
    reply, took = await start
    row.check(reply == "ready", took, 5, "start of 990 KB")
    reply, took = await served.timed("(play big.3 nil)")
    row.check(reply == "nil", took, 2, "play of 990 KB")


async def steps(served: Served, row: Row) -> None:
    game = game_from_text(COSTLY_STEP, "costly", reasoner="interpreter")
    reply, took = await served.timed(f"(start cost.1 a ({COSTLY_STEP}) 10 2)")
    row.check(reply == "ready", took, 10, "start")
    state = game.initial_state()
    moves = "nil"
    for _ in range(6):  # our legal moves never change: a legal reply is known without stepping
        reply, took = await served.timed(f"(play cost.1 {moves})")
        row.check(reply in state.legal_moves(0), took, 2, "play")
        moves = f"({reply} noop)"
        await asyncio.sleep(max(0.0, 2 - took))


async def life_cycle(served: Served, row: Row) -> None:
    huge = 10**20
    start = asyncio.create_task(served.timed(f"(start ttt.4 xplayer ({TICTACTOE}) {huge} {huge})"))
    await asyncio.sleep(1)
    reply, took = await served.timed("(abort ttt.4)")
    row.check(reply == "aborted", took, 2, "abort behind an absurd clock")
    reply, took = await start
    row.check(reply == "ready", took, 5, "start with an absurd clock")
    reply, took = await served.timed(f"(start gone.1 xplayer ({TICTACTOE}) 2 1)")
    row.check(reply == "ready", took, 2, "start")
    reply, took = await served.timed(f"(start gone.1 oplayer ({TICTACTOE}) 2 1)")
    row.check(reply.startswith('(error "match gone.1 is already'), took, 2, "duplicate start")
    reply, took = await served.timed("(play gone.1 nil)")
    row.check(reply.startswith("(mark "), took, 1, "play")
    began = time.monotonic()
    while await served.send("(info)") != "((name hostile) (status available))":
        if time.monotonic() - began > 30:
            row.notes.append("the abandoned match still holds its slot at +30 s")
            break
        await asyncio.sleep(0.1)
    else:
        row.notes.append(f"abandoned match ended after {time.monotonic() - began:.1f} s")
    reply, took = await served.timed(b"(play m\x1b]0;owned\x07 nil)")
    row.check(reply.startswith("(error "), took, 1, "control bytes")
    if b"\x1b" in served.log:
        row.notes.append("raw control bytes in the log")
    reply, took = await served.timed(f"(start p.1 left ({PENNIES}) 60 10)")
    row.check(reply == "ready", took, 60, "start before SIGTERM")


async def orphans(options: Options) -> str:
    """SIGKILL the server during a search: how long its children outlive it."""
    async with server(options, "--iterations", "100000000") as served:
        await served.send(f"(start ttt.5 xplayer ({TICTACTOE}) 3 60)")
        play = asyncio.create_task(served.send("(play ttt.5 nil)"))
        await asyncio.sleep(1)
        children = served.children()
        os.kill(served.process.pid, signal.SIGKILL)
        began = time.monotonic()
        while running(children) and time.monotonic() - began < 120:
            await asyncio.sleep(0.05)
        with contextlib.suppress(Exception):
            await play
        left = running(children)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        took = time.monotonic() - began
        return (
            f"{len(children)} children of a SIGKILLed server: {len(left)} left after {took:.1f} s"
        )


CATEGORIES: dict[str, tuple[str, list[str], Callable[[Served, Row], Awaitable[None]]]] = {
    "memory": ("1 unbounded memory (30^6 relation)", [], memory),
    "builds": ("2 six start+abort of 16 (or) bodies", [], builds),
    "flood": ("3 990 KB bodies of ( during a match", [], flood),
    "steps": ("4 steps of seconds on a 2 s clock", ["--margin", "1"], steps),
    "life": ("5,7 absurd clock, abandon, dup, ctrl", ["--idle-clocks", "2"], life_cycle),
}


def table(rows: list[Row]) -> str:
    lines = [
        "| category | tried | correct | late | info > 0.5 s (slowest) | server max RSS "
        "| children max RSS | SIGTERM | left |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        slow = sum(took > PROBE_LATE for took in row.probes)
        slowest = max(row.probes, default=0.0)
        lines.append(
            f"| {row.category} | {row.tried} | {row.correct} | {row.late} "
            f"| {slow} of {len(row.probes)} ({slowest:.2f} s) | {row.server_kib / 1024:.0f} MiB "
            f"| {row.children_kib / 1024:.0f} MiB | {row.sigterm_s:.2f} s | {row.left} |"
        )
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    root = args.server_root.resolve() if args.server_root else ROOT
    memory_limit = args.server_memory << 20 if args.server_root else None
    options = Options(root, memory_limit, args.server_root is None)
    rows = []
    for name in [name for name in args.only or CATEGORIES if name in CATEGORIES]:
        category, extra, body = CATEGORIES[name]
        if not options.new:
            extra = [arg for arg in extra if arg != "--idle-clocks" and arg != "2"]
        began = time.monotonic()
        row = await measured(options, category, extra, body)
        rows.append(row)
        print(f"{category}: {time.monotonic() - began:.0f} s; {'; '.join(row.notes)}", flush=True)
    if args.only is None or "orphans" in args.only:
        print(await orphans(options))
    print(table(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=[*CATEGORIES, "orphans"])
    parser.add_argument("--server-root", type=Path, help="run the server of this checkout")
    parser.add_argument("--server-memory", type=int, default=3072, metavar="MIB")
    asyncio.run(main(parser.parse_args()))
