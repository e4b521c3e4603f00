"""The search's tree loop in the native library (`ggp.player.search.native_search`):
a seeded search decides there exactly as the Python tree does (the same root
statistics to the last bit, moves, proofs and node counts, after searching, after
advancing and searching on), in the served configuration and its parts."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from collections.abc import Callable
from typing import Any

import pytest
from gdl_texts import KINGMAKER, TICTACTOE
from ggp.games.base import Game, GameDefinitionError
from ggp.games.playouts import FINISHING_MOVES, Guide
from ggp.games.registry import GDL_DIR, load_game
from ggp.gdl.load import game_from_text
from ggp.gdl.native import build
from ggp.player.search import native_search
from ggp.player.search.heuristic import Heuristic
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import MCTS
from ggp.player.search.tree import subtree
from ggp.player.service import serve_playouts
from ggp.player.service.search_worker import SearchWorker

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
    found = game.initial_state().playouts(random.Random(5), 300, FINISHING_MOVES)
    finishers = tuple(frozenset(sorted(moves)[::2]) for moves in found)  # half: they count
    return {
        "plain": lambda: {},
        "solver": lambda: {"c": 0.35, "solver": True},
        "maxn": lambda: {"c": 0.35, "solver": True, "maxn": True, "decisive": 1000},
        "bounded": lambda: {"c": 0.35, "solver": True, "bounded": True, "decisive": 1000},
        "decisive": lambda: {"c": 0.35, "solver": True, "decisive": 1000},
        "finishers": lambda: {"c": 0.35, "decisive": 1000, "finishers": finishers},
        "served": lambda: {
            "c": 0.35,
            "solver": True,
            "decisive": 1000,
            "imm": ImplicitMinimax(heuristic, 0.4),
            "prior": HeuristicPrior(heuristic, 8),
            "broken_rules": True,
        },
        "guided": lambda: {
            "c": 0.35,
            "solver": True,
            "decisive": 1000,
            "finishers": finishers,
            "guide": Guide(heuristic, 3),
            "imm": ImplicitMinimax(heuristic, 0.4),
        },
        "prior": lambda: {"greedy": 3, "prior": HeuristicPrior(heuristic, 3)},
        "capped": lambda: {"solver": True, "max_nodes": 60, "imm": ImplicitMinimax(heuristic, 0.3)},
        "graph": lambda: {"c": 0.35, "solver": True, "decisive": 1000, "transpose": True},
        "graph served": lambda: {
            "c": 0.35,
            "solver": True,
            "decisive": 1000,
            "imm": ImplicitMinimax(heuristic, 0.4),
            "prior": HeuristicPrior(heuristic, 8),
            "transpose": True,
        },
        "graph capped": lambda: {
            "solver": True,
            "max_nodes": 60,
            "imm": ImplicitMinimax(heuristic, 0.3),
            "transpose": True,
        },
        "graph bounded": lambda: {"c": 0.35, "solver": True, "bounded": True, "transpose": True},
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
        seen.append(
            [
                stats,
                moves,
                search.node_count,
                root.proven,
                search.evaluator.playouts,
                search.settled,
            ]
        )
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
            patch.setattr(native_search, "NATIVE_NODE_SHARE", 1)  # the same cap both ways
            search = MCTS(game.initial_state(), rng=random.Random(7), **options())
            assert search.native == native
            digests.append(decisions(search, game.initial_state(), **run))
    return digests[0], digests[1]


@pytest.mark.parametrize("name", ["connect_four", "breakthrough"])
@pytest.mark.parametrize(
    "config",
    [
        "plain",
        "solver",
        "maxn",
        "bounded",
        "decisive",
        "finishers",
        "served",
        "guided",
        "prior",
        "capped",
        "graph",
        "graph served",
        "graph capped",
        "graph bounded",
    ],
)
def test_the_native_tree_decides_as_the_python_tree(name: str, config: str) -> None:
    game = native_game(name)
    native, python = both_ways(game, configurations(game)[config], rounds=3, iterations=300)
    assert native == python


def marked(game: Game, *moves: str) -> Any:
    """Tic-tac-toe's state after `moves`, each the mover's (the other plays noop)."""
    state = game.initial_state()
    for move in moves:
        state = state.next(
            [move if len(legal) > 1 else legal[0] for legal in state.all_legal_moves()]
        )
    return state


def test_one_playout_a_leaf_and_proofs_to_the_root() -> None:
    game = native_game("tictactoe", batch=1)
    options = configurations(game)["served"]
    native, python = both_ways(game, options, rounds=2, iterations=3000)
    assert native == python
    state = marked(game, "(mark 1 1)", "(mark 3 1)", "(mark 3 3)")  # x wins by force now
    proofs = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(native_search, "NATIVE_TREE", on)
            search = MCTS(state, rng=random.Random(7), **options())
            done = search.search(iterations=20000)
            proofs.append((search.native, done, search.root.proven, search.node_count))
    assert proofs[0][0] and not proofs[1][0]
    assert proofs[0][1:] == proofs[1][1:] and proofs[0][2] == [1.0, 0.0]


def test_iterations_that_end_on_terminal_or_proven_nodes_are_counted_apart() -> None:
    """Three squares left: after the few nodes are made, the iterations only revisit
    terminal nodes, without a playout; both trees count them as `settled`, and every
    other iteration made one node."""
    game = native_game("tictactoe", batch=1)
    marks = ("(mark 1 1)", "(mark 1 2)", "(mark 1 3)", "(mark 2 2)", "(mark 2 1)", "(mark 3 1)")
    state = marked(game, *marks)
    counts = []
    for on in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(native_search, "NATIVE_TREE", on)
            search = MCTS(state, rng=random.Random(7), solver=False)
            done = search.search(iterations=2000)
            counts.append((search.native, done, search.settled, search.node_count))
    assert counts[0][0] and not counts[1][0]
    assert counts[0][1:] == counts[1][1:]
    done, settled, nodes = counts[0][1:]
    assert done == 2000 and done - settled == nodes - 1 and nodes <= 16


@pytest.mark.parametrize("name", ["breakthrough", "connect_four", "pick race", "three at once"])
def test_the_python_tree_goes_on_from_the_native_one_unchanged(name: str) -> None:
    """Handed over mid-match, Breakthrough's tree, Connect Four's graph (its shared
    nodes one `Node` each, held by depth and state again) and the joint nodes of games
    where several roles choose at once go on in Python as they would have there."""
    if name == "breakthrough":
        game, config = native_game(name), "served"
    elif name == "connect_four":
        game, config = native_game(name), "graph served"
    else:
        game, config = text_game(SIMULTANEOUS[name]), "solver"
    options = configurations(game)[config]
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
    if search.positions is not None:  # every node held once, under its depth and state
        nodes = {id(node): node for node in subtree(search.root)}
        assert len(nodes) == len(search.positions) == search.node_count
        assert all(search.positions[n.depth, n.state.key()] is n for n in nodes.values())
        assert sum(len(n.children) for n in nodes.values()) > len(nodes) - 1  # shared ones


def test_the_native_tree_holds_more_and_hands_the_most_visited_nodes_over() -> None:
    """The native tree holds `NATIVE_NODE_SHARE` times `max_nodes`; the Python tree that
    goes on from it keeps `max_nodes` of them, the most visited, root statistics whole."""
    game = native_game("breakthrough")
    capped = MCTS(game.initial_state(), rng=random.Random(5), solver=True, max_nodes=100)
    capped.search(iterations=3000)
    assert capped.native and capped.node_count == 100 * native_search.NATIVE_NODE_SHARE
    search = MCTS(game.initial_state(), rng=random.Random(5), solver=True, max_nodes=100)
    search.search(iterations=400)  # a node an iteration, below the native cap
    assert search.native and search.node_count == 401
    before = [(s.move, s.visits, s.value) for s in search.statistics(0)]
    search._leave_native()
    assert not search.native and search.node_count == held(search.root) == 100
    assert [(s.move, s.visits, s.value) for s in search.statistics(0)] == before
    kept, left_out = [], []
    nodes = [search.root]
    for node in nodes:
        if not node.choosers:  # a leaf
            continue
        chooser = node.choosers[0]
        for i, joint in enumerate(node.joints):
            visits = node.counts[chooser][i]
            if joint in node.children:
                kept.append(visits)
                nodes.append(node.children[joint])
            elif visits:
                left_out.append(visits)
    assert left_out and min(kept) >= max(left_out)
    assert search.search(iterations=500) == 500 and search.node_count == 100


def held(root: Any) -> int:
    return 1 + sum(held(child) for child in root.children.values())


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


THEN_TOGETHER = """
(role a) (role b)
(init (step 0))
(opening left) (opening right) (opening middle)
(pick p) (pick q)
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal a (open ?m)) (true (step 0)) (opening ?m))
(<= (legal b noop) (true (step 0)))
(<= (legal ?r (choose ?p)) (role ?r) (true (step ?n)) (distinct ?n 0) (pick ?p))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (opened ?m)) (does a (open ?m)))
(<= (next (opened ?m)) (true (opened ?m)))
(<= (next (same)) (does a (choose ?p)) (does b (choose ?p)))
(<= (next (same)) (true (same)))
(<= terminal (true (step 3)))
(<= (goal a 100) (true (same)) (not (true (opened middle))))
(<= (goal a 50) (true (same)) (true (opened middle)))
(<= (goal a 0) (not (true (same))))
(<= (goal b 0) (true (same)))
(<= (goal b 100) (not (true (same))))
"""
"""One role opens, then both choose at once: the native tree hands over to Python."""

BREAKS = """
(role a) (role b)
(init (step 0))
(option good) (option bad)
(<= (legal a (go ?m)) (true (step 0)) (option ?m))
(<= (legal b noop) (true (step 0)))
(<= (legal a noop) (true (step 1)))
(<= (legal b (mark ?m)) (true (step 1)) (option ?m))
(<= (next (step 1)) (does a (go good)))
(<= (next (broke)) (does a (go bad)))
(<= (next (step 2)) (true (step 1)))
(<= (next (won)) (does b (mark good)))
(<= terminal (true (step 2)))
(<= (goal a 100) (true (step 2)) (not (true (won))))
(<= (goal a 0) (true (won)))
(<= (goal b 100) (true (won)))
(<= (goal b 0) (true (step 2)) (not (true (won))))
"""
"""After a's move ``bad`` no role has a legal move: the rules break there."""


