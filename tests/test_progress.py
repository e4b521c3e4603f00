"""Long commands show their progress on a terminal, and nothing when piped."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def stderr_on_a_terminal(*args: str) -> tuple[str, str]:
    """Run ``ggp ARGS`` with standard error on a pseudo-terminal of 100 columns;
    its standard output and what the terminal received."""
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    process = subprocess.Popen(
        [BIN / "ggp", *args], stdout=subprocess.PIPE, stderr=secondary, text=True
    )
    os.close(secondary)
    received = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the command ended and closed the terminal
            break
        if not chunk:
            break
        received += chunk
    out = process.communicate(timeout=300)[0]
    os.close(primary)
    assert process.returncode == 0, out
    return out, received.decode(errors="replace")


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs pseudo-terminals")
def test_bench_and_check_show_their_progress_on_a_terminal() -> None:
    out, terminal = stderr_on_a_terminal("bench", "tictactoe", "--seconds", "0.5", "--runs", "1")
    assert "loading tictactoe..." in terminal
    assert "tictactoe: playouts: 100%" in terminal and "0.5/0.5 s" in terminal
    assert "playouts/s" in out and "%" not in out
    out, terminal = stderr_on_a_terminal("check", "tictactoe", "--playouts", "3")
    assert "loading tictactoe: validating, grounding and compiling its rules..." in terminal
    assert "random playouts: 100%" in terminal and "3/3" in terminal
    assert "3 of 3 played to the end" in out


def test_nothing_but_the_result_when_piped() -> None:
    done = subprocess.run(
        [BIN / "ggp", "bench", "tictactoe", "--seconds", "0.2", "--runs", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == "" and "playouts/s" in done.stdout
