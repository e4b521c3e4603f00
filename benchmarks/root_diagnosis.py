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
`player.worker_pool` sums them), under SEEDS seeds.  For each search it prints
the summed root statistics of the role on move (visits, mean, proven bounds),
the move the pool would play, and what the log's player played there.
With ``--values`` (``MOVE=VALUE,...``: the exact values of the moves, from a
solver of the game) it also tells whether the chosen move keeps the best value.
With ``--playouts N`` it first prints what the leaf evaluation alone says of
each move: the mover's mean reward over N random playouts from the state the
move leads to, over N greedy ones (`State.greedy_playouts`, every move) and over N
decisive ones (`State.decisive_playouts`, every move).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcts_enhancements import native_game, search_options  # noqa: E402

from games.base import Game, State  # noqa: E402
from player.mcts import MCTS  # noqa: E402
from player.worker_pool import combined_move, summed_statistics  # noqa: E402


def replay(game: Game, moves: list[list[str]], step: int) -> State:
    """The state of `game` after the first `step` joint moves of a match log."""
    if not 0 <= step < len(moves):
        raise SystemExit(f"step {step} is not a step of this match (0..{len(moves) - 1})")
    state = game.initial_state()
    for joint in moves[:step]:
        state = state.next(joint)
    return state


def mover(state: State) -> int:
    """The role on move (the one with more than one legal move; the first if none has)."""
    for role, moves in enumerate(state.all_legal_moves()):
        if len(moves) > 1:
            return role
    return 0


def search_answers(
    state: State, spec: str, simulations: int, trees: int, seed: int
) -> tuple[list[dict], float]:
    """The search answers of `trees` independent searches of `spec` (as workers
    answer: move and statistics of the role on move) and their CPU seconds."""
    role = mover(state)
    options = search_options(spec)
    answers = []
    cpu = time.process_time()
    for tree_index in range(trees):
        tree = MCTS(state, rng=random.Random(seed * 1000 + tree_index), **options)
        tree.search(iterations=simulations)
        answers.append(
            {
                "move": tree.best_move(role),
                "stats": [
                    [s.move, s.visits, s.value, s.lower, s.upper] for s in tree.statistics(role)
                ],
            }
        )
    return answers, time.process_time() - cpu


def flat_values(state: State, playouts: int, seed: int) -> list[tuple[str, float, float, float]]:
    """Per move of the mover: its mean reward over `playouts` random, greedy and
    decisive playouts from the state the move leads to (no tree)."""
    role = mover(state)
    legal = state.all_legal_moves()
    rng = random.Random(seed)
    rows = []
    for move in legal[role]:
        joint = [move if r == role else moves[0] for r, moves in enumerate(legal)]
        child = state.next(joint)
        if child.is_terminal():
            value = child.goals()[role] / 100
            rows.append((move, value, value, value))
            continue
        means = []
        for results in (
            child.random_playouts(rng, playouts),
            child.greedy_playouts(rng, playouts, GREEDY_EVERY_MOVE),
            child.decisive_playouts(rng, playouts, GREEDY_EVERY_MOVE),
        ):
            means.append(sum(goals[role] for goals, _ in results) / (100 * playouts))
        rows.append((move, *means))
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
    args = parser.parse_args()
    match = json.loads(args.log.read_text())
    name = args.game
    if name is None:
        rules = match.get("x-rules") or match.get("x-game")
        if rules is None:
            raise SystemExit("the log names no rules: give --game")
        name = rules
    game = native_game(name)
    state = replay(game, match["moves"], args.step)
    role = mover(state)
    played = match["moves"][args.step][role]
    values = parse_values(args.values)
    print(f"step {args.step}: {game.roles[role]} to move, played {played}")
    if args.playouts:
        print(f"\nflat mean reward of {game.roles[role]}, {args.playouts} playouts a move")
        print("  move           random  greedy  decisive")
        for move, *means in flat_values(state, args.playouts, 0):
            exact = f"  exact {values[move]:g}" if move in values else ""
            print(f"  {move:12} {means[0]:8.3f} {means[1]:7.3f} {means[2]:9.3f}{exact}")
    for spec in args.spec or ["c=0.35,solver=yes"]:
        for seed in range(args.seeds):
            answers, cpu = search_answers(state, spec, args.simulations, args.trees, seed)
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


if __name__ == "__main__":
    main()
