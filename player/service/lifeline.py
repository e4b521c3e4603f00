"""What the server's child processes do to end with it and stay within their limits.

Each child (a match's search worker, the server's own copy of its game) calls
`watch_parent` first: if the server dies, even by SIGKILL, the child notices
within `PARENT_POLL` seconds and exits, instead of searching or grounding on
as an orphan.  The limits are `resource` limits of the child itself, so the
kernel enforces them whatever the child is doing: address space (an
allocation beyond it raises `MemoryError`), no core files, and CPU seconds
(past the soft limit the kernel ends the process with SIGXCPU).
"""

from __future__ import annotations

import math
import os
import resource
import threading
import time

PARENT_POLL = 0.2
"""Seconds between two looks at whether the parent is still there."""

ORPHANED = 3
"""The exit status of a child whose parent has died."""


def watch_parent() -> None:
    """Exit this process (status `ORPHANED`) as soon as its parent process ends."""
    parent = os.getppid()
    if parent == 1:  # the parent died before we could look
        os._exit(ORPHANED)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def limit_memory(limit: int, pid: int = 0) -> None:
    """At most `limit` bytes of address space and no core file, for this process
    (`pid` 0) or for the child `pid` (Linux only; elsewhere the child is unlimited)."""
    if pid == 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    elif hasattr(resource, "prlimit"):
        resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))


def limit_cpu(seconds: float) -> None:
    """End this process if it uses more than `seconds` more CPU seconds from now.

    Only the soft limit is set, so a later call can extend it again.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
