"""The arena's JSON API and live updates (`ggp.server.arena`), through an aiohttp test client."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from fake_players import FakePlayer, served
from gdl_texts import TICTACTOE
from ggp.games.registry import load_game
from ggp.player.agents import RandomAgent
from ggp.server.arena import tournaments
from ggp.server.arena.app import ARENA, create_app
from ggp.server.arena.arena import ArenaConfig
from ggp.server.arena.store import ArenaStore, MatchRow
from ggp.server.match import play_match
from ggp.server.stats import wilson_interval

pytestmark = pytest.mark.asyncio

BROKEN_AT_LINE_3 = """(role x)
(init (p 1))
(<= (legal x (go ?y)) (true (p 1)))
(<= (next (p 2)) (does x go))
(<= terminal (true (p 2)))
(goal x 100)
"""


@pytest.fixture
def config(tmp_path: Path) -> ArenaConfig:
    games = tmp_path / "games"
    games.mkdir()
    (games / "ttt.kif").write_text(TICTACTOE)
    return ArenaConfig(
        db=tmp_path / "logs" / "arena.sqlite",
        log_dir=tmp_path / "logs",
        games_dir=games,
        max_body=50_000,
    )


SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}
"""What a browser sends with the arena page's own requests (the guard wants it or an Origin)."""


@pytest.fixture
def arena(aiohttp_client, config):
    async def make(conf: ArenaConfig = config):
        return await aiohttp_client(create_app(conf), headers=SAME_ORIGIN)

    return make


async def start(client, game: dict, players: list[str], **extra) -> str:
    response = await client.post("/api/matches", json={"game": game, "players": players, **extra})
    assert response.status == 201, await response.text()
    return (await response.json())["id"]


async def follow(client, match_id: str, on_message=None) -> list[dict]:
    """The messages of a match's live updates, up to its end."""
    messages = []
    async with client.ws_connect(f"/api/matches/{match_id}/live") as socket:
        async with asyncio.timeout(120):
            async for message in socket:
                data = json.loads(message.data)
                messages.append(data)
                if on_message is not None:
                    await on_message(data)
                if data["type"] == "end":
                    break
    return messages


async def test_the_games_offered(arena) -> None:
    client = await arena()
    listing = await (await client.get("/api/games")).json()
    names = [game["name"] for game in listing["builtin"]]
    assert names == [
        "tictactoe",
        "connect_four",
        "othello",
        "ultimate_tictactoe",
        "hex",
        "breakthrough",
        "blind_tictactoe",
        "kuhn_poker",
        "monty_hall",
    ]
    four = listing["builtin"][1]
    assert four["board"] == {"kind": "connect_four", "width": 7, "height": 6}
    assert four["options"]["line"] == 4
    assert listing["files"] == ["ttt.kif"]
    assert "person" in listing["agents"] and "human" not in listing["agents"]


async def test_a_match_between_agents_is_watched_live_by_two_pages(arena, config) -> None:
    client = await arena()
    match_id = await start(
        client,
        {"builtin": "connect_four:width=5,height=4,line=3"},
        ["mcts:iterations=30", "random"],
        seed=3,
    )
    first, second = await asyncio.gather(follow(client, match_id), follow(client, match_id))
    for messages in (first, second):
        assert messages[0]["type"] == "snapshot"
        assert messages[0]["board"] == {"kind": "connect_four", "width": 5, "height": 4}
        assert messages[-1]["type"] == "end" and messages[-1]["status"] == "finished"
        assert sorted(messages[-1]["goals"]) in ([0, 100], [50, 50])
    steps = [m for m in first if m["type"] == "step"]
    assert steps[-1]["terminal"] and steps[-1]["goals"] == first[-1]["goals"]
    # The history lists it, its log is downloadable, and its replay has every step.
    listed = await (await client.get("/api/matches", params={"player": "mcts"})).json()
    (row,) = listed["matches"]
    assert row["id"] == match_id and row["status"] == "finished" and row["source"] == "arena"
    log = await client.get(f"/api/matches/{match_id}/log")
    assert log.status == 200 and json.loads(await log.text())["matchId"] == match_id
    assert (config.log_dir / f"{match_id}.json").is_file()


