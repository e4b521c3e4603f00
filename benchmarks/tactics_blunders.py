"""Where lost matches were lost by force, and whether the tactics would have seen it.

    python benchmarks/tactics_blunders.py docs/strength/logs/sancho-60-10-*/breakthrough.*.json \\
        [--opponent 9160,9301,9302,9311] [--deep 12000000] [--python 76000] \\
        [--native 4500000 13500000] [--check 2000000]

For each match log of `benchmarks/strength.py` (the referee's JSON: rules, roles,
every joint move, goals) that our player lost (goal 0; ours is the seat whose URL
is not on an `--opponent` port), replays it on native code and walks back from
the end over the positions where we had a choice: while the native tactics,
given `--deep` states a position, prove every move of ours lost there, the game
was already lost; the first position (from the end) where some move is not
proven lost is where the game was thrown away if the move we played is proven
lost there (a *blunder*: the opponent could force its win from then on, within
the plies searched).  Otherwise the move lost beyond the plies searched: the
position after it, where every move is lost, says within how many plies
("lost within" of the line: the move played lost within two more).

At each blunder, the served searches are asked with budgets of states (what
they make in the served share of a move's CPU time, so that the figures do not
depend on the load): the search in Python with `--python` states (5 plies, as
`--tactics` served before), the native one with each budget of `--native`, full
width and with `LOCAL_SHARE` of it local (the deep search is local in part too),
and, for each budget of `--check`, each of these two followed by the check of the
move played searched alone, full width, with that many more states
(`Tactics.check`, as the served search checks its favourite after its MCTS
search): *avoided* when its proofs forbid the move played while leaving another,
*safe* when the deep search proves none of the moves it allows lost, *plays safe*
when it proves the move it would play instead not lost (the first allowed in the
order of the legal moves; with a check, the one the check stopped at).  Prints a
line per match and the totals, the states per CPU-second of the searches and the
load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from ggp.games.base import State
from ggp.player.search.tactics import LOCAL_SHARE, Tactics, Verdict
from mcts_enhancements import native_rules_game
from seat_scores import our_seat


def analyse(
    state, role: int, budget: int, native: bool, local: float = 0.0, check: tuple = (0, None)
) -> tuple[Verdict, float]:
    """A fresh search's verdict with `budget` states (no deadline), `local` of them
    for the local search, and its CPU seconds; with `check` (states, move), then the
    move searched alone with those states as the served search checks its favourite
    (`Tactics.check`, the move played standing for the favourite)."""
    began = time.process_time()
    tactics = Tactics(role, native=native, local_share=local)
    verdict = tactics.analyse(state, time.monotonic() + 3600, budget)
    states, move = check
    if states:
        verdict = tactics.check(state, verdict, [move], time.monotonic() + 3600, states)
    return verdict, time.process_time() - began


def our_choices(log: dict, role: int, name: str) -> list[tuple[int, State, str]]:
    """The positions of a match log (its rules, `x-rules`, on native code once built)
    where role `role` had a choice: (ply, state, the move it played)."""
    state = native_rules_game(log["x-rules"], name).initial_state()
    found = []
    for ply, joint in enumerate(log["moves"]):
        if len(state.legal_moves(role)) > 1:
            found.append((ply, state, joint[role]))
        state = state.next(joint)
    return found


def blunder(path: Path, args: argparse.Namespace) -> dict | None:
    """What the match at `path` says (None: not a loss of ours)."""
    log = json.loads(path.read_text())
    role = our_seat(log, args.opponent.split(","))
    if role is None or log.get("goalValues", [None] * (role + 1))[role] != 0:
        return None
    ours = [(state, move) for _, state, move in our_choices(log, role, path.stem)]
    row: dict = {"match": path.name, "plies": len(log["moves"]), "our moves": len(ours)}
    for back, (position, move) in enumerate(reversed(ours)):
        deep, _ = analyse(position, role, args.deep, native=True, local=LOCAL_SHARE)
        if deep.moves and len(deep.losses) == len(deep.moves):
            row["lost within"] = max(deep.losses.values())
            continue
        row["lost from our move"] = len(ours) - back
        row["deep"] = deep.describe()
        if move not in deep.losses:
            row["blunder"] = None  # lost beyond what the deep search sees
            return row
        row["blunder"] = move
        row["within"] = deep.losses[move]
        for name, native, budget, local, check in searches(args):
            served, cpu = analyse(position, role, budget, native, local, (check, move))
            allowed = served.allowed()
            avoided = allowed is not None and move not in allowed
            row[name] = {
                "avoided": avoided,
                "safe": avoided and all(other not in deep.losses for other in allowed),
                "plays safe": avoided and served.choose(move, [move]) not in deep.losses,
                "depth": served.depth,
                "states": served.nodes,
                "cpu": round(cpu, 3),
                "verdict": served.describe(),
            }
        return row
    row["blunder"] = None
    return row


def searches(args: argparse.Namespace) -> list[tuple[str, bool, int, float, int]]:
    """The served searches compared: name, native, states, local share, states of the
    check of the move played."""
    found = [("python", False, args.python, 0.0, 0)]
    for budget in args.native:
        found.append((f"native {budget}", True, budget, 0.0, 0))
        found.append((f"native+local {budget}", True, budget, LOCAL_SHARE, 0))
        for check in args.check:
            found.append((f"native {budget}, check {check}", True, budget, 0.0, check))
            name = f"native+local {budget}, check {check}"
            found.append((name, True, budget, LOCAL_SHARE, check))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--opponent", default="9160,9301,9302,9311")
    parser.add_argument("--deep", type=int, default=12_000_000)
    parser.add_argument("--python", type=int, default=76_000)
    parser.add_argument("--native", type=int, nargs="+", default=[4_500_000, 13_500_000])
    parser.add_argument("--check", type=int, nargs="*", default=[])
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    rows = []
    for path in args.logs:
        row = blunder(path, args)
        if row is None:
            continue
        rows.append(row)
        print(json.dumps(row), flush=True)
    blunders = [row for row in rows if row.get("blunder")]
    print(f"losses: {len(rows)}, with a blunder the deep search proves: {len(blunders)}")
    for name, *_ in searches(args):
        avoided = sum(row[name]["avoided"] for row in blunders)
        safe = sum(row[name]["safe"] for row in blunders)
        plays = sum(row[name]["plays safe"] for row in blunders)
        states = sum(row[name]["states"] for row in blunders)
        cpu = sum(row[name]["cpu"] for row in blunders)
        print(
            f"{name}: avoided {avoided} of {len(blunders)} ({safe} for a move not proven lost),"
            f" playing a move not proven lost {plays},"
            f" {states / max(cpu, 1e-9):,.0f} states per CPU-s"
        )
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
