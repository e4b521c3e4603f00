"""The README's quick start stays true: CI runs exactly its test command."""

from conftest import ROOT


def test_ci_runs_the_readme_test_command() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    command = next(line for line in ci_lines if "pytest" in line)
    assert command in (ROOT / "README.md").read_text()


def test_every_command_has_a_readme_section() -> None:
    from ggp.cli import COMMANDS

    readme = (ROOT / "README.md").read_text()
    for command in COMMANDS:
        assert f"### ggp {command.name}" in readme
