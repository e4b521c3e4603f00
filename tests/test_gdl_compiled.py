"""The compiled reasoner: grounding, generated code, and agreement with the interpreter."""

from __future__ import annotations

import random
import subprocess

import pytest
from ggp.games.base import GameDefinitionError, IllegalMoveError
from ggp.games.playouts import RANDOM
from ggp.games.registry import GDL_DIR
from ggp.gdl.compiled import codegen
from ggp.gdl.compiled.codegen import compile_source
from ggp.gdl.compiled.compile import SPECIALISE_AFTER
from ggp.gdl.compiled.compiled_game import CompiledGame, CompiledState
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import with_reasoner
from ggp.gdl.network.grounding import Budget, GroundingError, ground
from ggp.gdl.syntax.terms import to_kif
from test_gdl_game import RACE


def both(text: str = RACE) -> tuple[GdlGame, CompiledGame]:
    return GdlGame.from_text(text, name="race"), CompiledGame.from_text(text, name="race")


def assert_same_random_playouts(
    interpreted: GdlGame, compiled: GdlGame, playouts: int, seed: int = 0
) -> None:
    """Random playouts through the interface agree step by step (`next_listed` too), and
    fast ones too."""
    rng = random.Random(seed)
    for _ in range(playouts):
        a, b = interpreted.initial_state(), compiled.initial_state()
        assert isinstance(b, CompiledState)
        while True:
            assert a.facts() == b.facts() and a.key() == b.key()
            assert a.is_terminal() == b.is_terminal()
            if a.is_terminal():
                assert a.goals() == b.goals()
                break
            assert a.all_legal_moves() == b.all_legal_moves()
            joint = [rng.choice(moves) for moves in a.all_legal_moves()]
            listed = b.next_listed(joint)  # as searches step: no checks
            a, b = a.next(joint), b.next(joint)
            assert isinstance(listed, CompiledState) and listed.bits == b.bits
    for playout in range(3):
        first = interpreted.initial_state().playouts(random.Random(playout), 1, RANDOM)[0]
        assert compiled.initial_state().playouts(random.Random(playout), 1, RANDOM)[0] == first


def test_grounding_finds_the_reachable_facts_and_moves() -> None:
    program = ground(GdlGame.from_text(RACE).strata)
    assert [to_kif(term) for term in program.base] == [
        "(control Right)",
        "(control left)",
        *(f"(count {n})" for n in range(5)),
    ]
    assert {f"{to_kif(r)} {to_kif(m)}" for r, m in program.inputs} == {
        f"{role} {move}" for role in ("left", "Right") for move in ("(Add 1)", "(Add 2)", "noop")
    }
    assert all(head[0] != "succ" for head, _, _ in program.rules)  # static: resolved


def test_grounding_over_its_budget_says_why() -> None:
    strata = GdlGame.from_text(RACE).strata
    with pytest.raises(GroundingError, match="more than 3 ground rules"):
        ground(strata, Budget(ground_rules=3))
    counting = (
        RACE + "(<= (next (big ?x)) (true (count ?x)))\n(<= (next (big (s ?x))) (true (big ?x)))"
    )
    with pytest.raises(
        GroundingError, match="relaxed model of .* grows without bound: a fact of next"
    ):
        ground(GdlGame.from_text(counting).strata)
    with pytest.raises(
        GroundingError, match="work budget of 110 units exceeded while instantiating"
    ):
        ground(GdlGame.from_text(RACE).strata, Budget(work=110))


def test_compiled_race_plays_as_the_interpreter() -> None:
    interpreted, compiled = both()
    assert compiled.roles == interpreted.roles and compiled.rules_id == interpreted.rules_id
    assert_same_random_playouts(interpreted, compiled, playouts=20)
    state = compiled.initial_state()
    assert state.legal_moves(0) == ("(Add 1)", "(Add 2)")
    assert state.next(["(add 2)", "NOOP"]).facts() == ("(control Right)", "(count 2)")
    with pytest.raises(IllegalMoveError, match="legal moves: \\(Add 1\\), \\(Add 2\\)"):
        state.next(["(Add 3)", "noop"])
    assert compiled.state_from_facts(state.facts()) == state


