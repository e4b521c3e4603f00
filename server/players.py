"""Players as the referee drives them: asynchronously, each held to the match clocks.

A `Player` receives the protocol's four events (start, play, stop, abort) and
answers `play` with a `Reply`: the text of its move, or an error code when it
had none in time (``TO``) or could not be reached (``CE``).  Judging the move
(``IL``) is the referee's job, the same for every kind of player.

- `AgentPlayer`: an in-process agent (`ggp.player.agents`), run in its own thread
  so that the referee can keep the clock: a move that comes after the play
  clock and the grace period is late, as a remote player's would be.
- `RandomRolePlayer`: a role named ``random``, played by the referee itself.
- `ggp.server.remote.RemotePlayer`: a player behind an HTTP address.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ggp.games.base import Game, State
from ggp.player.agents import Agent, Clocks, HumanAgent, Sight


@dataclass(frozen=True)
class MatchSetup:
    """What every player of a match is told at its start."""

    match_id: str
    game: Game
    rules: str | None
    """The GDL text of the rules (what remote players get); None for a native game
    without a GDL description (only in-process players can play it)."""
    clocks: Clocks
    grace: float = 1.0
    """Seconds the referee waits beyond a clock before a reply is late."""

    def timeout(self, clock: float | None) -> float | None:
        """How long to wait for a reply to a message under `clock` (None: forever)."""
        return None if clock is None else clock + self.grace


@dataclass(frozen=True)
class Reply:
    """A player's answer: its text, or the error that stood in for it."""

    text: str | None
    error: str | None = None
    """``TO`` (late) or ``CE`` (connection failure); None when there is a text."""


class Player(ABC):
    """One seat of a match, from the referee's side."""

    name: str
    needs_rules = False
    """Whether the player must be sent the rules as GDL text (remote players)."""

    @abstractmethod
    async def start(self, setup: MatchSetup, role: int) -> Reply:
        """Tell the player the match begins and it plays `setup.game.roles[role]`."""

    @abstractmethod
    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        """Ask for a move in `state`, reached by the previous joint move `joint`
        (None at the first step).  In a GDL-II game, `sight` is all the player
        may be told of that joint move (None at the first step)."""

    @abstractmethod
    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        """The match ended in `state` after `joint` (`sight`: as for `play`); the
        reply is not checked."""

    @abstractmethod
    async def abort(self) -> None:
        """The match was stopped before its end; the reply is not checked."""

    @abstractmethod
    async def close(self) -> None:
        """Free what the player holds (threads, connections); the referee is done with it."""


class RandomRolePlayer(Player):
    """A role named ``random``: not a player at all, the referee moves at random for it."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random role"
        self.rng = random.Random(seed)
        self.role = 0

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.role = role
        return Reply("ready")

    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        return Reply(self.rng.choice(state.legal_moves(self.role)))

    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        pass

    async def abort(self) -> None:
        pass

    async def close(self) -> None:
        pass


class _Worker:
    """A daemon thread that runs one agent's calls, one after another, in order.

    A daemon thread, not an executor: an agent that overruns its clock (or a
    person who never types) must not keep the program from exiting.
    """

    def __init__(self, name: str) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        while (job := self.jobs.get()) is not None:
            loop, future, call = job
            try:
                outcome = (call(), None)
            except BaseException as error:  # noqa: BLE001 - handed to the awaiting side
                outcome = (None, error)
            # RuntimeError: the event loop has closed, nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, future, *outcome)

    def submit(self, call: Callable[[], Any]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.jobs.put((loop, future, call))
        return future

    def close(self) -> None:
        self.jobs.put(None)


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.done():  # the referee stopped waiting (late reply)
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class AgentPlayer(Player):
    """An in-process agent, held to the match clocks like a remote player.

    The agent's calls run in its own thread, in order: `play` hands it the
    previous joint move (`Agent.observe`) and then asks for its move with the
    deadline of the play clock.  If the move comes later than the play clock
    plus the grace period the reply is ``TO``; the late call keeps the thread
    busy, so the next request waits behind it, as with a remote player still
    thinking.  A person (`HumanAgent`) is not timed.  An exception raised by
    the agent is not a move: it reaches the referee, which aborts the match.
    In a GDL-II game the agent is told only its `Sight` of each joint move
    (`Agent.perceive`) and its legal moves (`Agent.choose_unseen`), never the state.
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.spec
        self.timed = not isinstance(agent, HumanAgent)
        self.worker = _Worker(f"agent {agent.spec}")
        self.setup: MatchSetup | None = None
        self.state: State | None = None
        self.role = 0

    def _timeout(self, clock: float | None) -> float | None:
        assert self.setup is not None
        return self.setup.timeout(clock) if self.timed else None

    async def _wait(self, call: Callable[[], Any], timeout: float | None) -> Reply:
        try:
            result = await asyncio.wait_for(self.worker.submit(call), timeout)
        except TimeoutError:
            return Reply(None, "TO")
        return Reply(result)

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup = setup
        self.role = role
        agent = self.agent

        def begin() -> str:
            agent.start(setup.game, role, setup.clocks)
            return "ready"

        return await self._wait(begin, self._timeout(setup.clocks.start))

    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        assert self.setup is not None
        self.state = state
        agent = self.agent
        clock = self.setup.clocks.play
        deadline = time.monotonic() + clock if clock is not None and self.timed else None
        if self.setup.game.gdl_ii:
            legal = state.legal_moves(self.role)

            def choose() -> str:
                if sight is not None:
                    agent.perceive(sight)
                return agent.choose_unseen(legal, deadline)

        else:

            def choose() -> str:
                if joint is not None:
                    agent.observe(joint, state)
                return agent.choose_move(state, deadline)

        return await self._wait(choose, self._timeout(clock))

    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        assert self.setup is not None
        agent = self.agent
        hidden = self.setup.game.gdl_ii

        def finish() -> None:
            if hidden and sight is not None:
                agent.perceive(sight)
            elif not hidden and joint is not None:
                agent.observe(joint, state)
            agent.stop(state)

        await self._wait(finish, self._timeout(self.setup.clocks.play))

    async def abort(self) -> None:
        if self.state is not None and self.setup is not None:
            # Not awaited: a person at the keyboard may never answer a pending request.
            future = self.worker.submit(lambda state=self.state: self.agent.stop(state))
            future.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def close(self) -> None:
        self.worker.close()
