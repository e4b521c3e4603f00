"""MCTS-Solver: proofs backed up from terminal states, and played."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.player.agents import make_agent
from ggp.player.search.mcts import MCTS, MoveStats, choose_move
from ggp.player.search.solver import allowed_moves, prove
from perfect_play import checked_bounds
from pick_game import PickGame
from test_mcts import TICTACTOE, position


def solved(state, iterations: int, seed: int = 1) -> MCTS:
    search = MCTS(state, solver=True, rng=random.Random(seed))
    search.search(iterations=iterations)
    return search


def bounds(search: MCTS, role: int) -> dict[str, tuple[float, float]]:
    return {s.move: (s.lower, s.upper) for s in search.statistics(role)}


def test_a_forced_win_is_proven_played_and_ends_the_search() -> None:
    # X to move: (mark 1 3) and (mark 3 1) set up two threats; nothing wins at once.
    search = solved(position("x.. ... ..o", "xplayer"), iterations=20_000)
    assert search.root.proven == [1.0, 0.0]
    assert search.root.visits < 20_000  # a proven root needs no more search
    move = search.best_move(0)
    assert move in ("(mark 1 3)", "(mark 3 1)") and bounds(search, 0)[move] == (1.0, 1.0)
    assert search.search(iterations=10) == 0


def test_forced_losses_are_avoided_for_the_one_drawing_move() -> None:
    # O to move: every move but the centre loses against best play.
    search = solved(position("x.. o.. .x.", "oplayer"), iterations=20_000)
    assert search.root.proven == [0.5, 0.5]
    assert search.best_move(1) == "(mark 2 2)"
    proofs = bounds(search, 1)
    assert proofs.pop("(mark 2 2)") == (0.5, 0.5)
    assert set(proofs.values()) == {(0.0, 0.0)}


def test_when_every_move_loses_the_search_still_answers_a_legal_move() -> None:
    state = position("xo. x.. ...", "oplayer")
    search = solved(state, iterations=20_000)
    assert search.root.proven == [1.0, 0.0]
    assert {s.upper for s in search.statistics(1)} == {0.0}
    assert search.best_move(1) in state.legal_moves(1)


def test_connect_four_with_few_columns_is_solved_from_the_start() -> None:
    # 5 columns of 4, three in a row wins: red wins by starting in columns 2-4.
    state = load_game("connect_four:width=5,height=4,line=3").initial_state()
    search = solved(state, iterations=20_000)
    assert search.root.proven == [1.0, 0.0]
    assert search.best_move(0) in ("(drop 2)", "(drop 3)", "(drop 4)")


def test_every_bound_in_the_tree_holds_the_true_value() -> None:
    # Tic-tac-toe is two-player zero-sum: the bounds must hold the minimax value.
    for seed in range(3):
        search = solved(TICTACTOE.initial_state(), iterations=3_000, seed=seed)
        assert checked_bounds(search.root) > 100


def test_simultaneous_moves_are_proven_from_terminal_states() -> None:
    # One round: every joint move ends the game, so once all 9 have been tried
    # (sampled selection mixes the roles' choices) each role is sure of its
    # favourite, worth 100 whatever the other picks, and the search stops.
    state = PickGame(roles=2, rounds=1).initial_state()
    search = MCTS(state, solver=True, stochastic=True, rng=random.Random(0))
    assert search.search(iterations=1000) < 1000
    assert len(search.root.children) == 9
    assert search.root.proven == [1.0, 1.0]
    assert [search.best_move(role) for role in range(2)] == ["(pick 1)", "(pick 2)"]
    [favourite, *others] = search.statistics(1)
    assert (favourite.lower, favourite.upper) == (1.0, 1.0)
    assert all((s.lower, s.upper) == (0.0, 0.0) for s in others)


def test_without_the_solver_nothing_is_proven_but_terminal_states() -> None:
    search = MCTS(position("x.. o.. .x.", "oplayer"), rng=random.Random(1), solver=False)
    search.search(iterations=5_000)
    assert search.root.proven is None and search.root.lower is None
    assert all((s.lower, s.upper) == (0.0, 1.0) for s in search.statistics(1))


def test_which_moves_stay_allowed() -> None:
    # Nothing known: all.  A proven draw keeps the moves that may win and itself.
    assert allowed_moves([0.0, 0.0], [1.0, 1.0]) is None
    assert allowed_moves([0.5, 0.0, 0.0], [0.5, 1.0, 0.5]) == [0, 1]
    # A proven win leaves only the wins; a proven loss goes while another may not lose.
    assert allowed_moves([1.0, 0.0, 1.0], [1.0, 1.0, 1.0]) == [0, 2]
    assert allowed_moves([0.0, 0.0], [0.0, 1.0]) == [1]
    # When every move loses, any may be played.
    assert allowed_moves([0.0, 0.0], [0.0, 0.0]) is None


def test_the_final_choice_follows_the_proofs_before_the_visits() -> None:
    rng = random.Random(0)
    ranked = [MoveStats("a", 90, 0.6), MoveStats("b", 10, 0.7, 1.0, 1.0)]
    assert choose_move(ranked, rng) == "b"  # a proven win beats any count of visits
    ranked = [MoveStats("a", 90, 0.6, 0.0, 0.0), MoveStats("b", 10, 0.3)]
    assert choose_move(ranked, rng) == "b"  # a proven loss goes while b may not lose
    assert choose_move([MoveStats("a", 90, 0.6), MoveStats("b", 10, 0.7)], rng) == "a"


def test_partial_proofs_bound_a_simultaneous_node_from_the_children_it_has() -> None:
    # One round of picks: p1's favourite (pick 1) against each of p2's three moves
    # is enough to prove that p1 is sure of 100 (3 children of the 9 joint moves).
    for partial in (False, True):
        search = MCTS(
            PickGame(roles=2, rounds=1).initial_state(),
            solver=True,
            partial_proofs=partial,
            rng=random.Random(0),
        )
        root = search.root
        favourite = root.moves[0].index("(pick 1)")
        for reply in range(3):
            joint = (favourite, reply)
            search._add_child(
                root, joint, root.state.next([root.moves[0][favourite], root.moves[1][reply]]), None
            )
        assert prove(root, partial) is partial
        if not partial:  # the full matrix is needed: nothing known yet
            assert root.lower is None and root.allowed is None
            assert all((s.lower, s.upper) == (0.0, 1.0) for s in search.statistics(0))
            continue
        assert root.lower == (1.0, 0.0) and root.upper == (1.0, 1.0)  # p2's moves: unknown
        assert root.allowed == [[favourite], None] and root.proven is None
        assert search.best_move(0) == "(pick 1)"  # proven, though never visited
        ranked = {s.move: (s.lower, s.upper) for s in search.statistics(0)}
        assert ranked == {"(pick 1)": (1.0, 1.0), "(pick 2)": (0.0, 1.0), "(pick 3)": (0.0, 1.0)}


def grown(option: str, iterations: int, **options: object) -> list[MCTS]:
    """Trees of the solver grown from tic-tac-toe's start (seed 3), without and with
    `option`."""
    trees = [
        MCTS(
            TICTACTOE.initial_state(), solver=True, rng=random.Random(3), **options, **{option: on}
        )
        for on in (False, True)
    ]
    for tree in trees:
        tree.search(iterations=iterations)
    return trees


def test_partial_proofs_need_the_solver_and_leave_turn_taking_nodes_alone() -> None:
    state = PickGame(roles=2, rounds=1).initial_state()
    with pytest.raises(GameError, match="solver=yes"):
        MCTS(state, solver=False, partial_proofs=True)
    with pytest.raises(GameError, match="needs solver=yes"):
        make_agent("mcts:partial_proofs=yes")
    # A turn-taking game proves the same with or without them, tree for tree.
    trees = grown("partial_proofs", 3_000)
    shapes = [[(n.visits, n.lower, n.upper) for n in t.root.walk(4)] for t in trees]
    assert shapes[0] == shapes[1] and any(lower is not None for _, lower, _ in shapes[0])


def test_max_n_proofs_need_the_solver_and_agree_with_minimax_with_two_roles() -> None:
    state = TICTACTOE.initial_state()
    with pytest.raises(GameError, match="max\\^n"):
        MCTS(state, solver=False, maxn=True)
    with pytest.raises(GameError, match="maxn=yes needs solver=yes"):
        make_agent("mcts:maxn=yes,solver=no")
    assert make_agent("mcts:maxn=yes,solver=yes").maxn
    # Two roles of constant-sum goals: each taking its own best is minimax, so every
    # node proven both ways is proven with the same values.
    trees = grown("maxn", 20_000, decisive=1000)
    proven = [{tuple(n.state.facts()): n.proven for n in t.root.walk(4) if n.proven} for t in trees]
    both = proven[0].keys() & proven[1].keys()
    assert len(both) > 20 and all(proven[0][key] == proven[1][key] for key in both)


def test_a_score_bounded_search_needs_the_solver_and_keeps_the_perfect_play_values() -> None:
    with pytest.raises(GameError, match="solver=yes"):
        MCTS(TICTACTOE.initial_state(), solver=False, bounded=True)
    with pytest.raises(GameError, match="bounded=yes needs solver=yes"):
        make_agent("mcts:bounded=yes,solver=no")
    # tic-tac-toe is a draw: every bound the score-bounded search proves holds it, and
    # it proves the empty board, which the plain solver does not in this many iterations
    plain, bounded = grown("bounded", 30_000)
    assert bounded.root.proven == [0.5, 0.5] and checked_bounds(bounded.root) > 100
    assert bounded.settled < plain.settled
