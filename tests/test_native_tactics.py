"""The tactical search in the game's native library (`ggp.gdl.native.tactics`) and its
use by `ggp.player.search.tactics.Tactics` where a state is native."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from gdl_texts import PENNIES, TICTACTOE
from ggp.gdl.compiled.compiled_game import CompiledGame, CompiledState
from ggp.gdl.native.locality import _bit_counts, _more_than, touch_masks
from ggp.gdl.native.tactics import Found, NativeTactics, deepest, frame_bytes
from ggp.gdl.syntax.terms import to_kif
from ggp.player.search.tactics import Tactics, Verdict
from perfect_play import value
from test_gdl_native import library_cache, native_game, needs_native  # noqa: F401
from test_tactics import GUESS, SURE_WIN, after, mover, random_states

pytestmark = needs_native

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "gdl-corpus" / "games"

LOST_CONNECT_FOUR = (
    Path(__file__).resolve().parents[1]
    / "docs/strength/logs/head-29th/c4a/connectFour.20261205T052608.6630db.0.json"
)
"""A Connect Four match our player (the first role) lost to Sancho (a log of the
repository: the rules are in it)."""


def native(text: str, name: str) -> CompiledGame:
    return native_game(text, name)[1]


def both(state: CompiledState, role: int, depth: int, budget: int = 10**7) -> tuple[Verdict, ...]:
    """The verdicts of the native search and of the search in Python."""
    deadline = time.monotonic() + 120
    return tuple(
        Tactics(role, native=use).analyse(state, deadline, budget, max_depth=depth)
        for use in (True, False)
    )


def test_the_native_search_is_used_on_native_states() -> None:
    game = native(TICTACTOE, "ticTacToe")
    state = game.initial_state()
    assert Tactics(0).native_rules(state) is game.native
    assert Tactics(0, native=False).native_rules(state) is None


def test_native_proofs_hold_under_perfect_play_and_agree_with_python() -> None:
    """Tic-tac-toe: after a move proven to win, perfect play gives the mover 100;
    after one proven to lose, 0; and the native search proves exactly what the
    search in Python proves, within the same plies, at each depth it is cut at."""
    game = native(TICTACTOE, "ticTacToe")
    wins = losses = 0
    for state in random_states(game, 80, seed=5):
        assert isinstance(state, CompiledState)
        role = mover(state)
        for depth in (1, 2, 3, 5, 9):
            fast, slow = both(state, role, depth)
            assert (fast.wins, fast.losses) == (slow.wins, slow.losses)
            # every line ended within fast.depth: deeper, nothing more to prove
            assert fast.depth <= slow.depth and fast.finished and fast.moves == slow.moves
            joint = ["noop", "noop"]
            for move in fast.moves:
                joint[role] = move
                truth = value(state.next(joint))[role]
                if move in fast.wins:
                    assert truth == 100 and fast.wins[move] <= depth, state.render()
                    wins += 1
                if move in fast.losses:
                    assert truth == 0 and fast.losses[move] <= depth, state.render()
                    losses += 1
    assert wins > 30 and losses > 30


def test_one_move_searched_alone_agrees_with_python_and_with_the_whole_search() -> None:
    """`only` in native code proves what the search in Python proves of that move alone,
    and, of the move, what its search of every move proves; a move index past the
    legal moves searches nothing."""
    game = native(TICTACTOE, "ticTacToe")
    proven = 0
    for state in random_states(game, 30, seed=11):
        assert isinstance(state, CompiledState)
        role = mover(state)
        whole = both(state, role, 5)[0]
        for move in whole.moves:
            deadline = time.monotonic() + 120
            fast, slow = (
                Tactics(role, native=use).analyse(state, deadline, 10**7, 5, only=move)
                for use in (True, False)
            )
            assert (fast.wins, fast.losses) == (slow.wins, slow.losses)
            assert set(fast.wins) | set(fast.losses) <= {move}
            for mine, theirs in ((fast.wins, whole.wins), (fast.losses, whole.losses)):
                if move in theirs:
                    assert mine[move] == theirs[move]
            proven += bool(fast.found)
        assert game.native is not None
        search = NativeTactics(game.native, role)
        past = len(whole.moves)
        assert search.search(state.bits, 5, 1000, time.monotonic() + 60, only=past) is None
    assert proven > 15


def test_local_proofs_hold_and_full_width_ones_include_them() -> None:
    """The local search alone (all of the budget) proves only what holds under perfect
    play, and nothing the full-width search to the same depth misses."""
    game = native(TICTACTOE, "ticTacToe")
    local_proofs = 0
    for state in random_states(game, 60, seed=7):
        assert isinstance(state, CompiledState)
        role = mover(state)
        deadline = time.monotonic() + 120
        local = Tactics(role, local_share=1.0).analyse(state, deadline, 10**7, max_depth=5)
        assert local.depth == 0  # the full-width search had no time
        full = Tactics(role, local_share=0.0).analyse(state, deadline, 10**7, max_depth=5)
        joint = ["noop", "noop"]
        for proofs, full_proofs, goal in (
            (local.wins, full.wins, 100),
            (local.losses, full.losses, 0),
        ):
            for move, plies in proofs.items():
                joint[role] = move
                assert value(state.next(joint))[role] == goal, state.render()
                assert full_proofs[move] <= plies
                local_proofs += 1
    assert local_proofs > 20


def test_a_threat_left_open_is_a_loss_within_two_plies() -> None:
    """O must block the row X threatens: every other move loses within two plies."""
    game = native(TICTACTOE, "ticTacToe")
    state = after(game, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)"])
    assert isinstance(state, CompiledState) and mover(state) == 1
    fast, slow = both(state, 1, 2)
    assert fast.losses == slow.losses
    assert set(fast.moves) - set(fast.losses) == {"(mark 1 3)"}
    assert set(fast.losses.values()) == {2}
    assert fast.allowed() == ["(mark 1 3)"]


def test_simultaneous_moves_are_not_read_as_turns() -> None:
    pennies = native(PENNIES, "pennies").initial_state()
    for role in (0, 1):
        assert not Tactics(role).analyse(pennies, time.monotonic() + 60, 10**6).found
    sure = native(SURE_WIN, "sureWin").initial_state()
    verdict = Tactics(0).analyse(sure, time.monotonic() + 60, 10**6)
    assert verdict.wins == {"Win": 1} and verdict.losses == {"Lose": 1}
    # right wins only if left plays Lose: no win; each of its moves loses if left plays Win
    right = Tactics(1).analyse(sure, time.monotonic() + 60, 10**6)
    assert right.wins == {} and right.losses == {"A": 1, "B": 1} and right.allowed() is None
    guess = native(GUESS, "guess").initial_state()
    left = Tactics(0).analyse(guess, time.monotonic() + 60, 10**6)
    assert left.losses == {"Risky": 1} and left.allowed() == ["Safe"]


def test_a_budget_stops_the_search_and_the_table_serves_the_next() -> None:
    game = native(TICTACTOE, "ticTacToe")
    state = game.initial_state()
    tactics = Tactics(0)
    small = tactics.analyse(state, time.monotonic() + 60, 500)
    assert not small.finished and small.nodes <= 500
    whole = tactics.analyse(state, time.monotonic() + 60, 10**7)
    assert whole.finished and whole.depth == 9 and not whole.found  # a draw, searched whole
    again = tactics.analyse(state, time.monotonic() + 60, 10**7)
    assert again.finished and again.nodes < whole.nodes / 10


def lost_connect_four(step: int) -> CompiledState:
    """The position at `step` of `LOST_CONNECT_FOUR`, on native code."""
    log = json.loads(LOST_CONNECT_FOUR.read_text())
    state = native(log["x-rules"], "connectFour").initial_state()
    for joint in log["moves"][:step]:
        state = state.next_listed(joint)
    assert isinstance(state, CompiledState)
    return state


def test_the_deepening_goes_past_twenty_plies_where_the_lines_are_narrow() -> None:
    """At step 24 of a lost Connect Four match every move loses within 24 plies: the
    deepening, capped at 20 plies before, stopped there in half a second, proving
    nothing, and the move's check was skipped (the search had finished)."""
    state = lost_connect_four(24)
    verdict = Tactics(0, local_share=0.0).analyse(state, time.monotonic() + 300, 4_000_000)
    assert verdict.finished and len(verdict.losses) == len(verdict.moves) == 5
    assert max(verdict.losses.values()) > 20
    capped = Tactics(0, local_share=0.0).analyse(
        state, time.monotonic() + 300, 4_000_000, max_depth=20
    )
    assert capped.depth == 20 and not capped.found


