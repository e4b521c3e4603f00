"""How often does the served search keep a position's exact value? Graded on logged positions.

    python benchmarks/position_accuracy.py build LOG.json [LOG.json ...] \\
        --solver /tmp/connect4_solver --discs 8-24 [--opponent] --out positions.json
    python benchmarks/position_accuracy.py grade positions.json --cpu 1 --seeds 3 \\
        [--spec serve --spec c=0.7 --spec final=mean ...] [--limit N] [--out grades.json]

``build`` reads match logs (ggp.org JSON) of the corpus's connectFour and
connectFourSimultaneous, finds every step where our player (the role whose URL
is not an opponent's port, ``--opponent-ports``) chose a drop on a board holding
a number of discs in ``--discs``, and asks the exact solver
(benchmarks/connect4_solver.c, built) for the value of each of our drops there
(+1 win, 0 draw, -1 loss for us under perfect play; on the simultaneous game the
value on the board we drop on, the other board left aside: each board is an
ordinary turn-taking game, see benchmarks/simultaneous_boards.py).  A position
is kept when some drop keeps a better value than another throws away (a choice
that matters) and the solver answered within ``--timeout``; ``--out`` is written
again after each kept position, so a build stopped early keeps what it found.  A
decision left out is named on stderr with the reason: not solved in time, or
every drop of one value (``every drop -1``: the match was already lost there, so
the lines tell where a lost match was decided).  With ``--opponent`` the positions
are the opponent's decisions instead (how well did Sancho choose where we did?).
``build`` ends by saying how often the move played in the match kept the best
value, over all and per role.  Only ``build`` knows Connect Four.

``grade`` replays each position on native code (the log's rules) and searches it
as ``ggp serve``'s search worker does at a fixed CPU budget (``--cpu`` seconds of
this thread, or ``--simulations``), from a fresh tree: where the roles' moves
are independent (`ggp.player.search.factored.independent_choices`), the tree
over our part (`SearchWorker._part_tree`); otherwise the tree of joint moves
with the worker's defaults (decisive playouts where `decisive_suits` says so).
It does not run the races, the exact solver's traps, the tactics, pondering or
tree reuse.  A move is right if its exact value is the position's best.  Each
SPEC changes the tree (``key=value,...``: ``c``, ``final`` (visits or
mean), ``transpose``, ``decisive``, ``solver``, ``part_playouts``,
``part_decisive`` (`SEARCH_PART_DECISIVE`), ``bounded`` (the score-bounded
search; not in a tree over a part), and ``batch``, the playouts a leaf,
`Game.playout_batch`, measured when the native code is attached;
``serve`` alone is the worker's search unchanged).  It prints, per SPEC, the
share of right moves over positions x seeds with its 95% Wilson interval, per
game and over all, the simulations per position, and the load; and per SPEC
after the first, position by position against the first: where it was right
more often over the seeds, less often, as often, with the sign test's p (the
seeds of a position mostly agree, so the interval over searches overstates the
evidence; the positions are the sample).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ggp.games.base import Game, State  # noqa: E402
from ggp.player.search.factored import independent_choices  # noqa: E402
from ggp.player.search.mcts import MCTS  # noqa: E402
from ggp.player.service.search_worker import (  # noqa: E402
    SEARCH_C,
    SEARCH_PART_PLAYOUTS,
    SEARCH_SHALLOW,
    SEARCH_SOLVER,
)
from ggp.player.service.serve_playouts import (  # noqa: E402
    SEARCH_DECISIVE,
    ServePlayout,
    decisive_suits,
    part_decisive_suits,
)
from ggp.server.stats import sign_test, wilson_interval  # noqa: E402
from mcts_enhancements import log_game  # noqa: E402
from root_diagnosis import replay  # noqa: E402
from seat_scores import our_seat  # noqa: E402
from simultaneous_boards import board_sequences, exact, parse_move  # noqa: E402

OPPONENT_PORTS = "9160,9161,9170,9301,9302"
"""The ports Sancho listened on in docs/strength/logs/sancho-*: the other URL is ours."""

CHUNK = 32
"""Simulations searched between two looks at the CPU clock."""


@dataclass(frozen=True)
class Position:
    """A logged decision of one player (`role`) and the exact value of each of its
    legal moves."""

    log: str
    step: int
    role: int
    values: dict[str, int]
    played: str
    game: str
    discs: int

    def right(self, move: str) -> bool:
        """Whether `move` keeps the position's best value."""
        return self.values.get(move) == max(self.values.values())

    def as_json(self) -> dict:
        return self.__dict__

    @classmethod
    def from_json(cls, data: dict) -> Position:
        return cls(**data)


