"""ggp serve on GDL-II matches: the GameController's (play ID TURN LASTMOVE PERCEPTS)
read and answered from what we saw, refereed end to end; its older form too; the
role random refused; plain GDL messages untouched."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import urllib.request

import pytest
from fake_players import served_apps
from ggp.games.registry import GDL_II_DIR
from ggp.gdl.native.build import NativeUnavailable, check_available
from ggp.player.agents import Clocks
from ggp.player.service import game_process
from ggp.player.service.http_player import PlayerConfig, create_app
from ggp.player.service.protocol import Play, ProtocolError, Seen, Stop, parse_message
from ggp.server.match import make_players, run_match
from ggp.server.rules import referee_game

MONTY = (GDL_II_DIR / "monty_hall.kif").read_text()


def post(url: str, message: str) -> str:
    request = urllib.request.Request(url, data=message.encode(), method="POST")
    request.add_header("Content-Type", "text/acl")
    with urllib.request.urlopen(request, timeout=120) as reply:
        return reply.read().decode().strip()


def referee(specs: list[str], seed: int):
    monty = referee_game("monty_hall")
    game, rules = monty.game, monty.rules

    async def match():
        players = make_players(game, specs, seed)
        try:
            return await run_match(
                game, players, rules=rules, clocks=Clocks(start=30, play=20), seed=seed
            )
        finally:
            for player in players:
                await player.close()

    return asyncio.run(match())


@pytest.mark.parametrize("seed", [1, 2])
def test_served_monty_hall_switches_from_what_it_saw(seed: int, caplog) -> None:
    with (
        caplog.at_level(logging.INFO),
        served_apps(create_app(PlayerConfig(iterations=400))) as (url,),
    ):
        record = referee([url], seed)
    assert record.errors[1:] == [("", "")] * 4  # every reply legal and in time
    assert record.moves[3][0] == "switch"
    searched = [
        r.getMessage() for r in caplog.records if "information-set search" in r.getMessage()
    ]
    assert searched  # the log says what searched, and on what reasoner
    assert all(re.search(r"\((interpreter|compiled|native code)", line) for line in searched)


def test_the_copy_searches_on_the_interpreter_until_native_code_is_built(monkeypatch) -> None:
    """A GDL-II match's copy builds the rules again (compiled, native code attached when
    built) and moves its belief there; each choice says what played the rules."""
    release = threading.Event()
    built = []

    def held(rules: str):
        release.wait(60)
        game = game_process.game_from_text(rules, "the rules of this match", "native")
        built.append(game)
        return game

    monkeypatch.setattr(game_process, "build_faster", held)
    copy = game_process.GameCopy()
    copy.build(MONTY, "candidate")
    until = time.time() + 120
    first = copy.choose(until, 5)
    assert first["reasoner"] == "interpreter, while the faster rules are built"
    release.set()
    assert copy.staged is not None and copy.staged.wait(120)
    (game,) = built
    try:
        check_available()
    except NativeUnavailable:
        expected = "compiled (generated Python"
    else:
        game.native_build.join()
        expected = "native code"
    copy.perceive("noop", [])
    assert copy.belief is not None and copy.belief.game is game
    assert copy.choose(until, 20)["reasoner"].startswith(expected)
    copy.perceive("(choose 1)", [])
    assert copy.perceive("noop", ["(OPEN_DOOR 3)"])["legal"] == ["noop", "switch"]
    assert copy.choose(until, 1000)["move"] == "switch"


def test_the_older_gamecontroller_form_is_read_too() -> None:
    """(PLAY ID (PERCEPT...)) in upper case, our own move untold, () for no percept."""
    flat = " ".join(line.split(";")[0] for line in MONTY.splitlines())
    with served_apps(create_app(PlayerConfig(iterations=300))) as (url,):
        assert post(url, f"(START m1 CANDIDATE ({flat.upper()}) 30 20)") == "ready"
        assert post(url, "(PLAY m1 NIL)").lower() == "noop"
        choice = post(url, "(PLAY m1 ())")
        assert choice.lower().startswith("(choose ")
        door = choice.split()[-1].strip(")")
        opened = next(d for d in "123" if d != door)
        assert post(url, "(PLAY m1 ())").lower() == "noop"
        assert post(url, f"(PLAY m1 ((OPEN_DOOR {opened})))").lower() == "switch"
        assert post(url, "(STOP m1 ((CAR 2)))") == "done"


def test_the_role_random_is_never_ours() -> None:
    with served_apps(create_app(PlayerConfig(iterations=10))) as (url,):
        flat = " ".join(line.split(";")[0] for line in MONTY.splitlines())
        assert post(url, f"(START m2 random ({flat}) 30 20)") == "ready"
        assert post(url, "(PLAY m2 0 NIL NIL)") == "nil"
        assert post(url, "(ABORT m2)") == "aborted"


def test_gdl_ii_messages_are_read_and_malformed_ones_explained() -> None:
    play = parse_message("(PLAY m1 3 NOOP ((OPEN_DOOR 1) ok))")
    assert play == Play("m1", None, Seen(3, "NOOP", ("(OPEN_DOOR 1)", "ok")))
    assert parse_message("(stop m1 4 (mark 1 1) nil)") == Stop(
        "m1", None, Seen(4, "(mark 1 1)", ())
    )
    assert parse_message("(play m1 (a b))") == Play("m1", ("a", "b"))  # GDL's, untouched
    with pytest.raises(ProtocolError, match="the turn must be a number"):
        parse_message("(play m1 x nil nil)")
    with pytest.raises(ProtocolError, match="the percepts must be nil or a list"):
        parse_message("(play m1 1 noop ok)")
    with pytest.raises(ProtocolError, match="cannot be a variable"):
        parse_message("(play m1 1 noop (?x))")
