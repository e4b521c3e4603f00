"""GDL-II strength: MATCHES matches of a GDL-II game, the first seat's score with its 95%
interval, and how often it played each move (Monty Hall: how often it switched).

    python benchmarks/gdl2_matches.py monty_hall ismcts:iterations=300 --matches 300
    python benchmarks/gdl2_matches.py blind_tictactoe ismcts:iterations=500 random \\
        --matches 100 --swap

The agents play in this process, one per role but chance (the referee moves it);
with --swap two agents change seats every match and the score is the first
agent's over both seats.  Prints the load (uptime) and the CPU seconds beside the
figures; with --out the figures are written as JSON too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from collections import Counter
from pathlib import Path

from ggp.games.registry import load_game
from ggp.player.agents import make_agent
from ggp.server.match import derive_seed, play_match
from ggp.server.stats import wilson_interval


def run(game_spec: str, specs: list[str], matches: int, swap: bool, seed: int) -> dict:
    """Play the matches; the first agent's score, interval, and moves played by step."""
    game = load_game(game_spec)
    seats = [i for i, _ in enumerate(game.roles) if i != game.random_role]
    if len(specs) != len(seats):
        raise SystemExit(f"{game.name}: give one agent per role but random ({len(seats)})")
    total = 0.0
    moves: Counter[tuple[int, str]] = Counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    for index in range(matches):
        order = list(range(len(specs)))
        if swap and index % 2 == 1:
            order.reverse()
        agents = [make_agent(specs[i], derive_seed(seed, index, i)) for i in order]
        record = play_match(game, agents, seed=derive_seed(seed, index))
        assert record.goals is not None
        ours = seats[order.index(0)]
        total += record.goals[ours] / 100
        for step, joint in enumerate(record.moves):
            legal = record.states[step].legal_moves(ours)
            if len(legal) > 1:
                moves[step, joint[ours]] += 1
    used = resource.getrusage(resource.RUSAGE_SELF)
    low, high = wilson_interval(total, matches)
    return {
        "game": game.name,
        "agents": specs,
        "matches": matches,
        "swap": swap,
        "seed": seed,
        "score": total / matches,
        "interval": [low, high],
        "moves": {f"{step} {move}": count for (step, move), count in sorted(moves.items())},
        "cpu_seconds": (used.ru_utime + used.ru_stime) - (cpu.ru_utime + cpu.ru_stime),
        "load": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a GDL-II game: monty_hall, blind_tictactoe, kuhn_poker")
    parser.add_argument("agents", nargs="+", help="one agent spec per role but random")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--swap", action="store_true", help="two agents change seats")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    figures = run(args.game, args.agents, args.matches, args.swap, args.seed)
    low, high = figures["interval"]
    print(f"{figures['game']}: {' vs '.join(args.agents)}, {args.matches} matches")
    print(f"score of {args.agents[0]}: {figures['score']:.3f} (95% interval {low:.3f}-{high:.3f})")
    for key, count in figures["moves"].items():
        step, move = key.split(" ", 1)
        print(f"  step {step}: {move} {count} times")
    load = " ".join(f"{value:.2f}" for value in figures["load"])
    print(f"{figures['cpu_seconds']:.1f} CPU seconds; load average {load}")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
