"""Progress shown on a terminal while a long command works (nothing when piped)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def status(text: str) -> Iterator[None]:
    """Show `text` on standard error while the block runs, then erase it: for a step
    that may take a while and has no measure of its progress (loading large rules)."""
    shown = sys.stderr.isatty()
    if shown:
        sys.stderr.write(f"{text}...")
        sys.stderr.flush()
    try:
        yield
    finally:
        if shown:
            sys.stderr.write("\r\033[K")  # back to the line's start, and clear it
            sys.stderr.flush()
