"""Native code for the ground network: the same answers as the generated Python.

Skipped without cffi or a C compiler; the fallback
tests run everywhere.  Libraries are built into a folder of this test
session, so that each game is compiled once per run.
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ggp.games.base import GameDefinitionError
from ggp.games.playouts import RANDOM
from ggp.games.registry import GDL_DIR
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame, CompiledState
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import with_reasoner
from ggp.gdl.native import build, csource
from ggp.gdl.native.attach import attach_in_background, attach_native
from ggp.gdl.native.build import NativeUnavailable
from ggp.gdl.native.csource import CGenerator, check_source
from ggp.gdl.network import grounding
from ggp.gdl.network.formulas import BASE, cone, fold
from ggp.gdl.network.grounding import Budget
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.mcts import MCTS
from test_gdl_budgets import COUNTING
from test_gdl_compiled import HOSTILE
from test_gdl_game import RACE

try:
    import cffi  # noqa: F401

    MISSING = None if shutil.which("cc") else "no C compiler (cc)"
except ImportError:
    MISSING = "cffi is not installed"

needs_native = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


def native_game(text: str, name: str = "race") -> tuple[GdlGame, CompiledGame]:
    """The interpreted game and the same game compiled with native code attached."""
    compiled = with_reasoner(GdlGame.from_text(text, name=name), "compiled")
    assert isinstance(compiled, CompiledGame)
    attach_native(compiled)
    assert compiled.native is not None
    return GdlGame.from_text(text, name=name), compiled


def assert_same_play(interpreted: GdlGame, native: CompiledGame, playouts: int) -> None:
    """Random games agree step by step (`next_listed` too); native playouts are the Python
    ones for their seed."""
    rng = random.Random(0)
    for _ in range(playouts):
        a, b = interpreted.initial_state(), native.initial_state()
        assert isinstance(b, CompiledState)
        while True:
            assert a.facts() == b.facts()
            assert a.is_terminal() == b.is_terminal()
            if a.is_terminal():
                assert a.goals() == b.goals()
                break
            assert a.all_legal_moves() == b.all_legal_moves()
            joint = [rng.choice(moves) for moves in a.all_legal_moves()]
            listed = b.next_listed(joint)  # as searches step: no checks
            a, b = a.next(joint), b.next(joint)
            assert isinstance(listed, CompiledState) and listed.bits == b.bits
    start = native.initial_state()
    for seed in range(3):
        seeded = random.Random(seed).getrandbits(32)
        python = random.Random(seeded)
        expected = [interpreted.initial_state().playouts(python, 1, RANDOM)[0] for _ in range(4)]
        assert start.playouts(random.Random(seed), 4, RANDOM) == expected
        assert start.playouts(random.Random(seed), 1, RANDOM)[0] == expected[0]
        many = start.playouts(random.Random(seed), 40, RANDOM)  # past the first buffer's room
        assert len(many) == 40 and many[:4] == expected
        assert many[4:] == native.native_playouts.playouts(start.bits, random.Random(seed), 40)[4:]


@needs_native
@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "ultimate_tictactoe"])
def test_twins_play_the_same_on_native_code(name: str) -> None:
    text = (GDL_DIR / f"{name}.kif").read_text()
    assert_same_play(*native_game(text, name), playouts=5)


@needs_native
@pytest.mark.parametrize("name", ["ticTacToe", "connectFour", "blocker", "sheepAndWolf", "reversi"])
def test_corpus_games_play_the_same_on_native_code(shared_dir, name: str) -> None:
    path = shared_dir / "gdl-corpus" / "games" / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{name} is not in the corpus")
    assert_same_play(*native_game(path.read_text(), name), playouts=5)


TURN_GUARDED = """
(role white) (role black)
(init (control white)) (init (step 0))
(init (cell 1 white)) (init (cell 2 empty)) (init (cell 3 empty)) (init (cell 4 empty))
(init (cell 5 black))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(adj 1 2) (adj 2 3) (adj 3 4) (adj 4 5) (adj 2 1) (adj 3 2) (adj 4 3) (adj 5 4)
(<= (can ?p ?a ?b) (true (cell ?a ?p)) (adj ?a ?b) (true (cell ?b empty)))
(<= (legal ?p (move ?a ?b)) (true (control ?p)) (can ?p ?a ?b))
(<= (legal ?p pass) (true (control ?p)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (cell ?b ?p)) (does ?p (move ?a ?b)))
(<= (next (cell ?a empty)) (does ?p (move ?a ?b)))
(<= (moved ?c) (does ?p (move ?c ?b)))
(<= (moved ?c) (does ?p (move ?a ?c)))
(<= (next (cell ?c ?x)) (true (cell ?c ?x)) (not (moved ?c)))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 8)))
(<= (goal ?p 100) (role ?p) (true (cell 4 ?p)))
(<= (goal ?p 0) (role ?p) (not (true (cell 4 ?p))))
"""
"""A role's moves read a node (`can`) that only its legal moves read, under its turn."""


