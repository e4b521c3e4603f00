"""``ggp check GAME``: validate a GDL game, summarise it, replay recorded playouts."""

from __future__ import annotations

import argparse
import random
import statistics
import textwrap
import time
from typing import Any

from ggp import progress
from ggp.commands.bench import add_reasoner_option, load_for_measure
from ggp.games.base import GameError
from ggp.gdl.analysis import analyse_game, describe
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame, RulesTooExpensive
from ggp.gdl.playouts import Playout, record_playout, rules_never_held
from ggp.gdl.syntax.lint import lint, unplayed_legal_rules
from ggp.gdl.syntax.parser import parse_term
from ggp.gdl.syntax.strata import MOVE, STATE, STATIC
from ggp.gdl.syntax.terms import Term, relation
from ggp.gdl.syntax.validator import arities
from ggp.gdl.traces import ReplayReport, read_playouts, replay
from ggp.player.search.heuristic import PLAYOUTS, learn, piece_distances
from ggp.player.service.search_worker import (
    SEARCH_MATERIAL,
    SEARCH_MATERIAL_FIRST,
    SEARCH_PROGRESS,
)
from tqdm import tqdm

MAX_STEPS = 1000
"""Longest random playout explored; longer means the game may never end."""
STEP_WORK_LIMIT = 1_000_000
"""Join bindings the interpreter may make for one question about a state or joint move
in the random playouts (`GdlGame.limit_work`); in two random playouts of each of the
254 corpus games on the interpreter the costliest question needs 118,402 (ad_game_2x2).
Past it the rules are too expensive to play and the check ends."""
LEARN_SECONDS = 15.0
"""CPU seconds the heuristic's random playouts may take in Python; past that, not learnt."""


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
    if args.playouts < 1:
        raise GameError(f"--playouts must be at least 1, got {args.playouts}")
    start = time.perf_counter()
    with progress.status(f"loading {args.game}: validating, grounding and compiling its rules"):
        game = load_for_measure(args.game, True, args.reasoner)
    if not isinstance(game, GdlGame):
        raise GameError(f"{args.game} is not a GDL game")
    summarise(game)
    for warning in lint(game.rules):
        print(_wrapped(f"warning: {warning}"))
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


def _wrapped(text: str, indent: str = "") -> str:
    return textwrap.fill(
        text,
        width=100,
        initial_indent=indent,
        subsequent_indent=indent + "    ",
        break_on_hyphens=False,
    )


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
    """Play random playouts; report turn-taking, the playouts in which the rules broke
    (counted, the first fault shown), legal rules that never held, and the rules
    analysis; or, if a playout finds no terminal state, its last state and the terminal
    and goal rules that never held.  0 if no playout broke or went on."""
    game.limit_work(STEP_WORK_LIMIT)
    played: list[Playout] = []
    seconds: list[float] = []
    for _ in tqdm(range(playouts), desc="random playouts", unit="playout", disable=None):
        playout = Playout()
        played.append(playout)
        started = time.process_time()
        try:
            record_playout(game.initial_state(), rng, MAX_STEPS, playout)
        except RulesTooExpensive as error:
            steps = sum(p.length for p in played)
            raise GameError(f"{error} (after {steps} joint moves of random playouts)") from None
        seconds.append(time.process_time() - started)
        if not playout.terminal and not playout.fault:
            return no_terminal(game, played)
    per_playout = playout_seconds(seconds)
    states = sum(len(p.legal) for p in played)
    simultaneous = sum(sum(len(m) > 1 for m in moves) > 1 for p in played for moves in p.legal)
    print(turn_taking(states, simultaneous, f"states of {playouts} random playouts"))
    faults = [p.fault for p in played if p.fault]
    ended = sum(p.terminal for p in played)
    steps = sum(p.length for p in played)
    summary = f"random playouts: {ended} of {playouts} played to the end, {steps} joint moves"
    if faults:
        print(
            f"{summary}; the rules broke in {len(faults)} (in a state reached), the first "
            f"with: {faults[0]}"
        )
    else:
        print(f"{summary}, no fault")
    for warning in unplayed_legal_rules(game.rules, legal_seen(game, played)):
        print(_wrapped(f"warning: {warning}"))
    print("rules analysis (from the random playouts):")
    for line in describe(analyse_game(game, played), game.roles):
        print(_wrapped(line, "  "))
    if not faults:
        heading, *lines = learnt_summary(game, rng, per_playout) or [""]
        if heading:
            print(heading)
        for line in lines:
            print(_wrapped(line, "  "))
    return 1 if faults else 0


