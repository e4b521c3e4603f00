"""A person's seat in an arena match: moves come from the browser, through the API."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from ggp.games.base import GameError, State, canonical_move
from ggp.player.agents import Sight
from ggp.server.players import MatchSetup, Player, Reply

PERSON = "person"
"""The player spec of a seat played by a person in the browser."""


class NotYourTurn(GameError):
    """A move sent while the seat is not asked for one."""


class IllegalPersonMove(GameError):
    """A move that is not among the seat's legal moves; `legal` lists them."""

    def __init__(self, move: str, legal: Sequence[str]) -> None:
        self.legal = tuple(legal)
        super().__init__(f"{move!r} is not a legal move here")


class PersonPlayer(Player):
    """Waits for the person's move; untimed unless `timed` (then held to the play clock).

    A forced move (the only legal one, ``noop`` while the other side moves)
    is played at once.  `on_wait` is called when the seat starts or stops
    waiting for the person, so that the page can say whose turn it is.
    """

    def __init__(self, timed: bool = False, on_wait: Callable[[], None] | None = None) -> None:
        self.name = PERSON
        self.timed = timed
        self.on_wait = on_wait or (lambda: None)
        self.setup: MatchSetup | None = None
        self.role = 0
        self.legal: tuple[str, ...] = ()
        self.state: State | None = None
        self.pending: asyncio.Future[str] | None = None

    @property
    def waiting(self) -> bool:
        return self.pending is not None and not self.pending.done()

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup, self.role = setup, role
        return Reply("ready")

    async def play(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> Reply:
        assert self.setup is not None
        self.state = state
        self.legal = tuple(state.legal_moves(self.role))
        if len(self.legal) == 1:
            return Reply(self.legal[0])
        self.pending = asyncio.get_running_loop().create_future()
        self.on_wait()
        timeout = self.setup.timeout(self.setup.clocks.play) if self.timed else None
        try:
            return Reply(await asyncio.wait_for(self.pending, timeout))
        except TimeoutError:
            return Reply(None, "TO")
        finally:
            self.pending = None
            self.on_wait()

    def submit(self, text: str) -> str:
        """Play the person's move `text` (any spacing); raises unless it is legal now."""
        if not self.waiting:
            raise NotYourTurn("it is not this seat's turn")
        move = canonical_move(text)
        if move not in self.legal and f"({move})" in self.legal:
            move = f"({move})"
        if move not in self.legal:
            raise IllegalPersonMove(move, self.legal)
        assert self.pending is not None
        self.pending.set_result(move)
        return move

    async def stop(
        self, state: State, joint: Sequence[str] | None, sight: Sight | None = None
    ) -> None:
        self.state = state

    async def abort(self) -> None:
        if self.waiting:
            assert self.pending is not None
            self.pending.cancel()

    async def close(self) -> None:
        await self.abort()