def test_nodes_only_legal_moves_under_a_turn_read_are_guarded_by_it() -> None:
    game = GdlGame.from_text(TURN_GUARDED, name="guarded")
    network = compile_rules(game.strata, game.role_terms).network
    targets = [node for moves in network.legal for node, _ in moves]
    folded = fold(network, cone(network, targets))
    guarded = csource.demand_guarded(network, folded, targets)
    changed = {
        network.nodes[node]: guarded[node] for node in folded if guarded[node] != folded[node]
    }
    assert changed and all(name[0] == "can" for name in changed)
    for name, bodies in changed.items():  # (can ?p ?a ?b): under (true (control ?p))
        turn = (BASE, network.base.index(("control", name[1])), True)
        assert all(turn in body for body in bodies)
    assert not any(guarded[node] != folded[node] for node in targets)


def test_the_dispatch_zeroes_its_nodes_and_none_computed_before_it() -> None:
    # reversi: a flip's body, dispatched, reads whether a line of discs follows, a
    # node computed before the dispatch whose index lay among the dispatched ones
    assert csource._zero_nodes([10, 11, 12, 20, 21], frozenset()) == (
        "    memset(v + 10, 0, 12); (void)k;"
    )
    assert csource._zero_nodes([10, 11, 12, 20, 21], frozenset({15})) == (
        "    memset(v + 10, 0, 3);     memset(v + 20, 0, 2); (void)k;"
    )
    spread = list(range(0, 400, 2))
    assert "PRESET" in csource._zero_nodes(spread, frozenset(range(1, 400, 2)))


@needs_native
def test_guarded_nodes_and_framed_cells_play_the_same_on_native_code() -> None:
    assert_same_play(*native_game(TURN_GUARDED, "guarded"), playouts=20)


@needs_native
def test_recursive_rules_and_simultaneous_moves_on_native_code() -> None:
    path = """
    (role r) (role s)
    (init (edge a b)) (init (edge b c)) (init (edge c d)) (init (edge d b))
    (<= (reach ?x ?y) (true (edge ?x ?y)))
    (<= (reach ?x ?z) (true (edge ?x ?y)) (node ?y) (reach ?y ?z))
    (node a) (node b) (node c) (node d)
    (<= (legal r (cut ?x ?y)) (true (edge ?x ?y)))
    (<= (legal r wait) (reach a a))
    (<= (legal s wait))
    (<= (legal s (cut ?x ?y)) (true (edge ?x ?y)))
    (<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (cut ?x ?y)))
        (not (does s (cut ?x ?y))))
    (<= terminal (not (reach a d)))
    (<= (goal r 100) (reach b b))
    (<= (goal r 0) (not (reach b b)))
    (<= (goal s 50) (role s))
    """
    interpreted, native = native_game(path, "path")
    assert any(native.compiled.network.cyclic)
    assert_same_play(interpreted, native, playouts=10)


@needs_native
def test_goals_left_to_the_interpreter_on_native_code(monkeypatch) -> None:
    """Native code cannot ask the interpreter for goals: playouts step through it instead."""
    monkeypatch.setattr(grounding, "GOAL_SHARE", 10**9)  # no work left for goals
    interpreted = GdlGame.from_text(COUNTING)
    rules = compile_rules(interpreted.strata, interpreted.role_terms)
    assert rules.goals_left
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    attach_native(compiled)
    assert compiled.native is not None and compiled.playout_batch == 1
    start = compiled.initial_state()
    for seed in range(5):
        expected = interpreted.initial_state().playouts(random.Random(seed), 1, RANDOM)[0]
        assert start.playouts(random.Random(seed), 1, RANDOM)[0] == expected
        assert start.playouts(random.Random(seed), 2, RANDOM)[0] == expected


