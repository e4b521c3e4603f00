"""How ``ggp serve`` set up its search in each match, read from its log.

    python benchmarks/serve_log.py SERVE.log [SERVE.log ...]
    python benchmarks/serve_log.py --tally SERVE.log [SERVE.log ...]

The search workers write their decisions to the server's log, one line each,
without the match's id (`ggp.player.service.search_worker`): when the compiled
rules and the native library's tree took over, whether a heuristic was learnt (and
whether it is the material alone), whether decisive playouts were turned on, which
configurations the races tried with their verdicts, what the search played in the
end, the tactics' finds: proofs, wins played at once, and the moves at which they
overrode the search's choice (proven lost), and how many replies played another move
than the most visited. A match's lines are those between the end of the
match before (its ``stop`` line) and its own ``stop`` line, since the matches of
one log follow each other (one match at a time, as `benchmarks/strength.py` plays them).

`search_of` gives one match's decisions; `searches_summary` counts them over
the matches of a game, for the strength results (`benchmarks/strength.py`).
Run on logs, this prints each match's decisions; with ``--tally``, the races' games
summed over the matches of each game (`race_tally`), challenger by challenger.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from ggp.server.stats import wilson_interval

WORKER = "search worker: "

STOP = re.compile(r"\bstop (\S+): ")
START = re.compile(r"\bstart (\S+): ready in ([0-9.]+) s, as (\S+), (\d+) simulations")
COMPILED = re.compile(r"the rules are compiled(?:, with their native code,)? after ([0-9.]+) s")
NATIVE = re.compile(r"the native library searches from move (\d+)")
PARTS = re.compile(r"the roles move on separate parts: from move (\d+)")
RACING = re.compile(r"racing configurations against (.+), ([0-9.]+) CPU-s a move")
VERDICT = re.compile(
    r"race after \d+ games: (chosen|dropped|no verdict, dropped|out of reach, dropped"
    r"|not confirmed at scale, dropped|won the screen, to be confirmed at scale): "
    r"(.+?) against (.+?): "
    r"((\d+(?:\.\d+)?) of (\d+) games \([0-9.]+, [0-9.]+-[0-9.]+\))"
)
SHORT = {
    "no verdict, dropped": "no verdict",
    "out of reach, dropped": "out of reach",
    "not confirmed at scale, dropped": "not confirmed at scale",
    "won the screen, to be confirmed at scale": "won the screen",
}
"""Verdicts' kinds as a line of counts names them."""
TOO_SMALL = re.compile(r"race after \d+ games: races ended, their games too small to judge")
RACE_TIME = re.compile(
    r"the races took ([0-9.]+) s of the searches and ([0-9.]+) s of pondering, "
    r"the tree pondered ([0-9.]+) s"
)
PLAYS = re.compile(r"the search plays (.+?)(?:, as the racing worker chose)?$")
PASSED_OVER = ", over the most visited "
"""How a reply's line (`ggp.player.service.http_player`) says the move played was not the
search's most visited (chosen by ``--final``, a proof or the tactics)."""
MATERIAL_ALONE = "material alone ("
"""How the learnt heuristic's description (the lines after "learnt heuristic", not a
worker's) begins its last line where the heuristic is the material term alone."""


def sections(text: str) -> dict[str, list[str]]:
    """Each match's lines of a serve log, by match id: from after the stop of
    the match before to its own stop."""
    found: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in text.splitlines():
        lines.append(line)
        stopped = STOP.search(line)
        if stopped:
            found[stopped.group(1)] = lines
            lines = []
    return found


