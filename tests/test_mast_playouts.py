"""MAST playouts: the generic ones, and native code playing exactly them for a seed.

Native code reads and learns the move averages in place, in arrays numbered by
the game's input indexes; what it learns must be what the generic playouts
learn, to the last bit of every sum.
"""

from __future__ import annotations

import random

import pytest
from ggp.games.move_averages import MoveAverages
from ggp.games.playouts import Mast
from ggp.games.registry import GDL_DIR
from ggp.gdl.native import build
from ggp.player.search.mast import MastPlayout
from ggp.player.search.mcts import MCTS
from test_gdl_native import native_game, needs_native


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def tables(averages: MoveAverages, roles: int) -> list[dict[str, tuple[int, float]]]:
    return [averages.table(role) for role in range(roles)]


def test_renumbering_keeps_what_was_learnt() -> None:
    averages = MoveAverages(2)
    averages.learn(0, "a", 1.0)
    averages.learn(1, "a", 0.5)
    averages.learn(1, "c", 0.25)
    before = tables(averages, 2)
    averages.renumber("game", [{"a": 2, "b": 0}, {"a": 1}], 3)
    assert averages.numbering == "game" and len(averages.counts) == 4  # "c" of role 1 after
    assert tables(averages, 2) == before
    assert averages.slots[0]["a"] == 2 and averages.counts[2] == 1
    averages.learn(0, "b", 0.0)
    assert averages.counts[0] == 1 and averages.best(0, ["b", "a"]) == "a"
    with pytest.raises(ValueError, match="1 roles numbered, the averages have 2"):
        averages.renumber("other", [{}], 1)


@needs_native
@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
@pytest.mark.parametrize(("epsilon", "plies"), [(0.4, None), (0.1, 3), (1.0, None)])
def test_native_mast_playouts_are_the_generic_ones_and_learn_the_same(
    name: str, epsilon: float, plies: int | None
) -> None:
    interpreted, native = native_game((GDL_DIR / f"{name}.kif").read_text(), name)
    roles = len(native.roles)
    generic, learnt = MoveAverages(roles), MoveAverages(roles)
    first = interpreted.initial_state().legal_moves(0)[0]
    for averages in (generic, learnt):  # learnt by text before native code numbers them
        averages.learn(0, first, 0.3)
    walk = random.Random(7)
    a, b = interpreted.initial_state(), native.initial_state()
    for _ in range(5):
        for seed in range(3):
            expected = Mast(generic, epsilon, plies).play(a, random.Random(seed), 4)
            assert b.playouts(random.Random(seed), 4, Mast(learnt, epsilon, plies)) == expected
            assert tables(learnt, roles) == tables(generic, roles)
        joint = [walk.choice(moves) for moves in a.all_legal_moves()]
        a, b = a.next(joint), b.next(joint)
    assert learnt.numbering is not None and generic.numbering is None
    assert sum(count for count, _ in generic.table(0).values()) > 60


@needs_native
def test_mast_search_on_native_code_learns_in_place_and_finds_the_block() -> None:
    _, native = native_game((GDL_DIR / "tictactoe.kif").read_text(), "tictactoe")
    state = native.initial_state()
    for move in ["(mark 1 1)", "(mark 2 2)", "(mark 1 2)"]:  # x threatens (mark 1 3)
        state = state.next([move, "noop"] if state.legal_moves(1) == ("noop",) else ["noop", move])
    search = MCTS(state, mast=True, rng=random.Random(1))
    search.search(iterations=400)
    assert search.best_move(1) == "(mark 1 3)"
    assert isinstance(search.evaluator, MastPlayout)
    playouts = search.evaluator.playouts
    assert playouts > 0 and playouts % native.playout_batch == 0  # a batch a leaf
    assert search.averages.numbering is not None  # the native arrays are the store
    learnt = search.averages.table(1)
    assert sum(count for count, _ in learnt.values()) > playouts
    with pytest.raises(ValueError, match="not numbered by this game's inputs"):
        native.native_playouts.mast_playouts(state.bits, random.Random(), 1, MoveAverages(2), 0.4)


@needs_native
def test_a_mast_search_on_native_code_is_the_generic_search() -> None:
    interpreted, native = native_game((GDL_DIR / "tictactoe.kif").read_text(), "tictactoe")
    interpreted.playout_batch = native.playout_batch
    searches = [
        MCTS(game.initial_state(), mast=True, rng=random.Random(5))
        for game in (interpreted, native)
    ]
    for search in searches:
        search.search(iterations=150)
    generic, on_native = searches
    assert on_native.statistics(0) == generic.statistics(0)
    assert tables(on_native.averages, 2) == tables(generic.averages, 2)
