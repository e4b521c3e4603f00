"""The search worker of a match: its commands in process, and as a process driven by asyncio."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path

import pytest
from gdl_texts import PENNIES, TICTACTOE

from player.search_worker import SearchWorker, serve
from player.worker_client import WorkerClient, WorkerDied, WorkerError, WorkerTimeout


def test_load_search_advance_in_process() -> None:
    worker = SearchWorker()
    assert worker.handle({"cmd": "load", "rules": TICTACTOE}) == {"roles": ["xplayer", "oplayer"]}
    answer = worker.handle(
        {"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 50}
    )
    assert answer["sims"] == 50 and answer["move"].startswith("(mark ")
    assert worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]}) == {
        "terminal": False
    }
    assert (
        worker.handle({"cmd": "search", "role": 1, "until": time.time() + 10, "iterations": 20})[
            "sims"
        ]
        == 20
    )


def test_a_node_limit_given_at_load_caps_the_tree() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "max_nodes": 4})
    search = {"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 50}
    answer = worker.handle(search)
    assert (answer["sims"], answer["nodes"]) == (50, 4)
    worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]})
    answer = worker.handle({**search, "role": 1})
    assert (answer["sims"], answer["nodes"]) == (50, 4)
    worker.handle({"cmd": "load", "rules": TICTACTOE})
    assert worker.handle(search)["nodes"] == 51


def test_search_stops_before_a_deadline_already_passed() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": PENNIES})
    answer = worker.handle({"cmd": "search", "role": 1, "until": time.time(), "iterations": None})
    assert answer["sims"] == 0 and answer["move"] in ("Heads", "Tails")


def test_commands_that_fail_answer_an_error_and_the_worker_goes_on() -> None:
    commands = [
        {"cmd": "search", "role": 0, "until": time.time() + 1},
        {"cmd": "load", "rules": "(role"},
        {"cmd": "load", "rules": PENNIES},
        {"cmd": "advance", "joint": ["Heads"]},
        {"cmd": "dance"},
        {"cmd": "advance", "joint": ["Heads", "Tails"]},
        {"cmd": "quit"},
        {"cmd": "save"},
    ]
    stdin = io.StringIO("".join(json.dumps({**c, "id": i}) + "\n" for i, c in enumerate(commands)))
    stdout = io.StringIO()
    serve(stdin, stdout)
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4, 5]  # nothing after quit
    assert "before any game was loaded" in answers[0]["error"]
    assert "line 1" in answers[1]["error"]
    assert answers[2] == {"roles": ["left", "right"], "id": 2}
    assert "one move per role" in answers[3]["error"]
    assert "unknown command 'dance'" in answers[4]["error"]
    assert answers[5] == {"terminal": False, "id": 5}


def test_save_writes_the_state_table(tmp_path) -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "table_dir": str(tmp_path), "depth": 2})
    worker.handle({"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 30})
    path = worker.handle({"cmd": "save"})["path"]
    saved = json.loads(Path(path).read_text())
    assert saved["depth"] == 2 and max(s["visits"] for s in saved["states"].values()) == 30


@pytest.mark.asyncio
async def test_a_worker_process_answers_in_order_and_quits() -> None:
    worker = await WorkerClient.spawn()
    try:
        assert (await worker.request({"cmd": "load", "rules": PENNIES}, 30))["roles"] == [
            "left",
            "right",
        ]
        worker.send({"cmd": "advance", "joint": ["Heads", "Heads"]})
        answer = await worker.request(
            {"cmd": "search", "role": 0, "until": time.time() + 5, "iterations": 40}, 30
        )
        assert answer == {"move": answer["move"], "sims": 40, "steps": 1, "nodes": answer["nodes"]}
        assert 2 <= answer["nodes"] <= 5  # the root and its joint moves that were tried
        with pytest.raises(WorkerError, match="unknown command"):
            await worker.request({"cmd": "dance"}, 30)
        with pytest.raises(WorkerTimeout):
            await worker.request(
                {"cmd": "search", "role": 0, "until": time.time() + 0.3, "iterations": None}, 0.01
            )
        # the late answer is dropped; the next one is this command's own
        assert (await worker.request({"cmd": "advance", "joint": ["Tails", "Heads"]}, 30)) == {
            "terminal": True
        }
    finally:
        await worker.close()
    assert worker.process.returncode == 0 and not worker.alive
    with pytest.raises(WorkerDied):
        await worker.request({"cmd": "save"}, 1)


@pytest.mark.asyncio
async def test_a_worker_that_dies_fails_its_requests() -> None:
    worker = await WorkerClient.spawn()
    await worker.request({"cmd": "load", "rules": TICTACTOE}, 30)
    waiting = asyncio.create_task(
        worker.request(
            {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": None}, 60
        )
    )
    await asyncio.sleep(0)  # the command is sent
    worker.process.kill()
    with pytest.raises(WorkerDied):
        await waiting
    await worker.close()
