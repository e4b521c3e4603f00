"""gdl/ is a pipeline of layers: each imports only the layers before it."""

from __future__ import annotations

import ast
from pathlib import Path

import ggp.gdl as gdl

LAYERS = ("syntax", "interpreter", "network", "compiled", "native")
"""In pipeline order; `ggp.gdl.load` and `ggp.gdl.traces` above them may import any."""

GDL_DIR = Path(gdl.__file__).parent


def imported_layers(path: Path) -> set[str]:
    """The gdl subpackages a module imports (by absolute `gdl.` imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found |= {name.split(".")[2] for name in names if name.startswith("ggp.gdl.")}
    return found


def test_every_layer_imports_only_the_layers_below_it() -> None:
    for rank, layer in enumerate(LAYERS):
        modules = sorted((GDL_DIR / layer).glob("*.py"))
        assert modules, layer
        for module in modules:
            allowed = set(LAYERS[: rank + 1])
            assert imported_layers(module) <= allowed, f"{module.name} in {layer}"
