"""The tactical search for forced wins and losses (`ggp.player.search.tactics`), and in
the search worker of `ggp serve`."""

from __future__ import annotations

import random
import time

import pytest
from gdl_texts import PENNIES, TICTACTOE
from ggp.games.base import Game, GameDefinitionError, State
from ggp.games.breakthrough import Breakthrough
from ggp.games.connect_four import ConnectFour
from ggp.gdl.load import game_from_text
from ggp.player.search.mcts import MCTS
from ggp.player.search.tactics import Tactics, Verdict
from ggp.player.service import served_tactics
from ggp.player.service.search_worker import PONDER_SLICE, SearchWorker
from ggp.player.service.served_tactics import TACTICS_REPLIES, likely_replies
from perfect_play import value
from test_mcts import TICTACTOE as TICTACTOE_GAME

SURE_WIN = """
; Both roles choose at once, once: left wins by playing Win, whatever right plays.
(role left) (role right)
(init (step 0))
(<= (legal left Win) (true (step 0)))
(<= (legal left Lose) (true (step 0)))
(<= (legal right A) (true (step 0)))
(<= (legal right B) (true (step 0)))
(<= (next (won)) (does left Win))
(<= (next (step 1)) (true (step 0)))
(<= terminal (true (step 1)))
(<= (goal left 100) (true (won)))
(<= (goal left 0) (not (true (won))))
(<= (goal right 0) (true (won)))
(<= (goal right 100) (not (true (won))))
"""

GUESS = """
; Both roles choose at once, once: left's Risky wins against Idle and loses against
; Guard; its Safe draws.
(role left) (role right)
(init (step 0))
(<= (legal left Risky) (true (step 0)))
(<= (legal left Safe) (true (step 0)))
(<= (legal right Guard) (true (step 0)))
(<= (legal right Idle) (true (step 0)))
(<= (next (step 1)) (true (step 0)))
(<= (next (safe)) (does left Safe))
(<= (next (caught)) (does left Risky) (does right Guard))
(<= terminal (true (step 1)))
(<= (goal left 50) (true (safe)))
(<= (goal left 0) (true (caught)))
(<= (goal left 100) (not (true (safe))) (not (true (caught))))
(<= (goal right 50) (true (safe)))
(<= (goal right 100) (true (caught)))
(<= (goal right 0) (not (true (safe))) (not (true (caught))))
"""


def after(game: Game, moves: list[str]) -> State:
    """`game`'s state after `moves`, one a turn, each by the one role with a choice."""
    state = game.initial_state()
    for move in moves:
        legal = state.all_legal_moves()
        state = state.next([move if move in options else options[0] for options in legal])
    return state


def mover(state: State) -> int:
    return next(role for role, moves in enumerate(state.all_legal_moves()) if len(moves) > 1)


def analysed(state: State, role: int | None = None, budget: int = 1_000_000, **options) -> Verdict:
    role = mover(state) if role is None else role
    return Tactics(role).analyse(state, time.monotonic() + 60, budget, **options)


def mcts_choices(state: State, iterations: int, seeds: int) -> list[str]:
    """The moves of MCTS-Solver (c=0.35, as served) with `iterations`, one a seed."""
    role = mover(state)
    moves = []
    for seed in range(seeds):
        search = MCTS(state, c=0.35, solver=True, rng=random.Random(seed))
        search.search(iterations=iterations)
        moves.append(search.best_move(role))
    return moves


