"""The native reasoner beside another reasoner's figures, per CPU-second.

    python benchmarks/reasoner_vs_external.py --external FILE [GAME ...] \
        [--seconds 1] [--rounds 3] [--json OUT]
    python benchmarks/reasoner_vs_external.py --external FILE --ours OUT

`FILE` holds the other reasoner's figures, measured by whoever ran it (this
script runs no other program and reads no other program's code): JSON,
``{"reasoner": NAME, "games": {GAME: {"states_per_cpu_s": X, "ready_cpu_s":
Y}, ...}}`` (other keys are kept as notes), or CSV with the columns ``game,
states_per_cpu_s, ready_cpu_s``.  A game the other reasoner could not run has
no ``states_per_cpu_s`` (and may have an ``error``).

For each game (default: `GAMES`), this process measures the native reasoner
as a player gets it: the rules read, grounded and compiled within the
default work budget, and the C library built from an empty cache; "ready" is
the CPU time of all that, the C compiler's included.  Then random playouts
from the initial state, one a call (`playouts.Random`, what gdl-perf's
loop and a search with one playout a leaf do) and `BATCH` a call
(`playouts.Random`): states (joint moves played) per CPU-second of this
process, the median of `--rounds` rounds, the rounds interleaved over the
games so that the machine's load falls on all alike.  Prints per game both
figures, the ratios to the other reasoner's states per CPU-second, the ready
CPU seconds, and the geometric mean of the ratios over the games both ran.
``--json`` keeps our figures (every round), and ``--ours`` prints the table from
such a file again, beside another file of figures, without measuring.
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import math
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ggp.games.base import GameError, State
from ggp.games.playouts import RANDOM
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.native import build
from ggp.gdl.native.attach import attach_native
from ggp.gdl.network.grounding import GroundingError

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus"
GAMES = [
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "nineBoardTicTacToe",
    "reversi",
    "hex",
    "othello-comp2007",
    "amazons_8x8",
    "speedChess",
    "checkers",
    "knightThrough",
    "knightfight",
    "dotsAndBoxes",
    "sheepAndWolf",
    "chineseCheckers6",
]
"""Issue 36's ten games and five more from the corpus."""
BATCH = 16


@dataclass
class External:
    """One game's figures from the other reasoner's file."""

    states: float | None
    ready: float | None
    note: str = ""


def read_external(path: Path) -> tuple[str, dict[str, External]]:
    """The other reasoner's name and figures per game, from JSON or CSV (module doc)."""
    if path.suffix.lower() == ".csv":
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        name = path.stem
        entries = {row["game"]: row for row in rows}
    else:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("games"), dict):
            raise ValueError(f"{path}: expected an object with a 'games' object")
        name = str(data.get("reasoner", path.stem))
        entries = data["games"]
    figures = {}
    for game, entry in entries.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: {game}: expected an object of figures")
        figures[game] = External(
            _number(entry.get("states_per_cpu_s")),
            _number(entry.get("ready_cpu_s")),
            str(entry.get("error") or entry.get("note") or ""),
        )
    return name, figures


def _number(value: object) -> float | None:
    if value in (None, ""):
        return None
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"not a figure: {value!r}")
    return number


@dataclass
class Ours:
    """One game's native reasoner: how it was made ready, and its rounds."""

    name: str
    state: State | None = None
    ready: float | None = None
    note: str = ""
    one: list[float] = field(default_factory=list)
    batched: list[float] = field(default_factory=list)


def cpu_with_children() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def make_ready(path: Path) -> Ours:
    """The game on native code, as a player makes it ready, built from an empty cache."""
    ours = Ours(path.stem)
    start = cpu_with_children()
    game = GdlGame.from_file(path)
    try:
        rules = compile_rules(game.strata, game.role_terms)
    except GroundingError as error:
        ours.note = f"interpreter: {error}"
        return ours
    compiled = CompiledGame.from_game(game, rules)
    with tempfile.TemporaryDirectory() as cache:
        previous = os.environ.get(build.CACHE_ENV)
        os.environ[build.CACHE_ENV] = cache
        try:
            attach_native(compiled)
        except build.NativeUnavailable as error:
            ours.note = f"no native code: {error}"
            return ours
        finally:
            if previous is None:
                del os.environ[build.CACHE_ENV]
            else:
                os.environ[build.CACHE_ENV] = previous
    ours.ready = cpu_with_children() - start
    ours.state = compiled.initial_state()
    if rules.goals_left:
        ours.note = "goals by the interpreter (past the budget)"
    return ours


CLOCK_EVERY = 0.01
"""CPU seconds of calls between two readings of the CPU clock (`states_per_cpu_second`)."""


def states_per_cpu_second(playouts: Callable[[], list[tuple]], seconds: float) -> float:
    """States per CPU-second of this process over at least `seconds` of calls.

    The CPU clock is read once a chunk of calls lasting about `CLOCK_EVERY`, not
    after each call: reading it costs about 1.4 us here (a system call), a
    third of a one-playout ticTacToe call, and is the benchmark's cost, not the
    reasoner's."""
    steps = 0
    chunk = 1
    start = last = time.process_time()
    while True:
        for _ in range(chunk):
            steps += sum(length for _, length in playouts())
        now = time.process_time()
        if now - start >= seconds:
            return steps / (now - start)
        if now - last < CLOCK_EVERY:
            chunk *= 2
        last = now


