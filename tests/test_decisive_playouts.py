"""Decisive and anti-decisive playouts: a role that alone has a choice takes a
move that wins at once and avoids one after which another role can win at once.

The generic version goes through the game interface; native code plays
exactly the same playouts for the seed it draws.  Where several roles have a
choice, each takes its winning move or avoids a move after which another can
win at once, the others' moves fixed at their first.
"""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.games.playouts import RANDOM, Decisive, Greedy
from ggp.games.registry import GDL_DIR
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native import build
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import MCTS
from ggp.player.service.search_worker import SearchWorker
from ggp.player.service.serve_playouts import SEARCH_DECISIVE, ServePlayout, decisive_suits
from test_gdl_native import native_game, needs_native
from test_greedy_playouts import assert_native_playouts_agree, play

GRAB = """
; left picks a or b; then right may grab, which wins for right after a.
(role left)
(role right)
(init (round 1))
(<= (legal left a) (true (round 1)))
(<= (legal left b) (true (round 1)))
(<= (legal right noop) (true (round 1)))
(<= (legal ?r wait) (role ?r) (true (round 2)))
(<= (legal right grab) (true (round 2)))
LEFT_GRAB
(<= (next (round 2)) (true (round 1)))
(<= (next (round 3)) (true (round 2)))
(<= (next (picked ?m)) (does left ?m) (true (round 1)))
(<= (next (picked ?m)) (true (picked ?m)))
(<= (next (grabbed ?r)) (does ?r grab))
(<= rightwins (true (picked a)) (true (grabbed right)))
(<= terminal (true (round 3)))
(<= (goal right 100) rightwins)
(<= (goal left 0) rightwins)
(<= (goal right 50) (not rightwins))
(<= (goal left 50) (not rightwins))
"""
"""A turn-taking game (right alone moves in round 2) whose left should avoid
`a`; with `simultaneous`, left may grab too in round 2, so that both move there."""


def grab_text(simultaneous: bool) -> str:
    return GRAB.replace(
        "LEFT_GRAB", "(<= (legal left grab) (true (round 2)))" if simultaneous else ""
    )


def grab(simultaneous: bool) -> GdlGame:
    return GdlGame.from_text(grab_text(simultaneous), name="grab")


RACE = """
; both pick at once; then each may take, which wins after the other's opening.
(role left)
(role right)
(init (round 1))
(<= (legal left a) (true (round 1)))
(<= (legal left b) (true (round 1)))
(<= (legal right x) (true (round 1)))
(<= (legal right y) (true (round 1)))
(<= (legal ?r pass) (role ?r) (true (round 2)))
(<= (legal ?r take) (role ?r) (true (round 2)))
(<= (next (round 2)) (true (round 1)))
(<= (next (round 3)) (true (round 2)))
(<= (next (picked ?m)) (does ?r ?m) (true (round 1)))
(<= (next (picked ?m)) (true (picked ?m)))
(<= (next (took ?r)) (does ?r take))
(<= rightwins (true (picked a)) (true (took right)) (not leftwins))
(<= leftwins (true (picked x)) (true (took left)))
(<= terminal (true (round 3)))
(<= (goal right 100) rightwins)
(<= (goal left 0) rightwins)
(<= (goal left 100) leftwins)
(<= (goal right 0) leftwins)
(<= (goal right 50) (not rightwins) (not leftwins))
(<= (goal left 50) (not rightwins) (not leftwins))
"""
"""Both roles move at once in both rounds: left's `a` lets right win by a take,
right's `x` lets left win (left first where both could).  `pass` comes
before `take`: the decisive rule's first moves are the harmless ones."""


def race() -> GdlGame:
    return GdlGame.from_text(RACE, name="race")


def tictactoe() -> GdlGame:
    return GdlGame.from_text((GDL_DIR / "tictactoe.kif").read_text(), name="tictactoe")


THREAT = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)"]
"""Tic-tac-toe moves after which oplayer, on move, must block (mark 1 3)."""

FORK = ["(mark 1 1)", "(mark 2 2)", "(mark 1 2)", "(mark 3 3)", "(mark 2 1)"]
"""Moves after which xplayer threatens (mark 1 3) and (mark 3 1): every move of
oplayer, on move, loses at once."""


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def test_a_threatened_move_is_avoided_where_the_greedy_playouts_play_it() -> None:
    state = play(tictactoe().initial_state(), THREAT)
    decisive = state.playouts(random.Random(1), 40, Decisive(plies=1000))
    assert all(result != ((100, 0), 2) for result in decisive)
    greedy = state.playouts(random.Random(1), 40, Greedy(plies=1000))
    assert sum(result == ((100, 0), 2) for result in greedy) > 20


def test_only_the_first_plies_avoid_threats() -> None:
    state = play(tictactoe().initial_state(), ["(mark 2 2)"])
    assert state.playouts(random.Random(5), 30, Decisive(plies=0)) == state.playouts(
        random.Random(5), 30, RANDOM
    )
    blocked = play(tictactoe().initial_state(), THREAT)
    once = blocked.playouts(random.Random(2), 40, Decisive(plies=1))
    assert all(result != ((100, 0), 2) for result in once)  # the block is at the first move


def test_when_every_move_loses_any_is_played() -> None:
    state = play(tictactoe().initial_state(), FORK)
    results = state.playouts(random.Random(3), 30, Decisive(plies=1000))
    assert results == [((100, 0), 2)] * 30


