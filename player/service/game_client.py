"""The asyncio side of the server's copy of a game (`ggp.player.service.game_process`).

A `WorkerClient` for that process, and a watchdog: each command has a budget
of CPU seconds, counted by the child from when it begins the command (the
kernel ends it past the budget), and by the server on its own clock from when
the command reaches the head of the queue (it kills the child when the answer
has not come within twice the budget and a second, the time allowed for
a machine shared with other work).  Either way the requests waiting on the
process fail with `WorkerDied`, and `ended` says why.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import signal
import sys
from typing import Any

from ggp.player.service.worker_client import ANSWER_LIMIT, WorkerClient

log = logging.getLogger(__name__)

WALL_FACTOR = 2.0
"""Wall-clock seconds allowed per CPU second of a command's budget, plus `WALL_EXTRA`."""

WALL_EXTRA = 1.0


class GameClient(WorkerClient):
    """One running `ggp.player.service.game_process`."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        super().__init__(process)
        self.ended: str | None = None
        """Why the server ended the process, when it did."""
        self._queue: collections.deque[tuple[asyncio.Future[dict[str, Any]], float, str]] = (
            collections.deque()
        )
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    async def spawn(cls, memory: int) -> GameClient:  # type: ignore[override]
        """Start ``python -m ggp.player.service.game_process``, with at most `memory` bytes
        of memory."""
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ggp.player.service.game_process",
            "--memory",
            str(memory),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=ANSWER_LIMIT,
        )
        return cls(process)

    def ask(self, command: dict[str, Any], budget: float) -> asyncio.Future[dict[str, Any]]:
        """Send `command`, which may take `budget` CPU seconds; its answer's future."""
        future = self._send({**command, "cpu": budget})
        if future.done():  # the process has ended
            return future
        self._queue.append((future, budget, command["cmd"]))
        future.add_done_callback(self._answered)
        if len(self._queue) == 1:
            self._arm()
        return future

    def kill(self, why: str) -> None:
        """End the process now; `why` is kept in `ended`."""
        if self.ended is None:
            self.ended = why
        if self.process.returncode is None:
            self.process.kill()

    @property
    def why_ended(self) -> str:
        """Why the process has ended, for the log and the replies."""
        if self.ended is not None:
            return self.ended
        code = self.process.returncode
        if code == -signal.SIGXCPU:
            return "it used up its CPU budget"
        if code is not None and code < 0:
            return f"it was ended by signal {-code} (out of memory?)"
        return f"it exited with status {code}"

    def _answered(self, future: asyncio.Future[dict[str, Any]]) -> None:
        while self._queue and self._queue[0][0].done():
            self._queue.popleft()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._queue:
            self._arm()

    def _arm(self) -> None:
        _, budget, name = self._queue[0]
        self._timer = asyncio.get_running_loop().call_later(
            budget * WALL_FACTOR + WALL_EXTRA, self._overran, name, budget
        )

    def _overran(self, name: str, budget: float) -> None:
        self._timer = None
        log.warning(
            "game process %s: %s took more than its budget (%.1f CPU s); killed",
            self.process.pid,
            name,
            budget,
        )
        self.kill(f"{name} took more than its budget of {budget:.1f} s")
