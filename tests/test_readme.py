"""The README stays true: CI runs its test command, and every command it shows is run here.

A command shown in the README (a line of a code block, or an inline example,
that starts with ``ggp``, ``printf``, ``curl`` or ``.venv/bin/ggp``, and is not a
synopsis with placeholders such as ``GAME`` or ``[--seed N]``) must have an entry
in `EXAMPLES`, which runs it in a shell as a user would.  Only what cannot be
taken literally is replaced, each replacement written out with its reason: the
files and addresses the README makes up (``game.kif``, ``http://127.0.0.1:9147``,
a match log's name), and time budgets where the README's would add seconds of
CPU to the suite.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ROOT, SHARED
from fake_players import served_apps
from ggp.player.http_player import PlayerConfig, create_app

README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent
"""The virtual environment's scripts: ``ggp`` as the README's ``.venv/bin/ggp``."""
COMMAND_START = re.compile(r"^(\$ )?(ggp|\.venv/bin/ggp|printf|curl|python3 -m venv) ")
PLACEHOLDER = re.compile(r"\[|\.\.\.|\b[A-Z][A-Z_]+\b")


def test_ci_runs_the_readme_test_command() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    command = next(line for line in ci_lines if "pytest" in line)
    assert command in README


def test_every_command_has_a_readme_section() -> None:
    from ggp.cli import COMMANDS

    for command in COMMANDS:
        assert f"### ggp {command.name}" in README


def test_the_license_file_is_the_one_the_package_declares() -> None:
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "MIT"
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License\n") and "WITHOUT WARRANTY" in license_text


PYTHON_API = README[README.index("\n## Python API\n") :].split("\n## ", 2)[1]
SNIPPETS = re.findall(r"^```python\n(.*?)^```\n\n(.*?)\n\n```\n(.*?)^```", PYTHON_API, re.S | re.M)
"""The Python API section's examples: (code, the words between, the output shown)."""


def test_the_python_api_section_has_its_examples() -> None:
    assert len(SNIPPETS) == PYTHON_API.count("```python") >= 4


