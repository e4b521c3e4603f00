"""An in-process agent spec played in a child process (`ggp.server.arena.agent_process`).

Held to the clocks as `ggp.server.players.AgentPlayer` is: a move later than the
play clock plus the grace period is ``TO`` (the child goes on with it, and the
next request waits behind it, as with a remote player still thinking); a child
that dies or cannot be started is ``CE`` from then on; an error the agent or
the rules raise aborts the match.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from ggp.games.base import GameError, State
from ggp.player.agents import Sight
from ggp.server.arena.child import AgentChild
from ggp.server.players import MatchSetup, Player, Reply

log = logging.getLogger(__name__)

Thinking = Callable[[int, list[dict]], None]
"""Called with the role and the ranking of its moves so far, while the agent searches."""


class ProcessAgentPlayer(Player):
    """The agent `spec`, for the game `game` (as the API names it), in a child process."""

    def __init__(self, spec: str, game: dict[str, Any], seed: int | None) -> None:
        self.name = spec
        self.game = game
        self.seed = seed
        self.role = 0
        self.setup: MatchSetup | None = None
        self.on_thinking: Thinking = lambda role, ranking: None
        self.ranking: list[dict] = []
        self.child = AgentChild(lambda ranking: self.on_thinking(self.role, ranking))

    async def _ask(self, command: dict[str, Any], timeout: float | None) -> Reply | dict:
        """The child's answer to `command`, or the Reply that stands in for it (TO, CE)."""
        try:
            answer = await self.child.ask(command, timeout)
        except TimeoutError:
            return Reply(None, "TO")
        except ConnectionError:
            return Reply(None, "CE")
        if "error" in answer:
            raise GameError(f"{self.name}: {answer['error']}")
        return answer

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup, self.role = setup, role
        try:
            await self.child.spawn()
        except OSError as error:
            log.warning("cannot start an agent process: %s", error)
            return Reply(None, "CE")
        command = {
            "cmd": "start",
            "game": self.game,
            "agent": self.name,
            "seed": self.seed,
            "role": role,
            "clocks": [setup.clocks.start, setup.clocks.play],
        }
        answer = await self._ask(command, setup.timeout(setup.clocks.start))
        return answer if isinstance(answer, Reply) else Reply("ready")

    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        assert self.setup is not None
        clock = self.setup.clocks.play
        command = {"cmd": "play", "joint": None if joint is None else list(joint), "seconds": clock}
        if self.setup.game.gdl_ii:  # only what the role may know: its sight and legal moves
            command = {"cmd": "play", "sight": _sight(sight), "seconds": clock}
            command["legal"] = list(state.legal_moves(self.role))
        answer = await self._ask(command, self.setup.timeout(clock))
        if isinstance(answer, Reply):
            return answer
        self.ranking = answer["ranking"]
        return Reply(answer["move"])

    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        assert self.setup is not None
        command = {"cmd": "stop", "joint": None if joint is None else list(joint)}
        if self.setup.game.gdl_ii:
            command = {"cmd": "stop", "sight": _sight(sight)}
        await self._ask(command, self.setup.timeout(self.setup.clocks.play))

    async def abort(self) -> None:
        await self.close()

    async def close(self) -> None:
        await self.child.close()


def _sight(sight: Sight | None) -> list | None:
    """A `Sight` as the agent process reads it: ``[MOVE, [PERCEPT...]]`` or null."""
    return None if sight is None else [sight.move, list(sight.percepts)]
