"""The search workers of one match, asked as one: root-parallel search.

A `WorkerPool` has `WorkerClient`'s interface (`spawn`, `alive`, `request`,
`send`, `close`), so the session drives one worker or several alike.  Every
command goes to every worker; each worker grows its own tree from its own
random seed (each process seeds from the operating system), and a ``search``
is answered by summing the root statistics of our role over the workers that
answered in time: the move the summed statistics rank first is played, as the
search's final choice ranks them (``load``'s ``final``; by default the most
visits, ties: the best mean).  A worker whose own choice is not the move it
ranks first has seen more than its statistics say (a move that wins at once, a
proof): its choice is played,
unless the proofs of the others show it worse than another move;
so is the choice of a worker whose exact solver settled the position.
The solver's bounds are merged too, so a move one worker proved lost is not
played on the others' visits while a move that may not lose is left.  In a
puzzle (a game of one role) the workers answer with the best line each found:
the move of the line that reaches the highest goal is played.
The tactics (``load``'s ``tactics``) run in one worker only, with the time of
all (``tactics_workers``): the same position's forced lines searched by every
worker would be the same proofs found several times, where one search given
their time together looks deeper; the others search MCTS all the time.  Its
proofs reach the combined answer through the merged bounds (and a proven win
through its choice, which differs from its visits).
So do the races between search configurations (``races``): every worker racing
the same challengers on the same game spent half of its pondering on the same
verdicts.  The first worker races; when its answer says the races chose a new
configuration (``chosen``), the pool tells the others (``configure``), which
search with it from then on, and ponder all the time.
A worker that answers well after the others is left out (`STRAGGLER_GRACE`),
and a pool whose first answers came late asks the next searches to end that
much earlier (`LATENESS_KEPT`): on a loaded machine a worker may not be given
the CPU at the moment its search should end.  ``save`` goes to one worker
only, since the state table is one file.

A worker that ends is dropped and the others go on; the pool is alive while
one worker is.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from ggp.player.search.mcts import DEFAULT_FINAL, MoveStats, choose_move, ranked
from ggp.player.search.solver import allowed_moves
from ggp.player.service.worker_client import WorkerClient, WorkerDied, WorkerTimeout

log = logging.getLogger(__name__)

_TIE_BREAK = random.Random()
"""Only asked when no move was visited, which `combined_move` answers first."""

STRAGGLER_GRACE = 0.02
"""Seconds past a search's end that the answers of the other workers are waited
for, once one has answered: all were told the same end, so a worker later
than this was not given the CPU, and its statistics are left out rather than
the reply delayed."""

LATENESS_KEPT = 10
"""Searches whose lateness (the first answer's arrival minus the end asked for)
is remembered: the next search is asked to end earlier by the largest..."""

EARLY_SHARE = 0.25
"""...but by no more than this share of its time."""


class WorkerPool:
    """Several search worker processes of one match, in step with each other."""

    def __init__(self, workers: Sequence[WorkerClient]) -> None:
        if not workers:
            raise ValueError("a pool needs at least one worker")
        self.workers = list(workers)
        self.steps = 0
        """The joint moves sent to the workers (``advance``)."""
        self.lateness: deque[float] = deque(maxlen=LATENESS_KEPT)
        """Seconds the first answer of each recent search came after the end asked for."""
        self.chosen: dict[str, Any] | None = None
        """The configuration the races chose, as last told to the workers."""
        self.final = DEFAULT_FINAL
        """How the summed statistics are ranked (the last ``load``'s ``final``)."""

    @classmethod
    async def spawn(cls, count: int) -> WorkerPool:
        """Start `count` worker processes; OSError if none could be started."""
        workers: list[WorkerClient] = []
        for _ in range(count):
            try:
                workers.append(await WorkerClient.spawn())
            except OSError as error:
                if not workers:
                    raise
                log.warning("started %d of %d search workers: %s", len(workers), count, error)
                break
        return cls(workers)

    @property
    def alive(self) -> bool:
        return any(worker.alive for worker in self.workers)

    def send(self, command: dict[str, Any]) -> None:
        """Send `command` to every worker without waiting; errors are logged."""
        self._count(command)
        living = self._living()
        for index, worker in enumerate(living):
            worker.send(for_worker(command, index, len(living)))

    async def request(self, command: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """The answer to `command`, within `timeout` seconds.

        A ``search`` combines the answers that came in time; other commands
        answer as the first worker that answered without an error.  Raises
        the error of the first worker if none answered.
        """
        self._count(command)
        workers = self._living()[:1] if command["cmd"] == "save" else self._living()
        if not workers:
            raise WorkerDied(f"every search worker has ended; cannot {command['cmd']}")
        searching = command["cmd"] == "search"
        if searching:
            command = self._earlier(command)
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        asking = [
            asyncio.ensure_future(w.request(for_worker(command, index, len(workers)), None))
            for index, w in enumerate(workers)
        ]
        try:
            done, waiting = await asyncio.wait(
                asking, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        except asyncio.CancelledError:  # the caller gave up: so do the workers' requests
            for request in asking:
                request.cancel()
            raise
        if searching:
            self.lateness.append(time.time() - command["until"])
        if done and waiting:
            if searching:  # a straggler must not make the reply late
                grace = command["until"] + STRAGGLER_GRACE - time.time()
                end = min(math.inf if end is None else end, loop.time() + max(0.0, grace))
            left = None if end is None else max(0.0, end - loop.time())
            done, waiting = await asyncio.wait(asking, timeout=left)
        for late in waiting:
            late.cancel()  # its answer, when it comes, is dropped
        answers = [f.result() for f in asking if f in done and f.exception() is None]
        if not answers:
            if waiting:
                raise WorkerTimeout(f"no answer to {command['cmd']} within {timeout:.3f} s")
            raise next(f.exception() for f in asking)
        if searching:
            racer = asking[0]  # the first worker races (`for_worker`)
            if racer in done and racer.exception() is None:
                self._pass_on_choice(racer.result())
            return self._combine(answers)
        return answers[0]

    def _pass_on_choice(self, answer: dict[str, Any]) -> None:
        """Tell every worker the configuration the racing worker's races chose (its
        `answer`'s ``chosen``), once per choice (the racing worker takes no advice)."""
        chosen = answer.get("chosen")
        if chosen and chosen != self.chosen:
            self.chosen = chosen
            self.send({"cmd": "configure", "config": chosen})

    def _earlier(self, search: dict[str, Any]) -> dict[str, Any]:
        """`search` asked to end earlier by the recent lateness, if any (see `LATENESS_KEPT`)."""
        left = search["until"] - time.time()
        early = min(max(self.lateness, default=0.0), EARLY_SHARE * left)
        if early <= 0:
            return search
        return {**search, "until": search["until"] - early}

    def _count(self, command: dict[str, Any]) -> None:
        if command["cmd"] == "advance":
            self.steps += 1
        elif command["cmd"] == "load":
            self.final = command.get("final", DEFAULT_FINAL)

    def _living(self) -> list[WorkerClient]:
        """The workers still running (the others are dropped, and logged)."""
        ended = [worker for worker in self.workers if not worker.alive]
        for worker in ended:
            log.warning(
                "search worker %s has ended; %d left in this match",
                worker.process.pid,
                len(self.workers) - len(ended),
            )
            self.workers.remove(worker)
        return list(self.workers)

    def _combine(self, answers: list[dict[str, Any]]) -> dict[str, Any]:
        """One search answer from several: summed root statistics, the move they favour."""
        in_step = [answer for answer in answers if answer["steps"] == self.steps]
        if not in_step:
            return answers[0]  # the session sees it out of step and acts
        if len(in_step) == 1:
            return in_step[0]
        if any("line_goal" in answer for answer in in_step):
            return best_line_answer(in_step)
        return {
            "move": combined_move(in_step, self.final),
            "sims": sum(answer["sims"] for answer in in_step),
            "steps": self.steps,
            "nodes": sum(answer["nodes"] for answer in in_step),
            "pondered": sum(answer.get("pondered", 0) for answer in in_step),
            "ponder_seconds": max(answer.get("ponder_seconds", 0.0) for answer in in_step),
            "settled": sum(answer.get("settled", 0) for answer in in_step),
            "cpu": sum(answer.get("cpu", 0.0) for answer in in_step),
            "reasoner": in_step[0].get("reasoner", ""),
            "config": " | ".join(sorted({answer.get("config", "") for answer in in_step})),
            "stats": summed_statistics(in_step, self.final),
            "proven": next((a["proven"] for a in in_step if a.get("proven") is not None), None),
            "tactics": next((a["tactics"] for a in in_step if a.get("tactics")), ""),
        }

    async def close(self, grace: float = 5.0) -> None:
        """Ask every worker to quit; kill those that have not within `grace` seconds."""
        await asyncio.gather(*(worker.close(grace) for worker in self.workers))


def for_worker(command: dict[str, Any], index: int, workers: int) -> dict[str, Any]:
    """`command` as worker `index` of `workers` gets it: a ``load`` gives the tactics
    (when on or raced, with the time of all) and the races to the first worker only."""
    if command["cmd"] != "load" or workers < 2:
        return command
    if index == 0:
        return {**command, "tactics_workers": workers}
    return {**command, "tactics": False, "races": False, "tactics_race": False}


def best_line_answer(answers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Of the puzzle searches' answers, the one whose best line reaches the highest
    goal (the first of those), with the work of all: each worker keeps its own
    line, and a line is followed only by the worker that found it."""
    best = max(answers, key=lambda answer: answer.get("line_goal") or -1)
    return {
        **best,
        "sims": sum(answer["sims"] for answer in answers),
        "pondered": sum(answer.get("pondered", 0) for answer in answers),
        "cpu": sum(answer.get("cpu", 0.0) for answer in answers),
    }


def summed_statistics(
    answers: Sequence[dict[str, Any]], final: str = DEFAULT_FINAL
) -> list[list[Any]]:
    """The ``stats`` of several search answers summed, best first by the final
    choice `final` (`ggp.player.search.mcts.ranked`): ``[move, visits, mean, lower,
    upper]``.  Visits and rewards add up; of a move's proven bounds the highest
    lower and the lowest upper hold (every worker proves from the same rules, so
    each bound is true; a tree over a part of the state, whose proofs hold in
    that part alone, sends none)."""
    merged: dict[str, list[float]] = {}
    for answer in answers:
        for move, count, mean, *bounds in answer["stats"]:
            lower, upper = bounds or (0.0, 1.0)
            row = merged.setdefault(move, [0, 0.0, lower, upper])
            row[0] += count
            row[1] += count * mean
            row[2], row[3] = max(row[2], lower), min(row[3], upper)
    summed = [
        MoveStats(move, n, total / n if n else 0.0, lower, upper)
        for move, (n, total, lower, upper) in merged.items()
    ]
    return [[s.move, s.visits, s.value, s.lower, s.upper] for s in ranked(summed, final)]


def combined_move(answers: Sequence[dict[str, Any]], final: str = DEFAULT_FINAL) -> str:
    """The move to play from several workers' answers (see the module's docstring),
    their statistics ranked by the final choice `final`."""
    for answer in answers:
        if answer.get("exact"):
            return answer["move"]  # the position is solved: this move keeps its value
    summed = summed_statistics(answers, final)
    allowed = allowed_moves([row[3] for row in summed], [row[4] for row in summed])
    choosable = {row[0] for i, row in enumerate(summed) if allowed is None or i in allowed}
    for answer in answers:
        stats = answer["stats"]
        knows_better = stats and stats[0][1] > 0 and answer["move"] != stats[0][0]
        if knows_better and answer["move"] in choosable:  # not proven worse by another
            return answer["move"]
    if not summed or summed[0][1] == 0:
        return answers[0]["move"]  # no simulation anywhere: the first worker's pick
    return choose_move([MoveStats(*row) for row in summed], _TIE_BREAK)
