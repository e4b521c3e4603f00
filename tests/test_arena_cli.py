"""``ggp arena`` opened beyond loopback: a key, printed once as a login link, and a warning."""

from __future__ import annotations

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
        warning = process.stderr.readline()
        assert "listens beyond this machine" in warning and "key" in warning
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
