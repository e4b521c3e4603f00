"""The puzzle searches (DFS, NMCS, NRPA) on tiny GDL puzzles, the kept best line,
and the ``nmcs`` and ``nrpa`` agents."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from ggp.games.base import GameError, State
from ggp.games.registry import load_game
from ggp.gdl.load import game_from_text
from ggp.player.agents import make_agent
from ggp.player.puzzle_agents import NMCSAgent, NRPAAgent
from ggp.player.search import dfs, nmcs, nrpa
from ggp.player.search.breadth_first import breadth_first
from ggp.player.search.guidance import profile
from ggp.player.search.lines import BestLine, Line, line_goal
from ggp.player.search.puzzle import PuzzleSearch
from ggp.server.match import play_match


def _picks(goal_rules: str, letters: str = "a b c", steps: int = 4) -> str:
    """A puzzle of `steps` moves, each a pick of a letter (``(pick STEP LETTER)``: an
    NRPA policy learns a weight per move), scored by `goal_rules` over ``(picked
    STEP LETTER)`` facts."""
    succ = "\n".join(f"(succ {i} {i + 1})" for i in range(steps))
    letter_facts = "\n".join(f"(letter {x})" for x in letters.split())
    return f"""
    (role solver)
    (init (step 0))
    {succ}
    {letter_facts}
    (<= (legal solver (pick ?n ?x)) (true (step ?n)) (letter ?x) (not terminal))
    (<= (next (picked ?n ?x)) (does solver (pick ?n ?x)))
    (<= (next (picked ?n ?x)) (true (picked ?n ?x)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= terminal (true (step {steps})))
    {goal_rules}
    """


NEEDLE_GOAL = """
    (<= solved (true (picked 0 c)) (true (picked 1 a)) (true (picked 2 b)) (true (picked 3 c)))
    (<= (goal solver 100) solved)
    (<= (goal solver 0) (not solved))
    """

NEEDLE = _picks(NEEDLE_GOAL)
"""Only one line of 81 reaches 100; every other reaches 0."""

CAPPED = _picks(
    """
    (<= good (true (picked 1 b)) (true (picked 3 a)))
    (<= (goal solver 70) good)
    (<= (goal solver 10) (not good))
    """
)
"""The best goal there is is 70."""

GRADED = _picks(
    """
    (<= (hit 0) (true (picked 0 b)))
    (<= (hit 1) (true (picked 1 c)))
    (<= (hit 2) (true (picked 2 c)))
    (<= (hit 3) (true (picked 3 a)))
    (<= (goal solver 100) (hit 0) (hit 1) (hit 2) (hit 3))
    (<= (goal solver 75) (not (hit 0)) (hit 1) (hit 2) (hit 3))
    (<= (goal solver 75) (hit 0) (not (hit 1)) (hit 2) (hit 3))
    (<= (goal solver 75) (hit 0) (hit 1) (not (hit 2)) (hit 3))
    (<= (goal solver 75) (hit 0) (hit 1) (hit 2) (not (hit 3)))
    (<= (goal solver 0) (not (hit 0)) (not (hit 1)))
    (<= (goal solver 0) (not (hit 0)) (hit 1) (not (hit 2)))
    (<= (goal solver 0) (not (hit 0)) (hit 1) (hit 2) (not (hit 3)))
    (<= (goal solver 0) (hit 0) (not (hit 1)) (not (hit 2)))
    (<= (goal solver 0) (hit 0) (not (hit 1)) (hit 2) (not (hit 3)))
    (<= (goal solver 0) (hit 0) (hit 1) (not (hit 2)) (not (hit 3)))
    """
)
"""100 for one line, 75 for a line one pick away from it, else 0."""


@pytest.fixture(scope="module", params=["interpreter", "compiled"])
def needle(request: pytest.FixtureRequest):
    return game_from_text(NEEDLE, "needle", reasoner=request.param)


def _last_line(search: Iterator[Line | None]) -> Line:
    """The best line a search generator yielded before it ended."""
    best = None
    for line in search:
        if line is not None and line.better_than(best):
            best = line
    assert best is not None
    return best


def test_depth_first_search_finds_the_needle_and_settles_a_lower_optimum(needle) -> None:
    outcome = dfs.Outcome()
    line = _last_line(dfs.iterative_deepening(needle.initial_state(), outcome))
    assert line == Line(100, ("(pick 0 c)", "(pick 1 a)", "(pick 2 b)", "(pick 3 c)"))
    assert not outcome.gave_up
    capped = game_from_text(CAPPED, "capped")
    outcome = dfs.Outcome()
    line = _last_line(dfs.iterative_deepening(capped.initial_state(), outcome))
    assert line.goal == 70 and line_goal(capped.initial_state(), line.moves) == 70
    assert outcome.complete and outcome.depth == 4


def test_depth_first_search_gives_up_when_its_table_is_full(needle) -> None:
    outcome = dfs.Outcome()
    for _ in dfs.iterative_deepening(needle.initial_state(), outcome, max_entries=5):
        pass
    assert outcome.gave_up and not outcome.complete


def test_nested_monte_carlo_search_of_the_puzzles_depth_is_exhaustive(needle) -> None:
    for seed in range(3):
        line = _last_line(nmcs.nested(needle.initial_state(), 4, random.Random(seed)))
        assert line.goal == 100 and line_goal(needle.initial_state(), line.moves) == 100


def test_nrpa_climbs_a_graded_puzzle_to_its_best_goal() -> None:
    game = game_from_text(GRADED, "graded")
    for seed in range(3):
        line = _last_line(nrpa.nested(game.initial_state(), 2, {}, random.Random(seed), 30))
        assert line == Line(100, ("(pick 0 b)", "(pick 1 c)", "(pick 2 c)", "(pick 3 a)"))


def test_nrpa_adapts_the_policy_towards_the_line() -> None:
    rollout = nrpa.Rollout(Line(100, ("x", "y")), (("x", "z"), ("y",)))
    policy = nrpa.adapt({}, rollout, alpha=1.0)
    assert policy == {"x": 0.5, "z": -0.5}  # y was the only move: nothing to learn


def test_the_best_line_is_only_replaced_by_a_better_one() -> None:
    best = BestLine()
    assert best.goal is None and best.next_move() is None
    assert best.offer(Line(50, ("a", "b", "c")))
    assert not best.offer(Line(40, ("x",)))
    assert not best.offer(Line(50, ("x", "y", "z", "w")))
    assert best.offer(Line(50, ("x", "y")))  # the same goal sooner
    assert best.offer(Line(100, ("b", "c", "d")))
    assert best.solved and best.next_move() == "b"
    best.played("b")
    assert best.line == Line(100, ("c", "d")) and best.solved
    best.played("d")  # not the line's move: the line no longer starts here
    assert best.line is None and not best.solved


class _Clock:
    """A clock that moves only when told to (or by `tick` on every reading)."""

    def __init__(self, tick: float = 0.0) -> None:
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_a_solved_puzzle_is_played_from_its_line_without_searching(needle) -> None:
    clock = _Clock(tick=1e-6)
    search = PuzzleSearch(needle.initial_state(), random.Random(1), clock=clock)
    assert search.search(deadline=10.0) > 0
    assert search.best.solved and search.done and search.first_top is not None
    state = needle.initial_state()
    for expected in ("(pick 0 c)", "(pick 1 a)", "(pick 2 b)", "(pick 3 c)"):
        move = search.move()
        assert move == expected
        state = state.next([move])
        search.advance(move, state)
        assert search.search(deadline=clock.now + 10.0) == 0  # nothing searched
    assert state.goals() == (100,)
    assert "best goal known 100" in search.describe()


def test_a_lower_optimum_proven_by_depth_first_search_ends_the_search() -> None:
    capped = game_from_text(CAPPED, "capped")
    search = PuzzleSearch(capped.initial_state(), random.Random(1), clock=_Clock(tick=1e-6))
    search.search(deadline=100.0)
    assert search.settled and search.best.goal == 70
    assert "proven optimal" in search.describe()


def test_another_move_than_the_lines_forgets_it_and_searches_again(needle) -> None:
    clock = _Clock(tick=1e-6)
    search = PuzzleSearch(needle.initial_state(), random.Random(1), clock=clock)
    search.search(deadline=10.0)
    assert search.move() == "(pick 0 c)"
    state = needle.initial_state().next(["(pick 0 a)"])
    search.advance("(pick 0 a)", state)
    assert search.best.line is None and not search.done
    search.search(deadline=clock.now + 10.0)
    assert search.best.goal == 0 and search.settled  # 100 is out of reach now


def test_the_nmcs_and_nrpa_specs() -> None:
    agent = make_agent("nmcs:level=3,time=2", seed=1)
    assert isinstance(agent, NMCSAgent) and (agent.level, agent.time) == (3, 2.0)
    agent = make_agent("nrpa:level=1,iterations=50", seed=1)
    assert isinstance(agent, NRPAAgent) and (agent.level, agent.iterations) == (1, 50)
    assert make_agent("nrpa").level == 2 and make_agent("nrpa").iterations == 100


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nmcs:level=0", "option level must be int >= 1"),
        ("nmcs:iterations=5", "unknown option 'iterations'; options: level=N, time=SECONDS"),
        ("nrpa:iterations=0", "option iterations must be int >= 1"),
    ],
)
def test_bad_puzzle_specs_are_explained(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        make_agent(spec)


def test_the_puzzle_agents_play_games_of_one_role_only() -> None:
    with pytest.raises(GameError, match="games of one role"):
        make_agent("nmcs").start(load_game("tictactoe"), 0)


@pytest.mark.parametrize("spec", ["nmcs:level=4", "nrpa:level=2,iterations=30"])
def test_the_puzzle_agents_solve_a_tiny_puzzle_in_a_match(spec: str) -> None:
    game = game_from_text(GRADED, "graded")
    record = play_match(game, [make_agent(spec, seed=2)])
    assert record.goals == (100,)


QUITTING = NEEDLE.replace(
    "(<= terminal (true (step 4)))",
    """(<= terminal (true (step 4)))
    (<= terminal (true quit))
    (<= (legal solver quit) (not terminal))
    (<= (next quit) (does solver quit))""",
)
"""`NEEDLE` with a move that ends the game at once, at 0 (as futoshiki's ``quit``):
the goal, 0 in every state until the end, never falls, so it is no bound."""


def test_a_goal_that_never_falls_is_no_cut_off_and_proves_nothing() -> None:
    game = game_from_text(QUITTING, "quitting")
    profiled = profile(game, random.Random(1))
    assert not profiled.bounded and profiled.length is None
    search = PuzzleSearch(game.initial_state(), random.Random(1), _Clock(1e-6), profiled)
    search.search(deadline=100.0)
    assert search.best.goal == 100 and search.move() == "(pick 0 c)"


TOUR = """
(role walker)
(init (at s))
(init (visited s))
(edge s a) (edge s b) (edge b a) (edge a z)
(<= (adjacent ?x ?y) (edge ?x ?y))
(<= (adjacent ?x ?y) (edge ?y ?x))
(<= (legal walker (go ?y)) (true (at ?x)) (adjacent ?x ?y))
(<= (next (at ?y)) (does walker (go ?y)))
(<= (next (visited ?y)) (does walker (go ?y)))
(<= (next (visited ?x)) (true (visited ?x)))
(<= (next revisited) (does walker (go ?y)) (true (visited ?y)))
(<= toured (true (visited a)) (true (visited b)) (true (visited z)))
(<= terminal (true revisited))
(<= terminal toured)
(<= (goal walker 100) toured (not (true revisited)))
(<= (goal walker 0) (not toured))
(<= (goal walker 0) (true revisited))
"""
"""A tour of four squares from s: s b a z, and only it (s a ... leaves b or z unvisited)."""


def _fail_first_moves(state: State, moves: list[str]) -> list[str]:
    children = [(move, state.next_listed([move])) for move in moves]
    return [move for move, _ in dfs.fail_first(state, children)]


def test_fail_first_goes_where_the_onward_moves_are_fewest() -> None:
    state = game_from_text(TOUR, reasoner="compiled").initial_state()
    assert sorted(state.legal_moves(0)) == ["(go a)", "(go b)"]
    # after b one move goes on (to a); after a two do (to b, to z)
    assert _fail_first_moves(state, ["(go a)", "(go b)"]) == ["(go b)", "(go a)"]
    after_b = state.next_listed(["(go b)"])
    # s was visited (ends the game at 0), a goes on
    assert _fail_first_moves(after_b, ["(go s)", "(go a)"]) == ["(go a)", "(go s)"]
    search = dfs.iterative_deepening(state, order=dfs.fail_first, first_depth=10)
    lines = [line for line in search if line]
    assert lines[0] == Line(100, ("(go b)", "(go a)", "(go z)"))


def test_the_portfolio_finds_the_corpus_knights_tour_by_fail_first() -> None:
    """knightsTour (6 x 5): 30 squares, each search of the portfolio but the
    fail-first one finds at best 29 in a play clock; fail-first, at its first try."""
    from pathlib import Path

    path = (
        Path(__file__).resolve().parents[2] / "shared" / "gdl-corpus" / "games" / "knightsTour.kif"
    )
    if not path.exists():
        pytest.skip("../shared/gdl-corpus is absent")
    state = game_from_text(path.read_text(), reasoner="compiled").initial_state()
    expanded = 0
    for line in dfs.iterative_deepening(state, order=dfs.fail_first, first_depth=10_000):
        expanded += 1
        if line is not None and line.goal == 100:
            break
    assert line is not None and line.goal == 100 and len(line.moves) == 30
    assert expanded < 100


def _walk(goal_rules: str) -> str:
    """A walk along seven squares, 0 to 6, from 0: a move a step to either side or a
    wait, a step counter, the game over on square 5 or after 12 moves."""
    succ = "\n".join(f"(succ {i} {i + 1})" for i in range(12))
    right = "\n".join(f"(right {i} {i + 1})" for i in range(6))
    return f"""
    (role walker)
    (init (at 0))
    (init (step 0))
    {succ}
    {right}
    (<= (legal walker (go ?y)) (true (at ?x)) (right ?x ?y))
    (<= (legal walker (go ?y)) (true (at ?x)) (right ?y ?x))
    (legal walker wait)
    (<= (next (at ?y)) (does walker (go ?y)))
    (<= (next (at ?x)) (does walker wait) (true (at ?x)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= arrived (true (at 5)))
    (<= terminal arrived)
    (<= terminal (true (step 12)))
    {goal_rules}
    """


ON_TIME = _walk(
    """
    (<= (goal walker 100) arrived (true (step 5)))
    (<= (goal walker 99) arrived (not (true (step 5))))
    (<= (goal walker 0) (not arrived))
    """
)
"""100 for arriving at the 5th move (the shortest line), 99 for arriving later (the
eight puzzle's goal, which reads the step counter)."""

ANY_TIME = _walk(
    """
    (<= (goal walker 100) arrived)
    (<= (goal walker 0) (not arrived))
    """
)


def test_the_profile_finds_the_step_counter_and_whether_the_goal_reads_it() -> None:
    on_time = game_from_text(ON_TIME, "on_time", reasoner="compiled")
    profiled = profile(on_time, random.Random(1))
    texts = on_time.compiled.base_texts
    counted = {texts[i] for i in range(len(texts)) if profiled.counters >> i & 1}
    assert counted == {f"(step {i})" for i in range(13)}
    assert profiled.length_matters
    any_time = game_from_text(ANY_TIME, "any_time", reasoner="compiled")
    assert not profile(any_time, random.Random(1)).length_matters
    # a step counter, but no position is reached again at another step
    assert not profile(game_from_text(NEEDLE, reasoner="compiled"), random.Random(1)).length_matters


def test_breadth_first_finds_the_shortest_line_holding_positions_not_steps() -> None:
    game = game_from_text(ON_TIME, "on_time", reasoner="compiled")
    counters = profile(game, random.Random(1)).counters
    state = game.initial_state()
    # squares 0 to 5: six positions; with the counter in them, states at each step
    line = _last_line(breadth_first(state, counters, max_states=7))
    assert line == Line(100, tuple(f"(go {i})" for i in range(1, 6)))
    assert line_goal(state, line.moves) == 100
    assert not any(breadth_first(state, 0, max_states=7))  # gave up before square 5
    search = PuzzleSearch(state, random.Random(1), _Clock(1e-6), profile(game, random.Random(1)))
    assert "breadth-first" in [turn.name for turn in search._turns]


def test_fail_first_is_left_out_where_it_would_order_nothing() -> None:
    few = game_from_text(NEEDLE, reasoner="compiled")
    search = PuzzleSearch(few.initial_state(), random.Random(1), _Clock(1e-6))
    assert "fail-first" in [turn.name for turn in search._turns]
    letters = " ".join(f"x{i}" for i in range(dfs.FAIL_FIRST_MOVES + 1))
    many = game_from_text(_picks(NEEDLE_GOAL, letters), reasoner="compiled")
    search = PuzzleSearch(many.initial_state(), random.Random(1), _Clock(1e-6))
    assert "fail-first" not in [turn.name for turn in search._turns]


def test_a_kept_table_spares_the_depth_first_search_what_it_searched_before() -> None:
    capped = game_from_text(CAPPED, "capped")
    state = capped.initial_state()
    table = dfs.Table()
    _last_line(dfs.iterative_deepening(state, table=table, first_depth=4))
    child = state.next_listed(["(pick 0 a)"])
    outcome = dfs.Outcome()
    assert list(dfs.iterative_deepening(child, outcome, table=table, first_depth=3)) == []
    assert outcome.complete  # read from the table: nothing expanded
    fresh = dfs.Outcome()
    assert list(dfs.iterative_deepening(child, fresh, first_depth=3)) and fresh.complete


def test_the_puzzle_search_keeps_its_depth_first_table_across_moves() -> None:
    game = game_from_text(CAPPED, "capped")
    clock = _Clock(1e-6)
    search = PuzzleSearch(game.initial_state(), random.Random(1), clock)
    search._turns = [turn for turn in search._turns if turn.name == "dfs"]
    search.search(deadline=clock.now + 2e-5)  # part of the way
    assert not search.done and search._dfs_table.entries
    kept = dict(search._dfs_table.entries)
    move = search.move()
    search.advance(move, game.initial_state().next_listed([move]))
    assert "dfs" in [turn.name for turn in search._turns]
    assert kept.items() <= search._dfs_table.entries.items()
