"""What the seat is worth: each game's scores by seat over match logs, ours and the opponent's.

    python benchmarks/seat_scores.py docs/strength/logs/sancho-*/*.json \\
        [--opponent 9160,9161,9170,9301,9302,9311] [--games breakthrough,connectFour]

For each two-role match log of `benchmarks/strength.py` (the referee's JSON: the
players' URLs, the goals; ours is the seat whose URL is not on an `--opponent` port),
prints a line per game: the first seat's score whoever held it, ours in each seat and
the opponent's in each seat, with 95% Wilson intervals.  Where the first (or second)
seat wins most matches whoever holds it, a score over both seats is bounded by what
the seat gives: against an opponent that makes no error from the better seat, half
the points at most.  Logs of other games, of more roles, or where the seats are
unclear are counted as skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlparse

from ggp.server.stats import wilson_interval


def our_seat(log: dict, opponent_ports: Iterable[str | int]) -> int | None:
    """Our role index: the one seat whose URL's port is not an opponent's (None: unclear,
    none or several such seats, or no players named)."""
    ports = {int(port) for port in opponent_ports}
    seats = [
        i
        for i, url in enumerate(log.get("playerNamesFromHost") or [])
        if urlparse(url).port not in ports
    ]
    return seats[0] if len(seats) == 1 else None


def tally(paths: list[Path], opponent_ports: list[str], games: set[str] | None) -> tuple[dict, int]:
    """Per game, per seat: [our points, our matches, the opponent's points, its matches];
    and the logs skipped."""
    scores: dict[str, list[list[float]]] = defaultdict(lambda: [[0.0, 0, 0.0, 0], [0.0, 0, 0.0, 0]])
    skipped = 0
    for path in paths:
        game = path.name.split(".")[0]
        if games is not None and game not in games:
            continue
        log = json.loads(path.read_text())
        goals = log.get("goalValues")
        ours = our_seat(log, opponent_ports)
        if ours is None or not goals or len(goals) != 2:
            skipped += 1
            continue
        ours_seat, theirs = scores[game][ours], scores[game][1 - ours]
        ours_seat[0] += goals[ours] / 100
        ours_seat[1] += 1
        theirs[2] += goals[1 - ours] / 100
        theirs[3] += 1
    return scores, skipped


def share(points: float, matches: int) -> str:
    """`points` of `matches` with the score and its interval."""
    if not matches:
        return "-"
    low, high = wilson_interval(points, matches)
    return f"{points:g}/{matches} {points / matches:.2f} ({low:.2f}-{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--opponent", default="9160,9161,9170,9301,9302,9311")
    parser.add_argument("--games", help="only these games (comma-separated)")
    args = parser.parse_args()
    games = set(args.games.split(",")) if args.games else None
    scores, skipped = tally(args.logs, args.opponent.split(","), games)
    header = ["game", "first seat, whoever held it", "ours first", "ours second"]
    print(" | ".join([*header, "theirs first", "theirs second"]))
    for game in sorted(scores):
        first, second = scores[game]
        held = first[0] + first[2], first[1] + first[3]
        cells = [share(*held), share(first[0], first[1]), share(second[0], second[1])]
        cells += [share(first[2], first[3]), share(second[2], second[3])]
        print(" | ".join([game, *cells]))
    print(f"skipped: {skipped}", file=sys.stderr)


if __name__ == "__main__":
    main()
