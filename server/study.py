"""Studies: how an agent's score changes with one of its options, over many matches.

A study is a grid of points, one per game and value of the varied option; at
each point the studied agent, with that value, plays `matches` matches
against an opponent (in every other role), the seats rotating with `swap`.
A point is a tournament (`ggp.server.tournament`): its matches are played by the
same code, with seeds derived from the study's seed, the game and the value,
so a study gives the same results on every backend and when resumed.

A study's folder holds:

- ``plan.json``: what the study is (a study is resumed only with the same plan);
- ``matches.jsonl``: one line per finished match, appended as it finishes;
  a resumed study reads it and plays only the matches missing;
- at the end, ``matches.csv`` and ``results.json`` (every match and the
  summary) and ``summary.csv``: per point and seat, the studied agent's wins,
  draws, losses and score with its 95% Wilson interval.

The match logs go to ``logs/`` in the folder unless told otherwise.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggp.games.base import GameError
from ggp.games.registry import parse_spec
from ggp.player.agents import Clocks
from ggp.server.match import RANDOM_ROLE, derive_seed, make_players, new_match_id, seat_specs
from ggp.server.match_log import write_json_atomically
from ggp.server.remote import is_player_url
from ggp.server.results import MatchResult, outcome
from ggp.server.runner import run_locally
from ggp.server.stats import wilson_interval
from ggp.server.tournament import (
    TournamentSetup,
    cached_game,
    play_match_of,
    portable_game_spec,
    standings,
)

if TYPE_CHECKING:
    from ggp.server.ray_runner import RayCluster

PLAN_FILE = "plan.json"
JOURNAL_FILE = "matches.jsonl"
MATCHES_CSV = "matches.csv"
RESULTS_JSON = "results.json"
SUMMARY_CSV = "summary.csv"


def with_options(spec: str, options: dict[str, str]) -> str:
    """The agent `spec` with `options` set (replacing those of the same names)."""
    name, own = parse_spec(spec, what="agent")
    merged = {**own, **options}
    return f"{name}:{','.join(f'{key}={value}' for key, value in merged.items())}"


def parse_vary(text: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=V1,V2,...`` -> the option's name and its values, which must be numbers."""
    name, sep, rest = text.partition("=")
    values = tuple(value.strip() for value in rest.split(","))
    if not sep or not name.strip() or not all(values):
        raise GameError(f"--vary {text}: expected NAME=VALUE,VALUE,... (c=0.5,0.7,1.0)")
    for value in values:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise GameError(f"--vary {name.strip()}: values must be numbers, got {value!r}")
    if len(set(values)) != len(values):
        raise GameError(f"--vary {name.strip()}: a value is given twice")
    return name.strip(), values


def opponent_spec(agent: str, against: str) -> str:
    """The opponent: `against` as an agent spec, or if it is only options (``c=1.4``),
    the studied agent with those options."""
    if ":" not in against and "=" in against and not is_player_url(against):
        _, options = parse_spec(f"agent:{against}", what="agent")
        return with_options(agent, options)
    return against


