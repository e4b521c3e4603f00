"""Exact values of small positions (`ggp.player.search.exact`), traps for a flat Monte Carlo
opponent (`ggp.player.search.traps`), the ``flatmc`` agent, and both in the search worker."""

from __future__ import annotations

import random
import time

import pytest
from gdl_texts import PENNIES, TICTACTOE
from ggp.games.base import GameError, State
from ggp.gdl.load import game_from_text
from ggp.player.agents import make_agent
from ggp.player.search.exact import ExactValues, Unsolved
from ggp.player.search.traps import Plan, Traps
from ggp.player.service import search_worker
from ggp.player.service.search_worker import SearchWorker
from ggp.player.service.worker_pool import combined_move
from ggp.server.match import play_match

GAME = game_from_text(TICTACTOE)


def _mark(cell: int) -> str:
    """Cell 0..8, row by row, as the move that marks it."""
    return f"(mark {cell // 3 + 1} {cell % 3 + 1})"


def _after(*cells: int) -> State:
    """Tic-tac-toe after the marks `cells`, x first."""
    state = GAME.initial_state()
    for ply, cell in enumerate(cells):
        state = state.next([_mark(cell), "noop"] if ply % 2 == 0 else ["noop", _mark(cell)])
    return state


def test_tic_tac_toe_is_a_draw_and_only_the_corners_answer_the_centre() -> None:
    assert ExactValues(0).move_values(GAME.initial_state(), None) == [0.5] * 9
    values = ExactValues(1).move_values(_after(4), None)
    corners = {_mark(c) for c in (0, 2, 6, 8)}
    legal = _after(4).legal_moves(1)
    assert [v for move, v in zip(legal, values, strict=True) if move in corners] == [0.5] * 4
    assert [v for move, v in zip(legal, values, strict=True) if move not in corners] == [0.0] * 4


def test_the_exact_values_give_up_on_budget_time_and_simultaneous_moves() -> None:
    exact = ExactValues(0)
    with pytest.raises(Unsolved):
        exact.move_values(GAME.initial_state(), None, budget=100)
    kept = len(exact.values)
    assert 0 < kept <= 100  # what was settled stays for the next try
    with pytest.raises(Unsolved):
        exact.move_values(GAME.initial_state(), time.monotonic() - 1)
    assert exact.move_values(GAME.initial_state(), None) == [0.5] * 9
    pennies = game_from_text(PENNIES)
    with pytest.raises(Unsolved):
        ExactValues(0).move_values(pennies.initial_state(), None)


def test_the_corner_trap_is_set_where_a_flat_monte_carlo_reply_loses() -> None:
    """x corner, o centre: every move draws, but after the opposite corner (or
    the two far edges) random playouts favour a reply that loses."""
    state = _after(0, 4)
    traps = Traps(0, playouts=1000)
    plan = traps.solve(state, None)
    assert plan is not None and plan.value == 0.5 and len(plan.best) == 7
    assert traps.trap(plan, state, random.Random(2), None) in {_mark(5), _mark(7), _mark(8)}


def test_a_single_best_move_is_played_and_without_a_trap_the_search_chooses() -> None:
    state = _after(4, 0, 8)  # o must take a corner: 2 or 6
    traps = Traps(1, playouts=200)
    plan = traps.solve(state, None)
    assert plan is not None and set(plan.best) == {_mark(2), _mark(6)}
    assert Traps.best_of(plan, [_mark(1), _mark(6), _mark(2)]) == _mark(6)
    forced = _after(0, 4, 8, 2)  # the corner reply: x blocks at 6
    plan = Traps(0).solve(forced, None)
    assert plan == Plan(1.0, (_mark(6),))  # and then two threats: the trap has worked
    assert Traps(0).trap(plan, forced, random.Random(1), None) == _mark(6)


def test_after_a_failed_solve_the_next_moves_are_not_tried() -> None:
    traps = Traps(0)
    past = time.monotonic() - 1
    assert traps.solve(GAME.initial_state(), past) is None  # first miss: skip 1
    assert traps.solve(GAME.initial_state(), None) is None  # skipped
    assert traps.solve(GAME.initial_state(), past) is None  # second miss: skip 3
    assert [traps.solve(GAME.initial_state(), None) for _ in range(3)] == [None] * 3
    assert traps.solve(GAME.initial_state(), None) == Plan(0.5, GAME.initial_state().legal_moves(0))


def test_the_flat_monte_carlo_agent_takes_a_win_and_checks_its_options() -> None:
    agent = make_agent("flatmc:playouts=50", seed=1)
    agent.start(GAME, 0)
    assert agent.choose_move(_after(0, 4, 1, 8), None) == _mark(2)  # completes the top row
    with pytest.raises(GameError, match="playouts"):
        make_agent("flatmc:playouts=0")
    with pytest.raises(GameError, match="unknown option"):
        make_agent("flatmc:solver=yes")


def test_the_mcts_agent_with_traps_wins_as_x_against_flat_monte_carlo() -> None:
    for seed in range(2):
        agents = [
            make_agent("mcts:iterations=300,solver=yes,traps=yes", seed=seed),
            make_agent("flatmc:playouts=300", seed=seed),
        ]
        assert play_match(GAME, agents).goals == (100, 0)


def test_the_search_worker_plays_a_solved_position_exactly() -> None:
    assert search_worker.SEARCH_TRAPS
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE})
    worker.settle(120)
    for joint in (["(mark 1 1)", "noop"], ["noop", "(mark 2 2)"], ["(mark 3 3)", "noop"]):
        worker.handle({"cmd": "advance", "joint": joint})
    worker.handle({"cmd": "advance", "joint": ["noop", "(mark 1 3)"]})
    answer = worker.handle({"cmd": "search", "role": 0, "until": time.time() + 30})
    # o fell into the corner trap: the block at (3 1) makes two threats, a proven win
    assert answer["move"] == "(mark 3 1)" and answer["exact"] and answer["proven"] == 100
    assert answer["sims"] == 0  # the only winning move: no search


def test_an_exact_workers_move_is_played_over_visits() -> None:
    exact = {"move": "b", "stats": [["b", 3, 0.5], ["a", 90, 0.6]], "exact": True}
    searched = {"move": "a", "stats": [["a", 200, 0.6], ["b", 10, 0.5]], "exact": False}
    assert combined_move([searched, exact]) == "b"