@needs_native
def test_goals_the_budget_left_are_native_when_they_fit_the_native_build(monkeypatch) -> None:
    """The native build grounds the rules again with their goals (`NATIVE_GOALS_WORK`):
    whole playouts then run in native code, with the interpreter's goals."""
    interpreted = GdlGame.from_text(COUNTING)
    with monkeypatch.context() as patch:
        patch.setattr(grounding, "GOAL_SHARE", 10**9)  # no work left for goals
        rules = compile_rules(interpreted.strata, interpreted.role_terms)
    assert rules.goals_left
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    attach_native(compiled)
    assert compiled.native_playouts is not None and not compiled.compiled.goals_left
    start = compiled.initial_state()
    for seed in range(5):
        python = random.Random(random.Random(seed).getrandbits(32))
        expected = [interpreted.initial_state().playouts(python, 1, RANDOM)[0] for _ in range(2)]
        assert start.playouts(random.Random(seed), 2, RANDOM) == expected
        state = start
        while not state.is_terminal():
            state = state.next([moves[0] for moves in state.all_legal_moves()])
        assert state.goals() == interpreted.state_from_facts(state.facts()).goals()


@needs_native
@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_goals_read_from_tables_give_the_same_play(monkeypatch, name: str) -> None:
    """Goals of many literals are evaluated from tables (`csource.GOAL_TABLE_LITERALS`)."""
    monkeypatch.setattr(csource, "GOAL_TABLE_LITERALS", 0)
    text = (GDL_DIR / f"{name}.kif").read_text()
    compiled = with_reasoner(GdlGame.from_text(text, name=name), "compiled")
    assert (
        "GT_LITERAL"
        in CGenerator(compiled.compiled.network, compiled.compiled.goal_values).source()
    )
    assert_same_play(*native_game(text, name), playouts=5)


@needs_native
def test_goals_the_python_leaves_to_the_interpreter_are_native() -> None:
    interpreted = GdlGame.from_text(COUNTING)
    whole = compile_rules(interpreted.strata, interpreted.role_terms).work
    short = Budget(work=whole - 1)  # the goals' code, written last, does not fit
    rules = compile_rules(interpreted.strata, interpreted.role_terms, short)
    assert rules.goals_code_left and "goals" not in rules.functions
    compiled = CompiledGame.from_game(GdlGame.from_text(COUNTING), rules)
    attach_native(compiled)
    assert compiled.native_playouts is not None
    assert_same_play(interpreted, compiled, playouts=5)


@needs_native
def test_broken_rules_give_the_interpreters_errors_on_native_code() -> None:
    no_noop = RACE.replace("(<= (legal ?p noop) (role ?p) (not (true (control ?p))))", "")
    _, native = native_game(no_noop)
    with pytest.raises(GameDefinitionError, match="role Right has no legal move"):
        native.initial_state().legal_moves(1)
    with pytest.raises(GameDefinitionError, match="role Right has no legal move"):
        native.initial_state().playouts(random.Random(1), 1, RANDOM)[0]
    no_goal = RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", "")
    _, native = native_game(no_goal)
    message = r"race: role \w+ has no goal value in the terminal state: \(control"
    with pytest.raises(GameDefinitionError, match=message):
        native.initial_state().playouts(random.Random(1), 3, RANDOM)


@needs_native
def test_native_playouts_count_a_missing_goal_as_asked() -> None:
    no_goal = RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", "")
    interpreted, native = native_game(no_goal)
    _, strict = native_game(no_goal)  # the same library, as a referee loads it
    for game in (interpreted, native):
        game.count_missing_goals_as(0)
    assert_same_play(interpreted, native, playouts=5)  # every end: (0, 0)
    results = native.initial_state().playouts(random.Random(1), 8, RANDOM)
    assert {goals for goals, _ in results} == {(0, 0)}
    with pytest.raises(GameDefinitionError, match="has no goal value in the terminal state"):
        strict.initial_state().playouts(random.Random(1), 3, RANDOM)
    assert native.initial_state().playouts(random.Random(1), 8, RANDOM) == results


def test_the_c_source_holds_no_text_of_the_game() -> None:
    names = iter(HOSTILE)
    text = RACE
    for symbol in ("left", "Right", "Add", "count", "control", "noop", "succ"):
        text = text.replace(symbol, next(names))
    compiled = CompiledGame.from_text(text)
    rules = compiled.compiled
    source = CGenerator(rules.network, rules.goal_values).source()
    check_source(source)
    assert not any(HOSTILE[i] in source for i in (0, 1, 2, 5, 6, 9))  # the others are C words
    with pytest.raises(ValueError, match="names 'system'"):
        check_source(source.replace("v[0]", 'system("rm")', 1))


