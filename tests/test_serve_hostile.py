"""``ggp serve`` against hostile rules and messages (issue 17), as its own process.

Each numbered case of the issue with a small version of its hostile input and
generous clocks: the server answers ``info`` while the hostile work is still
going on, replies in time with a legal move or a clear ``nil``, keeps its own
memory small, and leaves no process behind once stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal

import aiohttp
import pytest
from gdl_texts import TICTACTOE
from ggp.player.service.game_factory import game_from_text
from ggp_client import message_moves
from hostile_rules import BIG_RELATION, COSTLY_STEP, MANY_ORS, PARENTHESES
from served import Served, has_proc, running, served

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(not has_proc(), reason="needs Linux's /proc to watch processes"),
]

AVAILABLE = "((name hostile) (status available))"
BUSY = "((name hostile) (status busy))"
SERVER_KIB = 200_000
"""The server process's own peak memory stays under this (it is ~60 MB)."""


async def info_while(server: Served, work: asyncio.Task[str]) -> str:
    """`info`'s reply, checking that `work` (a hostile message) is still being answered."""
    reply = await server.send("(info)", timeout=30)
    assert not work.done(), "the hostile message was answered before info: test it longer"
    return reply


async def started(
    server: Served, match_id: str, rules: str, clocks: str, role: str = "xplayer"
) -> asyncio.Task[str]:
    """Send a start in the background and wait until the match is being started."""
    task = asyncio.create_task(server.send(f"(start {match_id} {role} ({rules}) {clocks})"))
    for _ in range(600):
        if task.done() or await server.send("(info)") == BUSY:
            break
        await asyncio.sleep(0.05)
    return task


async def stopped_cleanly(server: Served) -> None:
    """SIGTERM ends the server and every process below it."""
    took, left = await server.terminate()
    assert server.process.returncode == 0, server.log.decode(errors="replace")
    assert left == set(), f"left running after {took:.1f} s: {left}"


async def test_1_rules_needing_unbounded_memory_cost_a_child_not_the_server() -> None:
    async with served("--copy-memory", "256", "--worker-memory", "384") as server:
        start = await started(server, "big.1", BIG_RELATION, "20 3")
        assert await info_while(server, start) == BUSY
        server.children()
        assert await start == "ready"
        for _ in range(3):
            reply, took = await server.timed("(play big.1 nil)")
            assert reply == "nil" or reply.startswith("(mark "), reply
            assert took < 3
        server.children()
        assert await server.send("(abort big.1)") == "aborted"
        assert server.peak_kib() < SERVER_KIB
        await stopped_cleanly(server)
    # Either the copy hit its memory limit, or the loader's bounded trial refused the rules.
    assert (
        b"the server's copy of the game is stopped" in server.log
        or b"the rules are too expensive to play" in server.log
    )


async def test_2_aborted_builds_are_killed_and_later_matches_play() -> None:
    async with served() as server:
        for number in range(6):
            start = await started(server, f"ors.{number}", MANY_ORS, "60 10")
            assert await info_while(server, start) == BUSY
            server.children()
            assert await server.send(f"(abort ors.{number})", timeout=30) == "aborted"
            assert await start == "ready"
        await asyncio.sleep(1)
        left = running(server.seen)
        assert len(left) <= 1, f"aborted matches left processes running: {left}"  # 1: the spare
        assert await server.send(f"(start ttt.1 xplayer ({TICTACTOE}) 10 10)") == "ready"
        reply = await server.send("(play ttt.1 nil)")
        assert reply.startswith("(mark ")
        assert await server.send("(abort ttt.1)") == "aborted"
        await stopped_cleanly(server)
    assert b"play ttt.1: (mark " in server.log and b"fallback" not in server.log


