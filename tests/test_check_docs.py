"""docs/check.md stays true: its games are checked and benched, and the output shown is
the output printed (times and measured rates aside)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from ggp.cli import main
from ggp.gdl.native import build

PAGE = (ROOT / "docs" / "check.md").read_text()
GAMES = re.findall(r"^```lisp\n(.*?)^```", PAGE, re.S | re.M)
EXAMPLES = re.findall(r"^```console\n\$ (.*?)\n(.*?)^```", PAGE, re.S | re.M)
FILES = ("nim.kif", "endless.kif")
"""The files the examples name, in the order the page gives their games."""


def normalised(text: str, rates: bool = False) -> str:
    """`text` without what varies from run to run: seconds, and measured rates if asked."""
    text = re.sub(r"\d+\.\d+ s\b", "N s", text)
    return re.sub(r"\d[\d,.]*", "N", text) if rates else text


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert len(GAMES) == len(FILES)
    for name, text in zip(FILES, GAMES, strict=True):
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path


def test_the_page_has_its_examples() -> None:
    commands = [command for command, _ in EXAMPLES]
    assert commands == [
        "ggp check nim.kif",
        "ggp check endless.kif",
        "CC=no-such-cc ggp bench nim.kif",
        "ggp bench connect_four --gdl --seconds 1 --runs 2",
    ]


@pytest.mark.parametrize(("command", "shown"), EXAMPLES[:2], ids=FILES)
def test_check_examples(command: str, shown: str, games: Path, monkeypatch, capsys) -> None:
    status = main(shlex.split(command)[1:])
    assert status == (0 if command.endswith("nim.kif") else 1)
    assert normalised(capsys.readouterr().out) == normalised(shown)


def test_the_warning_without_a_compiler(games: Path, monkeypatch, capsys) -> None:
    command, shown = EXAMPLES[2]
    name, _, rest = command.partition(" ")
    monkeypatch.setenv(*name.split("="))
    # The fix names the package manager found; the page shows apt-get's.
    monkeypatch.setattr(
        build.shutil, "which", lambda tool: "/usr/bin/apt-get" if tool == "apt-get" else None
    )
    assert main([*shlex.split(rest)[1:], "--seconds", "0.2", "--runs", "1"]) == 0
    assert capsys.readouterr().err == shown


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_the_bench_example(games: Path, capsys) -> None:
    command, shown = EXAMPLES[3]
    assert main(shlex.split(command)[1:]) == 0
    assert normalised(capsys.readouterr().out, rates=True) == normalised(shown, rates=True)
