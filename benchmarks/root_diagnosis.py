"""What did the search think of a position of a played match? Root statistics on replay.

    python benchmarks/root_diagnosis.py MATCH.json --step 11 --simulations 100000
    python benchmarks/root_diagnosis.py MATCH.json --step 11 --simulations 50000 \
        --trees 2 --spec c=0.35,solver=yes --spec c=0.7,solver=yes --seeds 3

Replays a match log of the ggp.org format (``moves``: the joint move of every
step; ``x-rules`` or ``--game`` for the rules) on native code as ``ggp serve``'s
search workers play it, up to step STEP (0-based: the joint move about to be
chosen, its moves given by the log), and runs the search of every SPEC (``mcts``
agent options, see `benchmarks.mcts_enhancements.search_options`) from there:
TREES independent trees of SIMULATIONS each (root-parallel workers, summed as
`ggp.player.service.worker_pool` sums them), under SEEDS seeds.  For each search it prints
the summed root statistics of the role on move (visits, mean, proven bounds),
the move the pool would play, and what the log's player played there.
In a simultaneous-move game both roles are on move: ``--role`` names the one
shown (default: the first with more than one legal move); the flat values
below then average over the other roles' moves.  ``--depths`` adds the shape
of the first tree: its nodes at each depth below the root, and the visits
along its most visited line.
With ``--values`` (``MOVE=VALUE,...``: the exact values of the moves, from a
solver of the game) it also tells whether the chosen move keeps the best value.
With ``--playouts N`` it first prints what the leaf evaluation alone says of
each move: the mover's mean reward over N random playouts from the state the
move leads to, over N greedy ones (`playouts.Greedy`, every move) and over N
decisive ones (`playouts.Decisive`, every move).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ggp.games.base import Game, State  # noqa: E402
from ggp.games.playouts import RANDOM, Decisive, Greedy
from ggp.player.search import native_search
from ggp.player.search.mcts import MCTS  # noqa: E402
from ggp.player.service.worker_pool import combined_move, summed_statistics  # noqa: E402
from mcts_enhancements import log_game, native_game, search_options  # noqa: E402


def replay(game: Game, moves: list[list[str]], step: int) -> State:
    """The state of `game` after the first `step` joint moves of a match log."""
    if not 0 <= step < len(moves):
        raise SystemExit(f"step {step} is not a step of this match (0..{len(moves) - 1})")
    state = game.initial_state()
    for joint in moves[:step]:
        state = state.next(joint)
    return state


def mover(state: State, name: str | None = None) -> int:
    """The role shown: `name`'s index if given, else the role on move (the
    first with more than one legal move; the first role if none has)."""
    roles = state.game.roles
    if name is not None:
        if name not in roles:
            raise SystemExit(f"--role {name!r} is not a role of this game ({', '.join(roles)})")
        return roles.index(name)
    for role, moves in enumerate(state.all_legal_moves()):
        if len(moves) > 1:
            return role
    return 0


def tree_shape(tree: MCTS) -> tuple[list[int], list[int]]:
    """Nodes of `tree` at each depth below its root (root: depth 0), and the
    visits along its most visited line (each node's most visited child)."""
    per_depth: list[int] = []
    level = [tree.root]
    while level:
        per_depth.append(len(level))
        level = [child for node in level for child in node.children.values()]
    line = []
    node = tree.root
    while node.children:
        node = max(node.children.values(), key=lambda child: child.visits)
        line.append(node.visits)
    return per_depth, line


def search_answers(
    state: State, spec: str, simulations: int, trees: int, seed: int, role: int | None = None
) -> tuple[list[dict], float, MCTS]:
    """The search answers of `trees` independent searches of `spec` (as workers
    answer: move and statistics of `role`, by default the role on move), their
    CPU seconds and the first tree."""
    role = mover(state) if role is None else role
    options = search_options(spec)
    answers = []
    first = None
    cpu = time.process_time()
    for tree_index in range(trees):
        tree = MCTS(state, rng=random.Random(seed * 1000 + tree_index), **options)
        tree.search(iterations=simulations)
        first = first or tree
        answers.append(
            {
                "move": tree.best_move(role),
                "stats": [
                    [s.move, s.visits, s.value, s.lower, s.upper] for s in tree.statistics(role)
                ],
            }
        )
    return answers, time.process_time() - cpu, first


def flat_values(
    state: State, playouts: int, seed: int, role: int | None = None
) -> list[tuple[str, float, float, float]]:
    """Per move of `role` (by default the role on move): its mean reward over
    `playouts` random, greedy and decisive playouts from the states the move
    leads to (no tree), shared equally among the other roles' joint moves when
    they have a choice (a simultaneous move)."""
    role = mover(state) if role is None else role
    legal = state.all_legal_moves()
    others = [moves if r != role else (None,) for r, moves in enumerate(legal)]
    rng = random.Random(seed)
    rows = []
    for move in legal[role]:
        joints = [[move if m is None else m for m in joint] for joint in itertools.product(*others)]
        share = max(1, playouts // len(joints))
        totals = [0.0, 0.0, 0.0]
        for joint in joints:
            child = state.next(joint)
            if child.is_terminal():
                value = child.goals()[role] / 100
                totals = [total + value for total in totals]
                continue
            for k, results in enumerate(
                (
                    child.playouts(rng, share, RANDOM),
                    child.playouts(rng, share, Greedy(GREEDY_EVERY_MOVE)),
                    child.playouts(rng, share, Decisive(GREEDY_EVERY_MOVE)),
                )
            ):
                totals[k] += sum(goals[role] for goals, _ in results) / (100 * share)
        rows.append((move, *(total / len(joints) for total in totals)))
    return rows


GREEDY_EVERY_MOVE = 10_000
"""`greedy_playouts` and `decisive_playouts` plies: more than any playout here lasts."""


def parse_values(text: str | None) -> dict[str, float]:
    """The exact move values given as ``MOVE=VALUE,...``."""
    values: dict[str, float] = {}
    for item in (text or "").split(","):
        if item.strip():
            move, _, value = item.rpartition("=")
            if not move:
                raise SystemExit(f"--values: {item!r} is not MOVE=VALUE")
            values[move.strip()] = float(value)
    return values


def main() -> None:
    native_search.NATIVE_TREE = False  # the Python tree's nodes are walked here
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="match log (ggp.org JSON)")
    parser.add_argument("--step", type=int, required=True, help="0-based step to search")
    parser.add_argument("--game", help="corpus name or .kif path (default: the log's x-rules)")
    parser.add_argument("--spec", action="append", help="mcts options (default: serve's search)")
    parser.add_argument("--simulations", type=int, default=100_000, help="per tree")
    parser.add_argument("--trees", type=int, default=1, help="root-parallel trees, summed")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--values", help="exact move values MOVE=VALUE,... (for the mover)")
    parser.add_argument("--top", type=int, default=8, help="moves shown per search")
    parser.add_argument("--playouts", type=int, default=0, help="flat playouts a move (0: none)")
    parser.add_argument("--role", help="the role shown (default: the first on move)")
    parser.add_argument("--depths", action="store_true", help="show the first tree's shape")
    args = parser.parse_args()
    match = json.loads(args.log.read_text())
    game = native_game(args.game) if args.game else log_game(match)
    state = replay(game, match["moves"], args.step)
    role = mover(state, args.role)
    played = match["moves"][args.step][role]
    values = parse_values(args.values)
    print(f"step {args.step}: {game.roles[role]} to move, played {played}")
    if args.playouts:
        print(f"\nflat mean reward of {game.roles[role]}, {args.playouts} playouts a move")
        print("  move           random  greedy  decisive")
        for move, *means in flat_values(state, args.playouts, 0, role):
            exact = f"  exact {values[move]:g}" if move in values else ""
            print(f"  {move:12} {means[0]:8.3f} {means[1]:7.3f} {means[2]:9.3f}{exact}")
    for spec in args.spec or ["c=0.35,solver=yes"]:
        for seed in range(args.seeds):
            answers, cpu, tree = search_answers(
                state, spec, args.simulations, args.trees, seed, role
            )
            move = combined_move(answers)
            rows = summed_statistics(answers)
            verdict = ""
            if values:
                best = max(values.values())
                verdict = " keeps the value" if values.get(move) == best else " LOSES VALUE"
            print(
                f"\n{spec}, {args.trees} x {args.simulations} simulations, seed {seed}: "
                f"plays {move}{verdict} ({cpu:.1f} CPU s)"
            )
            for row_move, visits, mean, lower, upper in rows[: args.top]:
                exact = f"  exact {values[row_move]:g}" if row_move in values else ""
                print(
                    f"  {row_move:12} {visits:8d} {mean:.3f}  proven [{lower:g}, {upper:g}]{exact}"
                )
            if args.depths:
                per_depth, line = tree_shape(tree)
                print(f"  first tree: nodes at depth 0.. {' '.join(map(str, per_depth))}")
                print(f"  its most visited line: visits {' '.join(map(str, line))}")


if __name__ == "__main__":
    main()
