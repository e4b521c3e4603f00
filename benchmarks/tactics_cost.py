"""What the tactical search (`ggp.player.search.tactics`) costs and finds per move.

    python benchmarks/tactics_cost.py --games connectFour,breakthrough \\
        [--positions 30] [--seconds 0.3 1.0] [--seed 1] [--searches python,native,local]
        [--states N]

For each game (a corpus name or a ``.kif`` path) on native code, plays random
playouts and takes one position of each, at a random ply, where a role has a
choice; at each, for each time limit given and each search (``python``: the
search in Python over `State`, with `TACTICS_NODES`; ``native``: the full-width
search in the game's native library; ``local``: that and the local one, with
`LOCAL_SHARE` of the time, as served; both with `NATIVE_TACTICS_NODES`), a fresh
`Tactics` of that role analyses it.  Prints per game, search and limit: the CPU
seconds taken (median, max), the plies searched completely (median, min), the
states looked at (median) and per CPU-second (over all positions), and in how
many positions a win, or a loss of some but not all moves, was proven (what
overrides the search's choice).  Writes the machine's load beside.  With
``--states N``, each search has N states and no time limit instead (the seconds
ignored): figures that do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from ggp.gdl.load import game_from_file  # noqa: E402
from ggp.player.search.tactics import LOCAL_SHARE, Tactics  # noqa: E402
from ggp.player.service.served_tactics import NATIVE_TACTICS_NODES, TACTICS_NODES  # noqa: E402

SEARCHES = {
    "python": (False, 0.0, TACTICS_NODES),
    "native": (True, 0.0, NATIVE_TACTICS_NODES),
    "local": (True, LOCAL_SHARE, NATIVE_TACTICS_NODES),
}
"""Search name -> (in native code, local share, budget of states)."""
from strength import game_spec  # noqa: E402


def positions(game, count: int, rng: random.Random) -> list:
    """`count` positions where some role has a choice, one from each random playout."""
    found = []
    while len(found) < count:
        line = []
        state = game.initial_state()
        while not state.is_terminal():
            if any(len(moves) > 1 for moves in state.all_legal_moves()):
                line.append(state)
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
        if line:
            found.append(rng.choice(line))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="connectFour,breakthrough")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--seconds", type=float, nargs="+", default=[0.3, 1.0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--searches", default="python,native,local")
    parser.add_argument("--states", type=int, help="a budget of states, no time limit")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for name in args.games.split(","):
        game = game_from_file(game_spec(name), reasoner="native")
        build = getattr(game, "native_build", None)
        if build is not None:
            build.join()
        rng = random.Random(args.seed)
        states = positions(game, args.positions, rng)
        limits = [None] if args.states else args.seconds
        for search, seconds in product(args.searches.split(","), limits):
            native, local, budget = SEARCHES[search]
            if seconds is None:
                budget, seconds, limit = args.states, 3600.0, f"{args.states:,} states"
            else:
                limit = f"{seconds:g} s"
            cpu, depths, nodes, proved = [], [], [], 0
            for state in states:
                legal = state.all_legal_moves()
                role = max(range(len(legal)), key=lambda r: len(legal[r]))
                tactics = Tactics(role, native=native, local_share=local)
                began = time.process_time()
                verdict = tactics.analyse(state, time.monotonic() + seconds, budget)
                cpu.append(time.process_time() - began)
                depths.append(verdict.depth)
                nodes.append(verdict.nodes)
                proved += verdict.proved
            print(
                f"{name} {search} at {limit}: CPU {statistics.median(cpu):.3f} s median, "
                f"{max(cpu):.3f} max; plies {statistics.median(depths):g} median, "
                f"{min(depths)} min; {statistics.median(nodes):,.0f} states median, "
                f"{sum(nodes) / max(sum(cpu), 1e-9):,.0f} per CPU-s; "
                f"proved something in {proved} of {len(states)} positions",
                flush=True,
            )
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
