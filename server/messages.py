"""The referee's side of the GGP protocol: the messages it sends, the replies it reads.

Messages are spelt as GGP-Base's game manager spells them (keywords in upper
case: players must accept any case), with moves and rules in the canonical KIF
text of the rules.  Replies are read leniently in layout (whitespace) and
strictly in spelling: a move is compared with the legal moves case-sensitively,
as real managers do.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggp.games.base import canonical_move


def clock_text(seconds: float) -> str:
    """A clock as the protocol writes it: whole seconds (``10``), or a decimal
    for the short fractional clocks tests use (``0.5``)."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def start_message(
    match_id: str, role: str, rules: str, start_clock: float, play_clock: float
) -> str:
    """``(START id role (rules...) startclock playclock)``, on one line.

    `rules` must be free of comments (the canonical text of `ggp.server.rules`):
    its line breaks become spaces.
    """
    return (
        f"(START {match_id} {role} ({' '.join(rules.split())}) "
        f"{clock_text(start_clock)} {clock_text(play_clock)})"
    )


def joint_text(joint: Sequence[str] | None) -> str:
    """A joint move as `play` and `stop` carry it: ``(m1 m2)``, or ``NIL`` before the first."""
    return "NIL" if joint is None else f"({' '.join(joint)})"


def play_message(match_id: str, joint: Sequence[str] | None) -> str:
    """``(PLAY id NIL)`` for the first move, then ``(PLAY id (m1 m2 ...))``."""
    return f"(PLAY {match_id} {joint_text(joint)})"


def percepts_text(percepts: Sequence[str]) -> str:
    """A GDL-II role's percepts as a message carries them: ``(p1 p2)``, ``NIL`` if none."""
    return f"({' '.join(percepts)})" if percepts else "NIL"


def gdl_ii_message(
    kind: str, match_id: str, turn: int, move: str | None, percepts: Sequence[str]
) -> str:
    """A GDL-II ``PLAY`` or ``STOP`` (`kind`) as the Dresden GameController sends it:
    ``(PLAY id TURN LASTMOVE PERCEPTS)``, where TURN counts the joint moves played,
    LASTMOVE is the receiver's own last move and PERCEPTS what it saw of it
    (``(PLAY id 0 NIL NIL)`` at the first turn); never the others' moves."""
    return f"({kind} {match_id} {turn} {move or 'NIL'} {percepts_text(percepts)})"


def stop_message(match_id: str, joint: Sequence[str]) -> str:
    """``(STOP id (m1 m2 ...))``: the last joint move, which ended the game."""
    return f"(STOP {match_id} {joint_text(joint)})"


def abort_message(match_id: str) -> str:
    """``(ABORT id)``."""
    return f"(ABORT {match_id})"


def parse_move(reply: str) -> str | None:
    """The move a `play` reply names, in canonical layout; None if it is not one term.

    ``( mark 1  2 )`` gives ``(mark 1 2)``; case is kept.  Garbage (unbalanced
    parentheses, several terms, nothing, a list starting with a list) gives
    None, which the referee records as ``IL null``.
    """
    text = reply.strip()
    if not text:
        return None
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return None
        elif char.isspace() and depth == 0:
            return None  # a second term follows at the top level
        if depth == 0 and index < len(text) - 1 and char == ")":
            return None  # something after the closing parenthesis
    if depth != 0:
        return None
    move = canonical_move(text)
    if move.startswith("((") or move == "()" or ";" in move:
        return None
    return move
