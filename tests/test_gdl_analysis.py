"""`ggp.gdl.analysis`: latches, goal-relevant facts, constant-sum, what moves touch and
playout statistics, on built-in games and a simultaneous one; `ggp check` prints them."""

from __future__ import annotations

import random

from gdl_texts import PENNIES
from ggp.cli import main
from ggp.games.registry import load_game
from ggp.gdl.analysis import Analysis, analyse_game
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import game_from_text
from ggp.gdl.playouts import record_playout

PLAYOUTS = 20


def analysed(game: GdlGame, seed: int = 1) -> Analysis:
    rng = random.Random(seed)
    playouts = [record_playout(game.initial_state(), rng, 1000) for _ in range(PLAYOUTS)]
    assert all(playout.terminal for playout in playouts)
    return analyse_game(game, playouts)


def twin(name: str) -> GdlGame:
    game = load_game(name, gdl=True)
    assert isinstance(game, GdlGame)
    return game


def test_tic_tac_toe_marks_are_kept_but_not_provably() -> None:
    analysis = analysed(twin("tictactoe"))
    # A mark stays because its cell can no longer be marked: legality, not the next rule.
    assert not any(latch.proven for latch in analysis.latches)
    seen = [latch.fact for latch in analysis.latches]
    assert seen and all(fact.startswith("(cell ") and fact[-2] in "xo" for fact in seen)
    assert analysis.goal_facts and all(f.startswith("(cell ") for f in analysis.goal_facts)
    assert analysis.facts_seen == len(analysis.goal_facts) + 2  # and (control xplayer|oplayer)
    assert analysis.constant_sum and analysis.goal_sums == (100,)
    assert analysis.touches == (("xplayer", ("cell",)), ("oplayer", ("cell",)))
    stats = analysis.stats
    assert stats.playouts == stats.terminal == PLAYOUTS
    assert 5 <= stats.min_length <= stats.mean_length <= stats.max_length <= 9
    assert all(1 < b < 9 for b in stats.branching)


def test_connect_four_discs_are_proven_latches() -> None:
    analysis = analysed(twin("connect_four"))
    assert analysis.latches and all(latch.proven for latch in analysis.latches)
    assert all(latch.fact.startswith("(cell ") for latch in analysis.latches)
    assert not any("control" in fact for fact in analysis.goal_facts)
    assert analysis.constant_sum
    assert {touched for _, touched in analysis.touches} == {("cell",)}


def test_a_simultaneous_game() -> None:
    game = game_from_text(PENNIES, "pennies")
    analysis = analysed(game)
    # (matched 2) holds in terminal states only: never seen kept.
    assert [(latch.fact, latch.proven) for latch in analysis.latches] == [("(matched 1)", True)]
    assert "(matched 1)" in analysis.goal_facts <= {"(matched 1)", "(matched 2)"}
    assert analysis.touches == (("left", ("matched",)), ("right", ("matched",)))
    assert analysis.stats.branching == (2.0, 2.0) and analysis.stats.mean_length == 2
    assert analysis.constant_sum


def test_goals_that_do_not_add_up_alike_are_not_constant_sum() -> None:
    both_win = PENNIES.replace(
        "(<= (goal right 0) (true (matched 1)) (true (matched 2)))",
        "(<= (goal right 100) (true (matched 1)) (true (matched 2)))",
    )
    analysis = analysed(game_from_text(both_win, "pennies"))
    assert analysis.constant_sum is False and 200 in analysis.goal_sums


def test_ggp_check_prints_the_rules_analysis(capsys) -> None:
    assert main(["check", "connect_four", "--playouts", "3"]) == 0
    out = capsys.readouterr().out
    section = out[out.index("rules analysis (from the random playouts):\n") :]
    lines = section.splitlines()
    assert lines[1].startswith("  playouts: 3 (3 reached a terminal state), length mean ")
    assert lines[2].startswith("  mean legal moves per state: red ")
    assert lines[3].startswith("  latches proven (a next rule keeps them whatever is played): ")
    assert "  constant-sum: yes, the goals add up to 100" in lines
    assert "  moves of red change: cell" in lines and "  moves of black change: cell" in lines


def test_moves_read_through_a_relation_of_the_game_touch_what_it_changes() -> None:
    indirect = PENNIES.replace(
        "(succ ?m ?n) (does left ?x) (does right ?x))",
        "(succ ?m ?n) (same ?x))\n(<= (same ?x) (both ?x))\n(<= (both ?x) (does left ?x) "
        "(does right ?x))",
    )
    assert "(same ?x))" in indirect
    analysis = analysed(game_from_text(indirect, "pennies"))
    assert analysis.touches == (("left", ("matched",)), ("right", ("matched",)))