async def test_a_person_plays_by_the_api_and_gets_hints(arena) -> None:
    client = await arena()
    match_id = await start(client, {"builtin": "tictactoe"}, ["person", "mcts:iterations=20"])
    illegal_answered = []
    hints = []

    async def on_message(data: dict) -> None:
        if data["type"] != "waiting" or data["waiting"] != [0]:
            return
        if not illegal_answered:
            refused = await client.post(
                f"/api/matches/{match_id}/move", json={"role": "xplayer", "move": "(mark 9 9)"}
            )
            illegal_answered.append((refused.status, await refused.json()))
        snapshot = await (await client.get(f"/api/matches/{match_id}")).json()
        legal = snapshot["steps"][-1]["legal"][0]
        # The hints' process follows the match: it ranks the moves legal now.
        hint = await client.post(f"/api/matches/{match_id}/hint", json={"role": 0})
        assert hint.status == 200, await hint.text()
        ranking = (await hint.json())["ranking"]
        assert sorted(row["move"] for row in ranking) == sorted(legal)
        assert ranking[0]["visits"] >= ranking[-1]["visits"]
        hints.append(ranking)
        played = await client.post(
            f"/api/matches/{match_id}/move", json={"role": 0, "move": legal[0][1:-1]}
        )
        assert played.status == 200 and (await played.json())["move"] == legal[0]

    messages = await follow(client, match_id, on_message)
    assert messages[-1]["status"] == "finished"
    status, refusal = illegal_answered[0]
    assert status == 409 and "(mark 1 1)" in refusal["legal"]
    assert len(hints) >= 3
    # The person's seat is not timed: no error recorded against it.
    assert all(not any(m["errors"] or []) for m in messages if m["type"] == "step")


async def test_a_game_file_and_pasted_rules_are_checked(arena) -> None:
    client = await arena()
    good = await (await client.post("/api/check", json={"game": {"file": "ttt.kif"}})).json()
    assert good == {"ok": True, "name": good["name"], "roles": ["xplayer", "oplayer"], "faults": []}
    bad = await (await client.post("/api/check", json={"game": {"rules": BROKEN_AT_LINE_3}})).json()
    assert not bad["ok"] and bad["faults"][0]["line"] == 3
    assert "unsafe variable ?y" in bad["faults"][0]["message"]
    syntax = await (
        await client.post("/api/check", json={"game": {"rules": "(role x)\n(init (p 1)\n"}})
    ).json()
    assert syntax["faults"][0]["line"] == 3 and "never closed" in syntax["faults"][0]["message"]
    refused = await client.post(
        "/api/matches", json={"game": {"rules": BROKEN_AT_LINE_3}, "players": ["random"]}
    )
    assert refused.status == 400 and (await refused.json())["faults"][0]["line"] == 3


TICTACTOE_WITH = '{"game": {"builtin": "tictactoe"}, %s}'


@pytest.mark.parametrize(
    "method, path, body, status",
    [
        ("post", "/api/matches", "not json", 400),
        ("post", "/api/matches", "[1, 2]", 400),
        ("post", "/api/matches", '{"game": {"builtin": "chess"}, "players": []}', 400),
        ("post", "/api/matches", '{"game": {"file": "../../etc/passwd"}, "players": []}', 400),
        ("post", "/api/matches", TICTACTOE_WITH % '"players": ["x"]', 400),
        ("post", "/api/matches", TICTACTOE_WITH % '"players": ["human", "random"]', 400),
        ("post", "/api/matches", TICTACTOE_WITH % '"players": ["random"], "playclock": 0', 400),
        ("post", "/api/check", '{"game": {"rules": "' + "x" * 60_000 + '"}}', 413),
        ("get", "/api/matches/nope", None, 404),
        ("get", "/api/matches/nope/log", None, 404),
        ("post", "/api/matches/nope/move", "{}", 404),
        ("get", "/api/nothing", None, 404),
    ],
)
async def test_bad_requests_get_a_json_error(arena, method, path, body, status) -> None:
    client = await arena()
    headers = {"Content-Type": "application/json"} if method == "post" else {}
    response = await getattr(client, method)(path, data=body, headers=headers)
    assert response.status == status
    assert (await response.json())["error"]


async def test_a_move_for_a_seat_that_is_no_persons_is_refused(arena) -> None:
    client = await arena()
    match_id = await start(client, {"builtin": "tictactoe"}, ["person", "random"])
    refused = await client.post(f"/api/matches/{match_id}/move", json={"role": 1, "move": "noop"})
    assert refused.status == 403
    stopped = await client.post(f"/api/matches/{match_id}/abort", json={})
    assert stopped.status == 200
    messages = await follow(client, match_id)
    assert messages[-1]["status"] == "aborted"


async def wait_for_the_person(client, match_id: str):
    """A page that opens the match's live updates and returns once the person is asked
    to move; the caller closes it (or keeps it open: the match is watched)."""
    socket = await client.ws_connect(f"/api/matches/{match_id}/live")
    async with asyncio.timeout(120):
        async for message in socket:
            if json.loads(message.data).get("waiting") == [0]:
                return socket
    raise AssertionError("the person was never asked to move")


