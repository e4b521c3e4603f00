"""No import circles in ggp.player and ggp.server (benchmarks/import_graph.py, from the source)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from import_graph import cycles, import_graph, main  # noqa: E402


@pytest.mark.parametrize("folder", ["player", "server"])
def test_no_import_cycle(folder: str) -> None:
    assert cycles(import_graph(ROOT / folder)) == []


def test_the_search_tree_imports_no_part_of_the_search() -> None:
    graph = import_graph(ROOT / "player")
    assert graph["ggp.player.search.tree"] == set()
    for part in ("solver", "rave", "mast", "imm", "shallow", "state_table", "evaluation"):
        assert "ggp.player.search.mcts" not in graph[f"ggp.player.search.{part}"]


def test_a_circle_is_found_through_type_checking_and_relative_imports(tmp_path, capsys) -> None:
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
    graph = import_graph(package)
    assert graph["ggp.pkg.sub.b"] == {"ggp.pkg", "ggp.pkg.c"}
    assert cycles(graph) == [["ggp.pkg.a", "ggp.pkg.c", "ggp.pkg.sub.b"]]
    assert main([str(package)]) == 1
    assert "cycle: a <-> c <-> sub.b" in capsys.readouterr().out
