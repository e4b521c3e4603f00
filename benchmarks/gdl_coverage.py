"""How many corpus games get the fast path, and the same list on a quiet and a loaded machine.

    python benchmarks/gdl_coverage.py [GAME ...] [--busy 2] [--list FILE] [--compare FILE]
                                      [--native] [--workers 1]

For each game of the shared corpus (default: all 254): compile it within the
default budget (`ggp.gdl.network.grounding.Budget`, counted in work, not time)
and, if that succeeds, replay every recorded playout with the compiled
reasoner (with ``--native``, with its native code attached too).  A game is
on the fast path when it compiles and replays all its playouts exactly.
Prints a line per game as it is done (outcome, work units spent, CPU seconds,
why not), then the count, the reasons for the others grouped, and the
longest CPU time spent before giving up.

``--busy N`` starts N processes that only burn CPU for the length of the
run (a loaded machine), ``--list`` writes one ``game<TAB>outcome`` line per
game, and ``--compare`` reads such a list and prints the games whose outcome
differs: the budget counts work, so there should be none.  Each game runs
in a process of its own (``--workers`` at a time) so that one game's memory
does not weigh on the next.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.network.grounding import GroundingError
from ggp.gdl.traces import read_playouts, replay

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"
FAST = "fast path"


def outcome(name: str, native: bool) -> tuple[str, str, int, float, str]:
    """(name, outcome, work units, CPU seconds to compile, detail) of one game."""
    game = GdlGame.from_file(CORPUS / "games" / f"{name}.kif")
    start = time.process_time()
    try:
        rules = compile_rules(game.strata, game.role_terms)
    except GroundingError as error:
        return name, "not compiled", 0, time.process_time() - start, str(error)
    seconds = time.process_time() - start
    compiled = CompiledGame.from_game(game, rules)
    if native:
        from ggp.gdl.native.attach import attach_native

        attach_native(compiled)
    report = replay(compiled, read_playouts(CORPUS / "traces" / f"{name}.jsonl.gz"))
    if not report.agrees:
        detail = report.disagreements[0].describe().splitlines()[0]
        return name, "disagrees", rules.work, seconds, detail
    detail = f"{report.playouts} playouts, {report.steps} steps"
    if rules.goals_left:
        detail += "; goals by the interpreter"
    elif rules.goals_code_left:
        detail += "; goals by the interpreter on the Python path"
    return name, FAST, rules.work, seconds, detail


def kind_of(detail: str) -> str:
    """A reason with its numbers and names taken out, to group games by it."""
    kind = re.sub(r" \(.*", "", detail)
    kind = re.sub(r"relaxed model of .* (grows|needs)", r"relaxed model of R \1", kind)
    kind = re.sub(r"relaxed model of [^ ]+(, [^ ]+)*$", "relaxed model of R", kind)
    kind = re.sub(r"(grows without bound):.*", r"\1", kind)
    return re.sub(r"[0-9][0-9,.]*", "N", kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="corpus games (default: all)")
    parser.add_argument("--busy", type=int, default=0, help="busy processes during the run")
    parser.add_argument("--list", type=Path, help="write each game's outcome to this file")
    parser.add_argument("--compare", type=Path, help="a list from another run to compare with")
    parser.add_argument("--native", action="store_true", help="replay on native code too")
    parser.add_argument("--workers", type=int, default=1, help="games at a time")
    args = parser.parse_args()
    corpus = sorted(path.stem for path in (CORPUS / "games").glob("*.kif"))
    unknown = sorted(set(args.games) - set(corpus))
    if unknown:
        parser.error(f"not in the corpus ({CORPUS}): {' '.join(unknown)}")
    names = args.games or corpus
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    outcomes: dict[str, str] = {}
    reasons: Counter[str] = Counter()
    examples: dict[str, str] = {}
    longest = (0.0, "")
    start = time.perf_counter()
    try:
        with ProcessPoolExecutor(args.workers, max_tasks_per_child=1) as pool:
            futures = [pool.submit(outcome, name, args.native) for name in names]
            for future in futures:
                name, result, work, seconds, detail = future.result()
                outcomes[name] = result
                print(
                    f"{name}\t{result}\t{work:,} units\t{seconds:.2f} CPU-s\t{detail}", flush=True
                )
                if result != FAST:
                    kind = f"{result}: {kind_of(detail)}"
                    reasons[kind] += 1
                    examples.setdefault(kind, f"{name}: {detail}")
                    longest = max(longest, (seconds, name))
    finally:
        for process in busy:
            process.kill()
            process.wait()
    fast = sum(result == FAST for result in outcomes.values())
    print(
        f"\n{fast} of {len(names)} corpus games on the fast path ({100 * fast / len(names):.1f}%): "
        f"compiled within the default budget and replaying every recorded playout"
        + (" on native code" if args.native else "")
        + f"; {args.busy} busy processes; {time.perf_counter() - start:.0f} s"
    )
    for kind, count in reasons.most_common():
        print(f"{count:4} {kind}\n       e.g. {examples[kind][:200]}")
    if longest[1]:
        print(f"longest to give up: {longest[1]}, {longest[0]:.1f} s of CPU")
    if args.list:
        args.list.write_text("".join(f"{name}\t{outcomes[name]}\n" for name in names))
    if args.compare:
        other = dict(line.split("\t")[:2] for line in args.compare.read_text().splitlines() if line)
        differ = [name for name in names if other.get(name, outcomes[name]) != outcomes[name]]
        print(
            f"against {args.compare}: {len(differ)} games differ"
            + "".join(f"\n  {name}: {other[name]} there, {outcomes[name]} here" for name in differ)
        )


if __name__ == "__main__":
    main()