def test_without_the_native_extra_the_generated_python_serves(monkeypatch, caplog) -> None:
    def missing() -> None:
        raise NativeUnavailable("cffi is not installed")

    monkeypatch.setattr(build, "new_ffi", missing)
    with caplog.at_level(logging.INFO, logger="ggp.gdl.load"):
        game = with_reasoner(GdlGame.from_text(RACE, name="race"), "native")
    assert isinstance(game, CompiledGame) and game.native is None
    assert "no native code (cffi is not installed)" in caplog.text
    assert game.initial_state().playouts(random.Random(1), 2, RANDOM)


def test_a_failed_build_leaves_the_game_on_python(monkeypatch, caplog) -> None:
    monkeypatch.setenv(build.COMPILER_ENV, "no-such-compiler-here")
    compiled = CompiledGame.from_text(RACE, name="race")
    with caplog.at_level(logging.INFO, logger="ggp.gdl.native.attach"):
        attach_in_background(compiled).join()
    assert compiled.native is None
    assert "the generated Python serves" in caplog.text
    goals, steps = compiled.initial_state().playouts(random.Random(3), 1, RANDOM)[0]
    assert steps > 0 and sorted(goals) == [0, 100]


@needs_native
def test_native_reasoner_attaches_in_the_background_and_search_batches_playouts() -> None:
    text = (GDL_DIR / "tictactoe.kif").read_text()
    game = with_reasoner(GdlGame.from_text(text, name="tictactoe"), "native")
    assert isinstance(game, CompiledGame) and game.native_build is not None
    game.native_build.join()
    assert game.native is not None
    game.playout_batch = 4
    evaluator = RandomPlayout()
    search = MCTS(game.initial_state(), rng=random.Random(1), evaluator=evaluator)
    done = search.search(iterations=20)
    assert evaluator.playouts == 4 * done  # no terminal state within 20 iterations
    assert search.best_move(0) in game.initial_state().legal_moves(0)


@needs_native
def test_libraries_are_cached_by_their_source(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    compiled = CompiledGame.from_text(RACE, name="race")
    source = CGenerator(compiled.compiled.network, compiled.compiled.goal_values).source()
    first = build.build_library(source)
    monkeypatch.setenv(build.COMPILER_ENV, "no-such-compiler-here")
    assert build.build_library(source) == first  # found, not compiled again
    with pytest.raises(NativeUnavailable, match="no C compiler"):
        build.build_library(source + "\n")


@needs_native
def test_a_library_being_built_elsewhere_is_waited_for_not_built_again(
    tmp_path, monkeypatch
) -> None:
    """Two builds of one source at once (a match's two search workers): one compiler
    runs, the other build waits for its lock and takes the library it made."""
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path))
    compiled = CompiledGame.from_text(RACE, name="race")
    source = CGenerator(compiled.compiled.network, compiled.compiled.goal_values).source()
    real_compile, compiles = build._compile, []
    started = threading.Event()

    def slow_compile(command: list[str]) -> None:
        compiles.append(command)
        started.set()
        time.sleep(0.5)  # the other build arrives meanwhile
        real_compile(command)

    monkeypatch.setattr(build, "_compile", slow_compile)
    found: list[Path] = []
    first = threading.Thread(target=lambda: found.append(build.build_library(source)))
    first.start()
    assert started.wait(60)
    found.append(build.build_library(source))
    first.join(60)
    assert len(compiles) == 1 and len(found) == 2 and found[0] == found[1] and found[0].exists()


SOURCE_DIGEST = """
import hashlib, sys
from ggp.games.registry import GDL_DIR
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.native.csource import CGenerator
rules = CompiledGame.from_text((GDL_DIR / "connect_four.kif").read_text()).compiled
source = CGenerator(rules.network, rules.goal_values).source()
print(hashlib.sha256(source.encode()).hexdigest())
"""


def test_the_same_rules_give_the_same_source_in_every_process() -> None:
    """The library cache is found again by a new process (string hashing differs)."""
    digests = set()
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", SOURCE_DIGEST],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(done.stdout)
    assert len(digests) == 1