async def test_3_huge_messages_do_not_hold_up_other_matches() -> None:
    game = game_from_text(TICTACTOE, "ttt")
    async with served("--iterations", "30") as server:
        assert await server.send(f"(start ttt.2 oplayer ({TICTACTOE}) 10 4)") == "ready"
        state = game.initial_state()
        moves = "nil"
        for _ in range(3):
            flood = [asyncio.create_task(server.send(PARENTHESES)) for _ in range(3)]
            reply, took = await server.timed(f"(play ttt.2 {moves})")
            assert reply in state.legal_moves(1) and took < 4
            for refused in await asyncio.gather(*flood):
                assert refused.startswith('(error "a message of 990000 characters')
            joint = [state.legal_moves(0)[0], reply]
            state = state.next(joint)
            moves = message_moves(joint)
        big_start = asyncio.create_task(server.send(f"(start big.2 xplayer ({PARENTHESES}) 5 2)"))
        assert await server.send("(abort ttt.2)") == "aborted"
        await asyncio.sleep(0.5)
        assert await server.send("(info)", timeout=30) == BUSY  # started or being started
        assert await big_start == "ready"  # its rules refused at once (nested too deep)
        assert await server.send("(play big.2 nil)") == "nil"
        assert await server.send("(abort big.2)") == "aborted"
        assert server.peak_kib() < SERVER_KIB
        await stopped_cleanly(server)


async def test_4_rules_too_expensive_to_step_get_replies_in_time() -> None:
    async with served("--margin", "1") as server:
        start = await started(server, "cost.1", COSTLY_STEP, "10 4", role="a")
        assert await start == "ready"
        moves = "nil"
        for _ in range(5):
            play = asyncio.create_task(server.timed(f"(play cost.1 {moves})"))
            assert await info_while(server, play) == BUSY
            reply, took = await play
            assert reply.startswith("(go "), reply
            assert took < 4, f"late: {took:.2f} s on a 4 s clock"
            moves = f"({reply} noop)"
            await asyncio.sleep(4 - took)  # the manager waits for the other player's clock
        for _ in range(300):  # the copy's step is over its budget: it is stopped
            if b"the server's copy of the game is stopped" in server.log:
                break
            await asyncio.sleep(0.1)
        assert (await server.send(f"(play cost.1 {moves})")).startswith("(go ")
        assert await server.send("(abort cost.1)") == "aborted"
        await stopped_cleanly(server)
    log = server.log.decode()
    assert "fallback: the server's copy of the game is still playing the last joint move" in log
    stopped = re.search(r"the server's copy of the game is stopped \((.*?)\)", log)
    assert stopped and stopped.group(1) in (
        "advance took more than its budget of 4.0 s",
        "it used up its CPU budget",
    )


async def test_5_sigterm_during_a_start_ends_everything_at_once() -> None:
    async with served() as server:
        start = await started(server, "ors.9", MANY_ORS, "60 10")
        assert len(server.children()) >= 2
        took, left = await server.terminate()
        assert server.process.returncode == 0
        assert left == set()
        with contextlib.suppress(aiohttp.ClientError):  # answered, or the connection closed
            await start
    assert took < 10  # generous: the 2 s is measured by benchmarks/hostile_serve.py


async def test_5_the_children_of_a_killed_server_end_by_themselves() -> None:
    async with served("--iterations", "100000000") as server:
        assert await server.send(f"(start ttt.3 xplayer ({TICTACTOE}) 3 60)") == "ready"
        play = asyncio.create_task(server.send("(play ttt.3 nil)"))
        await asyncio.sleep(1)
        children = server.children()
        assert len(children) >= 2
        os.kill(server.process.pid, signal.SIGKILL)
        await server.process.wait()
        for _ in range(100):
            if not running(children):
                break
            await asyncio.sleep(0.1)
        assert running(children) == set()
        with pytest.raises(Exception):  # noqa: B017 (the connection is cut, any way)
            await play


async def test_5_an_absurd_clock_does_not_block_the_abort_behind_it() -> None:
    async with served() as server:
        start = asyncio.create_task(
            server.send(f"(start ttt.4 xplayer ({TICTACTOE}) {10**20} {10**20})")
        )
        await asyncio.sleep(1)
        assert await info_while(server, start) == BUSY
        assert await server.send("(abort ttt.4)") == "aborted"
        assert await start == "ready"
        assert await server.send("(info)") == AVAILABLE
        await stopped_cleanly(server)


async def test_7_control_bytes_are_escaped_in_the_log() -> None:
    async with served("--log-level", "DEBUG") as server:
        reply = await server.send(b"(play m\x1b]0;owned\x07 nil)\r\nforged INFO line")
        assert reply.startswith("(error ")
        await stopped_cleanly(server)
    assert b"\x1b" not in server.log and b"\x07" not in server.log
    assert b"\\x1b]0;owned\\x07" in server.log
