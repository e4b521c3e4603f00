"""Replaying recorded playouts against a game, step by step.

The recordings are those of ``../shared/gdl-corpus`` (see its README): one
JSON object per playout, in a gzip file, with every state, the legal moves of
every role in it and the joint move played, then the last state and its
goals.  They were made by an independent reasoner and are lower-cased, so
texts are compared case-insensitively.

A playout agrees when, at every step, the state, each role's legal moves and
the next state are the recorded ones, and at the end the state is terminal
(unless the recording was truncated) with the recorded goals.  Where the
recording reports that the reference failed (a role without exactly one goal
value), the playout agrees if our game raises `GameDefinitionError` in that
same state.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ggp.games.base import Game, GameDefinitionError, GameError, State


@dataclass
class Disagreement:
    """The first point where a playout and the game differ."""

    playout: int
    step: int
    what: str
    expected: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)
    state: tuple[str, ...] = ()

    def describe(self) -> str:
        """A few lines: where, what, and the difference of the two sets."""
        lines = [f"playout {self.playout}, step {self.step}: {self.what}"]
        expected, computed = set(self.expected), set(self.computed)
        if expected or computed:
            missing = sorted(expected - computed)
            extra = sorted(computed - expected)
            if missing:
                lines.append(f"  expected but not computed: {' '.join(missing)}")
            if extra:
                lines.append(f"  computed but not expected: {' '.join(extra)}")
            if not missing and not extra:
                lines.append(f"  expected {self.expected}, computed {self.computed}")
        if self.state:
            lines.append(f"  in state: {' '.join(self.state)}")
        return "\n".join(lines)


@dataclass
class ReplayReport:
    """What replaying a game's recorded playouts found."""

    playouts: int = 0
    agreeing_playouts: int = 0
    steps: int = 0
    agreeing_steps: int = 0
    recorded_errors: int = 0
    states: int = 0
    simultaneous_states: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.disagreements and self.agreeing_playouts == self.playouts

    def add(self, other: ReplayReport) -> None:
        """Add the counts of another report (of another game) to this one."""
        for name in (
            "playouts",
            "agreeing_playouts",
            "steps",
            "agreeing_steps",
            "recorded_errors",
            "states",
            "simultaneous_states",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.disagreements += other.disagreements


def read_playouts(path: str | Path) -> Iterator[dict]:
    """The recorded playouts of a ``.jsonl.gz`` (or plain ``.jsonl``) file."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError as error:
                        raise GameError(f"{path}, line {number}: not JSON: {error}") from None
    except OSError as error:
        raise GameError(f"cannot read traces {path}: {error}") from None


def _lower(texts) -> list[str]:
    return sorted(text.lower() for text in texts)


class _Mismatch(Exception):
    def __init__(self, disagreement: Disagreement) -> None:
        self.disagreement = disagreement


def replay(game: Game, playouts: Iterator[dict]) -> ReplayReport:
    """Replay every playout against `game`; count agreements, keep disagreements."""
    report = ReplayReport()
    for record in playouts:
        report.playouts += 1
        try:
            _replay_one(game, record, report)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(
                f"recorded playout {report.playouts} is not in the corpus trace format "
                f"({type(error).__name__}: {error})"
            ) from None
        except _Mismatch as mismatch:
            report.disagreements.append(mismatch.disagreement)
        else:
            report.agreeing_playouts += 1
    return report


def _replay_one(game: Game, record: dict, report: ReplayReport) -> None:
    report.steps += len(record["steps"])
    if "error" in record:
        report.recorded_errors += 1
    number = record.get("playout", report.playouts - 1)
    roles = [role.lower() for role in game.roles]
    if roles != [role.lower() for role in record["roles"]]:
        raise _Mismatch(Disagreement(number, 0, "the roles differ", record["roles"], roles))
    state = game.initial_state()
    for step, recorded in enumerate(record["steps"]):
        _compare_state(state, recorded["state"], number, step, "state")
        try:
            if state.is_terminal():
                raise _Mismatch(
                    Disagreement(
                        number, step, "computed terminal, recorded not", state=state.facts()
                    )
                )
            legal = state.all_legal_moves()
            _check_legal(legal, recorded["legal"], roles, number, step, state)
            report.states += 1
            if sum(len(moves) > 1 for moves in legal) > 1:
                report.simultaneous_states += 1
            joint = [
                _spelled(moves, move) for moves, move in zip(legal, recorded["joint"], strict=True)
            ]
            state = state.next(joint)
        except GameError as error:
            raise _Mismatch(
                Disagreement(number, step, f"our game raised: {error}", state=state.facts())
            ) from None
        report.agreeing_steps += 1
    last = len(record["steps"])
    _compare_state(state, record["terminal_state"], number, last, "last state")
    _check_end(state, record, roles, number, last)


def _compare_state(state: State, recorded: list[str], number: int, step: int, what: str) -> None:
    computed = _lower(state.facts())
    if computed != sorted(recorded):
        raise _Mismatch(Disagreement(number, step, f"the {what} differs", recorded, computed))


def _check_legal(legal, recorded: dict, roles: list[str], number: int, step: int, state) -> None:
    by_role = {role.lower(): moves for role, moves in recorded.items()}
    for role, moves in zip(roles, legal, strict=True):
        if _lower(moves) != sorted(by_role.get(role, [])):
            raise _Mismatch(
                Disagreement(
                    number,
                    step,
                    f"the legal moves of {role} differ",
                    by_role.get(role, []),
                    _lower(moves),
                    state.facts(),
                )
            )


def _spelled(moves: tuple[str, ...], recorded: str) -> str:
    """Our spelling of a recorded (lower-cased) move."""
    return next((move for move in moves if move.lower() == recorded), recorded)


def _check_end(state: State, record: dict, roles: list[str], number: int, step: int) -> None:
    try:
        terminal = state.is_terminal()
        if record.get("truncated"):
            if terminal:
                raise _Mismatch(
                    Disagreement(
                        number,
                        step,
                        "computed terminal, but the recording "
                        "was truncated in a non-terminal state",
                        state=state.facts(),
                    )
                )
            return
        if not terminal:
            raise _Mismatch(
                Disagreement(number, step, "recorded terminal, computed not", state=state.facts())
            )
        goals = state.goals()
    except GameDefinitionError as error:
        if "error" in record:
            return
        raise _Mismatch(
            Disagreement(number, step, f"our game raised: {error}", state=state.facts())
        ) from None
    if "error" in record:
        raise _Mismatch(
            Disagreement(
                number,
                step,
                f"the recording failed here ({record['error']}) but our game gave goals "
                f"{list(goals)}",
                state=state.facts(),
            )
        )
    recorded_goals = {role.lower(): value for role, value in record["goals"].items()}
    expected = [f"{role}={recorded_goals.get(role)}" for role in roles]
    computed = [f"{role}={goal}" for role, goal in zip(roles, goals, strict=True)]
    if expected != computed:
        raise _Mismatch(Disagreement(number, step, "the goals differ", expected, computed))