def text_game(rules: str) -> Game:
    game = game_from_text(rules, reasoner="native")
    game.native_build.join()
    assert game.native is not None
    game.playout_batch = 1
    return game


THREE_NIM = """
(role a) (role b) (role c)
(init (pile 9)) (init (control a))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9)
(after a b) (after b c) (after c a)
(<= (legal ?r (take 1)) (true (control ?r)) (true (pile ?n)) (succ ?m ?n))
(<= (legal ?r (take 2)) (true (control ?r)) (true (pile ?n)) (succ ?m ?n) (succ ?l ?m))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (pile ?m)) (does ?r (take 1)) (true (pile ?n)) (succ ?m ?n))
(<= (next (pile ?l)) (does ?r (take 2)) (true (pile ?n)) (succ ?m ?n) (succ ?l ?m))
(<= (next (control ?s)) (true (control ?r)) (after ?r ?s))
(<= (next (last ?r)) (does ?r (take ?x)))
(<= terminal (true (pile 0)))
(<= (goal ?r 100) (true (last ?r)))
(<= (goal ?r 50) (true (last ?p)) (after ?p ?r))
(<= (goal ?r 0) (true (last ?p)) (after ?r ?p))
"""
"""Three roles take one or two from a pile of nine in turn: who takes the last gets
100, the next to move 50, the one before 0 (each role's best is not the others' worst)."""


