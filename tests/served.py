"""``ggp serve`` run as its own process for the tests and benchmarks: messages, its
child processes and its memory (read from Linux's /proc), and its stop."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

HEADERS = {"Accept": "text/delim", "Sender": "GAMESERVER", "Content-Type": "text/acl"}

PROC = Path("/proc")


def has_proc() -> bool:
    """Whether processes can be looked at through /proc (Linux)."""
    return (PROC / "self" / "status").exists()


def descendants(pid: int) -> set[int]:
    """The processes below `pid` (children, their children...)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def running(pids: set[int]) -> set[int]:
    """Those of `pids` still running (not ended, not zombies)."""
    alive = set()
    for pid in pids:
        try:
            state = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            alive.add(pid)
    return alive


def memory_kib(pid: int, field_name: str = "VmHWM") -> int:
    """A memory figure of `pid` in KiB (VmHWM: peak resident; VmRSS: resident now); 0 if gone."""
    try:
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field_name}:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


@dataclass
class Served:
    """A running ``ggp serve``: its URL, its process and its log so far."""

    url: str
    process: asyncio.subprocess.Process
    log: bytearray = field(default_factory=bytearray)
    seen: set[int] = field(default_factory=set)
    """Every child process seen so far (`children`)."""
    peak_children_kib: int = 0
    """The largest sum of the children's resident memory seen (`children`)."""

    async def send(self, text: str | bytes, timeout: float = 60.0) -> str:
        """The reply to one message, on a connection of its own."""
        data = text.encode() if isinstance(text, str) else text
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                self.url,
                data=data,
                headers=HEADERS,
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as response,
        ):
            return (await response.text()).strip()

    async def timed(self, text: str | bytes, timeout: float = 60.0) -> tuple[str, float]:
        """The reply to one message and the seconds it took, as the manager sees it."""
        began = time.monotonic()
        reply = await self.send(text, timeout)
        return reply, time.monotonic() - began

    def children(self) -> set[int]:
        """The processes below the server now (remembered in `seen`)."""
        found = descendants(self.process.pid)
        self.seen |= found
        self.peak_children_kib = max(
            self.peak_children_kib, sum(memory_kib(pid, "VmRSS") for pid in found)
        )
        return found

    def peak_kib(self) -> int:
        """The server process's own peak resident memory."""
        return memory_kib(self.process.pid)

    async def terminate(self, timeout: float = 60.0) -> tuple[float, set[int]]:
        """SIGTERM the server: the seconds until it ended and its children still running then."""
        self.children()
        began = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(self.process.wait(), timeout)
        took = time.monotonic() - began
        return took, running(self.seen)


@contextlib.asynccontextmanager
async def served(
    *options: str,
    name: str = "hostile",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> AsyncIterator[Served]:
    """``ggp serve`` named `name` on a free loopback port with `options`, once it listens;
    killed at the end if still up. `cwd`, `env` and `preexec_fn` go to its process."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ggp",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--name",
        name,
        *options,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        preexec_fn=preexec_fn,
    )
    assert process.stderr is not None
    first = bytearray()
    try:
        while (found := re.search(rb"listening on (http://127\.0\.0\.1:\d+)", first)) is None:
            line = await asyncio.wait_for(process.stderr.readline(), 60)
            if not line:
                raise RuntimeError(f"ggp serve ended before listening: {first.decode()}")
            first.extend(line)
    except BaseException:
        process.kill()
        await process.wait()
        raise
    server = Served(found.group(1).decode(), process, first)

    async def collect() -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.read(65536):
            server.log.extend(chunk)

    collecting = asyncio.create_task(collect())
    try:
        yield server
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await collecting
