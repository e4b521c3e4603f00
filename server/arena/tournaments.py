"""Tournaments started from the arena's page, each run by its own process
(`ggp.server.arena.tournament_job`), their progress and standings."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ggp.games.base import GameError
from ggp.server.arena.catalogue import builtin_spec, kif_files, playable, resolve_game
from ggp.server.arena.player_policy import PlayerPolicy, check_agent_spec
from ggp.server.arena.store import ABORTED, FINISHED, RUNNING, ArenaStore
from ggp.server.match import new_match_id, seat_specs
from ggp.server.remote import is_player_url
from ggp.server.rules import RefereeGame, referee_game
from ggp.server.stats import wilson_interval
from ggp.server.tournament import MatchResult, Standing, standings

log = logging.getLogger(__name__)

MAX_MATCHES = 1000
MAX_REMOTE_JOBS = 16
RULES_FOLDER = "arena-games"
STOP_GRACE = 10.0
"""Seconds a stopped tournament has to abort and log its matches before it is killed."""


def _integer(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise GameError(f"{name}: expected a whole number from {low} to {high}")
    return value


def _seconds(body: dict[str, Any], name: str) -> float | None:
    value = body.get(name)
    if value in (None, ""):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise GameError(f"{name}: expected seconds") from None
    if not 0 < seconds <= 3600:
        raise GameError(f"{name}: expected seconds between 0 and 3600")
    return seconds


def max_jobs(specs: list[str]) -> int:
    """The most matches of a tournament played at once: one a core when agents search
    in worker processes, more when a GGP player by URL makes the referee mostly wait."""
    if any(is_player_url(spec) for spec in specs):
        return MAX_REMOTE_JOBS
    return max(1, os.cpu_count() or 1)


def rules_file(game: RefereeGame, log_dir: Path) -> Path:
    """Pasted or uploaded rules written where the tournament's processes read them:
    ``LOG_DIR/arena-games/rules-HASH.kif``, named by their content (never by the request)."""
    assert game.rules is not None
    digest = hashlib.sha256(game.rules.encode()).hexdigest()[:16]
    path = log_dir / RULES_FOLDER / f"rules-{digest}.kif"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w") as written:
            written.write(game.rules)
        os.replace(temporary, path)
    return path


def tournament_game(game: Any, games_dir: Path | None, log_dir: Path) -> tuple[str, bool, str]:
    """The game spec and GDL flag a tournament's processes load, and its name for the page."""
    if not isinstance(game, dict):
        raise GameError("game: expected an object")
    if isinstance(game.get("builtin"), str):
        spec = builtin_spec(game["builtin"])
        return spec, bool(game.get("gdl")), spec
    if isinstance(game.get("file"), str):
        path = kif_files(games_dir).get(game["file"])
        if path is None:
            raise GameError(f"no game file {game['file']!r} in the arena's games folder")
        playable(referee_game(str(path)))
        return str(path), False, game["file"]
    if isinstance(game.get("rules"), str):
        loaded = resolve_game(game, games_dir)  # the checks of a match's rules, faults with lines
        return str(rules_file(loaded, log_dir)), False, loaded.spec
    raise GameError("game: a built-in game, a file of the games folder or GDL rules")


def tournament_setup(
    body: dict[str, Any], games_dir: Path | None, log_dir: Path, policy: PlayerPolicy
) -> dict:
    """The setup of a tournament a request asks for, checked; a `GameError` otherwise."""

    spec, gdl, name = tournament_game(body.get("game"), games_dir, log_dir)
    players = body.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise GameError("players: expected a list of player specs, one per role")
    if any(p.partition(":")[0].strip() in ("person", "human") for p in players):
        raise GameError("a tournament is played by agents and GGP players, not by a person")
    for player in players:
        policy.check(player.strip())
        check_agent_spec(player.strip())
    loaded = referee_game(spec, gdl=gdl)
    specs = seat_specs(loaded.game, [p.strip() for p in players])
    return {
        "game": spec,
        "name": name,
        "gdl": gdl,
        "roles": list(loaded.game.roles),
        "players": specs,
        "matches": _integer(body, "matches", 10, 1, MAX_MATCHES),
        "jobs": _integer(body, "jobs", 1, 1, max_jobs(specs)),
        "swap": bool(body.get("swap")),
        "seed": _integer(body, "seed", 0, 0, 2**62),
        "startclock": _seconds(body, "startclock"),
        "playclock": _seconds(body, "playclock"),
        "log_dir": str(log_dir.resolve()),
    }


