"""The errors of a game description that cannot be used as it is."""

from __future__ import annotations

from collections.abc import Sequence

from ggp.games.base import GameError


class GdlError(GameError):
    """A game description that cannot be read or used."""


class GdlSyntaxError(GdlError):
    """Text that is not well-formed KIF/GDL; says where and what was expected."""

    def __init__(self, message: str, line: int = 0, column: int = 0, source: str = "") -> None:
        self.line = line
        self.column = column
        self.reason = message
        self.source = source
        where = f"line {line}, column {column}: " if line else ""
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}{where}{message}")

    def in_source(self, source: str) -> GdlSyntaxError:
        """The same error, naming the file (or other source) it was found in."""
        return GdlSyntaxError(self.reason, self.line, self.column, source)


class GdlValidationError(GdlError):
    """A description that breaks GDL's restrictions; `faults` lists every one."""

    def __init__(self, faults: Sequence[str], source: str = "") -> None:
        self.faults = tuple(faults)
        self.source = source
        what = f"{source}: " if source else ""
        count = f"{len(self.faults)} faults" if len(self.faults) != 1 else "1 fault"
        listing = "\n".join(f"  - {fault}" for fault in self.faults)
        super().__init__(f"{what}not a valid GDL game description ({count}):\n{listing}")
