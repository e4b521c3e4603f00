"""Guided playouts: decisive playouts whose lone chooser plays the best, by a learnt
evaluation, of a few safe moves drawn (`ggp.games.playouts.Guide`).

The generic version goes through the game interface; native code plays exactly
the same playouts for the seed it draws, and the native tree searches with them as
the Python tree does.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from ggp.games.base import GameError
from ggp.games.playouts import Decisive, Guide, _safe_move
from ggp.games.registry import GDL_DIR
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native import build
from ggp.player.agents import make_agent
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.heuristic import Heuristic
from test_gdl_native import native_game, needs_native
from test_greedy_playouts import assert_native_playouts_agree

BREAKTHROUGH = (GDL_DIR / "breakthrough.kif").read_text()


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


CELLS = tuple(
    f"(cellholds {x} {y} {colour})"
    for x in range(1, 9)
    for y in range(1, 9)
    for colour in ("white", "black")
)
"""Breakthrough's facts by text (`Heuristic.bits` of an interpreted state)."""


def left_file_heuristic(texts: tuple[str, ...] = CELLS, game: Any = None) -> Heuristic:
    """White values its pieces on the left file from row 3 up; black the reverse: a
    counts evaluation whose best moves from the start are plain to see (over the
    facts `texts`, the state bits of `game` where given)."""
    mask = 0
    for i, text in enumerate(texts):
        if not text.startswith("(cellholds"):
            continue
        _, x, y, colour = text.strip("()").split()
        if x == "1" and int(y) >= 3 and colour == "white":
            mask |= 1 << i
    weights = ((0.0, 1.0), (0.0, -1.0))
    return Heuristic(texts, (mask,), ("white on the left file",), weights, (0.5, 0.5), game)


def test_with_every_move_drawn_the_guide_plays_the_best_safe_one() -> None:
    state = GdlGame.from_text(BREAKTHROUGH, name="breakthrough").initial_state()
    moves = state.all_legal_moves()
    every = Guide(left_file_heuristic(), len(moves[0]))
    for seed in range(8):
        move = _safe_move(state, moves, 0, random.Random(seed), None, every)
        assert move.endswith(" 1 3)")  # onto the left file: (move 1 2 1 3) or (move 2 2 1 3)
    drawn = {_safe_move(state, moves, 0, random.Random(seed), None) for seed in range(8)}
    assert any(not move.endswith(" 1 3)") for move in drawn)  # unguided: any move


def test_one_move_drawn_is_the_decisive_playout() -> None:
    state = GdlGame.from_text(BREAKTHROUGH, name="breakthrough").initial_state()
    one = Decisive(1000, None, Guide(left_file_heuristic(), 1))
    assert state.playouts(random.Random(3), 2, one) == state.playouts(
        random.Random(3), 2, Decisive(1000)
    )
    three = Decisive(1000, None, Guide(left_file_heuristic(), 3))
    assert state.playouts(random.Random(3), 2, three) != state.playouts(
        random.Random(3), 2, Decisive(1000)
    )


@needs_native
@pytest.mark.parametrize("moves", [2, 3])
def test_native_guided_playouts_are_the_generic_ones_for_their_seed(moves: int) -> None:
    interpreted, native = native_game(BREAKTHROUGH, "breakthrough")
    heuristic = left_file_heuristic(tuple(native.compiled.base_texts), native)

    def guided(plies: int) -> Decisive:
        return Decisive(plies, None, Guide(heuristic, moves))

    assert_native_playouts_agree(interpreted, native, guided, 1000, states=2)


def test_the_search_and_the_agent_take_the_option() -> None:
    with pytest.raises(GameError, match="decisive"):
        RandomPlayout(greedy=3, guide=Guide(None, 3))
    assert make_agent("mcts:decisive=1000,imm=0.4,guide=3").guide == 3
    with pytest.raises(GameError, match="guide"):
        make_agent("mcts:guide=3")
    with pytest.raises(GameError, match="guide"):
        make_agent("mcts:guide=0")
