"""Match logs: a match as JSON in the ggp.org match format, written safely, read back.

The fields are GGP-Base's (``matchId``, ``states``, ``moves``, ``errors``,
``goalValues``, ``startClock``...; see ``../shared/docs/protocol.md``), plus
what it takes to replay a match with nothing else at hand, under ``x-`` names:
``x-game`` (how the game was named), ``x-rules`` (the GDL text), ``x-roles``,
``x-grace`` and ``x-failure`` (why an aborted match stopped); a GDL-II match adds
``x-percepts`` (per step, each role's percepts), so that the log holds both the true
states and each role's view (its own moves and percepts: `role_view`).

A log is written to a temporary file beside its place and then renamed over
it, so a reader sees the previous version or the new one, never a half
written file; during a match it is rewritten at most about once a second.
"""

from __future__ import annotations

import json
import os
import secrets
import string
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggp.games.base import Game, GameError, State, canonical_move
from ggp.server.record import MatchRecord

DEFAULT_DIR = Path("match_logs")
NO_CLOCK = -1
"""What a clock is written as when the match had none (GGP-Base's ``previewClock`` too)."""


def state_text(state: State) -> str:
    """A state as ggp.org writes it: ``( (cell 1 1 b) (control xplayer) )``."""
    return "( " + " ".join(state.facts()) + " )"


def split_terms(text: str) -> list[str]:
    """The terms of a KIF list ``( a (b c) )``, each in canonical layout."""
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        raise GameError(f"not a list of facts: {text[:80]!r}")
    terms: list[str] = []
    depth = 0
    current: list[str] = []
    for char in inner[1:-1]:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise GameError(f"unbalanced parentheses in {text[:80]!r}")
        if depth == 0 and char.isspace():
            if current:
                terms.append("".join(current))
                current = []
            continue
        current.append(char)
        if depth == 0 and char == ")":
            terms.append("".join(current))
            current = []
    if depth != 0:
        raise GameError(f"unbalanced parentheses in {text[:80]!r}")
    if current:
        terms.append("".join(current))
    return [canonical_move(term) for term in terms]


def _clock(value: float | None) -> float:
    if value is None:
        return NO_CLOCK
    return int(value) if float(value).is_integer() else value


def to_json(record: MatchRecord, token: str) -> dict[str, Any]:
    """The match record as a ggp.org match object (a dict ready for `json.dump`)."""
    data: dict[str, Any] = {
        "matchId": record.match_id,
        "randomToken": token,
        "startTime": record.start_time,
        "startClock": _clock(record.clocks.start),
        "playClock": _clock(record.clocks.play),
        "previewClock": NO_CLOCK,
        "states": [state_text(state) for state in record.states],
        "moves": [list(joint) for joint in record.moves],
        "stateTimes": list(record.state_times),
        "errors": [list(step) for step in record.errors],
        "isCompleted": record.completed,
        "isAborted": record.aborted,
        "playerNamesFromHost": list(record.players),
        "tournamentNameFromHost": "",
        "scrambled": False,
        "x-game": record.game_spec or record.game.name,
        "x-roles": list(record.game.roles),
        "x-rules": record.rules,
        "x-grace": record.grace,
        "x-failure": record.failure,
    }
    if record.game.gdl_ii:
        data["x-percepts"] = [[list(seen) for seen in step] for step in record.percepts]
    if record.goals is not None:
        data["goalValues"] = list(record.goals)
    return data


