"""Implicit minimax backups (`ggp.player.search.imm`): the values kept, their use, the options."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from ggp.games.base import Game, GameError, Goals, State
from ggp.player.agents import make_agent
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import MCTS
from ggp.player.search.tree import Node
from perfect_play import checked_bounds
from pick_game import PickGame
from test_heuristic import COINS, TOKENS, compiled
from test_mcts import TICTACTOE

TREE_VALUES = {
    "": (0.5, 0.5),
    "l": (0.6, 0.4),
    "r": (0.3, 0.7),
    "ll": (0.9, 0.1),
    "lr": (0.2, 0.6),
    "rl": (0.4, 0.7),
    "rr": (0.8, 0.3),
}
"""The evaluations of a two-move game tree's states (named by the moves to them),
not adding up to 1, so that the backed-up vector shows which child it came from."""


class TreeGame(Game):
    """Two roles take turns (first role 0) choosing l or r, three moves; a draw."""

    name = "tree"
    roles = ("a", "b")

    def initial_state(self) -> TreeState:
        return TreeState(self, "")

    def state_from_facts(self, facts: Sequence[str]) -> State:
        raise GameError("not needed in tests")


class TreeState(State):
    __slots__ = ("_game", "path")

    def __init__(self, game: TreeGame, path: str) -> None:
        self._game = game
        self.path = path

    @property
    def game(self) -> TreeGame:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        return ("l", "r") if len(self.path) % 2 == role else ("noop",)

    def next(self, joint: Sequence[str]) -> TreeState:
        return TreeState(self._game, self.path + joint[len(self.path) % 2])

    def is_terminal(self) -> bool:
        return len(self.path) == 3

    def goals(self) -> Goals:
        return (50, 50)

    def key(self) -> str:
        return self.path

    def facts(self) -> tuple[str, ...]:
        return (f"(path {self.path})",)


class TableEvaluation:
    """The tree's evaluations by table."""

    def value(self, state: TreeState) -> tuple[float, float]:
        return TREE_VALUES[state.path]


class HashEvaluation:
    """Any game's states valued by a hash of their key: arbitrary but repeatable."""

    def value(self, state: State) -> list[float]:
        x = random.Random(state.key()).random()
        return [x] + [1 - x] * (len(state.game.roles) - 1)


def test_the_values_are_the_max_n_of_the_evaluations_below() -> None:
    # Seven nodes at most: the tree stops at depth 2, whose nodes keep their evaluations.
    search = MCTS(
        TreeGame().initial_state(),
        imm=ImplicitMinimax(TableEvaluation(), 0.4),
        max_nodes=7,
        rng=random.Random(1),
    )
    search.search(iterations=60)
    assert search.node_count == 7
    root = search.root
    # b chooses at l between (0.9, 0.1) and (0.2, 0.6): lr; at r between
    # (0.4, 0.7) and (0.8, 0.3): rl.  a then chooses r (0.4 > 0.2), and the
    # vector is rl's: b's value is not the minimum of its values (0.6).
    nodes = {child.state.path: child for child in root.children.values()}
    assert list(nodes["l"].imm) == [0.2, 0.6]
    assert list(nodes["r"].imm) == [0.4, 0.7]
    assert list(root.imm) == [0.4, 0.7]
    assert dict(zip(root.moves[0], root.imm_moves, strict=True)) == {"l": 0.2, "r": 0.4}


def reference(node: Node, evaluate) -> Sequence[float]:
    """The backed-up value of `node` computed afresh from its subtree."""
    if node.proven is not None:
        return node.proven
    if not node.children:
        return node.rewards if node.rewards is not None else evaluate(node.state)
    if len(node.choosers) > 1:
        return evaluate(node.state)
    if not node.choosers:
        return reference(next(iter(node.children.values())), evaluate)
    mover = node.choosers[0]
    best = None
    for i in range(len(node.moves[mover])):  # the first of the best, as `back_up`
        child = node.children.get(node.joints[i])
        if child is not None:
            value = reference(child, evaluate)
            if best is None or value[mover] > best[mover]:
                best = value
    return best


