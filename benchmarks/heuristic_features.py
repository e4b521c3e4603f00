"""Does a game's learnt heuristic predict its outcomes, with and without the rule features?

    python benchmarks/heuristic_features.py --corpus ../shared/gdl-corpus/games \\
        --games breakthrough,connectFour --seeds 1,2 --out features.json

For each game (a corpus name or a ``.kif`` path) on native code and each seed,
learns the heuristic as ``ggp serve``'s search does (`ggp.player.search.heuristic.learn`,
material term 0.5) and prints, per role, the correlation of its fitted goal with
the goal on the playouts the fit did not see: of the fact counts alone, and of the
fit kept (with the rule features where they beat the counts by
`heuristic.RICH_MARGIN`), the rule features kept, and the CPU seconds of the learning.
"none" where no fit predicts clearly enough (the game gets no heuristic).  The
machine's load average is recorded beside each game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

from ggp.gdl.load import game_from_file
from ggp.player.search.heuristic import learn


def figures(path: Path, seed: int) -> dict:
    """The held-out figures of the heuristic learnt on the game at `path` for `seed`."""
    game = game_from_file(path, reasoner="native")
    began = time.process_time()
    learnt = learn(game, random.Random(seed), material=0.5)
    cpu = time.process_time() - began
    if learnt is None:
        return {"seed": seed, "heuristic": False, "cpu": round(cpu, 2)}
    return {
        "seed": seed,
        "heuristic": True,
        "counts": [round(r, 3) for r in learnt.held_out_counts or ()],
        "kept": [round(r, 3) for r in learnt.held_out],
        "rule_features": [extra.name for extra in learnt.extras],
        "cpu": round(cpu, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path("../shared/gdl-corpus/games"))
    parser.add_argument("--games", default="breakthrough")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = []
    print("| game | seed | counts alone (held-out r) | kept | rule features kept | CPU-s |")
    print("|---|---|---|---|---|---|")
    for name in args.games.split(","):
        path = Path(name) if name.endswith(".kif") else args.corpus / f"{name}.kif"
        load = os.getloadavg()[0]
        for seed in (int(s) for s in args.seeds.split(",")):
            found = figures(path, seed)
            found["game"], found["load"] = path.stem, round(load, 1)
            results.append(found)
            if found["heuristic"]:
                counts = " ".join(f"{r:.3f}" for r in found["counts"]) or "none"
                kept = " ".join(f"{r:.3f}" for r in found["kept"])
                extras = ", ".join(found["rule_features"]) or "none"
            else:
                counts = kept = "none"
                extras = ""
            print(f"| {path.stem} | {seed} | {counts} | {kept} | {extras} | {found['cpu']} |")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
