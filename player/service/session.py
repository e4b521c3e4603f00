"""One match being played: the server's copy of its game, its clock and its search worker.

Nothing of a match is computed in the server process, whose event loop must
answer every message in time: the server's own copy of the game (which reads
and checks the rules, checks every joint move the manager sends and knows our
legal moves) lives in a child process (`ggp.player.service.game_client`), and so does the
search (`ggp.player.service.search_worker`, told every joint move once the copy has
checked it; it holds the search tree and is asked for a move with a budget
that ends a little before the deadline).  A match may have several workers
(`ggp.player.service.worker_pool`: their root statistics are summed), and they ponder:
they search on between our replies, from the tree they keep.  Both children have memory and CPU
limits; ``stop``, ``abort``, shutdown and a command over its budget kill them.

The server waits for the children until a reply's deadline at most, so every
reply is in time.  The move sent is the search's when the worker answers in
time with a move legal in the copy; otherwise a *fallback*:

- when the copy knows our legal moves in the current state, a random one;
- when it does not (it is still building the game or playing the last joint
  move at the deadline, or it was stopped because the rules were too
  expensive for it), a random move of those legal for us in the last state
  the copy reached (a guess: in turn-taking games the ``noop`` of the other
  role's turn is often legal again two moves later);
- when no legal move was ever known, ``nil``.

Once the copy is stopped the match goes on without it: the manager's joint
moves go to the worker unchecked, and the worker's move, when it answers in
time, is sent unchecked; otherwise a guess or ``nil`` as above.

A GDL-II match (the copy finds ``sees`` in the rules) has no search worker, as a
worker follows joint moves: the copy itself keeps the states consistent with our
moves and percepts and searches them (`ggp.player.service.game_process`: ``perceive``
and ``choose``), with the same fallbacks when it does not answer in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggp.player.search.mcts import DEFAULT_FINAL
from ggp.player.service import lifeline
from ggp.player.service.game_client import GameClient
from ggp.player.service.protocol import NIL, Seen
from ggp.player.service.worker_client import WorkerDied, WorkerError
from ggp.player.service.worker_pool import WorkerPool

log = logging.getLogger(__name__)

TABLE_DEPTH = 4
"""Levels of the tree a state table keeps (as the MCTS agent's default)."""

REPLY_ALLOWANCE = 0.05
"""Seconds between the end of a search and the deadline: for the worker's answer
to reach the server and the reply to be written."""

LATE_ANSWER = 0.25
"""Seconds past the deadline a search's answer is still waited for, at most half the
margin (`answer_grace`): a loaded machine can hold a worker past its time by more than
`REPLY_ALLOWANCE` (an answer 0.1 s late on simultaneous Connect Four at load 5.7 became
a random fallback), and a searched move sent 0.25 s into a 0.5 s margin beats a random
one sent on time."""

UNSEEN_SHARE = 0.85
"""The share of the time left that a GDL-II search takes (in the copy, which a loaded
machine may keep from answering at once: 1 of 6 searched replies was late at 1.0 under a load
average of 30)."""

MIN_SHARE = 0.1
"""The share of a clock used when the margin would leave less."""

MAX_CLOCK = 3600.0
"""Longest clock taken as given, in seconds; longer ones are taken as this."""

MAX_RESTARTS = 2
"""Search workers started again in one match after one ended (killed for memory...)."""

START_RACE_SHARE = 0.5
"""The share of the start clock's search that may go to races between search
configurations (`ggp.player.search.races`), once the rules are final."""

TACTICS = True
"""Whether the search workers search each position for forced wins and losses before
the MCTS search from the start of every match (`ggp.player.search.tactics`,
``--tactics yes``, the default).  Decided against Sancho 1.61c game by game
(`benchmarks/compare_runs.py`, docs/tactics.md#the-default-decided-game-by-game): the
races could not judge them (their self-play at a few hundredths of a CPU second a move
plays no forcing lines, and they dropped the tactics on every tuning game), and with
them the tuning games scored more than without."""

TACTICS_RACE = True
"""Where the tactics are not on, whether the races between search configurations judge
them on each game (``--tactics race``): a challenger that turns them on
(`ggp.player.search.races`), taken where it wins this game's race games."""

PONDER_CLOCKS = 3
"""Workers ponder for at most this many play clocks after the last message: a
manager that has been silent longer has left the match."""

MIB = 1 << 20

DEFAULT_COPY_MEMORY = 1024 * MIB
"""Address space of the server's copy of a game (an interpreted game of the
public corpus needs well under 200 MiB)."""

DEFAULT_WORKER_MEMORY = 4096 * MIB
"""Address space of a search worker: the tree at the default node limit
(0.6 to 1 GB) and a compiled game, with room to spare."""


def reply_deadline(arrival: float, clock: float, margin: float) -> float:
    """When a reply is due (monotonic seconds): arrival + clock - margin.

    A margin that would leave less than a tenth of the clock leaves that tenth.
    """
    return arrival + max(clock - margin, clock * MIN_SHARE)


def answer_grace(margin: float) -> float:
    """Seconds past a reply's deadline (`reply_deadline`) a late search answer is still
    taken: `LATE_ANSWER`, at most half the `margin`."""
    return min(LATE_ANSWER, margin / 2)


def played_value(answer: dict[str, Any]) -> int | None:
    """The search's mean goal for us of the move it answered, 0 to 100, from the
    answer's ``stats`` (None where that move has no visits: not searched)."""
    for move, visits, mean, *_ in answer.get("stats", ()):
        if move == answer["move"] and visits > 0:
            return round(100 * mean)
    return None


def passed_over(answer: dict[str, Any]) -> str:
    """The most visited move of the answer's ``stats``, its visits and mean goal for us,
    where the search played a move with fewer visits (``--final lower``, a proof, the
    tactics); empty where it played the most visited, or nothing was visited."""
    stats = answer.get("stats") or ()
    if not stats:
        return ""
    move, most, mean, *_ = max(stats, key=lambda row: row[1])
    played = next((row[1] for row in stats if row[0] == answer["move"]), 0)
    return "" if played >= most else f"{move}: {most} visits at {round(100 * mean)}"


def clamp_clock(seconds: float) -> float:
    """A clock from a message, at most `MAX_CLOCK` seconds."""
    return min(seconds, MAX_CLOCK)


class MoveError(Exception):
    """A joint move from the manager that cannot be played; the text says why."""


@dataclass(frozen=True)
class Limits:
    """The memory of each child process of a match, in bytes."""

    copy_memory: int = DEFAULT_COPY_MEMORY
    worker_memory: int | None = DEFAULT_WORKER_MEMORY
    """None: no limit."""


@dataclass(frozen=True)
class Choice:
    """The reply to a ``play``, and how it was found (for the log)."""

    move: str
    sims: int = 0
    nodes: int = 0
    """The nodes of the search tree after the search."""
    fallback: str | None = None
    """Why the move is not the search's (None when it is); for `NIL`, why there is none."""
    forced: bool = False
    unchecked: bool = False
    """The search's move, sent without the copy's check (the copy is gone)."""
    pondered: int = 0
    """Simulations run while pondering since the last search (before this one)..."""
    ponder_seconds: float = 0.0
    """...and the seconds they took."""
    settled: int = 0
    """The other iterations of both: those that ended on a node already proven
    (`ggp.player.search.mcts.MCTS.settled`), no leaf evaluated."""
    reasoner: str = ""
    """What played the rules in the search (`ggp.player.service.search_worker.reasoner_of`)."""
    config: str = ""
    """The search's configuration (`ggp.player.search.races.SearchConfig.describe`)."""
    proven: int | None = None
    """Our goal, proven by the search's solver at this move (None: not proven)."""
    value: int | None = None
    """The search's mean goal for us of the move played, 0 to 100 (None: not searched)."""
    line: str = ""
    """In a puzzle, what the search says of its best line (``best goal known ...``)."""
    tactics: str = ""
    """What the tactical search proved at this move (empty: nothing)."""
    passed_over: str = ""
    """The most visited move where another was played (`passed_over`; empty: none)."""


@dataclass(frozen=True)
class _Position:
    """Where the server's copy of the game stands."""

    role: int
    legal: tuple[str, ...]
    """Our legal moves (none when the state is terminal)."""
    terminal: bool
    steps: int
    """The joint moves played to reach it."""


class Session:
    """One match: ``start`` (`prepare`), ``play`` (`play`), ``stop``/``abort`` (`finish`).

    Callers hold `lock` around each of these, so the messages of one match are
    handled one at a time, in order; `interrupt` may be called at any time.
    """

    def __init__(
        self,
        match_id: str,
        role: str,
        play_clock: float,
        *,
        table_dir: Path | None = None,
        iterations: int | None = None,
        max_nodes: int | None = None,
        workers: int = 1,
        races: bool = True,
        tactics: bool = TACTICS,
        tactics_race: bool = TACTICS_RACE,
        final: str = DEFAULT_FINAL,
        limits: Limits | None = None,
        spawn_copy: Callable[[], Awaitable[GameClient]] | None = None,
        answer_grace: float = 0.0,
    ) -> None:
        self.match_id = match_id
        self.role = role
        self.play_clock = clamp_clock(play_clock)
        self.table_dir = table_dir
        self.iterations = iterations
        self.max_nodes = max_nodes
        self.workers = workers
        self.races = races
        self.tactics = tactics
        self.tactics_race = tactics_race
        self.final = final
        """How the move is chosen from the search's root statistics (``load``'s ``final``)."""
        self.limits = limits or Limits()
        self._spawn = spawn_copy or (lambda: GameClient.spawn(self.limits.copy_memory))
        """Gives a game process (`Player` keeps one ready, so that a start does not wait)."""
        self.answer_grace = answer_grace
        """Seconds past a reply's deadline the worker's answer is still waited for (the
        server gives `answer_grace(margin)`): the search itself ends before the deadline."""
        self.lock = asyncio.Lock()
        self.last_active = time.monotonic()
        """When a message of this match last arrived or was answered (monotonic)."""
        self.quiet_until = 0.0
        """Until when silence is expected (monotonic): the start clock's end, which the
        other players may use whole even where this player answered ready early."""
        self.copy: GameClient | None = None
        self.worker: WorkerPool | None = None
        self.problem: str | None = None
        """Why this match cannot be played (the rules, the role), once known."""
        self.lost: str | None = None
        """Why the server's copy of the game is gone, once it is."""
        self.closing = False
        self.steps = 0
        """Joint moves received from the manager and not refused."""
        self.restarts = 0
        self._rules = ""
        self._position: _Position | None = None
        self._latest: asyncio.Future[dict[str, Any]] | None = None
        """The copy's answer to the last command sent to it."""
        self._unchecked: list[tuple[str, ...]] = []
        """Joint moves sent to the copy and not answered yet, oldest first."""
        self._history: list[tuple[str, ...]] = []
        """The joint moves told to the worker (to bring a new worker in step)."""
        self._loading: asyncio.Future[dict[str, Any]] | None = None
        """The worker's answer to ``load``."""
        self._worker_role: int | None = None
        """Our role's index as the worker's game has it (for searches before the copy knows)."""
        self._rng = random.Random()
        self.hidden = False
        """Whether the match is GDL-II's: we see our percepts only (see the module)."""
        self.replied: str | None = None
        """In a GDL-II match, the move we last replied (the older GameController form of
        ``play`` does not tell it back)."""
        self.line = ""
        """In a puzzle, what the search said of its best line at its last answer."""
        self._plan: tuple[int, tuple[str, ...]] = (0, ())
        """In a puzzle, the moves of the best line at the search's last answer, and the
        joint moves played before it: what a fallback plays while they are followed."""

    # ------------------------------------------------------------ start

    async def prepare(self, rules: str, start_clock: float, deadline: float) -> Choice | None:
        """Read the rules, start the worker and search until `deadline`.

        The copy may build the game for `start_clock` CPU seconds.  Returns the
        search's result (None: there was none).  Problems are logged and kept in
        `problem` or `lost`; nothing raises.
        """
        self._rules = rules
        self.copy = await self._spawn_copy()
        if self.copy is not None:
            build = {"cmd": "build", "rules": rules, "role": self.role}
            self._latest = self.copy.ask(build, clamp_clock(start_clock))
            self._latest.add_done_callback(self._built)
        self.worker = await self._spawn_worker()
        loading: asyncio.Future[dict[str, Any]] | None = None
        if self.worker is not None:
            loading = asyncio.ensure_future(self.worker.request(self._load_command(), None))
            loading.add_done_callback(self._loaded)
            self._loading = loading
        current = await self._catch_up(deadline)
        if self.problem is not None or self.hidden:
            if loading is not None:
                loading.cancel()
            await self._drop_worker(0)
            return None
        if self.worker is not None and loading is not None:
            try:
                await asyncio.wait_for(asyncio.shield(loading), _left(deadline))
            except TimeoutError:  # still loading: the commands queue behind the load
                pass
            except WorkerError:
                await self._drop_worker()
        position = self._position
        if not current or position is None or self.worker is None or not position.legal:
            return None
        return await self._search(deadline, position.legal, START_RACE_SHARE, start_clock=True)

    def _loaded(self, loading: asyncio.Future[dict[str, Any]]) -> None:
        if loading.cancelled():
            return
        if (error := loading.exception()) is not None:
            log.warning("match %s: the search worker failed: %s", self.match_id, error)
            return
        roles = loading.result()["roles"]
        folded = [i for i, name in enumerate(roles) if name.lower() == self.role.lower()]
        if self.role in roles or len(folded) == 1:
            self._worker_role = roles.index(self.role) if self.role in roles else folded[0]

    async def _spawn_copy(self) -> GameClient | None:
        try:
            copy = await self._spawn()
        except OSError as error:
            self._lose(f"cannot start it: {error}")
            return None
        if self.closing:
            copy.kill("the match has ended")
            await copy.close(0)  # reaped here: no process outlives the event loop
            return None
        return copy

    async def _spawn_worker(self) -> WorkerPool | None:
        try:
            pool = await WorkerPool.spawn(self.workers)
        except OSError as error:
            log.error("match %s: cannot start a search worker: %s", self.match_id, error)
            return None
        if self.closing:
            await pool.close(0)
            return None
        if self.limits.worker_memory is not None:
            for worker in pool.workers:
                with contextlib.suppress(OSError):  # it has ended already
                    lifeline.limit_memory(self.limits.worker_memory, worker.process.pid)
        return pool

    def _load_command(self) -> dict[str, object]:
        command: dict[str, object] = {
            "cmd": "load",
            "rules": self._rules,
            "depth": TABLE_DEPTH,
            "races": self.races,
            "tactics": self.tactics,
            "tactics_race": self.tactics_race and not self.tactics,
            "final": self.final,
        }
        if self.table_dir is not None:
            command["table_dir"] = str(self.table_dir)
        if self.max_nodes is not None:  # the match's memory, shared among its workers
            command["max_nodes"] = max(1, self.max_nodes // self.workers)
        if self.iterations is None:  # a fixed number of simulations a move: no pondering
            command["ponder"] = PONDER_CLOCKS * self.play_clock
        return command

    async def _restart_worker(self) -> None:
        """Start a new worker in place of one that ended, and bring it in step."""
        self.restarts += 1
        log.warning(
            "match %s: the search worker has ended; starting another (%d of at most %d)",
            self.match_id,
            self.restarts,
            MAX_RESTARTS,
        )
        await self._drop_worker()
        self.worker = await self._spawn_worker()
        if self.worker is not None:
            self.worker.send(self._load_command())
            for joint in self._history:
                self.worker.send({"cmd": "advance", "joint": list(joint)})

    # ------------------------------------------------------------ the copy's answers

    def _built(self, build: asyncio.Future[dict[str, Any]]) -> None:
        error = None if build.cancelled() else build.exception()
        if build.cancelled() or self.lost is not None:
            return
        if isinstance(error, WorkerDied):
            self._lose(self._copy_ended())
        elif error is not None:
            self.problem = str(error)
            log.warning("match %s: cannot play these rules: %s", self.match_id, error)
        elif "failed" in (answer := build.result()):
            self._lose(f"building the game failed: {answer['failed']}")
        else:
            self._position = _Position(
                answer["role"], tuple(answer["legal"]), answer["terminal"], 0
            )
            self.hidden = bool(answer.get("gdl_ii"))

    def _advanced(self, step: asyncio.Future[dict[str, Any]]) -> None:
        error = None if step.cancelled() else step.exception()
        if step.cancelled() or self.lost is not None:
            return  # the joint moves not checked were given to the worker
        if isinstance(error, WorkerDied):
            self._lose(self._copy_ended())
            return
        moves = self._unchecked.pop(0)
        if error is not None:  # refused: the play waiting for it says why
            self.steps -= 1
            return
        answer = step.result()
        if "failed" in answer:
            self._lose(f"playing {' '.join(moves)} failed: {answer['failed']}")
            return
        self._tell_worker(tuple(answer["joint"]))
        role = self._position.role if self._position is not None else 0
        self._position = _Position(
            role, tuple(answer["legal"]), answer["terminal"], len(self._history)
        )

    def _copy_ended(self) -> str:
        return self.copy.why_ended if self.copy is not None else "it has ended"

    def _lose(self, why: str) -> None:
        """Go on without the server's copy of the game (see the module)."""
        if self.lost is not None:
            return
        self.lost = why
        if not self.closing:
            log.warning(
                "match %s: the server's copy of the game is stopped (%s); the moves are no "
                "longer checked",
                self.match_id,
                why,
            )
        if self.copy is not None:
            self.copy.kill(why)
        for moves in self._unchecked:
            self._tell_worker(moves)
        self._unchecked.clear()

    def _tell_worker(self, joint: tuple[str, ...]) -> None:
        self._history.append(joint)
        if self.worker is not None and self.worker.alive:
            self.worker.send({"cmd": "advance", "joint": list(joint)})

    async def _catch_up(self, deadline: float) -> bool:
        """Wait until `deadline` at most for the copy's answer to the last command.

        True when the copy knows the current state; raises `MoveError` when the
        last joint move was refused.
        """
        latest = self._latest
        if self.lost is not None or self.problem is not None or latest is None:
            return self.lost is None and self.problem is None and latest is not None
        try:
            await asyncio.wait_for(asyncio.shield(latest), _left(deadline))
        except TimeoutError:
            return False
        except WorkerDied:
            return False
        except WorkerError as error:
            if self.problem is None:
                raise MoveError(str(error)) from None
            return False
        return self.lost is None

    # ------------------------------------------------------------ play

    async def play(
        self, moves: Sequence[str] | None, deadline: float, seen: Seen | None = None
    ) -> Choice:
        """Play the manager's joint move `moves` (None: no move yet), then choose ours;
        in a GDL-II match, perceive what `seen` says instead (see `_play_unseen`).

        Raises `MoveError` if `moves` cannot be played (nothing changes then),
        or if they end the game (the manager should have sent ``stop``).
        """
        if seen is not None or self.hidden:
            return await self._play_unseen(moves, seen, deadline)
        if self.problem is None and moves is not None:
            self._submit(tuple(moves))
        elif moves is None and self.steps:
            log.warning("match %s: play with no moves after move %d", self.match_id, self.steps)
        building = self._position is None and self.lost is None and self.problem is None
        if building and not self._unchecked and self._latest is not None:
            early = await self._search_while_building(deadline)
            if early is not None:
                return early
        current = await self._catch_up(deadline)
        if self.problem is not None:
            if self.worker is not None:
                await self._drop_worker(0)
            return Choice(NIL, fallback=self.problem)
        position = self._position
        if not current:
            if self.lost is not None:
                return await self._search(deadline, None)
            doing = "reading the rules" if position is None else "playing the last joint move"
            return self._fallback(f"the server's copy of the game is still {doing}")
        assert position is not None
        if position.terminal:
            raise MoveError("the game is over: this joint move ended it (expected stop)")
        if len(position.legal) == 1:
            return Choice(position.legal[0], forced=True)
        return await self._search(deadline, position.legal)

    async def _play_unseen(
        self, moves: Sequence[str] | None, seen: Seen | None, deadline: float
    ) -> Choice:
        """A GDL-II play: our last move and percepts to the copy, then its search.

        `seen` is what ``(play ID TURN LASTMOVE PERCEPTS)`` told; without it, the
        older GameController's ``(play ID (PERCEPT...))`` gave `moves` as our percepts,
        our own move untold (the copy takes the one it chose).
        """
        current = await self._catch_up(deadline)
        if self.problem is not None:
            return Choice(NIL, fallback=self.problem)
        if not current:
            return self._fallback("the server's copy of the game is not ready")
        if not self.hidden:
            raise MoveError("a GDL-II play (TURN LASTMOVE PERCEPTS) for rules without sees")
        if seen is None and self.replied is not None:  # (play ID ()): no percept, not nil
            seen = Seen(self.steps + 1, self.replied, tuple(moves or ()))
        if seen is not None and (seen.turn > 0 or seen.move is not None):
            assert self.copy is not None
            self.steps += 1
            command = {"cmd": "perceive", "move": seen.move, "percepts": list(seen.percepts)}
            self._latest = self.copy.ask(command, self.play_clock)
            self._latest.add_done_callback(self._perceived)
            if not await self._catch_up(deadline):
                return self._fallback("the server's copy is still filtering what we saw")
        position = self._position
        assert position is not None
        if position.terminal:
            raise MoveError("the game is over: this joint move ended it (expected stop)")
        if len(position.legal) == 1:
            choice = Choice(position.legal[0], forced=True)
        else:
            choice = await self._choose_unseen(deadline, position.legal)
        self.replied = None if choice.move == NIL else choice.move
        return choice

    def _perceived(self, step: asyncio.Future[dict[str, Any]]) -> None:
        error = None if step.cancelled() else step.exception()
        if step.cancelled() or self.lost is not None:
            return
        if isinstance(error, WorkerDied):
            self._lose(self._copy_ended())
        elif error is not None:  # refused: the play waiting for it says why
            self.steps -= 1
        elif "failed" in (answer := step.result()):
            self._lose(f"perceiving failed: {answer['failed']}")
        else:
            role = self._position.role if self._position is not None else 0
            legal = tuple(answer["legal"])
            self._position = _Position(role, legal, answer["terminal"], self.steps)

    async def _choose_unseen(self, deadline: float, legal: tuple[str, ...]) -> Choice:
        """The copy's information-set search, or a fallback if it has none in time."""
        assert self.copy is not None
        command = {  # a share of the time: the copy answers less promptly than a worker
            "cmd": "choose",
            "until": time.time() + UNSEEN_SHARE * _left(deadline) - REPLY_ALLOWANCE,
            "iterations": self.iterations,
        }
        waited = _left(deadline) + self.answer_grace
        asked = self.copy.ask(command, max(waited, MIN_SHARE))
        try:
            answer = await asyncio.wait_for(asyncio.shield(asked), waited)
        except TimeoutError:
            return self._fallback("the search did not answer in time")
        except WorkerDied:
            self._lose(self._copy_ended())
            return self._fallback("the server's copy of the game ended")
        except WorkerError as error:
            return self._fallback(f"the search: {error}")
        if "failed" in answer:
            self._lose(f"the search failed: {answer['failed']}")
            return self._fallback("the search failed")
        if answer["move"] not in legal:
            return self._fallback(f"the search chose {answer['move']}, not legal")
        return Choice(
            answer["move"],
            answer["sims"],
            answer["nodes"],
            reasoner=answer.get("reasoner", ""),
            config="information-set search",
        )

    async def _search_while_building(self, deadline: float) -> Choice | None:
        """While the copy still builds the game (a start clock too short for a machine
        this loaded), search as soon as the worker knows our role: its move, checked if
        the copy is ready by then, else unchecked.  None: play on as usual."""
        building = asyncio.ensure_future(self._catch_up(deadline))
        waiting: set[asyncio.Future[Any]] = {building}
        if self._loading is not None:
            waiting.add(self._loading)
        while self._worker_role is None and not building.done() and waiting:
            done, waiting = await asyncio.wait(
                waiting, timeout=_left(deadline), return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                break
        if building.done() or self._worker_role is None:
            building.cancel()
            return None
        choice = await self._search(deadline, None)
        building.cancel()
        position = self._position
        if position is None:
            return choice
        if choice.fallback is None and choice.move in position.legal and not position.terminal:
            return dataclasses.replace(choice, unchecked=False)
        return None

    def _submit(self, moves: tuple[str, ...]) -> None:
        """Send the manager's joint move to the copy to be checked (or, without a copy,
        to the worker)."""
        self.steps += 1
        if self.lost is not None or self.copy is None:
            self._tell_worker(moves)
            return
        self._unchecked.append(moves)
        self._latest = self.copy.ask({"cmd": "advance", "moves": list(moves)}, self.play_clock)
        self._latest.add_done_callback(self._advanced)

    async def _search(
        self,
        deadline: float,
        legal: tuple[str, ...] | None,
        race: float = 0.0,
        start_clock: bool = False,
    ) -> Choice:
        """The worker's move, or a fallback if it has none in time (legal in `legal`
        when given; without it, the move is sent unchecked); the `race` share of
        the search may go to races (`ggp.player.service.search_worker`);
        `start_clock`: the start clock's search."""
        alive = self.worker is not None and self.worker.alive
        if not alive and self.restarts < MAX_RESTARTS and not self.closing:
            await self._restart_worker()
        if self.worker is None or not self.worker.alive:
            return self._fallback("no search worker")
        role = self._position.role if self._position is not None else self._worker_role
        if role is None:
            return self._fallback("our role is not known yet")
        command = {
            "cmd": "search",
            "role": role,
            "until": time.time() + _left(deadline) - REPLY_ALLOWANCE,
            "iterations": self.iterations,
            "race": race,
            "start": start_clock,
        }
        try:
            answer = await self.worker.request(command, _left(deadline) + self.answer_grace)
        except WorkerDied:
            # another worker, while restarts last
            return await self._search(deadline, legal, race, start_clock)
        except WorkerError as error:
            return self._fallback(f"search worker: {error}")
        if answer["steps"] != len(self._history):
            await self._drop_worker()
            return self._fallback(
                f"the search worker was at move {answer['steps']}, not {len(self._history)}; "
                "stopped it"
            )
        self.line = answer.get("line", self.line)
        if "plan" in answer:
            self._plan = (answer["steps"], tuple(answer["plan"]))
        if legal is not None and answer["move"] not in legal:
            return self._fallback(f"the search chose {answer['move']}, not legal")
        return Choice(
            answer["move"],
            answer["sims"],
            answer["nodes"],
            unchecked=legal is None,
            pondered=answer["pondered"],
            ponder_seconds=answer["ponder_seconds"],
            settled=answer.get("settled", 0),
            reasoner=answer.get("reasoner", ""),
            config=answer.get("config", ""),
            proven=answer.get("proven"),
            value=played_value(answer),
            passed_over=passed_over(answer),
            line=answer.get("line", ""),
            tactics=answer.get("tactics", ""),
        )

    def _fallback(self, why: str) -> Choice:
        """A random move legal in the last state the copy reached, or `NIL` (see the module)."""
        position = self._position
        if position is None or not position.legal:
            return Choice(NIL, fallback=f"{why}; no legal move known")
        planned = self._planned()
        if planned is not None:
            return Choice(planned, fallback=f"{why}; the best line's next move")
        behind = self.steps - position.steps
        if behind:
            why += f"; a move legal {behind} joint move(s) ago"
        return Choice(self._rng.choice(position.legal), fallback=why)

    def _planned(self) -> str | None:
        """In a puzzle, the next move of the best line the search last answered, if
        every move played since followed it (a line of one role's moves is played
        as it is: the puzzle is deterministic)."""
        at, plan = self._plan
        played = self._history[at:]
        if len(played) >= len(plan) or played != [(move,) for move in plan[: len(played)]]:
            return None
        return plan[len(played)]

    # ------------------------------------------------------------ stop, abort

    async def finish(self, moves: Sequence[str] | None, deadline: float) -> str | None:
        """End the match after `moves` (if any): save the state table, stop the children.

        Returns the path of the saved table, if one was saved.  A joint move
        that cannot be played is logged, not raised: the match is over anyway.
        """
        position = self._position
        playable = position is not None and not position.terminal and self.problem is None
        playable = playable and not self.hidden  # GDL-II: nothing left to follow
        if moves is not None and playable and not self.closing:
            self._submit(tuple(moves))
            try:
                await self._catch_up(deadline)
            except MoveError as error:
                log.warning("match %s: the last joint move: %s", self.match_id, error)
        saved = None
        if self.worker is not None and self.table_dir is not None and not self.closing:
            try:
                answer = await self.worker.request({"cmd": "save"}, _left(deadline))
                saved = answer["path"]
            except WorkerError as error:
                log.warning("match %s: state table not saved: %s", self.match_id, error)
        await self.close(grace=0)  # the table is saved: nothing to wait for
        return saved

    def interrupt(self) -> None:
        """Kill the children now, so that a ``start`` or ``play`` being handled ends at once."""
        self.closing = True
        if self.copy is not None:
            self.copy.kill("the match has ended")
        for worker in self.worker.workers if self.worker is not None else []:
            if worker.process.returncode is None:
                worker.process.kill()

    async def close(self, grace: float = 1.0) -> None:
        """Stop the children (the worker may take `grace` seconds to quit)."""
        self.closing = True
        copy, self.copy = self.copy, None
        if copy is not None:
            copy.kill("the match has ended")
            await copy.close(0)
        await self._drop_worker(grace)

    async def _drop_worker(self, grace: float = 1.0) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            await worker.close(grace)


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())
