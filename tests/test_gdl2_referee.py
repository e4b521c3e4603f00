"""The referee on GDL-II games: chance moved by the referee, each player told only
its own move and percepts (in process and over HTTP, as the Dresden GameController
sends them), logs holding the true states and each role's view."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections import Counter
from collections.abc import AsyncIterator, Sequence

import pytest
from aiohttp import web
from ggp.cli import main
from ggp.games.base import GameError, State
from ggp.games.registry import GDL_II_DIR, load_game
from ggp.player.agents import Agent, Clocks, Sight, make_agent
from ggp.server.match import make_players, play_match, run_match
from ggp.server.match_log import read_log, replay
from ggp.server.messages import gdl_ii_message
from ggp.server.players import AgentPlayer
from ggp.server.rules import game_from_rules

MONTY = load_game("monty_hall", reasoner="interpreter")


class Spy(Agent):
    """Plays the first legal move and records everything it is told."""

    spec = "spy"
    plays_unseen = True

    def __init__(self) -> None:
        self.told: list[tuple] = []

    def perceive(self, sight: Sight) -> None:
        self.told.append(("perceive", sight))

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        self.told.append(("legal", tuple(legal)))
        return legal[-1]

    def choose_move(self, state: State, deadline: float | None) -> str:
        raise AssertionError("a GDL-II agent was shown the state")

    def observe(self, joint: Sequence[str], state: State) -> None:
        raise AssertionError("a GDL-II agent was shown the joint move")


def test_an_agent_is_told_its_own_moves_and_percepts_only(tmp_path) -> None:
    spy = Spy()
    players = make_players(MONTY, ["legal"], seed=1)  # the candidate's seat, then chance
    players[0] = AgentPlayer(spy)
    record = asyncio.run(run_match(MONTY, players, seed=1, log_dir=tmp_path))
    told = spy.told
    assert [kind for kind, _ in told] == ["legal"] + ["perceive", "legal"] * 3 + ["perceive"]
    car = record.moves[0][1][-2]
    opened = record.moves[2][1]
    chosen = record.moves[1][0]
    assert told[0] == ("legal", ("noop",))
    assert told[1] == ("perceive", Sight("noop", ()))
    assert told[3] == ("perceive", Sight(chosen, ()))  # nothing of the car
    assert told[5] == ("perceive", Sight("noop", (opened,)))
    assert told[6] == ("legal", ("noop", "switch"))
    assert told[7] == ("perceive", Sight("switch", (f"(car {car})",)))
    assert record.percepts[2] == ((opened,), ())


def test_the_log_holds_the_true_states_and_each_roles_view(tmp_path) -> None:
    record = play_match(
        load_game("kuhn_poker"), [_agent("random"), _agent("legal")], seed=4, log_dir=tmp_path
    )
    (path,) = tmp_path.glob("*.json")
    logged = read_log(path)
    assert logged.percepts == tuple(tuple(step) for step in record.percepts)
    deal = logged.moves[0][2]
    first_card = deal.strip("()").split()[1]
    assert logged.role_view(0)[0] == ("noop", (f"(your_card {first_card})",))
    assert all(move == "noop" or "(deal" in move for move, _ in logged.role_view(2))
    assert any(f"(hand first {first_card})" in state for state in logged.states[1])
    replay(logged, load_game("kuhn_poker"))  # the true states follow from the moves
    data = json.loads(path.read_text())
    assert len(data["x-percepts"]) == len(data["moves"])


def test_a_plain_game_log_has_no_percepts(tmp_path) -> None:
    play_match(load_game("tictactoe"), [_agent("legal"), _agent("legal")], log_dir=tmp_path)
    (path,) = tmp_path.glob("*.json")
    assert "x-percepts" not in json.loads(path.read_text())
    with pytest.raises(GameError, match="not a GDL-II match"):
        read_log(path).role_view(0)


def test_chance_is_moved_uniformly_by_the_referee() -> None:
    cars = Counter()
    for seed in range(120):
        record = asyncio.run(run_match(MONTY, make_players(MONTY, ["random"], seed), seed=seed))
        cars[record.moves[0][1]] += 1
    assert set(cars) == {"(hide_car 1)", "(hide_car 2)", "(hide_car 3)"}
    assert min(cars.values()) >= 25  # 40 each expected; 25 is over 3 deviations below


def test_an_agent_that_sees_the_state_cannot_play_a_gdl_ii_game() -> None:
    with pytest.raises(GameError, match="would see the whole state: play it with ismcts"):
        asyncio.run(run_match(MONTY, make_players(MONTY, ["mcts:iterations=10"], seed=0)))


def _agent(spec: str) -> Agent:
    return make_agent(spec, seed=0)


@contextlib.asynccontextmanager
async def recording(replies: dict[str, str]) -> AsyncIterator[tuple[str, list[str]]]:
    """An HTTP player that records every message and answers by its kind."""
    messages: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        text = await request.text()
        messages.append(text)
        kind = text.strip("( ").split()[0].lower()
        return web.Response(text=replies.get(kind, "done"))

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield f"http://127.0.0.1:{port}", messages
    finally:
        await runner.cleanup()


def test_a_remote_player_gets_the_gamecontrollers_gdl_ii_messages() -> None:
    rules = (GDL_II_DIR / "monty_hall.kif").read_text()
    game = game_from_rules(rules, "monty_hall")

    async def match():
        async with recording({"start": "ready", "play": "noop"}) as (url, messages):
            players = make_players(game, [url], seed=2)
            record = await run_match(
                game, players, rules=rules, clocks=Clocks(start=5, play=5), seed=2
            )
            for player in players:
                await player.close()
            return record, messages

    record, messages = asyncio.run(match())
    match_id = record.match_id
    chosen = record.moves[1][0]  # "noop" is not legal there: the referee chose
    opened = record.moves[2][1]
    car = record.moves[0][1][-2]
    assert messages[1:] == [
        f"(PLAY {match_id} 0 NIL NIL)",
        f"(PLAY {match_id} 1 noop NIL)",
        f"(PLAY {match_id} 2 {chosen} NIL)",
        f"(PLAY {match_id} 3 noop ({opened}))",
        f"(STOP {match_id} 4 {record.moves[3][0]} ((car {car})))",
    ]
    assert record.errors[2][0] == "IL noop"


def test_gdl_ii_messages_are_spelt_as_the_gamecontroller_spells_them() -> None:
    assert gdl_ii_message("PLAY", "m1", 0, None, ()) == "(PLAY m1 0 NIL NIL)"
    assert gdl_ii_message("STOP", "m1", 3, "(mark 1 1)", ("ok", "(car 2)")) == (
        "(STOP m1 3 (mark 1 1) (ok (car 2)))"
    )


def test_ggp_match_plays_a_gdl_ii_game(tmp_path, capsys) -> None:
    code = main(
        ["match", "monty_hall", "ismcts:iterations=50", "--seed", "1", "--log-dir", str(tmp_path)]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "candidate" in out and "random role" in out
    (path,) = tmp_path.glob("*.json")
    assert len(read_log(path).percepts) == 4
