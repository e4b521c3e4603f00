"""Who may drive the arena, and what it may be made to reach (`ggp.server.arena.guard`,
`ggp.server.arena.player_policy`, `ggp.server.remote`): the probes of issue 35, at the
HTTP level."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web
from ggp.server.arena.app import create_app
from ggp.server.arena.arena import ArenaConfig
from ggp.server.remote import MAX_REPLY, RemotePlayer

pytestmark = pytest.mark.asyncio

TICTACTOE = {"builtin": "tictactoe"}
EVIL = "http://evil.example"


@pytest.fixture
def config(tmp_path: Path) -> ArenaConfig:
    return ArenaConfig(db=tmp_path / "arena.sqlite", log_dir=tmp_path / "logs")


async def matches_known(client) -> list:
    return (await (await client.get("/api/matches")).json())["matches"]


def own_origin(client) -> str:
    return f"http://{client.host}:{client.port}"


# --- 1. only the arena's page drives the API -----------------------------------------------


async def test_a_json_request_from_the_arena_page_starts_a_match(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config))
    body = {"game": TICTACTOE, "players": ["random", "random"]}
    response = await client.post("/api/matches", json=body, headers={"Origin": own_origin(client)})
    assert response.status == 201, await response.text()


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"Content-Type": "text/plain", "Origin": "SELF"}, 415),  # no preflight: a form's type
        ({"Content-Type": "application/x-www-form-urlencoded", "Origin": EVIL}, 403),
        ({"Content-Type": "application/json", "Origin": EVIL}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "application/json"}, 403),  # neither Origin nor Sec-Fetch-Site
    ],
)
async def test_a_request_not_from_the_page_starts_nothing(
    aiohttp_client, config, headers, status
) -> None:
    client = await aiohttp_client(create_app(config))
    headers = {k: own_origin(client) if v == "SELF" else v for k, v in headers.items()}
    body = json.dumps({"game": TICTACTOE, "players": ["random", "random"]})
    for path in ("/api/matches", "/api/tournaments"):
        response = await client.post(path, data=body, headers=headers)
        assert response.status == status
        assert (await response.json())["error"]
    assert await matches_known(client) == []
    assert (await (await client.get("/api/tournaments")).json())["tournaments"] == []


async def test_a_forged_host_is_refused_and_an_allowed_name_served(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config))
    for path in ("/", "/api/games"):
        response = await client.get(path, headers={"Host": "rebound.example:8080"})
        assert response.status == 421
        assert "--allow-host" in await response.text()
    assert (await client.get("/", headers={"Host": f"localhost:{client.port}"})).status == 200
    named = await aiohttp_client(create_app(_with(config, allowed_hosts=("arena.lan",))))
    assert (await named.get("/api/games", headers={"Host": "arena.lan:8080"})).status == 200


async def test_a_websocket_from_another_page_is_refused(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config))
    response = await client.post(
        "/api/matches",
        json={"game": TICTACTOE, "players": ["person", "random"]},
        headers={"Origin": own_origin(client)},
    )
    match_id = (await response.json())["id"]
    refused = await client.get(f"/api/matches/{match_id}/live", headers={"Origin": EVIL})
    assert refused.status == 403
    async with client.ws_connect(
        f"/api/matches/{match_id}/live", headers={"Origin": own_origin(client)}
    ) as socket:
        assert (await socket.receive_json())["type"] == "snapshot"


# --- 5. beyond loopback, a key --------------------------------------------------------------


def _with(config: ArenaConfig, **changes) -> ArenaConfig:
    from dataclasses import replace

    return replace(config, **changes)


async def test_an_arena_with_a_key_wants_it_as_a_header_or_a_login_cookie(
    aiohttp_client, config
) -> None:
    client = await aiohttp_client(create_app(_with(config, host="0.0.0.0", token="k3y")))
    assert (await client.get("/api/games")).status == 401
    assert (await client.get("/")).status == 401
    bearer = {"Authorization": "Bearer k3y"}
    assert (await client.get("/api/games", headers=bearer)).status == 200
    assert (await client.get("/api/games", headers={"Authorization": "Bearer nope"})).status == 401
    assert (await client.get("/login?token=nope", allow_redirects=False)).status == 401
    login = await client.get("/login?token=k3y", allow_redirects=False)
    assert login.status == 303 and login.headers["Location"] == "/"
    cookie = login.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert (await client.get("/api/games")).status == 200  # the cookie jar keeps it


# --- 2. players by URL under a policy --------------------------------------------------------


@pytest.mark.parametrize(
    "spec, says",
    [
        ("http://user:secret@127.0.0.1:9147/", "no user name or password"),
        ("http://127.0.0.1:22/", "not 127.0.0.1:22"),
        ("http://10.0.0.1:9147/", "allowed: 127.0.0.1:9147"),
    ],
)
async def test_players_by_url_beyond_loopback_only_from_the_allow_list(
    aiohttp_client, config, spec, says
) -> None:
    opened = _with(config, host="0.0.0.0", token="k", allow_players=("127.0.0.1:9147",))
    client = await aiohttp_client(create_app(opened), headers={"Authorization": "Bearer k"})
    for path in ("/api/matches", "/api/tournaments"):
        response = await client.post(
            path,
            json={"game": TICTACTOE, "players": [spec, "random"], "startclock": 5, "playclock": 5},
            headers={"Origin": own_origin(client)},
        )
        assert response.status == 400
        assert says in (await response.json())["error"]
    assert await matches_known(client) == []


def _player_app(play) -> web.Application:
    async def handle(request: web.Request) -> web.StreamResponse:
        text = await request.text()
        if text.startswith("(play"):
            return await play(request)
        return web.Response(text="done" if text.startswith("(stop") else "ready")

    app = web.Application()
    app.router.add_post("/", handle)
    return app


async def _send(url: str) -> tuple[RemotePlayer, object]:
    player = RemotePlayer(url)
    try:
        return player, await player.send("(play m nil)", 30)
    finally:
        await player.close()


async def test_a_redirect_is_not_followed(aiohttp_server) -> None:
    reached: list[str] = []

    async def inner(request: web.Request) -> web.Response:
        reached.append(request.method)
        return web.Response(text="internal secret")

    target = web.Application()
    target.router.add_route("*", "/", inner)
    target_server = await aiohttp_server(target)

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(str(target_server.make_url("/")))

    server = await aiohttp_server(_player_app(redirect))
    player, reply = await _send(str(server.make_url("/")))
    assert reply.error == "CE" and reply.text is None
    assert player.problem == "it answered a redirect (307)"
    assert reached == []


async def test_a_reply_over_64_kb_is_cut_short(aiohttp_server) -> None:
    async def flood(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        for _ in range(20 * 16):  # 20 MB, 64 KB at a time
            await response.write(b"x" * 65536)
        return response

    server = await aiohttp_server(_player_app(flood))
    player, reply = await _send(str(server.make_url("/")))
    assert reply.error == "CE"
    assert player.problem == f"reply over {MAX_REPLY // 1024} KB"


async def test_a_refused_connection_is_said_in_words(unused_tcp_port) -> None:
    player, reply = await _send(f"http://127.0.0.1:{unused_tcp_port}/")
    assert reply.error == "CE" and player.problem == "connection refused"


async def test_what_an_address_answers_is_never_shown(aiohttp_client, aiohttp_server, config):
    async def secret(request: web.Request) -> web.Response:
        return web.Response(text="intranet-secret-42")

    server = await aiohttp_server(_player_app(secret))
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    response = await client.post(
        "/api/matches",
        json={
            "game": {"builtin": "tictactoe", "gdl": True},
            "players": [str(server.make_url("/")), "random"],
            "startclock": 5,
            "playclock": 5,
        },
    )
    assert response.status == 201, await response.text()
    match_id = (await response.json())["id"]
    async with asyncio.timeout(120):
        while (view := await (await client.get(f"/api/matches/{match_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.2)
    assert view["status"] == "finished"
    shown = json.dumps(view) + await (await client.get(f"/api/matches/{match_id}/log")).text()
    assert "intranet-secret" not in shown
    assert [step["errors"][0] for step in view["steps"][1:] if step["errors"][0]][0] == "IL"


# --- 3. names are never paths ----------------------------------------------------------------


@pytest.mark.parametrize(
    "game",
    [
        {"builtin": "/etc/hostname.kif"},
        {"builtin": "../games/gdl/tictactoe.kif"},
        {"file": "../games/gdl/tictactoe.kif"},
        {"file": "/nonexistent/x.kif"},
    ],
)
async def test_a_game_is_a_name_never_a_path(aiohttp_client, config, game) -> None:
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    for path in ("/api/matches", "/api/tournaments"):
        response = await client.post(path, json={"game": game, "players": ["random", "random"]})
        assert response.status == 400
        error = (await response.json())["error"]
        assert ".kif" not in error.replace(game.get("file", "\0"), "")  # no path is echoed
        assert "No such file" not in error and "Errno" not in error
    assert await matches_known(client) == []


async def test_an_agent_option_naming_a_folder_is_refused(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    for path in ("/api/matches", "/api/tournaments"):
        response = await client.post(
            path, json={"game": TICTACTOE, "players": ["mcts:table=/tmp/x", "random"]}
        )
        assert response.status == 400
        assert "takes no paths" in (await response.json())["error"]


# --- 4. bounded work -------------------------------------------------------------------------


def _slow_player(seconds: float) -> web.Application:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(seconds)
        return web.Response(text="noop")

    return _player_app(slow)


def _slow_match(url: str) -> dict:
    return {
        "game": {"builtin": "tictactoe", "gdl": True},
        "players": [url, "random"],
        "startclock": 30,
        "playclock": 30,
    }


async def test_the_match_cap_holds_for_requests_at_once(
    aiohttp_client, aiohttp_server, config
) -> None:
    server = await aiohttp_server(_slow_player(60))
    capped = _with(config, max_matches=3, max_waiting=0)
    client = await aiohttp_client(create_app(capped), headers={"Sec-Fetch-Site": "same-origin"})
    url = str(server.make_url("/"))
    answers = await asyncio.gather(
        *(client.post("/api/matches", json=_slow_match(url)) for _ in range(20))
    )
    statuses = sorted(answer.status for answer in answers)
    assert statuses == [201] * 3 + [429] * 17
    for answer in answers:
        if answer.status == 201:
            await client.post(f"/api/matches/{(await answer.json())['id']}/abort", json={})


async def test_the_tournament_cap_holds_for_requests_at_once(
    aiohttp_client, aiohttp_server, config
) -> None:
    server = await aiohttp_server(_slow_player(60))
    client = await aiohttp_client(
        create_app(_with(config, max_tournaments=1)), headers={"Sec-Fetch-Site": "same-origin"}
    )
    body = {**_slow_match(str(server.make_url("/"))), "matches": 2}
    answers = await asyncio.gather(*(client.post("/api/tournaments", json=body) for _ in range(6)))
    assert sorted(answer.status for answer in answers) == [201] + [429] * 5
    started = next(answer for answer in answers if answer.status == 201)
    await client.post(f"/api/tournaments/{(await started.json())['id']}/stop", json={})


ENDLESS = """(role a)
(init (count 0))
(<= (legal a (go ?x)) (true (count ?x)))
(<= (next (count ?x)) (true (count ?x)))
(<= terminal (true (count 9)))
(goal a 0)
"""

GROWING = ENDLESS.replace("(<= (next (count ?x))", "(<= (next (count (s ?x)))")


async def test_a_match_ends_at_its_step_limit_and_is_logged_so(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    response = await client.post(
        "/api/matches",
        json={
            "game": {"rules": ENDLESS, "name": "endless"},
            "players": ["random"],
            "max_steps": 25,
        },
    )
    assert response.status == 201, await response.text()
    match_id = (await response.json())["id"]
    async with asyncio.timeout(120):
        while (view := await (await client.get(f"/api/matches/{match_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.1)
    assert view["status"] == "aborted"
    assert "limit of 25 steps" in view["failure"]
    assert len(view["steps"]) == 26  # the initial state and 25 joint moves
    logged = json.loads(await (await client.get(f"/api/matches/{match_id}/log")).text())
    assert len(logged["moves"]) == 25
    too_many = await client.post(
        "/api/matches",
        json={"game": {"rules": ENDLESS}, "players": ["random"], "max_steps": 10_000},
    )
    assert too_many.status == 400 and "max_steps" in (await too_many.json())["error"]


async def test_a_game_whose_terms_grow_is_refused_before_it_starts(aiohttp_client, config):
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    game = {"rules": GROWING, "name": "growing"}
    check = await (await client.post("/api/check", json={"game": game})).json()
    assert not check["ok"] and "grow for ever" in check["faults"][0]["message"]
    for path in ("/api/matches", "/api/tournaments"):
        response = await client.post(path, json={"game": game, "players": ["random"]})
        assert response.status == 400
        assert "line 4: (next (count (s ?x)))" in (await response.json())["error"]
    assert await matches_known(client) == []


# --- 6. what the page is told ----------------------------------------------------------------


async def _until_over(client, match_id: str) -> dict:
    async with asyncio.timeout(120):
        while (view := await (await client.get(f"/api/matches/{match_id}")).json())[
            "status"
        ] == "running":
            await asyncio.sleep(0.1)
    return view


async def test_an_unreachable_player_s_errors_say_why(
    aiohttp_client, config, unused_tcp_port
) -> None:
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    response = await client.post(
        "/api/matches", json=_slow_match(f"http://127.0.0.1:{unused_tcp_port}/")
    )
    view = await _until_over(client, (await response.json())["id"])
    assert view["steps"][0]["errors"][0] == "CE"
    assert view["steps"][0]["reasons"] == ["connection refused", None]
    assert {step["reasons"][0] for step in view["steps"][1:] if step["errors"][0]} == {
        "connection refused"
    }


async def test_the_history_counts_a_running_match_s_steps(aiohttp_client, config) -> None:
    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    response = await client.post(
        "/api/matches", json={"game": TICTACTOE, "players": ["random", "person"]}
    )
    match_id = (await response.json())["id"]
    async with asyncio.timeout(60):
        while not (await (await client.get(f"/api/matches/{match_id}")).json())["waiting"]:
            await asyncio.sleep(0.1)
    (row,) = await matches_known(client)
    assert row["status"] == "running" and row["steps"] == 1


async def test_a_pasted_game_is_named_by_its_person_or_its_roles(aiohttp_client, config) -> None:
    from gdl_texts import PENNIES

    client = await aiohttp_client(create_app(config), headers={"Sec-Fetch-Site": "same-origin"})
    for game, name in (
        ({"rules": PENNIES}, "left-right"),
        ({"rules": PENNIES, "name": "Matching pennies!"}, "Matching-pennies"),
    ):
        checked = await (await client.post("/api/check", json={"game": game})).json()
        assert checked["name"] == name
