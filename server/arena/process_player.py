"""An in-process agent spec played in a child process (`server.arena.agent_process`).

Held to the clocks as `server.players.AgentPlayer` is: a move later than the
play clock plus the grace period is ``TO`` (the child goes on with it, and the
next request waits behind it, as with a remote player still thinking); a child
that dies or cannot be started is ``CE`` from then on; an error the agent or
the rules raise aborts the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from games.base import GameError, State
from server.players import MatchSetup, Player, Reply

log = logging.getLogger(__name__)

Thinking = Callable[[int, list[dict]], None]
"""Called with the role and the ranking of its moves so far, while the agent searches."""

STREAM_LIMIT = 1 << 24
"""Longest line read from the child (a ranking of many moves)."""


class ProcessAgentPlayer(Player):
    """The agent `spec`, for the game `game` (as the API names it), in a child process."""

    def __init__(self, spec: str, game: dict[str, Any], seed: int | None) -> None:
        self.name = spec
        self.game = game
        self.seed = seed
        self.role = 0
        self.setup: MatchSetup | None = None
        self.on_thinking: Thinking = lambda role, ranking: None
        self.ranking: list[dict] = []
        self.process: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task | None = None
        self.waiting: dict[int, asyncio.Future] = {}
        self.ids = itertools.count()
        self.broken = False

    async def _spawn(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.arena.agent_process",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=STREAM_LIMIT,
        )
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        try:
            async for line in self.process.stdout:
                message = json.loads(line)
                if "thinking" in message:
                    self.on_thinking(self.role, message["thinking"])
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

    async def _ask(self, command: dict[str, Any], timeout: float | None) -> Reply | dict:
        """The child's answer to `command`, or the Reply that stands in for it (TO, CE)."""
        if self.broken or self.process is None or self.process.stdin is None:
            return Reply(None, "CE")
        number = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        try:
            self.process.stdin.write((json.dumps({**command, "id": number}) + "\n").encode())
            await self.process.stdin.drain()
            answer = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return Reply(None, "TO")
        except (ConnectionError, BrokenPipeError):
            return Reply(None, "CE")
        if "error" in answer:
            raise GameError(f"{self.name}: {answer['error']}")
        return answer

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup, self.role = setup, role
        try:
            await self._spawn()
        except OSError as error:
            log.warning("cannot start an agent process: %s", error)
            self.broken = True
            return Reply(None, "CE")
        command = {
            "cmd": "start",
            "game": self.game,
            "agent": self.name,
            "seed": self.seed,
            "role": role,
            "clocks": [setup.clocks.start, setup.clocks.play],
        }
        answer = await self._ask(command, setup.timeout(setup.clocks.start))
        return answer if isinstance(answer, Reply) else Reply("ready")

    async def play(self, state: State, joint: Sequence[str] | None) -> Reply:
        assert self.setup is not None
        clock = self.setup.clocks.play
        command = {"cmd": "play", "joint": None if joint is None else list(joint), "seconds": clock}
        answer = await self._ask(command, self.setup.timeout(clock))
        if isinstance(answer, Reply):
            return answer
        self.ranking = answer["ranking"]
        return Reply(answer["move"])

    async def stop(self, state: State, joint: Sequence[str] | None) -> None:
        assert self.setup is not None
        command = {"cmd": "stop", "joint": None if joint is None else list(joint)}
        await self._ask(command, self.setup.timeout(self.setup.clocks.play))

    async def abort(self) -> None:
        await self.close()

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