@pytest.mark.parametrize("seed", range(3))
def test_backups_that_stop_early_keep_every_value_exact(seed: int) -> None:
    # Tic-tac-toe with the solver: proven nodes take their proven rewards.
    evaluation = HashEvaluation()
    search = MCTS(
        TICTACTOE.initial_state(),
        solver=True,
        imm=ImplicitMinimax(evaluation, 0.5),
        rng=random.Random(seed),
    )
    search.search(iterations=2_000)
    checked = 0
    stack: list[Node] = [search.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        want = reference(node, evaluation.value)
        have = node.proven if node.proven is not None else node.imm
        assert list(have) == pytest.approx(list(want)), node.state.render()
        checked += node.imm_moves is not None
    assert checked > 100


def test_with_alpha_0_the_search_is_plain_uct_for_a_seed() -> None:
    state = TICTACTOE.initial_state()

    def searched(imm: ImplicitMinimax | None) -> list:
        search = MCTS(state, c=0.35, solver=True, imm=imm, rng=random.Random(4))
        search.search(iterations=1_500)
        return search.statistics(0)

    plain = searched(None)
    assert searched(ImplicitMinimax(HashEvaluation(), 0.0)) == plain
    assert searched(ImplicitMinimax(HashEvaluation(), 0.5)) != plain


def test_the_solver_bounds_hold_with_implicit_minimax() -> None:
    for seed in range(2):
        search = MCTS(
            TICTACTOE.initial_state(),
            solver=True,
            imm=ImplicitMinimax(HashEvaluation(), 0.6),
            rng=random.Random(seed),
        )
        search.search(iterations=3_000)
        assert checked_bounds(search.root) > 100


def test_simultaneous_nodes_keep_their_own_evaluation_and_choose_by_ucb1() -> None:
    game = PickGame(roles=2, rounds=3)
    evaluation = HashEvaluation()
    search = MCTS(game.initial_state(), imm=ImplicitMinimax(evaluation, 0.5), rng=random.Random(2))
    search.search(iterations=300)
    for node in search.root.walk(10):
        assert node.imm_moves is None
        assert node.imm == (node.rewards or evaluation.value(node.state))


def test_the_agent_learns_the_heuristic_for_it_and_plays() -> None:
    game = compiled(TOKENS, "tokens", native=False)
    agent = make_agent("mcts:imm=0.4,iterations=200", seed=1)
    agent.start(game, 0)
    assert agent.learnt is not None
    state = game.initial_state()
    assert agent.choose_move(state, None) in state.legal_moves(0)
    assert agent.tree.imm is not None and agent.tree.imm.alpha == 0.4
    assert agent.tree.evaluator.__class__.__name__ == "RandomPlayout"  # no cut-off asked
    assert agent.tree.root.imm_moves is not None
    off = make_agent("mcts:imm=0,iterations=50", seed=1)
    off.start(game, 0)
    off.choose_move(state, None)
    assert off.learnt is None and off.tree.imm is None


def test_a_game_without_a_heuristic_gets_a_plain_search() -> None:
    game = compiled(COINS, "coins", native=False)
    agent = make_agent("mcts:imm=0.4,iterations=50", seed=1)
    agent.start(game, 0)
    assert agent.learnt is None
    state = game.initial_state()
    assert agent.choose_move(state, None) in state.legal_moves(0)
    assert agent.tree.imm is None


def test_bad_options_are_refused_clearly() -> None:
    with pytest.raises(GameError, match="imm=ALPHA needs a weight from 0 to 1"):
        make_agent("mcts:imm=1.5")
    with pytest.raises(GameError, match="option imm must be float >= 0"):
        make_agent("mcts:imm=-0.1")
    with pytest.raises(GameError, match="option imm must be"):
        make_agent("mcts:imm=much")
    with pytest.raises(GameError, match="rave=yes"):
        make_agent("mcts:imm=0.4,rave=yes")
    with pytest.raises(GameError, match="alpha in 0..1"):
        ImplicitMinimax(HashEvaluation(), 2.0)
    with pytest.raises(GameError, match="not together"):
        MCTS(TICTACTOE.initial_state(), rave=True, imm=ImplicitMinimax(HashEvaluation(), 0.5))


def test_the_prior_seeds_each_new_edge_with_virtual_visits() -> None:
    search = MCTS(
        TreeGame().initial_state(),
        prior=HeuristicPrior(TableEvaluation(), 3),
        rng=random.Random(1),
    )
    search.search(iterations=2)  # the root's two children, one simulation each
    root = search.root
    assert len(root.children) == 2
    for child in root.children.values():
        i = root.moves[0].index(child.state.path)
        assert root.counts[0][i] == 1 + 3
        # The simulation's draw (0.5) plus three visits worth the evaluation.
        assert root.sums[0][i] == pytest.approx(0.5 + 3 * TREE_VALUES[child.state.path][0])
        assert root.counts[1] == [8]  # b's one move: both edges' visits
    assert root.visits == 2  # the virtual visits are not the node's own


def test_the_prior_option_is_checked() -> None:
    with pytest.raises(GameError, match="option prior must be int >= 0"):
        make_agent("mcts:prior=-1")
    with pytest.raises(GameError, match="at least 1 virtual visit"):
        HeuristicPrior(HashEvaluation(), 0)
    game = compiled(TOKENS, "tokens", native=False)
    agent = make_agent("mcts:prior=5,iterations=50", seed=1)
    agent.start(game, 0)
    assert agent.choose_move(game.initial_state(), None)
    assert agent.tree.prior is not None and agent.tree.prior.visits == 5
    assert agent.tree.imm is None


def test_the_prior_stays_out_of_nodes_where_several_roles_choose() -> None:
    from ggp.gdl.load import game_from_text
    from test_races import GOOD_OR_BAD

    start = game_from_text(GOOD_OR_BAD, reasoner="interpreter").initial_state()
    plain = MCTS(start, rng=random.Random(3))
    seeded = MCTS(start, prior=HeuristicPrior(HashEvaluation(), 5), rng=random.Random(3))
    plain.search(iterations=12)
    seeded.search(iterations=12)
    assert len(seeded.root.choosers) == 2
    assert seeded.root.counts == plain.root.counts and seeded.root.sums == plain.root.sums
