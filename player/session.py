"""One match being played: its game, where it stands, its clock and its search worker.

The server keeps its own copy of the game (built from the rules in a thread,
so the event loop stays free): it checks every joint move the manager sends,
knows our legal moves, and so can always answer a legal move in time, even
when the search worker is slow, out of step or dead (the *fallback*, a random
legal move).  The worker (`player.search_worker`) holds the search tree and
is told every joint move; it is asked for a move with a budget that ends a
little before the deadline.  A match may have several workers
(`player.worker_pool`: their root statistics are summed), and they ponder:
they search on between our replies, from the tree they keep.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from games.base import Game, GameError, State
from player.game_factory import game_from_text
from player.protocol import NIL
from player.worker_client import WorkerDied, WorkerError
from player.worker_pool import WorkerPool

log = logging.getLogger(__name__)

TABLE_DEPTH = 4
"""Levels of the tree a state table keeps (as the MCTS agent's default)."""

REPLY_ALLOWANCE = 0.05
"""Seconds between the end of a search and the deadline: for the worker's answer
to reach the server and the reply to be written."""

MIN_SHARE = 0.1
"""The share of a clock used when the margin would leave less."""

MAX_RESTARTS = 2
"""Search workers started again in one match after one ended (killed for memory...)."""

PONDER_CLOCKS = 3
"""Workers ponder for at most this many play clocks after the last message: a
manager that has been silent longer has left the match."""


def reply_deadline(arrival: float, clock: float, margin: float) -> float:
    """When a reply is due (monotonic seconds): arrival + clock - margin.

    A margin that would leave less than a tenth of the clock leaves that tenth.
    """
    return arrival + max(clock - margin, clock * MIN_SHARE)


class MoveError(GameError):
    """A joint move from the manager that cannot be played; the text says why."""


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
    pondered: int = 0
    """Simulations run while pondering since the last search (before this one)..."""
    ponder_seconds: float = 0.0
    """...and the seconds they took."""


@dataclass
class _Position:
    """The game and where the match stands in it (the server's copy)."""

    game: Game
    role: int
    state: State
    legal: tuple[str, ...]
    """Our legal moves in `state` (none when it is terminal)."""


class Session:
    """One match: ``start`` (`prepare`), ``play`` (`play`), ``stop``/``abort`` (`finish`).

    Callers hold `lock` around each of these, so the messages of one match are
    handled one at a time, in order.
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
    ) -> None:
        self.match_id = match_id
        self.role = role
        self.play_clock = play_clock
        self.table_dir = table_dir
        self.iterations = iterations
        self.max_nodes = max_nodes
        self.workers = workers
        self.lock = asyncio.Lock()
        self.worker: WorkerPool | None = None
        self.problem: str | None = None
        """Why this match cannot be played (the rules, the role), once known."""
        self.steps = 0
        self.restarts = 0
        self._rules = ""
        self._history: list[tuple[str, ...]] = []
        """The joint moves played, as the rules spell them (to bring a new worker in step)."""
        self._position: _Position | None = None
        self._building: asyncio.Future[_Position] | None = None
        self._rng = random.Random()

    # ------------------------------------------------------------ start

    async def prepare(self, rules: str, deadline: float) -> int:
        """Read the rules, start the worker and search until `deadline`.

        Returns the simulations run.  Problems are logged and kept in
        `problem`; nothing raises.
        """
        self._rules = rules
        self._building = asyncio.ensure_future(asyncio.to_thread(self._build, rules))
        self.worker = await self._spawn()
        if self.worker is not None:
            loading = asyncio.ensure_future(self.worker.request(self._load_command(), None))
        position = await self._ready(deadline)
        if self.worker is not None and self.problem is not None:
            loading.cancel()
            await self._drop_worker()
        elif self.worker is not None:
            try:
                await asyncio.wait_for(asyncio.shield(loading), _left(deadline))
            except TimeoutError:  # still loading: the commands queue behind the load
                loading.add_done_callback(self._log_load_failure)
            except WorkerError as error:
                log.warning("match %s: the search worker failed: %s", self.match_id, error)
                await self._drop_worker()
        if position is None or self.worker is None or not position.legal:
            return 0
        choice = await self._search(position, deadline)
        return choice.sims

    def _log_load_failure(self, loading: asyncio.Future[dict[str, object]]) -> None:
        if not loading.cancelled() and (error := loading.exception()) is not None:
            log.warning("match %s: the search worker failed: %s", self.match_id, error)

    async def _spawn(self) -> WorkerPool | None:
        try:
            return await WorkerPool.spawn(self.workers)
        except OSError as error:
            log.error("match %s: cannot start a search worker: %s", self.match_id, error)
            return None

    def _load_command(self) -> dict[str, object]:
        command: dict[str, object] = {"cmd": "load", "rules": self._rules, "depth": TABLE_DEPTH}
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
        self.worker = await self._spawn()
        if self.worker is not None:
            self.worker.send(self._load_command())
            for joint in self._history:
                self.worker.send({"cmd": "advance", "joint": list(joint)})

    def _build(self, rules: str) -> _Position:
        """The server's own copy of the game, which checks the manager's moves and
        gives fallback moves: interpreted, so it is ready at once even when the
        worker spends seconds compiling the rules for search."""
        game = game_from_text(rules, f"the rules of match {self.match_id}", "interpreter")
        role = _find_role(game, self.role)
        state = game.initial_state()
        return _Position(game, role, state, state.legal_moves(role))

    async def _ready(self, deadline: float) -> _Position | None:
        """The game once built (waiting until `deadline` at most), or None."""
        if self._position is not None or self.problem is not None or self._building is None:
            return self._position
        try:
            self._position = await asyncio.wait_for(asyncio.shield(self._building), _left(deadline))
        except TimeoutError:
            return None
        except GameError as error:
            self.problem = str(error)
            log.warning("match %s: cannot play these rules: %s", self.match_id, error)
        except Exception as error:  # a bug in the reasoner: this match is lost, not the server
            self.problem = f"{type(error).__name__}: {error}"
            log.exception("match %s: reading the rules failed", self.match_id)
        return self._position

    # ------------------------------------------------------------ play

    async def play(self, moves: Sequence[str] | None, deadline: float) -> Choice:
        """Play the manager's joint move `moves` (None: no move yet), then choose ours.

        Raises `MoveError` if `moves` cannot be played (nothing changes then),
        or if they end the game (the manager should have sent ``stop``).
        """
        position = await self._ready(deadline)
        if position is None:
            why = self.problem or "the rules are still being read"
            return Choice(NIL, fallback=why)
        if moves is not None:
            position = await self._advance(position, moves)
        elif self.steps:
            log.warning("match %s: play with no moves after move %d", self.match_id, self.steps)
        if not position.legal:
            raise MoveError("the game is over: this joint move ended it (expected stop)")
        if len(position.legal) == 1:
            return Choice(position.legal[0], forced=True)
        return await self._search(position, deadline)

    async def _advance(self, position: _Position, moves: Sequence[str]) -> _Position:
        try:
            joint, state, legal = await asyncio.to_thread(_next, position, moves)
        except GameError as error:
            raise MoveError(str(error)) from None
        except Exception as error:  # a bug in the reasoner: say so to the manager
            log.exception("match %s: the joint move %s failed", self.match_id, list(moves))
            raise MoveError(f"{type(error).__name__}: {error}") from None
        position.state, position.legal = state, legal
        self.steps += 1
        self._history.append(joint)
        if self.worker is not None:
            self.worker.send({"cmd": "advance", "joint": list(joint)})
        return position

    async def _search(self, position: _Position, deadline: float) -> Choice:
        """The worker's move, or a fallback if it has none that is legal in time."""
        if (self.worker is None or not self.worker.alive) and self.restarts < MAX_RESTARTS:
            await self._restart_worker()
        if self.worker is None or not self.worker.alive:
            return self._fallback(position, "no search worker")
        command = {
            "cmd": "search",
            "role": position.role,
            "until": time.time() + _left(deadline) - REPLY_ALLOWANCE,
            "iterations": self.iterations,
        }
        try:
            answer = await self.worker.request(command, _left(deadline))
        except WorkerDied:
            return await self._search(position, deadline)  # another worker, while restarts last
        except WorkerError as error:
            return self._fallback(position, f"search worker: {error}")
        if answer["steps"] != self.steps:
            await self._drop_worker()
            return self._fallback(
                position,
                f"the search worker was at move {answer['steps']}, not {self.steps}; stopped it",
            )
        if answer["move"] not in position.legal:
            return self._fallback(position, f"the search chose {answer['move']}, not legal")
        return Choice(
            answer["move"],
            answer["sims"],
            answer["nodes"],
            pondered=answer["pondered"],
            ponder_seconds=answer["ponder_seconds"],
        )

    def _fallback(self, position: _Position, why: str) -> Choice:
        return Choice(self._rng.choice(position.legal), fallback=why)

    # ------------------------------------------------------------ stop, abort

    async def finish(self, moves: Sequence[str] | None, deadline: float) -> str | None:
        """End the match after `moves` (if any): save the state table, stop the worker.

        Returns the path of the saved table, if one was saved.  A joint move
        that cannot be played is logged, not raised: the match is over anyway.
        """
        position = self._position
        if moves is not None and position is not None and position.legal:
            try:
                await self._advance(position, moves)
            except MoveError as error:
                log.warning("match %s: the last joint move: %s", self.match_id, error)
        saved = None
        if self.worker is not None and self.table_dir is not None:
            try:
                answer = await self.worker.request({"cmd": "save"}, _left(deadline))
                saved = answer["path"]
            except WorkerError as error:
                log.warning("match %s: state table not saved: %s", self.match_id, error)
        await self.close(grace=_left(deadline))
        return saved

    async def close(self, grace: float = 1.0) -> None:
        """Stop the worker and let go of the game."""
        if self._building is not None and not self._building.done():
            self._building.cancel()  # its thread finishes on its own; the result is dropped
        await self._drop_worker(grace)
        self._position = None

    async def _drop_worker(self, grace: float = 1.0) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            await worker.close(grace)


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def _find_role(game: Game, role: str) -> int:
    """The index of `role`; a role spelt in another case is accepted if unambiguous."""
    if role in game.roles:
        return game.roles.index(role)
    folded = [i for i, name in enumerate(game.roles) if name.lower() == role.lower()]
    if len(folded) == 1:
        return folded[0]
    raise GameError(f"no role {role!r} in these rules; roles: {', '.join(game.roles)}")


def _next(
    position: _Position, moves: Sequence[str]
) -> tuple[tuple[str, ...], State, tuple[str, ...]]:
    """The joint move as the rules spell it, the state it leads to and our legal moves there."""
    state = position.state
    roles = state.game.roles
    if state.is_terminal():
        raise MoveError("the game is already over")
    if len(moves) != len(roles):
        raise MoveError(
            f"a joint move has one move per role ({len(roles)}: {', '.join(roles)}), "
            f"got {len(moves)}: {' '.join(moves)}"
        )
    joint = tuple(_spelt(state, i, move) for i, move in enumerate(moves))
    after = state.next(joint)
    return joint, after, after.legal_moves(position.role)


def _spelt(state: State, role: int, move: str) -> str:
    """The legal move `move` as the rules spell it (another case is accepted if unambiguous)."""
    legal = state.legal_moves(role)
    if move in legal:
        return move
    folded = [m for m in legal if m.lower() == move.lower()]
    if len(folded) == 1:
        return folded[0]
    shown = ", ".join(legal[:20]) + (", ..." if len(legal) > 20 else "")
    raise MoveError(f"{move} is not a legal move of {state.game.roles[role]}; legal: {shown}")
