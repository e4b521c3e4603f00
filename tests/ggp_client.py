"""A small game manager for the tests: plays whole matches against a player over HTTP."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable

from ggp.games.base import Game, canonical_move
from ggp.player.service.game_factory import game_from_text

Send = Callable[[str], Awaitable[str]]
"""Sends one message to the player and returns its reply (the body, stripped)."""

GGP_BASE_HEADERS = {
    "Accept": "text/delim",
    "Sender": "GAMESERVER",
    "Receiver": "test",
    "Content-Type": "text/acl",
}
"""The headers GGP-Base sends with every message."""


def iterations(line: str) -> int:
    """The iterations of a searched move's line in the player's log: its simulations, and
    those that ended on proven nodes (nodes made already, terminal ones late in a game)."""
    sims = re.search(r", (\d+) simulations", line)
    settled = re.search(r", (\d+) iterations on proven nodes", line)
    return int(sims[1]) + (int(settled[1]) if settled else 0) if sims else 0


def message_moves(joint: list[str]) -> str:
    """A joint move written as GGP-Base writes it: ``(( mark 1 1 ) noop )``."""
    return "(" + " ".join(move.replace("(", "( ").replace(")", " )") for move in joint) + " )"


async def play_match(
    send: Send,
    match_id: str,
    rules: str,
    role: str,
    clocks: tuple[int, int] = (10, 10),
    seed: int = 0,
) -> tuple[list[list[str]], tuple[int, ...]]:
    """Play a match with the player in `role`, every other role at random.

    Checks that the player answers ``ready``, a legal move spelt exactly as
    the rules spell it at every step, and ``done``.  Returns the joint moves
    and the goals.
    """
    game: Game = game_from_text(rules, "test rules")
    us = game.roles.index(role)
    rng = random.Random(seed)
    start = f"( START {match_id} {role} ({rules}) {clocks[0]} {clocks[1]})"
    assert await send(start) == "ready"
    state = game.initial_state()
    history: list[list[str]] = []
    while not state.is_terminal():
        moves = "NIL" if not history else message_moves(history[-1])
        reply = await send(f"( PLAY {match_id} {moves} )")
        legal = state.all_legal_moves()
        assert reply in legal[us], f"{reply!r} is not one of {legal[us]}"
        assert reply == canonical_move(reply)
        joint = [reply if i == us else rng.choice(moves) for i, moves in enumerate(legal)]
        history.append(joint)
        state = state.next(joint)
    assert await send(f"( STOP {match_id} {message_moves(history[-1])} )") == "done"
    return history, state.goals()
