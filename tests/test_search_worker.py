"""The search worker of a match: its commands in process, and as a process driven by asyncio."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import math
import os
import threading
import time
from pathlib import Path

import pytest
from gdl_texts import PENNIES, TICTACTOE
from ggp.games.base import GameError, State
from ggp.gdl.load import game_from_text
from ggp.player.search.tree import Node
from ggp.player.service import search_worker, served_parts
from ggp.player.service.search_worker import (
    NEVER,
    LineReader,
    SearchWorker,
    reasoner_of,
    serve,
    skip_full_collections,
)
from ggp.player.service.worker_client import WorkerClient, WorkerDied, WorkerError, WorkerTimeout
from test_gdl_game import RACE as TURN_RACE
from test_mcts_factored import RACE


def test_load_search_advance_in_process() -> None:
    worker = SearchWorker()
    assert worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False}) == {
        "roles": ["xplayer", "oplayer"]
    }
    worker.settle(120)
    answer = worker.handle(
        {"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 50}
    )
    assert answer["sims"] == 50 and answer["move"].startswith("(mark ")
    assert answer["reasoner"] == "compiled" or answer["reasoner"].startswith("native, ")
    assert worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]}) == {
        "terminal": False
    }
    assert (
        worker.handle({"cmd": "search", "role": 1, "until": time.time() + 10, "iterations": 20})[
            "sims"
        ]
        == 20
    )


def test_the_search_proves_wins_plays_them_and_answers_at_once() -> None:
    """x to move with (mark 1 3) winning: the solver proves it (lower bound 1),
    the move is played, and the proven root ends the search before the budget."""
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    worker.settle(120)
    for joint in (
        ["(mark 1 1)", "noop"],
        ["noop", "(mark 2 1)"],
        ["(mark 1 2)", "noop"],
        ["noop", "(mark 2 2)"],
    ):
        worker.handle({"cmd": "advance", "joint": joint})
    answer = worker.handle(
        {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 100_000}
    )
    assert answer["move"] == "(mark 1 3)"
    assert answer["sims"] < 100_000
    rows = {row[0]: row for row in answer["stats"]}
    assert rows["(mark 1 3)"][3:] == [1.0, 1.0] and answer["proven"] == 100


@pytest.mark.parametrize("rules", [TICTACTOE, PENNIES], ids=["turn-taking", "simultaneous"])
def test_searching_and_advancing_leave_no_cyclic_garbage(rules: str) -> None:
    """What lets a worker skip full collections: the trees it grows and drops
    are freed by reference counting alone."""
    worker = SearchWorker()
    roles = worker.handle({"cmd": "load", "rules": rules})["roles"]
    assert worker.tree is not None
    build = getattr(worker.tree.root.state.game, "native_build", None)
    if build is not None:
        build.join()
    games = {worker.tree.root_state.game}
    """The games this worker's trees were on (the interpreter's, the faster rules')."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds is kept in gc.garbage
    gc.disable()
    try:
        while not worker.tree.root.state.is_terminal():
            search = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 300}
            answer = worker.handle(search)
            games.add(worker.tree.root_state.game)
            joint = [answer["move"]] + [
                worker.tree.root.state.legal_moves(role)[0] for role in range(1, len(roles))
            ]
            worker.handle({"cmd": "advance", "joint": joint})
        gc.collect()
        # Objects of other tests may be found meanwhile: a worker is freed only by the
        # cyclic collector (its methods are its parts' callbacks), its tree with it, so
        # another test's worker released meanwhile is found here.  Only this worker's
        # trees must not be there.
        cyclic = [
            type(o).__name__
            for o in gc.garbage
            if (isinstance(o, Node) and o.state.game in games)
            or (isinstance(o, State) and o.game in games)
        ]
        assert cyclic == []
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


def test_skipping_full_collections_keeps_the_young_generations() -> None:
    before = gc.get_threshold()
    try:
        skip_full_collections()
        assert gc.get_threshold() == (*before[:2], NEVER)
    finally:
        gc.set_threshold(*before)


