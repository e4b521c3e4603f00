"""The search's tree loop in the native library (`ggp.player.search.native_search`):
a seeded search decides there exactly as the Python tree does (the same root
statistics to the last bit, moves, proofs and node counts, after searching, after
advancing and searching on), in the served configuration and its parts."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Callable
from typing import Any

import pytest
from ggp.games.base import Game
from ggp.games.registry import GDL_DIR, load_game
from ggp.gdl.native import build
from ggp.player.search import native_search
from ggp.player.search.heuristic import Heuristic
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import MCTS

try:
    import cffi  # noqa: F401

    NATIVE_MISSING = None if shutil.which("cc") else "no C compiler (cc)"
except ImportError:
    NATIVE_MISSING = "cffi is not installed"

pytestmark = pytest.mark.skipif(NATIVE_MISSING is not None, reason=str(NATIVE_MISSING))


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


_GAMES: dict[str, Game] = {}


def native_game(name: str, batch: int = 2) -> Game:
    if name not in _GAMES:
        game = load_game(str(GDL_DIR / f"{name}.kif"), reasoner="native")
        game.native_build.join()
        assert game.native is not None, f"{name}: no native code"
        _GAMES[name] = game
    game = _GAMES[name]
    game.playout_batch = batch
    return game


def counts_heuristic(game: Game, seed: int = 3) -> Heuristic:
    """A heuristic of fact counts (as the learnt ones are) with arbitrary weights."""
    rng = random.Random(seed)
    texts = tuple(game.compiled.base_texts)
    masks = tuple(rng.getrandbits(len(texts)) for _ in range(5))
    weights = tuple(
        tuple(rng.uniform(-0.3, 0.3) for _ in range(len(masks) + 1)) for _ in game.roles
    )
    return Heuristic(texts, masks, tuple(f"f{i}" for i in range(5)), weights, (0.5,) * 2, game)


def configurations(game: Game) -> dict[str, Callable[[], dict[str, Any]]]:
    heuristic = counts_heuristic(game)
    return {
        "plain": lambda: {},
        "solver": lambda: {"c": 0.35, "solver": True},
        "decisive": lambda: {"c": 0.35, "solver": True, "decisive": 1000},
        "served": lambda: {
            "c": 0.35,
            "solver": True,
            "decisive": 1000,
            "imm": ImplicitMinimax(heuristic, 0.4),
            "prior": HeuristicPrior(heuristic, 8),
            "broken_rules": True,
        },
        "prior": lambda: {"greedy": 3, "prior": HeuristicPrior(heuristic, 3)},
        "capped": lambda: {"solver": True, "max_nodes": 60, "imm": ImplicitMinimax(heuristic, 0.3)},
    }


def decisions(search: MCTS, state: Any, rounds: int, iterations: int, switch: int = -1) -> str:
    """A digest of what `search` decided over `rounds` searches, advancing along its
    moves between them; at round `switch`, the native tree handed to Python first."""
    game = state.game
    seen: list[Any] = []
    for round_ in range(rounds):
        if round_ == switch:
            search._leave_native()
        search.search(iterations=iterations)
        roles = range(len(game.roles))
        stats = [
            [(s.move, s.visits, repr(s.value), s.lower, s.upper) for s in search.statistics(r)]
            for r in roles
        ]
        moves = [search.best_move(r) for r in roles]
        root = search.root
        seen.append([stats, moves, search.node_count, root.proven, search.evaluator.playouts])
        if root.proven is not None:
            break
        state = state.next(moves)
        if state.is_terminal():
            break
        search.advance(moves, state)
    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()


def both_ways(game: Game, options: Callable[[], dict[str, Any]], **run: Any) -> tuple[str, str]:
    """The digests of the same seeded search on the native tree and on Python's."""
    digests = []
    for native in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(native_search, "NATIVE_TREE", native)
            search = MCTS(game.initial_state(), rng=random.Random(7), **options())
            assert search.native == native
            digests.append(decisions(search, game.initial_state(), **run))
    return digests[0], digests[1]


@pytest.mark.parametrize("name", ["connect_four", "breakthrough"])
@pytest.mark.parametrize("config", ["plain", "solver", "decisive", "served", "prior", "capped"])
def test_the_native_tree_decides_as_the_python_tree(name: str, config: str) -> None:
    game = native_game(name)
    native, python = both_ways(game, configurations(game)[config], rounds=3, iterations=300)
    assert native == python


def test_one_playout_a_leaf_and_proofs_to_the_root() -> None:
    game = native_game("tictactoe", batch=1)
    options = configurations(game)["served"]
    native, python = both_ways(game, options, rounds=2, iterations=3000)
    assert native == python
    state = game.initial_state()
    for move in ("(mark 1 1)", "(mark 3 1)", "(mark 3 3)"):  # x wins by force now
        state = state.next(
            [move if len(moves) > 1 else moves[0] for moves in state.all_legal_moves()]
        )
    proofs = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(native_search, "NATIVE_TREE", on)
            search = MCTS(state, rng=random.Random(7), **options())
            done = search.search(iterations=20000)
            proofs.append((search.native, done, search.root.proven, search.node_count))
    assert proofs[0][0] and not proofs[1][0]
    assert proofs[0][1:] == proofs[1][1:] and proofs[0][2] == [1.0, 0.0]


def test_the_python_tree_goes_on_from_the_native_one_unchanged() -> None:
    game = native_game("breakthrough")
    options = configurations(game)["served"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native_search, "NATIVE_TREE", False)
        python = decisions(
            MCTS(game.initial_state(), rng=random.Random(7), **options()),
            game.initial_state(),
            rounds=3,
            iterations=300,
        )
    search = MCTS(game.initial_state(), rng=random.Random(7), **options())
    assert decisions(search, game.initial_state(), rounds=3, iterations=300, switch=1) == python
    assert not search.native


def test_advancing_off_the_tree_starts_afresh_or_hands_over() -> None:
    game = native_game("connect_four")
    state = game.initial_state()
    search = MCTS(state, rng=random.Random(1), solver=True)
    search.search(iterations=200)
    kept = search.node_count
    role = search.root.choosers[0]
    move = search.best_move(role)
    joint = [moves[0] if r != role else move for r, moves in enumerate(search.root.moves)]
    after = state.next(joint)
    search.advance(joint, after)
    assert search.native and 1 < search.node_count < kept  # the subtree kept
    search.advance(["no such move"] * len(game.roles), after)  # not a move: afresh
    assert search.native and search.node_count == 1 and search.root.moves is not None
    other = load_game("connect_four")  # the built-in Python game: the Python tree's
    search.advance(joint, other.initial_state().next(joint))
    assert not search.native and search.node_count == 1
