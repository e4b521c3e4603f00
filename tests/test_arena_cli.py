"""``ggp arena`` opened beyond loopback: a key, printed once as a login link, and a warning."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

from arena_server import arena_process


def test_an_arena_open_beyond_loopback_wants_the_key_it_printed(tmp_path: Path) -> None:
    with arena_process(tmp_path, "--host", "0.0.0.0") as (address, process):
        assert process.stdout is not None and process.stderr is not None
        link = process.stdout.readline().strip()
        warning = ""
        while "listens beyond this machine" not in warning:  # after any other warning
            warning = process.stderr.readline()
            assert warning, "no warning"
        assert "key" in warning
        found = re.fullmatch(
            r"arena login link: http://localhost:(\d+)/login\?token=(\S{20,})", link
        )
        assert found, link
        port, token = found.groups()
        base = f"http://127.0.0.1:{port}"
        try:
            urllib.request.urlopen(f"{base}/api/games", timeout=30)
            raise AssertionError("served without the key")
        except urllib.error.HTTPError as error:
            assert error.code == 401
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        with browser.open(f"{base}/login?token={token}", timeout=30) as page:  # to / after
            assert page.url == f"{base}/" and b"GGP arena" in page.read()
        with browser.open(f"{base}/api/games", timeout=30) as games:
            assert json.load(games)["builtin"]
        assert token not in warning + address


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{pid}$", text, re.MULTILINE):
            found.append(int(status.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_tournament_process_ends_with_its_arena_even_killed(tmp_path: Path) -> None:
    import os
    import signal
    import time

    from aiohttp import web
    from fake_players import served_apps

    async def silent(request: web.Request) -> web.Response:  # nothing to report for a minute
        await asyncio.sleep(60)
        return web.Response(text="ready")

    player = web.Application()
    player.router.add_post("/", silent)
    with served_apps(player) as (url,), arena_process(tmp_path) as (address, process):
        body = {
            "game": {"builtin": "tictactoe", "gdl": True},
            "players": [url, "random"],
            "matches": 2,
            "startclock": 60,
            "playclock": 60,
        }
        request = urllib.request.Request(
            f"{address}api/tournaments",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Origin": address.rstrip("/")},
        )
        with urllib.request.urlopen(request, timeout=60) as started:
            assert started.status == 201
        deadline = time.monotonic() + 60
        while not (jobs := _children(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert jobs, "no tournament process"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 60
        while any(map(_alive, jobs)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(map(_alive, jobs))


def test_a_match_s_agents_end_with_their_arena_even_killed_mid_search(tmp_path: Path) -> None:
    import os
    import signal
    import time

    with arena_process(tmp_path) as (address, process):
        body = {
            "game": {"builtin": "connect_four"},
            "players": ["mcts:time=100", "mcts:time=100"],  # each move searched 100 s
            "startclock": 120,
            "playclock": 120,
        }
        request = urllib.request.Request(
            f"{address}api/matches",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Origin": address.rstrip("/")},
        )
        with urllib.request.urlopen(request, timeout=60) as started:
            assert started.status == 201
        deadline = time.monotonic() + 60
        while len(agents := _children(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(agents) == 2, "no agent processes"
        time.sleep(3)  # into the first search
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 60  # well within the search's 100 s
        while any(map(_alive, agents)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(map(_alive, agents))