@dataclass(frozen=True)
class StudyPlan:
    """What a study plays; the same plan gives the same matches."""

    games: tuple[str, ...]
    agent: str
    """The studied agent's spec, without the varied option."""
    parameter: str
    values: tuple[str, ...]
    against: str
    """The opponent's spec (in every other role)."""
    matches: int
    """Matches per point."""
    swap: bool
    seed: int
    gdl: bool = False
    startclock: float | None = None
    playclock: float | None = None
    grace: float = 1.0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StudyPlan:
        known = {field.name for field in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        for key in ("games", "values"):
            values[key] = tuple(values[key])
        return cls(**values)


@dataclass(frozen=True)
class Point:
    """One point of a study: a game and a value of the parameter."""

    number: int
    game: str
    value: str
    specs: tuple[str, ...]
    """One agent spec per role, the studied agent first."""
    roles: tuple[str, ...]


@dataclass(frozen=True)
class StudyMatch:
    """A finished match of a study: its point and its result."""

    point: int
    result: MatchResult

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, **asdict(self.result)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StudyMatch:
        result = MatchResult(
            index=data["index"],
            seed=data["seed"],
            seats=tuple(data["seats"]),
            agents=tuple(data["agents"]),
            goals=tuple(data["goals"]),
            steps=data["steps"],
            errors=tuple(tuple(counts) for counts in data["errors"]),
            match_id=data.get("match_id", ""),
        )
        return cls(data["point"], result)


@dataclass(frozen=True)
class SummaryRow:
    """How the studied agent did at one point, over all its matches or in one seat."""

    point: int
    game: str
    value: str
    seat: str
    """A role name, or ``all``."""
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    """The mean of goal / 100."""
    ci_low: float
    ci_high: float
    """The 95% Wilson interval of the score."""


class Study:
    """A study and its folder: what is done, what remains, and the outputs."""

    def __init__(self, plan: StudyPlan, folder: Path, log_dir: Path | None = None) -> None:
        """Check the plan (games, agents, options and values) before anything runs."""
        self.plan = plan
        self.folder = Path(folder)
        self.study_id = ""
        """Names the study's match logs; set by `open`, kept in the plan file."""
        self.log_dir = self.folder / "logs" if log_dir is None else Path(log_dir)
        if plan.matches < 1:
            raise GameError(f"a study needs at least 1 match per point, got {plan.matches}")
        against = opponent_spec(plan.agent, plan.against)
        self.points: list[Point] = []
        for game_spec in plan.games:
            game = cached_game(game_spec, plan.gdl).game
            for value in plan.values:
                studied = with_options(plan.agent, {plan.parameter: value})
                players = sum(role != RANDOM_ROLE for role in game.roles)
                specs = seat_specs(game, [studied] + [against] * (players - 1))
                make_players(game, specs, plan.seed)  # a bad spec or value fails here
                number = len(self.points)
                self.points.append(Point(number, game_spec, value, tuple(specs), tuple(game.roles)))
        if plan.swap and any(RANDOM_ROLE in point.roles for point in self.points):
            raise GameError(f"--swap: a game with a role {RANDOM_ROLE!r} cannot rotate its seats")

    @property
    def total(self) -> int:
        return len(self.points) * self.plan.matches

    def _setup(self, point: Point, study_id: str) -> TournamentSetup:
        plan = self.plan
        return TournamentSetup(
            game_spec=portable_game_spec(point.game),  # Ray's workers run in another folder
            gdl=plan.gdl,
            specs=point.specs,
            seed=derive_seed(plan.seed, "study", point.game, point.value),
            swap=plan.swap,
            clocks=Clocks(plan.startclock, plan.playclock),
            grace=plan.grace,
            log_dir=str(self.log_dir.absolute()),  # Ray workers run in another folder
            id_prefix=f"{study_id}.p{point.number}",
        )

    def open(self) -> list[StudyMatch]:
        """Create the folder, or check that it holds this very study; the matches done.

        Only the number of matches a point may change: more extends the study
        (the first matches are the same), fewer leaves out the last ones.
        """
        plan_path = self.folder / PLAN_FILE
        if plan_path.exists():
            saved = json.loads(plan_path.read_text())
            before = StudyPlan.from_json(saved)
            if replace(before, matches=self.plan.matches) != self.plan:
                raise GameError(
                    f"{self.folder} holds another study ({plan_path}); "
                    "give another --out, or the same options to resume it"
                )
            self.study_id = saved["study_id"]
            if before.matches != self.plan.matches:  # more (or fewer) matches a point
                write_json_atomically(plan_path, {**asdict(self.plan), "study_id": self.study_id})
            return [match for match in self._journal() if match.result.index < self.plan.matches]
        if self.folder.exists() and any(self.folder.iterdir()):
            raise GameError(f"{self.folder} is not empty and holds no study")
        self.study_id = new_match_id("study")
        write_json_atomically(plan_path, {**asdict(self.plan), "study_id": self.study_id})
        return []

    def _journal(self) -> list[StudyMatch]:
        path = self.folder / JOURNAL_FILE
        if not path.exists():
            return []
        done: dict[tuple[int, int], StudyMatch] = {}
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            try:
                match = StudyMatch.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError):
                if number == len(lines) - 1:
                    break  # the last line, cut short when the study was killed (see `run`)
                raise GameError(f"{path}, line {number + 1}: not a match of this study") from None
            done[match.point, match.result.index] = match
        return list(done.values())

    def run(
        self,
        done: Sequence[StudyMatch],
        *,
        jobs: int = 1,
        cluster: RayCluster | None = None,
        on_match: Callable[[StudyMatch], None] | None = None,
    ) -> list[StudyMatch]:
        """Play the matches not in `done`, appending each to the journal as it ends;
        every match of the study, sorted by point and number."""
        finished = {(match.point, match.result.index) for match in done}
        setups = {point.number: self._setup(point, self.study_id) for point in self.points}
        wanted = [
            (point.number, index)
            for point in self.points
            for index in range(self.plan.matches)
            if (point.number, index) not in finished
        ]
        tasks = [(setups[point], index) for point, index in wanted]
        played = list(done)
        path = self.folder / JOURNAL_FILE
        if path.exists() and not path.read_bytes().endswith(b"\n"):
            path.write_text("".join(line + "\n" for line in path.read_text().splitlines()[:-1]))
        with path.open("a") as journal:

            def record(number: int, result: MatchResult) -> None:
                match = StudyMatch(wanted[number][0], result)
                journal.write(json.dumps(match.to_json()) + "\n")
                journal.flush()
                played.append(match)
                if on_match is not None:
                    on_match(match)

            if cluster is not None:
                cluster.run(play_match_of, tasks, record)
            else:
                remote = any(is_player_url(spec) for p in self.points for spec in p.specs)
                run_locally(play_match_of, tasks, jobs=jobs, processes=not remote, on_result=record)
        return sorted(played, key=lambda match: (match.point, match.result.index))

    def summary(self, matches: Sequence[StudyMatch]) -> list[SummaryRow]:
        """Per point, the studied agent's results over all seats and in each seat."""
        rows = []
        for point in self.points:
            results = [match.result for match in matches if match.point == point.number]
            for standing in standings(results, point.specs, point.roles):
                if standing.agent != 0 or not standing.games:
                    continue
                low, high = wilson_interval(standing.score * standing.games, standing.games)
                rows.append(
                    SummaryRow(
                        point=point.number,
                        game=point.game,
                        value=point.value,
                        seat=standing.seat,
                        games=standing.games,
                        wins=standing.wins,
                        draws=standing.draws,
                        losses=standing.losses,
                        score=standing.score,
                        ci_low=low,
                        ci_high=high,
                    )
                )
        return rows

    def write_outputs(self, matches: Sequence[StudyMatch], summary: Sequence[SummaryRow]) -> None:
        """``matches.csv``, ``summary.csv`` and ``results.json``, each written whole."""
        write_json_atomically(
            self.folder / RESULTS_JSON,
            {
                "plan": asdict(self.plan),
                "study_id": self.study_id,
                "points": [asdict(point) for point in self.points],
                "matches": [match.to_json() for match in matches],
                "summary": [asdict(row) for row in summary],
            },
        )
        _write_text_atomically(self.folder / MATCHES_CSV, self._matches_csv(matches))
        _write_text_atomically(self.folder / SUMMARY_CSV, _summary_csv(summary, self.plan))

    def _matches_csv(self, matches: Sequence[StudyMatch]) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(
            ["point", "game", self.plan.parameter, "match", "seed", "studied_role",
             "studied_goal", "outcome", "steps", "goals", "agents", "match_id"]
        )  # fmt: skip
        words = {1: "win", 0: "draw", -1: "loss"}
        for match in matches:
            point, result = self.points[match.point], match.result
            role = result.seats.index(0)
            writer.writerow(
                [
                    point.number,
                    point.game,
                    point.value,
                    result.index,
                    result.seed,
                    point.roles[role],
                    result.goals[role],
                    words[outcome(result.goals, role)],
                    result.steps,
                    " ".join(f"{r}={g}" for r, g in zip(point.roles, result.goals, strict=True)),
                    " | ".join(result.agents),
                    result.match_id,
                ]
            )
        return out.getvalue()


