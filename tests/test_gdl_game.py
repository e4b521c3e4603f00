"""A GDL game behind the generic Game/State interface."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from game_invariants import check_random_playouts
from ggp.cli import main
from ggp.games.base import GameDefinitionError, GameError, IllegalMoveError
from ggp.games.registry import load_game
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.syntax.errors import GdlSyntaxError

RACE = """
; Players add 1 or 2 in turn; whoever must move when the count reaches 4 wins.
(role left)
(role Right)
(init (count 0))
(init (control left))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal ?p (Add 1)) (true (control ?p)))
(<= (legal ?p (Add 2)) (true (control ?p)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (count ?m)) (does ?p (Add 1)) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?k)) (does ?p (Add 2)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))
(<= (next (control Right)) (true (control left)))
(<= (next (control left)) (true (control Right)))
(<= terminal (true (count 4)))
(<= (goal ?p 100) (true (control ?p)) terminal)
(<= (goal ?p 0) (role ?p) (not (true (control ?p))))
"""


def race(text: str = RACE) -> GdlGame:
    return GdlGame.from_text(text, name="race")


def play(game: GdlGame, *moves: str):
    """Play `moves` for whoever is in control, noop for the other."""
    state = game.initial_state()
    for move in moves:
        mover = 0 if "(control left)" in state.facts() else 1
        joint = ["noop", "noop"]
        joint[mover] = move
        state = state.next(joint)
    return state


def test_roles_moves_and_facts_keep_the_rules_spelling() -> None:
    game = race()
    assert game.roles == ("left", "Right")
    state = game.initial_state()
    assert state.facts() == ("(control left)", "(count 0)")
    assert state.legal_moves(0) == ("(Add 1)", "(Add 2)")
    assert state.legal_moves(1) == ("noop",)
    assert state.key() == "(control left) (count 0)"


def test_next_state_terminal_and_goals() -> None:
    game = race()
    state = play(game, "(Add 2)", "(Add 1)")
    assert state.facts() == ("(control left)", "(count 3)")
    assert state.legal_moves(0) == ("(Add 1)",) and not state.is_terminal()
    end = play(game, "(Add 2)", "(Add 1)", "(Add 1)")
    assert end.is_terminal() and end.goals() == (0, 100)
    assert end.legal_moves(0) == () and end.legal_moves(1) == ()


def test_moves_are_matched_canonically_and_then_in_any_case() -> None:
    state = race().initial_state()
    assert state.next(["( Add  2 )", " noop"]).facts() == ("(control Right)", "(count 2)")
    assert state.next(["(add 2)", "NOOP"]).facts() == ("(control Right)", "(count 2)")


def test_illegal_and_malformed_joint_moves_are_refused() -> None:
    state = race().initial_state()
    with pytest.raises(IllegalMoveError) as error:
        state.next(["(Add 3)", "noop"])
    assert "illegal move '(Add 3)' for role left; legal moves: (Add 1), (Add 2)" in str(error.value)
    with pytest.raises(IllegalMoveError):
        state.next(["noop", "(Add 1)"])
    with pytest.raises(GameError, match="one move per role"):
        state.next(["(Add 1)"])


def test_states_round_trip_through_their_facts() -> None:
    game = race()
    state = play(game, "(Add 1)")
    rebuilt = game.state_from_facts(state.facts())
    assert rebuilt == state and rebuilt.legal_moves(1) == state.legal_moves(1)
    with pytest.raises(GameError, match="has no variables"):
        game.state_from_facts(["(count ?x)"])
    with pytest.raises(GameError, match="not a fact"):
        game.state_from_facts(["(count 1"])


def test_random_playouts_keep_the_interface_invariants() -> None:
    check_random_playouts(race(), playouts=30)


def test_a_missing_goal_value_is_a_game_definition_error() -> None:
    game = race(RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", ""))
    end = play(game, "(Add 2)", "(Add 2)")
    with pytest.raises(GameDefinitionError) as error:
        end.goals()
    assert str(error.value) == (
        "race: role left has no goal value in the terminal state: (control left) (count 4)"
    )


def test_a_missing_goal_counts_as_asked_in_a_terminal_state_only() -> None:
    game = race(RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", ""))
    game.count_missing_goals_as(0)  # as a player's search counts it
    assert play(game, "(Add 2)", "(Add 2)").goals() == (0, 0)
    with pytest.raises(GameDefinitionError, match="role Right has no goal value in this state"):
        play(game, "(Add 1)").goals()  # not terminal: still the rules' fault
    several = race(RACE + "(<= (goal ?p 50) (role ?p) terminal)")
    several.count_missing_goals_as(0)
    with pytest.raises(GameDefinitionError, match="role left has 2 goal values"):
        play(several, "(Add 2)", "(Add 2)").goals()


def test_several_goal_values_are_a_game_definition_error() -> None:
    game = race(RACE + "(<= (goal ?p 50) (role ?p) terminal)")
    with pytest.raises(GameDefinitionError, match=r"role left has 2 goal values \(100, 50\)"):
        play(game, "(Add 2)", "(Add 2)").goals()


def test_a_goal_value_must_be_an_integer_from_0_to_100() -> None:
    game = race(RACE.replace("(goal ?p 100)", "(goal ?p high)"))
    with pytest.raises(GameDefinitionError, match="goal value of role left is high, not an int"):
        play(game, "(Add 2)", "(Add 2)").goals()


def test_no_legal_move_in_a_running_game_is_a_game_definition_error() -> None:
    game = race(RACE.replace("(<= (legal ?p noop) (role ?p) (not (true (control ?p))))", ""))
    state = game.initial_state()
    assert state.legal_moves(0) == ("(Add 1)", "(Add 2)")
    with pytest.raises(GameDefinitionError) as error:
        state.legal_moves(1)
    assert str(error.value) == (
        "race: role Right has no legal move in a state that is not terminal: "
        "(control left) (count 0)"
    )


def test_rules_id_depends_on_the_rules_not_on_their_layout() -> None:
    relaid = RACE.replace("(succ 0 1) (succ 1 2)", "(succ 0 1)\n  ; spacing\n(succ   1 2)")
    assert race(relaid).rules_id == race().rules_id
    assert race(RACE + "(succ 4 5)").rules_id != race().rules_id


def test_files_and_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "race.kif"
    path.write_text(RACE)
    game = load_game(str(path))
    assert isinstance(game, GdlGame) and game.name == "race"
    assert GdlGame.from_file(path, name="other").name == "other"
    with pytest.raises(GameError, match="no such game file"):
        load_game(str(tmp_path / "missing.kif"))
    broken = tmp_path / "broken.kif"
    broken.write_text("(role a)\n(init (x)")
    with pytest.raises(GdlSyntaxError, match=r"broken.kif: line 2, column 10: the text ends"):
        load_game(str(broken))


def test_ggp_play_and_bench_accept_a_kif_file(tmp_path: Path, monkeypatch, capsys) -> None:
    path = tmp_path / "race.kif"
    path.write_text(RACE)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\n"))
    assert main(["play", str(path), "--ai", "legal"]) == 0
    out = capsys.readouterr().out
    assert "race: you are left." in out and "Game over: left 100, Right 0. You win!" in out
    assert main(["bench", str(path), "--seconds", "0.2", "--runs", "2"]) == 0
    assert "race: " in capsys.readouterr().out


def test_a_broken_kif_file_is_reported_without_a_traceback(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.kif"
    path.write_text("(role a)\n(<= (legal a ?m) (true (x)))\n(<= terminal (true (x)))\n(goal a 0)")
    assert main(["bench", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ggp bench: {path}: not a valid GDL game description (1 fault):")
    assert "unsafe variable ?m" in err and "Traceback" not in err
