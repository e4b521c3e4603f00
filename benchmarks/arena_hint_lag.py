"""How much a person's hint holds up the arena's event loop: searched in a thread of
the arena's process (as before) or in a child process (`LiveMatch.hint`).

    python benchmarks/arena_hint_lag.py [--hints 5] [--game connect_four]

Starts a match of the game between a person and ``random`` in an arena (no HTTP:
the arena object itself), waits for the person's turn, then asks `--hints` one-second
hints each way, alternately, while a task of the event loop wakes every 10 ms: the
lag is how late it wakes.  Prints the median and worst lag each way, and the arena
process's CPU seconds each way (a hint in a thread spends the arena's CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from ggp.server.arena.agent_process import hint_ranking
from ggp.server.arena.arena import Arena, ArenaConfig
from ggp.server.arena.live import HINT_SECONDS, LiveMatch

TICK = 0.01


async def lags_during(work: Callable[[], Awaitable[object]]) -> tuple[list[float], float]:
    """How late a 10 ms ticker woke while `work` ran, and the CPU seconds it took."""
    lags: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            lags.append(time.perf_counter() - before - TICK)

    ticking = asyncio.create_task(ticker())
    cpu = time.process_time()
    await work()
    cpu = time.process_time() - cpu
    done.set()
    await ticking
    return lags, cpu


async def person_turn(arena: Arena, game: str) -> LiveMatch:
    match = await arena.start_match({"game": {"builtin": game}, "players": ["person", "random"]})
    while not match.waiting():
        await asyncio.sleep(0.05)
    return match


async def main(hints: int, game: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        arena = Arena(ArenaConfig(db=Path(folder) / "a.sqlite", log_dir=Path(folder)))
        arena.open()
        match = await person_turn(arena, game)
        person = match.person(0)
        assert person is not None and person.state is not None
        state = person.state
        await match.hint(0)  # its process started once, as the first hint of a match does
        results: dict[str, tuple[list[float], float]] = {"thread": ([], 0.0), "process": ([], 0.0)}
        ways = {
            "thread": lambda: asyncio.to_thread(hint_ranking, state, 0, HINT_SECONDS),
            "process": lambda: match.hint(0),
        }
        for _ in range(hints):
            for name, work in ways.items():
                lags, cpu = await lags_during(work)
                results[name] = (results[name][0] + lags, results[name][1] + cpu)
        await arena.close()
    for name, (lags, cpu) in results.items():
        print(
            f"hint in a {name:7}: event loop lag median {statistics.median(lags) * 1000:6.1f} ms,"
            f" worst {max(lags) * 1000:6.1f} ms ({len(lags)} ticks); the arena's CPU"
            f" {cpu / hints:.2f} s a hint"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hints", type=int, default=5)
    parser.add_argument("--game", default="connect_four")
    options = parser.parse_args()
    asyncio.run(main(options.hints, options.game))
