"""The one warning line of ``ggp serve``, ``ggp arena`` and ``ggp bench`` when native
code cannot be built here: GDL games are then played on generated Python, with 5 to 17
times fewer simulations a move (docs/native-reasoner.md), and that must not pass unseen."""

from __future__ import annotations

from ggp.gdl.native.build import NativeUnavailable, probe


def native_warning(problem: BaseException) -> str:
    """The warning, without a "warning:" prefix, for `problem` (why there is no native
    code), with its fix if known."""
    fix = getattr(problem, "fix", "")
    return (
        f"no native code for GDL rules ({problem}): they run on generated Python, "
        f"5 to 17 times fewer simulations{f'; fix: {fix}' if fix else ''}"
    )


def probe_warning() -> str | None:
    """The warning if native code cannot be built here (a test build); None if it can."""
    try:
        probe()
    except NativeUnavailable as problem:
        return native_warning(problem)
    return None
