"""The arena's index of matches and tournaments: SQLite at ``--db``.

The match logs (`ggp.server.match_log`, ggp.org JSON) stay the record of each
match; a row here says where its log is and what a list needs to show (game,
players, status, goals, errors) without reading every log.  Every call opens
its own connection, so the store may be used from any thread.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUNNING, FINISHED, ABORTED = "running", "finished", "aborted"

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    roles TEXT NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL,
    goals TEXT,
    errors INTEGER NOT NULL DEFAULT 0,
    steps INTEGER NOT NULL DEFAULT 0,
    failure TEXT,
    log_path TEXT,
    started REAL NOT NULL,
    source TEXT NOT NULL,
    tournament TEXT
);
CREATE INDEX IF NOT EXISTS matches_started ON matches (started);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    status TEXT NOT NULL,
    results TEXT NOT NULL,
    started REAL NOT NULL,
    failure TEXT
);
"""


@dataclass(frozen=True)
class MatchRow:
    """One match as the history lists it."""

    id: str
    game: str
    roles: tuple[str, ...]
    players: tuple[str, ...]
    status: str
    goals: tuple[int, ...] | None
    errors: int
    steps: int
    failure: str | None
    log_path: str | None
    started: float
    source: str
    """``arena`` for matches started here, ``log`` for logs found in the folder."""
    tournament: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["roles"], data["players"] = list(self.roles), list(self.players)
        data["goals"] = None if self.goals is None else list(self.goals)
        del data["log_path"]
        return data


class ArenaStore:
    """Matches and tournaments in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            yield db

    def mark_interrupted(self) -> int:
        """Mark the matches and tournaments left running by an earlier arena as aborted."""
        with self._connect() as db:
            count = db.execute(
                "UPDATE matches SET status = ?, failure = COALESCE(failure, ?) WHERE status = ?",
                (ABORTED, "the arena stopped during the match", RUNNING),
            ).rowcount
            db.execute(
                "UPDATE tournaments SET status = ?, failure = ? WHERE status = ?",
                (ABORTED, "the arena stopped during the tournament", RUNNING),
            )
        return count

    def save_match(self, row: MatchRow) -> None:
        """Insert the match or replace what was known of it."""
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO matches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    row.id,
                    row.game,
                    json.dumps(row.roles),
                    json.dumps(row.players),
                    row.status,
                    None if row.goals is None else json.dumps(row.goals),
                    row.errors,
                    row.steps,
                    row.failure,
                    row.log_path,
                    row.started,
                    row.source,
                    row.tournament,
                ),
            )

    def match(self, match_id: str) -> MatchRow | None:
        with self._connect() as db:
            found = db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if found is None else _match_row(found)

    def matches(
        self, game: str | None = None, player: str | None = None, limit: int = 200
    ) -> list[MatchRow]:
        """The latest matches first, of `game` (exact) and with `player` (a part of a name)."""
        query, args = "SELECT * FROM matches WHERE 1", []
        if game:
            query += " AND game = ?"
            args.append(game)
        if player:
            query += " AND players LIKE ? ESCAPE '\\'"
            escaped = player.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            args.append(f"%{escaped}%")
        query += " ORDER BY started DESC LIMIT ?"
        args.append(limit)
        with self._connect() as db:
            return [_match_row(found) for found in db.execute(query, args)]

    def log_paths(self) -> set[str]:
        with self._connect() as db:
            return {path for (path,) in db.execute("SELECT log_path FROM matches") if path}

    def save_tournament(
        self,
        tournament_id: str,
        setup: dict[str, Any],
        status: str,
        results: Sequence[dict[str, Any]],
        failure: str | None = None,
        started: float | None = None,
    ) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO tournaments VALUES (?,?,?,?,?,?)",
                (
                    tournament_id,
                    json.dumps(setup),
                    status,
                    json.dumps(list(results)),
                    started if started is not None else time.time(),
                    failure,
                ),
            )

    def tournaments(self) -> list[dict[str, Any]]:
        with self._connect() as db:
            found = db.execute("SELECT * FROM tournaments ORDER BY started DESC").fetchall()
        return [_tournament(row) for row in found]

    def tournament(self, tournament_id: str) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        return None if row is None else _tournament(row)


def _match_row(found: Sequence[Any]) -> MatchRow:
    (
        id_,
        game,
        roles,
        players,
        status,
        goals,
        errors,
        steps,
        failure,
        path,
        started,
        source,
        tournament,
    ) = found
    return MatchRow(
        id_,
        game,
        tuple(json.loads(roles)),
        tuple(json.loads(players)),
        status,
        None if goals is None else tuple(json.loads(goals)),
        errors,
        steps,
        failure,
        path,
        started,
        source,
        tournament,
    )


def _tournament(row: Sequence[Any]) -> dict[str, Any]:
    id_, setup, status, results, started, failure = row
    return {
        "id": id_,
        "setup": json.loads(setup),
        "status": status,
        "results": json.loads(results),
        "started": started,
        "failure": failure,
    }