def test_broken_rules_give_the_interpreters_errors() -> None:
    for text, method, message in (
        (RACE.replace("(<= (goal ?p 100) (true (control ?p)) terminal)", ""), "goals", "no goal"),
        (RACE + "(<= (goal ?p 50) (role ?p) terminal)", "goals", "2 goal values"),
        (RACE.replace("(goal ?p 100)", "(goal ?p high)"), "goals", "not an integer"),
    ):
        interpreted, compiled = both(text)
        end = [
            s.initial_state().next(["(Add 2)", "noop"]).next(["noop", "(Add 2)"])
            for s in (interpreted, compiled)
        ]
        errors = []
        for state in end:
            with pytest.raises(GameDefinitionError, match=message) as error:
                getattr(state, method)()
            errors.append(str(error.value))
        assert errors[0] == errors[1]
    no_noop = RACE.replace("(<= (legal ?p noop) (role ?p) (not (true (control ?p))))", "")
    _, compiled = both(no_noop)
    with pytest.raises(GameDefinitionError, match="role Right has no legal move"):
        compiled.initial_state().legal_moves(1)
    with pytest.raises(GameDefinitionError, match="role Right has no legal move"):
        compiled.initial_state().playouts(random.Random(1), 1, RANDOM)[0]


def test_a_state_with_unknown_facts_is_left_to_the_interpreter() -> None:
    _, compiled = both()
    state = compiled.state_from_facts(["(count 7)", "(control left)"])
    assert not isinstance(state, CompiledState)
    assert state.legal_moves(0) == ("(Add 1)",)


HOSTILE = [
    "__import__",
    '"],__import__"os".system"echo"',
    "lambda",
    "def",
    "None",
    "exec.print.1",
    "'''",
    "v1",
    "S",
    "x" * 5000,
]


def test_hostile_symbols_are_only_data() -> None:
    names = iter(HOSTILE)
    text = RACE
    for symbol in ("left", "Right", "Add", "count", "control", "noop", "succ"):
        text = text.replace(symbol, next(names))
    text += f"(<= ({HOSTILE[7]} {HOSTILE[8]}) (true ({HOSTILE[3]} {HOSTILE[9]})))\n"
    interpreted, compiled = GdlGame.from_text(text), CompiledGame.from_text(text)
    assert compiled.roles == (HOSTILE[0], HOSTILE[1])
    assert_same_random_playouts(interpreted, compiled, playouts=10)
    source = compiled.compiled.generator.state_source()
    assert not any(name in source for name in HOSTILE if name not in ("S", "v1", "def", "None"))


def test_generated_code_naming_anything_else_is_refused() -> None:
    with pytest.raises(ValueError, match="names '__import__'"):
        compile_source("def step(S):\n    return __import__('os')\n", {})
    assert compile_source("def goals(S):\n    return bool(S & 4)\n", {})["goals"](5)


