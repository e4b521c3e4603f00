"""A game whose rules take longer to compile than the match lasts: every reply of
``ggp serve`` still comes from the search (on the interpreter), none is a
fallback, and the log says which reasoner played each one."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest
from gdl_texts import TICTACTOE
from ggp.player.service.http_player import PLAYER, PlayerConfig, create_app
from ggp.player.service.worker_client import ANSWER_LIMIT, WorkerClient
from ggp_client import GGP_BASE_HEADERS, iterations, play_match

pytestmark = pytest.mark.asyncio

NEVER_COMPILED = """
import sys, threading
from ggp.player.service import search_worker

def never(rules):
    threading.Event().wait()  # a compile that outlasts the match

answers, sys.stdout = sys.stdout, sys.stderr
search_worker.serve(sys.stdin.fileno(), answers, never)
"""
"""A search worker whose faster rules are never ready."""


async def slow_worker() -> WorkerClient:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        NEVER_COMPILED,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=ANSWER_LIMIT,
    )
    return WorkerClient(process)


async def test_replies_come_from_the_search_on_the_interpreter_while_rules_compile(
    aiohttp_client, monkeypatch, caplog
) -> None:
    monkeypatch.setattr(WorkerClient, "spawn", slow_worker)
    searches: list[dict] = []
    request = WorkerClient.request

    async def recorded(self: WorkerClient, command: dict, timeout: float | None) -> dict:
        if command["cmd"] == "search":
            searches.append(command)
        return await request(self, command, timeout)

    monkeypatch.setattr(WorkerClient, "request", recorded)
    client = await aiohttp_client(create_app(PlayerConfig(iterations=30)))
    await client.app[PLAYER].warmed()

    async def send(text: str) -> str:
        response = await client.post("/", data=text.encode(), headers=GGP_BASE_HEADERS)
        return (await response.text()).strip()

    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        await play_match(send, "slow.1", TICTACTOE, "xplayer", clocks=(30, 30))
    lines = [r.getMessage() for r in caplog.records if r.name == "ggp.player.service.http_player"]
    assert lines[0].startswith("start slow.1: ready in ")
    assert "as xplayer, 30 simulations (interpreter; " in lines[0]
    plays = [line for line in lines if line.startswith("play slow.1: ")]
    searched = [line for line in plays if "the only legal move" not in line]
    assert searched and not any("fallback" in line for line in plays)
    for line in searched:  # every iteration a simulation, or one that met a proven node
        assert iterations(line) == 30 or "proven goal" in line, line
        assert "(interpreter; decisive playouts, c=0.35)" in line
    # the start clock's search says so: it takes faster rules whenever they come
    starts = [command for command in searches if command["start"]]
    assert starts and all(command["race"] > 0 for command in starts)
    assert len(searches) > len(starts)
