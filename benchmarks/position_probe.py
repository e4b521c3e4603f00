"""Ask another GGP player, over HTTP, for its move in logged positions.

    python benchmarks/position_probe.py POSITIONS.json --player http://127.0.0.1:9160 \\
        [--role 1] [--startclock 10] [--playclock 10] [--limit N] --out ANSWERS.json

The positions are `benchmarks/position_accuracy.py`'s (a match log, a step, the role on
move and the exact value of each legal move); the player is any GGP player, Sancho 1.61c
say, so that its choices can be graded on the positions ours were graded on.  Each
position becomes a match of its own: the log's rules with an empty start and one forced
joint move (the first role's ``probego``, every other role's ``noop``) that puts the
position down.  The player gets START, PLAY NIL (it answers the forced move), PLAY with
the forced joint move (it answers the position's move: that is the answer kept), and
ABORT.  Handing the position over as the initial state instead misleads a player that
analyses the rules from their start: Sancho's factor analysis splits such a Connect Four
board in two ("Num factors: 2" in its log) and then plays blind.

Our own reasoner checks each setup first: after the forced move its state must be the
logged one.  An answer that is late, not a move or not legal is recorded as such (the
player may have to be restarted: Sancho, hung on a position, answers nothing more); a
rerun with the same ``--out`` asks only the positions without an answer.  At the end the
answers are graded: how often the player's move kept the position's best value, beside
how often the move played in the match did, position by position (two-sided sign test).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ggp.games.base import Game, State  # noqa: E402
from ggp.player.agent_base import Clocks  # noqa: E402
from ggp.server.messages import parse_move  # noqa: E402
from ggp.server.players import MatchSetup  # noqa: E402
from ggp.server.remote import RemotePlayer  # noqa: E402
from ggp.server.rules import referee_game_from_text  # noqa: E402
from ggp.server.stats import sign_test, wilson_interval  # noqa: E402
from position_accuracy import Position  # noqa: E402
from root_diagnosis import replay  # noqa: E402

INIT_RULE = re.compile(r"\s*\((<=\s*\()?init\b")
"""An init fact, or a rule whose head is one (one rule a line)."""
SETUP_FACT = "probesetup"
SETUP_MOVE = "probego"


def setup_rules(rules: str, facts: Sequence[str], roles: Sequence[str]) -> str:
    """`rules` (one rule a line) started from nothing, with one forced joint move that
    makes `facts` the state: the first role's ``probego``, the others' ``noop``.  The
    game does not end in that empty start (`guard_terminal`)."""
    for word in (SETUP_FACT, SETUP_MOVE):
        if word in rules:
            raise ValueError(f"the rules already use {word!r}: it cannot mark the setup")
    kept = [guard_terminal(line) for line in rules.splitlines() if not INIT_RULE.match(line)]
    if any(re.search(r"\(init\b", line) for line in kept):
        raise ValueError("an init rule shares a line with another: one rule a line")
    declared = {
        word for word in ("base", "input") if re.search(rf"^\((<= \()?{word}\b", rules, re.M)
    }
    declarations = [f"(base {SETUP_FACT})"] if "base" in declared else []
    if "input" in declared:  # the rules name every move: name the setup's too
        declarations += [f"(input {roles[0]} {SETUP_MOVE})"]
        declarations += [f"(input {role} noop)" for role in roles[1:]]
    return "\n".join(
        [
            *kept,
            *declarations,
            f"(init {SETUP_FACT})",
            f"(<= (legal {roles[0]} {SETUP_MOVE}) (true {SETUP_FACT}))",
            *(f"(<= (legal {role} noop) (true {SETUP_FACT}))" for role in roles[1:]),
            *(f"(<= (next {fact}) (true {SETUP_FACT}))" for fact in facts),
        ]
    )


def guard_terminal(line: str) -> str:
    """A rule for ``terminal`` that does not hold in the setup's empty start (where, in
    tic-tac-toe say, no blank cell would mean a full board); other rules unchanged."""
    if re.match(r"\s*\(<=\s+terminal\b", line):
        return f"{line.rstrip()[:-1]} (not (true {SETUP_FACT})))"
    if line.strip() == "terminal":
        return f"(<= terminal (not (true {SETUP_FACT})))"
    return line


def setup_joint(roles: Sequence[str]) -> list[str]:
    """The forced joint move that puts the position down."""
    return [SETUP_MOVE] + ["noop"] * (len(roles) - 1)


def logged_position(match: dict, step: int) -> tuple[str, State]:
    """The rules of a match log (one rule a line) and the state before its step `step`,
    played by our reasoner."""
    if not match.get("x-rules"):
        raise ValueError("the log holds no rules (x-rules): it cannot be set up")
    referee = referee_game_from_text(match["x-rules"], "probed")
    assert referee.rules is not None
    return referee.rules, replay(referee.game, match["moves"], step)


def checked_setup(match: dict, step: int) -> tuple[Game, str, State]:
    """The setup game of a logged position, its rules' text, and the position in it;
    raises ValueError where the forced move does not lead to the logged state."""
    rules, state = logged_position(match, step)
    roles = state.game.roles
    referee = referee_game_from_text(setup_rules(rules, state.facts(), roles), "probe")
    after = referee.game.initial_state().next(setup_joint(roles))
    if after.facts() != state.facts():
        raise ValueError(f"step {step}: the setup does not lead to the logged position")
    assert referee.rules is not None
    return referee.game, referee.rules, after


async def ask(
    url: str, game: Game, rules: str, position: State, role: int, clocks: Clocks, match_id: str
) -> tuple[str | None, str]:
    """The move of the player at `url` in `position` (after the forced setup move) as
    role index `role`: (move, "") or (None, what went wrong)."""
    player = RemotePlayer(url)
    setup = MatchSetup(match_id, game, rules, clocks, grace=5.0)
    started = False
    try:
        reply = await player.start(setup, role)
        if reply.text is None:
            return None, f"start: {reply.error} ({player.problem})"
        started = True
        first = await player.play(game.initial_state(), None)
        if first.text is None:
            return None, f"the setup move: {first.error} ({player.problem})"
        reply = await player.play(position, setup_joint(game.roles))
    finally:
        if started:
            await player.abort()
        await player.close()
    if reply.text is None:
        return None, f"the position's move: {reply.error} ({player.problem})"
    move = parse_move(reply.text)
    if move is None or move not in position.legal_moves(role):
        return None, f"not a legal move: {reply.text[:80]!r}"
    return move, ""


def probe(
    positions: list[Position],
    url: str,
    clocks: Clocks,
    answers: list[dict],
    keep: Callable[[list[dict]], None],
) -> list[dict]:
    """Ask each position not yet answered in `answers`; `keep` is given the answers after each."""
    done = {(a["log"], a["step"]) for a in answers if a.get("answer")}
    answers = [a for a in answers if a.get("answer")]
    for index, position in enumerate(positions):
        if (position.log, position.step) in done:
            continue
        match = json.loads(Path(position.log).read_text())
        game, rules, state = checked_setup(match, position.step)
        match_id = f"probe.{int(time.time())}.{index}"
        began = time.monotonic()
        move, problem = asyncio.run(ask(url, game, rules, state, position.role, clocks, match_id))
        answer = {
            **position.as_json(),
            "answer": move,
            "right": None if move is None else position.right(move),
            "problem": problem,
            "seconds": round(time.monotonic() - began, 1),
        }
        answers.append(answer)
        keep(answers)
        said = move if move is not None else problem
        print(f"{Path(position.log).name} step {position.step}: {said}", file=sys.stderr)
    return answers


def summary(answers: list[dict]) -> str:
    """How often the player's moves kept the best value, beside the moves played in
    the matches, position by position."""
    graded = [a for a in answers if a["answer"] is not None]
    if not graded:
        return f"no answers of {len(answers)} positions"
    positions = [
        Position.from_json({k: a[k] for k in Position.__dataclass_fields__}) for a in graded
    ]
    right = [a["right"] for a in graded]
    played = [p.right(p.played) for p in positions]
    better = sum(r and not p for r, p in zip(right, played, strict=True))
    worse = sum(p and not r for r, p in zip(right, played, strict=True))
    count = len(graded)
    low, high = wilson_interval(sum(right), count)
    lines = [
        f"answered {count} of {len(answers)} positions",
        f"the player's move kept the value at {sum(right)} of {count} "
        f"({sum(right) / count:.2f}, {low:.2f}-{high:.2f}); the move played in the match at "
        f"{sum(played)} of {count}",
        f"position by position against the match's move: {better} better, {worse} worse, "
        f"{count - better - worse} the same (two-sided sign test p {sign_test(better, worse):.3f})",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("positions", type=Path)
    parser.add_argument("--player", required=True, help="the player's URL")
    parser.add_argument("--role", type=int, help="only the positions of this role index")
    parser.add_argument("--startclock", type=float, default=10.0)
    parser.add_argument("--playclock", type=float, default=10.0)
    parser.add_argument("--limit", type=int, help="the first N positions only")
    parser.add_argument("--out", type=Path, required=True, help="answers (JSON; resumed)")
    args = parser.parse_args()
    positions = [Position.from_json(p) for p in json.loads(args.positions.read_text())]
    positions = [p for p in positions if args.role is None or p.role == args.role]
    positions = positions[: args.limit] if args.limit else positions
    answers = json.loads(args.out.read_text()) if args.out.exists() else []

    def keep(found: list[dict]) -> None:
        args.out.write_text(json.dumps(found, indent=1) + "\n")

    clocks = Clocks(args.startclock, args.playclock)
    answers = probe(positions, args.player, clocks, answers, keep)
    keep(answers)
    print(summary(answers))


if __name__ == "__main__":
    main()