def test_the_answer_says_what_plays_the_rules() -> None:
    assert reasoner_of(game_from_text(TICTACTOE, reasoner="interpreter")) == "interpreter"
    compiled = game_from_text(TICTACTOE, reasoner="compiled")
    assert reasoner_of(compiled) == "compiled"
    native = game_from_text(TICTACTOE, reasoner="native")
    if native.native_build is not None:
        native.native_build.join()
    if native.native is None:
        pytest.skip("no native code here (cffi or a C compiler missing)")
    assert reasoner_of(native) == f"native, {native.playout_batch} playouts a leaf"


def test_a_node_limit_given_at_load_caps_the_tree() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "max_nodes": 4, "traps": False})
    worker.settle(120)
    search = {"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 50}
    answer = worker.handle(search)
    assert (answer["sims"], answer["nodes"]) == (50, 4)
    worker.handle({"cmd": "advance", "joint": [answer["move"], "noop"]})
    answer = worker.handle({**search, "role": 1})
    assert (answer["sims"], answer["nodes"]) == (50, 4)
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    worker.settle(120)
    # a fresh deadline: on a loaded machine the rules' second build may outlast the first
    assert worker.handle({**search, "until": time.time() + 60})["nodes"] == 51


def test_the_final_choice_given_at_load_ranks_the_answer() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False, "final": "lower"})
    worker.settle(120)
    search = {"cmd": "search", "role": 0, "until": time.time() + 60, "iterations": 300}
    answer = worker.handle(search)
    lower = [mean - 1 / math.sqrt(visits) for _, visits, mean, *_ in answer["stats"]]
    assert lower == sorted(lower, reverse=True) and answer["move"] == answer["stats"][0][0]
    assert worker.tree is not None and worker.tree.final == "lower"
    with pytest.raises(GameError, match="final must be one of visits, mean, lower"):
        worker.handle({"cmd": "load", "rules": TICTACTOE, "final": "best"})


def test_search_stops_before_a_deadline_already_passed() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": PENNIES})
    worker.settle(120)
    answer = worker.handle({"cmd": "search", "role": 1, "until": time.time(), "iterations": None})
    assert answer["sims"] == 0 and answer["move"] in ("Heads", "Tails")


def test_commands_that_fail_answer_an_error_and_the_worker_goes_on() -> None:
    commands = [
        {"cmd": "search", "role": 0, "until": time.time() + 1},
        {"cmd": "load", "rules": "(role"},
        {"cmd": "load", "rules": PENNIES},
        {"cmd": "advance", "joint": ["Heads"]},
        {"cmd": "dance"},
        {"cmd": "advance", "joint": ["Heads", "Tails"]},
        {"cmd": "quit"},
        {"cmd": "save"},
    ]
    stdin = _pipe("".join(json.dumps({**c, "id": i}) + "\n" for i, c in enumerate(commands)))
    stdout = io.StringIO()
    serve(stdin, stdout)
    os.close(stdin)
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4, 5]  # nothing after quit
    assert "before any game was loaded" in answers[0]["error"]
    assert "line 1" in answers[1]["error"]
    assert answers[2] == {"roles": ["left", "right"], "id": 2}
    assert "one move per role" in answers[3]["error"]
    assert "unknown command 'dance'" in answers[4]["error"]
    assert answers[5] == {"terminal": False, "id": 5}


