"""The referee's match loop, one for every kind of player.

`run_match` speaks to the players as a game manager does: ``start`` to all at
once, then at each step ``play`` with the previous joint move (none at the
first), then ``stop`` with the last joint move, or ``abort`` if the match is
cancelled (Ctrl-C included) or a player breaks down.  A move that is late
(``TO``), could not be had (``CE``), is not a move (``IL null``) or not a
legal one (``IL <move>``) is replaced by a random legal move and recorded as
an error of that step and role; the match goes on.  Every match can be logged
(`ggp.server.match_log`), finished or not.

In a GDL-II game (`Game.gdl_ii`) the role ``random`` is moved by the referee,
uniformly among its legal moves, and each player is told only its `Sight` of
each joint move (the move it played and its percepts), recorded beside the
true states.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from ggp.games.base import Game, GameError, State
from ggp.player.agents import Agent, Clocks, MatchQuit, Sight, make_agent
from ggp.server.match_log import MatchLogWriter
from ggp.server.messages import parse_move
from ggp.server.players import AgentPlayer, MatchSetup, Player, RandomRolePlayer, Reply
from ggp.server.record import MatchRecord
from ggp.server.remote import RemotePlayer, is_player_url
from ggp.server.rules import RefereeGame

__all__ = ["MatchRecord", "play_match", "run_match"]

RANDOM_ROLE = "random"
"""Roles of this name are played by the referee (GGP's chance player)."""

StepCallback = Callable[[MatchRecord], None]


def derive_seed(*parts: object) -> int:
    """A seed made from `parts` (a tournament seed, a match index...), the same in
    every process and on every run."""
    return random.Random(":".join(map(str, parts))).getrandbits(63)


def make_agents(specs: Sequence[str], seed: int | None) -> list[Agent]:
    """One agent per spec, each with its own seed derived from `seed` and its seat."""
    return [
        make_agent(spec, None if seed is None else derive_seed(seed, seat))
        for seat, spec in enumerate(specs)
    ]


def seat_specs(game: Game, specs: Sequence[str]) -> list[str]:
    """One player spec per role: `specs` may leave out the roles named ``random``."""
    roles = game.roles
    chance = [index for index, role in enumerate(roles) if role == RANDOM_ROLE]
    if len(specs) == len(roles) - len(chance) and chance:
        given = iter(specs)
        return [RANDOM_ROLE if role == RANDOM_ROLE else next(given) for role in roles]
    if len(specs) != len(roles):
        others = f" ({len(roles) - len(chance)} without the random role)" if chance else ""
        raise GameError(
            f"{game.name} has {len(roles)} roles ({', '.join(roles)}){others}: "
            f"give one player per role, got {len(specs)}"
        )
    for index in chance:
        if specs[index] != RANDOM_ROLE:
            raise GameError(
                f"role {RANDOM_ROLE} of {game.name} is played by the referee: "
                f"give 'random' for it, not {specs[index]!r}"
            )
    return list(specs)


def make_players(game: Game, specs: Sequence[str], seed: int | None) -> list[Player]:
    """The players of a match: an HTTP address is a remote player, the role
    ``random`` the referee, anything else an in-process agent spec."""
    players: list[Player] = []
    for seat, spec in enumerate(seat_specs(game, specs)):
        own_seed = None if seed is None else derive_seed(seed, seat)
        if game.roles[seat] == RANDOM_ROLE:
            players.append(RandomRolePlayer(own_seed))
        elif is_player_url(spec):
            players.append(RemotePlayer(spec))
        else:
            players.append(AgentPlayer(make_agent(spec, own_seed)))
    return players


def new_match_id(game_name: str) -> str:
    """A fresh match id: the game, the UTC time and a random part (a valid KIF symbol)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", game_name).strip("-") or "match"
    return f"{name}.{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.{secrets.token_hex(3)}"


def judge(
    state: State, replies: Sequence[Reply], rng: random.Random
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The joint move made of the replies, and the error of each role (``""`` if none).

    A reply that is late, missing, unreadable or not legal is replaced by a
    random legal move.  Moves are compared with the legal ones exactly, case
    included, as game managers do.
    """
    joint: list[str] = []
    errors: list[str] = []
    for role, reply in enumerate(replies):
        legal = state.legal_moves(role)
        move = None if reply.text is None else parse_move(reply.text)
        if reply.error is not None:
            error = reply.error
        elif move is None:
            error = "IL null"
        elif move not in legal:
            error = f"IL {move}"
        else:
            error = ""
        if error or move is None:
            move = rng.choice(legal)
        joint.append(move)
        errors.append(error)
    return tuple(joint), tuple(errors)


class MatchRefused(GameError):
    """A player answered ``start`` with ``busy``: the match was not played."""


class StepLimitReached(GameError):
    """The match made its `max_steps` joint moves without reaching a terminal state."""

    def __init__(self, max_steps: int) -> None:
        super().__init__(
            f"the match reached its limit of {max_steps} steps with no terminal state "
            "(ended without a result)"
        )


BUSY = "busy"
"""What a GGP player answers ``start`` when it plays as many matches as it accepts (and
some players when they cannot prepare the game)."""


def refusals(players: Sequence[Player], replies: Sequence[Reply]) -> str:
    """Which players refused the match (answered ``busy``), said plainly; ``""`` if none."""
    busy = [
        player.name
        for player, reply in zip(players, replies, strict=True)
        if reply.text is not None and reply.text.strip().lower() == BUSY
    ]
    if not busy:
        return ""
    return (
        f"{' and '.join(busy)} refused the match: {'they' if len(busy) > 1 else 'it'} "
        "answered busy to start: a player answers so when it already plays as many "
        "matches as it accepts (ggp serve: --max-matches), and some players when they "
        "cannot prepare the game"
    )


def check_players(game: Game, players: Sequence[Player], rules: str | None, clocks: Clocks) -> None:
    """Refuse a match the players cannot play, before anyone is contacted."""
    if len(players) != len(game.roles):
        raise GameError(
            f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}), "
            f"got {len(players)} players"
        )
    if game.gdl_ii:
        seeing = [
            player.name
            for player in players
            if isinstance(player, AgentPlayer) and not player.agent.plays_unseen
        ]
        if seeing:
            raise GameError(
                f"{game.name} is a GDL-II game (roles see only their percepts), and "
                f"{', '.join(seeing)} would see the whole state: play it with ismcts, "
                "random, legal, human or a remote player"
            )
    remote = [player.name for player in players if player.needs_rules]
    if remote and rules is None:
        raise GameError(
            f"{game.name} has no GDL description to send to {', '.join(remote)}: a built-in "
            "game is sent as its GDL twin (games/gdl/NAME.kif), which this one lacks or "
            "cannot have (options); give a .kif file instead"
        )
    if remote and (clocks.start is None or clocks.play is None):
        raise GameError("remote players need a start clock and a play clock")


