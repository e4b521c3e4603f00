"""Confidence intervals of scores."""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, `successes` of `trials` (a score:
    successes = score * matches, a draw counting half).  It stays within 0..1 and
    does not shrink to a point at 0 or `trials` successes."""
    if trials < 1:
        raise ValueError(f"an interval needs at least one trial, got {trials}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    share = successes / trials
    z2n = z * z / trials
    centre = (share + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(share * (1 - share) / trials + z2n / (4 * trials))
    return max(0.0, centre - half), min(1.0, centre + half)
