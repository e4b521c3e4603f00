"""CPU seconds of a process and of the processes it started, read from Linux's /proc.

Two players on one machine think with the share of its cores that the scheduler gives
each: a score against an opponent beside us is read with how much CPU each side had
(`benchmarks/strength.py` records both over every match).  A process's own figure is
its user and system time, all threads together, plus the time of the children it has
waited for (``cutime``, ``cstime``), so a worker that ended and was reaped still
counts; its live descendants are added one by one.  A descendant that left its parent
(re-parented to init) is not followed.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""The unit of /proc's CPU times, per second."""


def _parent_and_seconds(stat: str) -> tuple[int, float]:
    """The parent's pid and the CPU seconds (own and reaped children's) of one
    /proc/PID/stat line; the command's name, in parentheses, may hold spaces."""
    fields = stat.rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3 of proc(5)), so field n is fields[n - 3].
    utime, stime, cutime, cstime = (int(value) for value in fields[11:15])
    return int(fields[1]), (utime + stime + cutime + cstime) / CLOCK_TICKS


def _processes() -> dict[int, tuple[int, float]] | None:
    """Per live process: its parent and its CPU seconds; None without /proc."""
    try:
        entries = [entry for entry in PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return None
    processes = {}
    for entry in entries:
        try:
            processes[int(entry.name)] = _parent_and_seconds((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):  # ended meanwhile, or unreadable
            continue
    return processes


def _tree_seconds(processes: dict[int, tuple[int, float]], pid: int) -> float:
    """The CPU seconds of `pid` and its live descendants among `processes`."""
    children: dict[int, list[int]] = defaultdict(list)
    for child, (parent, _) in processes.items():
        children[parent].append(child)
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        total += processes[current][1]
        stack.extend(children[current])
    return total


def tree_cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of process `pid`, of the children it waited for and
    of its live descendants; None where /proc does not have the process."""
    return side_cpu_seconds([pid])


def side_cpu_seconds(pids: Iterable[int]) -> float | None:
    """The CPU seconds of the trees of all `pids` together, from one reading of /proc;
    None if there are none or one is not found."""
    pids = list(pids)
    processes = _processes()
    if not pids or processes is None or any(pid not in processes for pid in pids):
        return None
    return sum(_tree_seconds(processes, pid) for pid in pids)
