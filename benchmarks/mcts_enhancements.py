"""Do the MCTS enhancements win? Each against plain UCT, at equal time or iterations.

    python benchmarks/mcts_enhancements.py --games 60 --time 0.1 --jobs 2
    python benchmarks/mcts_enhancements.py --games 60 --iterations 500 --gdl
    python benchmarks/mcts_enhancements.py --native --game connectFour --time 0.5
    python benchmarks/mcts_enhancements.py --native --game connectFour --time 0.5 \
        --baseline c=0.35,solver=yes --variant c=0.35,solver=yes,transpose=yes

For every game and every variant (agent options added to ``mcts``), plays
GAMES matches of the variant against plain UCT (``mcts:solver=no,mast=no``;
``--baseline`` gives other options, ``ggp serve``'s search for one) through
the tournament referee, seats swapped every other match, and prints the
variant's score (mean of goal/100, a draw counting half) with its 95%
Wilson interval.  Both agents of a match take turns in one process, so the
load of a shared machine falls on both alike at equal time.  Then the cost of
each variant: simulations per CPU-second of a search from the initial state,
variant and baseline alternating in rounds in this process, and their ratio.
With ``--out FILE`` the figures are also written as JSON.

``--native`` plays as ``ggp serve``'s search workers do: a GDL game (a corpus
name, a ``.kif`` path or a built-in game's twin) on native code, waited for
before the first match; the matches are then played by a plain loop in this
process (the tournament referee would load the game again on the Python
reasoners), both agents on the one game object.  In a game of more than two roles
the variant holds one seat, going round the seats from match to match, and the
baseline every other; the score is the variant's mean goal, beside the baseline's
in the same seats (``baseline in its seats``), and wins are the matches where the
variant's goal was the highest:

    python benchmarks/mcts_enhancements.py --native --game chineseCheckers3 --time 0.3 \
        --games 24 --speed-seconds 0 --baseline c=0.35,solver=yes,decisive=1000 \
        --variant c=0.35,solver=no,decisive=1000
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import time
from pathlib import Path

from ggp.games.base import Game
from ggp.games.playouts import Guide
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.load import game_from_file, game_from_text
from ggp.player.agents import make_agent
from ggp.player.search.heuristic import CutoffPlayout
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import MCTS
from ggp.server.match import derive_seed
from ggp.server.stats import wilson_interval
from ggp.server.tournament import cached_game, run_tournament, seating

CORPUS_GAMES = Path(__file__).resolve().parent.parent.parent / "shared" / "gdl-corpus" / "games"
TWINS = Path(__file__).resolve().parent.parent / "games" / "gdl"

PLAIN = "solver=no,mast=no"
VARIANTS = ("solver=yes,mast=no", "solver=no,mast=yes", "solver=yes,mast=yes")


def search_options(variant: str) -> dict[str, object]:
    """The `MCTS` arguments of a variant, read as the ``mcts`` agent reads its spec."""
    options = make_agent(f"mcts:{variant}")
    return {
        "c": options.c,
        "solver": options.solver,
        "partial_proofs": options.partial_proofs,
        "mast": options.mast,
        "mast_steps": options.mast_steps,
        "greedy": options.greedy,
        "decisive": options.decisive,
        "transpose": options.transpose,
        "shallow": options.shallow,
        "shallow_visits": options.shallow_visits,
        "rave": options.rave,
        "rave_ref": options.rave_ref,
        "rave_bias": options.rave_bias,
    }


def heuristic_options(variant: str, game: Game) -> dict[str, object]:
    """The `MCTS` arguments of a variant's finishing moves (``finish=PLAYOUTS``) and
    heuristic, learnt on `game` (seed 0): guided playouts with ``guide=K``, cut-off
    playouts with ``heuristic=yes`` (``evaluator``), implicit minimax with ``imm=ALPHA``
    (``imm``), virtual visits with ``prior=VISITS`` (``prior``); none where the
    variant uses no heuristic or the game has none."""
    agent = make_agent(f"mcts:{variant}", seed=0)
    if not (agent.heuristic or agent.imm or agent.prior or agent.finish):
        return {}
    agent.start(game, 0)
    finishers = {"finishers": agent.finishers} if agent.finishers is not None else {}
    if not (agent.heuristic or agent.imm or agent.prior):
        return finishers
    if agent.learnt is None:
        print(f"{variant}: no heuristic learnt on this game (plain search)")
        return finishers
    print(f"{variant}: learnt heuristic (weights per role)\n{agent.learnt.describe()}")
    options: dict[str, object] = dict(finishers)
    if agent.guide > 1:
        options["guide"] = Guide(agent.learnt, agent.guide)
    if agent.heuristic:
        options["evaluator"] = CutoffPlayout(agent.learnt, agent.cutoff)
    if agent.imm:
        options["imm"] = ImplicitMinimax(agent.learnt, agent.imm)
    if agent.prior:
        options["prior"] = HeuristicPrior(agent.learnt, agent.prior)
    return options


@functools.cache
def native_game(name: str) -> Game:
    """The GDL game `name` (corpus name, ``.kif`` path or built-in twin) on native code,
    built once a process (benchmarks ask for the same game at each of its positions)."""
    path = Path(name)
    if path.suffix != ".kif":
        path = CORPUS_GAMES / f"{name}.kif"
        if not path.exists():
            path = TWINS / f"{name}.kif"
    return on_native_code(game_from_file(path, reasoner="native"), name)


@functools.cache
def native_rules_game(rules: str, name: str = "rules") -> Game:
    """The game whose rules' text is `rules` (as a match log's ``x-rules`` holds
    them), named `name`, on native code, built once a process."""
    return on_native_code(game_from_text(rules, name, reasoner="native"), name)


def log_game(match: dict) -> Game:
    """The game a match log was played on, on native code: its rules' text
    (``x-rules``, in the logs of `benchmarks/strength.py`), else the game it names
    (``x-game``)."""
    if match.get("x-rules"):
        return native_rules_game(match["x-rules"], Path(match.get("x-game", "rules")).stem)
    if match.get("x-game"):
        return native_game(match["x-game"])
    raise SystemExit("the log holds no rules and names no game: give the game")


def on_native_code(game: Game, name: str) -> Game:
    """`game` once its native code is built; exits where none could be built."""
    if isinstance(game, CompiledGame) and game.native_build is not None:
        game.native_build.join()
    if getattr(game, "native", None) is None:
        raise SystemExit(f"{name}: no native code for this game (see the log)")
    return game


def play_native(game: Game, specs: list[str], index: int, seed: int) -> tuple[int, ...]:
    """Play match `index` between agent specs on `game` in this process; the goals
    of agents 0 and 1 (seats swapped every other match).  In a game of more roles,
    agent 0 (the variant) holds one seat, its seat going round from match to match,
    and agent 1 every other seat: then the goals of every seat, agent 0's seat being
    ``index % roles`` (`seat_balanced`)."""
    roles = len(game.roles)
    if roles > 2:
        seats = tuple(0 if role == index % roles else 1 for role in range(roles))
    else:
        seats = seating(index, len(specs), swap=True, roles=roles)
    agents = [
        make_agent(specs[agent], derive_seed(seed, index, role)) for role, agent in enumerate(seats)
    ]
    for role, agent in enumerate(agents):
        agent.start(game, role)
    state = game.initial_state()
    while not state.is_terminal():
        joint = [agent.choose_move(state, None) for agent in agents]
        state = state.next(joint)
        for agent in agents:
            agent.observe(joint, state)
    goals = state.goals()
    if roles > 2:
        return tuple(goals)
    return tuple(goals[seats.index(agent)] for agent in range(len(specs)))


def seat_balanced(goals: list[tuple[int, ...]]) -> tuple[float, float]:
    """Of matches of more than two roles (`play_native`): the variant's mean goal and
    the baseline's, each seat weighing alike (the baseline's goal in a seat is its
    mean there over the matches the variant held another seat), both over 100.  A
    seat can be worth much more than another (3pConnectFour's third seat), so the
    variant is compared with the baseline seat by seat."""
    roles = len(goals[0])
    ours: list[list[int]] = [[] for _ in range(roles)]
    theirs: list[list[int]] = [[] for _ in range(roles)]
    for index, match in enumerate(goals):
        for seat, goal in enumerate(match):
            (ours if seat == index % roles else theirs)[seat].append(goal)
    variant = sum(g for seat in ours for g in seat) / sum(len(seat) for seat in ours)
    baseline = sum(sum(seat) / len(seat) for seat in theirs if seat) / roles
    return variant / 100, baseline / 100


def score(
    game: str,
    gdl: bool,
    variant: str,
    budget: str,
    games: int,
    seed: int,
    jobs: int,
    native: Game | None = None,
    baseline: str = PLAIN,
):
    """The variant's score against `baseline` and its interval, over `games` matches."""
    specs = [f"mcts:{budget},{variant}", f"mcts:{budget},{baseline}"]
    if native is not None:
        goals = [play_native(native, specs, index, seed) for index in range(games)]
        if len(native.roles) > 2:
            variant_score, baseline_score = seat_balanced(goals)
            low, high = wilson_interval(variant_score * games, games)
            mine = [match[index % len(match)] for index, match in enumerate(goals)]
            wins = sum(m == max(match) for m, match in zip(mine, goals, strict=True))
            return {
                "score": variant_score,
                "low": low,
                "high": high,
                "wins": wins,
                "games": games,
                "baseline_score": baseline_score,
                "goals": goals,
            }
    else:
        results = run_tournament(game, specs, games=games, swap=True, seed=seed, jobs=jobs, gdl=gdl)
        goals = [tuple(r.goals[r.seats.index(agent)] for agent in (0, 1)) for r in results]
    total = sum(ours / 100 for ours, _ in goals)
    wins = sum(ours > theirs for ours, theirs in goals)
    low, high = wilson_interval(total, games)
    return {"score": total / games, "low": low, "high": high, "wins": wins, "games": games}


def speeds(
    game: str,
    gdl: bool,
    variants: list[str],
    seconds: float,
    rounds: int,
    native: Game | None = None,
    baseline: str = PLAIN,
) -> dict[str, float]:
    """Simulations per CPU-second from the initial state of every variant and the
    baseline, alternating in `rounds` rounds of `seconds` each so that load hits
    all alike.  A variant with the heuristic learns it once, outside the time
    measured (as at the start clock)."""
    played = native or cached_game(game, gdl).game
    state = played.initial_state()
    sims = {variant: 0 for variant in (baseline, *variants)}
    cpu = {variant: 0.0 for variant in sims}
    heuristics = {variant: heuristic_options(variant, played) for variant in sims}
    for round_ in range(rounds):
        for variant in sims:
            search = MCTS(
                state,
                rng=random.Random(round_),
                **heuristics[variant],
                **search_options(variant),
            )
            began = time.process_time()
            while time.process_time() - began < seconds:
                sims[variant] += search.search(iterations=50)
            cpu[variant] += time.process_time() - began
    return {variant: sims[variant] / cpu[variant] for variant in sims}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=60, help="matches per game and variant (0: speeds only)"
    )
    parser.add_argument("--time", type=float, help="seconds a move (equal time)")
    parser.add_argument("--iterations", type=int, help="simulations a move (equal iterations)")
    parser.add_argument("--game", action="append", help="default: connect_four, breakthrough")
    parser.add_argument("--variant", action="append", help=f"default: {', '.join(VARIANTS)}")
    parser.add_argument(
        "--baseline", default=PLAIN, help=f"the options of the opponent (default: {PLAIN})"
    )
    parser.add_argument("--gdl", action="store_true", help="play the games' GDL twins")
    parser.add_argument(
        "--native", action="store_true", help="GDL games on native code, as ggp serve plays"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--speed-seconds", type=float, default=2.0, help="0: no speed table")
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    if (args.time is None) == (args.iterations is None):
        parser.error("give one budget: --time or --iterations")
    budget = f"time={args.time}" if args.time is not None else f"iterations={args.iterations}"
    games = args.game or ["connect_four", "breakthrough"]
    variants = args.variant or list(VARIANTS)
    twin = " (native)" if args.native else " (GDL twin)" if args.gdl else ""
    natives = {game: native_game(game) for game in games} if args.native else {}
    report: dict[str, object] = {
        "budget": budget,
        "baseline": args.baseline,
        "gdl": args.gdl,
        "scores": {},
        "speeds": {},
    }

    make_agent(f"mcts:{args.baseline}")  # a bad spec fails now, not after the first game
    print(
        f"score against mcts:{args.baseline}, {budget} a move, {args.games} matches, seats swapped"
    )
    print("| game | variant | score | 95% Wilson | wins | seconds |\n|---|---|---|---|---|---|")
    for game in games if args.games > 0 else []:
        for variant in variants:
            began = time.monotonic()
            result = score(
                game,
                args.gdl,
                variant,
                budget,
                args.games,
                args.seed,
                args.jobs,
                natives.get(game),
                args.baseline,
            )
            report["scores"][f"{game} {variant}"] = result  # type: ignore[index]
            if "baseline_score" in result:
                twin_or_seats = f"{twin}, baseline in its seats {result['baseline_score']:.3f}"
            else:
                twin_or_seats = twin
            print(
                f"| {game}{twin_or_seats} | {variant} | {result['score']:.3f} | "
                f"{result['low']:.2f}-{result['high']:.2f} | {result['wins']}/{args.games} | "
                f"{time.monotonic() - began:.0f} |",
                flush=True,
            )
    if args.speed_seconds > 0:
        print("\nsimulations per CPU-second from the initial state (ratio to the baseline)")
        print("| game | variant | sims/s | ratio |\n|---|---|---|---|")
        for game in games:
            found = speeds(
                game,
                args.gdl,
                variants,
                args.speed_seconds,
                rounds=3,
                native=natives.get(game),
                baseline=args.baseline,
            )
            report["speeds"][game] = found  # type: ignore[index]
            for variant, rate in found.items():
                print(
                    f"| {game}{twin} | {variant} | {rate:.0f} | {rate / found[args.baseline]:.2f} |"
                )
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