def search_of(lines: list[str], match_id: str) -> dict:
    """The search's decisions in one match's lines (`sections`): the rules it
    ended on ("native tree" where the native library took the whole tree over;
    "compiled" also where native code plays the playouts of a Python tree, as
    the replies' ``(native, ...)`` tell, and where the rules came with their native
    code, the tree made for them then), when they took over, from which move
    our moves were searched by trees over our part (`ggp.player.search.factored`),
    whether a heuristic was learnt and decisive playouts turned on, what the
    races started from, their verdicts, the configuration played last and how
    many tactical finds, wins found and overrides of the search's choice, and how
    many of our replies played another move than the most visited."""
    decisions: dict = {
        "rules": "interpreter",
        "compiled_after": None,
        "native_from_move": None,
        "parts_from_move": None,
        "heuristic": False,
        "material_alone": False,
        "decisive_finishers": False,
        "raced_from": None,
        "verdicts": [],
        "races_too_small": False,
        "plays": None,
        "tactics_found": 0,
        "tactics_wins": 0,
        "tactics_overrides": 0,
        "start_simulations": None,
        "race_seconds": None,
        "passed_over": 0,
    }
    play = f"play {match_id}: "
    for line in lines:
        if play in line and PASSED_OVER in line:
            decisions["passed_over"] += 1
        started = START.search(line)
        if started and started.group(1) == match_id:
            decisions["start_simulations"] = int(started.group(4))
        if line.startswith(MATERIAL_ALONE):
            decisions["material_alone"] = True
        _, worker, said = line.partition(WORKER)
        if not worker:
            continue
        if found := COMPILED.match(said):
            decisions["rules"] = "compiled"
            if decisions["compiled_after"] is None:
                decisions["compiled_after"] = float(found.group(1))
        elif found := NATIVE.match(said):
            decisions["rules"] = "native tree"
            if decisions["native_from_move"] is None:
                decisions["native_from_move"] = int(found.group(1))
        elif found := PARTS.match(said):
            if decisions["parts_from_move"] is None:
                decisions["parts_from_move"] = int(found.group(1))
        elif said.startswith("learnt heuristic"):
            decisions["heuristic"] = True
        elif said.startswith("decisive playouts, wins looked for"):
            decisions["decisive_finishers"] = True
        elif found := RACING.match(said):
            decisions["raced_from"] = found.group(1)
        elif TOO_SMALL.match(said):
            decisions["races_too_small"] = True
        elif found := VERDICT.match(said):
            verdict, challenger, against, record, points, games = found.groups()
            decisions["verdicts"].append(
                {
                    "verdict": verdict,
                    "challenger": challenger,
                    "against": against,
                    "record": record,
                    "points": float(points),
                    "games": int(games),
                }
            )
        elif found := RACE_TIME.match(said):
            searched, pondered, tree = map(float, found.groups())
            decisions["race_seconds"] = {
                "searches": searched,
                "pondering": pondered,
                "tree_pondering": tree,
            }
        elif found := PLAYS.match(said):
            decisions["plays"] = found.group(1)
        elif said.startswith("tactics at move "):
            decisions["tactics_found"] += 1
            decisions["tactics_wins"] += " wins within " in said
        elif said.startswith("the tactics overrode the search at move "):
            decisions["tactics_overrides"] += 1
    if decisions["plays"] is None:
        decisions["plays"] = decisions["raced_from"]
    return decisions


def searches_in(text: str) -> dict[str, dict]:
    """Every match's decisions in the text of a serve log (or a part of one made of
    whole matches), by match id."""
    return {match_id: search_of(lines, match_id) for match_id, lines in sections(text).items()}


def searches_of(log: Path) -> dict[str, dict]:
    """Every match's decisions in a serve log, by match id."""
    return searches_in(log.read_text(errors="replace") if log.exists() else "")


def searches_summary(searches: list[dict]) -> dict:
    """The decisions of a game's matches counted: the configurations played last
    (where races ran), the rules ended on, in how many a heuristic was learnt and
    decisive playouts turned on, the verdicts by kind and challenger, the
    tactical finds, wins and overrides, the replies that passed the most visited over."""
    verdicts = Counter(
        f"{v['verdict']}: {v['challenger']}" for search in searches for v in search["verdicts"]
    )
    return {
        "matches": len(searches),
        "plays": dict(Counter(s["plays"] for s in searches if s["plays"] is not None)),
        "rules": dict(Counter(s["rules"] for s in searches)),
        "parts": sum(s.get("parts_from_move") is not None for s in searches),
        "heuristic": sum(s["heuristic"] for s in searches),
        "material_alone": sum(s.get("material_alone", False) for s in searches),
        "decisive_finishers": sum(s["decisive_finishers"] for s in searches),
        "verdicts": dict(verdicts),
        "races_too_small": sum(s.get("races_too_small", False) for s in searches),
        "tactics_found": sum(s["tactics_found"] for s in searches),
        "tactics_wins": sum(s.get("tactics_wins", 0) for s in searches),
        "tactics_overrides": sum(s.get("tactics_overrides", 0) for s in searches),
        "race_seconds": _race_seconds(searches),
        "passed_over": sum(s.get("passed_over", 0) for s in searches),
    }


