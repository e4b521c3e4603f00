"""Where the matches of a tournament or a study are played: one event loop, or worker processes.

A match is a task ``(setup, index)``: everything a match needs (a picklable
setup shared by many matches) and its number.  `play(setup, index)`, an async
function defined at module level (so that it can be sent to another process),
plays it and returns its result.  The results come back in the order of the
tasks, whichever backend played them and in whatever order they finished; the
callback `on_result(task_number, result)` hears of each as it ends.

The Ray backend, for a cluster, is `ggp.server.ray_runner`, with the same interface.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import multiprocessing.synchronize
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

S = TypeVar("S")
R = TypeVar("R")

Play = Callable[[S, int], Awaitable[R]]
"""An async function playing match `index` of `setup`, defined at module level."""

Task = tuple[S, int]
"""A match to play: its setup and its number."""

OnResult = Callable[[int, R], None]
"""Told the number of a task (its position in the list) and its result, as it ends."""


def ignore_result(task_number: int, result: object) -> None:
    """The default `OnResult`: nobody is listening."""


async def _in_event_loop(
    play: Play, tasks: Sequence[Task], jobs: int, on_result: OnResult
) -> list[Any]:
    slots = asyncio.Semaphore(jobs)

    async def one(number: int, setup: Any, index: int) -> Any:
        async with slots:
            result = await play(setup, index)
        on_result(number, result)
        return result

    return list(await asyncio.gather(*(one(number, *task) for number, task in enumerate(tasks))))


def in_event_loop(
    play: Play, tasks: Sequence[Task], jobs: int, on_result: OnResult = ignore_result
) -> list[Any]:
    """Play the tasks in this process's event loop, `jobs` at a time (for remote players:
    the referee mostly waits for the network)."""
    return asyncio.run(_in_event_loop(play, tasks, jobs, on_result))


_stop: multiprocessing.synchronize.Event | None = None
"""In a worker process: set by the parent when the matches are interrupted."""


def _init_worker(stop: multiprocessing.synchronize.Event) -> None:
    global _stop
    _stop = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent tells us through `stop`


async def _watched(play: Play, setup: Any, index: int) -> Any:
    """The match, cancelled (aborted and logged) if the parent sets the stop event."""
    match = asyncio.create_task(play(setup, index))
    while not match.done():
        if _stop is not None and _stop.is_set():
            match.cancel()
            try:
                await match
            except asyncio.CancelledError:
                return None
        await asyncio.wait({match}, timeout=0.1)
    return match.result()


def _play_in_worker(play: Play, numbered: tuple[int, Task]) -> tuple[int, Any]:
    """Play one task in a worker process; its result is None if the parent interrupted."""
    number, (setup, index) = numbered
    if _stop is not None and _stop.is_set():
        return number, None
    return number, asyncio.run(_watched(play, setup, index))


def in_processes(
    play: Play, tasks: Sequence[Task], jobs: int, on_result: OnResult = ignore_result
) -> list[Any]:
    """Play the tasks in `jobs` worker processes (in-process agents need a core each).

    Ctrl-C aborts the matches under way (their logs say so), starts no others
    and is raised again once the workers have stopped.
    """
    stop = multiprocessing.Event()
    results: list[Any] = [None] * len(tasks)
    with multiprocessing.Pool(jobs, initializer=_init_worker, initargs=(stop,)) as pool:
        finished = pool.imap_unordered(functools.partial(_play_in_worker, play), enumerate(tasks))
        try:
            for number, result in finished:
                assert result is not None
                results[number] = result
                on_result(number, result)
        except KeyboardInterrupt:
            stop.set()
            for _ in finished:  # the workers abort and log their matches, and skip the rest
                pass
            raise
    return results


def run_locally(
    play: Play,
    tasks: Sequence[Task],
    *,
    jobs: int,
    processes: bool,
    on_result: OnResult = ignore_result,
) -> list[Any]:
    """Worker processes when `processes` and `jobs` > 1, else this process's event loop."""
    if processes and jobs > 1:
        return in_processes(play, tasks, jobs, on_result)
    return in_event_loop(play, tasks, jobs, on_result)
