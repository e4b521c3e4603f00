"""Tournaments: many matches between the same players, in parallel, and their standings.

Match i gets its own seed, derived from the tournament seed and i, and its
agents get seeds derived from that; so a tournament with iteration budgets
gives the same results on every run, with any number of worker processes.

Matches run at the same time (`jobs`) in one event loop when a player is
remote (the referee mostly waits for the network), and in worker processes
otherwise (in-process agents need a core each), see `ggp.server.runner`; or as
tasks on a Ray cluster (`ggp.server.ray_runner`).  Ctrl-C aborts the matches under
way, which are logged as aborted, and starts no others.
"""

from __future__ import annotations

import csv
import functools
import itertools
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ggp.games.base import Game, GameError
from ggp.player.agents import Clocks
from ggp.server.match import (
    RANDOM_ROLE,
    MatchRefused,
    StepLimitReached,
    derive_seed,
    make_players,
    new_match_id,
    referee_match,
    seat_specs,
)
from ggp.server.record import ERROR_CODES, error_counts
from ggp.server.remote import is_player_url
from ggp.server.results import MatchResult, outcome
from ggp.server.rules import RefereeGame, referee_game
from ggp.server.runner import ignore_result, run_locally
from ggp.server.stats import wilson_interval

if TYPE_CHECKING:
    from ggp.server.ratings import Rating
    from ggp.server.ray_runner import RayCluster


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
    """The 95% confidence interval of the score (Wilson score interval, see
    `ggp.server.stats.wilson_interval`); None without games."""
    errors: tuple[int, ...] = (0, 0, 0)
    """How many errors of each kind in `ERROR_CODES` (TO, CE, IL) were recorded."""


def seating(index: int, agents: int, swap: bool, roles: int | None = None) -> tuple[int, ...]:
    """The agent number of each role in match `index`: with `swap`, the seats rotate
    from match to match (two agents: every other match has them swapped).

    With more agents than `roles` (a round robin), the matches go through the
    ways of choosing an agent per role in turn: every ordering with `swap`,
    otherwise every set of agents once, in their order.
    """
    if roles is not None and agents > roles:
        choices = _round_robin(agents, roles, swap)
        return choices[index % len(choices)]
    shift = index % agents if swap else 0
    return tuple((role + shift) % agents for role in range(agents))


@functools.lru_cache(maxsize=8)
def _round_robin(agents: int, roles: int, swap: bool) -> list[tuple[int, ...]]:
    choose = itertools.permutations if swap else itertools.combinations
    return list(choose(range(agents), roles))


def player_specs(game: Game, specs: Sequence[str]) -> list[str]:
    """The players of a tournament: one per role (`seat_specs`), or more than the
    game has roles, for a round robin (`seating`)."""
    if len(specs) <= len(game.roles):
        return seat_specs(game, specs)
    if RANDOM_ROLE in game.roles:
        raise GameError(
            f"more players than roles: the role {RANDOM_ROLE} of {game.name} "
            "cannot be given to them in turn"
        )
    return list(specs)


def portable_game_spec(spec: str) -> str:
    """`spec` with a ``.kif`` path made absolute, for processes that run in another
    folder (Ray's workers); the name of a built-in game as it is."""
    name, sep, options = spec.partition(":")
    if Path(name.strip()).suffix == ".kif":
        return f"{Path(name.strip()).absolute()}{sep}{options}"
    return spec


@functools.lru_cache(maxsize=4)
def cached_game(spec: str, gdl: bool) -> RefereeGame:
    """`referee_game`, once per process (a GDL game is parsed once, not once per match)."""
    return referee_game(spec, gdl=gdl)


@dataclass(frozen=True)
class TournamentSetup:
    """Everything a match of a tournament needs, in whichever process it is played."""

    game_spec: str
    gdl: bool
    specs: tuple[str, ...]
    seed: int
    swap: bool
    clocks: Clocks | None
    grace: float
    log_dir: str | None
    id_prefix: str
    max_steps: int | None = None


async def play_match_of(setup: TournamentSetup, index: int) -> MatchResult:
    """Play match `index` of a tournament and return its result."""
    game = cached_game(setup.game_spec, setup.gdl)
    seats = seating(index, len(setup.specs), setup.swap, len(game.game.roles))
    match_seed = derive_seed(setup.seed, index)
    role_specs = tuple(setup.specs[agent] for agent in seats)
    match_id = f"{setup.id_prefix}.{index}"
    try:
        record = await referee_match(
            game,
            make_players(game.game, role_specs, match_seed),
            clocks=setup.clocks,
            grace=setup.grace,
            seed=derive_seed(match_seed, "referee"),
            match_id=match_id,
            log_dir=setup.log_dir,
            max_steps=setup.max_steps,
        )
    except (MatchRefused, StepLimitReached) as refusal:
        return MatchResult(index, match_seed, seats, role_specs, (), 0, (), match_id, str(refusal))
    assert record.goals is not None
    return MatchResult(
        index,
        match_seed,
        seats,
        role_specs,
        record.goals,
        len(record.moves),
        error_counts(record.errors, len(role_specs)),
        record.match_id,
    )


