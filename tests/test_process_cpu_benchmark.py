"""benchmarks/process_cpu.py: the CPU seconds of a process and of those it started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import process_cpu  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")

BURN = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time\\n"
    "while time.process_time() < {child}: pass\\n"
    "print('burnt', flush=True)\\n"
    "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print('child burnt', flush=True)
{after}
sys.stdin.readline()
"""


def run_parent(child_seconds: float, after: str) -> subprocess.Popen:
    """A process that starts a child burning `child_seconds` of CPU, says so once the
    child has, runs `after`, and waits for a line on its stdin."""
    source = BURN.format(child=child_seconds, after=after)
    parent = subprocess.Popen(
        [sys.executable, "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout.readline().strip() == "child burnt"
    return parent


def test_a_live_child_counts_with_its_parent():
    parent = run_parent(0.4, "")
    try:
        (child,) = [
            pid for pid, (ppid, _) in process_cpu._processes().items() if ppid == parent.pid
        ]
        assert process_cpu.tree_cpu_seconds(child) >= 0.35
        # the parent itself may have used no whole clock tick: its tree holds the child's
        assert process_cpu.tree_cpu_seconds(parent.pid) >= 0.35
        assert process_cpu.tree_cpu_seconds(parent.pid) >= process_cpu.tree_cpu_seconds(child)
    finally:
        parent.communicate("\n")


def test_a_child_that_ended_and_was_waited_for_still_counts():
    parent = run_parent(0.4, "child.kill(); child.wait(); print('reaped', flush=True)")
    try:
        assert parent.stdout.readline().strip() == "reaped"
        assert not [p for p, (ppid, _) in process_cpu._processes().items() if ppid == parent.pid]
        assert process_cpu.tree_cpu_seconds(parent.pid) >= 0.35
    finally:
        parent.communicate("\n")


def test_a_process_that_is_not_there_has_no_figure():
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert process_cpu.tree_cpu_seconds(ended.pid) is None
    assert process_cpu.side_cpu_seconds([ended.pid]) is None
    assert process_cpu.side_cpu_seconds([]) is None


def test_a_command_name_with_spaces_and_parentheses_is_read():
    stat = "42 (a (b) c) S 7 42 42 0 -1 4194304 100 0 0 0 250 50 10 20 20 0 1 0 99 0 0"
    parent, seconds = process_cpu._parent_and_seconds(stat)
    assert parent == 7
    assert seconds == pytest.approx((250 + 50 + 10 + 20) / process_cpu.CLOCK_TICKS)
