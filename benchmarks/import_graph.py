"""The import graph of a package folder, read from the source (no code is run), and its cycles.

    python benchmarks/import_graph.py player        # edges and cycles of ggp.player
    python benchmarks/import_graph.py server --mermaid

Every `import` and `from ... import` counts, those under ``if TYPE_CHECKING:`` and
inside functions too: a circle is a circle to a reader even where Python tolerates it.
Modules are named under `ggp` as the package-dir mapping of pyproject.toml names
them (player/search/mcts.py is ggp.player.search.mcts); only imports of modules
inside the folder are edges.  Exits 1 when there is a cycle.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_names(folder: Path) -> dict[str, Path]:
    """Each Python file under `folder` by its module name (`ggp.<folder>.<...>`)."""
    names = {}
    for path in sorted(folder.rglob("*.py")):
        parts = [folder.name, *path.relative_to(folder).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(["ggp", *parts])] = path
    return names


def imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The names `tree` (the source of `module`) imports, as absolute dotted names;
    `from p import x` gives both `p` and `p.x` (x may be a module)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base]) if base else ".".join(package)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Each module of `folder` to the modules of `folder` it imports (a package's
    `__init__` counts as the package)."""
    names = module_names(folder)
    graph = {}
    for module, path in names.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        targets = imported(tree, module, path.name == "__init__.py")
        graph[module] = {name for name in targets if name in names and name != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm), each sorted: every import cycle lies within one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def mermaid(graph: dict[str, set[str]], prefix: str) -> str:
    """The graph as a Mermaid flowchart, module names without `prefix`."""

    def node(module: str) -> str:
        name = module.removeprefix(prefix)
        return f'{name.replace(".", "_")}["{name}"]'

    lines = ["flowchart LR"]
    for module in sorted(graph):
        for target in sorted(graph[module]):
            lines.append(f"    {node(module)} --> {node(target)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a package folder of the repository: player, server...")
    parser.add_argument("--mermaid", action="store_true", help="print a Mermaid flowchart")
    args = parser.parse_args(argv)
    folder = ROOT / args.folder
    graph = import_graph(folder)
    prefix = f"ggp.{folder.name}."
    if args.mermaid:
        print(mermaid(graph, prefix))
    else:
        for module in sorted(graph):
            targets = ", ".join(sorted(t.removeprefix(prefix) for t in graph[module]))
            print(f"{module.removeprefix(prefix) or module}: {targets or '-'}")
    found = cycles(graph)
    for component in found:
        print("cycle:", " <-> ".join(m.removeprefix(prefix) for m in component))
    if not found:
        print("no cycle")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
