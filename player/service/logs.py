"""Log text that comes from the network: control characters are shown escaped.

A match id, a move or a message can hold any character; written raw, an
escape sequence would drive the terminal showing the log and a newline would
forge a log line.  `EscapingFormatter` is the formatter of ``ggp serve``'s
log; `escape_controls` is for text that is logged in parts.
"""

from __future__ import annotations

import logging
import re

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str, keep_newlines: bool = False) -> str:
    """`text` with each control character written ``\\xNN`` (newlines kept if asked)."""
    pattern = _CONTROLS_BUT_NEWLINE if keep_newlines else _CONTROLS
    return pattern.sub(_escaped, text)


class EscapingFormatter(logging.Formatter):
    """A formatter whose messages have their control characters escaped; a traceback
    keeps its lines but has the other control characters escaped too."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        return escape_controls(super().formatMessage(record))

    def formatException(self, ei) -> str:  # noqa: ANN001, N802 (logging's signature)
        return escape_controls(super().formatException(ei), keep_newlines=True)
