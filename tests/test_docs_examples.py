"""The documentation stays true: CI runs the README's test command, and every command
and Python example shown in the README or in a page of the site (docs/) is run here.

A command shown (a line of a code block, or an inline example, that starts with
``ggp``, ``printf``, ``curl``, ``python3 -m venv`` or ``.venv/bin/ggp``, and is not a
synopsis with placeholders such as ``GAME`` or ``[--seed N]``) must have an entry in
`EXAMPLES`, which runs it in a shell as a user would.  Only what cannot be taken
literally is replaced, each replacement written out with its reason: the files and
addresses the pages make up (``game.kif``, ``http://127.0.0.1:9147``, a match log's
name), and budgets (matches, seconds, simulations) where the pages' would add
minutes of CPU to the suite.  Every ``python`` block is followed by the words
"prints" and the output it prints, which the test compares.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ROOT, SHARED
from fake_players import served_apps
from ggp.player.service.http_player import PlayerConfig, create_app

DOCS = ROOT / "docs"
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text()
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
}
"""Every page of the documentation, by its path: the README and the site's pages."""
README = PAGES["README.md"]
BIN = Path(sys.executable).parent
"""The virtual environment's scripts: ``ggp`` as the pages' ``.venv/bin/ggp``."""
COMMAND_START = re.compile(r"^(\$ )?(ggp|\.venv/bin/ggp|printf|curl|python3 -m venv) ")
PLACEHOLDER = re.compile(r"\[|\.\.\.|\b[A-Z][A-Z_]+\b")


def test_ci_runs_the_readme_test_command() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    command = next(line for line in ci_lines if "pytest" in line)
    assert command == ci_lines[-1]
    assert f"\n{command}\n" in README


def test_every_command_has_an_example() -> None:
    from ggp.cli import COMMANDS

    shown = shown_commands()
    for command in COMMANDS:
        assert any(re.search(rf"(^|[ /])ggp {command.name}\b", line) for line in shown), command


def test_the_license_file_is_the_one_the_package_declares() -> None:
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "MIT"
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License\n") and "WITHOUT WARRANTY" in license_text


SNIPPET = re.compile(r"^```python\n(.*?)^```\n\n(.*?)\n\n```\n(.*?)^```", re.S | re.M)
SNIPPETS = [(page, *found) for page, text in PAGES.items() for found in SNIPPET.findall(text)]
"""The Python examples: (page, code, the words between, the output shown)."""


def test_every_python_example_shows_what_it_prints() -> None:
    blocks = sum(text.count("```python") for text in PAGES.values())
    assert len(SNIPPETS) == blocks >= 4


@pytest.mark.parametrize(
    ("page", "code", "between", "shown"),
    SNIPPETS,
    ids=[f"{page}:{code.splitlines()[0][:40]}" for page, code, _, _ in SNIPPETS],
)
def test_python_example(page: str, code: str, between: str, shown: str, tmp_path: Path) -> None:
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


def code_blocks(text: str, language: str = "") -> list[str]:
    """The code blocks of the Markdown `text` fenced with ``` and `language`, in order."""
    blocks: list[str] = []
    opened: str | None = None  # the language of the block being read
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        if opened is None and line.startswith("```"):
            opened, lines = line[3:].strip(), []
        elif opened is not None and line.rstrip() == "```":
            if opened == language:
                blocks.append("".join(lines))
            opened = None
        elif opened is not None:
            lines.append(line)
    return blocks


def prose(text: str) -> str:
    """The Markdown `text` without its code blocks."""
    kept, fenced = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "".join(kept)


def shown_commands() -> dict[str, list[str]]:
    """Every command the pages show, with the output shown after it (if any)."""
    from ggp.cli import COMMANDS

    bare_names = {f"ggp {command.name}" for command in COMMANDS}
    found: dict[str, list[str]] = {}
    for text in PAGES.values():
        for block in code_blocks(text):
            lines = block.splitlines()
            for number, line in enumerate(lines):
                if COMMAND_START.match(line) and not PLACEHOLDER.search(line):
                    output = []
                    if line.startswith("$ "):  # a session: the output runs to the next prompt
                        for shown in lines[number + 1 :]:
                            if shown.startswith("$ "):
                                break
                            output.append(shown)
                    found.setdefault(line.removeprefix("$ "), output)
        for span in re.findall(r"`([^`\n]+)`", prose(text)):
            # `ggp serve` in a sentence names the command.
            if (
                COMMAND_START.match(span)
                and not PLACEHOLDER.search(span)
                and span not in bare_names
            ):
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
    """Register a test of the shown commands `commands`."""

    def register(run: Example) -> Example:
        for command in commands:
            EXAMPLES[command] = run
        return run

    return register


def test_every_shown_command_is_run_by_a_test() -> None:
    shown = set(shown_commands())
    assert sorted(shown - set(EXAMPLES)) == [], "commands shown that no test runs"
    assert sorted(set(EXAMPLES) - shown) == [], "tests of commands no page shows any longer"


# The examples, by the page that shows them first.


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
    # as 9147 may be taken, and is asked for its info as the page does.
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
    # A local Ray instance rather than the two `ray start` nodes of the page.
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


