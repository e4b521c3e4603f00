"""What a playout rule costs: playouts per CPU-second from a game's initial state.

    python benchmarks/playout_cost.py --game connectFour --variant greedy=1 \
        --variant decisive=1 --variant decisive=4

For uniformly random playouts and each variant (``mcts`` agent options, of
which ``greedy=N`` and ``decisive=N`` change the playouts, and ``finish=N``
the moves they look at for wins; or ``part=N``, where the roles move at once on
separate parts: the playouts of the part of the first role with a choice, the
others frozen, decisive in the part for N moves, as ``ggp serve``'s trees over
parts play them with N = 1000), runs batches of
`--batch` playouts from the initial state of a GDL game on native code, the
rules alternating in `--rounds` rounds of `--seconds` CPU-seconds each in this
process (so that the machine's load falls on all alike), and prints the
playouts per CPU-second, their ratio to random ones and the mean moves of a
playout.  What they cost the search (MCTS iterations per CPU-second) is
``mcts_enhancements.py --native --games 0``'s speed table.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from ggp.games import playouts
from ggp.games.base import Game, PlayoutResult, State
from ggp.player.agents import make_agent
from ggp.player.search.factored import independent_choices
from mcts_enhancements import native_game

RANDOM = "random"
"""The name of uniformly random playouts in the table."""


def playout_rule(
    variant: str, game: Game
) -> Callable[[State, random.Random, int], list[PlayoutResult]]:
    """The playouts a variant's search runs from a leaf
    (`ggp.player.search.evaluation.RandomPlayout`); with ``finish=N``, the finishing
    moves are learnt first, as the agent learns them."""
    if variant == RANDOM:
        return lambda state, rng, count: state.playouts(rng, count, playouts.RANDOM)
    if variant.startswith("part="):
        return part_rule(game, int(variant.removeprefix("part=")))
    agent = make_agent(f"mcts:{variant}", seed=0)
    agent.start(game, 0)
    finishers = agent.finishers
    if agent.decisive:
        policy = playouts.Decisive(agent.decisive, finishers)
        return lambda state, rng, count: state.playouts(rng, count, policy)
    if agent.greedy:
        policy = playouts.Greedy(agent.greedy, finishers)
        return lambda state, rng, count: state.playouts(rng, count, policy)
    raise SystemExit(f"{variant}: neither greedy=N nor decisive=N, the same as random playouts")


def part_rule(
    game: Game, decisive: int
) -> Callable[[State, random.Random, int], list[PlayoutResult]]:
    """``part=N``: the playouts of one part (`playouts.Part`) from the initial state."""
    state = game.initial_state()
    if not independent_choices(state):
        raise SystemExit(f"part={decisive}: the roles' moves do not act on separate parts here")
    legal = state.all_legal_moves()
    part = frozenset(next(moves for moves in legal if len(moves) > 1))
    policy = playouts.Part(part, decisive)
    return lambda state, rng, count: state.playouts(rng, count, policy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="default: connectFour, breakthrough")
    parser.add_argument("--variant", action="append", default=[], help="e.g. decisive=4")
    parser.add_argument("--batch", type=int, default=100, help="playouts a call")
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU-seconds a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    variants = [RANDOM, *args.variant]
    print("| game | playouts | playouts/CPU-s | ratio | mean moves |\n|---|---|---|---|---|")
    for name in args.game or ["connectFour", "breakthrough"]:
        game = native_game(name)
        rules = {variant: playout_rule(variant, game) for variant in variants}
        state = game.initial_state()
        done = dict.fromkeys(variants, 0)
        moves = dict.fromkeys(variants, 0)
        cpu = dict.fromkeys(variants, 0.0)
        for round_ in range(args.rounds):
            for variant, rule in rules.items():
                rng = random.Random(round_)
                began = time.process_time()
                while time.process_time() - began < args.seconds:
                    results = rule(state, rng, args.batch)
                    done[variant] += len(results)
                    moves[variant] += sum(steps for _, steps in results)
                cpu[variant] += time.process_time() - began
        base = done[RANDOM] / cpu[RANDOM]
        for variant in variants:
            rate = done[variant] / cpu[variant]
            print(
                f"| {name} | {variant} | {rate:,.0f} | {rate / base:.2f} | "
                f"{moves[variant] / done[variant]:.1f} |"
            )


if __name__ == "__main__":
    main()