def test_max_n_proofs_take_each_role_s_own_best_choice_in_both_trees() -> None:
    game = text_game(KINGMAKER)
    found = []
    for maxn in (False, True):
        for on in (True, False):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(native_search, "NATIVE_TREE", on)
                search = MCTS(game.initial_state(), rng=random.Random(7), solver=True, maxn=maxn)
                done = search.search(iterations=1000)
                assert search.native == on
                found.append((done, search.root.proven, search.best_move(0)))
    security, security_python, maxn, maxn_python = found
    assert security == security_python and maxn == maxn_python
    assert security[2] == "right"  # b and c "against" a: left is a's 0
    assert maxn[1:] == ([1.0, 1.0, 0.0], "left") and maxn[0] < 100  # proven soon


def test_max_n_proofs_decide_alike_in_both_trees_with_three_roles() -> None:
    game = text_game(THREE_NIM)
    options = lambda: {"c": 0.35, "solver": True, "maxn": True}  # noqa: E731
    native, python = both_ways(game, options, rounds=4, iterations=400)
    assert native == python


PICK_RACE = """
(role a) (role b)
(init (round 0)) (init (points 0))
(num 1) (num 2) (num 3)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal ?r (pick ?n)) (role ?r) (num ?n))
(<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
(<= (next (points ?m)) (true (points ?n)) (does a (pick ?x)) (does b (pick ?x)) (succ ?n ?m))
(<= (next (points ?n)) (true (points ?n)) (does a (pick ?x)) (does b (pick ?y)) (distinct ?x ?y))
(<= terminal (true (points 2)))
(<= terminal (true (round 4)))
(<= (goal a 100) (true (points 2)))
(<= (goal a 0) (not (true (points 2))))
(<= (goal b 0) (true (points 2)))
(<= (goal b 100) (not (true (points 2))))
"""
"""Both roles pick a number at once, every round: a scores when they match and wins
at two points, b wins if a does not within four rounds (nine joint moves a node)."""

