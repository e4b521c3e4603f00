"""RAVE and GRAVE: AMAF tables, the playouts that fill them, and the search that uses them."""

from __future__ import annotations

import random

import pytest
from ggp.games import amaf
from ggp.games.base import GameError
from ggp.games.playouts import Amaf
from ggp.games.registry import GDL_DIR
from ggp.gdl.native import build
from ggp.player.agents import make_agent
from ggp.player.search.mcts import MCTS
from ggp.player.search.tree import subtree
from perfect_play import bounds_hold
from test_gdl_native import native_game, needs_native
from test_mcts import TICTACTOE, position


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def entry(table, slot: int) -> tuple[float, float]:
    """The (count, summed reward) of `slot` in `table`."""
    return table[1 + 2 * slot], table[2 + 2 * slot]


def test_a_simulation_is_added_to_each_table_of_its_path_as_counted_by_hand() -> None:
    slots = amaf.MoveSlots(2)
    a, b, c = slots.slot(0, "a"), slots.slot(1, "b"), slots.slot(0, "c")
    tables = [slots.new_table(), None, slots.new_table()]
    d = slots.slot(1, "d")  # numbered after the tables were made: they grow
    # Node 0 chose a (role 0), node 1 b (role 1), node 2 c (role 0); two playouts.
    tree = [0, a, 0, 1, b, 1, 2, c, 0]
    playouts = [([1.0, 0.0], [(c, 0), (d, 1)]), ([0.0, 1.0], [(b, 1)])]
    amaf.add(tables, tree, playouts)
    top, bottom = tables[0], tables[2]
    assert top[0] == bottom[0] == 1.0  # one simulation each, whatever its playouts
    # Node 2 sees c (in the tree, and once only where the playout played it too),
    # and the playouts' d and b, each playout weighing a half.
    assert [entry(bottom, s) for s in (a, b, c, d)] == [
        (0.0, 0.0),
        (0.5, 0.5),
        (1.0, 0.5),
        (0.5, 0.0),
    ]
    # Node 0 also sees the moves chosen below it, a and b, in both playouts.
    assert [entry(top, s) for s in (a, b, c, d)] == [
        (1.0, 0.5),
        (1.0, 0.5),
        (1.0, 0.5),
        (0.5, 0.0),
    ]
    amaf.add(tables, tree, [([0.25, 0.75], ())])  # a leaf valued without a playout
    assert entry(bottom, c) == (2.0, 0.75) and entry(bottom, b) == (0.5, 0.5)
    assert entry(top, b) == (2.0, 1.25) and top[0] == 2.0


def test_a_fixed_numbering_refuses_moves_it_lacks() -> None:
    slots = amaf.MoveSlots(2, [{"a": 0}, {"b": 3}])
    assert slots.size == 4 and len(slots.new_table()) == 9
    with pytest.raises(ValueError, match="no slot"):
        slots.slot(0, "b")


def test_playouts_record_the_moves_of_the_roles_with_a_choice_once_each() -> None:
    slots = TICTACTOE.move_slots()
    table = slots.new_table()
    results = TICTACTOE.initial_state().playouts(random.Random(1), 4, Amaf(slots, [table], []))
    assert "noop" not in slots.slots[0] and "noop" not in slots.slots[1]
    assert table[0] == 1.0
    marks = {role: sum(entry(table, s)[0] for s in slots.slots[role].values()) for role in (0, 1)}
    # Each playout weighs a quarter: X marks 3 to 5 cells a game, O one fewer or as many.
    assert 3.0 <= marks[0] <= 5.0 and marks[0] - 1.0 <= marks[1] <= marks[0]
    # Every mark but a forced last one (one cell left: no choice) is recorded.
    forced = sum(steps for _, steps in results) - 4 * (marks[0] + marks[1])
    assert forced in (0, 1, 2, 3, 4)
    won = sum(entry(table, s)[1] for s in slots.slots[0].values())
    assert won <= marks[0]


@needs_native
@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_native_amaf_playouts_are_the_generic_ones_and_record_the_same(name: str) -> None:
    _, native = native_game((GDL_DIR / f"{name}.kif").read_text(), name)
    slots = native.move_slots()
    state = native.initial_state()
    walk = random.Random(3)
    for _ in range(4):
        moves = state.all_legal_moves()
        chooser = next(role for role, legal in enumerate(moves) if len(legal) > 1)
        tree = [0, slots.slot(chooser, moves[chooser][0]), chooser]
        tree += (2, slots.slot(chooser, moves[chooser][-1]), chooser)
        for count in (1, 3):
            made = [[slots.new_table(), None, slots.new_table()] for _ in range(2)]
            expected = Amaf(slots, made[0], tree).play(state, random.Random(count), count)
            got = state.playouts(random.Random(count), count, Amaf(slots, made[1], tree))
            assert got == expected
            assert [list(t) for t in made[1] if t] == [list(t) for t in made[0] if t]
            assert made[1][0][0] == 1.0 and sum(made[1][0][1::2]) > 1.0
        state = state.next([walk.choice(legal) for legal in moves])


