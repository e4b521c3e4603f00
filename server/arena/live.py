"""A match under way in the arena: the referee's match loop, watched from browsers.

The match runs as a task of the arena's event loop (`ggp.server.match.referee_match`,
each agent searching in a process of its own: `ggp.server.arena.process_player`),
whoever is watching: closing a page does not stop it.  Every watcher gets a queue of
updates (a snapshot first, then steps, thinking, turns and the end), so any
number of pages may follow one match.

A GDL-II match (`Game.gdl_ii`) with a person in it is shown, while it runs, as
that person sees it (the first person's seat: `hidden_role`): their own moves,
percepts and legal moves, nothing of the state nor of the others' moves and
rankings; once it is over, whole.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from ggp.games.base import GameError, State
from ggp.player.agents import Clocks
from ggp.server.arena.catalogue import board_of, state_view
from ggp.server.arena.child import AgentChild
from ggp.server.arena.process_player import ProcessAgentPlayer
from ggp.server.arena.seat import PersonPlayer
from ggp.server.arena.store import ABORTED, FINISHED, RUNNING
from ggp.server.match import referee_match
from ggp.server.players import Player
from ggp.server.record import MatchRecord
from ggp.server.rules import RefereeGame

log = logging.getLogger(__name__)

HINT_SECONDS = 1.0
HINT_TIMEOUT = 120.0
"""Seconds a hint may take at most, its process's start (a GDL game compiled) included."""


