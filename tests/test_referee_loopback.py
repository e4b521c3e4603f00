"""Our referee against our own HTTP player (`ggp.player.service.http_player`) over loopback."""

from __future__ import annotations

import asyncio
import json

from aiohttp import web
from ggp.cli import main
from ggp.player.agents import Clocks
from ggp.player.service.http_player import PlayerConfig, create_app
from ggp.server.match import make_players, referee_match
from ggp.server.match_log import read_log, replay
from ggp.server.rules import game_from_rules, referee_game

CLOCKS = Clocks(start=30, play=15)
"""Clocks long enough for a loaded machine: the start clock covers the player's search
process starting up; the players search 200 simulations a move, well within the play
clock, and answer as soon as they have."""


async def serve_players(count: int) -> tuple[list[web.AppRunner], list[str]]:
    runners, urls = [], []
    for number in range(count):
        config = PlayerConfig(name=f"loop{number}", iterations=200, max_matches=2)
        runner = web.AppRunner(create_app(config), shutdown_timeout=0.5)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        runners.append(runner)
        urls.append(f"http://{host}:{port}")
    return runners, urls


def test_two_of_our_players_play_a_complete_match_without_errors(tmp_path) -> None:
    game = referee_game("tictactoe")  # refereed natively, sent as its GDL twin

    async def scenario():
        runners, urls = await serve_players(2)
        try:
            players = make_players(game.game, urls, 1)
            return await referee_match(game, players, clocks=CLOCKS, seed=1, log_dir=tmp_path)
        finally:
            for runner in runners:
                await runner.cleanup()

    record = asyncio.run(scenario())
    assert record.completed and all(error == "" for step in record.errors for error in step)
    logged = read_log(tmp_path / f"{record.match_id}.json")
    assert logged.completed and logged.goals == record.goals
    assert logged.goals == record.states[-1].goals()
    states = replay(logged, game_from_rules(logged.rules or ""))  # the rules the players got
    assert [state.facts() for state in states] == list(logged.states)
    # MCTS with 200 simulations a move does not lose tic-tac-toe to itself often; a
    # complete match has goals from the rules, which is what matters here.
    assert sorted(logged.goals or ()) in ([0, 100], [50, 50])


def test_ggp_match_against_our_player_at_an_address(tmp_path, capsys) -> None:
    from fake_players import served_apps

    with served_apps(create_app(PlayerConfig(name="loop", iterations=100))) as (url,):
        code = main(
            [
                "match",
                "tictactoe",
                url,
                "random",
                "--startclock",
                "30",
                "--playclock",
                "15",
                "--seed",
                "2",
                "--log-dir",
                str(tmp_path),
            ]
        )
    assert code == 0
    out = capsys.readouterr().out
    assert "xplayer" in out and f"({url})" in out and "Errors" not in out
    (path,) = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    assert data["isCompleted"] and data["playerNamesFromHost"] == [url, "random"]
    assert data["errors"] == [["", ""]] * len(data["states"])
