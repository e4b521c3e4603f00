"""The ``ggp`` command line itself: a quick --help, --version, every command's help."""

import importlib.metadata
import subprocess
import sys

import pytest
from ggp.cli import COMMANDS, main

HEAVY_MODULES = ("aiohttp", "lark", "ggp.gdl", "ggp.player", "ggp.server", "ggp.commands")


def test_ggp_help_lists_every_command_without_importing_any() -> None:
    # In a fresh interpreter, so that nothing imported by other tests counts.
    script = (
        "import sys\n"
        "from ggp.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('IMPORTED', *sorted(sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    help_text, imported = out.split("IMPORTED")
    words = " ".join(help_text.split())  # as argparse wraps it
    for command in COMMANDS:
        assert f" {command.name} {command.summary}" in words
    heavy = [
        name
        for name in imported.split()
        if any(name == prefix or name.startswith(prefix + ".") for prefix in HEAVY_MODULES)
    ]
    assert heavy == []


def test_ggp_version_prints_the_installed_version(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"ggp {importlib.metadata.version('ggp-player')}\n"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.name)
def test_every_command_explains_its_options(command, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command.name, "--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: ggp {command.name} ")
