"""What the races of ``ggp serve``'s search choose on each game, and whether the choice wins.

    python benchmarks/race_choice.py --corpus ../shared/gdl-corpus/games \\
        --games sheepAndWolf,chinook --race-cpu 60 --check 10 --out choice.json

For each game (a corpus name or a ``.kif`` path): a search worker
(`ggp.player.service.search_worker.SearchWorker`, in this process) loads the rules,
waits for them to be final (native code, the heuristic) and races search
configurations from the initial state, as ``ggp serve`` does during the start
clock and pondering (`ggp.player.search.races`), for at most ``--race-cpu`` CPU
seconds (the tactics among the challengers unless ``--tactics no``, with the
share of a move two search workers give them), a choice of the screen confirmed
at the scale of a match move of ``--move-cpu`` CPU seconds (a tenth of it a race
move: `RACE_SCALE`).  Its verdicts (each with its figures) and the configuration it ends
with are printed.  Then, where that differs from the default, ``--check``
fresh self-play games of the chosen configuration against the default at the
race's time a move, seats in turn, judge the choice on games the race did not
see: the chosen side's score with its 95% Wilson interval.  The machine's load
average is recorded before and after each game's figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from ggp.player.search.races import Race, RaceGame
from ggp.player.service.search_worker import SearchWorker
from ggp.server.stats import wilson_interval

SERVED_WORKERS = 2
"""The search workers of ``ggp serve`` on a 2-core machine, whose tactics one runs."""


def prepared(rules: str, tactics_race: bool) -> SearchWorker:
    """A worker on `rules` whose native code and heuristic are ready."""
    worker = SearchWorker()
    load = {"cmd": "load", "rules": rules, "traps": False, "settle": 3600}
    load |= {"tactics_race": tactics_race, "tactics_workers": SERVED_WORKERS}
    worker.handle(load)
    build = getattr(worker.tree.root.state.game, "native_build", None)
    if build is not None:
        build.join()
    if worker.learning is not None:
        worker.learning.done.wait(3600)
    worker.take_better_search()
    return worker


def check(worker: SearchWorker, race: Race, chosen, default, games: int, seconds: float) -> dict:
    """`games` self-play games of `chosen` against `default`, seats in turn (the
    tactics, where a side has them, `race`'s)."""
    start = worker.tree.root.state
    points = 0.0
    for index in range(games):
        seat = index % len(start.game.roles)
        played = RaceGame(
            start,
            seat,
            worker.race_tree(chosen, start),
            worker.race_tree(default, start),
            seconds,
            time.thread_time,
            (chosen.tactics, default.tactics),
            race.tactician,
            race.tactics_share,
            (race.part_maker(chosen), race.part_maker(default)),
        )
        while not played.over:
            played.move()
        points += played.score()
    low, high = wilson_interval(points, games)
    return {"games": games, "score": points / games, "interval95": [low, high]}


def measure(path: Path, race_cpu: float, games: int, move_cpu: float, tactics: bool) -> dict:
    load_before = os.getloadavg()[0]
    worker = prepared(path.read_text(), tactics)
    default = worker.config
    began = time.process_time()
    worker.races.moves_cpu = [move_cpu]  # the match's scale, as if it had searched a move
    worker.start_race()
    race = worker.races.race
    if race is None:  # the worker says why on stderr (e.g. trees over the roles' parts)
        return {
            "game": path.stem,
            "roles": len(worker.tree.root.state.game.roles),
            "default": default.describe(),
            "races": "none: the search worker raced nothing on this game",
            "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        }
    while race.ready and time.process_time() - began < race_cpu:
        worker.run_race(time.monotonic() + 1.0)
    chosen = worker.config
    entry = {
        "game": path.stem,
        "roles": len(worker.tree.root.state.game.roles),
        "move_seconds": race.move_seconds,
        "default": default.describe(),
        "chosen": chosen.describe(),
        "finished": race.finished,
        "race_games": race.games,
        "race_cpu": round(time.process_time() - began, 1),
        "verdicts": race.verdicts,
    }
    if chosen != default and games:
        entry["check"] = check(worker, race, chosen, default, games, race.move_seconds)
    entry["load"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", required=True, help="comma-separated names or .kif paths")
    parser.add_argument("--corpus", type=Path, default=Path("../shared/gdl-corpus/games"))
    parser.add_argument("--race-cpu", type=float, default=60.0, help="CPU seconds of races")
    parser.add_argument("--check", type=int, default=10, help="games to check a choice")
    parser.add_argument(
        "--move-cpu",
        type=float,
        default=8.0,
        help="CPU seconds of a match's move, whose share confirms a choice (races.py)",
    )
    parser.add_argument(
        "--tactics",
        choices=("race", "no"),
        default="race",
        help="whether the tactics are among the challengers, as ggp serve's --tactics",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    random.seed(args.seed)
    results = json.loads(args.out.read_text()) if args.out and args.out.exists() else []
    done = {entry["game"] for entry in results}
    for name in args.games.split(","):
        path = Path(name) if name.endswith(".kif") else args.corpus / f"{name}.kif"
        if path.stem in done:
            continue
        entry = measure(path, args.race_cpu, args.check, args.move_cpu, args.tactics == "race")
        results.append(entry)
        print(json.dumps(entry, indent=1), flush=True)
        if args.out:
            args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"{len(results)} games", file=sys.stderr)


if __name__ == "__main__":
    main()