@pytest.mark.parametrize(
    ("code", "between", "shown"), SNIPPETS, ids=lambda part: part.split("\n")[0][:40]
)
def test_python_api_example(code: str, between: str, shown: str, tmp_path: Path) -> None:
    shadow_user_modules(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    printed, expected = done.stdout.strip(), shown.strip()
    if "figures vary" in between:  # a search's visits and values: compare the rest
        printed, expected = (re.sub(r"\d+(\.\d+)?", "N", text) for text in (printed, expected))
    assert printed == expected


USER_MODULES = ("player", "server", "games", "gdl", "ggp_helpers")


def shadow_user_modules(folder: Path) -> None:
    """Write a student's own ``player.py``, ``server.py``, ... into `folder`: modules with
    the names of our folders, which must never be imported in place of ours."""
    for name in USER_MODULES:
        (folder / f"{name}.py").write_text(f"raise ImportError('the user\\'s own {name}.py')\n")


def test_the_package_imports_beside_a_users_own_modules(tmp_path: Path) -> None:
    shadow_user_modules(tmp_path)
    code = "import ggp.player.agents, ggp.server.match, ggp.games.registry, ggp.gdl.load, ggp.cli"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ggp",
            "match",
            "tictactoe",
            "random",
            "random",
            "--seed",
            "1",
            "--log-dir",
            "logs",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "xplayer" in done.stdout


def readme_commands() -> dict[str, list[str]]:
    """Every command the README shows, with the output shown after it (if any)."""
    from ggp.cli import COMMANDS

    bare_names = {f"ggp {command.name}" for command in COMMANDS}
    found: dict[str, list[str]] = {}
    for block in re.findall(r"^```\n(.*?)^```", README, re.S | re.M):
        lines = block.splitlines()
        for number, line in enumerate(lines):
            if COMMAND_START.match(line) and not PLACEHOLDER.search(line):
                output = []
                if line.startswith("$ "):  # a session: the output runs to the next prompt
                    for shown in lines[number + 1 :]:
                        if shown.startswith("$ "):
                            break
                        output.append(shown)
                found[line.removeprefix("$ ")] = output
    prose = re.sub(r"^```\n.*?^```", "", README, flags=re.S | re.M)
    for span in re.findall(r"`([^`\n]+)`", prose):
        # `ggp serve` in a sentence names the command.
        if COMMAND_START.match(span) and not PLACEHOLDER.search(span) and span not in bare_names:
            found.setdefault(span, [])
    return found


def shell(
    command: str, cwd: Path, stdin: str = "", timeout: float = 600
) -> subprocess.CompletedProcess:
    """Run `command` with bash in `cwd`, ``ggp`` and ``.venv/bin/ggp`` being this
    environment's; fail with its output if it fails."""
    command = command.replace(".venv/bin/", f"{BIN}/")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


def replaced(command: str, *replacements: tuple[str, str]) -> str:
    for old, new in replacements:
        assert old in command, f"{old!r} is no longer in {command!r}"
        command = command.replace(old, new)
    return command


Example = Callable[[str, list[str], Path], None]
EXAMPLES: dict[str, Example] = {}


def example(*commands: str) -> Callable[[Example], Example]:
    """Register a test of the README commands `commands`."""

    def register(run: Example) -> Example:
        for command in commands:
            EXAMPLES[command] = run
        return run

    return register


def test_every_readme_command_is_run_by_a_test() -> None:
    shown = set(readme_commands())
    assert sorted(shown - set(EXAMPLES)) == [], "README commands no test runs"
    assert sorted(set(EXAMPLES) - shown) == [], "tests of commands the README no longer shows"


# The examples, in the README's order.


@example("ggp --help")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    assert "tournament" in shell(command, tmp_path).stdout


@example("ggp --version")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    assert re.fullmatch(r"ggp \d+\.\d+\.\d+\S*\n", shell(command, tmp_path).stdout)


@example(
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/ggp serve",
    "curl -s -d '(info)' http://localhost:9147/",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # The install is what CI does (.ci/run).  The player listens on a free port here,
    # as 9147 may be taken, and is asked for its info as the README does.
    if command.startswith("curl") and not shutil.which("curl"):
        pytest.skip("curl is not installed")
    with serving(tmp_path) as url:
        if command.startswith("curl"):
            ask = replaced(command, ("http://localhost:9147/", url))
            assert shell(ask, tmp_path).stdout.strip() == "\n".join(output)


@contextlib.contextmanager
def serving(cwd: Path) -> Iterator[str]:
    """Run ``ggp serve`` as the quick start does, on a free port; yield its address,
    then stop it with Ctrl-C and check that it stopped cleanly."""
    process = subprocess.Popen(
        [BIN / "ggp", "serve", "--port", "0"], cwd=cwd, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    try:
        first = process.stderr.readline()
        found = re.search(r"listening on http://[^:]+:(\d+)", first)
        assert found, first
        yield f"http://localhost:{found.group(1)}/"
    finally:
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=60)[1]
    assert process.returncode == 0, first + rest


@example(".venv/bin/ggp play tictactoe", "ggp play connect_four --gdl")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path, stdin="quit\n").stdout
    assert "Your moves" in out and "You left the game." in out


@example("ggp bench connect_four --gdl")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # Half a second of playouts rather than the default 5 s.
    out = shell(command + " --seconds 0.5 --runs 1", tmp_path).stdout
    assert re.match(r"connect_four: [\d,]+ playouts/s", out)


@example("ggp check hex")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path).stdout
    assert out.startswith("hex: valid GDL") and "roles (2): red, blue" in out


@example("printf '5\\n1\\n3\\n1\\n1\\n' | ggp play tictactoe --ai mcts:iterations=1000 --seed 3")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path).stdout
    assert "not a legal move" not in out and "Game over" in out


@example("ggp check ticTacToe.kif --traces ticTacToe.jsonl.gz")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    corpus = SHARED / "gdl-corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/gdl-corpus is absent")
    # The corpus keeps the games and their traces in two folders.
    command = replaced(
        command,
        ("ticTacToe.kif", str(corpus / "games" / "ticTacToe.kif")),
        ("ticTacToe.jsonl.gz", str(corpus / "traces" / "ticTacToe.jsonl.gz")),
    )
    out = [untimed(line) for line in shell(command, tmp_path).stdout.splitlines()]
    shown = [untimed(line) for line in output]
    head, tail = shown[: shown.index("...")], shown[shown.index("...") + 1 :]
    assert out[: len(head)] == head and out[-len(tail) :] == tail


def untimed(line: str) -> str:
    """`line` with its durations (``0.5 s``) blanked: they vary from run to run."""
    return re.sub(r"\b\d+(\.\d+)? s\b", "? s", line)


@example("ggp match tictactoe mcts:iterations=2000 mcts:time=0.5 --show --ranking")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path).stdout
    assert "Result after" in out and "visits" in out


@example("ggp match game.kif http://127.0.0.1:9147 mcts:time=2 --playclock 5")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    (tmp_path / "game.kif").write_text((ROOT / "games" / "gdl" / "tictactoe.kif").read_text())
    with served_apps(create_app(PlayerConfig(iterations=100))) as (url,):
        # 100 simulations a move instead of 2 s of thinking.
        command = replaced(command, ("http://127.0.0.1:9147", url), ("time=2", "iterations=100"))
        out = shell(command, tmp_path).stdout
    assert "Result after" in out and "Errors" not in out