def random_states(game: Game, count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        state = game.initial_state()
        for _ in range(rng.randrange(8)):
            if state.is_terminal():
                break
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
        if not state.is_terminal():
            yield state


def test_every_proof_holds_under_perfect_play() -> None:
    """Tic-tac-toe: after a move proven to win, perfect play gives the mover 100;
    after one proven to lose, 0; at every depth the search is cut at."""
    wins = losses = 0
    for state in random_states(TICTACTOE_GAME, 150, seed=3):
        role = mover(state)
        for depth in (1, 3, 5):
            verdict = analysed(state, max_depth=depth)
            joint = ["noop", "noop"]
            for move in verdict.moves:
                joint[role] = move
                truth = value(state.next(joint))[role]
                if move in verdict.wins:
                    assert truth == 100 and verdict.wins[move] <= depth, state.render()
                    wins += 1
                if move in verdict.losses:
                    assert truth == 0 and verdict.losses[move] <= depth, state.render()
                    losses += 1
    assert wins > 50 and losses > 50


def test_the_depth_limits_what_is_found() -> None:
    """X wins in three plies by either of two double threats, not sooner."""
    state = after(TICTACTOE_GAME, ["(mark 1 1)", "(mark 1 2)", "(mark 2 2)", "(mark 3 3)"])
    assert analysed(state, max_depth=2).wins == {}
    verdict = analysed(state, max_depth=3)
    assert verdict.wins == {"(mark 2 1)": 3, "(mark 3 1)": 3}
    assert verdict.allowed() == ["(mark 2 1)", "(mark 3 1)"]
    assert "wins within 3 plies" in verdict.describe()


CONNECT_FOUR_WIN = [
    *("(drop 4)", "(drop 2)", "(drop 3)", "(drop 7)", "(drop 6)", "(drop 3)"),
    *("(drop 2)", "(drop 3)", "(drop 3)", "(drop 5)", "(drop 4)", "(drop 2)"),
    *("(drop 3)", "(drop 1)", "(drop 7)", "(drop 6)", "(drop 7)", "(drop 5)"),
]
"""Connect Four, red to move: (drop 4) wins within five plies, the only move that does."""

CONNECT_FOUR_THREAT = [
    *("(drop 7)", "(drop 6)", "(drop 2)", "(drop 2)", "(drop 6)", "(drop 6)", "(drop 3)"),
]
"""Connect Four, white to move: four of its seven moves let red win within its next two."""

BREAKTHROUGH_WIN = [
    *("(move 7 2 6 3)", "(move 4 7 5 6)", "(move 1 2 1 3)", "(move 3 7 2 6)"),
    *("(move 2 1 1 2)", "(move 8 7 8 6)", "(move 6 2 7 3)", "(move 7 8 8 7)"),
    *("(move 5 2 5 3)", "(move 2 6 2 5)", "(move 6 3 7 4)", "(move 2 5 2 4)"),
    *("(move 4 1 5 2)", "(move 1 7 1 6)", "(move 8 1 7 2)", "(move 7 7 6 6)"),
    *("(move 5 3 5 4)", "(move 5 6 6 5)", "(move 7 3 8 4)", "(move 6 7 5 6)"),
    *("(move 5 2 6 3)", "(move 6 6 5 5)", "(move 1 2 2 3)", "(move 2 7 3 6)"),
    *("(move 8 2 7 3)", "(move 5 8 4 7)", "(move 5 4 6 5)", "(move 2 4 1 3)"),
    "(move 6 5 7 6)",
]
"""Breakthrough, black to move: (move 1 3 1 2) wins within three plies."""

BREAKTHROUGH_THREAT = [
    *("(move 5 2 4 3)", "(move 3 7 2 6)", "(move 4 2 5 3)", "(move 4 7 3 6)"),
    *("(move 1 2 2 3)", "(move 3 6 2 5)", "(move 3 1 4 2)", "(move 2 6 3 5)"),
    *("(move 6 2 6 3)", "(move 4 8 4 7)", "(move 6 3 7 4)", "(move 8 7 7 6)"),
    *("(move 7 2 6 3)", "(move 2 7 1 6)", "(move 6 3 5 4)", "(move 6 7 5 6)"),
    *("(move 2 3 2 4)", "(move 3 8 3 7)", "(move 2 1 1 2)", "(move 5 6 5 5)"),
    *("(move 1 2 1 3)", "(move 5 5 6 4)", "(move 8 2 7 3)", "(move 3 5 3 4)"),
    *("(move 7 1 8 2)", "(move 4 7 4 6)", "(move 6 1 5 2)", "(move 2 5 1 4)"),
    *("(move 7 4 8 5)", "(move 7 8 6 7)", "(move 8 5 7 6)"),
]
"""Breakthrough, black to move: every move but (move 6 7 7 6), the capture, lets
white win within two of its moves."""


@pytest.mark.parametrize(
    ("game", "moves", "allowed"),
    [
        (ConnectFour(), CONNECT_FOUR_WIN, ["(drop 4)"]),
        (ConnectFour(), CONNECT_FOUR_THREAT, ["(drop 1)", "(drop 4)", "(drop 5)"]),
        (Breakthrough(), BREAKTHROUGH_WIN, ["(move 1 3 1 2)"]),
        (Breakthrough(), BREAKTHROUGH_THREAT, ["(move 6 7 7 6)"]),
    ],
    ids=["connect-four-win", "connect-four-threat", "breakthrough-win", "breakthrough-threat"],
)
def test_where_a_small_mcts_errs_the_tactics_choose_right(
    game: Game, moves: list[str], allowed: list[str]
) -> None:
    """Positions of built-in games where MCTS-Solver with 100 simulations plays a
    move that misses a forced win or walks into a forced loss for some seeds; the
    tactics' proofs leave only the right moves, whatever the search chose."""
    state = after(game, moves)
    verdict = analysed(state)
    assert verdict.allowed() == allowed
    choices = mcts_choices(state, 100, 10)
    assert set(choices) - set(allowed)  # the plain search errs
    ranked = list(state.all_legal_moves()[mover(state)])
    assert {verdict.choose(move, ranked) for move in choices} <= set(allowed)


def test_simultaneous_moves_are_not_read_as_turns() -> None:
    """Matching pennies: whoever moved second would win, but neither side sees the
    other's move, so nothing is proven for either role."""
    game = game_from_text(PENNIES)
    for role in (0, 1):
        verdict = analysed(game.initial_state(), role)
        assert verdict.wins == {} and verdict.losses == {} and not verdict.found
        assert verdict.depth >= 2  # the whole game was searched


def test_a_move_that_wins_against_every_simultaneous_reply_is_proven() -> None:
    """A win must hold whatever the others play at the same time, a loss needs one
    reply of theirs: left's Win wins and Lose loses; each of right's moves wins if
    left plays Lose, so neither is a win, and loses if left plays Win, so both are
    lost in the worst case, and nothing is avoided."""
    state = game_from_text(SURE_WIN).initial_state()
    left = analysed(state, 0)
    assert left.wins == {"Win": 1} and left.losses == {"Lose": 1}
    assert left.choose("Lose") == "Win"
    right = analysed(state, 1)
    assert right.wins == {} and right.losses == {"A": 1, "B": 1}
    assert right.allowed() is None and right.choose("B") == "B"


def test_a_move_lost_to_one_simultaneous_reply_is_avoided() -> None:
    """Left's Risky wins if right idles and loses if right guards (the reply right
    chooses without seeing it); Safe draws whatever right plays.  Risky's worst case
    is a loss, so it is avoided, as the matrix game's value says (Safe gets 50
    whatever right does; any mix with Risky gets less against Guard)."""
    state = game_from_text(GUESS).initial_state()
    left = analysed(state, 0)
    assert left.wins == {} and left.losses == {"Risky": 1}
    assert left.allowed() == ["Safe"] and left.choose("Risky") == "Safe"


def test_a_small_budget_stops_the_search_and_what_it_proves_holds() -> None:
    state = after(ConnectFour(), CONNECT_FOUR_WIN)
    small = analysed(state, budget=200)
    assert small.nodes <= 200 and small.depth < 5
    assert set(small.wins) <= {"(drop 4)"}


def test_the_table_keeps_what_was_proven_for_the_next_search() -> None:
    state = after(ConnectFour(), CONNECT_FOUR_WIN)
    tactics = Tactics(mover(state))
    first = tactics.analyse(state, time.monotonic() + 60, 1_000_000)
    again = tactics.analyse(state, time.monotonic() + 60, 1_000_000)
    assert again.wins == first.wins and again.nodes < first.nodes / 4


def compiled_only(rules: str) -> Game:
    """The rules compiled, without native code: the served search's few simulations
    then miss what the tests below need the tactics for, whatever the machine."""
    return game_from_text(rules, "tic-tac-toe", reasoner="compiled")


def search(worker: SearchWorker, role: int, iterations: int) -> dict:
    return worker.handle(
        {"cmd": "search", "role": role, "until": time.time() + 60, "iterations": iterations}
    )


def worker_at(tactics: bool, cells: list[str], native: bool = False) -> SearchWorker:
    """A search worker on tic-tac-toe (compiled rules, no exact solver) after `cells`;
    with `native`, the native code attached too once it is built (as served)."""
    worker = SearchWorker() if native else SearchWorker(build=compiled_only)
    load = {"cmd": "load", "rules": TICTACTOE, "traps": False, "races": False}
    worker.handle({**load, "tactics": tactics})
    worker.settle(120)
    for ply, cell in enumerate(cells):
        joint = [cell, "noop"] if ply % 2 == 0 else ["noop", cell]
        worker.handle({"cmd": "advance", "joint": joint})
    return worker


THREAT = ["(mark 2 2)", "(mark 1 3)", "(mark 2 3)"]
"""o to move must block (mark 2 1): every other move lets x complete its row."""


def test_the_served_search_blocks_a_threat_its_few_simulations_miss(capsys) -> None:
    plain, tactical = set(), set()
    overridden = 0
    for seed in range(12):
        for on, found in ((False, plain), (True, tactical)):
            worker = worker_at(on, THREAT)
            worker.rng.seed(seed)
            capsys.readouterr()
            answer = search(worker, 1, 8)
            found.add(answer["move"])
            said = capsys.readouterr().err
            if on:
                assert answer["tactics"].startswith("5 of 6 moves lose within 2 plies")
                rows = {row[0]: row for row in answer["stats"]}
                assert rows["(mark 1 1)"][4] == 0.0 and rows["(mark 2 1)"][4] == 1.0
                # the serve log says where the tree's own choice was proven lost
                favourite = worker.tree.best_move(1)
                override = (
                    f"the tactics overrode the search at move 3: {favourite} loses within 2 "
                    "plies, (mark 2 1) played instead"
                )
                assert (override in said) == (favourite != "(mark 2 1)")
                overridden += favourite != "(mark 2 1)"
            else:
                assert answer["tactics"] == "" and "overrode" not in said
    assert plain - {"(mark 2 1)"}
    assert tactical == {"(mark 2 1)"}
    assert overridden > 0


def test_the_served_search_plays_a_proven_win_at_once() -> None:
    worker = worker_at(True, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"])
    answer = search(worker, 0, 100_000)
    assert answer["move"] == "(mark 1 3)" and answer["sims"] == 0
    assert answer["proven"] == 100 and "wins within 1 ply" in answer["tactics"]


def test_every_move_lost_to_a_guessed_reply_is_not_a_proven_loss() -> None:
    """Matching pennies after a first round left did not match: each of left's coins
    now loses (0) to one reply of right's, which right must guess: the answer says so,
    and proves no goal of 0."""
    worker = SearchWorker(build=compiled_only)
    worker.handle(
        {"cmd": "load", "rules": PENNIES, "traps": False, "races": False, "tactics": True}
    )
    worker.settle(120)
    worker.handle({"cmd": "advance", "joint": ["Heads", "Tails"]})
    answer = search(worker, 0, 200)
    assert answer["tactics"].startswith("2 of 2 moves lose within 1 ply (every move)")
    assert answer["proven"] is None


def ponder_tactics(worker: SearchWorker) -> bool:
    """A slice of pondering given to the tactics, as `SearchWorker.ponder` gives one."""
    assert worker.tree is not None
    return worker.tactics.ponder(worker.tree, worker.steps, time.monotonic() + PONDER_SLICE)


def test_pondering_searches_the_likeliest_replies_for_our_next_move() -> None:
    """After our move, the tactics search the positions after the opponent's most
    visited replies while pondering; at our next move the table knows them."""
    worker = worker_at(True, [], native=True)
    # the native code built in the background first, so that every search here runs on
    # the same rules (a table filled in Python is not the native library's)
    build = getattr(worker.tree.root_state.game, "native_build", None)
    if build is not None:
        build.join(120)
    worker.take_better_search()
    assert not ponder_tactics(worker)  # nothing searched for us yet
    worker.rng.seed(1)
    answer = search(worker, 0, 300)  # as x: the tactics are ours
    assert not ponder_tactics(worker)  # our move: no replies to look at
    # the move chosen, searched most: after a fixed move (mark 2 2) the subtree once
    # held a single reply visited (a clean clone's CI run, cause not found)
    worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]})
    assert worker.tree is not None and worker.tactics.search is not None
    replies = likely_replies(worker.tree, 0, TACTICS_REPLIES)
    assert len(replies) == TACTICS_REPLIES
    searched = 0
    while ponder_tactics(worker):
        searched += 1
    assert searched >= TACTICS_REPLIES and worker.tactics.replies == []
    for state in replies:  # each finished: every child of the position is in the table
        verdict = worker.tactics.search.analyse(state, time.monotonic() + 60, 1_000_000)
        # (native code makes the position's children again at each depth, for each question)
        native = worker.tactics.search.native_rules(state) is not None
        looked_up = len(verdict.moves) * (2 * verdict.depth if native else 1)
        assert verdict.finished and verdict.nodes <= looked_up


