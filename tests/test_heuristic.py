"""The learnt state evaluation (`ggp.player.search.heuristic`) and its cut-off playouts.

The native tests build small libraries into a folder of this test module
(skipped without cffi or a C compiler); the Python path runs everywhere.
"""

from __future__ import annotations

import random

import pytest
from gdl_texts import TICTACTOE
from ggp.games.base import GameError
from ggp.games.playouts import RANDOM, Decisive
from ggp.games.registry import GDL_DIR
from ggp.gdl.compiled.compiled_game import CompiledGame, CompiledState
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import with_reasoner
from ggp.gdl.native import build
from ggp.gdl.native.attach import attach_native
from ggp.player.agents import make_agent
from ggp.player.search import heuristic
from ggp.player.search.heuristic import (
    CutoffPlayout,
    GoalNear,
    Heuristic,
    Learning,
    Samples,
    candidate_features,
    learn,
    material_term,
    rule_features,
    split_fact,
)
from test_gdl_native import needs_native

TOKENS = """
; Each side has three tokens; in turn a side takes one of the other's tokens or
; waits; after six moves, the side with more tokens wins (equal: a draw).
(role white)
(role black)
(opponent white black)
(opponent black white)
(init (token white 1)) (init (token white 2)) (init (token white 3))
(init (token black 1)) (init (token black 2)) (init (token black 3))
(init (control white))
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(level 1) (level 2) (level 3)
(<= (legal ?p (take ?k)) (true (control ?p)) (opponent ?p ?q) (true (token ?q ?k)))
(<= (legal ?p wait) (true (control ?p)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (taken ?q ?k) (does ?p (take ?k)) (opponent ?p ?q))
(<= (next (token ?q ?k)) (true (token ?q ?k)) (not (taken ?q ?k)))
(<= (next (control ?q)) (true (control ?p)) (opponent ?p ?q))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 6)))
(<= (atleast ?p 1) (true (token ?p ?a)))
(<= (atleast ?p 2) (true (token ?p ?a)) (true (token ?p ?b)) (distinct ?a ?b))
(<= (atleast ?p 3) (true (token ?p 1)) (true (token ?p 2)) (true (token ?p 3)))
(<= (wins ?p) (opponent ?p ?q) (level ?n) (atleast ?p ?n) (not (atleast ?q ?n)))
(<= (goal ?p 100) (wins ?p))
(<= (goal ?p 0) (opponent ?p ?q) (wins ?q))
(<= (goal ?p 50) (role ?p) (not (wins ?p)) (opponent ?p ?q) (not (wins ?q)))
"""

COINS = """
; Both name a coin side at once, four times; white wins if its last call is heads.
; No state before the last call says anything of the outcome.
(role white)
(role black)
(side heads) (side tails)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal ?p (call ?s)) (role ?p) (side ?s))
(<= (next (last ?s)) (does white (call ?s)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 4)))
(<= (goal white 100) (true (last heads)))
(<= (goal white 0) (true (last tails)))
(<= (goal black 100) (true (last tails)))
(<= (goal black 0) (true (last heads)))
"""


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def compiled(text: str, name: str, native: bool) -> CompiledGame:
    game = with_reasoner(GdlGame.from_text(text, name=name), "compiled")
    assert isinstance(game, CompiledGame)
    if native:
        attach_native(game)
        assert game.native_playouts is not None
    return game


def tokens_state(game: CompiledGame, white: int, black: int):
    facts = [f"(token white {k})" for k in range(1, white + 1)]
    facts += [f"(token black {k})" for k in range(1, black + 1)]
    return game.state_from_facts([*facts, "(control white)", "(step 3)"])


def test_facts_are_split_at_the_top_level() -> None:
    assert split_fact("(cell 1 2 white)") == ("cell", "1", "2", "white")
    assert split_fact("(at (pos 1 2) x)") == ("at", "(pos 1 2)", "x")
    assert split_fact("open") == ("open",)


def test_candidate_features_count_facts_by_relation_and_constants() -> None:
    texts = ["(cell 1 1 x)", "(cell 1 2 o)", "(cell 2 1 x)", "(cell 2 2 x)", "(control x)"]
    found = dict(candidate_features(texts))
    assert found["(cell ? ? x)"] == 0b1101
    assert found["(cell 1 ? ?)"] == 0b0011
    assert found["(cell 2 ? ?)"] == 0b1100
    assert found["(control ?)"] == 0b10000
    # One feature per mask, named by its most general pattern: (cell ? 1 x) is (cell ? 1 ?).
    assert found["(cell ? 1 ?)"] == 0b0101 and "(cell ? 1 x)" not in found
    assert len(set(found.values())) == len(found)


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_where_material_decides_more_tokens_are_worth_more(native: bool) -> None:
    game = compiled(TOKENS, "tokens", native)
    learnt = learn(game, random.Random(1), playouts=1000)
    assert learnt is not None
    ahead = learnt.value(tokens_state(game, 3, 1))
    behind = learnt.value(tokens_state(game, 1, 3))
    assert ahead[0] > 0.6 > 0.4 > behind[0]
    assert ahead[1] < 0.4 < 0.6 < behind[1]
    assert learnt.held_out[0] > 0.3


