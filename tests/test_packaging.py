"""pyproject.toml lists every package by hand (the folders map onto `ggp.*` by
package-dir): a new folder left out of the list would be missing from a normal install."""

from __future__ import annotations

import tomllib

from conftest import ROOT


def test_every_package_folder_is_listed_in_pyproject() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = set()
    for name, folder in setuptools["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    assert found, "no package found: the package-dir mapping no longer matches the folders"
    assert listed == found
