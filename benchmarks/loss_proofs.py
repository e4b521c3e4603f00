"""Which lost moves each search proves lost: the tactics' move alone against proof numbers.

    python benchmarks/loss_proofs.py positions docs/strength/positions-connectFour.json \\
        [--budget 1000000 ...] [--limit N]
    python benchmarks/loss_proofs.py logs docs/strength/logs/head-29th/*/breakthrough.*.json \\
        [--opponent 9160,9161] [--last 12] [--budget 1000000 ...]

The served search checks the move it chose by searching it alone with the tactics
(`ggp.player.search.tactics.Tactics.check_alone`): by deepening one ply at a time over
every line, by proof-number search (`ggp.gdl.native.tactics.NativeTactics.loss_proof`),
or by both (``--search``; `ggp.player.search.tactics.CHECK_BY`).  For each move asked
of, each search gets the same budget of states (each budget of ``--budget``; no
deadline) and fresh tables, and this prints how many moves each proves lost, the plies
of the proofs, states per CPU-second and the load.

``positions``: the Connect Four positions of `benchmarks/position_accuracy.py`
(``build``), each with every drop's exact value: the moves asked of are the drops the
exact solver says lose (value -1), and a proof of a drop that does not lose is counted
as *false* (a bug: both searches prove only what holds).  ``logs``: match logs of
`benchmarks/strength.py` that our player lost (ours: the seat whose URL is not on an
``--opponent`` port); the moves asked of are the last ``--last`` moves we played in
each, with no truth beside them (where one search proves a move lost and the other
does not, the line is longer than the other reaches).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ggp.games.base import State  # noqa: E402
from ggp.gdl.compiled.compiled_game import CompiledState  # noqa: E402
from ggp.player.search import tactics as tactics_module  # noqa: E402
from ggp.player.search.tactics import Tactics  # noqa: E402
from mcts_enhancements import native_rules_game  # noqa: E402
from root_diagnosis import replay  # noqa: E402
from seat_scores import our_seat  # noqa: E402

FOREVER = 3600.0
"""Seconds a search may take: the budget of states stops it first."""


def native_state(rules: str, moves: list[list[str]], step: int, name: str) -> CompiledState:
    """The state after `step` joint moves of a match on `rules`, on native code."""
    state = replay(native_rules_game(rules, name), moves, step)
    assert isinstance(state, CompiledState)
    return state


def checked(how: str, state: State, role: int, move: str, budget: int) -> tuple[int, int, float]:
    """The check of `move` (`Tactics.check_alone`) by `how` (``depth``, ``numbers`` or
    ``both``), full width, fresh tables: (plies of the loss proven, 0: none; states; CPU
    seconds)."""
    tactics = Tactics(role, local_share=0.0, check_by=how)
    began = time.process_time()
    verdict = tactics.check_alone(state, move, time.monotonic() + FOREVER, budget)
    return verdict.losses.get(move, 0), verdict.nodes, time.process_time() - began


SEARCHES = ("depth", "numbers", "both")


def asked(args: argparse.Namespace) -> list[tuple[str, CompiledState, int, str, int | None]]:
    """The moves asked of: (where, state, role, move, exact value or None)."""
    found = []
    if args.mode == "positions":
        positions = json.loads(Path(args.files[0]).read_text())[: args.limit]
        for position in positions:
            log = json.loads(Path(position["log"]).read_text())
            state = native_state(log["x-rules"], log["moves"], position["step"], position["game"])
            for move, value in position["values"].items():
                if value < 0 or args.all:
                    where = f"{Path(position['log']).name}@{position['step']}"
                    found.append((where, state, position["role"], move, value))
        return found
    for path in map(Path, args.files):
        log = json.loads(path.read_text())
        role = our_seat(log, args.opponent.split(","))
        if role is None or log.get("goalValues", [None] * (role + 1))[role] != 0:
            continue
        state = native_state(log["x-rules"], log["moves"], 0, path.stem)
        ours = []
        for step, joint in enumerate(log["moves"]):
            if len(state.legal_moves(role)) > 1:
                ours.append((f"{path.name}@{step}", state, role, joint[role], None))
            state = state.next(joint)
        found.extend(ours[-args.last :])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("positions", "logs"))
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--budget", type=int, action="append", help="states (default 1000000)")
    parser.add_argument("--search", choices=SEARCHES, action="append", help="default: all")
    parser.add_argument("--limit", type=int, help="positions: the first N only")
    parser.add_argument("--all", action="store_true", help="positions: every drop, not lost ones")
    parser.add_argument("--opponent", default="9160,9161,9170,9301,9302")
    parser.add_argument("--last", type=int, default=12, help="logs: our last N moves of each")
    parser.add_argument(
        "--max-depth",
        type=int,
        help=f"the deepening's cap of plies (default {tactics_module.NATIVE_MAX_DEPTH})",
    )
    args = parser.parse_args()
    if args.max_depth is not None:
        tactics_module.NATIVE_MAX_DEPTH = args.max_depth
    budgets = args.budget or [1_000_000]
    missing = [str(path) for path in args.files if not path.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    load_before = os.getloadavg()[0]
    moves = asked(args)
    print(
        f"{len(moves)} moves asked of; load {load_before:.1f};"
        f" the deepening capped at {tactics_module.NATIVE_MAX_DEPTH} plies",
        flush=True,
    )
    searches = args.search or list(SEARCHES)
    totals = {(name, budget): [0, 0, 0, 0.0] for name in searches for budget in budgets}
    for where, state, role, move, value in moves:
        cells = []
        for budget in budgets:
            for name in searches:
                plies, states, cpu = checked(name, state, role, move, budget)
                total = totals[name, budget]
                total[0] += bool(plies)
                total[1] += bool(plies) and value is not None and value >= 0
                total[2] += states
                total[3] += cpu
                cells.append(f"{name} {budget}: {plies or '-'}")
        truth = "" if value is None else f" (exact {value:+d})"
        print(f"{where} {move}{truth}: {', '.join(cells)}", flush=True)
    print(f"load {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    for (name, budget), (proven, false, states, cpu) in totals.items():
        rate = states / cpu if cpu else 0.0
        print(
            f"{name} at {budget} states: {proven} of {len(moves)} proven lost"
            f" ({false} false), {states} states in {cpu:.1f} CPU-s ({rate:,.0f} a CPU-s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
