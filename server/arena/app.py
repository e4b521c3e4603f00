"""The arena's aiohttp application: the JSON API, the live updates and the page.

Every error is answered as JSON ``{"error": TEXT}`` with a 4xx status (a
500 without details for a bug, which is logged); bodies are limited to
`ArenaConfig.max_body` bytes.  Who may send requests is `ggp.server.arena.guard`'s
business (its page, from a Host it serves, with its key beyond loopback).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from ggp.games.base import GameError
from ggp.player.agents import AGENTS, MCTS_OPTIONS
from ggp.server.arena.arena import Arena, ArenaConfig, ArenaFull
from ggp.server.arena.catalogue import builtin_games, faults_of, kif_files, resolve_game
from ggp.server.arena.guard import guard
from ggp.server.arena.seat import PERSON, IllegalPersonMove, NotYourTurn

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
ARENA = web.AppKey("arena", Arena)


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


def _error(status: int, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


@web.middleware
async def json_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as error:
        return _error(error.status, str(error), **error.extra)
    except GameError as error:
        return _error(400, str(error))
    except web.HTTPException as error:
        if error.status < 400 or not request.path.startswith("/api/"):
            raise
        return _error(error.status, error.reason)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("arena: %s %s failed", request.method, request.path)
        return _error(500, "internal error (logged by the arena)")


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ApiError(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


def _arena(request: web.Request) -> Arena:
    return request.app[ARENA]


def _live(request: web.Request):
    match = _arena(request).live.get(request.match_info["match_id"])
    if match is None:
        raise ApiError(404, "no such match under way in this arena")
    return match


def _role(match: Any, body: dict[str, Any]) -> int:
    role = body.get("role")
    if isinstance(role, str) and role in match.roles:
        return match.roles.index(role)
    if isinstance(role, int) and not isinstance(role, bool) and 0 <= role < len(match.roles):
        return role
    raise ApiError(400, f"role: expected one of {', '.join(match.roles)} or its index")


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html")


async def games(request: web.Request) -> web.Response:
    arena = _arena(request)
    files = sorted(kif_files(arena.config.games_dir))
    agents = {
        "agents": [name for name in AGENTS if name != "human"] + [PERSON],
        "mcts_options": sorted(MCTS_OPTIONS),
    }
    return web.json_response({"builtin": builtin_games(), "files": files, **agents})


async def check_rules(request: web.Request) -> web.Response:
    """Validate a game (pasted GDL, say): its roles, or its faults with their lines."""
    arena = _arena(request)
    body = await _body(request)
    try:
        game = await asyncio.to_thread(resolve_game, body.get("game"), arena.config.games_dir)
    except GameError as error:
        return web.json_response({"ok": False, "faults": faults_of(error)})
    return web.json_response(
        {"ok": True, "name": game.spec, "roles": list(game.game.roles), "faults": []}
    )


async def start_match(request: web.Request) -> web.Response:
    body = await _body(request)
    try:
        match = await _arena(request).start_match(body)
    except ArenaFull as error:
        return _error(429, str(error))
    except GameError as error:
        return _error(400, str(error), faults=faults_of(error))
    return web.json_response({"id": match.id, "roles": list(match.roles)}, status=201)


async def list_matches(request: web.Request) -> web.Response:
    query = request.query
    arena = _arena(request)
    rows = arena.store.matches(query.get("game"), query.get("player"))
    listed = [row.to_json() for row in rows]
    for row in listed:  # a running match's index row is from its start: count its steps now
        live = arena.live.get(row["id"])
        if live is not None and live.record is not None:
            row["steps"] = len(live.record.moves)
    return web.json_response({"matches": listed})


async def match_view(request: web.Request) -> web.Response:
    arena = _arena(request)
    match_id = request.match_info["match_id"]
    if (live := arena.live.get(match_id)) is not None:
        return web.json_response(live.snapshot())
    row = arena.store.match(match_id)
    if row is None:
        raise ApiError(404, "no such match")
    return web.json_response(await asyncio.to_thread(arena.stored_view, row))


async def match_socket(request: web.Request) -> web.WebSocketResponse:
    """The live updates of a match: a snapshot, then every change, as JSON messages."""
    match = _live(request)
    socket = web.WebSocketResponse(heartbeat=30)
    await socket.prepare(request)
    queue = match.subscribe()
    reader = asyncio.create_task(_drain(socket))
    getting: asyncio.Task | None = None
    try:
        while not socket.closed:
            getting = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({getting, reader}, return_when=asyncio.FIRST_COMPLETED)
            if getting not in done:
                break
            await socket.send_json(getting.result())
    except ConnectionResetError:
        pass
    finally:
        match.unsubscribe(queue)
        reader.cancel()
        if getting is not None:
            getting.cancel()
        await socket.close()
    return socket


async def _drain(socket: web.WebSocketResponse) -> None:
    """Read (and ignore) what the page sends, until it closes the socket."""
    async for message in socket:
        if message.type == WSMsgType.ERROR:
            break


async def play_move(request: web.Request) -> web.Response:
    match = _live(request)
    body = await _body(request)
    role = _role(match, body)
    person = match.person(role)
    if person is None:
        raise ApiError(403, f"{match.roles[role]} is not played by a person here")
    move = body.get("move")
    if not isinstance(move, str):
        raise ApiError(400, "move: expected the text of a move")
    try:
        played = person.submit(move)
    except IllegalPersonMove as error:
        raise ApiError(409, str(error), legal=list(error.legal)) from None
    except NotYourTurn as error:
        raise ApiError(409, str(error), legal=[]) from None
    return web.json_response({"move": played})


async def give_hint(request: web.Request) -> web.Response:
    match = _live(request)
    role = _role(match, await _body(request))
    person = match.person(role)
    if person is None or not person.waiting or person.state is None:
        raise ApiError(409, "a hint is given to a person whose turn it is")
    if match.game.game.gdl_ii:
        raise ApiError(409, "no hints in a GDL-II game: a hint would search the hidden state")
    try:
        ranking = await match.hint(role)
    except (TimeoutError, ConnectionError, OSError) as error:
        raise ApiError(503, f"no hint now: {type(error).__name__} {error}".strip()) from None
    return web.json_response({"role": role, "ranking": ranking})


async def abort_match(request: web.Request) -> web.Response:
    match = _live(request)
    match.abort("the match was stopped from its page")
    return web.json_response({"id": match.id})


async def download_log(request: web.Request) -> web.StreamResponse:
    match_id = request.match_info["match_id"]
    live = _arena(request).live.get(match_id)
    if live is not None and live.hidden_role is not None:
        raise ApiError(409, "the log of a GDL-II match with a person is given once it is over")
    path = _arena(request).log_path(match_id)
    if path is None:
        raise ApiError(404, "no log for this match")
    return web.FileResponse(
        path,
        headers={
            "Content-Type": "application/json",
            "Content-Disposition": f'attachment; filename="{path.name}"',
        },
    )


async def import_logs(request: web.Request) -> web.Response:
    added = await asyncio.to_thread(_arena(request).import_logs)
    return web.json_response({"added": added})


async def start_tournament(request: web.Request) -> web.Response:
    body = await _body(request)
    try:
        tournament = await _arena(request).start_tournament(body)
    except ArenaFull as error:
        return _error(429, str(error))
    except GameError as error:
        return _error(400, str(error), faults=faults_of(error))
    return web.json_response({"id": tournament.id}, status=201)


async def list_tournaments(request: web.Request) -> web.Response:
    listed = await asyncio.to_thread(_arena(request).tournament_list)
    return web.json_response({"tournaments": listed})


async def tournament_view(request: web.Request) -> web.Response:
    view = _arena(request).tournament_view(request.match_info["tournament_id"])
    if view is None:
        raise ApiError(404, "no such tournament")
    return web.json_response(view)


async def stop_tournament(request: web.Request) -> web.Response:
    tournament = _arena(request).tournaments.get(request.match_info["tournament_id"])
    if tournament is None:
        raise ApiError(404, "no such tournament under way")
    await tournament.stop()
    return web.json_response({"id": tournament.id})


async def _startup(app: web.Application) -> None:
    arena = app[ARENA]
    arena.open()
    app[IMPORTING] = asyncio.create_task(asyncio.to_thread(arena.import_logs))


async def _cleanup(app: web.Application) -> None:
    await app[ARENA].close()
    importing = app[IMPORTING]
    await asyncio.gather(importing, return_exceptions=True)


IMPORTING = web.AppKey("importing", asyncio.Task)


def create_app(config: ArenaConfig | None = None) -> web.Application:
    """The arena as an aiohttp application (`ggp arena` serves it)."""
    config = config or ArenaConfig()
    app = web.Application(
        middlewares=[guard(config.access), json_errors], client_max_size=config.max_body
    )
    app[ARENA] = Arena(config)
    app.on_startup.append(_startup)
    app.on_cleanup.append(_cleanup)
    app.router.add_get("/", index)
    app.router.add_get("/api/games", games)
    app.router.add_post("/api/check", check_rules)
    app.router.add_get("/api/matches", list_matches)
    app.router.add_post("/api/matches", start_match)
    app.router.add_get("/api/matches/{match_id}", match_view)
    app.router.add_get("/api/matches/{match_id}/live", match_socket)
    app.router.add_post("/api/matches/{match_id}/move", play_move)
    app.router.add_post("/api/matches/{match_id}/hint", give_hint)
    app.router.add_post("/api/matches/{match_id}/abort", abort_match)
    app.router.add_get("/api/matches/{match_id}/log", download_log)
    app.router.add_post("/api/import", import_logs)
    app.router.add_get("/api/tournaments", list_tournaments)
    app.router.add_post("/api/tournaments", start_tournament)
    app.router.add_get("/api/tournaments/{tournament_id}", tournament_view)
    app.router.add_post("/api/tournaments/{tournament_id}/stop", stop_tournament)
    app.router.add_static("/static/", STATIC)
    return app
