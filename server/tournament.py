"""Tournaments: many matches between the same agents, in parallel, and their standings.

Match i gets its own seed, derived from the tournament seed and i, and its
agents get seeds derived from that; so a tournament with iteration budgets
gives the same results on every run, with any number of worker processes.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import multiprocessing
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from games.base import Game, GameError
from games.registry import load_game
from server.match import derive_seed, make_agents, play_match

Z_95 = 1.959964
"""The 97.5% quantile of the standard normal distribution."""


@dataclass(frozen=True)
class MatchResult:
    """One finished match: which agent sat in which role, and the goals."""

    index: int
    seed: int
    seats: tuple[int, ...]
    """The agent number (position in the tournament's list) of each role."""
    agents: tuple[str, ...]
    """The agent spec of each role, in role order."""
    goals: tuple[int, ...]
    steps: int


@dataclass(frozen=True)
class Standing:
    """How one agent did, over all its matches or in one seat (role)."""

    agent: int
    spec: str
    seat: str
    """A role name, or ``all``."""
    games: int
    wins: int
    draws: int
    losses: int
    mean_goal: float
    score: float
    """The mean of goal / 100."""
    ci_low: float | None
    ci_high: float | None
    """The 95% confidence interval of the score: mean +- 1.96 standard errors
    (normal approximation), clipped to 0..1; None with fewer than two games."""


def seating(index: int, agents: int, swap: bool) -> tuple[int, ...]:
    """The agent number of each role in match `index`: with `swap`, the seats rotate
    from match to match (two agents: every other match has them swapped)."""
    shift = index % agents if swap else 0
    return tuple((role + shift) % agents for role in range(agents))


@functools.lru_cache(maxsize=4)
def cached_game(spec: str, gdl: bool) -> Game:
    """`load_game`, once per process (a GDL game is parsed once, not once per match)."""
    return load_game(spec, gdl=gdl)


def play_one(game_spec: str, gdl: bool, specs: Sequence[str], seed: int, index: int, swap: bool):
    """Play match `index` of a tournament (in whichever process) and return its result."""
    game = cached_game(game_spec, gdl)
    seats = seating(index, len(specs), swap)
    match_seed = derive_seed(seed, index)
    role_specs = tuple(specs[agent] for agent in seats)
    record = play_match(game, make_agents(role_specs, match_seed))
    assert record.goals is not None
    return MatchResult(index, match_seed, seats, role_specs, record.goals, len(record.moves))


def run_tournament(
    game_spec: str,
    specs: Sequence[str],
    *,
    games: int,
    swap: bool = False,
    seed: int = 0,
    jobs: int = 1,
    gdl: bool = False,
    progress: Callable[[Iterable[MatchResult], int], Iterable[MatchResult]] | None = None,
) -> list[MatchResult]:
    """Play `games` matches of `specs` (one agent per role) and return them in order.

    With `jobs` > 1 the matches are shared among that many worker processes.
    `progress` wraps the stream of finished matches (a progress bar, say).
    """
    game = cached_game(game_spec, gdl)
    if len(specs) != len(game.roles):
        raise GameError(
            f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}): "
            f"give one agent per role, got {len(specs)}"
        )
    if any(spec.partition(":")[0].strip() == "human" for spec in specs):
        raise GameError("a tournament cannot seat a human; use ggp play or ggp match")
    make_agents(specs, seed)  # bad specs fail here, before any worker starts
    task = functools.partial(play_one, game_spec, gdl, tuple(specs), seed, swap=swap)
    wrap = progress or (lambda results, total: results)
    if jobs <= 1:
        results = list(wrap(map(task, range(games)), games))
    else:
        with multiprocessing.Pool(jobs) as pool:
            results = list(wrap(pool.imap_unordered(task, range(games)), games))
    return sorted(results, key=lambda result: result.index)