def test_the_searches_keep_their_recursion_within_its_stack() -> None:
    """Neither search goes deeper than `NativeTactics.deepest` plies, whatever it is
    asked: the deepening stops there, and proof numbers count a longer path as out
    of reach (a loss 24 plies deep is not proven within 10)."""
    game = native(TICTACTOE, "ticTacToe")
    assert NativeTactics(game.native, 0).deepest == deepest(game.native) >= 64
    assert deepest(game.native, 3 * frame_bytes(game.native)) == 3
    state = lost_connect_four(24)
    assert state.game.native is not None
    for most, proven in ((10, False), (deepest(state.game.native), True)):
        search = NativeTactics(state.game.native, 0)
        search.deepest = most
        found = search.search(state.bits, 60, 4_000_000, time.monotonic() + 300)
        assert found is not None and found.depth <= most
        proof = search.loss_proof(state.bits, 0, 4_000_000, time.monotonic() + 300)
        assert proof is not None and proof.finished and proof.proven == proven
        assert not proven or 20 < proof.plies <= most


def test_a_deadline_stops_the_search() -> None:
    game = native(TICTACTOE, "ticTacToe")
    verdict = Tactics(0).analyse(game.initial_state(), time.monotonic() - 1, 10**9)
    assert not verdict.finished and verdict.nodes <= 2 * 4096  # a look every 4096, each phase


