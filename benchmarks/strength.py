"""Playing strength of ``ggp serve`` against any GGP player, given by its URL.

    python benchmarks/strength.py --opponent http://127.0.0.1:9160 \\
        --games connectFour,breakthrough,ticTacToe --matches 10 \\
        --startclock 60 --playclock 10 --out strength.json [--plot strength.png]
        [--opponent-name NAME] [--stop-after MINUTES]
        [--ours URL] [--serve-args "--workers 2"]
    python benchmarks/strength.py --opponent URL --opponent URL2 --games 3pConnectFour ...
    python benchmarks/strength.py --merge a.json b.json --out all.json [--plot all.png]

Starts our player (``python -m ggp serve`` of this checkout on a free loopback
port, its log kept beside the results) unless ``--ours`` gives the URL of one
already running (another version, say), then referees matches between it and
the opponent through our referee (`ggp.server.tournament`): one match of each game
in turn, round after round, until every game has ``--matches``, our seat
swapped from one match of a game to the next.  In a game of n roles, match i
seats us in role i mod n and the first n - 1 opponents (``--opponent`` given
that many times, one player each: a player plays one role of a match) in the
other roles, in their order.  A game is a ``.kif`` path, the
name of a corpus game (``../shared/gdl-corpus/games/NAME.kif``) or a built-in
game (refereed with its native rules, the players receiving its GDL twin).

The results are written after every match, so a run that is stopped loses at
most the match being played, and a run given an ``--out`` that exists goes on
from it: the matches there count towards ``--matches`` (the opponent's name,
clocks and serve options must be the same).  ``--stop-after`` starts no match
after that many minutes, for a run that must end by a given time.

A match in which an opponent erred (late, failed or illegal replies) at more
than half of its steps is not counted: it is kept under ``not_counted`` with
the reason, and its game is played no further in the run (`failing_roles`).

Writes JSON: each match (seats, goals, steps, the errors recorded against each
side, the machine's load average before and after, seconds, our commit and,
when we started the player, our replies in it and how our search was set up
(rules, heuristic, races and their verdicts, the configuration played:
`serve_log`), read from its log); per game and overall our score (the mean of
goal/100, a draw counting half) with its 95% Wilson interval, wins/draws/losses,
errors, the range of the load, how many of our replies were late (after the
clock) or fallbacks, and the search's set-ups counted; with two games or more, also
the mean of the games' scores, each game weighing the same, with its interval
(`ggp.server.stats.mean_interval`): the overall weighs each game by its matches, so
a run stopped mid-round, or a pool with more matches of one game, leans towards that
game.  Where the players share this
machine, each side's CPU seconds over each match (user and system, the processes it
started included: `process_cpu`) and our share of them: ours when we start the player
or ``--ours-pid`` names it, the opponent's with ``--opponent-pid`` (again for each
process of n-player games), so that a score can be read beside how much thinking each
side had.  ``--plot``
draws the scores with their intervals (matplotlib, the ``plot`` extra).

``--merge`` joins the results of runs made at once against the same opponent
with the same clocks and serve options (two streams on one machine, say, each
with its own games or its own matches of a game) into one file, with the
summaries per game and overall recomputed over all their matches; it plays
nothing.  ``RESULTS:GAME,GAME`` takes only those games of a file, e.g. to join
the games a commit left alone from one run with a newer run of another game.

Contains no other program: the opponent is whatever answers at its URL.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ggp.player.agents import Clocks  # noqa: E402
from ggp.server.match import RANDOM_ROLE  # noqa: E402
from ggp.server.results import outcome  # noqa: E402
from ggp.server.stats import mean_interval, wilson_interval  # noqa: E402
from ggp.server.tournament import cached_game, run_tournament  # noqa: E402
from process_cpu import side_cpu_seconds  # noqa: E402
from referee_serve import free_port, stop_player, wait_until_up  # noqa: E402
from serve_log import describe, searches_in, searches_summary  # noqa: E402

CORPUS_GAMES = ROOT.parent / "shared" / "gdl-corpus" / "games"


def game_spec(name: str) -> str:
    """A path for a corpus game's name; other names and paths as they are."""
    corpus = CORPUS_GAMES / f"{name}.kif"
    return str(corpus) if not name.endswith(".kif") and corpus.exists() else name