def playout_seconds(seconds: list[float]) -> float:
    """The CPU seconds of a playout to expect, from each played's: the median of all but
    the first where there are more, since the first of compiled rules also pays for the
    code they compile on first use (Breakthrough's estimate of the 1,500 playouts came
    to 71 CPU-s from a fresh clone's first two playouts, under 15 warm)."""
    return statistics.median(seconds[1:] or seconds)


def learnt_summary(game: GdlGame, rng: random.Random, per_playout: float) -> list[str]:
    """What ``ggp serve`` learns of the game at its start clock, learnt the same way
    from other random playouts: the heuristic (`heuristic.learn`, with the served
    material term) and how far the material's pieces are from each role's goal, from
    the rules; a heading, then lines.  Nothing for one role (searched as a puzzle);
    not learnt on the interpreter, nor where the playouts (`per_playout` CPU seconds
    each in Python) would take more than `LEARN_SECONDS`."""
    if len(game.roles) < 2:
        return []
    heading = f"what ggp serve learns (the same way, from {PLAYOUTS:,} other random playouts):"
    if not isinstance(game, CompiledGame):
        return [heading, "not learnt here: the rules are not compiled"]
    if game.native_playouts is None and per_playout * PLAYOUTS > LEARN_SECONDS:
        return [
            heading,
            f"not learnt here: the playouts would take about {per_playout * PLAYOUTS:.0f} "
            "CPU-s in Python (ggp serve learns on native code: --reasoner native)",
        ]
    report: dict[str, Any] = {}
    with progress.status(f"learning a heuristic from {PLAYOUTS:,} random playouts"):
        learnt = learn(
            game,
            rng,
            material=SEARCH_MATERIAL,
            report=report,
            material_first=SEARCH_MATERIAL_FIRST,
            progress=SEARCH_PROGRESS,
        )
    lines = [heading]
    if learnt is None:
        lines.append(
            "heuristic: none (no count of facts predicts the goals on held-out playouts; "
            "the search goes without)"
        )
    else:
        lines.append("heuristic (a bias and a weight a fact counted, per role):")
        lines.extend(f"  {line}" for line in learnt.describe().splitlines())
    term = report.get("material") or []
    if not term:
        return lines
    found = piece_distances(game, term)
    if found is None:
        lines.append(
            "distances to the goal: none (no move takes a piece towards a fact the goals read)"
        )
        return lines
    lines.append(
        "distances to the goal (a role's moves to a fact its best goal reads, from the rules):"
    )
    for role, (name, _), distances in zip(game.roles, term, found, strict=True):
        at = [0] * (max(distances.values()) + 1)
        for d in distances.values():
            at[d] += 1
        lines.append(
            f"  {role}: {name}, 0 to {len(at) - 1} moves; facts at each distance: "
            f"{' '.join(map(str, at))}"
        )
    return lines


def legal_seen(game: GdlGame, played: list[Playout]) -> set[tuple[Term, Term]]:
    """Every (role, move) legal in some state of the playouts, as terms."""
    texts = {
        (i, move)
        for playout in played
        for moves in playout.legal
        for i, role_moves in enumerate(moves)
        for move in role_moves
    }
    return {(game.role_terms[i], parse_term(move)) for i, move in texts}


def no_terminal(game: GdlGame, played: list[Playout]) -> int:
    """Report a playout that found no terminal state: its last state and the terminal
    and goal rules that held in none of the playouts' states.  Returns 1."""
    print(f"random playouts: no terminal state after {MAX_STEPS} joint moves")
    print(_wrapped(f"last state: {' '.join(played[-1].states[-1])}"))
    asked = [rule for rule in game.rules if relation(rule.head) in ("terminal", "goal")]
    states = [state for playout in played for state in playout.states]
    never, count = rules_never_held(game, asked, states, STEP_WORK_LIMIT)
    print(f"terminal and goal rules that never held (in {count} states of the playouts):")
    for rule in never:
        print(_wrapped(rule.located(), "  "))
    if not never:
        print("  none")
    return 1
