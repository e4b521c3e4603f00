"""``ggp check GAME``: validate a GDL game, summarise it, replay recorded playouts."""

from __future__ import annotations

import argparse
import random
import textwrap
import time

from ggp import progress
from ggp.commands.bench import add_reasoner_option, load_for_measure
from ggp.games.base import GameDefinitionError, GameError
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame, RulesTooExpensive
from ggp.gdl.syntax.strata import MOVE, STATE, STATIC
from ggp.gdl.syntax.validator import arities
from ggp.gdl.traces import ReplayReport, read_playouts, replay
from tqdm import tqdm

MAX_STEPS = 1000
"""Longest random playout explored; longer means the game may never end."""
STEP_WORK_LIMIT = 1_000_000
"""Join bindings the interpreter may make for one question about a state or joint move
in the random playouts (`GdlGame.limit_work`); in two random playouts of each of the
254 corpus games on the interpreter the costliest question needs 118,402 (ad_game_2x2).
Past it the rules are too expensive to play and the check ends."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        description="Validate the GDL description GAME (a .kif file, or a built-in "
        "game's GDL twin) and print a summary: roles, relations, strata, static facts, "
        "and whether it is turn-taking. With --traces, replay recorded playouts step by "
        "step (state, legal moves, next state, goals) and report the first disagreement; "
        "otherwise play a few random playouts. Exit status 0 only if everything agrees.",
    )
    parser.add_argument("game", metavar="GAME", help="a .kif file (or a built-in game's twin)")
    parser.add_argument(
        "--traces",
        metavar="FILE",
        help="recorded playouts to replay (.jsonl.gz, the format of the GDL corpus)",
    )
    parser.add_argument(
        "--playouts",
        type=int,
        default=5,
        help="random playouts to explore when no --traces are given (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    add_reasoner_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    with progress.status(f"loading {args.game}: validating, grounding and compiling its rules"):
        game = load_for_measure(args.game, True, args.reasoner)
    if not isinstance(game, GdlGame):
        raise GameError(f"{args.game} is not a GDL game")
    summarise(game)
    print(reasoner_summary(game))
    if args.traces:
        recorded = tqdm(read_playouts(args.traces), desc="traces", unit="playout", disable=None)
        with recorded:
            report = replay(game, recorded)
        print(turn_taking(report.states, report.simultaneous_states, "recorded states"))
        print(replay_summary(report))
        if report.disagreements:
            print("first disagreement: " + report.disagreements[0].describe())
        status = 0 if report.agrees else 1
    else:
        status = explore(game, args.playouts, random.Random(args.seed))
    print(f"checked in {time.perf_counter() - start:.1f} s")
    return status


def summarise(game: GdlGame) -> None:
    """Print what the description contains and how it is evaluated."""
    strata = game.strata
    found = arities(game.rules)
    print(f"{game.name}: valid GDL, {len(game.rules)} rules and facts")
    print(f"roles ({len(game.roles)}): {', '.join(game.roles)}")
    relations = " ".join(f"{name}/{arity}" for name, arity in sorted(found.items()))
    print(_wrapped(f"relations ({len(found)}): {relations}"))
    by_phase = [sum(s.phase == phase for s in strata.order) for phase in (STATIC, STATE, MOVE)]
    recursive = sum(s.recursive for s in strata.order)
    print(
        f"strata: {len(strata.order)} ({by_phase[0]} static, {by_phase[1]} per state, "
        f"{by_phase[2]} per joint move; {recursive} recursive)"
    )
    static = game.reasoner.static.facts
    count = sum(len(static[name]) for name in static if strata.phase.get(name) == STATIC)
    print(f"static facts: {count} (computed once per game)")
    demand = game.reasoner.strata.demand
    if demand:
        described = ", ".join(
            f"{name} (by argument{'s' if len(pos) > 1 else ''} {' '.join(str(p + 1) for p in pos)})"
            for name, pos in sorted(demand.items())
        )
        print(_wrapped(f"computed on demand only: {described}"))
    for note in strata.notes:
        print(_wrapped(f"note: {note}"))


def reasoner_summary(game: GdlGame) -> str:
    """Which reasoner checks the game (native code waited for when asked), and why not
    the compiled one, or native code, if it was tried."""
    if isinstance(game, CompiledGame):
        which = "native code" if game.native is not None else "compiled"
        missing = "" if game.not_native is None else f"; no native code: {game.not_native}"
        return _wrapped(f"reasoner: {which} ({game.compiled.summary()}{missing})")
    if game.not_compiled:
        return _wrapped(f"reasoner: interpreter ({game.not_compiled})")
    return "reasoner: interpreter"


def _wrapped(text: str) -> str:
    return textwrap.fill(text, width=100, subsequent_indent="    ", break_on_hyphens=False)


def turn_taking(states: int, simultaneous: int, seen: str) -> str:
    """Whether, in the states seen, at most one role ever had a choice of moves."""
    if not states:
        return "turn-taking: unknown (no non-terminal state seen)"
    if not simultaneous:
        return (
            f"turn-taking: yes, in all {states} {seen} at most one role had more than "
            "one legal move"
        )
    return f"turn-taking: no, several roles had a choice in {simultaneous} of {states} {seen}"


def replay_summary(report: ReplayReport) -> str:
    errors = (
        f" (in {report.recorded_errors} the recording's reasoner found the game broken)"
        if report.recorded_errors
        else ""
    )
    return (
        f"traces: {report.agreeing_playouts} of {report.playouts} playouts agree, "
        f"{report.agreeing_steps} of {report.steps} steps{errors}"
    )


def explore(game: GdlGame, playouts: int, rng: random.Random) -> int:
    """Play random playouts; report turn-taking and the playouts in which the rules
    broke (counted, the first fault shown).  0 if none broke."""
    states = simultaneous = steps = ended = 0
    faults: list[str] = []
    game.limit_work(STEP_WORK_LIMIT)
    for _ in tqdm(range(playouts), desc="random playouts", unit="playout", disable=None):
        state = game.initial_state()
        try:
            while not state.is_terminal():
                if steps >= MAX_STEPS * playouts:
                    print(f"random playouts: no terminal state after {MAX_STEPS} steps")
                    return 1
                moves = state.all_legal_moves()
                states += 1
                simultaneous += sum(len(m) > 1 for m in moves) > 1
                state = state.next([rng.choice(m) for m in moves])
                steps += 1
            state.goals()
            ended += 1
        except RulesTooExpensive as error:
            raise GameError(f"{error} (after {steps} joint moves of random playouts)") from None
        except GameDefinitionError as error:
            faults.append(str(error))
    seen = f"states of {playouts} random playouts"
    print(turn_taking(states, simultaneous, seen))
    played = f"random playouts: {ended} of {playouts} played to the end, {steps} joint moves"
    if not faults:
        print(f"{played}, no fault")
        return 0
    print(
        f"{played}; the rules broke in {len(faults)} (in a state reached), the first "
        f"with: {faults[0]}"
    )
    return 1