def test_the_material_term_counts_each_roles_pieces_where_more_is_better() -> None:
    texts = ["(cell 1 x)", "(cell 2 x)", "(cell 1 o)", "(cell 2 o)", "(control x)", "(control o)"]
    # x wins the playouts where it holds more cells; (control ?) is one fact a role.
    bits = [0b010011, 0b100111, 0b011101, 0b101100, 0b010001, 0b100100]
    goals = [(100, 0), (100, 0), (0, 100), (0, 100), (50, 50), (50, 50)]
    samples = Samples(bits, list(range(6)), goals)
    targets = [[g[r] / 100 for g in goals] for r in range(2)]
    assert material_term(texts, samples, ("x", "o"), targets) == [
        ("(cell ? x)", 0b0011),
        ("(cell ? o)", 0b1100),
    ]
    assert material_term(texts, samples, ("o", "x"), targets[::-1]) == [
        ("(cell ? o)", 0b1100),
        ("(cell ? x)", 0b0011),
    ]
    losing = [[1 - t for t in y] for y in targets]  # more cells lose: no material
    assert material_term(texts, samples, ("x", "o"), losing) == []
    assert material_term(texts, samples, ("x",), targets[:1]) == []


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_material_adds_its_weight_to_the_learnt_fit(native: bool) -> None:
    game = compiled(TOKENS, "tokens", native)
    plain = learn(game, random.Random(1), playouts=1000)
    weighted = learn(game, random.Random(1), playouts=1000, material=0.5)
    assert plain is not None and weighted is not None
    assert weighted.held_out == plain.held_out

    def weight(learnt, name: str, role: int) -> float:
        names = learnt.names
        return learnt.weights[role][1 + names.index(name)] if name in names else 0.0

    for role, sign in ((0, 1), (1, -1)):
        for name, side in (("(token white ?)", 1), ("(token black ?)", -1)):
            added = weight(weighted, name, role) - weight(plain, name, role)
            assert added == pytest.approx(0.5 * sign * side)
    assert learn(compiled(COINS, "coins", native), random.Random(1), 1000, material=1) is None


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_where_no_fit_predicts_the_material_alone_is_the_heuristic(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heuristic, "MIN_CORRELATION", 1.01)  # no fit can be kept
    game = compiled(TOKENS, "tokens", native)
    assert learn(game, random.Random(1), playouts=1000) is None
    learnt = learn(game, random.Random(1), playouts=1000, material=0.5)
    assert learnt is not None and learnt.material_alone
    assert learnt.names == ("(token white ?)", "(token black ?)")
    for role, sign in ((0, 1), (1, -1)):
        assert learnt.weights[role][1:] == pytest.approx((0.5 * sign, -0.5 * sign))
    assert min(learnt.held_out) > 0.3
    ahead = learnt.value(tokens_state(game, 3, 1))
    even = learnt.value(tokens_state(game, 2, 2))
    behind = learnt.value(tokens_state(game, 1, 3))
    assert ahead[0] > even[0] > behind[0] and ahead[1] < even[1] < behind[1]
    assert even[0] == pytest.approx(0.5, abs=0.1)
    assert "material alone" in learnt.describe()
    # A game without pieces gets none, with material or without.
    assert learn(compiled(COINS, "coins", native), random.Random(1), 1000, material=1) is None


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_material_first_takes_the_material_alone_where_a_fit_would_be_kept(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = compiled(TOKENS, "tokens", native)
    fitted = learn(game, random.Random(1), playouts=1000, material=0.5)
    assert fitted is not None and not fitted.material_alone  # a fit passes here
    first = learn(game, random.Random(1), playouts=1000, material=0.5, material_first=True)
    assert first is not None and first.material_alone and not first.fit_tried
    assert first.names == ("(token white ?)", "(token black ?)")
    for role, sign in ((0, 1), (1, -1)):
        assert first.weights[role][1:] == pytest.approx((0.5 * sign, -0.5 * sign))
    assert "material alone (tried first)" in first.describe()
    assert first.value(tokens_state(game, 3, 1))[0] > first.value(tokens_state(game, 1, 3))[0]
    # Where the material predicts nothing, the fit is tried as before.
    monkeypatch.setattr(heuristic, "_material_alone", lambda *args, **kwargs: None)
    fallback = learn(game, random.Random(1), playouts=1000, material=0.5, material_first=True)
    assert fallback is not None and not fallback.material_alone
    assert fallback.weights == fitted.weights


def test_learning_is_repeatable_for_a_seed() -> None:
    game = compiled(TOKENS, "tokens", native=False)
    first = learn(game, random.Random(7), playouts=1000)
    second = learn(game, random.Random(7), playouts=1000)
    assert first is not None and second is not None
    assert (first.names, first.weights) == (second.names, second.weights)


def test_every_worker_learns_the_same_heuristic_of_a_game() -> None:
    """`Learning` is seeded, so the search workers of a match agree on the heuristic
    (and on whether the game has one)."""
    game = compiled(TOKENS, "tokens", native=False)
    found = [Learning(game, material=0.5) for _ in range(2)]
    for learning in found:
        assert learning.done.wait(120) and learning.result is not None
    first, second = (learning.result for learning in found)
    assert (first.names, first.weights) == (second.names, second.weights)


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_a_game_whose_states_do_not_predict_its_goals_gets_no_heuristic(native: bool) -> None:
    game = compiled(COINS, "coins", native)
    assert learn(game, random.Random(1), playouts=1000) is None


@needs_native
def test_connect_four_gets_no_heuristic() -> None:
    text = (GDL_DIR / "connect_four.kif").read_text()
    assert learn(compiled(text, "connect_four", native=True), random.Random(1)) is None


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_cut_off_playouts_stay_in_the_goal_range(native: bool) -> None:
    game = compiled(TOKENS, "tokens", native)
    learnt = learn(game, random.Random(1), playouts=1000)
    assert learnt is not None
    rng = random.Random(2)
    state = tokens_state(game, 3, 0)  # far ahead: the score is far out, the value not
    for plies in (0, 1, 3):
        evaluator = CutoffPlayout(learnt, plies)
        for _ in range(20):
            values = evaluator.evaluate(state, rng)
            assert len(values) == 2
            assert all(0.0 <= value <= 1.0 for value in values)
    assert CutoffPlayout(learnt, 0).evaluate(state, rng)[0] > 0.6


@needs_native
def test_native_cut_off_values_are_the_heuristic_or_the_goals() -> None:
    game = compiled(TOKENS, "tokens", native=True)
    learnt = learn(game, random.Random(1), playouts=1000)
    assert learnt is not None
    state = tokens_state(game, 2, 1)
    # Cut off at once: exactly the heuristic's value of the state, in C as in Python.
    assert CutoffPlayout(learnt, 0).evaluate(state, random.Random(3)) == pytest.approx(
        learnt.value(state)
    )
    # Never cut off: the mean goals of the plain native playouts for the seed.
    count = game.playout_batch
    results = state.playouts(random.Random(4), count, RANDOM)
    mean = [sum(goals[r] for goals, _ in results) / count / 100 for r in range(2)]
    assert CutoffPlayout(learnt, 100).evaluate(state, random.Random(4)) == pytest.approx(mean)


def test_the_agent_learns_at_the_start_and_plays() -> None:
    game = compiled(TOKENS, "tokens", native=False)
    agent = make_agent("mcts:heuristic=yes,cutoff=2,iterations=50", seed=1)
    agent.start(game, 0)
    assert agent.learnt is not None
    state = game.initial_state()
    assert agent.choose_move(state, None) in state.legal_moves(0)
    assert isinstance(agent.tree.evaluator, CutoffPlayout)
    plain = make_agent("mcts:iterations=50", seed=1)
    plain.start(game, 0)
    assert plain.learnt is None


def test_agent_options_are_checked() -> None:
    with pytest.raises(GameError, match="cutoff"):
        make_agent("mcts:heuristic=yes,cutoff=-1")
    with pytest.raises(GameError, match="mast or greedy"):
        make_agent("mcts:heuristic=yes,mast=yes")
    with pytest.raises(GameError, match="material"):
        make_agent("mcts:imm=0.4,material=-1")
    with pytest.raises(GameError, match="material_first"):
        make_agent("mcts:imm=0.4,material_first=yes")
    with pytest.raises(GameError, match="cut-off"):
        CutoffPlayout(None, -1)  # type: ignore[arg-type]


def test_sampling_window_is_checked() -> None:
    game = compiled(TOKENS, "tokens", native=False)
    with pytest.raises(GameError, match="window"):
        heuristic.sample(game, random.Random(1), skip=0)


@needs_native
def test_decisive_sampling_plays_the_decisive_playouts_of_its_seeds() -> None:
    """Each sampled playout is `playouts.Decisive`' for the next seed drawn
    from the sampler's generator; the states come from its last moves as before."""
    text = (GDL_DIR / "tictactoe.kif").read_text()
    game = compiled(text, "tictactoe", native=True)
    interpreted = GdlGame.from_text(text, name="tictactoe").initial_state()
    count = 40
    _, samples = heuristic.sample(game, random.Random(3), count, decisive=True)
    seeds = random.Random(random.Random(3).getrandbits(32))
    expected = []
    for _ in range(count):
        [(goals, steps)] = interpreted.playouts(
            random.Random(seeds.getrandbits(32)), 1, Decisive(1000)
        )
        expected.append((tuple(goals), steps))
    assert [tuple(goals) for goals in samples.goals] == [goals for goals, _ in expected]
    taken = [
        len(
            range(
                heuristic.SKIP, min(heuristic.SKIP + heuristic.WINDOW, steps + 1), heuristic.EVERY
            )
        )
        for _, steps in expected
    ]
    assert [samples.owner.count(p) for p in range(count)] == taken
    _, random_samples = heuristic.sample(game, random.Random(3), count)
    assert random_samples.goals != samples.goals


def test_rule_features_are_each_roles_mobility_and_its_goals_near_satisfaction() -> None:
    game = compiled(TICTACTOE, "tictactoe", native=False)
    features = {feature.name: feature for feature in rule_features(game)}
    assert set(features) == {
        "(mobility xplayer)",
        "(mobility oplayer)",
        "(goal xplayer 100 missing 1)",
        "(goal xplayer 100 missing 2)",
        "(goal oplayer 100 missing 1)",
        "(goal oplayer 100 missing 2)",
        # the draws' rules hold negations only: no conjunction of facts
    }
    near = features["(goal xplayer 100 missing 1)"]
    assert isinstance(near, GoalNear) and len(near.conjunctions) == 8  # the lines
    x_two = ["(cell 1 1 x)", "(cell 1 2 x)", "(cell 2 2 o)", "(control xplayer)"]
    blank = [f"(cell {m} {n} b)" for m in (1, 2, 3) for n in (1, 2, 3) if (m, n) not in X_O]
    state = game.state_from_facts([*x_two, *blank])
    assert isinstance(state, CompiledState)
    # Row 1 misses one x; columns 1 and 2 and the diagonal through 1 1 miss two (an o
    # counts as a condition unmet); o's four lines through 2 2 miss two each.
    assert near.count(state, state.bits) == 1
    assert features["(goal xplayer 100 missing 2)"].count(state, state.bits) == 3
    assert features["(goal oplayer 100 missing 2)"].count(state, state.bits) == 4
    assert features["(mobility xplayer)"].count(state, state.bits) == 6
    assert features["(mobility oplayer)"].count(state, state.bits) == 1  # noop


X_O = {(1, 1), (1, 2), (2, 2)}


@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_native)])
def test_rule_features_are_kept_only_where_they_beat_the_counts(native: bool) -> None:
    game = compiled(TOKENS, "tokens", native)
    rich = learn(game, random.Random(1), playouts=1000, rich=True)
    plain = learn(game, random.Random(1), playouts=1000)
    assert rich is not None and plain is not None
    assert plain.held_out_counts is None and not plain.extras
    assert rich.held_out_counts is not None
    if rich.extras:  # kept: they beat the counts alone on the held-out playouts
        assert sum(rich.held_out) >= sum(rich.held_out_counts) + 2 * heuristic.RICH_MARGIN
    else:
        assert rich.held_out == rich.held_out_counts == plain.held_out
    assert "rule features" in rich.describe()


def test_a_heuristic_with_rule_features_values_states_and_cuts_off_in_python() -> None:
    game = compiled(TICTACTOE, "tictactoe", native=False)
    near = next(f for f in rule_features(game) if f.name == "(goal xplayer 100 missing 1)")
    learnt = Heuristic(
        texts=tuple(game.compiled.base_texts),
        masks=(),
        names=(),
        weights=((0.0, 1.0), (0.0, -1.0)),
        held_out=(0.5, 0.5),
        game=game,
        extras=(near,),
    )
    x_two = ["(cell 1 1 x)", "(cell 1 2 x)", "(cell 2 2 o)", "(control xplayer)"]
    blank = [f"(cell {m} {n} b)" for m in (1, 2, 3) for n in (1, 2, 3) if (m, n) not in X_O]
    state = game.state_from_facts([*x_two, *blank])
    assert learnt.value(state) == pytest.approx([0.75, 0.25])  # a score of 1: 0.5 + 0.25
    assert not learnt.counts_only
    with pytest.raises(GameError, match="rule features need the state"):
        learnt.value_of_bits(state.bits)
    values = CutoffPlayout(learnt, 0).evaluate(state, random.Random(1))
    assert values == pytest.approx([0.75, 0.25])