def _summary_csv(summary: Sequence[SummaryRow], plan: StudyPlan) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["point", "game", plan.parameter, "seat", "games", "wins", "draws",
                     "losses", "score", "ci_low", "ci_high"])  # fmt: skip
    for row in summary:
        writer.writerow(
            [row.point, row.game, row.value, row.seat, row.games, row.wins, row.draws,
             row.losses, f"{row.score:.4f}", f"{row.ci_low:.4f}", f"{row.ci_high:.4f}"]
        )  # fmt: skip
    return out.getvalue()


def _write_text_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    temporary.replace(path)


def format_summary(summary: Sequence[SummaryRow], parameter: str) -> str:
    """The summary as a text table, one line per point and seat."""
    game_width = max(4, *(len(row.game) for row in summary))
    value_width = max(len(parameter), *(len(row.value) for row in summary))
    seat_width = max(4, *(len(row.seat) for row in summary))
    lines = [
        f"{'game':<{game_width}}  {parameter:>{value_width}}  {'seat':<{seat_width}}  "
        "games  wins  draws  losses  score  95% CI"
    ]
    for row in summary:
        game, value = (row.game, row.value) if row.seat == "all" else ("", "")
        lines.append(
            f"{game:<{game_width}}  {value:>{value_width}}  {row.seat:<{seat_width}}  "
            f"{row.games:>5}  {row.wins:>4}  {row.draws:>5}  {row.losses:>6}  "
            f"{row.score:.3f}  {row.ci_low:.2f}-{row.ci_high:.2f}"
        )
    return "\n".join(lines)
