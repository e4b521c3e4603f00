"""Control characters from the network are escaped in the log (`ggp.player.service.logs`)."""

from __future__ import annotations

import logging
import sys

from ggp.player.service.logs import EscapingFormatter, escape_controls


def test_control_characters_are_written_escaped() -> None:
    assert escape_controls("m\x1b[31m\x07\r\nx\x7f\x9b") == "m\\x1b[31m\\x07\\x0d\\x0ax\\x7f\\x9b"
    assert escape_controls("a\nb\tc", keep_newlines=True) == "a\nb\\x09c"
    assert escape_controls("(mark 1 1) é") == "(mark 1 1) é"


def test_the_formatter_escapes_messages_and_keeps_traceback_lines() -> None:
    formatter = EscapingFormatter("%(levelname)s %(message)s")
    try:
        raise ValueError("bad\x1b")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, "f", 1, "got %s", ("a\nb",), sys.exc_info())
    text = formatter.format(record)
    first, *rest = text.split("\n")
    assert first == "ERROR got a\\x0ab"
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: bad\\x1b"