class LiveMatch:
    """One match the arena referees, and the queues of those watching it."""

    def __init__(
        self,
        match_id: str,
        game: RefereeGame,
        players: Sequence[Player],
        clocks: Clocks,
        *,
        grace: float = 1.0,
        seed: int | None = None,
        child_game: dict[str, Any] | None = None,
        max_steps: int | None = None,
    ) -> None:
        self.id = match_id
        self.game = game
        self.players = list(players)
        self.clocks = clocks
        self.grace = grace
        self.seed = seed
        self.max_steps = max_steps
        self.started = time.time()
        self.status = RUNNING
        self.failure: str | None = None
        self.record: MatchRecord | None = None
        self.task: asyncio.Task | None = None
        self.watchers: set[asyncio.Queue] = set()
        self.waiting_since = 0.0
        """When the match last began to wait for a person (time.monotonic)."""
        self.stop_reason = "the match was stopped from the arena"
        self.board = board_of(game.game)
        self.child_game = child_game or {"rules": game.rules, "name": game.game.name}
        """The game as a child process builds it (`ggp.server.arena.arena.child_game`)."""
        self.hinter: AgentChild | None = None
        self.hinted = 0
        """The joint moves the hints' process has been told."""
        self.hint_lock = asyncio.Lock()
        self.reasons: list[list[str | None]] = []
        """For each state reached, why each role's reply was an error, in the referee's
        words (a GGP player by URL says why it could not be reached), else None."""
        for player in self.players:
            if isinstance(player, PersonPlayer):
                player.on_wait = self._turn_changed
            elif isinstance(player, ProcessAgentPlayer):
                player.on_thinking = self._thinking

    @property
    def roles(self) -> tuple[str, ...]:
        return self.game.game.roles

    @property
    def names(self) -> list[str]:
        return [player.name for player in self.players]

    def person(self, role: int) -> PersonPlayer | None:
        player = self.players[role] if 0 <= role < len(self.players) else None
        return player if isinstance(player, PersonPlayer) else None

    @property
    def hidden_role(self) -> int | None:
        """The role whose view alone is shown: a person's, in a running GDL-II match."""
        if self.status != RUNNING or not self.game.game.gdl_ii:
            return None
        return next((i for i, p in enumerate(self.players) if isinstance(p, PersonPlayer)), None)

    def current_state(self) -> State | None:
        return self.record.states[-1] if self.record and self.record.states else None

    def start(self, log_dir: str, on_end: Callable[[LiveMatch], None]) -> asyncio.Task:
        """Start the match as a task; `on_end` is called when it is over, however it ends."""
        self.task = asyncio.create_task(self._run(log_dir, on_end), name=f"match {self.id}")
        return self.task

    async def _run(self, log_dir: str, on_end: Callable[[LiveMatch], None]) -> None:
        try:
            record = await referee_match(
                self.game,
                self.players,
                clocks=self.clocks,
                grace=self.grace,
                seed=self.seed,
                match_id=self.id,
                log_dir=log_dir,
                on_step=self._stepped,
                max_steps=self.max_steps,
            )
            self.record = record
            self.status = FINISHED
        except asyncio.CancelledError:
            self.status, self.failure = ABORTED, self.stop_reason
            raise
        except GameError as error:  # the step limit, a refusal: said as it is
            self.status, self.failure = ABORTED, str(error)
            log.info("match %s aborted: %s", self.id, self.failure)
        except Exception as error:  # a player or the rules broke down: the match is aborted
            self._failed(f"{type(error).__name__}: {error}")
            log.warning("match %s aborted: %s", self.id, self.failure)
        finally:
            if self.hinter is not None:
                await self.hinter.close()
            self._broadcast(self._end_message())
            on_end(self)

    async def hint(self, role: int, seconds: float = HINT_SECONDS) -> list[dict]:
        """What a search of `seconds` thinks of each of `role`'s moves now, best first:
        in a process of its own (the event loop's stays free), started at the first
        hint and told the moves played since each time; ended with the match."""
        async with self.hint_lock:
            if self.hinter is not None and self.hinter.broken:
                await self.hinter.close()
                self.hinter = None
            try:
                if self.hinter is None:
                    self.hinter = AgentChild()
                    self.hinted = 0
                    await self.hinter.spawn()
                    start = {"cmd": "start", "game": self.child_game, "agent": None, "role": role}
                    await self._ask_hinter(start)
                moves = [list(joint) for joint in self.record.moves] if self.record else []
                command = {"cmd": "hint", "moves": moves[self.hinted :], "role": role}
                answer = await self._ask_hinter({**command, "seconds": seconds})
                self.hinted = len(moves)
                return answer["ranking"]
            finally:
                if self.status != RUNNING and self.hinter is not None:  # the match ended
                    await self.hinter.close()

    async def _ask_hinter(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.hinter is not None
        answer = await self.hinter.ask(command, HINT_TIMEOUT)
        if "error" in answer:
            raise GameError(f"the hint failed: {answer['error']}")
        return answer

    def abort(self, reason: str) -> None:
        """Stop the match (its players aborted, its log written) for `reason`."""
        if self.status == RUNNING and self.task is not None and not self.task.done():
            self.stop_reason = reason
            self.task.cancel()

    def _failed(self, reason: str) -> None:
        self.status = ABORTED
        self.failure = (self.record.failure if self.record else None) or reason

    # --- what the watchers are sent -------------------------------------------------------

    def subscribe(self) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        queue.put_nowait(self.snapshot())
        if self.status != RUNNING:
            queue.put_nowait(self._end_message())
        self.watchers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        self.watchers.discard(queue)

    def _broadcast(self, message: dict[str, Any]) -> None:
        for queue in self.watchers:
            queue.put_nowait(message)

    def waiting(self) -> list[int]:
        return [
            role
            for role, player in enumerate(self.players)
            if isinstance(player, PersonPlayer) and player.waiting
        ]

    def snapshot(self) -> dict[str, Any]:
        """Everything a page needs to show the match as it is now."""
        record = self.record
        steps = [] if record is None else [self._step(record, i) for i in range(len(record.states))]
        return {
            "type": "snapshot",
            "id": self.id,
            "game": self.game.spec,
            "roles": list(self.roles),
            "players": self.names,
            "persons": [i for i, p in enumerate(self.players) if isinstance(p, PersonPlayer)],
            "board": self.board,
            "clocks": {"start": self.clocks.start, "play": self.clocks.play},
            "timed_person": any(isinstance(p, PersonPlayer) and p.timed for p in self.players),
            "status": self.status,
            "failure": self.failure,
            "steps": steps,
            "waiting": self.waiting(),
            "view": None if self.hidden_role is None else {"role": self.hidden_role},
            "now": time.time() * 1000,
        }

    def _step(self, record: MatchRecord, index: int) -> dict[str, Any]:
        role = self.hidden_role
        if role is not None:
            return self._seen_step(record, index, role)
        step = {
            "index": index,
            "moves": list(record.moves[index - 1]) if index else None,
            "errors": list(record.errors[index]) if index < len(record.errors) else None,
            "time": record.state_times[index],
            "reasons": self.reasons[index] if index < len(self.reasons) else None,
        }
        if index == len(record.states) - 1:
            step.update(state_view(record.states[index]))
        else:
            step["facts"] = list(record.states[index].facts())
        return step

    def _seen_step(self, record: MatchRecord, index: int, role: int) -> dict[str, Any]:
        """Step `index` as `role` saw it: its move, its percepts as the facts shown, and
        its legal moves now; the others' moves and errors as ``?`` and ``""``."""
        state = record.states[index]
        terminal = state.is_terminal()
        moves = record.moves[index - 1] if index else None
        errors = record.errors[index] if index < len(record.errors) else None
        return {
            "index": index,
            "moves": None if moves is None else _own(moves, role, "?"),
            "errors": None if errors is None else _own(errors, role, ""),
            "time": record.state_times[index],
            "facts": list(record.percepts[index - 1][role]) if index else [],
            "terminal": terminal,
            "legal": [
                list(state.legal_moves(i)) if i == role and not terminal else []
                for i in range(len(self.roles))
            ],
            "goals": None,
        }

    def _stepped(self, record: MatchRecord) -> None:
        self.record = record
        errors = record.errors[-1] if record.errors else ()
        self.reasons.append(
            [
                getattr(player, "problem", None) if role < len(errors) and errors[role] else None
                for role, player in enumerate(self.players)
            ]
        )
        message = {"type": "step", **self._step(record, len(record.states) - 1)}
        message["rankings"] = {
            role: player.ranking
            for role, player in enumerate(self.players)
            if isinstance(player, ProcessAgentPlayer) and player.ranking
        }
        if self.hidden_role is not None:  # what an agent thinks tells of the hidden state
            message["rankings"] = {}
        message["now"] = time.time() * 1000
        self._broadcast(message)

    def _turn_changed(self) -> None:
        if self.waiting():
            self.waiting_since = time.monotonic()
        self._broadcast({"type": "waiting", "waiting": self.waiting()})

    def _end_message(self) -> dict[str, Any]:
        record = self.record
        return {
            "type": "end",
            "status": self.status,
            "goals": list(record.goals) if record and record.goals else None,
            "failure": self.failure,
        }

    def _thinking(self, role: int, ranking: list[dict]) -> None:
        if self.hidden_role is not None:
            return
        self._broadcast({"type": "thinking", "role": role, "ranking": ranking})


def _own(items: Sequence[str], role: int, hidden: str) -> list[str]:
    """`items` (one per role) with every role's but `role`'s replaced by `hidden`."""
    return [item if i == role else hidden for i, item in enumerate(items)]
