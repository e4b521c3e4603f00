"""Several search workers of one match asked as one (`ggp.player.service.worker_pool`),
and pondering."""

from __future__ import annotations

import asyncio
import time

import pytest
from gdl_texts import PENNIES, TICTACTOE
from ggp.player.search.mcts import FINAL_CHOICES
from ggp.player.service.search_worker import SearchWorker
from ggp.player.service.served_tactics import TACTICS_SHARE
from ggp.player.service.worker_client import WorkerDied
from ggp.player.service.worker_pool import (
    WorkerPool,
    combined_move,
    for_worker,
    summed_statistics,
)


def _answer(move: str, stats: list[list[object]]) -> dict[str, object]:
    return {"move": move, "stats": stats}


def test_statistics_are_summed_over_workers_weighting_means_by_visits() -> None:
    first = _answer("a", [["a", 30, 0.5], ["b", 10, 0.2], ["c", 0, 0.0]])
    second = _answer("b", [["b", 35, 0.4], ["a", 5, 0.9], ["c", 0, 0.0]])
    summed = summed_statistics([first, second])
    assert [row[:2] for row in summed] == [["b", 45], ["a", 35], ["c", 0]]
    assert summed[0][2] == pytest.approx((10 * 0.2 + 35 * 0.4) / 45)
    assert summed[1][2] == pytest.approx((30 * 0.5 + 5 * 0.9) / 35)
    assert combined_move([first, second]) == "b"


def test_a_worker_that_chose_against_its_visits_knows_better() -> None:
    """Its choice is a move that ends the game with a win (or a proof): it is played."""
    knows = _answer("c", [["a", 30, 0.5], ["c", 4, 1.0]])
    other = _answer("a", [["a", 40, 0.5], ["c", 0, 0.0]])
    assert combined_move([other, knows]) == "c"


def test_proofs_are_merged_over_workers_and_a_move_proven_lost_is_not_played() -> None:
    """One worker proved "a" lost (upper 0): summed visits favour "a", "b" is played."""
    proved = _answer("b", [["b", 20, 0.4, 0.0, 1.0], ["a", 10, 0.3, 0.0, 0.0]])
    unaware = _answer("a", [["a", 60, 0.6, 0.0, 1.0], ["b", 10, 0.4, 0.0, 1.0]])
    summed = summed_statistics([unaware, proved])
    assert summed[0][:2] == ["a", 70] and summed[0][3:] == [0.0, 0.0]
    assert summed[1][3:] == [0.0, 1.0]
    assert combined_move([unaware, proved]) == "b"
    # and a move one worker proved won is played over more visited ones
    won = _answer("a", [["a", 60, 0.6, 0.0, 1.0], ["c", 5, 1.0, 1.0, 1.0]])
    assert combined_move([won, _answer("a", [["a", 50, 0.6], ["c", 1, 1.0]])]) == "c"


def test_a_choice_against_visits_is_not_played_where_another_worker_proved_it_lost() -> None:
    """The second worker's own reason (a partial proof, a decisive move) picked "a";
    the first worker's tactics proved "a" lost: the merged bounds decide."""
    tactics = _answer("b", [["b", 4, 0.5, 0.0, 1.0], ["a", 4, 0.5, 0.0, 0.0]])
    own_reason = _answer("a", [["b", 5, 0.5, 0.0, 1.0], ["a", 3, 0.6, 0.0, 1.0]])
    assert combined_move([tactics, own_reason]) == "b"
    assert combined_move([own_reason, tactics]) == "b"


def test_the_summed_statistics_are_ranked_by_the_final_choice() -> None:
    """ "a" has the most visits, "b" a better mean over half as many, "c" the best mean
    over one visit: the most visited, the best lower bound (mean - 1/sqrt(visits))
    and the best mean are three moves."""
    first = _answer("a", [["a", 300, 0.50], ["b", 100, 0.60]])
    second = _answer("a", [["a", 100, 0.50], ["b", 100, 0.62], ["c", 1, 1.0]])
    chosen = {final: combined_move([first, second], final) for final in FINAL_CHOICES}
    assert chosen == {"visits": "a", "lower": "b", "mean": "c"}
    ranked = summed_statistics([first, second], "lower")
    assert [row[:2] for row in ranked] == [["b", 200], ["a", 400], ["c", 1]]
    assert ranked[0][2] == pytest.approx(0.61)


@pytest.mark.asyncio
async def test_the_pool_ranks_by_the_final_choice_its_workers_were_loaded_with() -> None:
    stats = [["a", 300, 0.50], ["b", 200, 0.61]]
    answer = {"move": "a", "sims": 500, "steps": 0, "nodes": 3, "stats": stats}
    pool = WorkerPool([_FakeWorker(answer), _FakeWorker(answer)])
    search = {"cmd": "search", "role": 0, "until": time.time() + 1000, "iterations": None}
    assert (await pool.request(search, 60))["move"] == "a"
    pool.send({"cmd": "load", "rules": TICTACTOE, "final": "lower"})
    combined = await pool.request({**search, "until": time.time() + 1000}, 60)
    assert combined["move"] == "b" and combined["stats"][0][:2] == ["b", 400]