def test_a_winning_move_comes_before_blocking() -> None:
    # oplayer, on move, can win with (mark 3 3) and must otherwise block (mark 1 3)
    moves = ["(mark 1 1)", "(mark 3 1)", "(mark 1 2)", "(mark 3 2)", "(mark 2 2)"]
    state = play(tictactoe().initial_state(), moves)
    assert state.playouts(random.Random(4), 20, Decisive(plies=1)) == [((0, 100), 1)] * 20


def test_the_mover_avoids_a_move_the_sole_replier_wins_after() -> None:
    state = grab(simultaneous=False).initial_state()
    assert state.playouts(random.Random(6), 30, Decisive(plies=1)) == [((50, 50), 2)] * 30
    assert ((0, 100), 2) in state.playouts(random.Random(6), 30, RANDOM)
    assert RandomPlayout(decisive=1).evaluate(state, random.Random(7)) == [0.5, 0.5]


def test_a_move_is_avoided_where_a_role_among_several_choosers_wins_next() -> None:
    # right can win after a though both roles move in round 2
    state = grab(simultaneous=True).initial_state()
    assert ((0, 100), 2) in state.playouts(random.Random(8), 30, RANDOM)
    assert state.playouts(random.Random(8), 30, Decisive(plies=1000)) == [((50, 50), 2)] * 30


def test_where_several_roles_choose_each_takes_its_win_or_avoids_a_loss() -> None:
    state = race().initial_state()
    random_results = state.playouts(random.Random(10), 40, RANDOM)
    assert ((100, 0), 2) in random_results and ((0, 100), 2) in random_results
    assert state.playouts(random.Random(10), 40, Decisive(plies=1000)) == [((50, 50), 2)] * 40
    after_a = state.next(["a", "y"])  # right takes whatever left does
    assert after_a.playouts(random.Random(11), 20, Decisive(plies=1)) == [((0, 100), 1)] * 20
    # beyond plies, the simultaneous states are played at random again
    assert state.playouts(random.Random(12), 30, Decisive(plies=0)) == state.playouts(
        random.Random(12), 30, RANDOM
    )


def test_the_search_and_the_agent_take_the_option() -> None:
    state = grab(simultaneous=False).initial_state()
    search = MCTS(state, rng=random.Random(9), decisive=2)
    assert search.evaluator.decisive == 2
    search.search(iterations=30)
    assert search.best_move(0) == "b"
    assert make_agent("mcts:decisive=4").decisive == 4
    assert make_agent("mcts").decisive == 0
    for spec, word in [
        ("mcts:decisive=-1", "decisive"),
        ("mcts:decisive=2,greedy=2", "greedy"),
        ("mcts:decisive=2,mast=yes", "mast"),
        ("mcts:decisive=2,heuristic=yes", "decisive"),
    ]:
        with pytest.raises(GameError, match=word):
            make_agent(spec)
    with pytest.raises(GameError, match="greedy"):
        RandomPlayout(greedy=1, decisive=1)


@needs_native
@pytest.mark.parametrize(
    "text",
    [
        (GDL_DIR / "tictactoe.kif").read_text(),
        (GDL_DIR / "connect_four.kif").read_text(),
        grab_text(simultaneous=False),
        grab_text(simultaneous=True),
        RACE,
    ],
    ids=["tictactoe", "connect_four", "grab", "grab-simultaneous", "race"],
)
@pytest.mark.parametrize("plies", [1, 3, 1000])
def test_native_decisive_playouts_are_the_generic_ones_for_their_seed(
    text: str, plies: int
) -> None:
    interpreted, native = native_game(text, "game")
    assert_native_playouts_agree(interpreted, native, Decisive, plies, states=8)


@needs_native
def test_native_decisive_breakthrough_playouts_are_the_generic_ones() -> None:
    """Native code looks for a win with the terminal's cone alone (not the legal
    moves); Breakthrough's terminal reads piece counts as well as the last rows."""
    interpreted, native = native_game((GDL_DIR / "breakthrough.kif").read_text(), "game")
    assert_native_playouts_agree(interpreted, native, Decisive, 1000, states=1)


def test_serve_plays_decisive_playouts_on_native_code_in_games_with_few_moves() -> None:
    assert decisive_suits(tictactoe())
    assert decisive_suits(grab(simultaneous=False))
    breakthrough = GdlGame.from_text((GDL_DIR / "breakthrough.kif").read_text(), name="bt")
    assert not decisive_suits(breakthrough)  # 22 moves, no native code: random playouts
    assert not decisive_suits(race())  # both move at once: not shown to pay
    state = grab(simultaneous=False).initial_state()
    playout = ServePlayout(SEARCH_DECISIVE)
    values = {tuple(playout.evaluate(state, random.Random(seed))) for seed in range(30)}
    assert playout.decisive == 0  # the interpreter: random playouts
    assert (0.0, 1.0) in values


@needs_native
def test_serve_playouts_are_decisive_once_native_code_plays() -> None:
    _, native = native_game(grab_text(simultaneous=False), "grab")
    playout = ServePlayout(SEARCH_DECISIVE)
    state = native.initial_state()
    assert all(playout.evaluate(state, random.Random(seed)) == [0.5, 0.5] for seed in range(30))
    assert playout.decisive == SEARCH_DECISIVE
    worker = SearchWorker()
    worker.load(grab_text(simultaneous=False), None, 4)
    assert isinstance(worker.tree.evaluator, ServePlayout)
    assert worker.tree.evaluator.plies == SEARCH_DECISIVE
