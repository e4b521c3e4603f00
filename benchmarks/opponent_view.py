"""Where a match against Sancho 1.61c turned, in Sancho's own view: its score each turn.

    python benchmarks/opponent_view.py docs/strength/logs/onecommit-32nd/breakthrough.*.json \\
        --sancho-logs /tmp/strength-sancho/data-9160/logs [--opponent 9160] [--every] \\
        [--serve-log docs/strength/logs/onecommit-32nd/ours-*.log]

Sancho writes each match's search to its log (``<match id>-<port>.txt`` under its data
folder's ``logs``; not in the repository): at each turn, the score of each of its moves
at the root of its tree, its expected goal (0 to 100; 100 once it has proven a win).
For each match log of `benchmarks/strength.py` (ours: the seat whose URL is not on an
``--opponent`` port), this reads Sancho's log of the same match and prints Sancho's
best score at each turn (turn N is the match's step N - 1, after the moves of steps 0
to N - 2), and one line a match: our goal, the last step at which Sancho's best score
was at most 50 (it did not think itself ahead), the first step from which it stayed at
60 or more, and the first from which it stayed at 100 (a proof), each with the move played
just before (the step before it), ours or Sancho's.  A match that Sancho thought even
until the proof was lost by a tactical turn; one whose score climbed step by step, by
play that its search judged better long before.  ``--every`` prints the score of each
turn too, and with ``--serve-log`` (our server's log) our search's value of each move we
searched (``value N`` in its ``play`` lines since 6 December), as ``step:Sancho/ours``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seat_scores import our_seat  # noqa: E402

TURN = re.compile(r"Starting turn (\d+) ")
MOVE_SCORE = re.compile(r"INFO\s+TreeNode\s+Move (.+?) scores ([\d.]+)")
PLAY = re.compile(r"\bplay (\S+): ")
VALUE = re.compile(r", value (\d+)")
AHEAD = 60.0
"""The score from which Sancho counts here as thinking itself ahead..."""
EVEN = 50.0
"""...and at most which as not."""


def best_scores(text: str) -> dict[int, float]:
    """Sancho's best score of a move at each turn of its log."""
    turn, best = 0, {}
    for line in text.splitlines():
        found = TURN.search(line)
        if found:
            turn = int(found.group(1))
            continue
        found = MOVE_SCORE.search(line)
        if found and turn:
            best[turn] = max(best.get(turn, 0.0), float(found.group(2)))
    return best


def our_values(text: str) -> dict[str, dict[int, int]]:
    """Per match, our search's value of the move played at each step (in order, a
    ``play`` line a step) where the server's log says one."""
    steps: dict[str, int] = {}
    values: dict[str, dict[int, int]] = {}
    for line in text.splitlines():
        found = PLAY.search(line)
        if found is None:
            continue
        match = found.group(1)
        step = steps[match] = steps.get(match, -1) + 1
        value = VALUE.search(line)
        if value is not None:
            values.setdefault(match, {})[step] = int(value.group(1))
    return values


def turning_steps(scores: dict[int, float]) -> tuple[int | None, int | None, int | None]:
    """(the last step Sancho's best score was at most `EVEN`, the first step from which it
    stayed at `AHEAD` or more, the first from which it stayed at 100), each None where
    none."""
    steps = {turn - 1: score for turn, score in scores.items()}
    even = max((step for step, score in steps.items() if score <= EVEN), default=None)
    return even, stayed_from(steps, AHEAD), stayed_from(steps, 100.0)


def stayed_from(steps: dict[int, float], least: float) -> int | None:
    """The first step from which the score stayed at `least` or more to the end."""
    first = None
    for step in sorted(steps, reverse=True):
        if steps[step] < least:
            break
        first = step
    return first


def mover(log: dict, step: int, ours: int) -> str:
    """Who chose the move of `step` (the one before a turn): us, Sancho, or both."""
    moves = log["moves"][step] if 0 <= step < len(log["moves"]) else []
    noop = [move == "noop" for move in moves]
    if len(moves) == 2 and noop.count(True) == 1:
        return "ours" if not noop[ours] else "Sancho's"
    return "both"


def describe(log: dict, ours: int, step: int | None) -> str:
    """A step of the summary and the move played just before it."""
    if step is None:
        return "none"
    if step == 0:
        return "step 0"
    before = step - 1
    moves = log["moves"][before]
    move = " ".join(move for move in moves if move != "noop") or "noop"
    return f"step {step} (after {mover(log, before, ours)} {move} at step {before})"


def match_record(path: Path) -> dict | None:
    """The match record at `path`, or None where the file is not one (a positions file or
    any other JSON given by a wildcard, or no JSON at all)."""
    try:
        log = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    fields = {"matchId", "playerNamesFromHost", "moves"}
    return log if isinstance(log, dict) and fields <= log.keys() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--sancho-logs", type=Path, required=True, help="Sancho's logs folder")
    parser.add_argument("--opponent", default="9160", help="Sancho's ports, comma-separated")
    parser.add_argument("--every", action="store_true", help="every turn's score too")
    parser.add_argument("--serve-log", type=Path, action="append", help="our server's log")
    args = parser.parse_args()
    ports = args.opponent.split(",")
    ours_by_match: dict[str, dict[int, int]] = {}
    for serve_log in args.serve_log or []:
        ours_by_match.update(our_values(serve_log.read_text(errors="replace")))
    for path in args.logs:
        log = match_record(path)
        if log is None:
            print(f"{path.name}: skipped (not a match record of strength.py)")
            continue
        ours = our_seat(log, ports)
        urls = log["playerNamesFromHost"]
        sancho = next(url for i, url in enumerate(urls) if i != ours)  # its port names its log
        theirs = args.sancho_logs / f"{log['matchId']}-{sancho.rsplit(':', 1)[-1]}.txt"
        if ours is None or not theirs.is_file():
            print(f"{path.name}: skipped (no seat of ours, or no {theirs.name})")
            continue
        scores = best_scores(theirs.read_text(errors="replace"))
        goal = (log.get("goalValues") or [None] * len(urls))[ours]
        even, ahead, proof = turning_steps(scores)
        print(
            f"{path.name}: our goal {goal}; Sancho at most {EVEN:g} last at"
            f" {describe(log, ours, even)}; at {AHEAD:g} or more from"
            f" {describe(log, ours, ahead)}; 100 from {describe(log, ours, proof)}"
        )
        if args.every:
            values = ours_by_match.get(log["matchId"], {})
            cells = []
            for turn, score in sorted(scores.items()):
                value = values.get(turn - 1)
                cells.append(f"{turn - 1}:{score:.0f}" + ("" if value is None else f"/{value}"))
            print("  " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