@example(
    "ggp tournament connect_four mcts:iterations=20 mcts:iterations=10 --games 100 --swap "
    "--seed 1 --jobs 2"
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path).stdout
    assert "connect_four: 100 matches, seed 1, seats rotated" in out


@example(
    "ggp tournament game.kif http://127.0.0.1:9147 http://127.0.0.1:9148 --games 20 "
    "--playclock 2 --jobs 4"
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    (tmp_path / "game.kif").write_text((ROOT / "games" / "gdl" / "tictactoe.kif").read_text())
    players = [create_app(PlayerConfig(iterations=50, max_matches=4)) for _ in range(2)]
    with served_apps(*players) as (first, second):
        # 4 matches rather than 20: each starts a search process in each player.
        # A start clock of 60 s: four matches start child processes in two players at
        # once, which under a heavy load takes more than the default 10 s (then `nil`).
        # A play clock of 10 s: the players answer after their 50 simulations, at
        # once on a quiet machine, but at load 12 some took more than 2 s (timeouts).
        command = replaced(
            command,
            ("http://127.0.0.1:9147", first),
            ("http://127.0.0.1:9148", second),
            ("--games 20", "--games 4"),
            ("--playclock 2", "--playclock 10 --startclock 60"),
        )
        out = shell(command, tmp_path).stdout
    assert "game: 4 matches" in out
    assert no_errors(out)


def no_errors(standings: str) -> bool:
    """Whether the standings record no TO, CE or IL error (the last three columns)."""
    table = standings[standings.index("95% CI") :].splitlines()[1:]
    rows = [line.split() for line in table if re.match(r"^\S*\s+\S+\s+\d+\s+\d+", line)]
    return bool(rows) and all(row[-3:] == ["0", "0", "0"] for row in rows)


@example(
    "ggp tournament tictactoe mcts:iterations=16 mcts:iterations=4 legal random --games 48 "
    "--swap --seed 1 --plot ratings.png"
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need the extra 'plot' (matplotlib)")
    # 12 matches rather than 48: each ordering of the four players once.
    out = shell(replaced(command, ("--games 48", "--games 12")), tmp_path).stdout
    assert "rating" in out.lower()
    assert (tmp_path / "ratings.png").stat().st_size > 0


@example(
    "ggp study connect_four --agent mcts:iterations=100 --vary c=0.1,0.25,0.5,1.0,1.4,2.0 "
    "--against c=1.4 --games 200 --swap --seed 1 --out exploration --jobs 2",
    "ggp study connect_four --vary iterations=8,64,512 --against mcts:iterations=64 "
    "--games 100 --swap --seed 1 --out rollouts --jobs 2",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # Two values, two matches each and a few simulations a move: the classroom
    # experiments take minutes.
    shortened = replaced(
        command,
        *[
            (old, new)
            for old, new in (
                ("mcts:iterations=100", "mcts:iterations=10"),
                ("c=0.1,0.25,0.5,1.0,1.4,2.0", "c=0.5,1.4"),
                ("iterations=8,64,512", "iterations=4,8"),
                ("mcts:iterations=64", "mcts:iterations=8"),
            )
            if old in command
        ],
        (re.search(r"--games \d+", command).group(), "--games 2"),  # type: ignore[union-attr]
    )
    shell(shortened, tmp_path)
    folder = tmp_path / command.split("--out ")[1].split()[0]
    assert (folder / "summary.csv").is_file() and (folder / "results.json").is_file()


@example(
    "ggp study connect_four --agent mcts:iterations=50 --vary c=0.5,1.4 --against c=1.0 "
    "--games 20 --swap --seed 1 --out c-study --ray 127.0.0.1:6379"
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (extra 'cluster')")
    # A local Ray instance rather than the two `ray start` nodes of the README.
    shortened = replaced(
        command,
        ("--ray 127.0.0.1:6379", "--ray auto --jobs 2"),
        ("--games 20", "--games 2"),
        ("mcts:iterations=50", "mcts:iterations=10"),
    )
    shell(shortened, tmp_path)
    assert (tmp_path / "c-study" / "summary.csv").is_file()


@example("ggp replay match_logs/tictactoe.20260101T120000.a1b2c3.json")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    shell("ggp match tictactoe random random --seed 1", tmp_path)
    (log,) = (tmp_path / "match_logs").glob("tictactoe.*.json")
    command = replaced(command, ("tictactoe.20260101T120000.a1b2c3.json", log.name))
    assert "Result" in shell(command, tmp_path).stdout


# After every `example`, so that all are registered.
@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=lambda command: command[:100])
def test_readme_command(command: str, tmp_path: Path) -> None:
    EXAMPLES[command](command, readme_commands().get(command, []), tmp_path)
