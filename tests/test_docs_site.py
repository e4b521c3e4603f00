"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors, and its
generated command reference has every command.

The build needs the extra ``docs`` (MkDocs, Material, mkdocstrings), which .ci/run
installs; without it that test skips.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT
from ggp.cli import COMMANDS

DOCS = ROOT / "docs"
CONFIG = (ROOT / "mkdocs.yml").read_text()


def load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cli_reference", DOCS / "hooks" / "cli_reference.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_command_reference_has_every_command_with_its_options() -> None:
    reference = load_hook().command_reference()
    for command in COMMANDS:
        assert f"\n## ggp {command.name}\n" in reference
        assert f"usage: ggp {command.name} [-h]" in reference
    assert "--max-nodes N" in reference and "--traces FILE" in reference


def test_the_commands_page_holds_the_generated_reference() -> None:
    assert load_hook().MARKER in (DOCS / "commands.md").read_text()


def test_every_page_is_in_the_nav() -> None:
    """A page left out of the nav would be built but reachable from nowhere (and is a
    warning, so an error, in the strict build that CI runs)."""
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    in_nav = set(re.findall(r"^\s*- (?:.*: )?(\S+\.md)$", CONFIG, re.M))
    assert sorted(pages - in_nav) == [], "docs pages missing from the nav of mkdocs.yml"
    assert sorted(in_nav - pages) == [], "nav entries of mkdocs.yml without a page"


def test_the_readme_stays_a_front_page() -> None:
    """The README is the front page (what it is, the quick start, the links): what more
    there is to say goes into a page of the site."""
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("MkDocs is not installed (the extra 'docs': pip install -e '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    commands = (site / "commands" / "index.html").read_text()
    for command in COMMANDS:
        assert f'id="ggp-{command.name}"' in commands
    assert (site / "index.html").is_file()
