"""benchmarks/position_probe.py: another player's moves in logged positions, over HTTP."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from ggp.player.agent_base import Clocks
from ggp.server.rules import referee_game

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import position_probe  # noqa: E402
from fake_players import served_apps  # noqa: E402
from gdl_texts import TICTACTOE_MOVES  # noqa: E402
from position_accuracy import Position  # noqa: E402

VALUES = {
    "(mark 1 3)": 1,
    "(mark 2 3)": 0,
    "(mark 3 1)": -1,
    "(mark 3 2)": -1,
    "(mark 3 3)": -1,
}


def rules() -> str:
    text = referee_game("tictactoe", gdl=True).rules
    assert text is not None
    return text


def match_log(tmp_path: Path) -> Path:
    log = tmp_path / "match.json"
    log.write_text(
        json.dumps({"moves": TICTACTOE_MOVES, "x-rules": rules(), "x-game": "tictactoe"})
    )
    return log


def test_the_forced_move_puts_the_logged_position_down(tmp_path: Path) -> None:
    match = json.loads(match_log(tmp_path).read_text())
    game, text, position = position_probe.checked_setup(match, 4)
    start = game.initial_state()
    assert not start.is_terminal()  # no blank cell there: tic-tac-toe's full board
    assert "probego" in start.legal_moves(0) and "noop" in start.legal_moves(1)
    assert "(init" not in text.replace("(init probesetup)", "")
    _, logged = position_probe.logged_position(match, 4)
    assert position.facts() == logged.facts()
    assert "(cell 1 1 x)" in position.facts() and "(control xplayer)" in position.facts()
    assert position.legal_moves(0) == logged.legal_moves(0)


def test_rules_that_use_the_setup_words_are_refused() -> None:
    with pytest.raises(ValueError, match="probesetup"):
        position_probe.setup_rules("(role a)\n(init probesetup)", [], ["a"])


def test_a_log_without_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="no rules"):
        position_probe.checked_setup({"moves": TICTACTOE_MOVES, "x-game": "tictactoe"}, 4)


class ScriptedPlayer:
    """A GGP player that answers START, the setup move, then `answer` at the position,
    and records every message."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.messages: list[str] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        text = await request.text()
        self.messages.append(text.split()[0].lstrip("("))
        if text.startswith("(START"):
            return web.Response(text="ready")
        if text.startswith("(PLAY") and text.endswith("NIL)"):
            return web.Response(text="probego")
        if text.startswith("(PLAY"):
            return web.Response(text=self.answer)
        return web.Response(text="aborted")

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/", self.handle)
        return app


@pytest.fixture
def fake_player(request) -> Iterator[ScriptedPlayer]:
    player = ScriptedPlayer(request.param)
    with served_apps(player.app()) as urls:
        player.url = urls[0]
        yield player


def probe(tmp_path: Path, url: str) -> list[dict]:
    position = Position(str(match_log(tmp_path)), 4, 0, VALUES, "(mark 2 3)", "tictactoe", 4)
    return position_probe.probe([position], url, Clocks(5, 5), [], lambda found: None)


@pytest.mark.parametrize("fake_player", ["( mark 1 3 )"], indirect=True)
def test_the_players_move_is_asked_after_the_setup_and_graded(
    tmp_path: Path, fake_player: ScriptedPlayer
) -> None:
    answers = probe(tmp_path, fake_player.url)
    assert fake_player.messages == ["START", "PLAY", "PLAY", "ABORT"]
    assert [(a["answer"], a["right"], a["problem"]) for a in answers] == [("(mark 1 3)", True, "")]
    text = position_probe.summary(answers)
    assert "kept the value at 1 of 1" in text
    assert "the move played in the match at 0 of 1" in text
    assert "1 better, 0 worse" in text


@pytest.mark.parametrize("fake_player", ["(mark 1 1)", "(mark"], indirect=True)
def test_an_illegal_or_garbled_answer_is_recorded_not_graded(
    tmp_path: Path, fake_player: ScriptedPlayer
) -> None:
    answers = probe(tmp_path, fake_player.url)
    assert answers[0]["answer"] is None and answers[0]["right"] is None
    assert answers[0]["problem"].startswith("not a legal move")
    assert fake_player.messages == ["START", "PLAY", "PLAY", "ABORT"]
    assert position_probe.summary(answers) == "no answers of 1 positions"


def test_a_player_that_does_not_answer_is_recorded(tmp_path: Path) -> None:
    with served_apps(web.Application()) as urls:
        pass  # the port is free again: nothing listens there
    answers = probe(tmp_path, urls[0])
    assert answers[0]["answer"] is None
    assert answers[0]["problem"].startswith("start: CE")


@pytest.mark.parametrize("fake_player", ["(mark 1 3)"], indirect=True)
def test_a_rerun_asks_only_the_positions_without_an_answer(
    tmp_path: Path, fake_player: ScriptedPlayer
) -> None:
    log = match_log(tmp_path)
    answered = Position(str(log), 4, 0, VALUES, "(mark 2 3)", "tictactoe", 4)
    earlier = [{**answered.as_json(), "answer": "(mark 2 3)", "right": False, "problem": ""}]
    answers = position_probe.probe(
        [answered], fake_player.url, Clocks(5, 5), earlier, lambda found: None
    )
    assert fake_player.messages == []
    assert answers == earlier
