"""NMCS and NRPA against MCTS on corpus puzzles: three ``ggp study`` runs and one plot.

    python benchmarks/puzzle_study.py --out DIR [--games 5] [--times 0.25,1]
        [--puzzles knightsTour,max_knights,peg] [--jobs 2] [--plot docs/puzzle-study.png]

Each agent (``mcts``, ``nmcs:level=2``, ``nrpa:level=2``) is studied by ``ggp study
PUZZLES --agent AGENT --vary time=...`` (its folder under DIR; a stopped run resumes),
at the same seconds a move, and the plot shows the mean goal of each agent against
the seconds a move, one panel a puzzle, with the 95% Wilson intervals ``ggp study``
gives.  Budgets are seconds (wall clock): state the load beside the figures.
Needs the corpus (``../shared/gdl-corpus``) and the extra ``plot``.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

from puzzles import CORPUS, uptime

AGENTS = ("mcts", "nmcs:level=2", "nrpa:level=2")


def study(agent: str, args: argparse.Namespace) -> Path:
    """Run (or resume) the study of `agent`; its folder."""
    folder = args.out / agent.split(":")[0]
    games = [str(CORPUS / f"{name}.kif") for name in args.puzzles.split(",")]
    command = [sys.executable, "-m", "ggp", "study", *games, "--agent", agent]
    command += ["--vary", f"time={args.times}", "--against", "random"]
    command += ["--games", str(args.games), "--seed", "1", "--out", str(folder)]
    command += ["--jobs", str(args.jobs), "--startclock", "1", "--playclock", "60"]
    subprocess.run(command, check=True)
    return folder


def plot(folders: dict[str, Path], puzzles: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, grid = plt.subplots(1, len(puzzles), figsize=(4 * len(puzzles), 3.6), sharey=True)
    axes = list(grid) if len(puzzles) > 1 else [grid]
    for axis, puzzle in zip(axes, puzzles, strict=True):
        for agent, folder in folders.items():
            rows = [
                row
                for row in csv.DictReader((folder / "summary.csv").open())
                if row["seat"] == "all" and Path(row["game"]).stem == puzzle
            ]
            rows.sort(key=lambda row: float(row["time"]))
            times = [float(row["time"]) for row in rows]
            score = [100 * float(row["score"]) for row in rows]
            low = [100 * (float(row["score"]) - float(row["ci_low"])) for row in rows]
            high = [100 * (float(row["ci_high"]) - float(row["score"])) for row in rows]
            axis.errorbar(times, score, yerr=[low, high], marker="o", capsize=3, label=agent)
        axis.set_xscale("log")
        axis.set_title(puzzle)
        axis.set_xlabel("seconds a move")
        axis.set_ylim(-5, 105)
    axes[0].set_ylabel("mean goal (95% interval)")
    axes[-1].legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--times", default="0.25,1")
    parser.add_argument("--puzzles", default="knightsTour,max_knights,peg")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plot", type=Path, default=Path("docs/puzzle-study.png"))
    args = parser.parse_args()
    print(f"load before: {uptime()}", flush=True)
    folders = {agent: study(agent, args) for agent in AGENTS}
    print(f"load after: {uptime()}")
    plot(folders, args.puzzles.split(","), args.plot)
    print(f"Written: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