async def test_matches_left_by_their_person_do_not_stop_others(arena, config) -> None:
    client = await arena(replace(config, max_matches=1, max_waiting=1))
    ttt = {"builtin": "tictactoe"}
    left = await start(client, ttt, ["person", "mcts"])
    await (await wait_for_the_person(client, left)).close()
    # While the person thinks, the agent's process, once it has answered its forced
    # noop, is asked nothing: it sleeps on its pipe.
    agent = client.server.app[ARENA].live[left].players[1]
    async with asyncio.timeout(60):
        while agent.child.waiting:
            await asyncio.sleep(0.05)
    assert agent.child.process is not None and agent.child.process.returncode is None
    watched = await start(client, ttt, ["person", "random"])
    page = await wait_for_the_person(client, watched)
    # Both wait for a person: neither counts as played, so a match between agents starts,
    # and the arena, full, makes room by aborting the one nobody watches.
    played = await start(client, ttt, ["random", "random"])
    ended = await (await client.get(f"/api/matches/{left}")).json()
    async with asyncio.timeout(60):
        while ended["status"] == "running":
            await asyncio.sleep(0.1)
            ended = await (await client.get(f"/api/matches/{left}")).json()
    assert ended["status"] == "aborted" and ended["failure"].startswith("abandoned")
    assert (await follow(client, played))[-1]["status"] == "finished"
    # The one watched is never aborted to make room: the arena says it is full.
    third = await start(client, ttt, ["person", "random"])
    second_page = await wait_for_the_person(client, third)
    refused = await client.post("/api/matches", json={"game": ttt, "players": ["random"] * 2})
    assert refused.status == 429 and "watched" in (await refused.json())["error"]
    for match_id in (watched, third):
        await client.post(f"/api/matches/{match_id}/abort", json={})
        assert (await follow(client, match_id))[-1]["failure"] == (
            "the match was stopped from its page"
        )
    await page.close()
    await second_page.close()


async def test_a_restart_lists_old_matches_and_finds_logs(arena, config) -> None:
    store = ArenaStore(config.db)
    store.save_match(
        MatchRow(
            "old.1",
            "tictactoe",
            ("xplayer", "oplayer"),
            ("a", "b"),
            "running",
            None,
            0,
            2,
            None,
            None,
            1.0,
            "arena",
        )
    )
    game = load_game("tictactoe")
    record = await asyncio.to_thread(
        play_match, game, [RandomAgent(1), RandomAgent(2)], log_dir=config.log_dir
    )
    client = await arena()
    await client.post("/api/import", json={})
    rows = {row["id"]: row for row in (await (await client.get("/api/matches")).json())["matches"]}
    assert rows["old.1"]["status"] == "aborted"
    found = rows[record.match_id]
    assert found["source"] == "log" and found["status"] == "finished"
    assert found["players"] == ["random", "random"]
    assert found["started"] == record.start_time / 1000
    replay = await (await client.get(f"/api/matches/{record.match_id}")).json()
    assert len(replay["steps"]) == len(record.states)
    assert replay["board"] == {"kind": "tictactoe"}
    assert replay["steps"][-1]["facts"] == list(record.states[-1].facts())