def test_without_any_simulation_the_first_workers_move_is_played() -> None:
    assert combined_move([_answer("b", [["a", 0, 0.0], ["b", 0, 0.0]]), _answer("a", [])]) == "b"


def test_the_tactics_run_in_the_first_worker_with_the_time_of_all() -> None:
    load = {"cmd": "load", "rules": TICTACTOE, "tactics": True, "races": True}
    assert for_worker(load, 0, 2) == {**load, "tactics_workers": 2}
    others = {**load, "tactics": False, "races": False, "tactics_race": False}
    assert for_worker(load, 1, 2) == others
    assert for_worker(load, 0, 1) == load  # one worker: its own tactics and races
    raced = {**load, "tactics": False, "tactics_race": True}  # the races may turn them on
    assert [for_worker(raced, index, 2) for index in range(2)] == [
        {**raced, "tactics_workers": 2},
        others,
    ]
    search = {"cmd": "search", "role": 0, "until": 0.0}
    assert for_worker(search, 1, 2) == search
    worker = SearchWorker()
    assert (worker.tactics.share(), worker.tactics.ponder_every()) == (TACTICS_SHARE, 4)
    worker.tactics.workers = 2
    assert (worker.tactics.share(), worker.tactics.ponder_every()) == (2 * TACTICS_SHARE, 2)
    worker.tactics.workers = 8
    assert (worker.tactics.share(), worker.tactics.ponder_every()) == (0.5, 2)


@pytest.mark.asyncio
async def test_a_threat_proven_by_the_tactics_worker_is_blocked_on_the_others_visits() -> None:
    """Tic-tac-toe, o to move must block (mark 2 1); 8 simulations a worker do not
    see it, and only the first worker runs the tactics: its proofs, merged into the
    bounds, decide the pool's move whatever the other's visits say."""
    pool = await WorkerPool.spawn(2)
    try:
        load = {"cmd": "load", "rules": TICTACTOE, "traps": False, "races": False}
        await pool.request({**load, "tactics": True, "settle": 120}, 180)
        for joint in (["(mark 2 2)", "noop"], ["noop", "(mark 1 3)"], ["(mark 2 3)", "noop"]):
            pool.send({"cmd": "advance", "joint": joint})
        for _ in range(4):
            search = {"cmd": "search", "role": 1, "until": time.time() + 60, "iterations": 8}
            answer = await pool.request(search, 120)
            assert answer["move"] == "(mark 2 1)"
            assert answer["tactics"].startswith("5 of 6 moves lose within 2 plies")
            rows = {row[0]: row for row in answer["stats"]}
            assert rows["(mark 1 1)"][4] == 0.0 and rows["(mark 2 1)"][4] == 1.0
        search = {"cmd": "search", "role": 1, "until": time.time() + 60, "iterations": 8}
        first, second = [await worker.request(search, 120) for worker in pool.workers]
        assert first["tactics"].startswith("5 of 6") and second["tactics"] == ""
    finally:
        await pool.close()


@pytest.mark.asyncio
async def test_two_workers_load_advance_and_search_as_one() -> None:
    pool = await WorkerPool.spawn(2)
    try:
        assert len(pool.workers) == 2
        # settle: the rules are final before searching (a search that moves to faster
        # rules part-way starts a new tree, and its statistics count fewer simulations)
        load = {"cmd": "load", "rules": TICTACTOE, "traps": False, "settle": 120}
        assert (await pool.request(load, 180))["roles"] == [
            "xplayer",
            "oplayer",
        ]
        pool.send({"cmd": "advance", "joint": ["(mark 2 2)", "noop"]})
        search = {"cmd": "search", "role": 1, "until": time.time() + 30, "iterations": 25}
        answer = await pool.request(search, 60)
        assert (answer["sims"], answer["steps"]) == (50, 1)  # 25 from each
        assert sum(row[1] for row in answer["stats"]) == 50
        assert answer["move"] == answer["stats"][0][0] != "(mark 2 2)"
        assert (await pool.request({"cmd": "save"}, 60)) == {"path": None}
        # a worker that ends is dropped; the other goes on alone
        pool.workers[0].process.kill()
        await pool.workers[0].process.wait()
        answer = await pool.request({**search, "until": time.time() + 30}, 60)
        assert (answer["sims"], answer["steps"]) == (25, 1) and len(pool.workers) == 1
        pool.workers[0].process.kill()
        with pytest.raises(WorkerDied):
            await pool.request({**search, "until": time.time() + 30}, 60)
        assert not pool.alive
    finally:
        await pool.close()


