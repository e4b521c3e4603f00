"""Transpositions: a state reached by several orders of moves is one node."""

from __future__ import annotations

import random

import pytest
from ggp.gdl.interpreter.game import GdlGame
from ggp.player.agents import make_agent
from ggp.player.search.mcts import MCTS
from ggp.player.search.state_table import StateTable
from ggp.player.search.tree import Node, subtree
from test_mcts import TICTACTOE

MERGE = """
(role a)
(init (step 0))
(<= (legal a left) (true (step 0)))
(<= (legal a right) (true (step 0)))
(<= (legal a go) (true (step ?n)) (distinct ?n 0))
(<= (next (side left)) (does a left))
(<= (next (side right)) (does a right))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= terminal (true (step 6)))
(goal a 0)
"""
"""Left or right, then ``go`` until step 6 and a loss: both first moves lead to
the same state at step 2 (the side is forgotten), proven lost only four
moves later, once both paths share it."""

BACK_AND_FORTH = """
(role a)
(init (pos 0))
(<= (legal a right) (true (pos ?x)))
(<= (legal a back) (true (pos 1)))
(<= (next (pos ?y)) (does a right) (true (pos ?x)) (succ ?x ?y))
(<= (next (pos 0)) (does a back))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= terminal (true (pos 3)))
(<= (goal a 100) (true (pos 3)))
(<= (goal a 0) (not (true (pos 3))))
"""
"""A walk to 3 in which ``back`` returns from 1 to 0: states repeat."""

LATE = """
(role a) (role b)
(init (step 0))
(init (control b))
(<= (legal b left) (true (step 0)))
(<= (legal b right) (true (step 0)))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (legal a go) (true (control a)))
(<= (legal a (x ?k)) (true (side right)) (index ?k))
(<= (next (side left)) (does b left))
(<= (next (side right)) (does b right))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (dead ?k)) (does a (x ?k)))
(<= (next (control a)) (true (step ?n)))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= terminal (true (step 3)))
(<= terminal (true (dead ?k)))
(<= (goal a 100) (true (step 3)))
(<= (goal a 0) (true (dead ?k)))
(<= (goal b 0) terminal)
""" + " ".join(f"(index {k})" for k in range(30))
"""b moves left or right, then a: ``go`` twice wins; after right, 30 other
moves lose at once.  Both sides' ``go`` lead to the same state, proven won
on the left (two moves) mostly before it is tried on the right (one move
in 31)."""


def nodes(search: MCTS) -> list[Node]:
    """The distinct nodes reachable from the root, found independently of MCTS."""
    found: dict[int, Node] = {}
    stack = [search.root]
    while stack:
        node = stack.pop()
        if id(node) not in found:
            found[id(node)] = node
            stack.extend(node.children.values())
    return list(found.values())


def parents(search: MCTS) -> dict[int, list[Node]]:
    """Node id -> the nodes with an edge to it."""
    found: dict[int, list[Node]] = {}
    for node in nodes(search):
        for child in node.children.values():
            found.setdefault(id(child), []).append(node)
    return found


def tictactoe(iterations: int, **options) -> MCTS:
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(4), **options)
    search.search(iterations=iterations)
    return search


def test_a_state_reached_by_two_orders_of_moves_is_one_node() -> None:
    search = tictactoe(3000, transpose=True, solver=False)
    held = nodes(search)
    keys = [(node.depth, node.state.key()) for node in held]
    assert len(set(keys)) == len(keys)
    assert max(len(p) for p in parents(search).values()) >= 2
    assert search.node_count == len(held) == len(search.positions)
    # A tree holds the same states several times over.
    tree = tictactoe(3000, solver=False)
    tree_keys = [(node.depth, node.state.key()) for node in nodes(tree)]
    assert len(set(tree_keys)) < len(tree_keys)


def test_a_shared_node_counts_every_path_through_it_and_the_root_stays_per_edge() -> None:
    search = tictactoe(2000, transpose=True, solver=False)
    into = parents(search)
    for node in nodes(search):
        if node is search.root:
            continue
        through = 0
        for parent in into[id(node)]:
            for joint, child in parent.children.items():
                if child is node:
                    mover = parent.choosers[0]
                    through += parent.counts[mover][joint[mover]]
        assert node.visits == through
    assert sum(s.visits for s in search.statistics(0)) == 2000 == search.root.visits


