"""The referee against misbehaving players: errors recorded as managers record them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from fake_players import TICTACTOE_GDL, FakePlayer, served
from ggp.cli import main
from ggp.games.base import GameError, State
from ggp.gdl.syntax.terms import rules_text
from ggp.player.agents import Agent, Clocks, make_agent
from ggp.server.match import MatchRefused, judge, make_players, run_match, seat_specs
from ggp.server.match_log import read_log, replay
from ggp.server.messages import parse_move, play_message, start_message, stop_message
from ggp.server.players import AgentPlayer, Player, Reply
from ggp.server.remote import RemotePlayer, player_url
from ggp.server.rules import game_from_rules
from ggp.server.tournament import format_standings, run_tournament, standings

GAME = game_from_rules(TICTACTOE_GDL, "tictactoe")
RULES = rules_text(GAME.rules)
CLOCKS = Clocks(start=4, play=3)
GRACE = 1.0
"""Clocks long enough for a prompt reply to be on time on a loaded machine.  A late
reply costs the test the clock plus the grace; it waits for the referee to give up
(its player's next message) rather than for a time, so it is late however slowly
the machine runs."""


@contextlib.asynccontextmanager
async def serving(*fakes: FakePlayer) -> AsyncIterator[list[str]]:
    """Serve the fake players on loopback ports; yield their addresses."""
    runners = []
    urls = []
    try:
        for fake in fakes:
            runner = web.AppRunner(fake.app(), shutdown_timeout=0.1)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            runners.append(runner)
            host, port = runner.addresses[0][:2]
            urls.append(f"http://{host}:{port}")
        yield urls
    finally:
        for runner in runners:
            await runner.cleanup()


async def referee(players: list[Player], tmp_path, **options):
    try:
        return await run_match(
            GAME,
            players,
            rules=RULES,
            clocks=CLOCKS,
            grace=GRACE,
            seed=1,
            log_dir=tmp_path,
            **options,
        )
    finally:
        for player in players:
            await player.close()


def check_log(tmp_path, record) -> dict:
    """The log is there, and replaying its moves through the rules gives its states
    (so every substituted move was legal)."""
    path = tmp_path / f"{record.match_id}.json"
    logged = read_log(path)
    states = replay(logged, game_from_rules(logged.rules or ""))
    assert [state.facts() for state in states] == [state.facts() for state in record.states]
    return json.loads(path.read_text())


def test_every_misbehaviour_is_recorded_with_its_code_and_the_match_completes(tmp_path) -> None:
    x = FakePlayer({0: "illegal", 1: "noop_case", 2: "garbage", 3: "close"})
    o = FakePlayer({0: "late", 1: "wrong_noop"})

    async def scenario():
        async with serving(x, o) as urls:
            return await referee([RemotePlayer(url) for url in urls], tmp_path)

    record = asyncio.run(scenario())
    assert record.completed and not record.aborted
    assert record.errors[:5] == [
        ("", ""),
        ("IL (mark 9 9)", "TO"),
        ("IL NOOP", "IL noop"),
        ("IL null", ""),
        ("CE", ""),
    ]
    assert all(step == ("", "") for step in record.errors[5:])
    data = check_log(tmp_path, record)
    assert data["errors"] == [list(step) for step in record.errors]
    assert data["isCompleted"] and data["goalValues"] == list(record.goals)
    # The players were told every joint move, then the last one with stop.
    assert o.messages[1] == f"(PLAY {record.match_id} NIL)"
    assert o.messages[-1] == stop_message(record.match_id, record.moves[-1])


def test_a_player_that_never_answers_start_gets_TO_and_still_plays(tmp_path) -> None:
    quiet = FakePlayer(silent_start=True)

    async def scenario():
        async with serving(quiet) as (url,):
            players = [AgentPlayer(make_agent("random", 3)), RemotePlayer(url)]
            return await referee(players, tmp_path)

    record = asyncio.run(scenario())
    assert record.errors[0] == ("", "TO")
    assert record.completed and all(step == ("", "") for step in record.errors[1:])
    check_log(tmp_path, record)


def test_a_player_that_answers_busy_refuses_the_match_which_is_aborted_and_logged(
    tmp_path,
) -> None:
    busy, other = FakePlayer(busy={0}), FakePlayer()

    async def scenario():
        async with serving(busy, other) as urls:
            return await referee([RemotePlayer(url) for url in urls], tmp_path)

    with pytest.raises(MatchRefused, match=r"http://\S+ refused the match: it answered busy"):
        asyncio.run(scenario())
    (path,) = tmp_path.glob("*.json")
    logged = read_log(path)
    assert logged.aborted and not logged.moves and "refused the match" in logged.failure
    assert other.messages[-1] == f"(ABORT {logged.match_id})"


def test_a_tournament_does_not_count_refused_matches_and_says_so(tmp_path, capsys) -> None:
    kif = tmp_path / "ttt.kif"
    kif.write_text(TICTACTOE_GDL)
    with served(FakePlayer(busy={1, 2}), FakePlayer()) as urls:
        args = [str(kif), *urls, "--games", "4", "--seed", "1"]
        clocks = ["--startclock", "4", "--playclock", "3", "--log-dir", str(tmp_path)]
        assert main(["tournament", *args, *clocks]) == 0
    out = capsys.readouterr().out
    assert "ttt: 2 matches played, 2 refused, seed 1" in out
    assert f"Not counted: 2 of 4 matches: {urls[0]} refused the match: it answered busy" in out
    first = next(line for line in out.splitlines() if line.startswith("1 http"))
    assert first.split()[3] == "2" and first.split()[-3:] == ["0", "0", "0"]  # no TO, CE, IL
    with served(FakePlayer(busy={0, 1}), FakePlayer()) as urls:
        args = [str(kif), *urls, "--games", "2", "--seed", "1"]
        assert main(["tournament", *args, *clocks]) == 1
    assert "ttt: 0 matches played, 2 refused" in capsys.readouterr().out
    with served(FakePlayer(busy={0})) as (url,):
        assert main(["match", str(kif), url, "random", *clocks]) == 2
    assert f"ggp match: {url} refused the match: it answered busy" in capsys.readouterr().err


def test_a_player_nobody_answers_for_is_CE_at_every_step(tmp_path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    players = [RemotePlayer(f"http://127.0.0.1:{port}"), AgentPlayer(make_agent("legal"))]
    record = asyncio.run(referee(players, tmp_path))
    assert record.completed
    assert {step[0] for step in record.errors} == {"CE"}
    check_log(tmp_path, record)


class SlowAgent(Agent):
    """Thinks over its first move until `released` is set, then plays the last legal
    move at once."""

    spec = "slow"

    def __init__(self, released: threading.Event) -> None:
        self.released = released
        self.calls = 0

    def choose_move(self, state: State, deadline: float | None) -> str:
        self.calls += 1
        if self.calls == 1:
            self.released.wait(timeout=60)
        return state.legal_moves(self.role)[-1]


class ReleasingAgent(Agent):
    """Plays the first legal move; at its second move (asked for once the referee has
    judged the first step) it sets `release`."""

    spec = "releasing"

    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.calls = 0

    def choose_move(self, state: State, deadline: float | None) -> str:
        self.calls += 1
        if self.calls == 2:
            self.release.set()
        return state.legal_moves(self.role)[0]


class BrokenAgent(Agent):
    spec = "broken"

    def choose_move(self, state: State, deadline: float | None) -> str:
        raise RuntimeError("out of cheese")


def test_an_in_process_agent_is_held_to_the_clock(tmp_path) -> None:
    first_step_judged = threading.Event()
    players = [
        AgentPlayer(SlowAgent(first_step_judged)),
        AgentPlayer(ReleasingAgent(first_step_judged)),
    ]
    record = asyncio.run(referee(players, tmp_path))
    assert record.errors[1] == ("TO", "")
    assert record.completed and all(step == ("", "") for step in record.errors[2:])
    check_log(tmp_path, record)


def test_a_crashing_player_aborts_the_match_and_the_others_hear_of_it(tmp_path) -> None:
    fake = FakePlayer()

    async def scenario():
        async with serving(fake) as (url,):
            return await referee([RemotePlayer(url), AgentPlayer(BrokenAgent())], tmp_path)

    with pytest.raises(RuntimeError, match="out of cheese"):
        asyncio.run(scenario())
    (path,) = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    assert data["isAborted"] and not data["isCompleted"] and "goalValues" not in data
    assert data["x-failure"] == "RuntimeError: out of cheese (raised by broken playing oplayer)"
    assert fake.messages[-1] == f"(ABORT {data['matchId']})"


def test_a_cancelled_match_is_aborted_and_logged(tmp_path) -> None:
    fake = FakePlayer({2: "late"})

    async def scenario():
        async with serving(fake) as (url,):
            players = [RemotePlayer(url), AgentPlayer(make_agent("legal"))]
            task = asyncio.create_task(referee(players, tmp_path))
            while len(fake.messages) < 4:  # start, then plays 0, 1 and 2 (late)
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    (path,) = tmp_path.glob("*.json")
    logged = read_log(path)
    assert logged.aborted and not logged.completed and len(logged.moves) == 2
    assert logged.failure == "the match was cancelled"
    assert fake.messages[-1] == f"(ABORT {logged.match_id})"
    replay(logged, GAME)


GUESS = """
(role random) (role guesser)
(side heads) (side tails)
(init (round 0))
(<= (legal random (toss ?s)) (side ?s))
(<= (legal guesser (guess ?s)) (side ?s))
(<= (next (tossed ?s)) (does random (toss ?s)))
(<= (next (guessed ?s)) (does guesser (guess ?s)))
(<= terminal (true (tossed ?s)))
(<= (goal guesser 100) (true (tossed ?s)) (true (guessed ?s)))
(<= (goal guesser 0) (true (tossed ?s)) (true (guessed ?t)) (distinct ?s ?t))
(<= (goal random 0) terminal)
"""


def test_the_role_named_random_is_played_by_the_referee(tmp_path) -> None:
    game = game_from_rules(GUESS, "guess")
    assert seat_specs(game, ["legal"]) == ["random", "legal"]
    assert seat_specs(game, ["random", "mcts"]) == ["random", "mcts"]
    with pytest.raises(GameError, match="played by the referee"):
        seat_specs(game, ["legal", "legal"])
    with pytest.raises(GameError, match=r"2 roles .*1 without the random role.*got 3"):
        seat_specs(game, ["legal"] * 3)
    tosses = set()
    for seed in range(8):
        players = make_players(game, ["legal"], seed)
        assert players[0].name == "random role"
        record = asyncio.run(run_match(game, players, seed=seed))
        assert record.errors == [("", ""), ("", "")]
        tosses.add(record.moves[0][0])
    assert tosses == {"(toss heads)", "(toss tails)"}


def test_judge_substitutes_random_legal_moves() -> None:
    import random

    state = GAME.initial_state()
    replies = [Reply("( mark  2 2 )"), Reply(None, "TO")]
    joint, errors = judge(state, replies, random.Random(0))
    assert joint == ("(mark 2 2)", "noop") and errors == ("", "TO")
    joint, errors = judge(state, [Reply("(mark 2 2) (mark 1 1)"), Reply("Noop")], random.Random(0))
    assert errors == ("IL null", "IL Noop") and joint[1] == "noop"
    assert joint[0] in state.legal_moves(0)


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("( mark 1  2 )", "(mark 1 2)"),
        (" noop\n", "noop"),
        ("NOOP", "NOOP"),
        ("(((", None),
        ("", None),
        ("a b", None),
        ("(a) b", None),
        ("(a))", None),
        ("((a) b)", None),
    ],
)
def test_replies_are_read_leniently_in_layout_only(reply: str, move: str | None) -> None:
    assert parse_move(reply) == move


def test_messages_are_spelt_as_game_managers_spell_them() -> None:
    assert start_message("m.1", "xplayer", "(role xplayer)\n(role o)\n", 10, 2.5) == (
        "(START m.1 xplayer ((role xplayer) (role o)) 10 2.5)"
    )
    assert play_message("m.1", None) == "(PLAY m.1 NIL)"
    assert play_message("m.1", ["(mark 1 1)", "noop"]) == "(PLAY m.1 ((mark 1 1) noop))"
    assert stop_message("m.1", ["noop", "(mark 3 3)"]) == "(STOP m.1 (noop (mark 3 3)))"


def test_an_address_without_http_is_explained(capsys) -> None:
    assert main(["match", "tictactoe", "localhost:9147", "random"]) == 2
    assert "'localhost:9147' is not an agent; the address of a GGP player is written " in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("spec", ["http://localhost", "ftp://a:1", "http://a:notaport"])
def test_bad_player_addresses_are_explained(spec: str) -> None:
    with pytest.raises(GameError, match="bad player address"):
        player_url(spec)
    assert player_url("http://127.0.0.1:9147") == "http://127.0.0.1:9147/"


def test_remote_players_need_rules_text() -> None:
    from ggp.games.registry import load_game

    native = load_game("connect_four:width=5")
    players = [RemotePlayer("http://127.0.0.1:1"), AgentPlayer(make_agent("random"))]
    with pytest.raises(GameError, match="no GDL description"):
        asyncio.run(run_match(native, players, clocks=CLOCKS))


def test_a_tournament_of_remote_players_counts_their_errors_and_logs_every_match(
    tmp_path,
) -> None:
    garbage, closing = FakePlayer({0: "garbage"}), FakePlayer({0: "close"})
    kif = tmp_path / "ttt.kif"
    kif.write_text(TICTACTOE_GDL)
    with served(garbage, closing) as urls:
        results = run_tournament(
            str(kif),
            urls,
            games=4,
            swap=True,
            jobs=2,
            clocks=CLOCKS,
            grace=GRACE,
            log_dir=tmp_path / "logs",
        )
    assert [result.errors for result in results] == [
        ((0, 0, 1), (0, 1, 0)),
        ((0, 1, 0), (0, 0, 1)),
    ] * 2
    table = standings(results, urls, GAME.roles)
    assert [(row.seat, row.errors) for row in table if row.seat == "all"] == [
        ("all", (0, 0, 4)),
        ("all", (0, 4, 0)),
    ]
    assert "TO   CE   IL" in format_standings(table)
    logs = sorted((tmp_path / "logs").iterdir())
    assert [path.name for path in logs] == [f"{result.match_id}.json" for result in results]
    for path in logs:
        logged = read_log(path)
        assert logged.completed and logged.errors[1] in (("IL null", "CE"), ("CE", "IL null"))
        replay(logged, GAME)


def test_an_interrupted_worker_aborts_and_logs_its_match_and_skips_the_rest(
    tmp_path, monkeypatch
) -> None:
    from ggp.server import runner, tournament

    stop = threading.Event()
    monkeypatch.setattr(runner, "_stop", stop)
    # Five searches at least (x's moves; forced noops are not searched): 10 s, far
    # beyond the interruption at 0.3 s, however loaded the machine.
    specs = ("mcts:time=2", "mcts:time=2")
    setup = tournament.TournamentSetup(
        "tictactoe", False, specs, 1, False, None, 1.0, str(tmp_path), "interrupted"
    )
    threading.Timer(0.3, stop.set).start()
    play = tournament.play_match_of
    assert runner._play_in_worker(play, (0, (setup, 0))) == (0, None)
    (path,) = tmp_path.iterdir()
    logged = read_log(path)
    assert logged.aborted and logged.failure == "the match was cancelled"
    assert runner._play_in_worker(play, (1, (setup, 1))) == (1, None)
    assert list(tmp_path.iterdir()) == [path]


class BrokenAtStart(Agent):
    spec = "broken at start"

    def start(self, game, role, clocks=None) -> None:
        raise ValueError("no table")


def test_a_match_broken_at_the_start_is_logged_with_its_initial_state(tmp_path) -> None:
    players = [AgentPlayer(BrokenAtStart()), AgentPlayer(make_agent("legal"))]
    with pytest.raises(ValueError, match="no table"):
        asyncio.run(referee(players, tmp_path))
    (path,) = tmp_path.iterdir()
    logged = read_log(path)
    assert logged.aborted and logged.states == (GAME.initial_state().facts(),)
    assert logged.failure == "ValueError: no table (raised by broken at start playing xplayer)"