def measure(games: list[Ours], seconds: float, rounds: int) -> None:
    """`rounds` rounds over every game in turn, one a call and `BATCH` a call."""
    for round_ in range(rounds):
        for ours in games:
            state = ours.state
            if state is None:
                continue
            rng = random.Random(round_)
            one = functools.partial(state.playouts, rng, 1, RANDOM)
            batched = functools.partial(state.playouts, rng, BATCH, RANDOM)
            try:
                ours.one.append(states_per_cpu_second(one, seconds))
                ours.batched.append(states_per_cpu_second(batched, seconds))
            except GameError as error:  # the rules break in some playouts: not a figure
                ours.state, ours.one, ours.batched = None, [], []
                ours.note = f"a playout broke the rules: {str(error)[:80]}"


def geometric_mean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _figure(value: float | None, form: str = ",.0f", unit: str = "") -> str:
    return "-" if value is None else format(value, form) + unit


def table(games: list[Ours], name: str, external: dict[str, External]) -> list[str]:
    """The Markdown table, geometric means last."""
    lines = [
        f"| game | ours states/CPU-s | ours x{BATCH} a call | {name} states/CPU-s "
        f"| ratio | ratio x{BATCH} | ours ready CPU-s | {name} ready CPU-s | note |",
        "|---" * 9 + "|",
    ]
    ratios: list[float] = []
    batched_ratios: list[float] = []
    for ours in games:
        theirs = external.get(ours.name, External(None, None, "not in the file"))
        one = statistics.median(ours.one) if ours.one else None
        batched = statistics.median(ours.batched) if ours.batched else None
        ratio = batched_ratio = None
        if one is not None and batched is not None and theirs.states:
            ratio, batched_ratio = one / theirs.states, batched / theirs.states
            ratios.append(ratio)
            batched_ratios.append(batched_ratio)
        notes = "; ".join(
            note for note in (ours.note, f"{name}: {theirs.note}" if theirs.note else "") if note
        )
        lines.append(
            f"| {ours.name} | {_figure(one)} | {_figure(batched)} | {_figure(theirs.states)} "
            f"| {_figure(ratio, '.2f', 'x')} | {_figure(batched_ratio, '.2f', 'x')} "
            f"| {_figure(ours.ready, '.2f')} | {_figure(theirs.ready, '.2f')} | {notes} |"
        )
    mean, batched_mean = geometric_mean(ratios), geometric_mean(batched_ratios)
    lines.append(
        f"| geometric mean ({len(ratios)} games) | | | | {_figure(mean, '.2f', 'x')} "
        f"| {_figure(batched_mean, '.2f', 'x')} | | | |"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="corpus games (default: issue 36's fifteen)")
    parser.add_argument("--external", type=Path, required=True, help="the other's figures")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a measure")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the GDL corpus folder")
    parser.add_argument("--json", type=Path, help="also write our figures here")
    parser.add_argument(
        "--ours", type=Path, help="print the table from figures --json wrote (no measuring)"
    )
    args = parser.parse_args(argv)
    name, external = read_external(args.external)
    if args.ours:
        games = read_ours(args.ours)
    else:
        games = []
        for game in args.games or GAMES:
            path = args.corpus / "games" / f"{game}.kif"
            if not path.is_file():
                parser.error(f"no game {game!r} in {args.corpus}")
            games.append(make_ready(path))
            print(f"{game}: ready ({_figure(games[-1].ready, '.2f')} CPU-s)", file=sys.stderr)
        measure(games, args.seconds, args.rounds)
        print(f"load: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    print("\n".join(table(games, name, external)))
    if args.json:
        args.json.write_text(json.dumps(figures_of(games), indent=1))


def figures_of(games: list[Ours]) -> dict:
    """Our figures as --json writes them (each round's, so that --ours reads them back)."""
    return {
        "reasoner": "ggp native",
        "load": list(os.getloadavg()),
        "games": {
            ours.name: {
                "states_per_cpu_s": statistics.median(ours.one) if ours.one else None,
                f"states_per_cpu_s_x{BATCH}": (
                    statistics.median(ours.batched) if ours.batched else None
                ),
                "ready_cpu_s": ours.ready,
                "rounds": ours.one,
                f"rounds_x{BATCH}": ours.batched,
                "note": ours.note,
            }
            for ours in games
        },
    }


def read_ours(path: Path) -> list[Ours]:
    """Our figures from a file --json wrote."""
    games = json.loads(path.read_text())["games"]
    return [
        Ours(
            name,
            ready=entry["ready_cpu_s"],
            note=entry["note"],
            one=entry["rounds"],
            batched=entry[f"rounds_x{BATCH}"],
        )
        for name, entry in games.items()
    ]


if __name__ == "__main__":
    main()