def test_states_that_repeat_are_separate_nodes_by_depth_so_there_is_no_cycle() -> None:
    game = GdlGame.from_text(BACK_AND_FORTH, name="back")
    search = MCTS(game.initial_state(), rng=random.Random(1), transpose=True, solver=False)
    for _ in range(300):  # checked at each step: a cycle would make the next one endless
        search.search(iterations=1)
        held = nodes(search)
        for node in held:
            assert all(child.depth == node.depth + 1 for child in node.children.values())
    repeats = [node for node in held if node.state == search.root.state]
    assert len(repeats) >= 2 and search.root in repeats


def test_a_proof_under_a_shared_node_reaches_its_other_parent() -> None:
    # The step-2 state is proven lost under one first move; the other first
    # move learns it when its path next reaches the proven node, which proves
    # the root (otherwise the search would go on to the end of its budget).
    game = GdlGame.from_text(MERGE, name="merge")
    for seed in range(5):
        search = MCTS(game.initial_state(), rng=random.Random(seed), transpose=True, solver=True)
        assert search.search(iterations=500) < 500
        assert search.root.proven == [0.0]
        shared = [node for node in nodes(search) if len(parents(search).get(id(node), [])) > 1]
        assert [node.depth for node in shared] == [2]


def test_a_new_edge_to_a_proven_shared_node_brings_its_proof_at_once() -> None:
    game = GdlGame.from_text(LATE, name="late")
    checked = 0
    for seed in range(8):
        search = MCTS(game.initial_state(), rng=random.Random(seed), transpose=True, solver=True)
        shared_key = (2, game.initial_state().next(["noop", "left"]).next(["go", "noop"]).key())
        proven_before = False
        while search.search(iterations=1):
            shared = search.positions.get(shared_key)
            if shared is not None and len(parents(search).get(id(shared), [])) == 2:
                break  # the iteration that linked the second parent
            proven_before = shared is not None and shared.proven is not None
        if proven_before:  # the right side's new edge met the proof: the root knows now
            assert search.root.proven == [1.0, 0.0]
            checked += 1
    assert checked >= 3


def test_the_count_and_the_node_limit_count_a_shared_node_once() -> None:
    search = tictactoe(3000, transpose=True, solver=False, max_nodes=300)
    assert search.node_count == len(nodes(search)) == 300
    assert len(list(subtree(search.root))) == 300


def test_advance_keeps_only_what_the_new_root_reaches() -> None:
    state = TICTACTOE.initial_state()
    search = MCTS(state, rng=random.Random(0), transpose=True, solver=False)
    search.search(iterations=3000)
    joint = ("(mark 2 2)", "noop")
    search.advance(joint, state.next(joint))
    held = nodes(search)
    assert search.node_count == len(held) == len(search.positions)
    assert {id(node) for node in search.positions.values()} == {id(node) for node in held}
    assert min(node.depth for node in search.positions.values()) == 1
    search.search(iterations=500)
    assert search.node_count == len(nodes(search)) == len(search.positions)
    search.advance(("noop", "(mark 9 9)"), search.root.state)  # not in the tree: afresh
    assert search.node_count == len(search.positions) == 1


def test_a_state_table_presets_a_shared_node_once() -> None:
    state = TICTACTOE.initial_state()
    after = state.next(["(mark 1 1)", "noop"]).next(["noop", "(mark 2 2)"])
    shared = after.next(["(mark 3 3)", "noop"])
    table = StateTable(TICTACTOE, depth=4)
    table.states[shared.key()] = {"visits": 50, "moves": [{}, {"(mark 1 2)": [50, 0.4]}]}
    search = MCTS(state, rng=random.Random(2), transpose=True, solver=False, table=table)
    search.search(iterations=4000)
    node = search.positions[3, shared.key()]
    into = parents(search)[id(node)]
    assert len(into) >= 2
    through = sum(
        parent.counts[0][joint[0]]
        for parent in into
        for joint, child in parent.children.items()
        if child is node
    )
    assert node.visits == 50 + through


@pytest.mark.parametrize("option, shared", [("yes", True), ("no", False)])
def test_the_mcts_agent_switches_transpositions(option: str, shared: bool) -> None:
    agent = make_agent(f"mcts:iterations=50,transpose={option}", seed=1)
    agent.start(TICTACTOE, 0)
    agent.choose_move(TICTACTOE.initial_state(), None)
    assert (agent.tree.positions is not None) == shared
