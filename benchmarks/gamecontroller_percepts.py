"""Our reasoner against the Dresden GameController's on GDL-II games: replays the
matches it refereed (its console logs) and compares, step by step, the state, the
legality of every move played, each role's percepts, the end and the goals.

    python benchmarks/gamecontroller_percepts.py LOGDIR [--reasoner native]

LOGDIR holds ``GAME.N.log`` files, GAME one of the shipped GDL-II games
(`ggp.games.registry.gdl_ii_games`).  They were made so (none of it in the project):
``fetch`` github:arnaudsj/ggpserver, copy its ``gamecontroller/`` folder under /tmp,
compile its Java sources (``lib/JavaProver``, ``lib/jocular-0.2/*/src/java``, ``java``)
with Java 17 and the jars of ``lib/BenderNG/lib`` on the class path, then for each
game run ``tud.gamecontroller.game.javaprover.GameControllerCLIRunner MATCHID
GAME.kif 10 10 2 -random 1 -random 2 ...`` (GDL version 2, its random player in
every role) with the console saved as ``GAME.N.log``.  Its log names each joint
move (``moves: (...)``), the state reached (``current state:(...)``) and each role's
percepts of the move (``seesTerms(ROLE) = [...]``), in upper case.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ggp.games.base import Game, canonical_move
from ggp.games.registry import gdl_ii_games, load_game
from ggp.gdl.load import REASONERS
from ggp.server.match_log import split_terms


@dataclass
class LoggedMatch:
    """What a GameController log tells of one match."""

    states: list[tuple[str, ...]] = field(default_factory=list)
    moves: list[tuple[str, ...]] = field(default_factory=list)
    percepts: list[dict[str, tuple[str, ...]]] = field(default_factory=list)
    """Per joint move, each role's percepts by the role's name."""
    goals: tuple[int, ...] | None = None


def _term(text: str) -> str:
    return canonical_move(text.lower())


def _percept_list(text: str) -> tuple[str, ...]:
    """``[(OPEN_DOOR 1 ), OK]`` as sorted canonical terms."""
    inner = text.strip()[1:-1]
    items, depth, current = [], 0, []
    for char in inner:
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current.append(char)
    items.append("".join(current))
    return tuple(sorted(_term(item) for item in items if item.strip()))


def parse_log(text: str) -> LoggedMatch:
    """The states, joint moves, percepts and goals of a GameController console log."""
    match = LoggedMatch()
    for line in text.splitlines():
        if found := re.search(r"current state:(\(.*\))\s*$", line):
            match.states.append(tuple(sorted(_term(t) for t in split_terms(found.group(1)))))
        elif found := re.search(r"\): moves: (\(.*\))\s*$", line):
            match.moves.append(tuple(_term(t) for t in split_terms(found.group(1))))
            match.percepts.append({})
        elif (found := re.search(r"seesTerms\((\S+)\) = (\[.*\])", line)) and match.percepts:
            match.percepts[-1][found.group(1).lower()] = _percept_list(found.group(2))
        elif found := re.search(r"Game over! results: ([\d ]+)", line):
            match.goals = tuple(int(goal) for goal in found.group(1).split())
    return match


def differences(game: Game, logged: LoggedMatch) -> list[str]:
    """Where our rules disagree with the log (empty if nowhere)."""
    found = []
    state = game.initial_state()
    if logged.states and tuple(state.facts()) != logged.states[0]:
        found.append("the initial state differs")
    for step, joint in enumerate(logged.moves):
        for role, move in enumerate(joint):
            if move not in state.legal_moves(role):
                found.append(f"step {step}: {move} is not legal for {game.roles[role]} here")
        if found:
            return found
        ours = state.percepts(joint)
        for role, name in enumerate(game.roles):
            theirs = logged.percepts[step].get(name)
            if theirs is not None and theirs != ours[role]:
                found.append(f"step {step}: {name} sees {ours[role]}, theirs {theirs}")
        state = state.next(joint)
        if step + 1 < len(logged.states) and tuple(state.facts()) != logged.states[step + 1]:
            found.append(f"step {step + 1}: the state differs")
    if logged.goals is None:
        found.append("the log has no result")
    elif not state.is_terminal() or state.goals() != logged.goals:
        found.append(f"the end: ours {state.goals()}, theirs {logged.goals}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", type=Path, help="the folder of GAME.N.log files")
    parser.add_argument(
        "--reasoner",
        choices=REASONERS,
        default="interpreter",
        help="whose legal moves, states, percepts and goals are compared (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    totals = {"matches": 0, "steps": 0, "percepts": 0, "disagreeing": 0}
    for name in gdl_ii_games():
        game = load_game(name, reasoner=args.reasoner)
        build = getattr(game, "native_build", None)
        if build is not None:
            build.join()  # native code compared, not the generated Python meanwhile
        for path in sorted(args.logs.glob(f"{name}.*.log")):
            text = path.read_text(errors="replace")
            if "Game over!" not in text:
                continue  # a match still running, or broken off
            logged = parse_log(text)
            problems = differences(game, logged)
            totals["matches"] += 1
            totals["steps"] += len(logged.moves)
            totals["percepts"] += sum(len(step) for step in logged.percepts)
            totals["disagreeing"] += bool(problems)
            for problem in problems:
                print(f"{path.name}: {problem}")
    print(
        f"{totals['matches']} matches, {totals['steps']} joint moves, {totals['percepts']} "
        f"percept sets compared; {totals['disagreeing']} matches disagree"
    )
    return 1 if totals["disagreeing"] else 0


if __name__ == "__main__":
    sys.exit(main())
