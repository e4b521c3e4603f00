"""benchmarks/serve_search_speed.py: a version's rate is measured in a process
of its own, on the code of the checkout it is given."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ggp.games.registry import GDL_DIR

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "serve_search_speed.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), str(GDL_DIR / "tictactoe.kif"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)


def test_both_versions_are_measured_and_compared() -> None:
    done = run("--baseline", str(ROOT), "--rounds", "1", "--iterations", "300")
    assert done.returncode == 0, done.stderr
    rounds = [line for line in done.stdout.splitlines() if "round 1" in line]
    assert [line.split(",")[1].split(":")[0].strip() for line in rounds] == ["baseline", "this"]
    summary = next(line for line in done.stdout.splitlines() if "median of 1 rounds" in line)
    assert "baseline" in summary and "(x" in summary


def test_a_checkout_without_the_code_is_an_error(tmp_path) -> None:
    done = run("--baseline", str(tmp_path), "--rounds", "1", "--iterations", "50")
    assert done.returncode != 0
    assert f"{tmp_path} is not a checkout of this project" in done.stderr


def test_the_baseline_imports_its_own_code(tmp_path) -> None:
    """`import ggp` finds the other checkout's folders, laid out as its pyproject maps
    them, ahead of the installed package (which maps onto this checkout)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from serve_search_speed import import_root
    finally:
        sys.path.remove(str(SCRIPT.parent))
    other = tmp_path / "other"
    other.mkdir()
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("cli", "gdl", "games", "player", "server"):
        shutil.copytree(ROOT / folder, other / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", other)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    root = import_root(other, scratch)
    code = "import pathlib, ggp.gdl, ggp.player; print(pathlib.Path(ggp.player.__file__).resolve())"
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert Path(done.stdout.strip()) == other / "player" / "__init__.py"
