"""benchmarks/puzzles.py --player: the puzzles played by a player already running at a URL."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

PRESS = """
(role solver)
(init (step 0))
(succ 0 1) (succ 1 2)
(<= (legal solver press) (not terminal))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 2)))
(<= (goal solver 100) terminal)
(<= (goal solver 0) (not terminal))
"""
"""A puzzle of two presses, 100 at the end: the one move there is solves it."""


class Presser(BaseHTTPRequestHandler):
    """A GGP player that always presses: not `ggp serve`, so the benchmark must not need its log."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        message = self.rfile.read(int(self.headers["Content-Length"])).decode().lower()
        if message.startswith("(info"):
            reply = "((name presser) (status available))"
        elif message.startswith("(start"):
            reply = "ready"
        elif message.startswith("(play"):
            reply = "press"
        else:
            reply = "done"
        body = reply.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/acl")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def presser():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Presser)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_puzzles_are_played_by_the_player_at_the_url_given(tmp_path, presser):
    puzzle = tmp_path / "press.kif"
    puzzle.write_text(PRESS)
    results = tmp_path / "results.json"
    command = [sys.executable, str(BENCHMARKS / "puzzles.py"), "--player", presser]
    command += ["--player-name", "presser", "--games", str(puzzle), "--json", str(results)]
    command += ["--startclock", "10", "--playclock", "5", "--log-dir", str(tmp_path / "logs")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "presser, start clock 10 s, play clock 5 s" in done.stdout
    report = json.loads(results.read_text())
    assert (report["player"], report["commit"]) == ("presser", None)
    assert "workers" not in report  # of the ggp serve not started
    (played,) = report["results"]
    assert (played["game"], played["goal"], played["moves"], played["errors"]) == (
        "press",
        100,
        2,
        0,
    )
    assert "first_100" not in played  # only our player's log says it
    assert len(played["load"]) == 2
    assert not (tmp_path / "logs" / "serve.log").exists()  # no ggp serve was started


def test_a_game_that_is_not_there_is_refused_before_anything_is_played(tmp_path):
    command = [sys.executable, str(BENCHMARKS / "puzzles.py"), "--player", "http://127.0.0.1:9"]
    command += ["--games", str(tmp_path / "absent.kif")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "no such game" in done.stderr