def run_tournament(
    game_spec: str,
    specs: Sequence[str],
    *,
    games: int,
    swap: bool = False,
    seed: int = 0,
    jobs: int = 1,
    gdl: bool = False,
    clocks: Clocks | None = None,
    grace: float = 1.0,
    log_dir: Path | str | None = None,
    on_result: Callable[[MatchResult], None] | None = None,
    cluster: RayCluster | None = None,
    max_steps: int | None = None,
) -> list[MatchResult]:
    """Play `games` matches of `specs` (one player per role, or more for a round robin:
    see `seating`) and return them in order.

    With `jobs` > 1, that many matches are played at once: in worker processes
    when every player is in-process, in this process's event loop when one is
    remote.  `on_result` is called as each match ends (a progress bar, say).
    With `log_dir`, every match is logged there.  With `cluster`, the matches
    are Ray tasks on that cluster instead (`jobs` is then the cluster's business).
    A match still going after `max_steps` joint moves ends without a result.
    """
    game = cached_game(game_spec, gdl)
    roles = game.game.roles
    specs = player_specs(game.game, specs)
    if swap and RANDOM_ROLE in roles:
        raise GameError(f"--swap: the role {RANDOM_ROLE} of {game.game.name} cannot change seats")
    if any(spec.partition(":")[0].strip() == "human" for spec in specs):
        raise GameError("a tournament cannot seat a human; use ggp play or ggp match")
    for first in range(0, len(specs), len(roles)):  # bad specs fail here, before any match
        seated = (specs[first:] + specs[:first])[: len(roles)]
        make_players(game.game, seated, seed)
    setup = TournamentSetup(
        game_spec if cluster is None else portable_game_spec(game_spec),
        gdl,
        tuple(specs),
        seed,
        swap,
        clocks,
        grace,
        None if log_dir is None else str(Path(log_dir).absolute()),  # workers' folders differ
        new_match_id(game.game.name),
        max_steps,
    )
    tasks = [(setup, index) for index in range(games)]
    notify = ignore_result if on_result is None else lambda number, result: on_result(result)
    if cluster is not None:
        return cluster.run(play_match_of, tasks, notify)
    processes = not any(is_player_url(spec) for spec in specs)
    return run_locally(play_match_of, tasks, jobs=jobs, processes=processes, on_result=notify)


Played = tuple[MatchResult, int]
"""A match and the role an agent took in it."""


def _standing(agent: int, spec: str, seat: str, games: list[Played]) -> Standing:
    outcomes = [outcome(result.goals, role) for result, role in games]
    scores = [result.goals[role] / 100 for result, role in games]
    errors = [0] * len(ERROR_CODES)
    for result, role in games:
        for kind, count in enumerate(result.errors[role] if result.errors else ()):
            errors[kind] += count
    mean = statistics.fmean(scores) if scores else math.nan
    low, high = wilson_interval(sum(scores), len(scores)) if scores else (None, None)
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
        errors=tuple(errors),
    )


def standings(results: Sequence[MatchResult], specs: Sequence[str], roles: Sequence[str]):
    """Per agent: its standing over all matches played (not refused), then in each
    seat it took."""
    results = [result for result in results if not result.refused]
    table: list[Standing] = []
    for agent, spec in enumerate(specs):
        played = [
            (result, role)
            for result in results
            for role, seated in enumerate(result.seats)
            if seated == agent
        ]
        table.append(_standing(agent, spec, "all", played))
        for role, name in enumerate(roles):
            seat = [(result, r) for result, r in played if r == role]
            if seat:
                table.append(_standing(agent, spec, name, seat))
    return table


def format_standings(table: Sequence[Standing]) -> str:
    """The standings as a text table, one line per player and seat, with the
    errors recorded against the player (TO late, CE connection, IL illegal)."""
    width = max(len(f"{row.agent + 1} {row.spec}") for row in table)
    seat_width = max(4, *(len(row.seat) for row in table))
    lines = [
        f"{'player':<{width}}  {'seat':<{seat_width}}  games  wins  draws  losses  "
        "mean goal  score  95% CI     " + "  ".join(f"{code:>3}" for code in ERROR_CODES)
    ]
    for row in table:
        name = f"{row.agent + 1} {row.spec}" if row.seat == "all" else ""
        interval = "-" if row.ci_low is None else f"{row.ci_low:.2f}-{row.ci_high:.2f}"
        errors = "  ".join(f"{count:>3}" for count in row.errors)
        lines.append(
            f"{name:<{width}}  {row.seat:<{seat_width}}  {row.games:>5}  {row.wins:>4}  "
            f"{row.draws:>5}  {row.losses:>6}  {row.mean_goal:>9.1f}  {row.score:>5.3f}  "
            f"{interval:<9}  {errors}"
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
    ratings: Sequence[Rating] = (),
) -> None:
    """Write the matches to `path`, as CSV or JSON according to its extension
    (JSON with the standings and any `ratings`).

    A match's errors are counted per role as TO, CE, IL (``0/1/0`` in CSV).
    """
    if path.suffix == ".csv":
        with path.open("w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(
                ["match", "seed", "steps"]
                + [f"agent:{role}" for role in game.roles]
                + [f"goal:{role}" for role in game.roles]
                + [f"errors:{role}" for role in game.roles]
                + ["match_id"]
            )
            for r in results:
                errors = ["/".join(map(str, counts)) for counts in r.errors]
                writer.writerow(
                    [r.index, r.seed, r.steps, *r.agents, *r.goals, *errors, r.match_id]
                )
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
    if ratings:
        data["ratings"] = [asdict(rating) for rating in ratings]
    path.write_text(json.dumps(data, indent=1) + "\n")


def check_output_path(path: Path) -> None:
    """Refuse an output file the tournament could not write, before it starts."""
    if path.suffix not in OUTPUT_FORMATS:
        raise GameError(f"--out {path}: the file name must end in {' or '.join(OUTPUT_FORMATS)}")
    if not path.parent.is_dir():
        raise GameError(f"--out {path}: no such folder {path.parent}")
