"""MkDocs hook: the command reference, written at build time from the CLI's own parsers.

A page holding the line ``<!-- ggp commands -->`` gets in its place ``ggp --help`` and,
for every command of `ggp.cli.COMMANDS`, a section with its summary and what
``ggp COMMAND --help`` prints, so the reference cannot fall behind the options.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator

MARKER = "<!-- ggp commands -->"
COLUMNS = 88
"""The width the help is wrapped to (argparse reads it from $COLUMNS)."""


def on_page_markdown(markdown: str, **_: object) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, command_reference())


def command_reference() -> str:
    from ggp.cli import COMMANDS

    sections = ["```\n" + help_text([]) + "```\n"]
    for command in COMMANDS:
        sections.append(
            f"## ggp {command.name}\n\n{command.summary[0].upper()}{command.summary[1:]}.\n\n"
            f"```\n{help_text([command.name])}```\n"
        )
    return "\n".join(sections)


def help_text(argv: list[str]) -> str:
    """What ``ggp ARGV --help`` prints."""
    from ggp.cli import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), columns(COLUMNS), contextlib.suppress(SystemExit):
        main([*argv, "--help"])
    return printed.getvalue()


@contextlib.contextmanager
def columns(width: int) -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
