"""Plots of studies and ratings, as PNG and SVG: the optional extra ``plot`` (matplotlib)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ggp.games.base import GameError

if TYPE_CHECKING:
    from ggp.server.ratings import Rating
    from ggp.server.study import SummaryRow

INSTALL_HINT = "plots need matplotlib: pip install 'ggp-player[plot]'"

FORMATS = ("png", "svg")


def plotting_available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float = 6.4, height: float = 4.2):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise GameError(INSTALL_HINT) from None
    return Figure(figsize=(width, height), layout="constrained")


def _save(figure, stem: Path) -> list[Path]:
    paths = []
    for suffix in FORMATS:
        path = stem.with_suffix(f".{suffix}")
        # No dates in the files: the same study draws the same plot.
        metadata = {"Date": None} if suffix == "svg" else {"Software": None}
        figure.savefig(path, dpi=120, metadata=metadata)
        paths.append(path)
    return paths


def plot_study(summary: Sequence[SummaryRow], parameter: str, title: str, stem: Path) -> list[Path]:
    """The studied agent's score against the parameter, with 95% Wilson intervals: one
    line per game (all seats) and, for a single game, one per seat.  Writes
    ``stem.png`` and ``stem.svg`` and returns their paths."""
    figure = _figure()
    axes = figure.add_subplot()
    games = list(dict.fromkeys(row.game for row in summary))
    lines: dict[str, list[SummaryRow]] = {}
    for row in summary:
        if len(games) > 1 and row.seat != "all":
            continue
        label = (
            row.game if len(games) > 1 else ("all seats" if row.seat == "all" else f"as {row.seat}")
        )
        lines.setdefault(label, []).append(row)
    ticks = {float(row.value): row.value for row in summary}
    low, high = min(ticks), max(ticks)
    logarithmic = low > 0 and high / low >= 10
    if logarithmic:
        axes.set_xscale("log")
    for number, (label, rows) in enumerate(lines.items()):
        # Lines side by side, a little apart, so that their intervals do not hide each other.
        shift = (number - (len(lines) - 1) / 2) * 0.012
        xs = [
            float(row.value) * (1 + 3 * shift)
            if logarithmic
            else float(row.value) + shift * (high - low)
            for row in rows
        ]
        ys = [row.score for row in rows]
        errors = [
            [row.score - row.ci_low for row in rows],
            [row.ci_high - row.score for row in rows],
        ]
        style = "-o" if label in ("all seats", *games) else "--s"
        axes.errorbar(xs, ys, yerr=errors, fmt=style, capsize=3, label=label, alpha=0.9)
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xticks(sorted(ticks), labels=[ticks[x] for x in sorted(ticks)])
    axes.minorticks_off()
    axes.set_ylim(0, 1)
    axes.set_xlabel(parameter)
    axes.set_ylabel("score (win 1, draw 0.5), 95% Wilson interval")
    axes.set_title(textwrap.fill(title, 80), fontsize=9)
    axes.legend(fontsize=8)
    axes.grid(alpha=0.3)
    return _save(figure, stem)


def plot_ratings(ratings: Sequence[Rating], title: str, stem: Path) -> list[Path]:
    """Each player's rating with its 95% interval, best at the top; ``stem.png/.svg``."""
    ordered = sorted(ratings, key=lambda rating: rating.rating)
    figure = _figure(height=1.2 + 0.45 * len(ordered))
    axes = figure.add_subplot()
    ys = range(len(ordered))
    axes.errorbar(
        [r.rating for r in ordered],
        list(ys),
        xerr=[[r.rating - r.low for r in ordered], [r.high - r.rating for r in ordered]],
        fmt="o",
        capsize=4,
    )
    axes.set_yticks(list(ys), labels=[r.spec for r in ordered], fontsize=8)
    axes.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel("rating (Elo scale, mean 0), 95% interval")
    axes.set_title(textwrap.fill(title, 80), fontsize=9)
    axes.grid(alpha=0.3, axis="x")
    return _save(figure, stem)