def decisions(match: dict, role: int) -> Iterable[tuple[int, int, str, str]]:
    """`role`'s drops in a Connect Four log: (step, board, the board's columns before,
    move).  Board 0 is connectFour's one board; on the simultaneous game, the board
    dropped on."""
    moves = match["moves"]
    for step, joint in enumerate(moves):
        move = joint[role]
        if move == "noop":
            continue
        words = move.strip("() ").split()
        if len(words) == 2:  # connectFour: one board, the turn-taking drops in order
            columns = "".join(
                j[r].strip("() ").split()[1] for j in moves[:step] for r in (0, 1) if j[r] != "noop"
            )
            yield step, 0, columns, move
        else:
            _, board = parse_move(move)
            yield step, board, board_sequences(moves[:step])[board][0] if step else "", move


def move_name(board: int, column: int) -> str:
    """Our drop in `column` on `board` (0: connectFour's one board)."""
    return f"(drop {column} {board})" if board else f"(drop {column})"


def build(
    paths: list[Path],
    solver: Path,
    discs: range,
    timeout: float,
    opponent_ports: set[int],
    keep: Callable[[list[Position]], None] = lambda found: None,
    opponent: bool = False,
) -> list[Position]:
    """The positions of the logs at `paths` (see the module), our decisions or, with
    `opponent`, the opponent's.  `keep` is given the positions found so far after
    each one, so that a build stopped early loses none.  Each decision left out says
    why on stderr: not solved in time, or every drop of one value (the match already
    decided there, or nothing to choose)."""
    found: list[Position] = []
    for path in paths:
        match = json.loads(path.read_text())
        role = our_seat(match, opponent_ports)
        if role is None:
            print(f"{path}: which player is ours is not clear, left out", file=sys.stderr)
            continue
        if opponent:
            role = 1 - role
        game = Path(match.get("x-game", path.name.split(".")[0])).stem
        for step, board, columns, move in decisions(match, role):
            if len(columns) not in discs:
                continue
            values = exact(solver, columns, timeout)
            if values is None:
                print(f"{path.name} step {step}: not solved in {timeout:g} s", file=sys.stderr)
                continue
            if len(set(values.values())) < 2:
                value = next(iter(values.values()), None)
                print(f"{path.name} step {step}: every drop {value}, left out", file=sys.stderr)
                continue
            found.append(
                Position(
                    log=str(path),
                    step=step,
                    role=role,
                    values={move_name(board, c): v for c, v in values.items()},
                    played=move,
                    game=game,
                    discs=len(columns),
                )
            )
            print(f"{path.name} step {step}: {found[-1].values}", file=sys.stderr)
            keep(found)
    return found


def played_right(positions: list[Position]) -> str:
    """How often the move played in the match kept the position's best value, over
    all and per role."""
    lines = [f"the moves played in the matches: {tally(positions)}"]
    for role in sorted({p.role for p in positions}):
        lines.append(f"  as role {role}: {tally([p for p in positions if p.role == role])}")
    return "\n".join(lines)


def tally(positions: list[Position]) -> str:
    if not positions:
        return "no position"
    right = sum(p.right(p.played) for p in positions)
    low, high = wilson_interval(right, len(positions))
    return (
        f"right at {right} of {len(positions)} ({right / len(positions):.2f}, {low:.2f}-{high:.2f})"
    )


