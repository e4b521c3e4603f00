"""MkDocs hook: a tree of the package as it is imported, for the API reference.

`ggp` is assembled from several folders by setuptools' package-dir mapping
(pyproject.toml: ``ggp`` is cli/, ``ggp.gdl`` is gdl/, ...), which mkdocstrings'
reader (griffe) cannot follow: it looks for ``ggp/gdl/`` inside cli/. Before the build,
this writes ``build/api-sources/ggp/`` of symbolic links laid out as the package is
imported, and mkdocs.yml points mkdocstrings there.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "api-sources"


def on_startup(**_: object) -> None:
    write_tree()


def write_tree() -> Path:
    """Lay out `TREE` from pyproject.toml's package-dir mapping; return it."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"
    ]
    shutil.rmtree(TREE, ignore_errors=True)
    top = TREE / "ggp"
    top.mkdir(parents=True)
    for child in (ROOT / mapping["ggp"]).iterdir():
        if child.name != "__pycache__":
            (top / child.name).symlink_to(child)
    for package, folder in mapping.items():
        if package != "ggp":
            (TREE / package.replace(".", "/")).symlink_to(ROOT / folder)
    return TREE
