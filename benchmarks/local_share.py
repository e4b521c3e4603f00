"""What the local half of the native tactics proves that full width would not, per game.

    python benchmarks/local_share.py docs/strength/logs/sancho-60-10-af08386/*.json \\
        [--opponent 9160,9301,9302,9311] [--budget 2000000] [--every 2] [--from-ply 6]

For each match log of `benchmarks/strength.py`, replays it on native code and, at
every `--every`-th position where our player had a choice (from `--from-ply` on),
runs three fresh native searches of our moves with `--budget` states and no
deadline: the served one (`LOCAL_SHARE` of the states to the local search after the
full-width one), its full-width half alone (what the local search adds to), and
full width with every state.  Per game it counts the positions where the local
search proved a move the half did not (*local adds*), and where the served search
and the full-width one each proved a move the other did not (with how many of
those proofs are of the move our player then played).  The per-game local share
rests on these counts (docs/tactics.md).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path

from ggp.player.search.tactics import LOCAL_SHARE, Tactics, Verdict
from seat_scores import our_seat
from tactics_blunders import our_choices


def proven(verdict: Verdict) -> set[str]:
    """The moves `verdict` proves to win or to lose."""
    return set(verdict.wins) | set(verdict.losses)


def search(state, role: int, budget: int, local: float) -> Verdict:
    """A fresh native search of `state` with `budget` states, `local` of them local."""
    tactics = Tactics(role, native=True, local_share=local)
    return tactics.analyse(state, time.monotonic() + 3600, budget)


def positions(path: Path, args: argparse.Namespace) -> tuple[str, list] | None:
    """The game's name and the positions of the match at `path` to search: (state,
    role, move played); None where our seat is not found."""
    log = json.loads(path.read_text())
    role = our_seat(log, args.opponent.split(","))
    if role is None:
        return None
    name = path.name.split(".")[0]
    choices = our_choices(log, role, name)
    found = [
        (state, role, move)
        for count, (ply, state, move) in enumerate(choices)
        if ply >= args.from_ply and count % args.every == 0
    ]
    return name, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--opponent", default="9160,9301,9302,9311")
    parser.add_argument("--budget", type=int, default=2_000_000)
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--from-ply", type=int, default=6)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    began = time.process_time()
    for path in args.logs:
        match = positions(path, args)
        if match is None:
            continue
        name, found = match
        row = totals[name]
        row["matches"] += 1
        for state, role, played in found:
            served = search(state, role, args.budget, LOCAL_SHARE)
            half = search(state, role, max(1, int(args.budget * (1 - LOCAL_SHARE))), 0.0)
            full = search(state, role, args.budget, 0.0)
            row["positions"] += 1
            row["full proves"] += bool(proven(full))
            adds = proven(served) - proven(half)
            row["local adds"] += bool(adds)
            row["local adds the move played"] += played in adds
            served_only = proven(served) - proven(full)
            full_only = proven(full) - proven(served)
            row["served only"] += bool(served_only)
            row["served only, the move played"] += played in served_only
            row["full only"] += bool(full_only)
            row["full only, the move played"] += played in full_only
        print(f"{path.name}: {dict(row)}", flush=True)
    print()
    for name, row in sorted(totals.items()):
        print(f"{name}: " + ", ".join(f"{key} {value}" for key, value in row.items()))
    print(
        f"\n{time.process_time() - began:.0f} CPU s; load average after: "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
