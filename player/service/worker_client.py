"""The asyncio side of a search worker (`ggp.player.service.search_worker`): start, ask, stop.

Commands are numbered; a reader task hands each answer to the request that
waits for it.  A request that runs out of time raises `WorkerTimeout` and its
answer, when it comes, is dropped: the worker handles commands in order, so
later ones still see the game as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

ANSWER_LIMIT = 1 << 20
"""Longest answer line read from a worker, in bytes (answers are short)."""

EXIT_WAIT = 2.0
"""Seconds to wait for a worker's exit status once its answers' pipe has closed."""


class WorkerError(Exception):
    """The worker answered with an error, or cannot answer."""


class WorkerTimeout(WorkerError):
    """The worker did not answer in time (it may still answer later)."""


class WorkerDied(WorkerError):
    """The worker process has ended."""


class WorkerClient:
    """One running search worker process."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read_answers())
        self._closing = False
        """Asked to quit (`close`): a command sent without waiting that then goes
        unanswered is not worth a warning (the last joint move, at a match's end)."""

    @classmethod
    async def spawn(cls) -> WorkerClient:
        """Start a worker process (``python -m ggp.player.service.search_worker``)."""
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ggp.player.service.search_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=ANSWER_LIMIT,
        )
        return cls(process)

    @property
    def alive(self) -> bool:
        return not self._reader.done() and self.process.returncode is None

    async def request(self, command: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """Send `command` and wait up to `timeout` seconds for its answer."""
        future = self._send(command)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise WorkerTimeout(f"no answer to {command['cmd']} within {timeout:.3f} s") from None

    def send(self, command: dict[str, Any]) -> None:
        """Send `command` without waiting; an error in its answer is logged."""
        future = self._send(command)
        future.add_done_callback(lambda done: self._log_failure(command["cmd"], done))

    def _log_failure(self, name: str, done: asyncio.Future[dict[str, Any]]) -> None:
        if done.cancelled() or (error := done.exception()) is None:
            return
        if self._closing and isinstance(error, WorkerDied):
            return
        log.warning("search worker: %s failed: %s", name, error)

    def _send(self, command: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if not self.alive or self.process.stdin is None or self.process.stdin.is_closing():
            future.set_exception(
                WorkerDied(f"the search worker has ended; cannot {command['cmd']}")
            )
            return future
        self._next_id += 1
        self._waiting[self._next_id] = future
        line = json.dumps({**command, "id": self._next_id}) + "\n"
        self.process.stdin.write(line.encode())
        return future

    async def _read_answers(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                answer = json.loads(line)
                future = self._waiting.pop(answer.pop("id", None), None)
                if future is None or future.done():
                    continue  # the request gave up waiting
                if "error" in answer:
                    future.set_exception(WorkerError(answer["error"]))
                else:
                    future.set_result(answer)
            # The pipe closes as the process ends: wait (briefly) for its exit status,
            # which says why it ended (e.g. its CPU limit), before failing the requests.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), EXIT_WAIT)
        except (ValueError, asyncio.LimitOverrunError) as error:
            log.error("search worker %s: unreadable answer: %s", self.process.pid, error)
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(WorkerDied("the search worker has ended"))
            self._waiting.clear()

    async def close(self, grace: float = 5.0) -> None:
        """Ask the worker to quit; kill it if it has not within `grace` seconds."""
        self._closing = True
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(ConnectionError):
                stdin.write(b'{"cmd": "quit"}\n')
                stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        await self._reader
