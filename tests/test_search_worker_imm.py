"""The search worker with implicit minimax (`search_worker.SEARCH_IMM`, on in
ggp serve): the heuristic is learnt in the background and taken where one is
learnt; on games where none is, the search stays exactly the plain one."""

from __future__ import annotations

import dataclasses
import time

import pytest
from gdl_texts import TICTACTOE
from ggp.games.registry import GDL_DIR
from ggp.gdl.native import attach
from ggp.player.search import native_search
from ggp.player.search.imm import ImplicitMinimax
from ggp.player.service import search_worker
from ggp.player.service.search_worker import SearchWorker
from test_heuristic import TOKENS


@pytest.fixture(autouse=True)
def same_playout_batch(monkeypatch) -> None:
    """Native code measures its playouts per leaf (`attach.playout_batch`); two loads
    of a game must search alike for a seed."""
    monkeypatch.setattr(attach, "playout_batch", lambda game, native: 2)


def loaded(rules: str, seed: int) -> SearchWorker:
    """A worker with a seeded search loaded with `rules`, its native code (if any)
    attached and its learning (if any) finished."""
    worker = SearchWorker()
    worker.rng.seed(seed)
    worker.handle({"cmd": "load", "rules": rules})
    worker.settle(120)
    assert worker.tree is not None
    build = getattr(worker.tree.root.state.game, "native_build", None)
    if build is not None:
        build.join()
    if worker.learning is not None:
        assert worker.learning.done.wait(120)
    return worker


def settled(rules: str, seed: int) -> SearchWorker:
    """`loaded`, with what was prepared taken (`take_better_search`) and then a fresh
    tree from a generator seeded `seed`: whether the native code was attached before
    the first tree was made is a matter of timing, which would change the draws."""
    worker = loaded(rules, seed)
    worker.take_better_search()
    worker.rng.seed(seed)
    root = worker.tree.root
    worker.tree = worker.new_tree(root.state, root.depth)
    return worker


def search(worker: SearchWorker, iterations: int) -> dict:
    command = {"cmd": "search", "role": 0, "until": time.time() + 60, "iterations": iterations}
    return worker.handle(command)


def test_ggp_serve_learns_a_heuristic_and_backs_it_up_with_material(monkeypatch) -> None:
    assert (search_worker.SEARCH_IMM, search_worker.SEARCH_MATERIAL) == (0.4, 0.5)
    worker = loaded(TOKENS, 2)
    assert worker.learning is not None and worker.learning.result is not None
    search(worker, 10)
    assert isinstance(worker.tree.imm, ImplicitMinimax) and worker.tree.imm.alpha == 0.4
    monkeypatch.setattr(search_worker, "SEARCH_IMM", 0.0)
    assert loaded(TICTACTOE, 1).learning is None  # off: nothing is learnt


@pytest.mark.parametrize("game", ["tictactoe", "connect_four"])
def test_where_no_heuristic_is_learnt_the_search_is_the_plain_one(monkeypatch, game) -> None:
    rules = TICTACTOE if game == "tictactoe" else (GDL_DIR / "connect_four.kif").read_text()
    monkeypatch.setattr(search_worker, "SEARCH_IMM", 0.0)
    plain = settled(rules, 3)
    assert plain.learning is None
    monkeypatch.setattr(search_worker, "SEARCH_IMM", 0.4)
    monkeypatch.setattr(search_worker, "SEARCH_MATERIAL", 0.5)
    learner = loaded(rules, 3)
    assert learner.learning is not None and learner.learning.result is None
    worker = settled(rules, 3)
    assert worker.learning is None and worker.heuristic is None
    tree = worker.tree
    first, again = search(plain, 300), search(worker, 300)
    assert worker.tree is tree and worker.tree.imm is None
    assert (again["move"], again["stats"]) == (first["move"], first["stats"])
    for answer in (first, again):
        del answer["cpu"]
    assert again == first


def test_a_learnt_heuristic_is_taken_into_a_new_tree(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_IMM", 0.4)
    monkeypatch.setattr(search_worker, "SEARCH_MATERIAL", 0.5)
    worker = loaded(TOKENS, 5)
    assert worker.learning is not None and worker.learning.result is not None
    names = worker.learning.result.names
    assert "(token white ?)" in names and "(token black ?)" in names
    plain = worker.tree
    answer = search(worker, 100)
    assert worker.tree is not plain and isinstance(worker.tree.imm, ImplicitMinimax)
    assert worker.tree.imm.alpha == 0.4 and answer["sims"] == 100
    assert worker.tree.root.visits == 100  # the new tree holds this search's simulations
    worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]})
    assert worker.tree.root.depth == 1 and worker.tree.imm is not None


class SteppingClock:
    """The worker's clock, moving 10 ms at each look, whatever the machine's load
    (a loaded machine can stall a real search past its half between two looks)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.01
        return self.now

    def time(self) -> float:
        return 1_000_000.0 + self.monotonic()

    @staticmethod
    def thread_time() -> float:
        return time.thread_time()

    @staticmethod
    def process_time() -> float:
        return time.process_time()


def test_a_search_more_than_half_over_keeps_its_tree(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_IMM", 0.4)
    monkeypatch.setattr(search_worker, "SMALL_TREE", 0)  # a tree worth keeping, however small
    # The Python tree's loop, a simulation at a time on the fake clock below (a tree the
    # native library searches runs slices on the real one).
    monkeypatch.setattr(native_search, "NATIVE_TREE", False)
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TOKENS})
    worker.settle(120)
    worker.traps_on = False  # the search, not the exact solver, is under test
    learning = worker.learning
    assert learning is not None
    learning.done.wait(120)
    # As if learning ended just now, late in a search of 1 s: the search keeps its tree.
    learning.done.clear()
    tree = worker.tree
    search_once = tree.search
    clock = SteppingClock()
    monkeypatch.setattr(search_worker, "time", clock)
    began = clock.time()

    def finish_late(**budget) -> int:
        if clock.time() - began > 0.6:
            learning.done.set()
        return search_once(**budget)

    monkeypatch.setattr(tree, "search", finish_late)
    worker.handle({"cmd": "search", "role": 0, "until": began + 1.0, "iterations": None})
    assert learning.done.is_set()
    assert worker.tree is tree and worker.learning is learning
    worker.ponder()  # taken at the next slice of pondering
    assert worker.tree is not tree and worker.learning is None


def test_decisive_playouts_turn_on_where_the_heuristic_brought_the_native_tree_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The heuristic learnt after the native code was attached makes the first tree the
    library holds (`take_heuristic` comes before `take_native_tree`): the playouts
    still turn decisive where the game's finishing moves are few."""
    worker = loaded((GDL_DIR / "breakthrough.kif").read_text(), 4)
    # as where the first tree was made before the native code came (timing decides)
    worker.config = dataclasses.replace(worker.config, decisive=False)
    worker.native_checked = None
    assert worker.heuristic is None
    worker.take_better_search()  # as a search does before its iterations
    assert worker.heuristic is not None and worker.config.decisive
    assert worker.config.describe().startswith("decisive playouts, implicit minimax")
    assert "wins looked for among the game's few finishing moves" in capsys.readouterr().err
