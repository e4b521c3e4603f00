"""Does a game's learnt heuristic predict its outcomes, with and without the rule features?

    python benchmarks/heuristic_features.py --corpus ../shared/gdl-corpus/games \\
        --games breakthrough,connectFour --seeds 1,2 --out features.json

For each game (a corpus name or a ``.kif`` path) on native code and each seed,
learns the heuristic as ``ggp serve``'s search does (`ggp.player.search.heuristic.learn`,
material term 0.5) and prints, per role, the correlation of the fitted goal with
the goal on the playouts the fit did not see: of the fact counts alone, and of the
counts with the rule features that pass the feature test (the fit keeps them where
they beat the counts by `heuristic.RICH_MARGIN`); "-" where no feature passed.
Then whether a heuristic is learnt at all (the held-out figure must pass
`MIN_CORRELATION` and `MIN_Z`), which rule features it keeps, and the CPU seconds
of the learning with and without trying the rule features (after a first
learning, not timed, that warms the native code up).  The machine's load
average is recorded beside each game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

from ggp.gdl.load import game_from_file
from ggp.player.search.heuristic import learn


def figures(path: Path, seed: int) -> dict[str, Any]:
    """The held-out figures of the heuristic learnt on the game at `path` for `seed`."""
    game = game_from_file(path, reasoner="native")
    learn(game, random.Random(seed), material=0.5, rich=False)  # the first call warms up
    report: dict[str, Any] = {}
    began = time.process_time()
    learnt = learn(game, random.Random(seed), material=0.5, rich=True, report=report)
    cpu = time.process_time() - began
    began = time.process_time()
    learn(game, random.Random(seed), material=0.5, rich=False)
    cpu_counts = time.process_time() - began
    return {
        "seed": seed,
        "counts": [round(r, 3) for r in report.get("counts", ())],
        "rules": [round(r, 3) for r in report.get("rules", ())],
        "tried": report.get("rule_features", []),
        "heuristic": learnt is not None,
        "kept": [extra.name for extra in learnt.extras] if learnt is not None else [],
        "cpu": round(cpu, 2),
        "cpu_counts": round(cpu_counts, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path("../shared/gdl-corpus/games"))
    parser.add_argument("--games", default="breakthrough")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = []
    print("| game | seed | counts alone | with rule features | heuristic | kept | CPU-s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.games.split(","):
        path = Path(name) if name.endswith(".kif") else args.corpus / f"{name}.kif"
        load = os.getloadavg()[0]
        for seed in (int(s) for s in args.seeds.split(",")):
            found = figures(path, seed)
            found["game"], found["load"] = path.stem, round(load, 1)
            results.append(found)
            counts = " ".join(f"{r:.3f}" for r in found["counts"]) or "-"
            rules = " ".join(f"{r:.3f}" for r in found["rules"]) or "-"
            learnt = "yes" if found["heuristic"] else "none"
            kept = ", ".join(found["kept"]) or "-"
            cpu = f"{found['cpu']} ({found['cpu_counts']} without)"
            print(f"| {path.stem} | {seed} | {counts} | {rules} | {learnt} | {kept} | {cpu} |")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
