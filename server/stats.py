"""Confidence intervals of scores, the one way every command shows them."""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: `successes` out of `trials`.

    A score (the mean of goal/100, a draw counting half a win) is `successes` =
    score * matches.  Unlike mean +- z standard errors, the interval stays inside
    0..1 without clipping and does not shrink to a point at 20 wins of 20 (it is
    0.84-1.00) or at 1 match of 1.  Draws make a score vary less than wins and
    losses alone, so for them the interval errs on the wide side.
    """
    if trials < 1:
        raise ValueError(f"a confidence interval needs at least one trial, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and {trials}, got {successes}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / trials
    spread = z * z / trials
    centre = (p + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(p * (1 - p) / trials + spread / (4 * trials))
    # At p = 0 (or 1) the lower (upper) bound is exactly 0 (1); computed, it can be
    # a rounding error away.
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == trials else centre + half
    return low, high


def difference_interval(
    points_a: float, trials_a: int, points_b: float, trials_b: int, confidence: float = 0.95
) -> tuple[float, float]:
    """An interval for the difference of two scores, a - b (`points_a` of `trials_a`
    against `points_b` of `trials_b`): Newcombe's hybrid score interval (1998, method
    10), built from the two Wilson intervals.  Like them it stays within -1..1 and
    does not shrink to a point at 10 of 10 against 0 of 10, where the normal
    approximation of a difference of proportions does."""
    score_a, score_b = points_a / trials_a, points_b / trials_b
    low_a, high_a = wilson_interval(points_a, trials_a, confidence)
    low_b, high_b = wilson_interval(points_b, trials_b, confidence)
    difference = score_a - score_b
    below = math.sqrt((score_a - low_a) ** 2 + (high_b - score_b) ** 2)
    above = math.sqrt((high_a - score_a) ** 2 + (score_b - low_b) ** 2)
    return difference - below, difference + above


def mean_interval(
    records: list[tuple[float, int]], confidence: float = 0.95
) -> tuple[float, float, float]:
    """The mean of several scores, each weighing the same, and its interval:
    `records` are (points, trials) of independent samples, e.g. a run's games.
    The interval is built from their Wilson intervals, as `difference_interval`
    builds one for a difference (the half-widths below and above the mean added
    in quadrature, over the number of scores: Zou and Donner's MOVER, 2008), so a
    game of few matches widens it as much as its own interval says.  One record
    gives its Wilson interval back."""
    if not records:
        raise ValueError("a mean of scores needs at least one score")
    scores, below, above = [], [], []
    for points, trials in records:
        low, high = wilson_interval(points, trials, confidence)
        scores.append(points / trials)
        below.append(scores[-1] - low)
        above.append(high - scores[-1])
    return mean_of_estimates(scores, below, above)


def mean_of_estimates(
    estimates: list[float], below: list[float], above: list[float]
) -> tuple[float, float, float]:
    """The mean of independent `estimates`, each weighing the same, and its interval
    from theirs: each one's half-widths `below` and `above` it, added in quadrature
    over their number (MOVER: `mean_interval` for scores, `compare_runs.py` for the
    games' differences of two runs)."""
    n = len(estimates)
    mean = sum(estimates) / n
    low = mean - math.sqrt(sum(x * x for x in below)) / n
    high = mean + math.sqrt(sum(x * x for x in above)) / n
    return mean, low, high


def sign_test(better: int, worse: int) -> float:
    """The two-sided exact sign test's p-value of `better` against `worse` paired
    outcomes (ties left out): the chance, were either side as likely to come out
    ahead in each pair, of a split at least this uneven."""
    if better < 0 or worse < 0:
        raise ValueError(f"counts must be >= 0, got {better} and {worse}")
    pairs = better + worse
    if pairs == 0:
        return 1.0
    tail = sum(math.comb(pairs, k) for k in range(min(better, worse) + 1)) / 2**pairs
    return min(1.0, 2 * tail)