THREE_AT_ONCE = """
(role a) (role b) (role c)
(init (round 0))
(bit 1) (bit 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(even 0) (even 2) (even 4)
(<= (legal a (pa ?x)) (bit ?x))
(<= (legal b (pb ?x)) (bit ?x))
(<= (legal c (pc ?x)) (true (round ?n)) (even ?n) (bit ?x))
(<= (legal c noop) (true (round ?n)) (not (even ?n)))
(<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
(<= (next (hit a)) (does a (pa ?x)) (does b (pb ?x)))
(<= (next (hit a)) (true (hit a)))
(<= (next (hit c)) (does c (pc ?x)) (does a (pa ?x)))
(<= (next (hit c)) (true (hit c)))
(<= terminal (true (round 5)))
(<= terminal (true (hit a)) (true (hit c)))
(<= (goal a 100) (true (hit a)) (not (true (hit c))))
(<= (goal a 50) (true (hit a)) (true (hit c)))
(<= (goal a 0) (not (true (hit a))))
(<= (goal b 100) (not (true (hit a))))
(<= (goal b 0) (true (hit a)))
(<= (goal c 100) (true (hit c)))
(<= (goal c 0) (not (true (hit c))))
"""
"""Three roles: a and b choose at every step, c at every other (the joint moves of
three roles, and of two where c has one move)."""

SIMULTANEOUS = {"pick race": PICK_RACE, "three at once": THREE_AT_ONCE, "then": THEN_TOGETHER}


@pytest.mark.parametrize("name", sorted(SIMULTANEOUS))
@pytest.mark.parametrize(
    "config", ["plain", "solver", "decisive", "served", "guided", "prior", "capped"]
)
def test_where_several_roles_choose_the_native_tree_decides_as_the_python_tree(
    name: str, config: str
) -> None:
    game = text_game(SIMULTANEOUS[name])
    options = configurations(game)[config]
    native, python = both_ways(game, options, rounds=3, iterations=300)
    assert native == python
    search = MCTS(game.initial_state(), rng=random.Random(7), **options())
    search.search(iterations=300)
    assert search.native  # the C loop searched the joint moves, to the end


def test_where_several_roles_choose_among_too_many_joint_moves_the_python_tree_goes_on(
    monkeypatch,
) -> None:
    monkeypatch.setattr(native_search, "NATIVE_JOINT_MOVES", 3)  # THEN_TOGETHER's have 4
    game = text_game(THEN_TOGETHER)
    options = configurations(game)["solver"]
    native, python = both_ways(game, options, rounds=2, iterations=200)
    assert native == python
    search = MCTS(game.initial_state(), rng=random.Random(7), **options())
    assert search.native  # a alone chooses at the root
    search.search(iterations=200)
    assert not search.native and search.node_count > 10


def test_partial_proofs_leave_the_nodes_where_several_choose_to_the_python_tree() -> None:
    game = text_game(PICK_RACE)
    search = MCTS(game.initial_state(), rng=random.Random(7), solver=True, partial_proofs=True)
    assert not search.native  # the root is one: Python's from the start
    search = MCTS(game.initial_state(), rng=random.Random(7), solver=True)
    assert search.native


