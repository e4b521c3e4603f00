"""A child process of the arena speaking `ggp.server.arena.agent_process`'s protocol: JSON
lines in, answers matched to their commands by id, thinking reports on the side."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Callable
from typing import Any

STREAM_LIMIT = 1 << 24
"""Longest line read from the child (a ranking of many moves)."""


class AgentChild:
    """``python -m ggp.server.arena.agent_process``, once `spawn` has started it."""

    def __init__(self, on_thinking: Callable[[list[dict]], None] = lambda ranking: None) -> None:
        self.on_thinking = on_thinking
        self.process: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task | None = None
        self.waiting: dict[int, asyncio.Future] = {}
        """The commands sent and not answered yet, by id."""
        self.ids = itertools.count()
        self.broken = False
        """The child has ended (or could not be started): every command fails."""

    async def spawn(self) -> None:
        """Start the child; an `OSError` if it cannot be (it is then broken)."""
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "ggp.server.arena.agent_process",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=STREAM_LIMIT,
            )
        except OSError:
            self.broken = True
            raise
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        try:
            async for line in self.process.stdout:
                message = json.loads(line)
                if "thinking" in message:
                    self.on_thinking(message["thinking"])
                    continue
                future = self.waiting.pop(message.get("id"), None)
                if future is not None and not future.done():  # not given up on (TO)
                    future.set_result(message)
        finally:
            self.broken = True
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(ConnectionError("the agent's process ended"))
            self.waiting.clear()

    async def ask(self, command: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """The child's answer to `command` (``{"error": TEXT}`` included); a `TimeoutError`
        after `timeout` seconds, a `ConnectionError` if the child is gone."""
        if self.broken or self.process is None or self.process.stdin is None:
            raise ConnectionError("the agent's process is not running")
        number = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        try:
            self.process.stdin.write((json.dumps({**command, "id": number}) + "\n").encode())
            await self.process.stdin.drain()
        except (ConnectionError, BrokenPipeError) as error:
            raise ConnectionError(str(error)) from error
        return await asyncio.wait_for(future, timeout)

    async def close(self) -> None:
        """End the child: its stdin closed (it exits), killed if it is still searching."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 1.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