def parse_spec(spec: str) -> dict[str, str]:
    if spec == "serve":
        return {}
    pairs = [item.partition("=") for item in spec.split(",") if item]
    if any(not key or not sep for key, sep, _ in pairs):
        raise SystemExit(f"spec {spec!r}: give key=value,... or serve")
    return {key: value for key, _, value in pairs}


def yes(value: str) -> bool:
    if value not in ("yes", "no"):
        raise SystemExit(f"{value!r}: yes or no")
    return value == "yes"


def served_tree(state: State, role: int, spec: dict[str, str], rng: random.Random) -> MCTS:
    """The tree `ggp serve`'s search worker would search `role`'s move with at
    `state` (fresh), changed as `spec` says."""
    never = lambda: False  # noqa: E731
    common: dict = {
        "c": float(spec.get("c", SEARCH_C)),
        "final": spec.get("final", "visits"),
        "rng": rng,
        "broken_rules": True,
        "transpose": yes(spec.get("transpose", "no")),
    }
    if independent_choices(state):
        part = frozenset(state.legal_moves(role))
        part_playouts = yes(spec.get("part_playouts", "yes" if SEARCH_PART_PLAYOUTS else "no"))
        decisive = yes(spec.get("part_decisive", "yes" if part_decisive_suits(part) else "no"))
        return MCTS(
            state,
            solver=yes(spec.get("solver", "yes" if SEARCH_SOLVER else "no")) and part_playouts,
            part=part,
            part_playouts=part_playouts,
            evaluator=ServePlayout(SEARCH_DECISIVE if decisive else 0, never),
            **common,
        )
    decisive = yes(spec.get("decisive", "yes" if decisive_suits(state.game) else "no"))
    return MCTS(
        state,
        solver=yes(spec.get("solver", "yes" if SEARCH_SOLVER else "no")),
        bounded=yes(spec.get("bounded", "no")),
        shallow=SEARCH_SHALLOW,
        evaluator=ServePlayout(SEARCH_DECISIVE if decisive else 0, never),
        **common,
    )


def search(tree: MCTS, cpu: float | None, simulations: int | None) -> int:
    """Search `tree` for `cpu` seconds of this thread or `simulations`; the simulations run."""
    if simulations is not None:
        return tree.search(iterations=simulations)
    assert cpu is not None
    began, sims = time.thread_time(), 0
    while time.thread_time() - began < cpu:
        done = tree.search(iterations=CHUNK)
        sims += done
        if done < CHUNK:  # proven or terminal: nothing more to search
            break
    return sims


@dataclass
class Grade:
    right: int = 0
    trials: int = 0
    sims: int = 0
    outcomes: list[int] = field(default_factory=list)
    """1 (right) or 0 per position and seed, in that order (for paired comparisons)."""

    def add(self, right: bool, sims: int) -> None:
        self.right += right
        self.trials += 1
        self.sims += sims
        self.outcomes.append(int(right))

    def describe(self) -> str:
        low, high = wilson_interval(self.right, self.trials)
        share = self.right / self.trials if self.trials else 0.0
        sims = self.sims // max(1, self.trials)
        return f"{share:.3f} ({low:.2f}-{high:.2f}) of {self.trials}, {sims} simulations each"


def grade(
    positions: list[Position],
    spec: str,
    seeds: int,
    cpu: float | None,
    simulations: int | None,
    games: Callable[[dict], Game],
) -> dict[str, Grade]:
    """The grades of `spec` per game and over all (key ``all``)."""
    grades: dict[str, Grade] = {"all": Grade()}
    options = parse_spec(spec)
    for index, position in enumerate(positions):
        match = json.loads(Path(position.log).read_text())
        game = games(match)
        state = replay(game, match["moves"], position.step)
        batch = game.playout_batch
        game.playout_batch = int(options.get("batch", batch))
        for seed in range(seeds):
            tree = served_tree(state, position.role, options, random.Random(seed * 7919 + index))
            sims = search(tree, cpu, simulations)
            right = position.right(tree.best_move(position.role))
            grades["all"].add(right, sims)
            grades.setdefault(position.game, Grade()).add(right, sims)
        game.playout_batch = batch
    return grades