def test_save_writes_the_state_table(tmp_path) -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "table_dir": str(tmp_path), "depth": 2})
    worker.settle(120)
    worker.handle({"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 30})
    path = worker.handle({"cmd": "save"})["path"]
    saved = json.loads(Path(path).read_text())
    assert saved["depth"] == 2 and max(s["visits"] for s in saved["states"].values()) == 30


@pytest.mark.asyncio
async def test_a_worker_process_answers_in_order_and_quits() -> None:
    worker = await WorkerClient.spawn()
    try:
        assert (await worker.request({"cmd": "load", "rules": PENNIES}, 30))["roles"] == [
            "left",
            "right",
        ]
        worker.send({"cmd": "advance", "joint": ["Heads", "Heads"]})
        answer = await worker.request(
            {"cmd": "search", "role": 0, "until": time.time() + 5, "iterations": 40}, 30
        )
        assert (answer["steps"], answer["pondered"]) == (1, 0)
        # the last round: every joint move ends the game, so after the few terminal
        # nodes are made the iterations only revisit them, and are not simulations
        assert answer["sims"] <= 4 and answer["sims"] + answer["settled"] == 40
        assert sum(row[1] for row in answer["stats"]) == 40
        assert 2 <= answer["nodes"] <= 5  # the root and its joint moves that were tried
        with pytest.raises(WorkerError, match="unknown command"):
            await worker.request({"cmd": "dance"}, 30)
        with pytest.raises(WorkerTimeout):
            await worker.request(
                {"cmd": "search", "role": 0, "until": time.time() + 0.3, "iterations": None}, 0.01
            )
        # the late answer is dropped; the next one is this command's own
        assert (await worker.request({"cmd": "advance", "joint": ["Tails", "Heads"]}, 30)) == {
            "terminal": True
        }
    finally:
        await worker.close()
    assert worker.process.returncode == 0 and not worker.alive
    with pytest.raises(WorkerDied):
        await worker.request({"cmd": "save"}, 1)


@pytest.mark.asyncio
async def test_a_command_sent_without_waiting_warns_when_it_fails_unless_closing(caplog) -> None:
    worker = await WorkerClient.spawn()
    await worker.request({"cmd": "load", "rules": TICTACTOE, "traps": False}, 30)
    worker.send({"cmd": "dance"})
    await worker.request({"cmd": "save"}, 30)  # answered after the one before
    assert "search worker: dance failed: unknown command" in caplog.text
    # The last joint move of a match, sent as the worker is closed at once: not a failure
    caplog.clear()
    worker.send({"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": None})
    await worker.close(grace=0)
    await asyncio.sleep(0)
    assert "failed" not in caplog.text


@pytest.mark.asyncio
async def test_a_worker_that_dies_fails_its_requests() -> None:
    worker = await WorkerClient.spawn()
    await worker.request({"cmd": "load", "rules": TICTACTOE, "traps": False}, 30)
    waiting = asyncio.create_task(
        worker.request(
            {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": None}, 60
        )
    )
    await asyncio.sleep(0)  # the command is sent
    worker.process.kill()
    with pytest.raises(WorkerDied):
        await waiting
    await worker.close()


LOSER_WITHOUT_GOAL = RACE.replace(
    "(<= (goal ?r 0) (role ?r) (not (done ?r)) (role ?o) (distinct ?r ?o) (done ?o))", ""
)
"""The race of two tracks whose loser has no goal (as pacman3p's ghosts in some of its ends)."""


@pytest.mark.asyncio
async def test_a_role_without_a_goal_at_the_end_counts_0_and_the_worker_goes_on() -> None:
    """Served by a worker process: the interpreter, the compiled rules, then native code
    (where there is one), the part trees' playouts as on pacman3p; a lost end is 0."""
    worker = await WorkerClient.spawn()
    try:
        await worker.request({"cmd": "load", "rules": LOSER_WITHOUT_GOAL, "settle": 120}, 150)
        reasoners = set()
        for _ in range(100):
            answer = await worker.request(
                {"cmd": "search", "role": 1, "until": time.time() + 30, "iterations": 300}, 60
            )
            # blue's part tree proves its part won (red frozen), which holds there alone
            # (red races too): the answer proves nothing
            assert answer["move"] in {"(go blue 1)", "(go blue 2)"} and answer["proven"] is None
            reasoners.add(answer["reasoner"].split(",")[0])
            if "native" in reasoners:  # else the compiled rules a hundred times
                break
            await asyncio.sleep(0.1)
        assert reasoners <= {"compiled", "native"}
        await worker.request({"cmd": "advance", "joint": ["(go red 2)", "(go blue 1)"]}, 30)
        answer = await worker.request(
            {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 300}, 60
        )
        # red at 2, blue at 1: whatever red does, blue can still tie or win
        assert answer["sims"] > 0 and worker.alive
    finally:
        await worker.close()
    assert worker.process.returncode == 0


def _pipe(text: str) -> int:
    """A descriptor to read `text` from, then the end of input."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    return read


def test_lines_are_read_whole_as_they_come_and_a_wait_can_time_out() -> None:
    read, write = os.pipe()
    lines = LineReader(read)
    try:
        assert lines.readline(0.0) is None  # nothing yet
        os.write(write, b'{"cmd": "lo')
        assert lines.readline(0.0) is None  # half a line is kept
        os.write(write, b'ad"}\n{"cmd": "save"}\n{"cmd"')
        assert lines.readline(0.0) == '{"cmd": "load"}\n'
        assert lines.readline(None) == '{"cmd": "save"}\n'
        # a writer that comes later wakes a reader that waits without limit
        threading.Timer(0.05, lambda: os.write(write, b': "quit"}\n')).start()
        assert lines.readline(None) == '{"cmd": "quit"}\n'
        os.write(write, b"last")
        os.close(write)
        assert lines.readline(None) == "last"
        assert lines.readline(None) == ""
    finally:
        os.close(read)


def test_pondering_searches_the_tree_the_next_search_continues() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "ponder": 60, "traps": False})
    worker.settle(120)
    assert not worker.pondering  # until the first command is done with
    worker.heard()
    assert worker.pondering
    while worker.pondered < 30:
        worker.ponder()
    pondered = worker.pondered
    answer = worker.handle({"cmd": "search", "role": 0, "until": time.time() + 10, "iterations": 5})
    assert (answer["sims"], answer["pondered"]) == (5, pondered)
    assert answer["ponder_seconds"] > 0
    # the statistics of the answer count the pondered simulations too
    assert sum(row[1] for row in answer["stats"]) == pondered + 5
    again = worker.handle({"cmd": "search", "role": 0, "until": time.time(), "iterations": 1})
    assert again["pondered"] == 0  # counted once


def test_after_advance_pondering_searches_the_new_root() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "ponder": 60, "traps": False})
    worker.settle(120)
    worker.handle({"cmd": "advance", "joint": ["(mark 2 2)", "noop"]})
    worker.heard()
    while worker.pondered < 30:
        worker.ponder()
    pondered = worker.pondered
    answer = worker.handle({"cmd": "search", "role": 1, "until": time.time() + 10, "iterations": 1})
    assert answer["steps"] == 1 and answer["move"] != "(mark 2 2)"
    assert sum(row[1] for row in answer["stats"]) >= pondered + 1


def test_pondering_stops_at_the_end_of_the_game() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": PENNIES, "ponder": 60})
    worker.settle(120)
    worker.heard()
    worker.ponder()
    for joint in (["Heads", "Tails"], ["Tails", "Tails"]):
        assert worker.pondering
        worker.handle({"cmd": "advance", "joint": joint})
        worker.heard()
        worker.ponder()
    assert worker.pondered > 0
    assert not worker.pondering  # the game is over


def test_after_answering_a_search_pondering_waits_for_the_reply_to_go_out(monkeypatch) -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "ponder": 60, "traps": False})
    worker.settle(120)
    clock = [1000.0]
    monkeypatch.setattr(search_worker.time, "monotonic", lambda: clock[0])
    worker.heard("search")
    assert worker.patience() == pytest.approx(search_worker.REPLY_PAUSE)
    clock[0] += search_worker.REPLY_PAUSE
    assert worker.patience() == 0
    worker.heard("advance")
    assert worker.patience() == 0
    clock[0] += 61
    assert worker.patience() is None  # too long without a command: no more pondering


def test_without_a_ponder_time_the_worker_waits_for_commands() -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
    worker.settle(120)
    worker.heard()
    assert not worker.pondering


def test_with_factor_a_move_on_a_separate_part_is_searched_by_a_part_tree(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_FACTOR", True)
    monkeypatch.setattr(search_worker, "SEARCH_PART_PLAYOUTS", True)
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": RACE})
    worker.settle(120)
    search = {"cmd": "search", "role": 1, "until": time.time() + 30, "iterations": 400}
    answer = worker.handle(search)
    assert worker.parts.part is not None and worker.parts.part is not worker.tree
    assert worker.parts.part.root.choosers == (1,)  # red's step is drawn, not branched on
    # Blue's two moves in its part: the part's playouts are decisive within it.
    assert worker.parts.part.evaluator is worker.part_playout
    # Red's part frozen, both of blue's steps reach the end first: either may be
    # chosen, and the solver, proving in the part tree, finds blue's part won; that
    # holds in the part alone (red races too), so the answer does not say it.
    assert answer["move"] in {"(go blue 1)", "(go blue 2)"} and answer["proven"] is None
    assert worker.parts.part.root.proven is not None and worker.parts.part.root.proven[1] == 1.0
    assert {row[0] for row in answer["stats"]} == {"(go blue 1)", "(go blue 2)"}
    part = worker.parts.part
    worker.handle(search)
    assert worker.parts.part is part  # the same step and role: searched on
    worker.handle({"cmd": "advance", "joint": ["(go red 1)", "(go blue 2)"]})
    assert worker.parts.part is None


def test_with_keep_parts_the_part_tree_is_kept_and_pondered(monkeypatch) -> None:
    monkeypatch.setattr(search_worker, "SEARCH_FACTOR", True)
    monkeypatch.setattr(search_worker, "SEARCH_KEEP_PARTS", True)
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": RACE})
    worker.settle(120)
    search = {"cmd": "search", "role": 1, "until": time.time() + 30, "iterations": 300}
    worker.handle(search)
    part = worker.parts.part
    worker.handle({"cmd": "advance", "joint": ["(go red 1)", "(go blue 1)"]})
    assert worker.parts.trees == [part] and part.root.visits > 0  # blue's step 1 followed
    visits, joint_visits = part.root.visits, worker.tree.root.visits
    worker.ponder()  # not searched since the move: the part tree is pondered
    assert part.root.visits > visits and worker.tree.root.visits == joint_visits
    worker.handle(search)
    assert worker.parts.part is part


def test_with_factor_a_turn_taking_game_keeps_the_joint_tree(monkeypatch) -> None:
    answers = []
    for factor in (False, True):
        monkeypatch.setattr(search_worker, "SEARCH_FACTOR", factor)
        worker = SearchWorker()
        worker.rng.seed(7)
        worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False})
        worker.settle(120)
        game = worker.tree.root.state.game
        build = getattr(game, "native_build", None)
        if build is not None:  # the same rules' code in both searches
            build.join()
            game.playout_batch = 1  # measured by the clock when attached: fixed here
        search = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 300}
        answer = worker.handle(search)
        assert worker.parts.part is None
        answers.append((answer["move"], answer["stats"], answer["nodes"]))
    assert answers[0] == answers[1]


def test_whether_moves_are_independent_is_asked_once_a_state(monkeypatch) -> None:
    """`_tree_for` runs at every slice of a search: it asks `independent_choices`
    (legal moves and successors of a joint move per role) once for each root state."""
    monkeypatch.setattr(search_worker, "SEARCH_FACTOR", True)
    original = served_parts.independent_choices
    asked = []

    def counted(state):
        asked.append(state)
        return original(state)

    monkeypatch.setattr(served_parts, "independent_choices", counted)
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": TICTACTOE, "traps": False, "races": False})
    worker.settle(120)
    asked.clear()
    for _ in range(3):
        assert worker._tree_for(0) is worker.tree
    assert len(asked) == 1
    worker.handle({"cmd": "advance", "joint": ["(mark 1 1)", "noop"]})
    worker._tree_for(1)
    worker._tree_for(1)
    assert len(asked) == 2 and asked[1] == worker.tree.root_state


NO_MOVE_AT_THREE = TURN_RACE.replace(
    "(<= (legal ?p noop) (role ?p) (not (true (control ?p))))",
    "(<= (legal ?p noop) (role ?p) (not (true (control ?p))) (not (true (count 3))))",
)
"""The race of counts where, at 3, the role not in control has no legal move (as
3pffa's rules leave a role in some states): the rules break on some ways only."""


@pytest.mark.parametrize("traps", [False, True])
def test_ways_where_the_rules_break_are_lost_iterations_not_a_lost_worker(traps) -> None:
    worker = SearchWorker()
    worker.handle({"cmd": "load", "rules": NO_MOVE_AT_THREE, "traps": traps})
    worker.settle(120)
    for _ in range(2):
        answer = worker.handle(
            {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 300}
        )
        assert "error" not in answer and answer["move"] in {"(Add 1)", "(Add 2)"}
    assert worker.tree.broken > 0  # the ways through a count of 3 broke
    worker.ponder()
