"""The HTTP player in process (pytest-aiohttp): whole matches, bad input, several matches."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time

import pytest
from gdl_texts import BROKEN, PENNIES, TICTACTOE
from ggp.player.service import http_player
from ggp.player.service.http_player import CORS_HEADERS, PLAYER, PlayerConfig, create_app
from ggp.player.service.session import Choice, passed_over, played_value
from ggp.player.service.worker_client import WorkerClient, WorkerTimeout
from ggp.player.service.worker_pool import WorkerPool
from ggp_client import GGP_BASE_HEADERS, iterations, play_match

pytestmark = pytest.mark.asyncio

QUICK = {"iterations": 30}
"""Searches of 30 simulations: moves are chosen by search, quickly."""


@pytest.fixture
def player(aiohttp_client):
    """Start a player with the given config options; returns (client, send)."""

    async def started(**options):
        client = await aiohttp_client(create_app(PlayerConfig(**{**QUICK, **options})))
        await client.app[PLAYER].warmed()

        async def send(text: str) -> str:
            response = await client.post("/", data=text.encode(), headers=GGP_BASE_HEADERS)
            assert response.status == 200
            assert response.headers["Content-Type"] == "text/acl"
            return (await response.text()).strip()

        return client, send

    return started


async def test_info_by_post_and_get_and_the_options_preflight(player) -> None:
    client, send = await player(name="tester")
    assert await send("( INFO )") == "((name tester) (status available))"
    response = await client.get("/%28+INFO+%29")
    assert await response.text() == "((name tester) (status available))"
    for name, value in CORS_HEADERS.items():
        assert response.headers[name] == value
    assert response.headers["Connection"] == "close"
    preflight = await client.options("/", headers={"Access-Control-Request-Method": "POST"})
    assert preflight.status == 200 and await preflight.text() == ""
    assert preflight.headers["Access-Control-Allow-Methods"] == "POST, GET, OPTIONS"


async def test_a_browser_opening_the_address_reads_what_the_server_is(player) -> None:
    client, send = await player(name="tester")
    page = await client.get("/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    body = await page.text()
    assert "<h1>tester: a General Game Playing (GGP) player, now available." in body
    assert "curl -s -d &#x27;(info)&#x27; http://HOST:PORT/" in body
    plain = await client.get("/")
    assert plain.headers["Content-Type"].startswith("text/plain")
    assert "POST the message" in await plain.text() and "error" not in await plain.text()


@pytest.mark.parametrize("role", ["xplayer", "oplayer"])
async def test_a_whole_turn_taking_match(player, role: str) -> None:
    _, send = await player()
    history, goals = await play_match(send, "ttt.1", TICTACTOE, role)
    assert len(history) >= 5 and sorted(goals) in ([0, 100], [50, 50])
    assert await send("(info)") == "((name ggp-player) (status available))"


async def test_a_match_searched_by_two_pondering_workers_to_each_deadline(player, caplog) -> None:
    """Searches until the deadlines (no --iterations), pondering between them:
    every move is the search's (a position the solver proved is answered at
    once, perhaps after no simulation), and the searches ran simulations.
    Whether an answer comes in time is the machine's load as much as the
    code's: fallbacks are measured by benchmarks/serve_clock.py, and here only
    the one for a search answered past its deadline is accepted."""
    _, send = await player(iterations=None, workers=2)
    with caplog.at_level(logging.INFO):
        history, _ = await play_match(send, "ttt.9", TICTACTOE, "xplayer", clocks=(3, 2))
    plays = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.9:")]
    searched = [line for line in plays if "the only legal move" not in line]
    # xplayer marks at the even plies, with 9 - ply cells free: the ninth has one.
    with_a_choice = [ply for ply in range(0, len(history), 2) if 9 - ply > 1]
    assert len(plays) == len(history) and len(searched) == len(with_a_choice)
    by_search = [line for line in searched if "fallback" not in line]
    assert by_search, plays
    counts = [re.search(r" in [\d.]+ s, (\d+) simulations", line) for line in by_search]
    assert all(counts), by_search
    # A worker starved by a loaded machine may answer a search with none (seen at
    # load 12), and a proven position is answered at once: some search must count.
    assert sum(int(count[1]) for count in counts if count) > 0, by_search
    late = [line for line in searched if "fallback" in line]
    assert all("fallback: search worker: no answer to search within" in line for line in late)


async def test_a_whole_simultaneous_match_with_exact_spelling(player) -> None:
    _, send = await player()
    history, _ = await play_match(send, "pennies.1", PENNIES, "right")
    assert len(history) == 2
    assert all(move in ("Heads", "Tails") for joint in history for move in joint)


async def test_moves_in_another_case_or_spacing_are_understood(player) -> None:
    _, send = await player()
    assert await send(f"(start p.2 left ({PENNIES}) 10 10)") == "ready"
    assert await send("(play p.2 nil)") in ("Heads", "Tails")
    assert await send("(play p.2 (HEADS  tails))") in ("Heads", "Tails")
    assert await send("(stop p.2 (Heads Heads))") == "done"


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("(play ttt.1 nil", "not a well-formed message"),
        ("( FOO )", "unknown message type 'FOO'"),
        ("(play ttt.1 noop)", "nil or a list of moves"),
        ("", "empty message"),
        ("(play nosuchmatch nil)", "no match nosuchmatch is being played here"),
        ("(stop nosuchmatch nil)", "no match nosuchmatch"),
        ("(abort nosuchmatch)", "no match nosuchmatch"),
    ],
)
async def test_bad_messages_get_a_clear_error_reply(player, message: str, words: str) -> None:
    _, send = await player()
    reply = await send(message)
    assert reply.startswith('(error "') and words in reply
    assert await send("(info)") == "((name ggp-player) (status available))"


async def test_bad_joint_moves_are_refused_and_the_match_goes_on(player) -> None:
    _, send = await player()
    assert await send(f"(start ttt.2 oplayer ({TICTACTOE}) 10 10)") == "ready"
    assert await send("(play ttt.2 nil)") == "noop"
    refused = [
        ("((mark 1 1))", "one move per role (2: xplayer, oplayer), got 1"),
        ("((mark 1 1) noop noop)", "got 3"),
        ("((mark 4 4) noop)", "(mark 4 4) is not a legal move of xplayer"),
        ("(noop noop)", "noop is not a legal move of xplayer"),
    ]
    for moves, words in refused:
        reply = await send(f"(play ttt.2 {moves})")
        assert reply.startswith('(error "') and words in reply, reply
    assert (await send("(play ttt.2 ((mark 1 1) noop))")).startswith("(mark ")
    assert await send("(abort ttt.2)") == "aborted"


async def test_an_oversized_message_is_refused_with_a_reason(player) -> None:
    client, send = await player(max_body=100)
    response = await client.post("/", data=b"(info)" + b" " * 200)
    assert response.status == 413
    assert "the limit is 100 bytes" in await response.text()
    assert await send("(info)") == "((name ggp-player) (status available))"


async def test_invalid_rules_get_ready_and_play_gets_nil(player, caplog) -> None:
    _, send = await player()
    with caplog.at_level(logging.WARNING):
        assert await send(f"(start bad.1 a ({BROKEN}) 10 10)") == "ready"
    assert "unsafe variable ?x" in caplog.text
    assert await send("(info)") == "((name ggp-player) (status busy))"
    assert await send("(play bad.1 nil)") == "nil"
    assert await send("(abort bad.1)") == "aborted"
    assert await send(f"(start ttt.3 nobody ({TICTACTOE}) 10 10)") == "ready"
    assert await send("(play ttt.3 nil)") == "nil"
    assert "no role 'nobody' in these rules; roles: xplayer, oplayer" in caplog.text
    assert await send("(stop ttt.3 nil)") == "done"


async def test_beyond_max_matches_start_is_busy(player) -> None:
    _, send = await player()
    assert await send(f"(start ttt.4 xplayer ({TICTACTOE}) 10 10)") == "ready"
    assert await send(f"(start ttt.5 xplayer ({TICTACTOE}) 10 10)") == "busy"
    assert await send("(info)") == "((name ggp-player) (status busy))"
    assert await send("(abort ttt.4)") == "aborted"
    assert await send("(info)") == "((name ggp-player) (status available))"


async def test_two_matches_at_once(player) -> None:
    _, send = await player(max_matches=2)
    results = await asyncio.gather(
        play_match(send, "two.1", TICTACTOE, "xplayer", seed=1),
        play_match(send, "two.2", PENNIES, "left", seed=2),
    )
    assert [len(history) for history, _ in results][1] == 2


async def test_info_is_answered_while_a_move_is_searched(player) -> None:
    _, send = await player(iterations=None, margin=0.5)
    assert await send(f"(start ttt.6 xplayer ({TICTACTOE}) 5 4)") == "ready"
    # The search goes on for 3.5 s: time enough to ask on a loaded machine.
    thinking = asyncio.create_task(send("(play ttt.6 nil)"))
    await asyncio.sleep(0.2)
    assert await send("(info)") == "((name ggp-player) (status busy))"
    assert not thinking.done()
    assert (await thinking).startswith("(mark ")


async def test_a_dead_worker_is_replaced_and_brought_in_step(player, caplog) -> None:
    client, send = await player()
    assert await send(f"(start ttt.7 xplayer ({TICTACTOE}) 10 10)") == "ready"
    client.app[PLAYER].sessions["ttt.7"].worker.workers[0].process.kill()
    with caplog.at_level(logging.INFO):
        assert (await send("(play ttt.7 nil)")).startswith("(mark ")
        assert (await send("(play ttt.7 ((mark 2 2) noop))")) == "noop"
        assert (await send("(play ttt.7 (noop (mark 1 1)))")).startswith("(mark ")
    assert "the search worker has ended; starting another (1 of at most 2)" in caplog.text
    plays = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.7:")]
    assert len(plays) == 3 and ", 30 simulations, " in plays[0]  # the new worker searched
    assert re.search(r" nodes, value \d+", plays[0])  # its mean goal of the move played
    # in step: searched, or with tic-tac-toe solved by then, played exactly
    assert iterations(plays[2]) == 30 or ", proven goal 50" in plays[2]
    assert await send("(stop ttt.7 nil)") == "done"


async def test_without_a_worker_every_move_is_a_legal_fallback(player, caplog, monkeypatch) -> None:
    client, send = await player()
    assert await send(f"(start ttt.8 oplayer ({TICTACTOE}) 10 10)") == "ready"

    async def cannot_start() -> None:
        raise OSError("no processes left")

    monkeypatch.setattr(WorkerClient, "spawn", cannot_start)
    client.app[PLAYER].sessions["ttt.8"].worker.workers[0].process.kill()
    with caplog.at_level(logging.INFO):
        assert await send("(play ttt.8 nil)") == "noop"
        for _ in range(3):
            reply = await send("(play ttt.8 ((mark 2 2) noop))")
            assert reply.startswith("(mark ") and reply != "(mark 2 2)"
            await send("(abort ttt.8)")
            assert await send(f"(start ttt.8 oplayer ({TICTACTOE}) 10 10)") == "ready"
            assert await send("(play ttt.8 nil)") == "noop"
    assert "cannot start a search worker: no processes left" in caplog.text
    assert "fallback: no search worker" in caplog.text


async def test_the_state_table_is_saved_at_the_end(player, tmp_path) -> None:
    _, send = await player(table_dir=tmp_path)
    await play_match(send, "ttt.8", TICTACTOE, "xplayer")
    (table,) = tmp_path.glob("gdl-*.json")
    saved = json.loads(table.read_text())
    assert saved["format"] == "ggp-state-table/1" and len(saved["states"]) > 1
    await play_match(send, "ttt.9", TICTACTOE, "oplayer")
    assert list(tmp_path.glob("gdl-*.json")) == [table]
    assert len(json.loads(table.read_text())["states"]) > len(saved["states"])


async def test_the_log_has_a_line_per_reply_with_the_simulations(player, caplog) -> None:
    _, send = await player()
    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        await play_match(send, "ttt.10", TICTACTOE, "xplayer")
    lines = [r.getMessage() for r in caplog.records if r.name == "ggp.player.service.http_player"]
    assert (
        lines[0].startswith("start ttt.10: ready in ") and "as xplayer, 30 simulations" in lines[0]
    )
    # The start line names what played the rules (the interpreter until the compiled game
    # is ready, then compiled Python, or native code once built) and how the search ran.
    reasoner = r"(interpreter|compiled|native, \d+ playouts a leaf)"
    assert re.search(rf"30 simulations \({reasoner}(, then {reasoner})?; [^)]+\)", lines[0])
    plays = [
        line
        for line in lines
        if line.startswith("play ttt.10: (mark ") and "the only legal move" not in line
    ]
    assert plays and all(iterations(line) == 30 or "proven goal" in line for line in plays)
    assert lines[-1].startswith("stop ttt.10: done in ")


async def test_the_log_says_what_the_tactics_proved(player, caplog) -> None:
    client, send = await player()
    assert await send(f"(start ttt.11 xplayer ({TICTACTOE}) 10 10)") == "ready"
    session = client.app[PLAYER].sessions["ttt.11"]
    proved = "(mark 1 3) wins within 3 plies (120 states, 3 plies, 0.01 s)"

    async def play(moves, deadline, seen=None) -> Choice:
        return Choice("(mark 1 3)", 0, 4, proven=100, tactics=proved)

    session.play = play
    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        assert await send("(play ttt.11 nil)") == "(mark 1 3)"
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.11")]
    assert f"proven goal 100, tactics: {proved}" in line or f"; tactics: {proved}" in line
    await send("(abort ttt.11)")


async def test_a_play_after_the_last_move_says_the_game_is_over(player) -> None:
    _, send = await player()
    assert await send(f"(start p.3 right ({PENNIES}) 10 10)") == "ready"
    assert await send("(play p.3 nil)") in ("Heads", "Tails")
    assert await send("(play p.3 (Heads Heads))") in ("Heads", "Tails")
    reply = await send("(play p.3 (Tails Heads))")
    assert reply == '(error "the game is over: this joint move ended it (expected stop)")'
    assert await send("(play p.3 (Tails Heads))") == '(error "the game is already over")'
    assert await send("(stop p.3 (Tails Heads))") == "done"


async def test_a_duplicate_start_is_refused_clearly(player) -> None:
    _, send = await player()
    assert await send(f"(start ttt.11 xplayer ({TICTACTOE}) 10 10)") == "ready"
    reply = await send(f"(start ttt.11 oplayer ({TICTACTOE}) 10 10)")
    assert reply == (
        '(error "match ttt.11 is already being played here, as xplayer; a start for it is '
        'refused until it ends (stop or abort)")'
    )
    assert (await send("(play ttt.11 nil)")).startswith("(mark ")
    assert await send("(abort ttt.11)") == "aborted"


async def test_an_abandoned_match_is_ended_and_its_slot_freed(player, caplog, monkeypatch) -> None:
    monkeypatch.setattr(http_player, "IDLE_SECONDS", 0.0)
    _, send = await player(idle_clocks=1)
    assert await send(f"(start gone.1 xplayer ({TICTACTOE}) 5 1)") == "ready"
    assert (await send("(play gone.1 nil)")).startswith("(mark ")
    with caplog.at_level(logging.WARNING):
        for _ in range(300):
            if await send("(info)") == "((name ggp-player) (status available))":
                break
            await asyncio.sleep(0.1)
    assert "match gone.1: abandoned (no message for " in caplog.text
    assert await send("(play gone.1 ((mark 1 1) noop))") == (
        '(error "no match gone.1 is being played here")'
    )


async def test_a_match_is_not_abandoned_while_its_start_clock_runs(player, monkeypatch) -> None:
    """A player that answered ready early (here: rules it cannot play, at once) waits
    for the other players' start clock before it counts play clocks of silence."""
    monkeypatch.setattr(http_player, "IDLE_SECONDS", 0.0)
    _, send = await player(idle_clocks=1)
    assert await send(f"(start early.1 xplayer ({BROKEN}) 30 1)") == "ready"
    await asyncio.sleep(4)
    assert await send("(info)") == "((name ggp-player) (status busy))"
    assert await send("(abort early.1)") == "aborted"