def paired(first: Grade, other: Grade, seeds: int) -> str:
    """`other` against `first` position by position: the positions where it was
    right more often over the seeds, less often, as often, and the sign test's p.

    The seeds of one position mostly agree, so the positions, not the searches,
    are the sample: an interval over searches overstates the evidence."""
    if len(first.outcomes) != len(other.outcomes):
        raise ValueError("paired grades need the same positions and seeds")
    better = worse = 0
    for start in range(0, len(first.outcomes), seeds):
        difference = sum(other.outcomes[start : start + seeds]) - sum(
            first.outcomes[start : start + seeds]
        )
        better += difference > 0
        worse += difference < 0
    same = len(first.outcomes) // seeds - better - worse
    p = sign_test(better, worse)
    return f"better at {better}, worse at {worse}, same at {same} (sign test p {p:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="positions from Connect Four logs")
    make.add_argument("logs", type=Path, nargs="+")
    make.add_argument("--solver", type=Path, required=True)
    make.add_argument("--discs", default="8-24", help="discs on the board, FROM-TO")
    make.add_argument("--timeout", type=float, default=20.0, help="solver seconds a position")
    make.add_argument("--opponent-ports", default=OPPONENT_PORTS)
    make.add_argument("--opponent", action="store_true", help="the opponent's decisions, not ours")
    make.add_argument("--out", type=Path, required=True)
    judge = commands.add_parser("grade", help="grade the search on positions")
    judge.add_argument("positions", type=Path)
    judge.add_argument("--spec", action="append", help="tree changes (default: serve)")
    judge.add_argument("--seeds", type=int, default=3)
    budget = judge.add_mutually_exclusive_group()
    budget.add_argument("--cpu", type=float, help="CPU seconds a search (default 1)")
    budget.add_argument("--simulations", type=int, help="simulations a search")
    judge.add_argument("--limit", type=int, help="the first N positions only")
    judge.add_argument("--out", type=Path, help="write the grades as JSON")
    args = parser.parse_args()
    if args.command == "build":
        first, _, last = args.discs.partition("-")
        ports = {int(port) for port in args.opponent_ports.split(",")}

        def write(found: list[Position]) -> None:
            args.out.write_text(json.dumps([p.as_json() for p in found], indent=1) + "\n")

        discs = range(int(first), int(last or first) + 1)
        found = build(args.logs, args.solver, discs, args.timeout, ports, write, args.opponent)
        write(found)
        print(f"{len(found)} positions from {len(args.logs)} logs -> {args.out}")
        print(played_right(found))
        return
    positions = [Position.from_json(p) for p in json.loads(args.positions.read_text())]
    positions = positions[: args.limit] if args.limit else positions
    cpu = None if args.simulations else (args.cpu or 1.0)
    results = {}
    first: dict[str, Grade] = {}
    for spec in args.spec or ["serve"]:
        load = os.getloadavg()[0]
        grades = grade(positions, spec, args.seeds, cpu, args.simulations, log_game)
        after = os.getloadavg()[0]
        budget = f"{cpu:g} CPU-s" if cpu else f"{args.simulations} simulations"
        print(f"{spec} ({budget} a search, {args.seeds} seeds, load {load:.1f} to {after:.1f}):")
        for name, found in grades.items():
            print(f"  {name:24} {found.describe()}")
        if first:
            print(f"  positions against {(args.spec or ['serve'])[0]}:")
            for name, found in grades.items():
                print(f"  {name:24} {paired(first[name], found, args.seeds)}")
        else:
            first = grades
        results[spec] = {
            "load": [load, after],
            **{name: found.__dict__ for name, found in grades.items()},
        }
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