def _race_seconds(searches: list[dict]) -> dict | None:
    """The race times of the matches that report them, added up (None: none does)."""
    timed = [s["race_seconds"] for s in searches if s.get("race_seconds")]
    if not timed:
        return None
    total = {key: round(sum(t[key] for t in timed), 1) for key in timed[0]}
    return {"matches": len(timed), **total}


def race_tally(searches: dict[str, dict]) -> dict[tuple[str, str, str], dict]:
    """The race games of every match summed, by game (a match id up to its first dot, as
    `benchmarks/strength.py` names matches), challenger and the configuration it raced
    against: what the races' evidence says pooled over a game's matches, where within
    one match a challenger is dropped after a handful of games.  A challenger's record in
    a match is its last (a verdict's record counts every game of the race so far, and a
    screen won and then judged at scale reports the screen twice)."""
    tally: dict[tuple[str, str, str], dict] = {}
    for match_id, search in searches.items():
        game = match_id.split(".", 1)[0]
        last: dict[tuple[str, str], dict] = {}
        for verdict in search["verdicts"]:
            last[(verdict["challenger"], verdict["against"])] = verdict
        for (challenger, against), verdict in last.items():
            row = tally.setdefault(
                (game, challenger, against), {"points": 0.0, "games": 0, "matches": 0}
            )
            row["points"] += verdict["points"]
            row["games"] += verdict["games"]
            row["matches"] += 1
    return tally


def describe_tally(tally: dict[tuple[str, str, str], dict]) -> list[str]:
    """A line for each game, challenger and opponent of `race_tally`, most games first
    within a game, with the challenger's score and its 95% Wilson interval."""
    lines = []
    rows = sorted(tally.items(), key=lambda item: (item[0][0], -item[1]["games"]))
    for (game, challenger, against), row in rows:
        low, high = wilson_interval(row["points"], row["games"])
        share = row["points"] / row["games"]
        lines.append(
            f"{game}: {challenger} against {against}: {row['points']:g} of {row['games']} "
            f"race games ({share:.2f}, {low:.2f}-{high:.2f}) in {row['matches']} matches"
        )
    return lines


def describe(summary: dict) -> str:
    """One line of a game's `searches_summary`."""
    n = summary["matches"]
    plays = "; ".join(f"{config} ({count} of {n})" for config, count in summary["plays"].items())
    rules = ", ".join(f"{stage} {count}" for stage, count in summary["rules"].items())
    verdicts: Counter[str] = Counter()
    for key, count in summary["verdicts"].items():
        kind = key.partition(":")[0]
        verdicts[SHORT.get(kind, kind)] += count
    races = ", ".join(f"{count} {kind}" for kind, count in verdicts.items()) or "none"
    if summary.get("races_too_small"):
        races += f" (ended, their games too small to judge, in {summary['races_too_small']})"
    if summary.get("parts"):
        rules += f"; trees over our part in {summary['parts']} of {n}"
    alone = summary.get("material_alone")
    learnt = f"{summary['heuristic']} of {n}"
    if alone:
        learnt += f" (the material alone in {alone})"
    timed = summary.get("race_seconds")
    if timed:
        races += (
            f"; races took {timed['searches']:.0f} s of the searches and "
            f"{timed['pondering']:.0f} s of pondering (the tree's {timed['tree_pondering']:.0f} s)"
            f" in {timed['matches']} matches"
        )
    return (
        f"played {plays or 'without races'}; rules: {rules}; heuristic learnt in "
        f"{learnt}; decisive on finishers in "
        f"{summary['decisive_finishers']} of {n}; race verdicts: {races}; "
        f"tactical finds: {summary['tactics_found']} ({summary.get('tactics_wins', 0)} wins, "
        f"{summary.get('tactics_overrides', 0)} overrides of the search's choice); "
        f"replies over the most visited: {summary.get('passed_over', 0)}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path, help="serve logs (ggp serve's log file)")
    parser.add_argument(
        "--tally",
        action="store_true",
        help="the races' games summed over each game's matches, challenger by challenger",
    )
    args = parser.parse_args(argv)
    if args.tally:
        searches = {}
        for path in args.logs:
            searches.update(searches_of(path))
        print("\n".join(describe_tally(race_tally(searches))))
        return 0
    for path in args.logs:
        for match_id, decisions in searches_of(path).items():
            print(f"{match_id}: {describe(searches_summary([decisions]))}")
            for verdict in decisions["verdicts"]:
                print(f"    {verdict['verdict']}: {verdict['challenger']}, {verdict['record']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
