"""No import circles in ggp.player and ggp.server (benchmarks/import_graph.py, from the source).

The script runs in a process of its own: CPython 3.11's parser can fail with
"AST constructor recursion depth mismatch" in a process where a RecursionError
was caught before (the hostile-rules tests catch some).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "import_graph.py"


def graph_of(folder: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), str(folder)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def edges(printed: str) -> dict[str, set[str]]:
    """The script's listing read back: each module to the modules it imports."""
    found = {}
    for line in printed.splitlines():
        module, sep, targets = line.partition(": ")
        if sep and not line.startswith("cycle:"):
            found[module] = set() if targets == "-" else set(targets.split(", "))
    return found


@pytest.mark.parametrize("folder", ["player", "server"])
def test_no_import_cycle(folder: str) -> None:
    done = graph_of(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("no cycle\n")


def test_the_search_tree_imports_no_part_of_the_search() -> None:
    graph = edges(graph_of("player").stdout)
    assert graph["search.tree"] == set()
    for part in ("solver", "rave", "mast", "imm", "shallow", "state_table", "evaluation"):
        assert "search.mcts" not in graph[f"search.{part}"]


def test_a_circle_is_found_through_type_checking_and_relative_imports(tmp_path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from ggp.pkg.sub import b\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import c\n"
    )
    (package / "c.py").write_text("def f():\n    import ggp.pkg.a\n")
    (package / "d.py").write_text("import ggp.pkg.c\n")
    done = graph_of(package)
    assert done.returncode == 1
    assert edges(done.stdout)["sub.b"] == {"ggp.pkg", "c"}
    assert edges(done.stdout)["d"] == {"c"}
    assert done.stdout.splitlines()[-1] == "cycle: a <-> c <-> sub.b"


def test_the_architecture_page_shows_the_graph_the_script_prints() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert "`python benchmarks/import_graph.py player`" in page
    printed = graph_of("player").stdout
    assert f"```text\n{printed}```" in page, "regenerate the graph in docs/architecture.md"
