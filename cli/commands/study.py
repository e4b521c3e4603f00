"""``ggp study GAME... --vary NAME=V1,V2 --against SPEC``: an agent's score against one option."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from ggp.backend_options import add_backend_options, check_jobs, cluster_of
from ggp.referee_options import add_referee_options
from ggp.server.plots import INSTALL_HINT, plot_study, plotting_available
from ggp.server.study import PLAN_FILE, Study, StudyPlan, format_summary, parse_vary
from tqdm import tqdm

PLOT_STEM = "score"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "study",
        description="A parameter sweep: for each GAME and each value of the option --vary, "
        "the agent (--agent, with that value) plays --games matches against --against. "
        "Writes to --out every match (matches.csv, results.json; the match logs in "
        "OUT/logs), a summary per point and seat (summary.csv: wins, draws, losses, "
        "score with its 95% Wilson interval) and a plot of the score against the "
        "option (score.png, score.svg; needs the extra 'plot'). A study that was "
        "stopped is resumed by the same command: finished matches are not played again. "
        "With iteration budgets the same --seed gives the same results on every backend.",
    )
    parser.add_argument(
        "games", metavar="GAME", nargs="+", help="built-in games or .kif files (one line each)"
    )
    parser.add_argument(
        "--vary",
        metavar="NAME=V1,V2,...",
        required=True,
        help="the agent option studied and its values, numbers (c=0.3,0.5,0.7,1.0,1.4 or "
        "iterations=8,64,512)",
    )
    parser.add_argument(
        "--agent",
        default="mcts",
        metavar="SPEC",
        help="the studied agent, without the option varied (default: %(default)s; e.g. "
        "mcts:iterations=200)",
    )
    parser.add_argument(
        "--against",
        required=True,
        metavar="SPEC",
        help="the opponent in every other role: an agent spec (mcts:iterations=64, random) "
        "or only options (c=1.4), meaning the studied agent with those options",
    )
    parser.add_argument(
        "--games",
        dest="matches",
        metavar="N",
        type=int,
        default=100,
        help="matches per point (default: %(default)s)",
    )
    parser.add_argument(
        "--swap",
        action="store_true",
        help="rotate the seats from match to match, so that moving first is not confounded",
    )
    parser.add_argument("--seed", type=int, help="study seed (default: a random one, printed)")
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        required=True,
        help="the study's folder; the same command with the same folder resumes it",
    )
    parser.add_argument("--gdl", action="store_true", help="use the GDL twins of built-in games")
    add_backend_options(parser)
    add_referee_options(parser)
    parser.set_defaults(run=run, log_dir=None)
    for action in parser._actions:
        if action.dest == "log_dir":
            action.help = "where match logs are written (default: OUT/logs)"


def run(args: argparse.Namespace) -> int:
    check_jobs(args)
    parameter, values = parse_vary(args.vary)
    seed = args.seed
    if seed is None:
        seed = _saved_seed(args.out)
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    plan = StudyPlan(
        games=tuple(args.games),
        agent=args.agent,
        parameter=parameter,
        values=values,
        against=args.against,
        matches=args.matches,
        swap=args.swap,
        seed=seed,
        gdl=args.gdl,
        startclock=args.startclock,
        playclock=args.playclock,
        grace=args.grace,
    )
    study = Study(plan, args.out, args.log_dir)
    if not plotting_available():
        print(f"ggp study: no plot will be drawn: {INSTALL_HINT}", file=sys.stderr)
    with cluster_of(args) as cluster:
        done = study.open()
        if done:
            print(f"Resuming {args.out}: {len(done)} of {study.total} matches already played")
        print(f"Study {study.study_id}: {len(study.points)} points, seed {seed}")
        with tqdm(
            total=study.total, initial=len(done), unit="match", desc="study", disable=None
        ) as bar:
            matches = study.run(
                done, jobs=args.jobs, cluster=cluster, on_match=lambda match: bar.update(1)
            )
    summary = study.summary(matches)
    study.write_outputs(matches, summary)  # first: the printing may stop (ggp study | head)
    written = [args.out / name for name in ("matches.csv", "summary.csv", "results.json")]
    if plotting_available():
        specs = study.points[0].specs
        against = f"against {specs[1]}" if len(specs) > 1 else "alone (a puzzle)"
        title = (
            f"{', '.join(args.games)}: {plan.agent} with {parameter} varied {against}, "
            f"{plan.matches} matches a point"
        )
        written += plot_study(summary, parameter, title, args.out / PLOT_STEM)
    print(format_summary(summary, parameter))
    print("Written: " + ", ".join(str(path) for path in written))
    return 0


def _saved_seed(folder: Path) -> int | None:
    """The seed of the study in `folder`, so that resuming needs no --seed."""
    try:
        return int(json.loads((folder / PLAN_FILE).read_text())["seed"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
