"""`ggp play` driven through standard input, as a script would."""

from __future__ import annotations

import io
import re
import sys

import pytest
from ggp.cli import main


def run_play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str, stdin: str
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["play", *args])
    return code, capsys.readouterr().out


def test_a_whole_game_typed_by_number_and_text(monkeypatch, capsys) -> None:
    # Against the first-legal agent the game is deterministic: X takes the
    # diagonal while O fills the first row.
    code, out = run_play(
        monkeypatch, capsys, "tictactoe", "--ai", "legal", stdin="5\n(mark 1 3)\n mark 3 1 \n"
    )
    assert code == 0
    assert "Game over: xplayer 100, oplayer 0. You win!" in out


def test_moves_may_be_typed_in_any_case(monkeypatch, capsys) -> None:
    code, out = run_play(
        monkeypatch, capsys, "tictactoe", "--ai", "legal", stdin="MARK 2 2\n(Mark 1 3)\nmark 3 1\n"
    )
    assert code == 0 and "not a legal move" not in out
    assert "Played: xplayer (mark 2 2)" in out and "You win!" in out


def test_wrong_input_is_answered_and_asked_again(monkeypatch, capsys) -> None:
    code, out = run_play(
        monkeypatch, capsys, "tictactoe", "--ai", "legal", stdin="hello\n0\n42\n(mark 9 9)\nquit\n"
    )
    assert code == 0
    assert out.count("is not a legal move") == 4
    assert "Traceback" not in out and "You left the game." in out


def test_end_of_input_leaves_the_game(monkeypatch, capsys) -> None:
    code, out = run_play(monkeypatch, capsys, "tictactoe", stdin="")
    assert code == 0 and "You left the game." in out


def test_second_role(monkeypatch, capsys) -> None:
    code, out = run_play(
        monkeypatch,
        capsys,
        "tictactoe",
        "--role",
        "oplayer",
        "--ai",
        "legal",
        stdin="4\n4\n4\n4\n",
    )
    assert code == 0 and "you are oplayer" in out and "Game over" in out


def test_unknown_game_is_a_clear_error(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "nosuchgame"]) == 2
    assert "unknown game 'nosuchgame'" in capsys.readouterr().err


def test_many_moves_are_listed_in_columns_numbered_down(monkeypatch, capsys) -> None:
    code, out = run_play(monkeypatch, capsys, "hex", "--ai", "legal", stdin="quit\n")
    listing = out.split("Your moves (red):\n")[1].split("red>")[0].splitlines()
    assert len(listing) == 13  # 49 moves in 4 columns
    assert all(len(line) <= 78 for line in listing)
    first, last = listing[0].split(), listing[-1].split()
    assert first[:4] == ["1.", "(place", "a", "1)"] and first[4] == "14."
    assert last[:4] == ["13.", "(place", "b", "6)"]


def test_a_gdl_ii_game_shows_only_what_the_person_sees(monkeypatch, capsys) -> None:
    code, out = run_play(monkeypatch, capsys, "monty_hall", "--seed", "3", stdin="1\nswitch\n")
    assert code == 0
    before_end = out[: out.index("\nPlayed:")]  # the last joint move and the board, at the end
    assert "(car" not in before_end and "hide_car" not in before_end  # the car stays hidden
    assert "You played (choose 1) and see: nothing" in out
    assert "You played noop and see: (open_door" in out
    assert re.search(r"Game over: candidate (0|100)\. Your goal: (0|100)\.", out)


def test_the_random_role_is_not_a_persons(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "monty_hall", "--role", "random"]) != 0
    assert "the role random is chance" in capsys.readouterr().err