def assert_shown(printed: str, shown: list[str]) -> None:
    """`printed` is what a page shows: line by line, durations blanked, and where the page
    writes ``...``, its lines before and after it as the first and last printed."""
    out = [untimed(line).rstrip() for line in printed.splitlines()]
    expected = [untimed(line).rstrip() for line in shown]
    if "..." in expected:
        head, tail = expected[: expected.index("...")], expected[expected.index("...") + 1 :]
        assert out[: len(head)] == head and out[len(out) - len(tail) :] == tail, printed
    else:
        assert out == expected, printed


def session(page: str, first: str) -> list[tuple[str, list[str]]]:
    """The commands of the session in `page` (a code block of ``$ `` lines) whose first
    command starts with `first`, each with the output shown after it."""
    for block in code_blocks(PAGES[page]):
        if block.startswith(f"$ {first}"):
            commands = re.split(r"^\$ ", block, flags=re.M)[1:]
            return [(part.splitlines()[0], part.splitlines()[1:]) for part in commands]
    raise AssertionError(f"{page} shows no session starting with {first}")


EXCHANGE = session("docs/compete.md", "curl -s -d '(start ")


@example(*(command for command, _ in EXCHANGE))
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # The match of the page, message by message, up to and including `command`, to a
    # player on a free port.
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")
    with serving(tmp_path) as url:
        for sent, replies in EXCHANGE[: [sent for sent, _ in EXCHANGE].index(command) + 1]:
            ask = replaced(sent, ("http://localhost:9147/", url))
            assert shell(ask, tmp_path).stdout.strip() == "\n".join(replies)


def page_file(page: str, name: str) -> str:
    """The file `name` as `page` shows it: the first ``lisp`` block after `name` is named."""
    text = PAGES[page]
    return code_blocks(text[text.index(f"`{name}`") :], "lisp")[0]


