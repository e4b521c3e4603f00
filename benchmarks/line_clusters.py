"""How many different matches a strength run holds: its scores with repeated lines counted once.

    python benchmarks/line_clusters.py docs/strength/logs/onecommit-43rd/pooled-32nd-43rd.json \\
        --records docs/strength/logs [--plies 8] [--games connectFour,breakthrough]

Two players that search much the same way each time play much the same match again:
the 40 Connect Four matches of issue 33's pool hold 13 different first four drops.  A
match that repeats another's line tells little that the first did not, so the Wilson
interval over matches (`benchmarks/strength.py`) is narrower than the evidence.

For the matches of a results file of `benchmarks/strength.py`, read with their
match records (the referee's JSON, found by match id under ``--records``, by default
the results file's folder), each match's line is our seat and its first ``--plies``
joint moves.  Per game and over all, prints the matches, the different lines, the
matches identical to another to the end, the score with its Wilson interval over
matches, and the interval over an effective number of matches: the matches times
the ratio of the score's variance as if they were independent to its variance with
the matches of a line taken together (the design effect; a cluster-robust variance
of the mean).  Where every match scored alike there is no variance to compare, and
the number of lines is taken.  Matches whose records are missing are counted and
left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Hashable, Iterable
from pathlib import Path

from ggp.server.stats import wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))

from opponent_view import match_record  # noqa: E402

DEFAULT_PLIES = 8


def effective_matches(points: list[float], lines: list[Hashable]) -> float:
    """How many independent matches `points` (one per match) are worth where the
    matches of one of `lines` (one per match) go together: the matches times the
    independent variance of their mean over its cluster-robust variance, at most the
    matches; the number of lines where every match scored alike."""
    count = len(points)
    if count == 0:
        raise ValueError("no matches")
    mean = sum(points) / count
    independent = sum((point - mean) ** 2 for point in points)
    by_line: dict[Hashable, float] = defaultdict(float)
    for point, line in zip(points, lines, strict=True):
        by_line[line] += point - mean
    clustered = sum(residual**2 for residual in by_line.values())
    if independent == 0:
        return float(len(by_line))
    if clustered == 0:
        return float(count)
    return min(float(count), count * independent / clustered)


def line_of(record: dict, ours_role: int, plies: int | None) -> tuple:
    """A match's line: our seat and the first `plies` joint moves of its record (None:
    every move, the whole match)."""
    return (ours_role, tuple(tuple(joint) for joint in record["moves"][:plies]))


def records_by_id(folders: Iterable[Path], wanted: set[str]) -> dict[str, dict]:
    """The match records among the JSON files under `folders` whose match id is wanted."""
    found: dict[str, dict] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            if path.stem not in wanted or path.stem in found:
                continue
            if (record := match_record(path)) is not None:
                found[path.stem] = record
    return found


def clusters(matches: list[dict], records: dict[str, dict], plies: int) -> dict:
    """The figures of one set of matches (results' entries, their records by match id)."""
    kept = [m for m in matches if m["match_id"] in records]
    if not kept:
        return {"matches": 0, "missing": len(matches)}
    points = [m["goals"][m["ours_role"]] / 100 for m in kept]
    lines = [(m["game"], *line_of(records[m["match_id"]], m["ours_role"], plies)) for m in kept]
    whole = [(m["game"], *line_of(records[m["match_id"]], m["ours_role"], None)) for m in kept]
    score = sum(points)
    effective = effective_matches(points, lines)
    return {
        "matches": len(kept),
        "missing": len(matches) - len(kept),
        "lines": len(set(lines)),
        "repeated_whole": len(whole) - len(set(whole)),
        "score": score / len(kept),
        "interval95": list(wilson_interval(score, len(kept))),
        "effective_matches": effective,
        "clustered_interval95": list(wilson_interval(score / len(kept) * effective, effective)),
    }


def report(results: dict, records: dict[str, dict], plies: int, games: list[str] | None) -> dict:
    """The figures per game of `results` (those of `games`, or all) and over them."""
    chosen = [game for game in results["games"] if games is None or game in games]
    per_game = {}
    every = []
    for game in chosen:
        matches = [{**m, "game": game} for m in results["games"][game]["matches_detail"]]
        per_game[game] = clusters(matches, records, plies)
        every += matches
    return {"plies": plies, "games": per_game, "overall": clusters(every, records, plies)}


def text(name: str, entry: dict) -> str:
    if entry["matches"] == 0:
        return f"{name}: no match records ({entry['missing']} missing)"
    low, high = entry["interval95"]
    clow, chigh = entry["clustered_interval95"]
    missing = f", {entry['missing']} without records" if entry["missing"] else ""
    return (
        f"{name}: {entry['matches']} matches, {entry['lines']} lines, "
        f"{entry['repeated_whole']} repeating another to the end{missing}; "
        f"score {entry['score']:.2f} [{low:.2f}, {high:.2f}] over matches, "
        f"[{clow:.2f}, {chigh:.2f}] over {entry['effective_matches']:.1f} effective"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results of benchmarks/strength.py")
    parser.add_argument(
        "--records", type=Path, nargs="+", help="folders of match records (default: the results')"
    )
    parser.add_argument("--plies", type=int, default=DEFAULT_PLIES, help="joint moves of a line")
    parser.add_argument("--games", help="only these games (comma-separated)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    if args.plies < 1:
        parser.error("--plies must be at least 1")
    try:
        results = json.loads(args.results.read_text())
        ids = {m["match_id"] for g in results["games"].values() for m in g["matches_detail"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        parser.error(f"{args.results}: not results of benchmarks/strength.py ({error})")
    games = args.games.split(",") if args.games else None
    unknown = [game for game in games or () if game not in results["games"]]
    if unknown:
        parser.error(f"no matches of {', '.join(unknown)} in {args.results}")
    records = records_by_id(args.records or [args.results.parent], ids)
    figures = report(results, records, args.plies, games)
    print(f"lines: our seat and the first {args.plies} joint moves")
    for game, entry in figures["games"].items():
        print(text(game, entry))
    print(text("overall", figures["overall"]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