def write_json_atomically(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class MatchLogWriter:
    """Writes one match's log to ``FOLDER/<matchId>.json`` as the match goes on."""

    def __init__(self, folder: Path | str, interval: float = 1.0) -> None:
        self.folder = Path(folder)
        self.interval = interval
        alphabet = string.ascii_letters + string.digits
        self.token = "".join(secrets.choice(alphabet) for _ in range(32))
        self.last: float | None = None
        self.path: Path | None = None

    def update(self, record: MatchRecord, *, final: bool = False) -> None:
        """Write the log if it is the end of the match or a while since the last write."""
        now = time.monotonic()
        if not final and self.last is not None and now - self.last < self.interval:
            return
        self.path = self.folder / f"{record.match_id}.json"
        write_json_atomically(self.path, to_json(record, self.token))
        self.last = now


@dataclass(frozen=True)
class LoggedMatch:
    """A match log read back: states as sorted fact texts, moves, errors, goals."""

    match_id: str
    roles: tuple[str, ...] | None
    states: tuple[tuple[str, ...], ...]
    moves: tuple[tuple[str, ...], ...]
    errors: tuple[tuple[str, ...], ...]
    goals: tuple[int, ...] | None
    completed: bool
    aborted: bool
    game_spec: str | None
    rules: str | None
    players: tuple[str, ...]
    failure: str | None
    start_clock: float | None
    play_clock: float | None
    start_time: int | None = None
    """Milliseconds since the epoch, when the log says."""
    percepts: tuple[tuple[tuple[str, ...], ...], ...] | None = None
    """GDL-II: per step, each role's percepts (None for a plain GDL match)."""

    def role_view(self, role: int) -> list[tuple[str, tuple[str, ...]]]:
        """GDL-II: what role `role` was told at each step: its own move and its percepts."""
        if self.percepts is None:
            raise GameError(f"{self.match_id} is not a GDL-II match: its roles saw every move")
        steps = zip(self.moves, self.percepts, strict=False)
        return [(joint[role], seen[role]) for joint, seen in steps]


def _optional_clock(value: Any) -> float | None:
    return None if value is None or value == NO_CLOCK else value


def read_log(path: Path) -> LoggedMatch:
    """Read a match log (ours or any ggp.org match JSON); a clear error if it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise GameError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise GameError(f"{path} is not JSON: {error}") from None
    try:
        states = tuple(tuple(sorted(split_terms(text))) for text in data["states"])
        moves = tuple(tuple(canonical_move(move) for move in joint) for joint in data["moves"])
        goals = data.get("goalValues")
        roles = data.get("x-roles")
        percepts = data.get("x-percepts")
        return LoggedMatch(
            match_id=data["matchId"],
            roles=tuple(roles) if roles else None,
            states=states,
            moves=moves,
            errors=tuple(tuple(step) for step in data.get("errors", [])),
            goals=tuple(int(goal) for goal in goals) if goals else None,
            completed=bool(data.get("isCompleted")),
            aborted=bool(data.get("isAborted")),
            game_spec=data.get("x-game"),
            rules=data.get("x-rules"),
            players=tuple(data.get("playerNamesFromHost", ())),
            failure=data.get("x-failure"),
            start_clock=_optional_clock(data.get("startClock")),
            play_clock=_optional_clock(data.get("playClock")),
            start_time=data.get("startTime") if isinstance(data.get("startTime"), int) else None,
            percepts=None
            if percepts is None
            else tuple(tuple(tuple(map(str, seen)) for seen in step) for step in percepts),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise GameError(f"{path} is not a match log: bad or missing field ({error})") from None


def replay(logged: LoggedMatch, game: Game) -> list[State]:
    """The states the logged moves lead to under `game`'s rules, checked against the log.

    Raises `GameError` at the first state that differs from the logged one, or
    at a logged move the rules do not allow.
    """
    if logged.roles is not None and tuple(game.roles) != logged.roles:
        raise GameError(f"the log's roles {logged.roles} are not the game's {game.roles}")
    state = game.initial_state()
    states = [state]
    for joint in logged.moves:
        state = state.next(joint)
        states.append(state)
    for step, (found, logged_state) in enumerate(zip(states, logged.states, strict=False)):
        if tuple(found.facts()) != logged_state:
            raise GameError(
                f"{logged.match_id}: state {step} of the log is not what the moves lead to:\n"
                f"logged:   {' '.join(logged_state)}\nreplayed: {' '.join(found.facts())}"
            )
    if len(logged.states) != len(states):
        raise GameError(
            f"{logged.match_id}: {len(logged.states)} states logged for {len(logged.moves)} moves"
        )
    if logged.goals is not None and state.is_terminal() and state.goals() != logged.goals:
        raise GameError(
            f"{logged.match_id}: logged goals {logged.goals}, the rules give {state.goals()}"
        )
    return states
