"""The arena: the matches it referees, their index, the logs it finds, hints."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggp.games.base import GameError
from ggp.player.agents import Clocks, make_agent
from ggp.server.arena.catalogue import board_for_spec, resolve_game
from ggp.server.arena.guard import Access, is_loopback
from ggp.server.arena.live import LiveMatch
from ggp.server.arena.player_policy import PlayerPolicy, check_agent_spec
from ggp.server.arena.process_player import ProcessAgentPlayer
from ggp.server.arena.seat import PERSON, PersonPlayer
from ggp.server.arena.store import ABORTED, FINISHED, RUNNING, ArenaStore, MatchRow
from ggp.server.arena.tournaments import ArenaTournament, tournament_setup, tournament_view
from ggp.server.match import RANDOM_ROLE, derive_seed, new_match_id, seat_specs
from ggp.server.match_log import read_log
from ggp.server.players import Player, RandomRolePlayer
from ggp.server.record import error_counts
from ggp.server.remote import RemotePlayer, is_player_url
from ggp.server.rules import RefereeGame

log = logging.getLogger(__name__)

FORGET_AFTER = 600.0
"""Seconds a finished match stays in memory for the pages still following it;
then it is served from its log like any match of the history."""


@dataclass(frozen=True)
class ArenaConfig:
    """Where the arena keeps things and what it accepts."""

    db: Path = Path("match_logs/arena.sqlite")
    log_dir: Path = Path("match_logs")
    games_dir: Path | None = None
    max_body: int = 1_000_000
    """Largest request body accepted (uploaded rules included), in bytes."""
    max_matches: int = 8
    """Matches being played at once, not counting those waiting for a person's move
    (their agents' processes sleep); more are refused until one ends or waits."""
    max_waiting: int = 16
    """Matches waiting for a person's move besides those.  A person's seat is not
    timed, so a match left by its person waits for ever: when the arena is full,
    the one that has waited longest with no page watching it is aborted."""
    max_tournaments: int = 2
    """Tournaments run at once (each a process, with its own worker processes)."""
    max_steps: int = 500
    """Joint moves a match may make (a request may ask for fewer); a match still going
    then ends without a result, logged as aborted: a game with no terminal state ends."""
    host: str = "127.0.0.1"
    """The address listened on: loopback, or beyond it (then a token is required)."""
    allowed_hosts: tuple[str, ...] = ()
    """Names besides the address and localhost the arena answers to (``Host``)."""
    token: str | None = None
    """The key every request carries (header or cookie); required beyond loopback."""
    allow_players: tuple[str, ...] = field(default=())
    """``HOST:PORT`` of the players by URL a visitor may name (beyond loopback, the only ones)."""

    @property
    def access(self) -> Access:
        return Access(self.host, self.allowed_hosts, self.token)

    @property
    def player_policy(self) -> PlayerPolicy:
        return PlayerPolicy.for_arena(is_loopback(self.host), self.allow_players)


class ArenaFull(GameError):
    """No room for another match now (answered 429)."""


ABANDONED = "abandoned: it waited for a person's move with no page open, and the arena needed room"


def _clock(value: Any, name: str) -> float | None:
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise GameError(f"{name}: expected seconds, got {value!r}") from None
    if not 0 < seconds <= 3600:
        raise GameError(f"{name}: expected seconds between 0 and 3600, got {value!r}")
    return seconds


def _steps(value: Any, most: int) -> int:
    if value is None or value == "":
        return most
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
        raise GameError(f"max_steps: expected a whole number from 1 to {most}")
    return value


def child_game(game: RefereeGame, request: dict[str, Any]) -> dict[str, Any]:
    """The game as an agent's process builds it: a built-in by name, any other by its rules."""
    if isinstance(request.get("builtin"), str):
        return {"builtin": request["builtin"], "gdl": bool(request.get("gdl"))}
    return {"rules": game.rules, "name": game.game.name}


def make_seat(
    game: RefereeGame,
    request: dict[str, Any],
    role: int,
    spec: str,
    seed: int | None,
    timed: bool,
    policy: PlayerPolicy,
) -> Player:
    """The player of one seat: a person, the chance role, a GGP player by URL (if
    `policy` allows it) or an agent (in a process of its own)."""
    if game.game.roles[role] == RANDOM_ROLE:
        return RandomRolePlayer(seed)
    if spec == PERSON:
        return PersonPlayer(timed=timed)
    if is_player_url(spec):
        policy.check(spec)
        player = RemotePlayer(spec)
        player.quote_replies = False
        return player
    check_agent_spec(spec)
    if spec.partition(":")[0].strip() == "human":
        raise GameError("the 'human' agent plays in a terminal; in the arena choose 'person'")
    agent = make_agent(spec, seed)  # a bad spec is refused here, before the match starts
    if game.game.gdl_ii and not agent.plays_unseen:
        raise GameError(
            f"{game.game.name} is a GDL-II game: agent {spec} would see the whole state; "
            "choose ismcts, random or legal"
        )
    return ProcessAgentPlayer(spec, child_game(game, request), seed)


def log_row(path: Path) -> MatchRow:
    """The history row of a match log found in the folder (written by ggp match, say)."""
    logged = read_log(path)
    roles = logged.roles or tuple(f"role {i + 1}" for i in range(len(logged.players)))
    status = FINISHED if logged.completed else ABORTED
    errors = sum(map(sum, error_counts(logged.errors, len(roles)))) if logged.errors else 0
    return MatchRow(
        id=logged.match_id,
        game=logged.game_spec or "unknown",
        roles=tuple(roles),
        players=logged.players,
        status=status,
        goals=logged.goals,
        errors=errors,
        steps=len(logged.moves),
        failure=logged.failure or (None if logged.completed else "not finished"),
        log_path=str(path),
        started=logged.start_time / 1000 if logged.start_time else path.stat().st_mtime,
        source="log",
    )


class Arena:
    """The matches under way, the store, and what the API asks of them."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.store = ArenaStore(config.db)
        self.live: dict[str, LiveMatch] = {}
        self.tournaments: dict[str, ArenaTournament] = {}
        self.starting = 0
        """Matches being set up (their room taken, not yet in `live`)."""
        self.tournaments_starting = 0

    def open(self) -> None:
        interrupted = self.store.mark_interrupted()
        if interrupted:
            log.info("%d match(es) of an earlier run marked aborted", interrupted)

    def import_logs(self) -> int:
        """Index the match logs in the log folder that are not indexed yet."""
        known = self.store.log_paths()
        added = 0
        for path in sorted(self.config.log_dir.glob("*.json")):
            if str(path) in known or path.name.startswith("."):
                continue
            try:
                row = log_row(path)
            except (GameError, OSError) as error:
                log.info("not a match log: %s (%s)", path, error)
                continue
            if self.store.match(row.id) is None:
                self.store.save_match(row)
                added += 1
        return added

    async def start_match(self, body: dict[str, Any]) -> LiveMatch:
        """Start the match `body` asks for (see docs/arena.md).  Its room is taken
        before the first await, so that requests at once cannot all pass the cap."""
        self._make_room()
        self.starting += 1
        try:
            return await self._start_match(body)
        finally:
            self.starting -= 1

    async def _start_match(self, body: dict[str, Any]) -> LiveMatch:
        request = body.get("game")
        game = await asyncio.to_thread(resolve_game, request, self.config.games_dir)
        max_steps = _steps(body.get("max_steps"), self.config.max_steps)
        specs = body.get("players")
        if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
            raise GameError("players: expected a list of player specs, one per role")
        specs = seat_specs(game.game, [spec.strip() for spec in specs])
        clocks = Clocks(
            _clock(body.get("startclock"), "startclock"), _clock(body.get("playclock"), "playclock")
        )
        seed = body.get("seed")
        if seed is not None and not isinstance(seed, int):
            raise GameError("seed: expected an integer")
        timed = bool(body.get("timed_person"))
        players = [
            make_seat(
                game,
                request,
                role,
                spec,
                None if seed is None else derive_seed(seed, role),
                timed,
                self.config.player_policy,
            )
            for role, spec in enumerate(specs)
        ]
        match = LiveMatch(
            new_match_id(game.game.name),
            game,
            players,
            clocks,
            seed=seed,
            child_game=child_game(game, request),
            max_steps=max_steps,
        )
        self.live[match.id] = match
        self.store.save_match(self._row(match))
        match.start(str(self.config.log_dir), self._ended)
        return match

    def _make_room(self) -> None:
        """Refuse a new match (`ArenaFull`) when as many as allowed are being played,
        or when the waiting ones fill the rest and each is watched; else, if they fill
        it, abort the one that has waited longest unwatched (its person has left)."""
        running = [match for match in self.live.values() if match.status == RUNNING]
        waiting = [match for match in running if match.waiting()]
        busy = len(running) - len(waiting) + self.starting
        if busy >= self.config.max_matches:
            raise ArenaFull(
                f"{busy} matches are being played, the most this arena plays at once; "
                "try again when one ends"
            )
        if len(running) + self.starting < self.config.max_matches + self.config.max_waiting:
            return
        abandoned = [match for match in waiting if not match.watchers]
        if not abandoned:
            raise ArenaFull(
                f"{len(waiting)} matches wait for a person's move, each watched from a page: "
                "play or abort one of them first"
            )
        oldest = min(abandoned, key=lambda match: match.waiting_since)
        log.info("match %s %s", oldest.id, ABANDONED)
        oldest.abort(ABANDONED)

    def _row(self, match: LiveMatch) -> MatchRow:
        record = match.record
        errors = sum(map(sum, error_counts(record.errors, len(match.roles)))) if record else 0
        return MatchRow(
            id=match.id,
            game=match.game.spec,
            roles=match.roles,
            players=tuple(match.names),
            status=match.status,
            goals=tuple(record.goals) if record and record.goals else None,
            errors=errors,
            steps=len(record.moves) if record else 0,
            failure=match.failure,
            log_path=str(self.config.log_dir / f"{match.id}.json"),
            started=match.started,
            source="arena",
        )

    def _ended(self, match: LiveMatch) -> None:
        self.store.save_match(self._row(match))
        asyncio.get_running_loop().call_later(FORGET_AFTER, self.live.pop, match.id, None)

    def log_path(self, match_id: str) -> Path | None:
        """The log of a known match (the path comes from the store, never the request)."""
        row = self.store.match(match_id)
        if row is None or not row.log_path:
            return None
        path = Path(row.log_path)
        return path if path.is_file() else None

    def stored_view(self, row: MatchRow) -> dict[str, Any]:
        """A match of the history as the page replays it: its steps from its log."""
        view: dict[str, Any] = {
            "type": "stored",
            **row.to_json(),
            "board": board_for_spec(row.game),
            "persons": [role for role, name in enumerate(row.players) if name == PERSON],
            "clocks": {"start": None, "play": None},
            "waiting": [],
            "steps": [],
        }
        path = self.log_path(row.id)
        if path is None:
            view["failure"] = (row.failure or "") + " (its log is missing)"
            return view
        logged = read_log(path)
        view["clocks"] = {"start": logged.start_clock, "play": logged.play_clock}
        view["steps"] = [
            {
                "index": index,
                "facts": list(facts),
                "moves": list(logged.moves[index - 1]) if index else None,
                "errors": list(logged.errors[index]) if index < len(logged.errors) else None,
            }
            for index, facts in enumerate(logged.states)
        ]
        return view

    async def start_tournament(self, body: dict[str, Any]) -> ArenaTournament:
        """Start the tournament `body` asks for, in its own process, unless as many as
        allowed run (`ArenaFull`; the room is taken before the first await)."""
        running = [t for t in self.tournaments.values() if t.status == RUNNING]
        if len(running) + self.tournaments_starting >= self.config.max_tournaments:
            raise ArenaFull(
                f"{self.config.max_tournaments} tournaments are running, the most this arena "
                "runs at once; try again when one ends"
            )
        self.tournaments_starting += 1
        try:
            setup = await asyncio.to_thread(
                tournament_setup,
                body,
                self.config.games_dir,
                self.config.log_dir,
                self.config.player_policy,
            )
        finally:
            self.tournaments_starting -= 1
        setup["max_steps"] = _steps(body.get("max_steps"), self.config.max_steps)
        tournament = ArenaTournament(setup)
        self.tournaments[tournament.id] = tournament
        tournament.task = asyncio.create_task(
            tournament.run(self.store, lambda: asyncio.to_thread(self.import_logs))
        )
        return tournament

    def tournament_view(self, tournament_id: str) -> dict[str, Any] | None:
        if (running := self.tournaments.get(tournament_id)) is not None:
            return running.view()
        row = self.store.tournament(tournament_id)
        return None if row is None else _stored_tournament(row)

    def tournament_list(self) -> list[dict[str, Any]]:
        """Every tournament, the latest first."""
        return [
            self.tournaments[row["id"]].view()
            if row["id"] in self.tournaments
            else _stored_tournament(row)
            for row in self.store.tournaments()
        ]

    async def close(self) -> None:
        """Stop the matches and tournaments under way (aborted, logged and indexed)."""
        tasks = [m.task for m in self.live.values() if m.task and not m.task.done()]
        tasks += [t.task for t in self.tournaments.values() if t.task and not t.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _stored_tournament(row: dict[str, Any]) -> dict[str, Any]:
    return tournament_view(
        row["id"], row["setup"], row["status"], row["failure"], row["started"], row["results"]
    )