async def test_a_slow_referee_s_silence_of_a_few_play_clocks_does_not_end_the_match(
    player, monkeypatch
) -> None:
    """Play clocks of 1 s and 1 of them idle allowed, but 20 s at least: a referee silent
    for 4 play clocks (its own step of a large game) finds its match still played."""
    monkeypatch.setattr(http_player, "IDLE_SECONDS", 20.0)
    _, send = await player(idle_clocks=1)
    assert await send(f"(start slow.1 xplayer ({TICTACTOE}) 2 1)") == "ready"
    move = await send("(play slow.1 nil)")
    assert move.startswith("(mark ")
    await asyncio.sleep(4)
    assert await send("(info)") == "((name ggp-player) (status busy))"
    assert await send(f"(play slow.1 ({move} noop))") == "noop"  # o's turn
    assert await send("(abort slow.1)") == "aborted"


async def test_the_log_times_a_reply_from_the_messages_arrival_to_its_sending(
    player, caplog, monkeypatch
) -> None:
    """A search that never answers: the fallback is sent at the deadline, arrival
    + play clock - margin, and the log shows that wait as the manager saw it."""
    _, send = await player(margin=0.5)
    assert await send(f"(start ttt.14 xplayer ({TICTACTOE}) 10 2)") == "ready"
    asked = WorkerPool.request

    async def silent(self, command, timeout):
        if command["cmd"] != "search":
            return await asked(self, command, timeout)
        await asyncio.sleep(timeout)
        raise WorkerTimeout("no answer (the test's worker is silent)")

    monkeypatch.setattr(WorkerPool, "request", silent)
    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        sent = time.monotonic()
        assert (await send("(play ttt.14 nil)")).startswith("(mark ")
        seen = time.monotonic() - sent
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.14")]
    logged = float(re.search(r" in ([\d.]+) s, ", line).group(1))
    assert 2 - 0.5 - 0.01 <= logged <= seen + 0.001, (line, seen)
    assert "fallback" in line