@pytest.mark.asyncio
async def test_workers_ponder_between_commands_and_the_search_goes_on_from_there() -> None:
    """Pondering is seen in the answer of a later search: simulations run while
    no command came, counted in the root statistics.  The worker is given all
    the time it needs to be scheduled (a loaded machine), nothing is timed."""
    pool = await WorkerPool.spawn(2)
    try:
        await pool.request({"cmd": "load", "rules": PENNIES, "ponder": 120}, 60)
        pool.send({"cmd": "advance", "joint": ["Heads", "Tails"]})
        search = {"cmd": "search", "role": 0, "iterations": 1}
        for _ in range(600):  # at most 60 s of waiting, usually one round
            await asyncio.sleep(0.1)
            answer = await pool.request({**search, "until": time.time() + 30}, 60)
            if answer["pondered"] > 0 and answer["ponder_seconds"] > 0:
                break
        assert answer["pondered"] > 0 and answer["steps"] == 1
        # more visits at the new root than the two simulations searched for
        assert sum(row[1] for row in answer["stats"]) > 2
        # the end of the game stops pondering; commands are still answered
        assert (await pool.request({"cmd": "advance", "joint": ["Heads", "Heads"]}, 60)) == {
            "terminal": True
        }
    finally:
        await pool.close(grace=120)  # a quit, however slow a loaded machine is to run it
    assert all(worker.process.returncode == 0 for worker in pool.workers)


class _FakeWorker:
    """Answers a search with `answer`, or never (a worker given no CPU)."""

    def __init__(self, answer: dict[str, object] | None) -> None:
        self.answer = answer
        self.alive = True
        self.asked: list[dict[str, object]] = []
        self.sent: list[dict[str, object]] = []

    def send(self, command: dict[str, object]) -> None:
        self.sent.append(command)

    async def request(self, command: dict[str, object], timeout: float | None) -> dict:
        self.asked.append(command)
        if self.answer is None:
            await asyncio.Event().wait()
        return self.answer


@pytest.mark.asyncio
async def test_a_worker_that_does_not_answer_with_the_others_is_left_out() -> None:
    answer = {"move": "a", "sims": 7, "steps": 0, "nodes": 3, "stats": [["a", 7, 0.5]]}
    pool = WorkerPool([_FakeWorker(None), _FakeWorker(answer)])
    search = {"cmd": "search", "role": 0, "until": time.time(), "iterations": None}
    # no time limit of its own: only the grace after the search's end stops the wait
    assert await asyncio.wait_for(pool.request(search, None), 60) == answer


@pytest.mark.asyncio
async def test_after_a_late_answer_the_next_searches_are_asked_to_end_earlier() -> None:
    answer = {"move": "a", "sims": 7, "steps": 0, "nodes": 3, "stats": [["a", 7, 0.5]]}
    worker = _FakeWorker(answer)
    pool = WorkerPool([worker])
    search = {"cmd": "search", "role": 0, "iterations": None}
    until = time.time() + 1000
    await pool.request({**search, "until": until}, 60)
    assert worker.asked[-1]["until"] == until  # nothing late yet: the end asked for
    await pool.request({**search, "until": time.time() - 2}, 60)  # answered 2 s late
    assert pool.lateness[-1] >= 2
    until = time.time() + 1000
    await pool.request({**search, "until": until}, 60)
    assert until - 1000 * 0.25 <= worker.asked[-1]["until"] <= until - 2
    until = time.time() + 4
    await pool.request({**search, "until": until}, 60)
    assert worker.asked[-1]["until"] >= until - 4 * 0.25  # at most a quarter earlier


@pytest.mark.asyncio
async def test_the_configuration_the_racing_worker_chose_is_passed_on_once() -> None:
    plain = {"move": "a", "sims": 7, "steps": 0, "nodes": 3, "stats": [["a", 7, 0.5]]}
    chosen = {"c": 0.7, "decisive": True}
    racer, other = _FakeWorker({**plain, "chosen": chosen}), _FakeWorker(plain)
    pool = WorkerPool([racer, other])
    search = {"cmd": "search", "role": 0, "iterations": None}
    await pool.request({**search, "until": time.time() + 1000}, 60)
    assert other.sent == racer.sent == [{"cmd": "configure", "config": chosen}]
    other.answer = {**plain, "chosen": chosen}  # it searches with it now
    await pool.request({**search, "until": time.time() + 1000}, 60)
    assert len(other.sent) == 1  # told once
    racer.answer = {**plain, "chosen": {**chosen, "c": 1.4}}  # a later verdict
    await pool.request({**search, "until": time.time() + 1000}, 60)
    assert other.sent[-1] == {"cmd": "configure", "config": {**chosen, "c": 1.4}}
    other.answer = {**plain, "chosen": {**chosen, "c": 9.0}}  # not the racer's: not passed on
    await pool.request({**search, "until": time.time() + 1000}, 60)
    assert len(other.sent) == 2
