"""benchmarks/strength.py --merge: the results of runs made at once, joined."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import strength  # noqa: E402

SETTINGS = {"opponent": "Sancho", "startclock": 60, "playclock": 10, "serve_args": ""}


def match(ours_role: int, goals: list[int], commit: str = "abc1234") -> dict:
    return {
        "match_id": f"m{ours_role}{goals}",
        "ours_role": ours_role,
        "goals": goals,
        "steps": 20,
        "errors": {side: {"TO": 0, "CE": 0, "IL": 0} for side in ("ours", "opponent")},
        "load_before": 1.0,
        "load_after": 3.5,
        "seconds": 100.0,
        "commit": commit,
        "replies": {
            "plays": 10,
            "slowest": 9.4,
            "late": 0,
            "fallbacks": 1,
            "searched": 8,
            "on_native_code": 8,
            "simulations": [100, 300],
            "pondered": [50],
            "ponder_seconds": [7.0],
        },
    }


def results(games: dict[str, list[dict]], **settings) -> dict:
    report = {**SETTINGS, **settings, "games": {g: {"matches_detail": m} for g, m in games.items()}}
    strength.summarise(report)
    return report


def test_merge_joins_games_and_matches_and_recomputes_the_summaries():
    first = results({"breakthrough": [match(0, [100, 0])], "hex": [match(1, [100, 0])]})
    second = results(
        {"hex": [match(0, [100, 0]), match(1, [50, 50])], "ticTacToe": [match(0, [50, 50])]}
    )
    report = strength.merged([first, second])
    assert {key: report[key] for key in SETTINGS} == SETTINGS
    assert list(report["games"]) == ["breakthrough", "hex", "ticTacToe"]
    hex_entry = report["games"]["hex"]
    assert [m["goals"] for m in hex_entry["matches_detail"]] == [[100, 0], [100, 0], [50, 50]]
    # ours: a loss (second seat, [100, 0]), a win, a draw
    assert (hex_entry["wins"], hex_entry["draws"], hex_entry["losses"]) == (1, 1, 1)
    assert hex_entry["score"] == pytest.approx(0.5)
    assert hex_entry["by_seat"] == [[1.0, 1], [0.5, 2]]  # our points and matches in each seat
    assert "by seat 1 of 1, 0.5 of 2 " in strength.line("hex", hex_entry)
    overall = report["overall"]
    assert overall["matches"] == 5
    assert overall["score"] == pytest.approx((1 + 0 + 1 + 0.5 + 0.5) / 5)
    assert overall["ours_replies"]["plays"] == 50
    assert overall["ours_replies"]["fallbacks"] == 5


def test_merge_refuses_results_played_with_other_settings():
    first = results({"hex": [match(0, [100, 0])]})
    second = results({"hex": [match(0, [100, 0])]}, playclock=5)
    with pytest.raises(ValueError, match="different settings"):
        strength.merged([first, second])


def test_the_merge_command_writes_the_joined_results(tmp_path):
    paths = []
    for name, games in (("a", {"hex": [match(0, [0, 100])]}), ("b", {"hex": [match(1, [0, 100])]})):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(results(games)))
        paths.append(str(path))
    out = tmp_path / "all.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "strength.py"), "--merge", *paths, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "overall: score 0.50" in done.stdout
    report = json.loads(out.read_text())
    assert report["games"]["hex"]["matches"] == 2
    assert (report["overall"]["wins"], report["overall"]["losses"]) == (1, 1)


def test_the_merge_command_says_which_file_is_not_results(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"games": {"hex": {}}}')
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "strength.py"),
            "--merge",
            str(broken),
            "--out",
            str(tmp_path / "all.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "broken.json: not results of this script" in done.stderr
    assert not (tmp_path / "all.json").exists()


def test_the_merge_command_takes_the_games_asked_of_a_file(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(
        json.dumps(results({"hex": [match(0, [0, 100])], "breakthrough": [match(0, [0, 100])]}))
    )
    new = tmp_path / "new.json"
    new.write_text(json.dumps(results({"breakthrough": [match(0, [100, 0])]})))
    out = tmp_path / "all.json"
    command = [sys.executable, str(BENCHMARKS / "strength.py"), "--out", str(out), "--merge"]
    done = subprocess.run(
        [*command, f"{old}:hex", str(new)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert {game: entry["matches"] for game, entry in report["games"].items()} == {
        "hex": 1,
        "breakthrough": 1,
    }
    assert (report["overall"]["wins"], report["overall"]["losses"]) == (1, 1)
    done = subprocess.run(
        [*command, f"{old}:ticTacToe"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "no matches of ticTacToe" in done.stderr


def test_two_roles_swap_seats_from_one_match_to_the_next():
    assert strength.seats(0, 2, "ours", ["them"]) == ["ours", "them"]
    assert strength.seats(1, 2, "ours", ["them"]) == ["them", "ours"]


def test_in_a_game_of_three_roles_we_go_round_the_seats_beside_two_opponents():
    opponents = ["first", "second", "unused"]
    assert [strength.seats(index, 3, "ours", opponents) for index in range(4)] == [
        ["ours", "first", "second"],
        ["first", "ours", "second"],
        ["first", "second", "ours"],
        ["ours", "first", "second"],
    ]


def test_a_game_of_more_roles_than_players_is_refused():
    with pytest.raises(SystemExit, match="3 roles needs 2 opponents"):
        strength.seats(0, 3, "ours", ["only"])


def test_an_opponent_failing_most_steps_is_named_and_others_are_not():
    roles = ["white", "black", "red"]
    errors = [[0, 0, 0], [4, 1, 1], [2, 0, 0]]
    assert strength.failing_roles(errors, 10, [1, 2], roles) == ["black"]
    assert strength.failing_roles(errors, 12, [1, 2], roles) == []  # 6 of 12 is not more than half
    assert strength.failing_roles(None, 10, [1], roles) == []
    assert strength.failing_roles([[0], [0]], 0, [1], roles) == []


def test_the_log_is_read_a_match_at_a_time_in_whole_lines(tmp_path):
    log = tmp_path / "ours.log"
    tail = strength.LogTail(log)
    assert tail.read() == ""  # not written yet
    log.write_text("play m1: (mark 1 1) in 9.4 s, 100 simulations, 5 nodes\nstop m1: do")
    first = tail.read()
    assert first == "play m1: (mark 1 1) in 9.4 s, 100 simulations, 5 nodes\n"
    with log.open("a") as out:
        out.write("ne\nplay m2: noop in 0.01 s, the only legal move\n")
    second = tail.read()
    assert second == "stop m1: done\nplay m2: noop in 0.01 s, the only legal move\n"
    assert strength.replies_of(first, 10.0, "m1")["simulations"] == [100]
    assert strength.replies_of(second, 10.0, "m2")["plays"] == 1
    assert strength.replies_of(second, 10.0, "m1")["plays"] == 0


def run_tictactoe(monkeypatch, tmp_path: Path, out: Path, matches: int, *players: str) -> None:
    """strength.py's main on tic-tac-toe at 5 s / 5 s between the players given."""
    argv = ["strength.py", *players, "--games", "tictactoe", "--matches", str(matches)]
    argv += ["--startclock", "5", "--playclock", "5", "--log-dir", str(tmp_path), "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    assert strength.main() == 0


def test_a_match_the_opponent_did_not_play_is_not_counted_and_its_game_is_dropped(
    tmp_path, monkeypatch, capsys
):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fake_players import FakePlayer, served

    ours = FakePlayer()
    broken = FakePlayer(faults=dict.fromkeys(range(20), "garbage"))
    out = tmp_path / "results.json"
    with served(ours, broken) as (ours_url, broken_url):
        run_tictactoe(monkeypatch, tmp_path, out, 3, "--ours", ours_url, "--opponent", broken_url)
    report = json.loads(out.read_text())
    assert report["games"]["tictactoe"]["matches_detail"] == []
    assert "overall" not in report
    (dropped,) = report["not_counted"]
    assert dropped["failing"] == ["oplayer"]
    assert dropped["errors"]["opponent"]["CE"] + dropped["errors"]["opponent"]["IL"] > 0
    assert ours.starts_received() == 1  # the game was played no further
    printed = capsys.readouterr().out
    assert "not counted: tictactoe" in printed
    assert "the referee played for it" in printed


def test_the_results_say_which_text_of_a_game_was_played(tmp_path, monkeypatch):
    """A corpus game's name plays the corpus's file where ../shared has it, else the
    built-in game of that name, whose GDL twin is another text: the results say which."""
    monkeypatch.setattr(strength, "CORPUS_GAMES", tmp_path)
    assert strength.rules_played("breakthrough") == "built-in breakthrough"
    (tmp_path / "breakthrough.kif").write_text("(role white)")
    assert strength.rules_played("breakthrough") == "corpus breakthrough.kif"
    assert strength.rules_played("/games/mine.kif") == "/games/mine.kif"


def test_each_sides_cpu_seconds_are_the_difference_of_two_readings():
    before = {"ours": 10.0, "opponent": 5.0}
    assert strength.cpu_seconds(before, {"ours": 40.25, "opponent": 35.0}) == {
        "ours": 30.2,
        "opponent": 30.0,
    }
    # a side not read at one end (its process gone) has no figure
    assert strength.cpu_seconds(before, {"ours": 40.0, "opponent": None}) == {"ours": 30.0}
    assert strength.cpu_seconds({"ours": None}, {"ours": 3.0}) == {}


def test_the_summary_gives_each_sides_cpu_and_our_share_where_both_were_read():
    first, second, third = match(0, [100, 0]), match(1, [100, 0]), match(0, [0, 100])
    first["cpu_seconds"] = {"ours": 300.0, "opponent": 200.0}
    second["cpu_seconds"] = {"ours": 100.0, "opponent": 400.0}
    third["cpu_seconds"] = {"ours": 999.0}  # the opponent's process was not read
    report = results({"connectFour": [first, second, third]})
    cpu = report["overall"]["cpu_seconds"]
    assert cpu == {"matches": 2, "ours": 400.0, "opponent": 600.0, "ours_share": 0.4}
    assert "CPU s ours 400, opponent 600 (40% ours)" in strength.line("overall", report["overall"])
    assert "cpu_seconds" not in results({"hex": [match(0, [100, 0])]})["overall"]


def test_our_player_started_by_the_run_has_its_cpu_seconds_recorded(tmp_path, monkeypatch):
    """--ours-pid names the process of a player already running; its CPU over each
    match is recorded (here a fake player in this process: this test's own process)."""
    import os

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fake_players import FakePlayer, served

    out = tmp_path / "results.json"
    with served(FakePlayer(), FakePlayer()) as (ours_url, other_url):
        pid = str(os.getpid())
        run_tictactoe(
            monkeypatch,
            tmp_path,
            out,
            1,
            "--ours",
            ours_url,
            "--ours-pid",
            pid,
            "--opponent",
            other_url,
            "--opponent-pid",
            pid,
        )
    (played,) = json.loads(out.read_text())["games"]["tictactoe"]["matches_detail"]
    if not Path("/proc/self/stat").exists():
        assert "cpu_seconds" not in played
        return
    assert set(played["cpu_seconds"]) == {"ours", "opponent"}
    assert played["cpu_seconds"]["ours"] >= 0


def test_the_games_mean_weighs_each_game_alike_where_the_overall_weighs_matches(capsys):
    report = results(
        {
            "connectFour": [match(0, [0, 100]), match(1, [100, 0]), match(0, [0, 100])],
            "hex": [match(0, [100, 0])],
        }
    )
    assert report["overall"]["score"] == pytest.approx(1 / 4)
    entry = report["games_mean"]
    assert (entry["games"], entry["score"]) == (2, pytest.approx(1 / 2))
    low, high = entry["interval95"]
    assert 0.0 <= low < 0.5 < high <= 1.0
    strength.print_summary(report)
    assert "mean of the 2 games: score 0.50" in capsys.readouterr().out
    # one game: its own score is the whole story, and a merge drops a stale mean
    single = results({"hex": [match(0, [100, 0])]})
    assert "games_mean" not in single
    assert "games_mean" not in strength.merged([single, single])
