"""The same study on local processes and on a Ray cluster: identical results? wall times?

    python benchmarks/study_backends.py --ray 127.0.0.1:6379 [--games 500] [--out DIR]

Runs ``ggp study`` (tic-tac-toe, MCTS with 1, 2, 4 and 8 iterations a move
against a random player, seats swapped: tiny matches, so that what is measured
is the cost of running a match somewhere, not the search) twice, with
``--jobs 2`` and with ``--ray ADDRESS``, checks that both played the same
matches with the same results, and prints both wall times and the overhead per
match of Ray.  Start the cluster first (two nodes of one CPU each to compare
with two local processes):

    ray start --head --port 6379 --num-cpus 1
    ray start --address 127.0.0.1:6379 --num-cpus 1

and ``ray stop`` afterwards.  The machine's load is printed beside the
figures: wall times on a shared machine move with it; CPU seconds (of the
``ggp`` process and its workers, and of every Ray process on this machine)
much less.  With ``--kill-worker S``,
one Ray worker playing a match is killed S seconds into the Ray run (SIGKILL,
as a crash or an out-of-memory kill would): Ray runs its match again, and the
results are still those of the local run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GGP = [sys.executable, "-m", "ggp"]


class RayCPU:
    """CPU seconds used by the Ray processes of this machine (raylets, GCS, workers)
    while it is running: each process is sampled every `interval` seconds, so that
    the workers Ray ends after a run (whose time nobody inherits) still count, up
    to their last sample."""

    def __init__(self, interval: float = 0.5) -> None:
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.running = True
        self._sample()
        self.first = dict(self.last)
        self.thread = threading.Thread(target=self._watch, args=(interval,), daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes()
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if command.startswith(b"ray::") or b"/site-packages/ray/" in command:
                # utime, stime, and those of its children that ended
                self.last[int(entry.name)] = sum(int(value) for value in fields[11:15]) / ticks

    def _watch(self, interval: float) -> None:
        while self.running:
            time.sleep(interval)
            self._sample()

    def stop(self) -> float:
        """Stop sampling; the CPU seconds used since the start."""
        self.running = False
        self.thread.join()
        self._sample()
        return sum(value - self.first.get(pid, 0.0) for pid, value in self.last.items())


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def study(games: int, out: Path, backend: list[str]) -> float:
    """Run the study into `out` with `backend` options; its wall time in seconds."""
    command = [
        *GGP, "study", "tictactoe", "--agent", "mcts", "--vary", "iterations=1,2,4,8",
        "--against", "random", "--games", str(games), "--swap", "--seed", "1",
        "--out", str(out), *backend,
    ]  # fmt: skip
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def kill_a_worker_later(seconds: float) -> threading.Thread:
    """In `seconds`, SIGKILL one process running a match as a Ray task (named
    ``ray::_play_task``, `ggp.server.ray_runner`), and say which."""

    def kill() -> None:
        time.sleep(seconds)
        for entry in Path("/proc").iterdir():
            try:
                name = (entry / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if entry.name.isdigit() and name.startswith(b"ray::_play_task"):
                os.kill(int(entry.name), signal.SIGKILL)
                print(f"killed Ray worker {entry.name} while it played a match")
                return
        print("no Ray worker was playing a match to kill")

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


def matches(folder: Path) -> list[dict]:
    data = json.loads((folder / "results.json").read_text())["matches"]
    return [{key: value for key, value in m.items() if key != "match_id"} for m in data]


def load() -> str:
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ray", required=True, metavar="ADDRESS")
    parser.add_argument("--games", type=int, default=500, help="matches per point (4 points)")
    parser.add_argument("--out", type=Path, help="keep the two studies here")
    parser.add_argument(
        "--kill-worker", type=float, metavar="S", help="kill a Ray worker S seconds in"
    )
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="study-backends-"))
    total = 4 * args.games
    figures: dict[str, float] = {}
    cpus: dict[str, float] = {}
    for name, backend in (("local", ["--jobs", "2"]), ("ray", ["--ray", args.ray])):
        folder = out / name
        shutil.rmtree(folder, ignore_errors=True)
        before = load()
        if name == "ray" and args.kill_worker is not None:
            kill_a_worker_later(args.kill_worker)
        cpu = children_cpu_seconds()
        ray_cpu = RayCPU() if name == "ray" else None
        seconds = study(args.games, folder, backend)
        cpu = children_cpu_seconds() - cpu + (ray_cpu.stop() if ray_cpu else 0.0)
        figures[name] = seconds
        cpus[name] = cpu
        print(
            f"{name:>5}: {total} matches in {seconds:.1f} s, {total / seconds:.1f} matches/s, "
            f"{cpu:.1f} CPU s ({1000 * cpu / total:.1f} ms a match) ({' '.join(backend)}; "
            f"before: {before}; after: {load()})"
        )
    same = matches(out / "local") == matches(out / "ray")
    print(f"identical matches and results: {'yes' if same else 'NO'}")
    overhead = (figures["ray"] - figures["local"]) / total
    print(
        f"Ray against local processes: {figures['ray'] / figures['local']:.2f} x the wall "
        f"time, {1000 * overhead:+.1f} ms per match (2 CPUs each); "
        f"{cpus['ray'] / cpus['local']:.2f} x the CPU time, "
        f"{1000 * (cpus['ray'] - cpus['local']) / total:+.1f} CPU ms per match"
    )
    if args.out is None:
        shutil.rmtree(out)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
