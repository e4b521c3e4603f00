"""The puzzle benchmark: one-role corpus games played by ``ggp serve`` through the referee.

    python benchmarks/puzzles.py [--startclock 60] [--playclock 10] [--games a,b,...]
        [--serve-python PATH] [--workers 1] [--log-dir DIR] [--json FILE]
        [--player URL [--player-name NAME]]

Starts one ``ggp serve`` (by default this checkout's; ``--serve-python`` runs
another checkout's interpreter, e.g. one installed from main, for a before/after
comparison) and referees each puzzle of the development set (`DEVELOPMENT_SET`,
chosen before any tuning, docs/puzzles.md) with ``ggp match GAME URL`` of this
checkout, one after the other.  Per puzzle it prints the goal reached, the moves
played, the wall-clock seconds of the match, and, where the player's log says
so (``best goal known``), the seconds from the start message to the first line
reaching 100.  The load (``uptime``) is printed before and after, and the load
average is recorded before and after each puzzle: the figures depend on it.
``--player URL`` plays the puzzles with a player already running at that URL
(another program, Sancho say) instead of starting ``ggp serve``: the same
figures but the first 100, which only our player's log says.  A game is the
name of a corpus game or a ``.kif`` path.  Needs the corpus
(``../shared/gdl-corpus``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from referee_serve import free_port  # noqa: E402
from strength import CORPUS_GAMES as CORPUS  # noqa: E402
from strength import our_commit  # noqa: E402

DEVELOPMENT_SET = (
    "queens",
    "queens08lg",
    "futoshiki5",
    "knightsTour",
    "lightsOut",
    "eightPuzzle",
    "hanoi",
    "peg",
    "nonogram_5x5_1",
    "hidato19",
    "max_knights",
    "sudokuGrade1",
)
"""The development set, fixed before tuning (docs/puzzles.md)."""

BEST_LINE = re.compile(r"best goal known (\d+)")
"""How the player's log reports the best line it holds at a move (`ggp.player.service.session`)."""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def wait_until_up(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    """Ask ``(info)`` until the player answers (with curl-free urllib)."""
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the player at {url} exited (see its log)")
        try:
            request = urllib.request.Request(url, data=b"(info)", method="POST")
            with urllib.request.urlopen(request, timeout=2) as response:
                if b"available" in response.read():
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the player at {url} did not answer within {seconds} s")


def first_hundred(log_text: str, match_id: str) -> float | None:
    """Seconds from the match's start message to the reply whose log line first says
    the best goal known is 100 (None: never said).  Log lines carry ``HH:MM:SS,mmm``
    stamps of when a reply was sent, and the start's line how long it took."""
    began = None
    for line in log_text.splitlines():
        if match_id not in line:
            continue
        stamp = re.match(r"\S+ (\d\d):(\d\d):(\d\d),(\d\d\d)", line)
        if stamp is None:
            continue
        hours, minutes, seconds, millis = (int(part) for part in stamp.groups())
        at = hours * 3600 + minutes * 60 + seconds + millis / 1000
        took = re.search(r": start \S+: ready in ([\d.]+) s", line)
        if began is None:
            began = at - (float(took.group(1)) if took else 0.0)
        found = BEST_LINE.search(line)
        if found and int(found.group(1)) == 100:
            return round((at - began) % 86400, 1)
    return None


def game_path(game: str) -> Path:
    """A ``.kif`` path as it is, a corpus game's name as its file."""
    return Path(game) if game.endswith(".kif") else CORPUS / f"{game}.kif"


def play(game: str, url: str, args: argparse.Namespace, log_dir: Path) -> dict[str, object]:
    """Referee one match of `game` against the player at `url`."""
    path = game_path(game)
    game = path.stem
    before = set(log_dir.glob(f"{game}.*.json"))
    command = [sys.executable, "-m", "ggp", "match", str(path), url]
    command += ["--startclock", str(args.startclock), "--playclock", str(args.playclock)]
    command += ["--log-dir", str(log_dir)]
    load_before = os.getloadavg()[0]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    logs = sorted(set(log_dir.glob(f"{game}.*.json")) - before)
    if done.returncode != 0 or not logs:
        return {"game": game, "error": (done.stderr or done.stdout).strip()[-300:], "load": load}
    logged = json.loads(logs[-1].read_text())
    errors = sum(1 for step in logged["errors"] for error in step if error)
    return {
        "game": game,
        "match": logged["matchId"],
        "goal": logged["goalValues"][0],
        "moves": len(logged["moves"]),
        "errors": errors,
        "seconds": round(seconds, 1),
        "load": load,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--startclock", type=float, default=60)
    parser.add_argument("--playclock", type=float, default=10)
    parser.add_argument("--games", default=",".join(DEVELOPMENT_SET))
    parser.add_argument("--serve-python", default=sys.executable)
    parser.add_argument("--workers", type=int, default=1, help="search workers of the player")
    parser.add_argument("--log-dir", type=Path, help="default: a temporary folder")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--player", help="URL of a player already running, instead of ours")
    parser.add_argument("--player-name", help="its name in the results (default: the URL)")
    args = parser.parse_args()
    games = args.games.split(",")
    missing = [game for game in games if not game_path(game).is_file()]
    if missing:
        raise SystemExit(f"no such game: {', '.join(missing)} (corpus: {CORPUS})")

    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="puzzles-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    serve_log = log_dir / "serve.log"
    load_before = uptime()
    print(f"load before: {load_before}", flush=True)
    player = None
    if args.player:
        url = args.player
    else:
        url = f"http://127.0.0.1:{free_port()}"
        command = [args.serve_python, "-m", "ggp", "serve", "--host", "127.0.0.1"]
        command += ["--port", url.rsplit(":", 1)[1], "--workers", str(args.workers)]
        command += ["--log-level", "INFO"]
        environment = dict(os.environ, PYTHONUNBUFFERED="1")
        with serve_log.open("w") as out:
            player = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env=environment
            )
    results = []
    try:
        if player is not None:
            wait_until_up(url, player)
        for game in games:
            result = play(game, url, args, log_dir)
            if "match" in result and player is not None:
                result["first_100"] = first_hundred(serve_log.read_text(), str(result["match"]))
            print(json.dumps(result), flush=True)
            results.append(result)
    finally:
        if player is not None:
            player.terminate()
            try:
                player.wait(15)
            except subprocess.TimeoutExpired:
                player.kill()
                player.wait()
    load_after = uptime()
    goals = [int(r["goal"]) for r in results if "goal" in r]
    print(f"load after: {load_after}")
    print(
        f"{args.player_name or args.player or 'ggp serve'}, "
        f"start clock {args.startclock:g} s, play clock {args.playclock:g} s, "
        f"{args.workers} worker(s): mean goal {sum(goals) / max(1, len(goals)):.1f} "
        f"over {len(goals)} of {len(results)} puzzles; logs in {log_dir}"
    )
    if args.json is not None:
        summary = {
            "player": args.player_name or args.player or "ggp serve",
            "commit": None if args.player else our_commit(),
            "startclock": args.startclock,
            "playclock": args.playclock,
            **({} if args.player else {"workers": args.workers, "serve_python": args.serve_python}),
            "load_before": load_before,
            "load_after": load_after,
            "results": results,
        }
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
