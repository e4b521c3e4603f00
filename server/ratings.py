"""Ratings of the players of a tournament: a Bradley-Terry model fitted to every result.

Each match is read as one game between every two roles played by different
players: a win (a higher goal) counts 1 for the winner, a draw half for each.
The model says player i scores against player j with probability
g_i / (g_i + g_j); the strengths g are fitted by maximum likelihood with the
minorisation-maximisation iteration of Hunter (2004), and shown on the Elo
scale, 400 log10(g), with a mean of 0: 100 points more means an expected
score of 0.64 between the two, 200 points 0.76.

One virtual draw between every two players keeps the fit finite when a player
won or lost everything (and pulls ratings a little towards 0 when there are
only a few matches).  The 95% intervals come from a bootstrap: the fit is
repeated on matches drawn with replacement, with a fixed seed so that the same
results give the same intervals.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ggp.server.results import MatchResult, outcome

PRIOR_DRAWS = 1.0
"""Virtual drawn games between every two players."""

BOOTSTRAP_SAMPLES = 200

ELO = 400 / math.log(10)
"""Elo points per unit of log-strength."""


@dataclass(frozen=True)
class Rating:
    """A player's rating on the Elo scale (mean 0 over the players) and its 95% interval."""

    agent: int
    spec: str
    games: int
    rating: float
    low: float
    high: float


Tally = tuple[list[list[float]], list[list[float]]]
"""Per ordered pair of players: the score of the first against the second, and games."""


def _tally(results: Sequence[MatchResult], players: int) -> Tally:
    scores = [[0.0] * players for _ in range(players)]
    games = [[0.0] * players for _ in range(players)]
    for result in results:
        for a, agent_a in enumerate(result.seats):
            for b, agent_b in enumerate(result.seats):
                if a < b and agent_a != agent_b:
                    first = (outcome((result.goals[a], result.goals[b]), 0) + 1) / 2
                    scores[agent_a][agent_b] += first
                    scores[agent_b][agent_a] += 1 - first
                    games[agent_a][agent_b] += 1
                    games[agent_b][agent_a] += 1
    return scores, games


def fit(scores: list[list[float]], games: list[list[float]], rounds: int = 500) -> list[float]:
    """Log-strengths (natural logarithm, mean 0) maximising the likelihood of the results."""
    players = len(scores)
    wins = [
        sum(scores[i][j] + PRIOR_DRAWS / 2 for j in range(players) if j != i)
        for i in range(players)
    ]
    strength = [1.0] * players
    for _ in range(rounds):
        new = []
        for i in range(players):
            denominator = sum(
                (games[i][j] + PRIOR_DRAWS) / (strength[i] + strength[j])
                for j in range(players)
                if j != i
            )
            new.append(wins[i] / denominator)
        # Strengths are defined up to a factor: keep their geometric mean at 1.
        centre = math.exp(sum(map(math.log, new)) / players)
        new = [value / centre for value in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, strength, strict=True))
        strength = new
        if change < 1e-9:
            break
    return [math.log(value) for value in strength]


def ratings(
    results: Sequence[MatchResult], specs: Sequence[str], samples: int = BOOTSTRAP_SAMPLES
) -> list[Rating]:
    """Every player's rating with its bootstrap 95% interval, in player order."""
    players = len(specs)
    centre = fit(*_tally(results, players))
    rng = random.Random(0)
    draws: list[list[float]] = [[] for _ in range(players)]
    for _ in range(samples if results else 0):
        sample = rng.choices(results, k=len(results))
        for agent, value in enumerate(fit(*_tally(sample, players))):
            draws[agent].append(value)
    table = []
    for agent, spec in enumerate(specs):
        ordered = sorted(draws[agent]) or [centre[agent]]
        low = ordered[int(0.025 * (len(ordered) - 1))]
        high = ordered[math.ceil(0.975 * (len(ordered) - 1))]
        played = sum(agent in result.seats for result in results)
        table.append(Rating(agent, spec, played, ELO * centre[agent], ELO * low, ELO * high))
    return table


def format_ratings(table: Sequence[Rating]) -> str:
    """The ratings as a text table, best first."""
    width = max(6, *(len(f"{row.agent + 1} {row.spec}") for row in table))
    lines = [f"{'player':<{width}}  games  rating  95% interval (Bradley-Terry, Elo scale)"]
    for row in sorted(table, key=lambda row: -row.rating):
        lines.append(
            f"{f'{row.agent + 1} {row.spec}':<{width}}  {row.games:>5}  {row.rating:>6.0f}  "
            f"{row.low:.0f} to {row.high:.0f}"
        )
    return "\n".join(lines)