def test_long_generated_code_is_compiled_in_a_child_process(monkeypatch) -> None:
    """A long source is compiled by a child Python (CPython's compiler holds the GIL
    throughout), its code read back; where no child runs, it is compiled here; a
    forbidden name far past the first checked chunk is still refused."""
    children: list[list[str]] = []
    real_run = subprocess.run

    def run(args, **kwargs):
        children.append(args)
        return real_run(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    filler = "".join(f"def step(S):\n    v{i} = S + {i}\n" for i in range(7000))
    source = filler + "def goals(S):\n    return bool(S & 4)\n"
    assert len(source) >= codegen.OFFLOAD_CHARS
    assert compile_source(source, {})["goals"](5) and compile_source(source, {})["step"](1) is None
    assert len(children) == 2
    monkeypatch.setattr(codegen.sys, "executable", "/nonexistent/python")
    assert compile_source(source, {})["goals"](4)
    with pytest.raises(ValueError, match="names 'open'"):
        compile_source(filler + "def goals(S):\n    return open\n", {})
    with pytest.raises(SyntaxError):
        codegen.compiled_code(filler + "def goals(S:\n")


def test_recursive_ground_rules_reach_their_fixpoint() -> None:
    path = """
    (role r)
    (init (edge a b)) (init (edge b c)) (init (edge c d)) (init (edge d b))
    (<= (reach ?x ?y) (true (edge ?x ?y)))
    (<= (reach ?x ?z) (true (edge ?x ?y)) (node ?y) (reach ?y ?z))
    (node a) (node b) (node c) (node d)
    (<= (legal r (cut ?x ?y)) (true (edge ?x ?y)))
    (<= (legal r wait) (reach a a))
    (<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (cut ?x ?y))))
    (<= terminal (not (reach a d)))
    (<= (goal r 100) (reach b b))
    (<= (goal r 0) (not (reach b b)))
    """
    interpreted = GdlGame.from_text(path)
    compiled = CompiledGame.from_text(path)
    assert_same_random_playouts(interpreted, compiled, playouts=20)


def test_the_general_next_function_agrees_too() -> None:
    interpreted, compiled = both()
    compiled.compiled.specialise = False
    assert_same_random_playouts(interpreted, compiled, playouts=10)
    assert "next" in compiled.compiled.functions


def test_a_joint_move_gets_its_own_function_only_after_a_few_uses() -> None:
    interpreted, compiled = both()
    rules = compiled.compiled
    state = compiled.initial_state()
    joint = tuple(ids[0] for ids in state._legal_ids())
    for use in range(1, SPECIALISE_AFTER):
        assert state.next(["(Add 1)", "noop"]) == interpreted_next(interpreted, compiled)
        assert joint not in rules.next_functions and rules.uses[joint] == use
    assert "next" in rules.functions  # the general function served meanwhile
    state.next(["(Add 1)", "noop"])
    assert joint in rules.next_functions
    source = rules.generator.general_next_source()
    assert "def next(S, m0, m1):" in source and "m0 == " in source


def interpreted_next(interpreted: GdlGame, compiled: CompiledGame) -> CompiledState:
    facts = interpreted.initial_state().next(["(Add 1)", "noop"]).facts()
    return compiled.state_from_facts(facts)


def test_static_legal_moves_goals_and_terminal() -> None:
    text = """
    (role p) (init (n 0)) (succ 0 1) (succ 1 2)
    (legal p go) (legal p wait) (goal p 100) (<= terminal (true (n 2))) (<= terminal stop)
    (<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
    """
    interpreted, compiled = GdlGame.from_text(text), CompiledGame.from_text(text)
    assert compiled.initial_state().legal_moves(0) == ("go", "wait")
    assert_same_random_playouts(interpreted, compiled, playouts=3)


TWINS = sorted(GDL_DIR.glob("*.kif"))


@pytest.mark.parametrize("path", TWINS or [None], ids=lambda path: path.stem if path else "none")
def test_built_in_twins_play_as_the_interpreter(path) -> None:
    if path is None:
        pytest.skip("no GDL twins in games/gdl yet")
    interpreted = GdlGame.from_file(path)
    compiled = with_reasoner(GdlGame.from_file(path), "auto")
    if not isinstance(compiled, CompiledGame):
        pytest.skip(f"{path.stem} is not compiled: {compiled.not_compiled}")
    assert_same_random_playouts(interpreted, compiled, playouts=3)


def test_wide_states_are_read_byte_by_byte_with_the_same_results(monkeypatch) -> None:
    monkeypatch.setattr(codegen, "WIDE", 0)
    interpreted, compiled = both()
    assert "to_bytes" in compiled.compiled.generator.state_source()
    assert_same_random_playouts(interpreted, compiled, playouts=10)
    path = GDL_DIR / "connect_four.kif"
    if path.is_file():
        assert_same_random_playouts(
            GdlGame.from_file(path), with_reasoner(GdlGame.from_file(path), "compiled"), 3
        )


MARKS = """
(role marker)
(index 1) (index 2) (index 3)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(init (round 0))
(<= (legal marker (mark ?i)) (index ?i) (not (true (marked ?i))))
(legal marker reset)
(<= (next (marked ?i)) (does marker (mark ?i)))
(<= (next (marked ?i)) (true (marked ?i)) (not (does marker reset)))
(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
(<= terminal (true (round 4)))
(<= (goal marker 100) (true (marked 3)))
(<= (goal marker 0) (not (true (marked 3))))
"""


def test_bits_carried_over_under_one_condition_are_copied_with_one_mask(monkeypatch) -> None:
    monkeypatch.setattr(codegen, "WIDE", 0)
    monkeypatch.setattr(codegen, "MIN_CARRY", 2)
    interpreted, compiled = GdlGame.from_text(MARKS), CompiledGame.from_text(MARKS)
    assert "C |= S & " in compiled.compiled.generator.general_next_source()
    compiled.compiled.specialise = False  # every joint move through the general function
    assert_same_random_playouts(interpreted, compiled, playouts=10)
