"""Two options of `ggp serve` compared game by game, from the results of `strength.py`.

    python benchmarks/compare_runs.py \\
        --a docs/strength/with-1.json docs/strength/with-2.json:breakthrough \\
        --b docs/strength/without.json --names "tactics on" "default" [--games hex,breakthrough]

Each side is one or more results files of `benchmarks/strength.py` (``PATH`` or
``PATH:GAME,GAME``, only those games), their matches pooled per game; every file
must have been played against the same opponent with the same clocks (the serve
options are what differs).  For each game both sides played, prints both scores
with their 95% Wilson intervals and the commits played, and the difference a - b
with Newcombe's interval (`ggp.server.stats.difference_interval`); then the mean
over those games, each game weighing the same, with the mean difference's interval
from the games' own (their half-widths added in quadrature: the games are
independent samples).  A game played by one side only is named and left out.

This is how a default is decided between two options: by the difference against
the same opponent on each game, not by whether either side's own interval lies
above one half.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ggp.server.stats import difference_interval, mean_of_estimates, wilson_interval  # noqa: E402
from strength import selected_results  # noqa: E402

SAME = ("opponent", "startclock", "playclock")
"""What every file compared must share."""


def pooled(specs: list[str]) -> tuple[dict[str, list[dict]], dict]:
    """Each game's matches over the files of `specs`, and the settings they share;
    raises ValueError where a file cannot be read or the settings differ."""
    games: dict[str, list[dict]] = {}
    settings: dict | None = None
    for spec in specs:
        report = selected_results(spec)
        these = {key: report[key] for key in SAME}
        if settings is not None and these != settings:
            raise ValueError(f"{spec} was played with {these}, not {settings}")
        settings = these
        for game, entry in report["games"].items():
            games.setdefault(game, []).extend(entry["matches_detail"])
    assert settings is not None
    return games, settings


def record(matches: list[dict]) -> tuple[float, int, list[str]]:
    """Our points, the matches and the commits played in `matches`."""
    points = sum(m["goals"][m["ours_role"]] / 100 for m in matches)
    return points, len(matches), sorted({str(m.get("commit")) for m in matches})


def score(points: float, matches: int, commits: list[str]) -> str:
    low, high = wilson_interval(points, matches)
    return f"{points:g}/{matches} {points / matches:.2f} ({low:.2f}-{high:.2f}) {','.join(commits)}"


def signed(difference: float, low: float, high: float) -> str:
    return f"{difference:+.2f} ({low:+.2f} to {high:+.2f})"


def compare(a: dict[str, list[dict]], b: dict[str, list[dict]], games: list[str]) -> list[str]:
    """The table's lines: a header, a line per game both sides played, the mean."""
    lines = ["game | a | b | a - b (95%)"]
    scores_a, scores_b, differences, below, above = [], [], [], [], []
    for game in games:
        points_a, matches_a, commits_a = record(a[game])
        points_b, matches_b, commits_b = record(b[game])
        low, high = difference_interval(points_a, matches_a, points_b, matches_b)
        scores_a.append(points_a / matches_a)
        scores_b.append(points_b / matches_b)
        difference = scores_a[-1] - scores_b[-1]
        differences.append(difference)
        below.append(difference - low)
        above.append(high - difference)
        lines.append(
            f"{game} | {score(points_a, matches_a, commits_a)} | "
            f"{score(points_b, matches_b, commits_b)} | {signed(difference, low, high)}"
        )
    n = len(games)
    mean_a, mean_b = sum(scores_a) / n, sum(scores_b) / n
    difference, low, high = mean_of_estimates(differences, below, above)
    lines.append(
        f"mean of {n} games | {mean_a:.2f} | {mean_b:.2f} | {signed(difference, low, high)}"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", nargs="+", required=True, metavar="RESULTS", help="side a's files")
    parser.add_argument("--b", nargs="+", required=True, metavar="RESULTS", help="side b's files")
    parser.add_argument("--names", nargs=2, default=("a", "b"), metavar=("A", "B"))
    parser.add_argument("--games", help="only these games, comma-separated")
    args = parser.parse_args()
    try:
        side_a, settings_a = pooled(args.a)
        side_b, settings_b = pooled(args.b)
    except ValueError as error:
        parser.error(str(error))
    if settings_a != settings_b:
        parser.error(f"side a was played with {settings_a}, side b with {settings_b}")
    wanted = args.games.split(",") if args.games else sorted(side_a.keys() | side_b.keys())
    both = [game for game in wanted if side_a.get(game) and side_b.get(game)]
    if not both:
        parser.error("no game was played by both sides")
    print(
        f"a: {args.names[0]}; b: {args.names[1]}; against {settings_a['opponent']}, "
        f"{settings_a['startclock']} s / {settings_a['playclock']} s"
    )
    for line in compare(side_a, side_b, both):
        print(line)
    for game in wanted:
        if game not in both:
            side = "a" if side_a.get(game) else "b" if side_b.get(game) else "neither side"
            print(f"{game}: played by {side} only, left out")


if __name__ == "__main__":
    main()
