"""Issue 32, "say what runs": one warning line when native code cannot be built (its
reason and fix), per-CPU-second figures, and the reasoner that ran named by every tool."""

from __future__ import annotations

import io
import logging
import re
import shutil
from pathlib import Path

import pytest
from ggp.cli import main
from ggp.commands import arena, serve
from ggp.gdl.native import build
from ggp.native_notice import probe_warning
from test_gdl_game import RACE

HAS_COMPILER = shutil.which("cc") is not None
needs_compiler = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler (cc)")


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty library cache: each test builds (or fails to build) its own code."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))


@pytest.fixture
def no_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """CC names a program that is not there (as on a machine without gcc)."""
    missing = str(tmp_path / "no-such-cc")
    monkeypatch.setenv(build.COMPILER_ENV, missing)
    return missing


def race_file(tmp_path: Path) -> str:
    path = tmp_path / "race.kif"
    path.write_text(RACE)
    return str(path)


def test_the_warning_gives_the_reason_and_the_fix(no_compiler: str, monkeypatch) -> None:
    monkeypatch.setattr(
        build.shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None
    )
    warning = probe_warning()
    assert warning == (
        f"no native code for GDL rules (no C compiler ({no_compiler!r} is not on the PATH)): "
        "they run on generated Python, 5 to 17 times fewer simulations; fix: apt-get install "
        "gcc (or set CC to a working C compiler)"
    )


def test_a_compiler_that_fails_is_found_by_the_probe(monkeypatch) -> None:
    false = shutil.which("false")
    if false is None:
        pytest.skip("no false program")
    monkeypatch.setenv(build.COMPILER_ENV, false)
    warning = probe_warning()
    assert warning is not None and "(the C compiler failed (1): no message)" in warning
    assert "; fix: " in warning


@needs_compiler
def test_no_warning_where_native_code_builds() -> None:
    assert probe_warning() is None


@pytest.mark.parametrize("command", [serve, arena], ids=["serve", "arena"])
def test_serve_and_arena_warn_once_at_start(
    command, no_compiler: str, monkeypatch, caplog, tmp_path: Path
) -> None:
    def listening(make_app, host, port, announce, *rest, **options) -> None:
        announce([("127.0.0.1", 9147)])  # as if it listened there, and stopped

    monkeypatch.setattr(command, "serve_until_signal", listening)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.INFO):
        assert main([command.__name__.rsplit(".", 1)[1], "--port", "0"]) == 0
    messages = [r.getMessage() for r in caplog.records]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith("no native code for GDL rules (no C ")
    assert "listening on" in messages[0] or "arena at" in messages[0]  # what tools read first


def test_bench_warns_and_names_the_python_that_ran(no_compiler: str, tmp_path, capsys) -> None:
    assert main(["bench", race_file(tmp_path), "--seconds", "0.2", "--runs", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("warning: no native code for GDL rules (no C compiler") == 1
    assert re.match(
        r"race: [\d,]+ playouts/s, [\d,]+ states/s by the wall clock, [\d,]+ states per "
        r"CPU-second \(median of 1 runs; compiled \(generated Python; no native code: no C "
        r"compiler",
        captured.out,
    )


@needs_compiler
def test_bench_measures_native_code_by_default(tmp_path, capsys) -> None:
    assert main(["bench", race_file(tmp_path), "--seconds", "0.2", "--runs", "1"]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    assert "states per CPU-second (median of 1 runs; native code, ready in " in captured.out
    assert main(["bench", race_file(tmp_path), "--seconds", "0.4", "--runs", "1", "--mcts"]) == 0
    assert re.search(r"[\d,]+ simulations per CPU-second\), ", capsys.readouterr().out)


@needs_compiler
def test_check_replays_on_native_code_when_asked(tmp_path, capsys) -> None:
    assert main(["check", race_file(tmp_path), "--reasoner", "native"]) == 0
    assert "\nreasoner: native code (" in capsys.readouterr().out
    assert main(["check", race_file(tmp_path)]) == 0
    assert "\nreasoner: compiled (" in capsys.readouterr().out


def test_check_says_why_native_code_did_not_run(no_compiler: str, tmp_path, capsys) -> None:
    assert main(["check", race_file(tmp_path), "--reasoner", "native"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\nreasoner: compiled \(.*; no native code: no C compiler", out, re.S)


def test_match_and_play_name_the_reasoner_of_a_gdl_game(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["match", race_file(tmp_path), "random", "random", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("reasoner: compiled (generated Python)\n")
    assert main(["match", "tictactoe", "random", "random", "--seed", "1"]) == 0
    assert "reasoner" not in capsys.readouterr().out  # a built-in game: no GDL reasoner
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", race_file(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("reasoner: compiled (generated Python)\n")
