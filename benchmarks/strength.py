"""Playing strength of ``ggp serve`` against any GGP player, given by its URL.

    python benchmarks/strength.py --opponent http://127.0.0.1:9160 \\
        --games connectFour,breakthrough,ticTacToe --matches 10 \\
        --startclock 60 --playclock 10 --out strength.json [--plot strength.png]
        [--ours URL] [--serve-args "--workers 2"]

Starts our player (``python -m ggp serve`` of this checkout on a free loopback
port, its log kept beside the results) unless ``--ours`` gives the URL of one
already running (another version, say), then referees, game by game, matches
between it and the opponent through our referee (`server.tournament`), the
seats swapped every other match.  A game is a ``.kif`` path, the name of a
corpus game (``../shared/gdl-corpus/games/NAME.kif``) or a built-in game
(refereed with its native rules, the players receiving its GDL twin).

Writes JSON: per game our score (the mean of goal/100, a draw counting half)
with its 95% Wilson interval, wins/draws/losses, the errors recorded against
each side (TO, CE, IL), the machine's load average before and after; overall
the same; and, when we started the player, how many of its replies were late
(after the clock) or fallbacks (read from its log).  ``--plot`` draws the scores
with their intervals (matplotlib, the ``plot`` extra).  Contains no other
program: the opponent is whatever answers at its URL.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from referee_serve import free_port, stop_player, wait_until_up  # noqa: E402

from player.agents import Clocks  # noqa: E402
from server.stats import wilson_interval  # noqa: E402
from server.tournament import outcome, run_tournament  # noqa: E402

CORPUS_GAMES = ROOT.parent / "shared" / "gdl-corpus" / "games"


def game_spec(name: str) -> str:
    """A path for a corpus game's name; other names and paths as they are."""
    corpus = CORPUS_GAMES / f"{name}.kif"
    return str(corpus) if not name.endswith(".kif") and corpus.exists() else name