def rave_search(state, iterations: int, seed: int, **options) -> MCTS:
    search = MCTS(state, rave=True, rng=random.Random(seed), **options)
    search.search(iterations=iterations)
    return search


def test_the_root_table_counts_every_simulation_since_its_second_visit() -> None:
    # Two cells left, O to move: O takes one, X the other (no choice: not recorded).
    search = rave_search(position("xox oox x..", "oplayer"), 30, 1, rave_ref=0)
    root = search.root
    table = root.amaf
    assert table is not None and table[0] == root.visits - 1 == 29
    slots = search.rave.slots
    counts = {move: entry(table, slots.slot(1, move))[0] for move in root.moves[1]}
    assert sum(counts.values()) == 29  # one of O's moves in every simulation recorded
    for move, count in counts.items():  # all but the first simulation, not recorded
        visits = root.counts[1][root.moves[1].index(move)]
        assert count in (visits, visits - 1)
    assert slots.slots[0] == {}  # X never had a choice


def test_tables_are_made_at_the_reference_visit_and_kept_when_the_tree_moves_on() -> None:
    search = rave_search(TICTACTOE.initial_state(), 400, 2, rave_ref=20)
    for node in subtree(search.root):
        assert (node.amaf is not None) == (node.moves is not None and node.visits > 20)
    joint = [search.best_move(0), "noop"]
    after = search.root.state.next(joint)
    child = next(node for node in search.root.children.values() if node.state == after)
    kept = child.amaf
    search.advance(joint, child.state)
    assert search.root is child and search.root.amaf is kept is not None


def test_with_rave_the_block_is_found_in_fewer_iterations() -> None:
    state = position("xx. o.. ..o", "oplayer")  # O must take (mark 1 3)

    def found(**options) -> int:
        searches = [MCTS(state, rng=random.Random(seed), **options) for seed in range(100)]
        for search in searches:
            search.search(iterations=10)
        return sum(search.best_move(1) == "(mark 1 3)" for search in searches)

    # 77 seeds of 100 with RAVE, 53 without (59 with RAVE's playouts but UCB1's choice).
    plain, rave = found(), found(rave=True, rave_ref=0)
    assert rave >= plain + 15, (plain, rave)


def test_with_the_solver_every_bound_holds_and_a_proven_win_is_played() -> None:
    search = rave_search(TICTACTOE.initial_state(), 3000, 4, solver=True, rave_ref=5)
    assert all(bounds_hold(node) for node in subtree(search.root) if node.lower is not None)
    win = rave_search(position("xx. oo. ...", "xplayer"), 30, 5, solver=True, rave_ref=0)
    assert win.best_move(0) == "(mark 1 3)"


@needs_native
def test_a_rave_search_on_native_code_is_the_generic_search() -> None:
    interpreted, native = native_game((GDL_DIR / "tictactoe.kif").read_text(), "tictactoe")
    interpreted.playout_batch = native.playout_batch
    generic, on_native = (
        rave_search(game.initial_state(), 300, 6, rave_ref=10) for game in (interpreted, native)
    )
    assert on_native.statistics(0) == generic.statistics(0)
    assert on_native.root.amaf[0] == generic.root.amaf[0] > 250


def test_agent_options_and_bad_combinations() -> None:
    agent = make_agent("mcts:iterations=50,rave=yes,rave_ref=7,rave_bias=0.001", seed=1)
    agent.start(TICTACTOE, 0)
    agent.choose_move(TICTACTOE.initial_state(), None)
    rave = agent.tree.rave
    assert rave is not None and (rave.ref, rave.bias) == (7, 0.001)
    assert make_agent("mcts:iterations=5", seed=1).rave is False
    with pytest.raises(GameError, match="rave_ref must be int >= 0"):
        make_agent("mcts:rave=yes,rave_ref=-1")
    with pytest.raises(GameError, match="not with mast"):
        MCTS(TICTACTOE.initial_state(), rave=True, mast=True)