def test_one_move_searched_alone_proves_what_holds_and_what_the_whole_search_proves() -> None:
    """Tic-tac-toe: `only` proves nothing of the other moves; of its move, what the
    search of every move proves, within the same plies (and more where that search
    stopped at a faster win of another move), and only what perfect play confirms.
    A move not legal is refused."""
    proven = 0
    for state in random_states(TICTACTOE_GAME, 40, seed=7):
        role = mover(state)
        whole = analysed(state, max_depth=5)
        for move in whole.moves:
            alone = analysed(state, max_depth=5, only=move)
            assert alone.moves == whole.moves
            assert set(alone.wins) | set(alone.losses) <= {move}
            for mine, theirs in ((alone.wins, whole.wins), (alone.losses, whole.losses)):
                if move in theirs:
                    assert mine[move] == theirs[move]
            joint = ["noop", "noop"]
            joint[role] = move
            truth = value(state.next(joint))[role]
            assert move not in alone.wins or truth == 100
            assert move not in alone.losses or truth == 0
            proven += move in alone.wins or move in alone.losses
    assert proven > 20
    with pytest.raises(ValueError, match="not a legal move"):
        analysed(TICTACTOE_GAME.initial_state(), only="(mark 4 4)")


def test_the_check_searches_the_favourite_then_the_next_until_one_is_not_lost() -> None:
    """o must block x's row: a search of every move stopped at once proves nothing;
    the check proves the favourite lost, then searches the next, the block, and stops
    there (not proven lost), and the verdict then plays the block."""
    state = after(TICTACTOE_GAME, THREAT)
    tactics = Tactics(1)
    nothing = tactics.analyse(state, time.monotonic() - 1, 1_000_000)
    assert not nothing.found and not nothing.finished and len(nothing.moves) == 6
    ranked = ["(mark 1 1)", "(mark 2 1)", "(mark 3 3)"]
    checked = tactics.check(state, nothing, ranked, time.monotonic() + 60, 1_000_000)
    assert checked.losses == {"(mark 1 1)": 2} and checked.wins == {}
    assert checked.choose("(mark 1 1)", ranked) == "(mark 2 1)"
    assert checked.nodes > nothing.nodes
    # the block first: searched, not lost, nothing else searched
    first = tactics.check(state, nothing, ranked[1:], time.monotonic() + 60, 1_000_000)
    assert not first.found
    # no time left: nothing searched
    late = tactics.check(state, nothing, ranked, time.monotonic() - 1, 1_000_000)
    assert late == nothing


