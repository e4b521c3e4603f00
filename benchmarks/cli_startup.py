"""How long does ``ggp`` take to start?  ``ggp --help`` timed against a bare interpreter.

    python benchmarks/cli_startup.py [--runs 10] [-- ARG ...]

runs ``python -m ggp ARG ...`` (default ``--help``) and, in turn as the baseline,
``python -c pass``, each `--runs` times as child processes, and prints the median
CPU time (user + system, from the children's resource usage, so that the load of
a shared machine weighs little) and wall time of each, and their ratio.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time


def run_once(command: list[str]) -> tuple[float, float]:
    """CPU seconds and wall seconds of one run of `command` as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("args", nargs=argparse.REMAINDER, help="ggp's arguments")
    options = parser.parse_args()
    if options.args[:1] == ["--"]:
        options.args = options.args[1:]
    options.args = options.args or ["--help"]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "ggp " + " ".join(options.args): [sys.executable, "-m", "ggp", *options.args],
    }
    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(options.runs):
        for name, command in commands.items():
            timings[name].append(run_once(command))
    baseline_cpu = statistics.median(cpu for cpu, _ in timings["python -c pass"])
    for name, runs in timings.items():
        cpu = statistics.median(cpu for cpu, _ in runs)
        wall = statistics.median(wall for _, wall in runs)
        print(
            f"{name}: {cpu:.3f} s CPU, {wall:.3f} s wall (median of {options.runs}); "
            f"{cpu / baseline_cpu:.1f} x the bare interpreter's CPU"
        )


if __name__ == "__main__":
    main()