def outcome(goals: Sequence[int], role: int) -> int:
    """1 for a win (more than every other role), 0 for a draw, -1 for a loss.

    In a one-role game, 100 is a win, 0 a loss and anything between a draw.
    """
    others = [goal for index, goal in enumerate(goals) if index != role]
    best_other = max(others) if others else 50
    mine = goals[role]
    if others or mine in (0, 100):
        return (mine > best_other) - (mine < best_other)
    return 0


def _standing(agent: int, spec: str, seat: str, games: list[tuple[Sequence[int], int]]) -> Standing:
    outcomes = [outcome(goals, role) for goals, role in games]
    scores = [goals[role] / 100 for goals, role in games]
    mean = statistics.fmean(scores) if scores else math.nan
    low = high = None
    if len(scores) > 1:
        half = Z_95 * statistics.stdev(scores) / math.sqrt(len(scores))
        low, high = max(0.0, mean - half), min(1.0, mean + half)
    return Standing(
        agent=agent,
        spec=spec,
        seat=seat,
        games=len(games),
        wins=outcomes.count(1),
        draws=outcomes.count(0),
        losses=outcomes.count(-1),
        mean_goal=100 * mean,
        score=mean,
        ci_low=low,
        ci_high=high,
    )


def standings(results: Sequence[MatchResult], specs: Sequence[str], roles: Sequence[str]):
    """Per agent: its standing over all matches, then in each seat it took."""
    table: list[Standing] = []
    for agent, spec in enumerate(specs):
        played = [
            (result.goals, role)
            for result in results
            for role, seated in enumerate(result.seats)
            if seated == agent
        ]
        table.append(_standing(agent, spec, "all", played))
        for role, name in enumerate(roles):
            seat = [(goals, r) for goals, r in played if r == role]
            if seat:
                table.append(_standing(agent, spec, name, seat))
    return table


def format_standings(table: Sequence[Standing]) -> str:
    """The standings as a text table, one line per agent and seat."""
    width = max(len(f"{row.agent + 1} {row.spec}") for row in table)
    seat_width = max(4, *(len(row.seat) for row in table))
    lines = [
        f"{'agent':<{width}}  {'seat':<{seat_width}}  games  wins  draws  losses  "
        "mean goal  score  95% CI"
    ]
    for row in table:
        name = f"{row.agent + 1} {row.spec}" if row.seat == "all" else ""
        interval = "-" if row.ci_low is None else f"{row.ci_low:.2f}-{row.ci_high:.2f}"
        lines.append(
            f"{name:<{width}}  {row.seat:<{seat_width}}  {row.games:>5}  {row.wins:>4}  "
            f"{row.draws:>5}  {row.losses:>6}  {row.mean_goal:>9.1f}  {row.score:>5.3f}  "
            f"{interval}"
        )
    return "\n".join(lines)


OUTPUT_FORMATS = (".csv", ".json")


def write_results(
    path: Path,
    game: Game,
    specs: Sequence[str],
    seed: int,
    swap: bool,
    results: Sequence[MatchResult],
) -> None:
    """Write the matches to `path`, as CSV or JSON according to its extension."""
    if path.suffix == ".csv":
        with path.open("w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(
                ["match", "seed", "steps"]
                + [f"agent:{role}" for role in game.roles]
                + [f"goal:{role}" for role in game.roles]
            )
            for r in results:
                writer.writerow([r.index, r.seed, r.steps, *r.agents, *r.goals])
        return
    table = standings(results, specs, game.roles)
    data = {
        "game": game.name,
        "roles": list(game.roles),
        "agents": list(specs),
        "seed": seed,
        "swap": swap,
        "matches": [asdict(result) for result in results],
        "standings": [asdict(row) for row in table],
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


def check_output_path(path: Path) -> None:
    """Refuse an output file the tournament could not write, before it starts."""
    if path.suffix not in OUTPUT_FORMATS:
        raise GameError(f"--out {path}: the file name must end in {' or '.join(OUTPUT_FORMATS)}")
    if not path.parent.is_dir():
        raise GameError(f"--out {path}: no such folder {path.parent}")