def _result(data: dict[str, Any]) -> MatchResult:
    return MatchResult(
        index=data["index"],
        seed=data["seed"],
        seats=tuple(data["seats"]),
        agents=tuple(data["agents"]),
        goals=tuple(data["goals"]),
        steps=data["steps"],
        errors=tuple(tuple(row) for row in data["errors"]),
        match_id=data["match_id"],
    )


class ArenaTournament:
    """One tournament: its setup, the matches finished so far, its process."""

    def __init__(self, setup: dict[str, Any]) -> None:
        self.id = new_match_id(f"tournament-{Path(setup['name']).stem}")
        self.setup = setup
        self.results: list[dict[str, Any]] = []
        self.status = RUNNING
        self.failure: str | None = None
        self.started = time.time()
        self.process: asyncio.subprocess.Process | None = None
        self.task: asyncio.Task | None = None
        self.stopped = False
        """`stop` was called while the process ran: it ends aborted however it ends."""

    def view(self) -> dict[str, Any]:
        return tournament_view(
            self.id, self.setup, self.status, self.failure, self.started, self.results
        )

    def save(self, store: ArenaStore) -> None:
        store.save_tournament(
            self.id, self.setup, self.status, self.results, self.failure, self.started
        )

    async def run(self, store: ArenaStore, index_logs: Callable[[], Awaitable[object]]) -> None:
        """Run the tournament's process, reading each match's result as it comes;
        `index_logs` (its matches join the history) is awaited before it is said over."""
        self.save(store)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "ggp.server.arena.tournament_job",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert self.process.stdin is not None and self.process.stdout is not None
            # One line, and stdin kept open: the process's lifeline (`tournament_job`).
            self.process.stdin.write(json.dumps(self.setup).encode() + b"\n")
            async for line in self.process.stdout:
                data = json.loads(line)
                if "index" in data:
                    self.results.append(data)
                    self.save(store)
                elif "error" in data:
                    self.failure = data["error"]
            returncode = await self.process.wait()
            await index_logs()
            if self.failure is None and self.stopped:  # killed before it could say so
                self.failure = "the tournament was stopped"
            elif self.failure is None and returncode != 0:
                self.failure = f"the tournament's process failed (exit status {returncode})"
            self.status = FINISHED if self.failure is None else ABORTED
        except asyncio.CancelledError:
            await self.stop()
            self.status, self.failure = ABORTED, "the arena stopped during the tournament"
            raise
        finally:
            if self.process is not None and self.process.stdin is not None:
                self.process.stdin.close()
            if self.status == RUNNING:  # the reading failed: a stop still says so
                self.status = ABORTED
                stopped = "the tournament was stopped" if self.stopped else None
                self.failure = self.failure or stopped or "the tournament's process failed"
            self.save(store)

    async def stop(self) -> None:
        """Stop the process as Ctrl-C would (matches aborted and logged), kill it if it lingers."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        self.stopped = True
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), STOP_GRACE)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


def _with_wilson_interval(row: Standing) -> Standing:
    """The standing with the 95% Wilson interval of its score (20 wins of 20 reads
    0.84-1, not certainty; one match has an interval too)."""
    low, high = wilson_interval(row.score * row.games, row.games)
    return replace(row, ci_low=low, ci_high=high)


def tournament_view(
    tournament_id: str,
    setup: dict[str, Any],
    status: str,
    failure: str | None,
    started: float,
    results: list[dict[str, Any]],
) -> dict[str, Any]:
    """A tournament as the page shows it: its setup, progress, standings and matches."""
    finished = [_result(data) for data in results]
    table = standings(finished, setup["players"], setup["roles"]) if finished else []
    table = [_with_wilson_interval(row) for row in table]
    return {
        "id": tournament_id,
        "setup": {k: v for k, v in setup.items() if k not in ("log_dir", "game")},
        "status": status,
        "failure": failure,
        "started": started,
        "done": len(finished),
        "standings": [asdict(row) for row in table],
        "matches": sorted(results, key=lambda data: data["index"]),
    }