def test_a_node_cap_without_room_for_joint_edges_plays_out_from_the_node(monkeypatch) -> None:
    """Joint moves' edges count against the node cap (eight a node): a node where
    several choose that finds no room for its edges stays a leaf, played out from."""
    monkeypatch.setattr(native_search, "NATIVE_NODE_SHARE", 1)
    game = text_game(PICK_RACE)
    search = MCTS(game.initial_state(), rng=random.Random(7), solver=True, max_nodes=3)
    assert search.search(iterations=500) == 500
    assert search.native and search.node_count == 3 and search.root.visits == 500
    tree = search._native.tree
    nodes = [tree.node(i) for i in range(tree.count)]
    assert [node.moves is not None for node in nodes] == [True, True, False]
    assert tree.tree.joint_edges == 18  # of the 24 the cap allows: the third had no room
    assert nodes[2].visits > 2  # a leaf, played out from at each visit


@pytest.mark.parametrize("broken_rules", [True, False])
def test_where_the_rules_break_the_search_counts_or_raises_as_in_python(
    broken_rules: bool,
) -> None:
    game = text_game(BREAKS)
    seen = []
    for native in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(native_search, "NATIVE_TREE", native)
            search = MCTS(game.initial_state(), rng=random.Random(3), broken_rules=broken_rules)
            assert search.native == native
            if broken_rules:
                done = search.search(iterations=50)
                stats = [(s.move, s.visits, s.value) for s in search.statistics(0)]
                seen.append((done, search.broken, stats, search.rng.random()))
            else:
                with pytest.raises(GameDefinitionError):
                    search.search(iterations=50)
                seen.append(search.root.visits)
    assert seen[0] == seen[1]
    if broken_rules:
        assert seen[0][1] > 0


def test_the_served_search_moves_to_the_native_tree_once_the_code_is_attached() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False, "races": False})
    worker.settle(120)
    game = worker.tree.root.state.game
    game.native_build.join()
    assert game.native is not None
    command = {"cmd": "search", "role": 0, "until": time.time() + 120, "iterations": 60}
    answer = worker.handle(command)
    assert worker.tree.native and answer["sims"] + answer["settled"] == 60
    move = answer["move"]
    worker.handle({"cmd": "advance", "joint": [move, "noop"]})
    assert worker.tree.native and worker.tree.root.depth == 1
    answer = worker.handle({**command, "role": 1})
    assert answer["sims"] + answer["settled"] == 60 and answer["move"] in worker.tree.root.moves[1]


def test_the_served_search_of_a_simultaneous_game_stays_on_the_native_tree() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": PICK_RACE, "traps": False, "races": False})
    worker.settle(120)
    worker.tree.root.state.game.native_build.join()
    command = {"cmd": "search", "role": 0, "until": time.time() + 120, "iterations": 60}
    answer = worker.handle(command)
    assert worker.tree.native and answer["sims"] + answer["settled"] == 60
    worker.handle({"cmd": "advance", "joint": [answer["move"], "(pick 1)"]})
    answer = worker.handle({**command, "role": 1})
    assert worker.tree.native and worker.tree.root.depth == 1
    assert answer["sims"] + answer["settled"] == 60 and answer["move"] in worker.tree.root.moves[1]


def test_a_slow_look_for_a_better_search_does_not_end_the_served_search(monkeypatch) -> None:
    """Taking faster rules or a heuristic can take longer than a native slice: the slice
    is timed from after it (a served start search once ended at 5 s of 40 that way)."""
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False, "races": False})
    worker.settle(120)
    worker.tree.root.state.game.native_build.join()
    command = {"cmd": "search", "role": 0, "until": time.time() + 120, "iterations": 10}
    assert worker.handle(command)["sims"] == 10 and worker.tree.native
    monkeypatch.setattr(SearchWorker, "improving", property(lambda self: True))
    monkeypatch.setattr(worker, "take_better_search", lambda: time.sleep(0.05))
    assert worker.handle({**command, "iterations": 200})["sims"] == 200


@pytest.mark.parametrize("native", [True, False])
def test_a_search_starts_no_iteration_that_would_end_past_finish_by(native: bool) -> None:
    game = native_game("connect_four")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native_search, "NATIVE_TREE", native)
        search = MCTS(game.initial_state(), rng=random.Random(1))
    assert search.native == native
    now = time.monotonic()
    assert search.search(finish_by=now - 1.0) == 0
    assert search.search(thread_deadline=time.thread_time() - 1.0) == 0
    assert search.search(iterations=20, finish_by=now + 600.0) == 20
    assert 0.0 < search.slowest < 600.0
    search.slowest = 601.0  # as if an iteration had taken that long: none fits now
    assert search.search(iterations=20, finish_by=time.monotonic() + 600.0) == 0
    assert search.search(iterations=5, thread_deadline=time.thread_time() + 600.0) == 5