def test_the_served_search_checks_its_favourite_where_the_tactics_did_not_finish(
    capsys, monkeypatch
) -> None:
    """With no time for the tactics before the search, the check after it proves the
    tree's favourite lost where it is, and the block is played every time."""
    monkeypatch.setattr(served_tactics, "TACTICS_SHARE", 0.0)
    played, checked = set(), 0
    for seed in range(12):
        worker = worker_at(True, THREAT)
        worker.rng.seed(seed)
        capsys.readouterr()
        answer = search(worker, 1, 8)
        said = capsys.readouterr().err
        played.add(answer["move"])
        favourite = worker.tree.best_move(1)
        if favourite != "(mark 2 1)":
            assert "the check at move 3 proved: " in said  # the favourite, maybe more
            assert " of 6 moves lose within 2 plies" in said
            assert f"overrode the search at move 3: {favourite} loses within 2 plies" in said
            checked += 1
        else:
            assert "the check" not in said
    assert played == {"(mark 2 1)"} and checked > 0


def test_rules_that_break_in_the_check_stop_the_tactics_and_the_move_is_answered(
    capsys, monkeypatch
) -> None:
    monkeypatch.setattr(served_tactics, "TACTICS_SHARE", 0.0)
    worker = worker_at(True, THREAT)
    search(worker, 1, 8)  # the tactics made, and searched

    def broken(*args: object) -> None:
        raise GameDefinitionError("no legal move for o")

    assert worker.tactics.search is not None
    monkeypatch.setattr(worker.tactics.search, "check", broken)
    capsys.readouterr()
    answer = search(worker, 1, 8)
    assert answer["move"] in worker.tree.root_state.legal_moves(1)
    assert "the tactics stop: no legal move for o" in capsys.readouterr().err
    assert not worker.tactics.on