async def test_a_tournament_runs_in_its_own_process_to_its_standings(arena) -> None:
    client = await arena()
    started = await client.post(
        "/api/tournaments",
        json={
            "game": {"builtin": "tictactoe"},
            "players": ["mcts:iterations=20", "random"],
            "matches": 4,
            "swap": True,
        },
    )
    assert started.status == 201, await started.text()
    tournament_id = (await started.json())["id"]
    async with asyncio.timeout(120):
        while (view := await (await client.get(f"/api/tournaments/{tournament_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.2)
    assert view["status"] == "finished" and view["done"] == 4
    overall = [row for row in view["standings"] if row["seat"] == "all"]
    assert [row["games"] for row in overall] == [4, 4]
    for row in overall:
        assert 0 <= row["ci_low"] <= row["score"] <= row["ci_high"] <= 1
        low, high = wilson_interval(row["score"] * 4, 4)
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    listed = (await (await client.get("/api/tournaments")).json())["tournaments"]
    assert [t["id"] for t in listed] == [tournament_id]
    # Its matches were logged and join the history.
    history = (await (await client.get("/api/matches")).json())["matches"]
    assert {row["id"] for row in history} == {m["match_id"] for m in view["matches"]}


@pytest.mark.parametrize(
    "body",
    [
        {"game": {"builtin": "tictactoe"}, "players": ["person", "random"]},
        {"game": {"file": "../ttt.kif"}, "players": ["random", "random"]},
        {"game": {"builtin": "tictactoe"}, "players": ["random", "random"], "jobs": 64},
        {"game": {"builtin": "tictactoe"}, "players": ["random", "random"], "matches": 0},
        {"game": {"builtin": "tictactoe"}, "players": ["random"]},
    ],
)
async def test_a_tournament_that_cannot_be_played_is_refused(arena, body) -> None:
    client = await arena()
    refused = await client.post("/api/tournaments", json=body)
    assert refused.status == 400 and (await refused.json())["error"]


async def wait_for_tournament(client, tournament_id: str) -> dict:
    async with asyncio.timeout(120):
        while (view := await (await client.get(f"/api/tournaments/{tournament_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.2)
    return view


async def test_a_tournament_plays_pasted_rules_and_refuses_broken_ones(arena, config) -> None:
    client = await arena()
    broken = await client.post(
        "/api/tournaments",
        json={"game": {"rules": BROKEN_AT_LINE_3}, "players": ["random"], "matches": 2},
    )
    assert broken.status == 400
    assert (await broken.json())["faults"][0]["line"] == 3
    pasted = {"rules": TICTACTOE, "name": "../my ttt"}
    started = await client.post(
        "/api/tournaments",
        json={"game": pasted, "players": ["mcts:iterations=10", "random"], "matches": 2},
    )
    assert started.status == 201, await started.text()
    view = await wait_for_tournament(client, (await started.json())["id"])
    assert view["status"] == "finished" and view["done"] == 2
    assert view["setup"]["name"] == "my-ttt" and view["setup"]["roles"] == ["xplayer", "oplayer"]
    # The rules went to a file named by their content, inside the log folder.
    (written,) = (config.log_dir / "arena-games").glob("*.kif")
    assert written.name.startswith("rules-")
    history = (await (await client.get("/api/matches")).json())["matches"]
    assert {row["id"] for row in history} == {m["match_id"] for m in view["matches"]}


async def test_a_tournament_plays_its_matches_at_once(arena) -> None:
    """With two at once, the second match starts before the first one ends: the GGP
    player holds its answer to the first start until it hears the second (or 60 s)."""
    player = FakePlayer(silent_start=True)
    with served(player) as (url,):
        client = await arena()
        started = await client.post(
            "/api/tournaments",
            json={
                "game": {"builtin": "tictactoe"},
                "players": [url, "random"],
                "matches": 4,
                "jobs": 2,
                "startclock": 120,
                "playclock": 120,
            },
        )
        assert started.status == 201, await started.text()
        view = await wait_for_tournament(client, (await started.json())["id"])
    assert view["status"] == "finished" and view["done"] == 4 and view["setup"]["jobs"] == 2
    assert sorted(m["index"] for m in view["matches"]) == [0, 1, 2, 3]
    assert [row["games"] for row in view["standings"] if row["seat"] == "all"] == [4, 4]
    assert not any(any(row) for m in view["matches"] for row in m["errors"])
    assert most_matches_at_once(player.messages) == 2


def most_matches_at_once(messages: list[str]) -> int:
    """The most matches a player was in at the same time, from the messages it received."""
    under_way: set[str] = set()
    most = 0
    for text in messages:
        kind, match_id = text.strip("() ").split()[:2]
        if kind.lower() == "start":
            under_way.add(match_id)
        elif kind.lower() in ("stop", "abort"):
            under_way.discard(match_id)
        most = max(most, len(under_way))
    return most


ONE_CORE = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one match at once")


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=ONE_CORE)])
async def test_a_stopped_tournament_aborts_and_keeps_its_finished_matches(arena, jobs) -> None:
    view = await stop_after_a_match(await arena(), jobs)
    assert view["status"] == "aborted" and "stopped" in view["failure"]
    assert 1 <= view["done"] < 1000 and len(view["matches"]) == view["done"]


async def stop_after_a_match(client, jobs: int = 1) -> dict:
    """Start a tournament of 1000 matches, stop it once one has finished; its view once it
    has ended."""
    started = await client.post(
        "/api/tournaments",
        json={
            "game": {"builtin": "tictactoe"},
            # A search, not two random players, so that 1000 matches take minutes: the stop
            # comes first however slowly this test's own requests are answered.
            "players": ["mcts:iterations=500", "random"],
            "matches": 1000,
            "jobs": jobs,
        },
    )
    tournament_id = (await started.json())["id"]
    async with asyncio.timeout(120):
        while not (await (await client.get(f"/api/tournaments/{tournament_id}")).json())["done"]:
            await asyncio.sleep(0.1)
        stopped = await client.post(f"/api/tournaments/{tournament_id}/stop", json={})
        assert stopped.status == 200
        while (view := await (await client.get(f"/api/tournaments/{tournament_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.1)
    return view


async def test_a_stopped_tournament_killed_before_it_says_so_is_aborted(arena, monkeypatch) -> None:
    """On a loaded machine the process may not abort its matches within the grace: it is
    killed, says nothing, and the tournament still reads stopped, not finished."""
    monkeypatch.setattr(tournaments, "STOP_GRACE", 0.0)
    view = await stop_after_a_match(await arena())
    assert view["status"] == "aborted" and view["failure"] == "the tournament was stopped"
    assert 1 <= view["done"] < 1000