def start_ours(port: int, serve_args: list[str], log: Path):
    import subprocess

    command = [sys.executable, "-m", "ggp", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--name", "ours", *serve_args]
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def summary(points: list[float], wins: int, draws: int, losses: int) -> dict:
    low, high = wilson_interval(sum(points), len(points))
    return {
        "matches": len(points),
        "score": sum(points) / len(points) if points else None,
        "interval95": [low, high],
        "wins": wins,
        "draws": draws,
        "losses": losses,
    }


def play_game(game: str, urls: list[str], args, log_dir: Path) -> dict:
    load_before = os.getloadavg()[0]
    began = time.perf_counter()
    results = run_tournament(
        game_spec(game),
        urls,
        games=args.matches,
        swap=True,
        seed=args.seed,
        jobs=1,
        gdl=True,
        clocks=Clocks(args.startclock, args.playclock),
        grace=args.grace,
        log_dir=log_dir,
    )
    points, record = [], [0, 0, 0]
    errors = {"ours": [0, 0, 0], "opponent": [0, 0, 0]}
    for result in results:
        ours = result.seats.index(0)
        result_of_ours = outcome(result.goals, ours)
        record[{1: 0, 0: 1, -1: 2}[result_of_ours]] += 1
        points.append(result.goals[ours] / 100)
        for role, agent in enumerate(result.seats):
            side = errors["ours" if agent == 0 else "opponent"]
            for kind in range(3):
                side[kind] += result.errors[role][kind]
    entry = summary(points, *record)
    entry["errors"] = {
        side: dict(zip(("TO", "CE", "IL"), counts, strict=True)) for side, counts in errors.items()
    }
    entry["load_before"], entry["load_after"] = load_before, os.getloadavg()[0]
    entry["seconds"] = round(time.perf_counter() - began, 1)
    entry["matches_detail"] = [
        {"match_id": r.match_id, "seats": list(r.seats), "goals": list(r.goals), "steps": r.steps}
        for r in results
    ]
    return entry


def replies_of(log: Path, playclock: float) -> dict:
    """Our player's ``play`` replies, from its log: how many, the slowest, how many
    came after the play clock (late), how many were fallbacks, and how many of
    the searched ones searched on native code."""
    text = log.read_text(errors="replace") if log.exists() else ""
    plays = re.findall(r"\bplay \S+: .*? in ([0-9.]+) s(.*)", text)
    took = [float(seconds) for seconds, _ in plays]
    return {
        "plays": len(plays),
        "slowest": max(took, default=None),
        "late": sum(seconds > playclock for seconds in took),
        "fallbacks": sum("fallback" in rest for _, rest in plays),
        "searched": sum("simulations" in rest for _, rest in plays),
        "on_native_code": sum("(native, " in rest for _, rest in plays),
    }


def draw(report: dict, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install 'ggp-player[plot]'") from None
    games = list(report["games"])
    scores = [report["games"][g]["score"] for g in games]
    lows = [s - report["games"][g]["interval95"][0] for g, s in zip(games, scores, strict=True)]
    highs = [report["games"][g]["interval95"][1] - s for g, s in zip(games, scores, strict=True)]
    figure, axes = plt.subplots(figsize=(1.4 * len(games) + 2, 4))
    axes.bar(games, scores, yerr=[lows, highs], capsize=6, color="#4a7ab5")
    axes.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    axes.set_ylim(0, 1)
    axes.set_ylabel("our score (95% Wilson interval)")
    axes.set_title(f"ggp serve vs {report['opponent']}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", required=True, help="URL of the opponent GGP player")
    parser.add_argument("--ours", help="URL of our player, already running (default: start one)")
    parser.add_argument("--serve-args", default="", help="options for the ggp serve we start")
    parser.add_argument("--games", default="connectFour,breakthrough,ticTacToe")
    parser.add_argument("--matches", type=int, default=10, help="matches per game")
    parser.add_argument("--startclock", type=float, default=60)
    parser.add_argument("--playclock", type=float, default=10)
    parser.add_argument("--grace", type=float, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="results (JSON)")
    parser.add_argument("--plot", type=Path, help="scores with intervals (PNG)")
    parser.add_argument("--log-dir", type=Path, help="match logs (default: a temporary folder)")
    args = parser.parse_args()

    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="strength-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    ours_log = log_dir / "ours.log"
    process = None
    if args.ours:
        ours = args.ours
    else:
        ours = f"http://127.0.0.1:{free_port()}"
        process = start_ours(int(ours.rsplit(":", 1)[1]), shlex.split(args.serve_args), ours_log)
    report: dict = {
        "opponent": args.opponent,
        "ours": ours,
        "serve_args": args.serve_args,
        "startclock": args.startclock,
        "playclock": args.playclock,
        "games": {},
    }
    try:
        if process is not None:
            import asyncio

            asyncio.run(wait_until_up(ours, process))
        for game in args.games.split(","):
            report["games"][game] = entry = play_game(game, [ours, args.opponent], args, log_dir)
            print(
                f"{game}: score {entry['score']:.2f} "
                f"[{entry['interval95'][0]:.2f}, {entry['interval95'][1]:.2f}] "
                f"W/D/L {entry['wins']}/{entry['draws']}/{entry['losses']} "
                f"errors {entry['errors']} load {entry['load_before']:.1f}"
                f"->{entry['load_after']:.1f} in {entry['seconds']} s",
                flush=True,
            )
            args.out.write_text(json.dumps(report, indent=1))
    finally:
        if process is not None:
            stop_player(process)
    every = report["games"].values()
    points = [m["goals"][m["seats"].index(0)] / 100 for g in every for m in g["matches_detail"]]
    report["overall"] = summary(
        points, *(sum(g[k] for g in every) for k in ("wins", "draws", "losses"))
    )
    if process is not None:
        report["ours_replies"] = replies_of(ours_log, args.playclock)
    args.out.write_text(json.dumps(report, indent=1))
    overall = report["overall"]
    print(
        f"overall: {overall['score']:.2f} [{overall['interval95'][0]:.2f}, "
        f"{overall['interval95'][1]:.2f}] over {overall['matches']} matches; "
        f"ours: {report.get('ours_replies', 'not started here')}"
    )
    if args.plot:
        draw(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
