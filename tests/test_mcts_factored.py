"""Moves at once on separate parts of the state: found by play, searched apart (factor=yes)."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest
from gdl_texts import PENNIES, STEPPED
from ggp.games.base import GameError
from ggp.gdl.load import game_from_text
from ggp.player.agents import make_agent
from ggp.player.search.factored import (
    independent_choices,
    independent_somewhere,
    proves_only_even_ends,
)
from ggp.player.search.mcts import MCTS, MoveStats
from ggp.player.service.search_worker import SearchWorker
from test_mcts import TICTACTOE

RACE = """
; Two roles race on their own tracks, both moving at once: a step of 1 or 2.
; Reaching 4 or 5 alone wins; both at once is a draw.
(role red) (role blue)
(init (pos red 0)) (init (pos blue 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(plus2 0 2) (plus2 1 3) (plus2 2 4) (plus2 3 5)
(<= (legal ?r (go ?r 1)) (role ?r))
(<= (legal ?r (go ?r 2)) (role ?r))
(<= (next (pos ?r ?n)) (does ?r (go ?r 1)) (true (pos ?r ?m)) (succ ?m ?n))
(<= (next (pos ?r ?n)) (does ?r (go ?r 2)) (true (pos ?r ?m)) (plus2 ?m ?n))
(<= (done ?r) (true (pos ?r 4)))
(<= (done ?r) (true (pos ?r 5)))
(<= terminal (done ?r))
(<= (goal ?r 100) (done ?r) (role ?o) (distinct ?r ?o) (not (done ?o)))
(<= (goal ?r 50) (done ?r) (role ?o) (distinct ?r ?o) (done ?o))
(<= (goal ?r 50) (role ?r) (not (done ?r)) (role ?o) (distinct ?r ?o) (not (done ?o)))
(<= (goal ?r 0) (role ?r) (not (done ?r)) (role ?o) (distinct ?r ?o) (done ?o))
"""


def test_moves_on_separate_facts_are_found_independent_and_others_are_not() -> None:
    race = game_from_text(RACE, reasoner="interpreter").initial_state()
    assert independent_choices(race)
    # Matching pennies: whether the round is matched depends on both moves.
    pennies = game_from_text(PENNIES, reasoner="interpreter").initial_state()
    assert not independent_choices(pennies)
    assert not independent_choices(TICTACTOE.initial_state())  # one role chooses
    ended = race.next(["(go red 2)", "(go blue 1)"]).next(["(go red 2)", "(go blue 1)"])
    assert ended.is_terminal() and not independent_choices(ended)


LATE_RACE = (
    RACE.replace(
        "(init (pos red 0)) (init (pos blue 0))",
        "(init (pos red 0)) (init (pos blue 0)) (init wait)",
    )
    .replace(
        "(<= (legal ?r (go ?r 1)) (role ?r))",
        "(<= (legal ?r (go ?r 1)) (role ?r) (not (true wait)))",
    )
    .replace(
        "(<= (legal ?r (go ?r 2)) (role ?r))",
        "(<= (legal ?r (go ?r 2)) (role ?r) (not (true wait)))",
    )
    + "(<= (legal red start) (true wait)) (<= (legal blue noop) (true wait))\n"
)
"""RACE after a first move of red's alone: independent from the second state on."""


def test_independent_moves_are_looked_for_along_a_playout() -> None:
    late = game_from_text(LATE_RACE, reasoner="interpreter").initial_state()
    assert not independent_choices(late)
    assert independent_somewhere(late, random.Random(1))
    assert not independent_somewhere(TICTACTOE.initial_state(), random.Random(1))


MARKS = """
; Both roles at once put a mark of their own, kept for good; the round counts.
(role a) (role b)
(init (round 0)) (succ 0 1) (succ 1 2) (item 1) (item 2)
(<= (legal ?r (put ?r ?x)) (role ?r) (item ?x) (not (true (has ?r ?x))))
(<= (next (has ?r ?x)) (does ?r (put ?r ?x)))
(<= (next (has ?r ?x)) (true (has ?r ?x)))
(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
(<= terminal (true (round 2)))
(<= (goal ?r 50) (role ?r))
"""


@pytest.mark.parametrize("reasoner", ["interpreter", "compiled"])
def test_what_a_roles_choice_changed_is_undone(reasoner: str) -> None:
    state = game_from_text(MARKS, reasoner=reasoner).initial_state()
    put = state.next(["(put a 1)", "(put b 1)"])
    other = state.next(["(put a 1)", "(put b 2)"])
    assert set(put.reverted(state, other).facts()) == {"(has a 1)", "(round 1)"}


def test_a_part_tree_branches_on_our_moves_only_and_freezes_the_others() -> None:
    state = game_from_text(RACE, reasoner="interpreter").initial_state()
    tree = MCTS(state, rng=random.Random(0), part=frozenset(state.legal_moves(0)))
    tree.search(iterations=400)
    root = tree.root
    assert root.choosers == (0,) and len(root.moves[1]) == 1  # blue's step: not branched on
    assert len(root.children) == 2
    nodes = list(root.walk(10))
    assert len(nodes) > 3 and all(len(node.moves[1]) == 1 for node in nodes)
    # Blue's step is undone where it depends on its choice ("pseudo no-op"): it
    # leaves 0 (what both its steps do alike stays) but is nowhere at 2.
    facts = {f for n in nodes for c in n.children.values() for f in c.state.facts()}
    assert "(pos blue 2)" not in facts and "(pos red 2)" in facts


def test_the_agent_searches_its_part_where_moves_are_independent_and_nowhere_else() -> None:
    race = game_from_text(RACE, reasoner="interpreter")
    agent = make_agent("mcts:factor=yes,iterations=400", seed=1)
    agent.start(race, 1)
    assert agent.choose_move(race.initial_state(), None) == "(go blue 2)"
    assert agent.tree is None  # a fresh part tree each move, none kept
    assert {s.move for s in agent.ranking()} == {"(go blue 1)", "(go blue 2)"}
    # A turn-taking game is searched exactly as without the option.
    moves = []
    for spec in ("mcts:iterations=300", "mcts:factor=yes,iterations=300"):
        agent = make_agent(spec, seed=5)
        agent.start(TICTACTOE, 0)
        moves.append((agent.choose_move(TICTACTOE.initial_state(), None), agent.tree.root.visits))
    assert moves[0] == moves[1]


def test_a_part_that_runs_out_of_moves_first_ends_even() -> None:
    # Searching blue's part, red's count is frozen: once blue has put both items
    # it has no move left in a state that is not terminal, which the game never
    # reaches (red's third move ends it first).
    state = game_from_text(DRY, reasoner="interpreter").initial_state()
    tree = MCTS(state, rng=random.Random(0), part=frozenset(state.legal_moves(1)))
    tree.search(iterations=200)
    ends = [c for n in tree.root.walk(5) for c in n.children.values() if c.rewards is not None]
    assert ends and all(c.rewards == [0.5, 0.5] for c in ends)


DRY = """
; Blue has two moves in all; the game ends only when red has made three.
(role red) (role blue)
(init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3) (item 1) (item 2)
(<= (legal red (tick ?n)) (true (count ?m)) (succ ?m ?n))
(<= (legal red (tock ?n)) (true (count ?m)) (succ ?m ?n))
(<= (legal blue (put ?x)) (item ?x) (not (true (has ?x))))
(<= (next (count ?n)) (does red (tick ?n)))
(<= (next (count ?n)) (does red (tock ?n)))
(<= (next (has ?x)) (does blue (put ?x)))
(<= (next (has ?x)) (true (has ?x)))
(<= terminal (true (count 3)))
(<= (goal ?r 100) (role ?r))
"""


@pytest.mark.parametrize("reasoner", ["interpreter", "compiled"])
def test_a_state_is_rebased_onto_the_other_parts_as_they_are(reasoner: str) -> None:
    state = game_from_text(RACE, reasoner=reasoner).initial_state()
    base = state.next(["(go red 1)", "(go blue 1)"])
    # Red steps on from base with blue's step undone, as in red's part tree...
    mine = base.next(["(go red 2)", "(go blue 1)"]).reverted(
        base, base.next(["(go red 2)", "(go blue 2)"])
    )
    assert set(mine.facts()) == {"(pos red 3)"}
    # ...and is moved onto the state where blue went 2 instead of 1.
    onto = state.next(["(go red 1)", "(go blue 2)"])
    assert set(mine.rebased(base, onto).facts()) == {"(pos red 3)", "(pos blue 2)"}


@pytest.mark.parametrize("reasoner", ["interpreter", "compiled"])
def test_a_kept_part_tree_follows_the_moves_onto_the_other_parts_as_they_are(
    reasoner: str,
) -> None:
    state = game_from_text(RACE, reasoner=reasoner).initial_state()
    tree = MCTS(state, rng=random.Random(0), part=frozenset(state.legal_moves(0)))
    tree.search(iterations=300)
    go = tree.root.moves[0].index("(go red 1)")
    child = next(c for joint, c in tree.root.children.items() if joint[0] == go)
    visits, below = child.visits, len(list(child.walk(10)))
    joint = ["(go red 1)", "(go blue 2)"]
    after = state.next(joint)
    assert tree.advance_part(joint, after)
    assert tree.root is child and child.state == after and child.visits == visits
    assert len(list(child.walk(10))) == below  # the subtree is kept...
    deeper = [n for n in child.walk(10) if n is not child]
    assert deeper and all("(pos blue 2)" in n.state.facts() for n in deeper)  # ...rebased
    tree.search(iterations=50)
    assert tree.root.visits == visits + 50
    # A move the tree has no child for leaves it as it was.
    fresh = MCTS(state, rng=random.Random(0), part=frozenset(state.legal_moves(0)))
    assert not fresh.advance_part(joint, after) and fresh.root.state == state


def test_a_drawn_move_outside_the_part_that_is_gone_is_drawn_again() -> None:
    game = game_from_text(MARKS, reasoner="compiled")
    state = game.initial_state()
    tree = MCTS(state, rng=random.Random(3), part=frozenset(state.legal_moves(0)))
    tree.search(iterations=60)
    joint = ["(put a 1)", "(put b 1)"]
    after = state.next(joint)
    assert tree.advance_part(joint, after)
    # In the tree b's mark was undone, so b had both marks to draw from; now
    # it has put 1 and its one move is 2: not a choice, nothing frozen.
    assert tree.root.moves[1] == ("(put b 2)",) and 1 not in (tree.root.frozen or {})
    tree.search(iterations=30)
    assert tree.root.state.legal_moves(1) == ("(put b 2)",)


def test_the_agent_keeps_its_part_trees_with_keep_parts() -> None:
    race = game_from_text(RACE, reasoner="interpreter")
    for spec, kept in (("mcts:factor=yes", False), ("mcts:factor=yes,keep_parts=yes", True)):
        agent = make_agent(f"{spec},iterations=200", seed=2)
        agent.start(race, 0)
        state = race.initial_state()
        move = agent.choose_move(state, None)
        first = agent.parts.searched
        joint = [move, "(go blue 1)"]
        state = state.next(joint)
        agent.observe(joint, state)
        agent.choose_move(state, None)
        assert (agent.parts.searched is first) == kept
        assert (first.root.visits > 200) == kept  # the kept subtree's visits, and 200 more
    with pytest.raises(GameError, match="factor=yes"):
        make_agent("mcts:keep_parts=yes")


def searched(rules: str, iterations: int) -> tuple[SearchWorker, dict]:
    """A worker on `rules` (compiled, no traps, races or tactics) and its answer to a
    search of red's move of `iterations` iterations."""
    worker = SearchWorker(build=lambda text: game_from_text(text, "game", "compiled"))
    load = {"cmd": "load", "rules": rules, "traps": False, "races": False, "tactics": False}
    worker.handle(load)
    worker.settle(120)
    search = {"cmd": "search", "role": 0, "until": time.time() + 60, "iterations": iterations}
    return worker, worker.handle(search)


def test_the_served_search_does_not_pass_on_a_part_trees_proofs() -> None:
    """A tree over red's part proves red's win (two steps of 2 with blue frozen), but
    blue races at the same time (both at 4 at once: a draw): the worker's answer keeps
    that proof to itself, no proven goal, no bounds for the pool to merge."""
    worker, answer = searched(RACE, 400)
    tree = worker._tree_for(0)
    assert tree.part is not None and tree.root.proven is not None  # proven in the part
    assert tree.root.proven[0] == 1.0
    assert answer["proven"] is None
    assert all(row[3:] == [0.0, 1.0] for row in answer["stats"])


def test_a_part_tree_that_proves_only_even_ends_tells_nothing_and_a_won_part_does() -> None:
    state = game_from_text(STEPPED, reasoner="compiled").initial_state()
    assert independent_choices(state)
    part = MCTS(
        state,
        rng=random.Random(0),
        solver=True,
        part=frozenset(state.legal_moves(0)),
        part_playouts=True,
    )
    part.search(iterations=100)
    assert part.root.proven is not None and proves_only_even_ends(part, 0)
    joint = MCTS(state, rng=random.Random(0), solver=True)
    joint.search(iterations=2000)
    assert not proves_only_even_ends(joint, 0) and joint.best_move(0) == "(red c)"
    # Every move lost (or won) in the part's own game is that game's result: the part
    # tree's choice among them stands.
    lost = [MoveStats("(red a)", 5, 0.0, 0.0, 0.0), MoveStats("(red b)", 3, 0.0, 0.0, 0.0)]
    proven = SimpleNamespace(root=SimpleNamespace(proven=[0.0, 1.0]), statistics=lambda r: lost)
    assert not proves_only_even_ends(proven, 0)


def test_the_agent_lets_the_joint_tree_choose_where_its_part_tree_tells_nothing() -> None:
    game = game_from_text(STEPPED, reasoner="compiled")
    agent = make_agent("mcts:factor=yes,part_playouts=yes,solver=yes,iterations=2000", seed=3)
    agent.start(game, 0)
    assert agent.choose_move(game.initial_state(), None) == "(red c)"
    assert agent.tree is not None  # the joint tree, kept for the next move


def test_the_served_search_lets_the_joint_tree_choose_where_its_part_tree_tells_nothing() -> None:
    worker, answer = searched(STEPPED, 3000)
    assert worker.parts.spent_key == (0, 0) and worker._tree_for(0) is worker.tree
    assert answer["move"] == "(red c)"
