"""Two options of ``ggp serve`` played against each other: both sides' searches, match by match.

    python benchmarks/serve_ab.py RESULTS.json --opponent-log OPPONENT.log

`benchmarks/strength.py` plays our ``ggp serve`` (option A: ``--serve-args``) against an
opponent given by URL; where that opponent is another ``ggp serve`` (option B, e.g.
``ggp serve --port 9170 --races no``), its own log tells what its search did in the
same matches, on the same machine at the same time, so the load weighs on both alike.
For each game this prints A's score with its 95% Wilson interval (by seat too), and
for each side the median simulations a searched move (searched, and pondered since the
move before), the late replies and fallbacks, what the races chose and the time they
took (`benchmarks/serve_log.py`).  The ratio of A's simulations to B's is what option
A costs (or gains) the tree, per move, in these matches.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from ggp.server.stats import wilson_interval  # noqa: E402
from serve_log import searches_in  # noqa: E402
from strength import replies_of  # noqa: E402


def side_figures(replies: list[dict], searches: list[dict]) -> dict:
    """One side's figures over a game's matches: median simulations a searched move
    and pondered before it, late replies and fallbacks, the configurations played
    last and the races' time (seconds of the searches and of pondering)."""
    sims = [n for r in replies for n in r["simulations"]]
    pondered = [n for r in replies for n in r["pondered"]]
    timed = [s["race_seconds"] for s in searches if s.get("race_seconds")]
    verdicts = [v for s in searches for v in s.get("verdicts", [])]
    return {
        "moves": len(sims),
        "simulations": statistics.median(sims) if sims else None,
        "pondered": statistics.median(pondered) if pondered else None,
        "late": sum(r["late"] for r in replies),
        "fallbacks": sum(r["fallbacks"] for r in replies),
        "plays": sorted({s["plays"] for s in searches if s.get("plays")}),
        "chosen": sum(v["verdict"] == "chosen" for v in verdicts),
        "verdicts": len(verdicts),
        "race_seconds": [
            round(sum(t["searches"] for t in timed), 1),
            round(sum(t["pondering"] for t in timed), 1),
        ],
    }


def game_figures(game: dict, opponent_log: str, playclock: float) -> dict:
    """A game's score for side A and both sides' figures (`side_figures`)."""
    matches = game["matches_detail"]
    points = [m["goals"][m["ours_role"]] / 100 for m in matches]
    low, high = wilson_interval(sum(points), len(points))
    opponent_searches = searches_in(opponent_log)
    theirs = [replies_of(opponent_log, playclock, m["match_id"]) for m in matches]
    by_seat: dict[int, list[float]] = {}
    for m, p in zip(matches, points, strict=True):
        by_seat.setdefault(m["ours_role"], []).append(p)
    loads = [m[key] for m in matches for key in ("load_before", "load_after")]
    return {
        "matches": len(points),
        "points": sum(points),
        "interval95": [low, high],
        "by_seat": {seat: [sum(p), len(p)] for seat, p in sorted(by_seat.items())},
        "load": [min(loads), max(loads)],
        "a": side_figures([m["replies"] for m in matches], [m["search"] for m in matches]),
        "b": side_figures(theirs, [opponent_searches.get(m["match_id"], {}) for m in matches]),
    }


def describe(name: str, figures: dict) -> str:
    """A game's lines."""
    a, b = figures["a"], figures["b"]
    low, high = figures["interval95"]
    seats = ", ".join(f"seat {seat}: {p:g} of {n}" for seat, (p, n) in figures["by_seat"].items())
    ratio = a["simulations"] / b["simulations"] if a["simulations"] and b["simulations"] else None
    lines = [
        f"{name}: A {figures['points']:g} of {figures['matches']} "
        f"({figures['points'] / figures['matches']:.2f}, {low:.2f}-{high:.2f}; {seats}), "
        f"load {figures['load'][0]:.1f}-{figures['load'][1]:.1f}"
    ]
    for side, f in (("A", a), ("B", b)):
        lines.append(
            f"  {side}: {f['simulations']:,.0f} simulations a move searched (median of "
            f"{f['moves']}), {f['pondered']:,.0f} pondered; {f['late']} late, "
            f"{f['fallbacks']} fallbacks; races: {f['verdicts']} verdicts, {f['chosen']} "
            f"chosen, {f['race_seconds'][0]} s of the searches and {f['race_seconds'][1]} s "
            f"of pondering; played {'; '.join(f['plays']) or '-'}"
        )
    if ratio is not None:
        lines.append(f"  simulations a move searched, A / B: x{ratio:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="the results file of strength.py")
    parser.add_argument("--opponent-log", type=Path, required=True, help="the opponent's serve log")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    report = json.loads(args.results.read_text())
    text = args.opponent_log.read_text(errors="replace")
    figures = {
        name: game_figures(game, text, report["playclock"])
        for name, game in report["games"].items()
        if game["matches_detail"]
    }
    print(f"A: ggp serve {report['serve_args'] or '(defaults)'}; B: {report['opponent']}")
    for name, entry in figures.items():
        print(describe(name, entry))
    total = sum(f["points"] for f in figures.values())
    count = sum(f["matches"] for f in figures.values())
    if count:
        low, high = wilson_interval(total, count)
        print(f"all: A {total:g} of {count} ({total / count:.2f}, {low:.2f}-{high:.2f})")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