async def test_the_table_folder_keeps_the_newest_tables(player, tmp_path) -> None:
    _, send = await player(table_dir=tmp_path, max_tables=1)
    await play_match(send, "ttt.12", TICTACTOE, "xplayer")
    (first,) = tmp_path.glob("gdl-*.json")
    await play_match(send, "p.4", PENNIES, "left")
    (kept,) = tmp_path.glob("gdl-*.json")
    assert kept != first


async def test_the_log_tells_iterations_on_proven_nodes_apart_from_simulations(
    player, caplog
) -> None:
    client, send = await player()
    assert await send(f"(start ttt.12 xplayer ({TICTACTOE}) 10 10)") == "ready"
    session = client.app[PLAYER].sessions["ttt.12"]

    async def play(moves, deadline, seen=None) -> Choice:
        return Choice("(mark 1 3)", 120, 40, pondered=300, ponder_seconds=1.5, settled=9000)

    session.play = play
    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        assert await send("(play ttt.12 nil)") == "(mark 1 3)"
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.12")]
    assert ", 120 simulations + 300 pondered in 1.50 s, 40 nodes, 9000 iterations on " in line
    assert iterations(line) == 9120


async def test_the_log_says_the_searchs_value_of_the_move_played(player, caplog) -> None:
    client, send = await player()
    assert await send(f"(start ttt.13 xplayer ({TICTACTOE}) 10 10)") == "ready"
    session = client.app[PLAYER].sessions["ttt.13"]
    answer = {"move": "(mark 1 3)", "stats": [["(mark 2 2)", 90, 0.7], ["(mark 1 3)", 10, 0.456]]}
    assert played_value(answer) == 46  # the move answered, not the most visited
    assert played_value({**answer, "move": "(mark 3 3)"}) is None  # never searched

    assert passed_over(answer) == "(mark 2 2): 90 visits at 70"
    assert passed_over({**answer, "move": "(mark 2 2)"}) == ""  # the most visited played
    assert passed_over({**answer, "stats": [["(mark 1 3)", 0, 0.0]]}) == ""  # none visited
    tied = [["(mark 2 2)", 10, 0.7], ["(mark 1 3)", 10, 0.456]]
    assert passed_over({**answer, "stats": tied}) == ""  # as visited as any

    async def play(moves, deadline, seen=None) -> Choice:
        value, over = played_value(answer), passed_over(answer)
        return Choice("(mark 1 3)", 120, 40, value=value, proven=0, passed_over=over)

    session.play = play
    with caplog.at_level(logging.INFO, logger="ggp.player.service.http_player"):
        assert await send("(play ttt.13 nil)") == "(mark 1 3)"
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("play ttt.13")]
    assert ", 120 simulations, 40 nodes, value 46, over the most visited (mark 2 2): 90 " in line
    assert "visits at 70, proven goal 0" in line
