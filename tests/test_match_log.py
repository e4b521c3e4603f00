"""Match logs: the ggp.org format, written atomically, read back and replayed."""

from __future__ import annotations

import asyncio
import json

import pytest
from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.player.agents import Clocks, make_agent
from ggp.server.match import make_players, play_match, referee_match
from ggp.server.match_log import MatchLogWriter, read_log, replay, split_terms
from ggp.server.rules import game_from_rules, referee_game

TICTACTOE = load_game("tictactoe")


def logged_match(tmp_path, seed: int = 2):
    agents = [make_agent("random", seed), make_agent("mcts:iterations=20", seed)]
    record = play_match(TICTACTOE, agents, seed=seed, log_dir=tmp_path, clocks=Clocks(5, 5))
    return record, tmp_path / f"{record.match_id}.json"


def test_a_log_reads_back_to_the_same_states_moves_and_goals(tmp_path) -> None:
    record, path = logged_match(tmp_path)
    logged = read_log(path)
    assert logged.match_id == record.match_id and logged.roles == TICTACTOE.roles
    assert logged.states == tuple(state.facts() for state in record.states)
    assert logged.moves == tuple(record.moves)
    assert logged.goals == record.goals and logged.completed and not logged.aborted
    assert logged.errors == tuple(record.errors)
    assert logged.players == ("random", "mcts:iterations=20")
    assert (logged.start_clock, logged.play_clock) == (5, 5)
    assert replay(logged, TICTACTOE) == record.states
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_the_log_has_the_ggp_org_fields(tmp_path) -> None:
    record, path = logged_match(tmp_path)
    data = json.loads(path.read_text())
    for name in ("randomToken", "startTime", "stateTimes", "previewClock", "scrambled"):
        assert name in data
    assert len(data["stateTimes"]) == len(data["states"]) == len(data["moves"]) + 1
    assert len(data["errors"]) == len(data["states"])
    assert data["states"][0].startswith("( (cell 1 1 b) ")
    assert data["x-game"] == "tictactoe" and data["x-failure"] is None
    extra = [key for key in data if key[0] == "x" and key[1] == "-"]
    assert sorted(extra) == ["x-failure", "x-game", "x-grace", "x-roles", "x-rules"]


def test_a_kif_game_is_logged_with_its_rules_and_replays_from_them_alone(tmp_path) -> None:
    from fake_players import TICTACTOE_GDL

    kif = tmp_path / "ttt.kif"
    kif.write_text(TICTACTOE_GDL)
    game = referee_game(str(kif))
    assert game.rules is not None and ";" not in game.rules
    logs = tmp_path / "logs"
    record = asyncio.run(
        referee_match(game, make_players(game.game, ["random"] * 2, 1), log_dir=logs)
    )
    (path,) = logs.iterdir()
    logged = read_log(path)
    assert logged.rules == game.rules and logged.game_spec == str(kif)
    states = replay(logged, game_from_rules(logged.rules or ""))
    assert [s.facts() for s in states] == [s.facts() for s in record.states]
    assert replay(logged, TICTACTOE)[-1].goals() == record.goals  # the native twin agrees


def test_a_tampered_log_does_not_replay(tmp_path) -> None:
    _, path = logged_match(tmp_path)
    data = json.loads(path.read_text())
    data["states"][2] = data["states"][1]
    path.write_text(json.dumps(data))
    with pytest.raises(GameError, match="state 2 of the log is not what the moves lead to"):
        replay(read_log(path), TICTACTOE)


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "is not JSON"), ('{"matchId": "m"}', "not a match log"), ("[1]", "not a match log")],
)
def test_bad_logs_are_explained(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(GameError, match=message):
        read_log(path)
    with pytest.raises(GameError, match="cannot read"):
        read_log(tmp_path / "missing.json")


def test_the_writer_rewrites_at_most_once_an_interval_but_always_at_the_end(tmp_path) -> None:
    record, _ = logged_match(tmp_path / "first")
    writer = MatchLogWriter(tmp_path / "logs", interval=3600)
    writer.update(record)
    assert writer.path is not None
    first = writer.path.read_text()
    record.moves.append(("noop", "noop"))
    writer.update(record)
    assert writer.path.read_text() == first
    writer.update(record, final=True)
    assert json.loads(writer.path.read_text())["moves"][-1] == ["noop", "noop"]


def test_state_texts_split_in_any_layout() -> None:
    assert split_terms("( ( cell 1 1 b ) (control  x) step )") == [
        "(cell 1 1 b)",
        "(control x)",
        "step",
    ]
    with pytest.raises(GameError):
        split_terms("( (cell 1 1 b )")


def test_ggp_base_match_files_read_and_replay(shared_dir) -> None:
    for name in ("match-tictactoe.json", "match-tictactoe-with-errors.json"):
        logged = read_log(shared_dir / "protocol" / name)
        states = replay(logged, TICTACTOE)
        assert states[-1].goals() == logged.goals
    assert logged.errors[1] == ("", "IL ( mark 9 9 )")  # as GGP-Base wrote it


def test_replay_shows_the_board_the_errors_and_the_result(tmp_path, capsys) -> None:
    from ggp.cli import main

    record, path = logged_match(tmp_path)
    data = json.loads(path.read_text())
    data["errors"][1][1] = "IL (mark 9 9)"
    data["errors"][0][0] = "TO"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"Match {record.match_id}: tictactoe" in out
    assert "Players: xplayer random, oplayer mcts:iterations=20" in out
    assert "error: xplayer TO at the start" in out
    assert "error: oplayer IL (mark 9 9) (replaced by a random legal move)" in out
    assert f"Move {len(record.moves)}: " in out and " 1  " in out  # the board
    goals = ", ".join(f"{r} {g}" for r, g in zip(TICTACTOE.roles, record.goals or (), strict=True))
    assert f"Result after {len(record.moves)} moves: {goals}" in out


def test_replay_of_a_gdl_game_shows_facts_and_of_a_log_without_rules_needs_game(
    tmp_path, capsys
) -> None:
    from fake_players import TICTACTOE_GDL
    from ggp.cli import main

    kif = tmp_path / "ttt.kif"
    kif.write_text(TICTACTOE_GDL)
    game = referee_game(str(kif))
    asyncio.run(referee_match(game, make_players(game.game, ["legal"] * 2, 1), log_dir=tmp_path))
    (path,) = tmp_path.glob("*.json")
    assert main(["replay", str(path)]) == 0
    assert "(cell 1 1 x)\n" in capsys.readouterr().out
    data = json.loads(path.read_text())
    del data["x-rules"], data["x-game"]
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    assert "name the game with --game" in capsys.readouterr().err
    assert main(["replay", str(path), "--game", str(kif)]) == 0