@example(
    "ggp check pick.kif",
    "printf '1\\n' | ggp play pick.kif",
    "ggp match pick.kif mcts:iterations=100",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    (tmp_path / "pick.kif").write_text(page_file("docs/gdl.md", "pick.kif"))
    out = shell(command, tmp_path).stdout
    if output:
        assert_shown(out, output)
    else:
        assert "Result after 1 moves: player 100" in out


@example("ggp check nim.kif", "ggp check endless.kif")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # A typo'd game (warnings, status 0) and one that never ends (status 1).
    name = command.split()[-1]
    (tmp_path / name).write_text(page_file("docs/check.md", name))
    printed, status = shell(f"{command}; echo status $?", tmp_path).stdout.rsplit("status ", 1)
    assert status.strip() == ("0" if name == "nim.kif" else "1")
    assert_shown(printed, output)


@example("ggp bench connect_four --gdl --seconds 1 --runs 2")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # The rates vary; the rest is as shown where native code can be built.
    out = shell(command, tmp_path).stdout
    if "native code" not in out:
        pytest.skip("no native code here (no C compiler?)")
    assert [re.sub(r"\d[\d,.]*", "N", line) for line in out.splitlines()] == [
        re.sub(r"\d[\d,.]*", "N", line) for line in output
    ]


def test_the_warning_without_a_compiler_shown_in_check_md(tmp_path: Path) -> None:
    from ggp.gdl.native.build import compiler_fix

    [(command, shown)] = [
        (block.splitlines()[0][2:], block.splitlines()[1:])
        for block in code_blocks(PAGES["docs/check.md"])
        if block.startswith("$ CC=")
    ]
    (tmp_path / "nim.kif").write_text(page_file("docs/check.md", "nim.kif"))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env["GGP_NATIVE_CACHE"] = str(tmp_path / "cache")  # nothing built before
    done = subprocess.run(
        ["bash", "-c", command + " --seconds 0.2 --runs 1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    # The fix names the package manager of the machine; the page shows apt-get's.
    expected = "\n".join(shown).replace(
        "apt-get install gcc (or set CC to a working C compiler)", compiler_fix()
    )
    assert done.stderr.strip() == expected


@example(
    "ggp match steps.kif nmcs:level=3",
    "ggp study steps.kif --agent nrpa:iterations=50 --vary level=1,2 --against random "
    "--games 10 --out nrpa-levels",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    (tmp_path / "steps.kif").write_text(page_file("docs/puzzles.md", "steps.kif"))
    if command.startswith("ggp match"):
        assert "Result after 3 moves: solver 100" in shell(command, tmp_path).stdout
        return
    shell(replaced(command, ("--games 10", "--games 2")), tmp_path)  # two matches a level
    assert (tmp_path / "nrpa-levels" / "summary.csv").is_file()


@example("ggp arena")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # On a free port rather than 8080; its page is fetched, then Ctrl-C stops it.
    process = subprocess.Popen(
        [BIN / "ggp", *command.split()[1:], "--port", "0"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        first = process.stderr.readline()
        found = re.search(r"arena at (http://\S+/)", first)
        assert found, first
        with urllib.request.urlopen(found.group(1), timeout=60) as page:
            assert "<html" in page.read().decode().lower()
    finally:
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=60)[1]
    assert process.returncode == 0, first + rest


@example("ggp arena --host 0.0.0.0 --allow-players 127.0.0.1:9147")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # On a free port; the login link it prints opens the page, which wants the key without it.
    process = subprocess.Popen(
        [BIN / "ggp", *command.split()[1:], "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        link = process.stdout.readline().strip()
        found = re.fullmatch(r"arena login link: (http://localhost:(\d+)/)login\?token=\S+", link)
        assert found, link
        try:
            urllib.request.urlopen(found.group(1), timeout=60)
            raise AssertionError("the page was served without the key")
        except urllib.error.HTTPError as refused:
            assert refused.code == 401
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(link.split(": ", 1)[1], timeout=60) as page:
            assert "<html" in page.read().decode().lower()
    finally:
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=60)[1]
    assert process.returncode == 0, rest
    assert "127.0.0.1:9147" in rest and "listens beyond this machine" in rest


@example(
    "ggp tournament connect_four mcts:iterations=200,c=0.5 mcts:iterations=200,c=1.4 "
    "--games 400 --swap --seed 1 --jobs 2",
    "ggp tournament connect_four mcts:iterations=400 mcts:iterations=100 --games 200 "
    "--swap --seed 1 --jobs 2",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # Two matches of a few simulations a move rather than hundreds of 200 to 400.
    shortened = replaced(
        command,
        *[
            (old, new)
            for old, new in (
                ("iterations=200", "iterations=10"),
                ("iterations=400", "iterations=20"),
                ("iterations=100", "iterations=5"),
            )
            if old in command
        ],
        (re.search(r"--games \d+", command).group(), "--games 2"),  # type: ignore[union-attr]
    )
    assert "connect_four: 2 matches, seed 1, seats rotated" in shell(shortened, tmp_path).stdout


@example("printf '1\\nswitch\\n' | ggp play monty_hall")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    out = shell(command, tmp_path).stdout
    assert "You played noop and see: (open_door" in out and "Your goal: " in out, out


@example(
    "ggp match monty_hall ismcts:iterations=300",
    "ggp match blind_tictactoe ismcts:iterations=300 random --show",
    "ggp tournament kuhn_poker ismcts:iterations=200 random --games 4",
)
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # GDL-II (docs/gdl-ii.md); blind tic-tac-toe and Kuhn poker with 30 simulations a
    # move and 2 matches rather than 300 or 200 and 4.
    if "blind" in command:
        command = replaced(command, ("iterations=300", "iterations=30"))
    if "kuhn" in command:
        command = replaced(command, ("iterations=200", "iterations=30"), ("--games 4", "--games 2"))
    out = shell(command, tmp_path).stdout
    assert ("kuhn_poker: 2 matches" if "kuhn" in command else "Result after") in out, out


@example("ggp bench connect_four --mcts --seconds 10", "ggp bench othello --mcts --seconds 10")
def _(command: str, output: list[str], tmp_path: Path) -> None:
    # A third of a second once rather than 10 s five times.
    out = shell(replaced(command, ("--seconds 10", "--seconds 0.3 --runs 1")), tmp_path).stdout
    assert re.match(r"\w+: [\d,]+ simulations/s", out), out


BENCHMARK_RUN = re.compile(r"python3? (benchmarks/\w+\.py)\b(.*)")


def shown_benchmark_runs() -> dict[str, set[str]]:
    """The benchmark scripts the pages show run (``python benchmarks/NAME.py ...``, a line
    of a code block or an inline example), each with the options given to it."""
    runs: dict[str, set[str]] = {}
    for text in PAGES.values():
        lines = [
            line for block in code_blocks(text) for line in block.replace("\\\n", " ").splitlines()
        ]
        for line in [*lines, *re.findall(r"`([^`\n]+)`", prose(text))]:
            if found := BENCHMARK_RUN.fullmatch(line.strip()):
                script, arguments = found.groups()
                runs.setdefault(script, set()).update(
                    re.findall(r"(?<!\S)--[a-z][\w-]*", arguments)
                )
    return runs


@pytest.mark.parametrize("script", sorted(shown_benchmark_runs()))
def test_a_shown_benchmark_run_names_real_options(script: str) -> None:
    """A benchmark run of the pages records an experiment of minutes to hours, too long
    for the suite: its script must still be there and take every option shown (a
    script of subcommands: some subcommand takes it)."""

    def helped(*words: str) -> str:
        done = subprocess.run(
            [sys.executable, script, *words, "--help"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    text = helped()
    if choices := re.search(r"(?m)^\s+\{([\w,-]+)\}", text):  # a positional's choices
        text += "".join(helped(word) for word in choices.group(1).split(","))
    options = set(re.findall(r"(?<!\S)--[a-z][\w-]*", text))
    assert sorted(shown_benchmark_runs()[script] - options) == []


# After every `example`, so that all are registered.
@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=lambda command: command[:100])
def test_shown_command(command: str, tmp_path: Path) -> None:
    EXAMPLES[command](command, shown_commands().get(command, []), tmp_path)