def test_served_decisive_playouts_look_for_wins_among_few_finishing_moves() -> None:
    breakthrough, connect_four = native_game("breakthrough"), native_game("connect_four")
    finishers = serve_playouts.serve_finishers(breakthrough)
    assert finishers is not None
    for role, last_row in zip(finishers, ("8", "1"), strict=True):
        assert 0 < len(role) <= 22 and all(move.split()[-1] == last_row + ")" for move in role)
    state = breakthrough.initial_state()
    assert serve_playouts.ServePlayout(1000).native_playouts(state) == (
        1000,
        True,
        breakthrough.finish_inputs(finishers),
    )
    assert serve_playouts.ServePlayout(0).native_playouts(state) == (0, False, None)
    assert serve_playouts.decisive_suits(breakthrough)  # cheap now: its default
    # every drop can end Connect Four: its decisive playouts look at every move
    assert serve_playouts.serve_finishers(connect_four) is None
    assert serve_playouts.ServePlayout(1000).native_playouts(connect_four.initial_state()) == (
        1000,
        True,
        None,
    )


def test_the_served_search_turns_decisive_where_native_code_finds_few_finishers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    worker = SearchWorker()
    rules = (GDL_DIR / "breakthrough.kif").read_text()
    worker.handle({"cmd": "load", "rules": rules, "traps": False, "races": False})
    worker.settle(120)
    game = worker.tree.root.state.game
    game.native_build.join()
    assert not worker.tree.native and not worker.config.decisive  # Python's tree, random
    command = {"cmd": "search", "role": 0, "until": time.time() + 120, "iterations": 60}
    answer = worker.handle(command)
    assert worker.tree.native and worker.config.decisive
    assert answer["config"].startswith("decisive playouts")
    assert worker.tree._native.tree.tree.finish != game.native.ffi.NULL
    assert "wins looked for among the game's few finishing moves" in capsys.readouterr().err


FORCED_LAST_TAKE = """
(role a) (role b)
(init (pile 4)) (init (control a))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal ?r (take 1)) (true (control ?r)) (true (pile ?n)) (distinct ?n 0))
(<= (legal ?r (take 2)) (true (control ?r)) (true (pile ?n)) (distinct ?n 0)
    (distinct ?n 1) (distinct ?n 2))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (pile ?m)) (does ?r (take 1)) (true (pile ?n)) (succ ?m ?n))
(<= (next (pile ?m)) (does ?r (take 2)) (true (pile ?n)) (succ ?k ?n) (succ ?m ?k))
(<= (next (control a)) (true (control b)))
(<= (next (control b)) (true (control a)))
(<= terminal (true (pile 0)))
(<= (goal ?r 100) (role ?r) (not (true (control ?r))))
(<= (goal ?r 0) (true (control ?r)))
"""
"""A take-away game whose last take is always forced (from a pile of one)."""


def test_where_no_finishing_move_was_a_choice_decisive_playouts_look_at_every_move() -> None:
    game = game_from_text(FORCED_LAST_TAKE, reasoner="native")
    game.native_build.join()
    assert game.native is not None
    assert serve_playouts.serve_finishers(game) is None
    assert serve_playouts.ServePlayout(1000).native_playouts(game.initial_state()) == (
        1000,
        True,
        None,
    )


@pytest.mark.parametrize("native", [True, False])
def test_the_root_state_is_read_without_making_the_root_view(native: bool) -> None:
    """The worker reads the root's state at every slice of its search: on the native
    tree, without making the view of the root and its children."""
    game = native_game("breakthrough")
    state = game.initial_state()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native_search, "NATIVE_TREE", native)
        search = MCTS(state, rng=random.Random(1), solver=True)
    for _ in range(2):
        search.search(iterations=200)
        if native:
            assert search.root_state == state and search._native._view is None
        assert search.root_state == search.root.state == state
        assert search.root_depth == search.root.depth
        moves = [search.best_move(r) for r in range(len(game.roles))]
        state = state.next(moves)
        search.advance(moves, state)
    assert search.native == native and search.root_depth == 2
