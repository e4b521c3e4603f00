"""Simulations per CPU-second of `ggp serve`'s search, this checkout against another.

    python benchmarks/serve_search_speed.py GAME.kif [...] --baseline DIR
                                            [--rounds 3] [--iterations 8000]

A speed-up of the reasoner or the tree changes code, not an option, so the
two versions cannot run in one process: each round runs one process on the
baseline checkout's code (``DIR``, e.g. ``git worktree add --detach DIR
COMMIT``) and one on this checkout's, one after the other, so that a change
of load touches both alike.  In each process a search worker (one, as
`ggp serve` starts them, minus the exact solver, whose runs come and go with
the clock) loads the rules, waits for the native code and the learnt
heuristic, and then searches from the initial state five times `--iterations`
simulations; after each search, for as much CPU time, it runs bare playouts
from the initial state, as many a call and of the same policy as the
search's leaves (`Game.playout_batch`, `ServePlayout`).  The process prints
the median rate per CPU second of the worker's simulations (iterations), of
its playouts (simulations times the playouts a leaf) and of the bare
playouts.  The script prints each round, with the search's playouts as a
share of the bare ones (the reasoner's pace the tree keeps), the median over
rounds of each version, and their ratio.  Without ``--baseline`` it measures
this checkout only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SEARCHES = 5


def code_root() -> Path:
    """The checkout whose `player` package this process imports."""
    import ggp.player as player

    return Path(player.__file__).resolve().parent.parent


class Rates(NamedTuple):
    """Per CPU second of one process: the search's simulations and playouts, bare playouts."""

    simulations: float
    playouts: float
    bare: float

    @property
    def share(self) -> float:
        """The search's playouts per CPU second as a share of the bare ones."""
        return self.playouts / self.bare


def measure(rules_path: Path, iterations: int) -> Rates:
    """In this process: the median rates of the search and of bare playouts."""
    import random

    from ggp.player.service import search_worker
    from ggp.player.service.search_worker import SearchWorker

    search_worker.skip_full_collections()
    worker = SearchWorker()
    worker.rng.seed(1)
    worker.handle({"cmd": "load", "rules": rules_path.read_text()})
    worker.traps_on = False
    worker.tactics.on = False
    worker.settle()
    assert worker.tree is not None
    build = getattr(worker.tree.root.state.game, "native_build", None)
    if build is not None:
        build.join()
    if worker.learning is not None:
        worker.learning.done.wait(300)
    command = {"cmd": "search", "role": 0, "until": time.time() + 3600, "iterations": 200}
    worker.handle(command)  # the heuristic, if any, is taken here
    tree = worker.tree
    evaluator = tree.evaluator
    state = tree.root.state
    batch = state.game.playout_batch
    rng = random.Random(1)
    simulations, playouts, bare = [], [], []
    for _ in range(SEARCHES):
        before = evaluator.playouts
        cpu = time.process_time()
        answer = worker.handle({**command, "iterations": iterations})
        seconds = time.process_time() - cpu
        simulations.append(answer["sims"] / seconds)
        playouts.append((evaluator.playouts - before) / seconds)
        policy = evaluator.policy  # as the search's last leaf played them
        done = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            done += len(state.playouts(rng, batch, policy))
        bare.append(done / (time.process_time() - cpu))
    return Rates(*(statistics.median(rates) for rates in (simulations, playouts, bare)))


def import_root(checkout: Path, scratch: Path) -> Path:
    """A folder from which ``import ggp`` finds `checkout`'s code, ahead of the
    installed one: the checkout itself, or where pyproject.toml maps the package
    ``ggp`` onto folders (``ggp`` is cli/, ``ggp.gdl`` is gdl/...), a ``ggp``
    folder in `scratch` of links to them as that mapping lays them out."""
    project = tomllib.loads((checkout / "pyproject.toml").read_text())
    mapping = project.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    if "ggp" not in mapping:
        return checkout
    package = scratch / "ggp"
    package.mkdir()
    for entry in (checkout / mapping["ggp"]).iterdir():
        (package / entry.name).symlink_to(entry)
    for name, folder in mapping.items():
        if name.startswith("ggp."):
            link = package.joinpath(*name.split(".")[1:])
            link.unlink(missing_ok=True)
            link.symlink_to(checkout / folder)
    return scratch


def run_in(checkout: Path, rules_path: Path, iterations: int) -> Rates:
    """`measure` in a new process on `checkout`'s code (this script drives it, so
    a baseline older than the script will do)."""
    if not (checkout / "player" / "service" / "search_worker.py").is_file():
        raise SystemExit(
            f"{checkout} is not a checkout of this project (no player/service/search_worker.py)"
        )
    command = [sys.executable, __file__, str(rules_path), "--measure"]
    command += ["--iterations", str(iterations)]
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "PYTHONPATH": str(import_root(checkout, Path(scratch)))}
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the measure on {checkout} failed:\n{done.stderr[-2000:]}")
    code, *rates = done.stdout.split()[-4:]
    if Path(code) != checkout:  # the installed code came first: not the version asked for
        raise SystemExit(f"the measure meant for {checkout} ran the code in {code}")
    return Rates(*map(float, rates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+", type=Path, metavar="GAME.kif")
    parser.add_argument("--baseline", type=Path, help="another checkout (its code is measured)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=8000, help="simulations a search")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        rates = measure(args.games[0], args.iterations)
        print(code_root(), *(f"{rate:.1f}" for rate in rates))
        return
    versions = (
        {"this": ROOT} if args.baseline is None else {"baseline": args.baseline, "this": ROOT}
    )
    for path in args.games:
        rates: dict[str, list[Rates]] = {name: [] for name in versions}
        for round_ in range(args.rounds):
            load = os.getloadavg()[0]
            for name, checkout in versions.items():
                measured = run_in(checkout.resolve(), path.resolve(), args.iterations)
                rates[name].append(measured)
                print(
                    f"  {path.stem} round {round_ + 1}, {name}: {measured.simulations:,.0f} "
                    f"simulations per CPU second, {measured.playouts:,.0f} playouts, "
                    f"{measured.share:.2f} of the {measured.bare:,.0f} bare playouts "
                    f"(load {load:.1f})",
                    flush=True,
                )
        medians = {
            name: statistics.median(rate.simulations for rate in values)
            for name, values in rates.items()
        }
        shares = {
            name: statistics.median(rate.share for rate in values) for name, values in rates.items()
        }
        line = ", ".join(
            f"{name} {medians[name]:,.0f} ({shares[name]:.2f} of bare playouts)"
            for name in versions
        )
        ratio = f" (x{medians['this'] / medians['baseline']:.2f})" if args.baseline else ""
        print(f"{path.stem}: median of {args.rounds} rounds: {line}{ratio}", flush=True)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