def test_bad_input_is_refused_or_searches_nothing() -> None:
    game = native(TICTACTOE, "ticTacToe")
    assert game.native is not None
    with pytest.raises(ValueError, match="no role 2"):
        NativeTactics(game.native, 2)
    search = NativeTactics(game.native, 0, table_bytes=1 << 12)
    assert search.entries & (search.entries - 1) == 0
    state = after(game, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"])
    assert state.is_terminal()
    assert isinstance(state, CompiledState)
    assert search.search(state.bits, 5, 1000, time.monotonic() + 60) is None
    verdict = Tactics(0).analyse(state, time.monotonic() + 60, 1000)
    assert verdict.moves == () and not verdict.found


C4S_MATCH = (
    "45 44 45 54 55 46 54 45 57 26 77 83 41 43 38 55 42 25 71 76 67 76 "
    "12 51 72 17 77 87 84 86 18 31 13 11"
)
"""Red's and black's columns, step by step, of a match of simultaneous Connect Four lost
to Sancho (3 December): red drops on board 1 at even steps and on board 2 at odd ones,
black the other way round."""


@pytest.mark.skipif(
    not (CORPUS / "connectFourSimultaneous.kif").exists(), reason="no ../shared corpus"
)
def test_a_move_lost_to_the_reply_made_at_the_same_time_is_proven_lost() -> None:
    """At step 34 red's (drop 2 1) fills the square under black's row on board 1;
    black, at the same time, blocks red's row on board 2 and wins next step (with any
    other reply red would have completed its row too: a draw).  The move is lost
    within two plies in its worst case, in native code and in Python (the root's
    old rule, a loss against every reply, proved nothing here); so are the other
    two: the match was lost before, which the old rule could not see either."""
    game = native((CORPUS / "connectFourSimultaneous.kif").read_text(), "c4s")
    state = game.initial_state()
    for step, (red, black) in enumerate(C4S_MATCH.split()):
        boards = (1, 2) if step % 2 == 0 else (2, 1)
        state = state.next([f"(drop {red} {boards[0]})", f"(drop {black} {boards[1]})"])
    assert isinstance(state, CompiledState)
    for verdict in both(state, 0, 3, budget=10**6):
        assert verdict.losses == {"(drop 2 1)": 2, "(drop 3 1)": 2, "(drop 8 1)": 2}


@pytest.mark.skipif(not (CORPUS / "breakthrough.kif").exists(), reason="no ../shared corpus")
def test_breakthrough_positions_agree_with_python_and_go_deeper() -> None:
    """On corpus Breakthrough (a small table, so that entries are replaced) the two
    searches prove the same within 3 plies, and the native one searches deeper."""
    game = native((CORPUS / "breakthrough.kif").read_text(), "breakthrough")
    rng = random.Random(2)
    deeper = 0
    for _ in range(6):
        state = game.initial_state()
        for _ in range(rng.randrange(20, 50)):
            if state.is_terminal():
                break
            state = state.next_listed([rng.choice(moves) for moves in state.all_legal_moves()])
        if state.is_terminal():
            continue
        assert isinstance(state, CompiledState)
        role = mover(state)
        fast, slow = both(state, role, 3)
        assert (fast.wins, fast.losses, fast.depth) == (slow.wins, slow.losses, slow.depth)
        deep = Tactics(role).analyse(state, time.monotonic() + 60, 300_000)
        deeper += deep.depth > slow.depth or deep.found
    assert deeper >= 3


def test_a_move_touches_the_facts_it_reads_and_writes_not_whose_turn_it_is() -> None:
    """O's mark in a cell reads that the cell is blank and writes its o there; whose
    turn it is, every move reads (dropped), and the frame rules' reads of every move
    say nothing of where a move is (dropped too)."""
    game = native(TICTACTOE, "ticTacToe")
    network = game.compiled.network
    masks = touch_masks(network)
    assert masks is not None and len(masks) == len(network.inputs)
    for index, (role, move) in enumerate(network.inputs):
        if to_kif(role) != "oplayer" or to_kif(move) == "noop":
            continue
        cell = to_kif(move)[len("(mark ") : -1]
        touched = {
            to_kif(network.base[bit]) for bit in range(len(network.base)) if masks[index] >> bit & 1
        }
        assert touched == {f"(cell {cell} b)", f"(cell {cell} o)"}


def test_the_bits_more_than_a_limit_of_masks_have_are_counted_as_one_by_one() -> None:
    """The bit-sliced count of `_uncommon` against counting each bit of each mask."""
    rng = random.Random(3)
    for _ in range(300):
        width = rng.randint(1, 90)
        masks = [rng.getrandbits(width) for _ in range(rng.randint(0, 40))]
        limit = rng.randint(0, len(masks) + 2)
        counted = sum(1 << bit for bit in range(width) if sum(m >> bit & 1 for m in masks) > limit)
        assert _more_than(_bit_counts(masks), limit) == counted


def scripted_search(moves: int, calls: list[bool]):
    """A stand-in for `NativeTactics.search`: the full-width search and the local one
    each prove our first move lost and nothing more, without finishing (the calls,
    local or not, go to `calls`)."""

    def search(bits, depth, budget, deadline, local=False, only=None) -> Found:
        losses = [2] + [0] * (moves - 1)
        calls.append(local)
        return Found([0] * moves, losses, 10, 1, False)

    return search


def test_the_local_search_keeps_its_share_all_match(monkeypatch) -> None:
    """Twenty searches with a proof in which the local search proves nothing the full
    width has not: it runs in each of them all the same (on Breakthrough its first such
    proof came after hundreds of searches, docs/tactics.md)."""
    game = native(TICTACTOE, "ticTacToe")
    state = game.initial_state()
    assert isinstance(state, CompiledState)
    tactics = Tactics(0, local_share=0.5)
    tactics.analyse(state, time.monotonic() + 60, 1000, max_depth=1)  # the search made
    assert tactics.native is not None and tactics.native.touch is not None
    calls: list[bool] = []
    search = scripted_search(len(state.legal_moves(0)), calls)
    monkeypatch.setattr(tactics.native, "search", search)
    for _ in range(20):
        verdict = tactics.analyse(state, time.monotonic() + 60, 1000)
        assert "(mark 1 1)" in verdict.losses
    assert tactics.local_share == 0.5 and calls == [False, True] * 20


def test_proof_numbers_prove_every_lost_move_and_no_other() -> None:
    """Tic-tac-toe, searched to the end: a move is proven lost by proof numbers exactly
    where perfect play gives its mover 0, with the plies of a line that holds."""
    game = native(TICTACTOE, "ticTacToe")
    proven = 0
    for state in random_states(game, 60, seed=5):
        assert isinstance(state, CompiledState) and game.native is not None
        role = mover(state)
        search = NativeTactics(game.native, role)
        for index, move in enumerate(state.legal_moves(role)):
            joint = ["noop", "noop"]
            joint[role] = move
            truth = value(state.next(joint))[role]
            found = search.loss_proof(state.bits, index, 10**7, time.monotonic() + 60)
            assert found is not None and found.finished
            assert found.proven == (truth == 0), (state.render(), move)
            if found.proven:
                depth = Tactics(role).analyse(state, time.monotonic() + 60, 10**7, 9, only=move)
                assert 1 <= depth.losses[move] <= found.plies <= 9
                proven += 1
    assert proven > 50


def test_proof_numbers_read_simultaneous_moves_as_the_tactics_do() -> None:
    """A move loses if one move of the others at the same time holds it to 0."""
    for text, name, role, lost in (
        (SURE_WIN, "sureWin", 0, {"Lose"}),
        (SURE_WIN, "sureWin", 1, {"A", "B"}),
        (GUESS, "guess", 0, {"Risky"}),
        (PENNIES, "pennies", 0, set()),
    ):
        state = native(text, name).initial_state()
        assert isinstance(state, CompiledState) and state.game.native is not None
        search = NativeTactics(state.game.native, role)
        moves = state.legal_moves(role)
        proven = {
            move
            for index, move in enumerate(moves)
            if search.loss_proof(state.bits, index, 10**6, time.monotonic() + 60).proven
        }
        assert proven == lost, name


def test_proof_numbers_stop_at_their_budget_or_deadline_and_refuse_bad_input() -> None:
    game = native(TICTACTOE, "ticTacToe")
    assert game.native is not None
    state = game.initial_state()
    search = NativeTactics(game.native, 0)
    small = search.loss_proof(state.bits, 0, 50, time.monotonic() + 60)
    assert small is not None and not small.finished and not small.proven and small.nodes <= 50
    late = NativeTactics(game.native, 0).loss_proof(state.bits, 0, 10**9, time.monotonic() - 1)
    assert late is not None and not late.finished and late.nodes <= 256
    whole = search.loss_proof(state.bits, 0, 10**7, time.monotonic() + 60)
    assert whole is not None and whole.finished and not whole.proven  # a draw
    assert search.loss_proof(state.bits, 9, 1000, time.monotonic() + 60) is None  # 9 moves
    ended = after(game, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"])
    assert isinstance(ended, CompiledState)
    assert search.loss_proof(ended.bits, 0, 1000, time.monotonic() + 60) is None


def test_the_check_by_proof_numbers_proves_the_favourite_lost_and_plays_the_block() -> None:
    """o must block x's row: the check by proof numbers proves the favourite lost, then
    searches the block, not lost, and stops there."""
    game = native(TICTACTOE, "ticTacToe")
    state = after(game, ["(mark 1 1)", "(mark 2 2)", "(mark 1 2)"])
    tactics = Tactics(1, check_by="numbers")
    nothing = tactics.analyse(state, time.monotonic() + 60, 1)  # one state: nothing proven
    assert not nothing.found and not nothing.finished and len(nothing.moves) == 6
    ranked = ["(mark 3 3)", "(mark 1 3)"]
    checked = tactics.check(state, nothing, ranked, time.monotonic() + 60, 1_000_000)
    assert checked.losses == {"(mark 3 3)": 2} and checked.wins == {}
    assert checked.choose("(mark 3 3)", ranked) == "(mark 1 3)"
    assert checked.nodes > nothing.nodes


def test_the_check_by_both_deepens_first_then_asks_proof_numbers() -> None:
    """With `check_by` both, a loss the deepening proves within its quarter is its
    (plies from the deepening); a move it leaves unproven goes to proof numbers, which
    say it does not lose (the block), with the states of both counted."""
    game = native(TICTACTOE, "ticTacToe")
    state = after(game, ["(mark 1 1)", "(mark 2 2)", "(mark 1 2)"])
    tactics = Tactics(1, check_by="both")
    lost = tactics.check_alone(state, "(mark 3 3)", time.monotonic() + 60, 1_000_000)
    assert lost.losses == {"(mark 3 3)": 2} and lost.depth >= 2
    block = tactics.check_alone(state, "(mark 1 3)", time.monotonic() + 60, 1_000_000)
    assert not block.found and block.nodes > 0
    with pytest.raises(ValueError, match="no check by 'width'"):
        Tactics(1, check_by="width")