def _failure(error: BaseException) -> str:
    if isinstance(error, asyncio.CancelledError):
        return "the match was cancelled"
    if isinstance(error, KeyboardInterrupt):
        return "the match was interrupted"
    if isinstance(error, MatchQuit):
        return "a person left the match"
    notes = "".join(f" ({note})" for note in getattr(error, "__notes__", ()))
    return f"{type(error).__name__}: {error}{notes}"


async def _ask(player: Player, role: str, request: Awaitable[Reply]) -> Reply:
    try:
        return await request
    except Exception as error:
        error.add_note(f"raised by {player.name} playing {role}")
        raise


async def _abort_all(players: Sequence[Player], grace: float) -> None:
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(
            asyncio.gather(*(player.abort() for player in players), return_exceptions=True),
            grace + 1,
        )


async def run_match(
    game: Game,
    players: Sequence[Player],
    *,
    rules: str | None = None,
    game_spec: str = "",
    clocks: Clocks | None = None,
    grace: float = 1.0,
    match_id: str | None = None,
    seed: int | None = None,
    log_dir: Path | str | None = None,
    on_step: StepCallback | None = None,
    max_steps: int | None = None,
) -> MatchRecord:
    """Referee one match of `game`, player i taking role i; return its record.

    `rules` is the GDL text sent to remote players; `seed` seeds the random
    moves the referee substitutes; with `log_dir` the match is logged there as
    it goes (`ggp.server.match_log`).  `on_step` is called with the record after
    the start and after every joint move.  If the match is cancelled or a
    player raises, the players are sent ``abort``, the log is written and the
    exception goes on; a player that answers ``start`` with ``busy`` ends the
    match so, with `MatchRefused`; a match still going after `max_steps` joint moves
    ends so, with `StepLimitReached` (aborted, logged).  The players are not closed.
    """
    clocks = clocks or Clocks()
    check_players(game, players, rules, clocks)
    rng = random.Random(seed)
    record = MatchRecord(
        match_id=match_id or new_match_id(game.name),
        game=game,
        players=[player.name for player in players],
        game_spec=game_spec or game.name,
        rules=rules,
        clocks=clocks,
        grace=grace,
        start_time=int(time.time() * 1000),
    )
    writer = MatchLogWriter(log_dir) if log_dir is not None else None
    setup = MatchSetup(record.match_id, game, rules, clocks, grace)
    roles = game.roles

    def reached(state: State) -> None:
        record.states.append(state)
        record.state_times.append(int(time.time() * 1000))

    def stepped() -> None:
        if on_step:
            on_step(record)
        if writer:
            writer.update(record)

    try:
        state = game.initial_state()
        reached(state)  # first, so that a log of a match broken at the start has it
        replies = await asyncio.gather(
            *(_ask(p, roles[i], p.start(setup, i)) for i, p in enumerate(players))
        )
        record.errors.append(tuple(reply.error or "" for reply in replies))
        stepped()
        if refused := refusals(players, replies):
            raise MatchRefused(refused)
        joint: tuple[str, ...] | None = None
        sights: list[Sight | None] = [None] * len(players)
        while not state.is_terminal():
            if max_steps is not None and len(record.moves) >= max_steps:
                raise StepLimitReached(max_steps)
            replies = await asyncio.gather(
                *(_ask(p, roles[i], p.play(state, joint, sights[i])) for i, p in enumerate(players))
            )
            joint, errors = judge(state, replies, rng)
            if game.gdl_ii:
                percepts = state.percepts(joint)
                record.percepts.append(percepts)
                sights = [Sight(move, seen) for move, seen in zip(joint, percepts, strict=True)]
            state = state.next(joint)
            record.moves.append(joint)
            record.errors.append(errors)
            reached(state)
            stepped()
        record.goals = state.goals()
        await asyncio.gather(
            *(_ask(p, roles[i], p.stop(state, joint, sights[i])) for i, p in enumerate(players))
        )
    except BaseException as error:
        record.aborted = not record.completed
        record.failure = _failure(error)
        if record.aborted:
            await _abort_all(players, grace)
        raise
    finally:
        if writer:
            writer.update(record, final=True)
    return record


