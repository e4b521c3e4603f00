"""`ggp arena` run as its own process for tests and measurements, on a free port."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ADDRESS = re.compile(r"arena at (http://[\d.]+:\d+/)")


@contextmanager
def arena_process(
    folder: Path, *options: str, timeout: float = 60
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Run ``ggp arena`` keeping its files in `folder`; once it listens, yield its
    address and its process (its stdout a pipe: the login link of an open arena)."""
    command = [
        sys.executable,
        "-m",
        "ggp",
        "arena",
        "--port",
        "0",
        "--db",
        str(folder / "arena.sqlite"),
        "--log-dir",
        str(folder / "logs"),
        *options,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + timeout
        for line in process.stderr:
            if found := ADDRESS.search(line):
                yield found.group(1), process
                break
            if time.monotonic() > deadline:
                raise TimeoutError("ggp arena did not start listening")
        else:
            raise RuntimeError(f"ggp arena exited with status {process.wait()}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