def rules_played(name: str) -> str:
    """Which text of `name` the matches play, for the results: a corpus file, a path, or
    the built-in game of that name (whose GDL twin differs from a corpus game's text:
    where ../shared is missing, ``breakthrough`` is the built-in game)."""
    if game_spec(name) != name:
        return f"corpus {name}.kif"
    return name if name.endswith(".kif") else f"built-in {name}"


def start_ours(port: int, serve_args: list[str], log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "ggp", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--name", "ours", *serve_args]
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


SETTINGS = ("opponent", "startclock", "playclock", "serve_args")
"""What the matches of one results file share: a run going on from a file must
use the same."""

REPLY_KEYS = ("plays", "late", "fallbacks", "searched", "on_native_code")

SEARCH = re.compile(r", (\d+) simulations(?: \+ (\d+) pondered in ([0-9.]+) s)?")
"""A searched move in our log: its simulations, and those pondered before it."""

PER_MOVE = ("simulations", "pondered", "ponder_seconds")
"""Figures of each searched move, summarised by their medians."""

OPPONENT_ERROR_SHARE = 0.5
"""A match in which an opponent's replies were late, failed or illegal at more than
this share of its steps is not counted, and its game is played no further in
the run: the referee played for the opponent, so the match measures nothing of
our search (an opponent set up without a library it needs throws on every
move; one that cannot handle a game's size times out on most)."""


def our_commit() -> str | None:
    """This checkout's commit (``-dirty`` with uncommitted changes), if git knows it."""
    try:
        described = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return described.stdout.strip() or None


def seats(index: int, roles: int, ours: str, opponents: list[str]) -> list[str]:
    """The player of each role in match `index` of a game of `roles` roles: ours in
    role index mod roles, the first roles - 1 opponents in the others, in order."""
    if roles - 1 > len(opponents):
        raise SystemExit(
            f"a game of {roles} roles needs {roles - 1} opponents (--opponent given "
            f"{roles - 1} times), got {len(opponents)}"
        )
    others = iter(opponents[: roles - 1])
    return [ours if role == index % roles else next(others) for role in range(roles)]


def play_match(game: str, index: int, ours: str, args, log_dir: Path) -> tuple[dict, list[str]]:
    """Match `index` of `game` (in a game of two roles, we take the first seat in
    even matches, the second in odd: `seats`), and the roles of opponents that
    erred at more than `OPPONENT_ERROR_SHARE` of its steps (`failing_roles`)."""
    roles = cached_game(game_spec(game), True).game.roles
    playing = sum(role != RANDOM_ROLE for role in roles)
    urls = seats(index, playing, ours, args.opponent)
    load_before = os.getloadavg()[0]
    cpu_before = {side: side_cpu_seconds(pids) for side, pids in args.cpu_pids.items()}
    began = time.perf_counter()
    (result,) = run_tournament(
        game_spec(game),
        urls,
        games=1,
        seed=args.seed + index,
        jobs=1,
        gdl=True,
        clocks=Clocks(args.startclock, args.playclock),
        grace=args.grace,
        log_dir=log_dir,
    )
    if result.refused:
        raise SystemExit(f"{game}: the match was refused: {result.refused}")
    agent_of_ours = urls.index(ours)
    errors = {"ours": [0, 0, 0], "opponent": [0, 0, 0]}
    for role, agent in enumerate(result.seats):
        side = errors["ours" if agent == agent_of_ours else "opponent"]
        for kind, count in enumerate(result.errors[role] if result.errors else ()):
            side[kind] += count
    match = {
        "match_id": result.match_id,
        "rules": rules_played(game),
        "ours_role": result.seats.index(agent_of_ours),
        "goals": list(result.goals),
        "steps": result.steps,
        "errors": {
            side: dict(zip(("TO", "CE", "IL"), n, strict=True)) for side, n in errors.items()
        },
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "seconds": round(time.perf_counter() - began, 1),
        "commit": args.commit,
    }
    cpu = cpu_seconds(cpu_before, {s: side_cpu_seconds(p) for s, p in args.cpu_pids.items()})
    if cpu:
        match["cpu_seconds"] = cpu
    opponents = [role for role, agent in enumerate(result.seats) if agent != agent_of_ours]
    return match, failing_roles(result.errors, result.steps, opponents, roles)


def cpu_seconds(
    before: dict[str, float | None], after: dict[str, float | None]
) -> dict[str, float]:
    """Each side's CPU seconds between two readings (`side_cpu_seconds`), for the
    sides read both times."""
    return {
        side: round(after[side] - seconds, 1)
        for side, seconds in before.items()
        if seconds is not None and after.get(side) is not None
    }


def cpu_summary(matches: list[dict]) -> dict | None:
    """Each side's CPU seconds over the matches where both were read, and our share."""
    both = [
        m["cpu_seconds"] for m in matches if {"ours", "opponent"} <= m.get("cpu_seconds", {}).keys()
    ]
    if not both:
        return None
    ours = sum(cpu["ours"] for cpu in both)
    opponent = sum(cpu["opponent"] for cpu in both)
    return {
        "matches": len(both),
        "ours": round(ours, 1),
        "opponent": round(opponent, 1),
        "ours_share": round(ours / (ours + opponent), 3) if ours + opponent > 0 else None,
    }


def failing_roles(
    errors: list[list[int]] | None, steps: int, opponents: list[int], roles: list[str]
) -> list[str]:
    """The names of the roles among `opponents` (their indices) whose errors (TO, CE,
    IL counts by role) reach more than `OPPONENT_ERROR_SHARE` of `steps`."""
    if not errors or steps == 0:
        return []
    return [roles[r] for r in opponents if sum(errors[r]) > OPPONENT_ERROR_SHARE * steps]


class LogTail:
    """The whole lines a log has gained since the last `read`: each match's part of
    our player's log is read once, not the whole log after every match."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def read(self) -> str:
        if not self.path.exists():
            return ""
        with self.path.open("rb") as log:
            log.seek(self.offset)
            gained = log.read()
        whole = gained.rfind(b"\n") + 1
        self.offset += whole
        return gained[:whole].decode(errors="replace")


def replies_of(text: str, playclock: float, match_id: str) -> dict:
    """Our player's ``play`` replies in one match, from the `text` of its log: how many, the
    slowest, how many came after the play clock (late), how many were
    fallbacks, how many of the searched ones searched on native code, and
    for each searched move the simulations of its search, those pondered
    since the move before and the seconds pondering took (the opponent's
    time it used)."""
    plays = re.findall(rf"\bplay {re.escape(match_id)}: .*? in ([0-9.]+) s(.*)", text)
    took = [float(seconds) for seconds, _ in plays]
    searches = [SEARCH.search(rest) for _, rest in plays]
    searches = [found for found in searches if found is not None]
    return {
        "plays": len(plays),
        "slowest": max(took, default=None),
        "late": sum(seconds > playclock for seconds in took),
        "fallbacks": sum("fallback" in rest for _, rest in plays),
        "searched": sum("simulations" in rest for _, rest in plays),
        "on_native_code": sum("(native, " in rest for _, rest in plays),
        "simulations": [int(found[1]) for found in searches],
        "pondered": [int(found[2] or 0) for found in searches],
        "ponder_seconds": [float(found[3] or 0) for found in searches],
    }


def summary(matches: list[dict]) -> dict:
    """Our score over `matches` with its interval, record, errors, load and replies."""
    points, count = points_of(matches)
    record = [outcome(m["goals"], m["ours_role"]) for m in matches]
    low, high = wilson_interval(points, count)
    loads = [m[key] for m in matches for key in ("load_before", "load_after")]
    entry = {
        "matches": count,
        "score": points / count if count else None,
        "interval95": [low, high],
        "wins": record.count(1),
        "draws": record.count(0),
        "losses": record.count(-1),
        "errors": {
            side: {
                kind: sum(m["errors"][side][kind] for m in matches) for kind in ("TO", "CE", "IL")
            }
            for side in ("ours", "opponent")
        },
        "load": [min(loads, default=None), max(loads, default=None)],
        "seconds": round(sum(m["seconds"] for m in matches), 1),
        "commits": sorted({str(m["commit"]) for m in matches}),
        "by_seat": by_seat(matches),
    }
    replies = [m["replies"] for m in matches if "replies" in m]
    if replies:
        entry["ours_replies"] = {key: sum(r[key] for r in replies) for key in REPLY_KEYS}
        entry["ours_replies"]["slowest"] = max(
            (r["slowest"] for r in replies if r["slowest"] is not None), default=None
        )
        for key in PER_MOVE:
            values = [value for r in replies for value in r.get(key, ())]
            entry["ours_replies"][f"median_{key}"] = median(values) if values else None
    searches = [m["search"] for m in matches if m.get("search")]
    if searches:
        entry["ours_search"] = searches_summary(searches)
    cpu = cpu_summary(matches)
    if cpu:
        entry["cpu_seconds"] = cpu
    return entry


def by_seat(matches: list[dict]) -> list[list[float]]:
    """Our points and matches in each seat (role index), first seat first: where the
    seat decides most games (the first player wins), the two differ most."""
    seats = [[0.0, 0] for _ in range(1 + max((m["ours_role"] for m in matches), default=-1))]
    for m in matches:
        seats[m["ours_role"]][0] += m["goals"][m["ours_role"]] / 100
        seats[m["ours_role"]][1] += 1
    return [[round(points, 3), count] for points, count in seats]


def summarise(report: dict) -> None:
    """Recompute the per-game and overall summaries from the matches played."""
    every = []
    for game in report["games"].values():
        if game["matches_detail"]:
            game.update(summary(game["matches_detail"]))
            every += game["matches_detail"]
    if every:
        report["overall"] = summary(every)
    played = [game for game in report["games"].values() if game["matches_detail"]]
    report.pop("games_mean", None)
    if len(played) > 1:
        mean, low, high = mean_interval([points_of(game["matches_detail"]) for game in played])
        report["games_mean"] = {"games": len(played), "score": mean, "interval95": [low, high]}


def points_of(matches: list[dict]) -> tuple[float, int]:
    """Our points and the number of `matches`."""
    return sum(m["goals"][m["ours_role"]] / 100 for m in matches), len(matches)


def line(name: str, entry: dict) -> str:
    low, high = entry["interval95"]
    replies = {
        key: value
        for key, value in entry.get("ours_replies", {}).items()
        if key in REPLY_KEYS or key.startswith("median_") or key == "slowest"
    }
    seats = ", ".join(
        f"{points:g} of {count}" for points, count in entry.get("by_seat", ()) if count
    )
    cpu = entry.get("cpu_seconds")
    shared = (
        f"; CPU s ours {cpu['ours']:g}, opponent {cpu['opponent']:g} ({cpu['ours_share']:.0%} ours)"
        if cpu and cpu["ours_share"] is not None
        else ""
    )
    return (
        f"{name}: score {entry['score']:.2f} [{low:.2f}, {high:.2f}] over {entry['matches']} "
        f"W/D/L {entry['wins']}/{entry['draws']}/{entry['losses']} by seat {seats} "
        f"errors {entry['errors']} "
        f"load {entry['load'][0]:.1f}-{entry['load'][1]:.1f}{shared}; ours: {replies}"
    )


def cpu_text(match: dict) -> str:
    """A match's CPU seconds of each side read, for its printed line."""
    cpu = match.get("cpu_seconds")
    if not cpu:
        return ""
    return ", CPU s " + ", ".join(f"{side} {seconds:g}" for side, seconds in cpu.items())


def brief(replies: dict | None) -> dict | None:
    """One match's replies without the figures of each move."""
    if replies is None:
        return None
    return {key: value for key, value in replies.items() if key not in PER_MOVE}


def starting_report(args) -> dict:
    """The results of `args.out` to go on from, or new ones."""
    settings = {
        "opponent": args.opponent_name or ",".join(args.opponent),
        "startclock": args.startclock,
        "playclock": args.playclock,
        "serve_args": args.serve_args,
    }
    if not args.out.exists():
        return {**settings, "games": {}}
    try:
        report = read_results(args.out)
    except ValueError as error:
        raise SystemExit(
            f"{args.out}: not results of this script ({error}); give another --out"
        ) from None
    earlier = {key: report[key] for key in SETTINGS}
    if earlier != settings:
        raise SystemExit(
            f"{args.out} holds matches played with {earlier}, not {settings}; give another --out"
        )
    return report


def merged(reports: list[dict]) -> dict:
    """One report of the matches of `reports`, which must share their settings:
    a game's matches are those of every report, in the order given."""
    settings = [{key: report[key] for key in SETTINGS} for report in reports]
    if any(other != settings[0] for other in settings[1:]):
        raise ValueError(f"results played with different settings: {settings}")
    report = {**settings[0], "games": {}}
    for part in reports:
        for game, entry in part["games"].items():
            report["games"].setdefault(game, {"matches_detail": []})
            report["games"][game]["matches_detail"] += entry["matches_detail"]
        if part.get("not_counted"):
            report.setdefault("not_counted", []).extend(part["not_counted"])
    summarise(report)
    return report


def selected_results(spec: str) -> dict:
    """The results named by a ``--merge`` argument: ``PATH`` or ``PATH:GAME,GAME``
    (only those games); raises ValueError if they are not there."""
    path, colon, names = spec.rpartition(":")
    if not colon or "/" in names or not names:
        return read_results(Path(spec))
    report = read_results(Path(path))
    games = names.split(",")
    missing = [game for game in games if game not in report["games"]]
    if missing:
        raise ValueError(f"no matches of {', '.join(missing)} in {path}")
    report["games"] = {game: report["games"][game] for game in games}
    return report


def read_results(path: Path) -> dict:
    """The results in `path`, written by this script: its settings and every
    match's seat, goals and errors are there; raises ValueError if not."""
    try:
        report = json.loads(path.read_text())
        missing = [key for key in SETTINGS if key not in report]
        if missing:
            raise ValueError(f"no {', '.join(missing)}")
        matches = [m for game in report["games"].values() for m in game["matches_detail"]]
        if not all({"ours_role", "goals", "errors"} <= m.keys() for m in matches):
            raise ValueError("matches without our role, goals or errors")
    except (OSError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(str(error)) from None
    return report


def print_summary(report: dict) -> None:
    for game, entry in report["games"].items():
        if entry["matches_detail"]:
            print(line(game, entry))
            if "ours_search" in entry:
                print(f"    search: {describe(entry['ours_search'])}")
    if "overall" in report:
        print(line("overall", report["overall"]))
    if "games_mean" in report:
        print(games_mean_line(report["games_mean"]))
    for match in report.get("not_counted", []):
        print(f"not counted: {not_counted_line(match)}")


def games_mean_line(entry: dict) -> str:
    low, high = entry["interval95"]
    return (
        f"mean of the {entry['games']} games: score {entry['score']:.2f} [{low:.2f}, {high:.2f}], "
        "each game weighing the same (overall weighs each game by its matches)"
    )


def not_counted_line(match: dict) -> str:
    """Why a match of ``not_counted`` does not count, in words."""
    counts = match["errors"]["opponent"]
    errors = ", ".join(f"{kind} {count}" for kind, count in counts.items() if count)
    return (
        f"{match['game']} {match['match_id']}: the opponent ({', '.join(match['failing'])}) "
        f"erred at {sum(counts.values())} of {match['steps']} steps ({errors}); the referee "
        "played for it, so the game was played no further"
    )


def draw(report: dict, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install 'ggp-player[plot]'") from None
    games = [g for g in report["games"] if report["games"][g]["matches_detail"]]
    scores = [report["games"][g]["score"] for g in games]
    lows = [s - report["games"][g]["interval95"][0] for g, s in zip(games, scores, strict=True)]
    highs = [report["games"][g]["interval95"][1] - s for g, s in zip(games, scores, strict=True)]
    figure, axes = plt.subplots(figsize=(1.4 * len(games) + 2, 4))
    axes.bar(games, scores, yerr=[lows, highs], capsize=6, color="#4a7ab5")
    axes.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    axes.set_ylim(0, 1)
    axes.set_ylabel("our score (95% Wilson interval)")
    axes.set_title(f"ggp serve vs {report['opponent']}", fontsize=10)
    axes.set_xticks(range(len(games)), [f"{g}\n({report['games'][g]['matches']})" for g in games])
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--opponent",
        action="append",
        help="URL of the opponent GGP player (again for each further role of n-player games)",
    )
    parser.add_argument("--opponent-name", help="the opponent's name in the results (default: URL)")
    parser.add_argument("--ours", help="URL of our player, already running (default: start one)")
    parser.add_argument(
        "--ours-pid", type=int, help="with --ours on this machine: its process, for its CPU seconds"
    )
    parser.add_argument(
        "--opponent-pid",
        type=int,
        action="append",
        default=[],
        help="the opponent's process on this machine, for its CPU seconds (again for each)",
    )
    parser.add_argument("--serve-args", default="", help="options for the ggp serve we start")
    parser.add_argument("--games", default="connectFour,breakthrough,ticTacToe")
    parser.add_argument("--matches", type=int, default=10, help="matches per game in all")
    parser.add_argument("--startclock", type=float, default=60)
    parser.add_argument("--playclock", type=float, default=10)
    parser.add_argument("--grace", type=float, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stop-after", type=float, help="start no match after this many minutes")
    parser.add_argument("--out", type=Path, required=True, help="results (JSON; goes on from it)")
    parser.add_argument("--plot", type=Path, help="scores with intervals (PNG)")
    parser.add_argument("--log-dir", type=Path, help="match logs (default: a temporary folder)")
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="RESULTS",
        help="join these results into --out (RESULTS:GAME,GAME: only those games)",
    )
    args = parser.parse_args()
    if args.merge:
        reports = []
        for spec in args.merge:
            try:
                reports.append(selected_results(spec))
            except ValueError as error:
                raise SystemExit(f"{spec}: not results of this script ({error})") from None
        try:
            report = merged(reports)
        except ValueError as error:
            raise SystemExit(str(error)) from None
        args.out.write_text(json.dumps(report, indent=1))
        print_summary(report)
        if args.plot:
            draw(report, args.plot)
        return 0
    if not args.opponent:
        parser.error("--opponent is required (unless --merge)")
    report = starting_report(args)
    args.commit = None if args.ours else our_commit()
    args.cpu_pids = {}
    stop_at = None if args.stop_after is None else time.monotonic() + 60 * args.stop_after

    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="strength-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    ours_log = log_dir / f"ours-{time.strftime('%Y%m%dT%H%M%S')}.log"
    ours_tail = LogTail(ours_log)
    process = None
    if args.ours:
        ours = args.ours
    else:
        ours = f"http://127.0.0.1:{free_port()}"
        process = start_ours(int(ours.rsplit(":", 1)[1]), shlex.split(args.serve_args), ours_log)
    ours_pid = process.pid if process is not None else args.ours_pid
    if ours_pid is not None:
        args.cpu_pids["ours"] = [ours_pid]
    if args.opponent_pid:
        args.cpu_pids["opponent"] = args.opponent_pid
    games = args.games.split(",")
    for game in games:
        report["games"].setdefault(game, {"matches_detail": []})
    given_up: set[str] = set()
    try:
        if process is not None:
            import asyncio

            asyncio.run(wait_until_up(ours, process))
        while stop_at is None or time.monotonic() < stop_at:
            pending = [
                g
                for g in games
                if g not in given_up and len(report["games"][g]["matches_detail"]) < args.matches
            ]
            if not pending:
                break
            for game in pending:
                if stop_at is not None and time.monotonic() >= stop_at:
                    break
                done = report["games"][game]["matches_detail"]
                match, failing = play_match(game, len(done), ours, args, log_dir)
                if process is not None:
                    text = ours_tail.read()
                    match["replies"] = replies_of(text, args.playclock, match["match_id"])
                    match["search"] = searches_in(text).get(match["match_id"])
                if failing:
                    given_up.add(game)
                    match.update(game=game, failing=failing)
                    report.setdefault("not_counted", []).append(match)
                    args.out.write_text(json.dumps(report, indent=1))
                    print(f"not counted: {not_counted_line(match)}", flush=True)
                    continue
                done.append(match)
                summarise(report)
                args.out.write_text(json.dumps(report, indent=1))
                print(
                    f"{game} match {len(done)} ({match['rules']}): goals {match['goals']}, "
                    f"ours role {match['ours_role']}, {match['steps']} steps, load "
                    f"{match['load_before']:.1f}->{match['load_after']:.1f}, "
                    f"{match['seconds']} s{cpu_text(match)}; ours: {brief(match.get('replies'))}",
                    flush=True,
                )
    finally:
        if process is not None:
            stop_player(process)
    summarise(report)
    args.out.write_text(json.dumps(report, indent=1))
    print_summary(report)
    if args.plot:
        draw(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