async def _run_and_close(players: Sequence[Player], match: Awaitable[MatchRecord]) -> MatchRecord:
    try:
        return await match
    finally:
        for player in players:
            await player.close()


async def referee_match(
    game: RefereeGame,
    players: Sequence[Player],
    *,
    clocks: Clocks | None = None,
    grace: float = 1.0,
    seed: int | None = None,
    match_id: str | None = None,
    log_dir: Path | str | None = None,
    on_step: StepCallback | None = None,
    max_steps: int | None = None,
) -> MatchRecord:
    """`run_match` of a game as `ggp.server.rules` gives it; the players are closed afterwards."""
    match = run_match(
        game.game,
        players,
        rules=game.rules,
        game_spec=game.spec,
        clocks=clocks,
        grace=grace,
        match_id=match_id,
        seed=seed,
        log_dir=log_dir,
        on_step=on_step,
        max_steps=max_steps,
    )
    return await _run_and_close(players, match)


def play_match(
    game: Game,
    agents: Sequence[Agent],
    *,
    clocks: Clocks | None = None,
    on_step: StepCallback | None = None,
    seed: int | None = None,
    log_dir: Path | str | None = None,
) -> MatchRecord:
    """Play one match of `game` between in-process agents (agent i in role i; the
    role ``random`` may be left out, the referee plays it).

    Without `clocks` nobody is timed; see `run_match` for the rest.
    """
    players: list[Player] = [AgentPlayer(agent) for agent in agents]
    chance = game.random_role
    if chance is not None and len(agents) == len(game.roles) - 1:
        own_seed = None if seed is None else derive_seed(seed, chance)
        players.insert(chance, RandomRolePlayer(own_seed))
    match = run_match(game, players, clocks=clocks, on_step=on_step, seed=seed, log_dir=log_dir)
    return asyncio.run(_run_and_close(players, match))
