"""The messages of the GGP protocol, read from text, and the replies, written as text.

Messages are read with the GDL s-expression reader (`ggp.gdl.syntax.parser.parse_sexprs`):
nothing in a message is ever evaluated, and a message that is not one well-formed
list of a known kind is a `ProtocolError` whose text says what is wrong.
Keywords (``INFO``, ``Play``, ``nil``) are read in any case; moves are read as
terms, so ``( mark 1  2 )`` arrives as ``(mark 1 2)``, case kept.  See
``docs/protocol.md`` in the shared material for the message table.

A GDL-II match (rules with ``sees``) gets ``play`` and ``stop`` as the Dresden
GameController sends them: ``(play MATCHID TURN LASTMOVE PERCEPTS)``, our own last
move and what we saw of it (`Play.gdl_ii`); see ``docs/gdl-ii.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ggp.gdl.syntax.errors import GdlSyntaxError
from ggp.gdl.syntax.parser import SExpr, parse_sexprs
from ggp.gdl.syntax.terms import to_kif

READY = "ready"
DONE = "done"
ABORTED = "aborted"
BUSY = "busy"
NIL = "nil"
"""The reply to a ``play`` the player cannot answer with a move (invalid rules)."""


class ProtocolError(ValueError):
    """A message that cannot be read; the text says why, for the reply and the log."""


@dataclass(frozen=True)
class Info:
    """``(info)``: is the player there, and can it take a match?"""

    kind = "info"


@dataclass(frozen=True)
class Start:
    """``(start MATCHID ROLE (RULES...) STARTCLOCK PLAYCLOCK)``."""

    match_id: str
    role: str
    rules: str
    """The rules as KIF text: one rule or fact per line, or as written in a long
    message (see `read_message`)."""
    start_clock: float
    play_clock: float
    kind = "start"


@dataclass(frozen=True)
class Seen:
    """What a GDL-II message tells: the turn (joint moves played so far), our own last
    move (None for ``nil``, at the first turn) and our percepts of it."""

    turn: int
    move: str | None
    percepts: tuple[str, ...]


@dataclass(frozen=True)
class Play:
    """``(play MATCHID MOVES)``: MOVES is the last joint move, None for ``nil``; or, in
    a GDL-II match, ``(play MATCHID TURN LASTMOVE PERCEPTS)``: `seen`, and no moves."""

    match_id: str
    moves: tuple[str, ...] | None
    seen: Seen | None = None
    kind = "play"


@dataclass(frozen=True)
class Stop:
    """``(stop MATCHID MOVES)``: the match is over after the joint move MOVES (or, in a
    GDL-II match, ``(stop MATCHID TURN LASTMOVE PERCEPTS)``, as `Play`)."""

    match_id: str
    moves: tuple[str, ...] | None
    seen: Seen | None = None
    kind = "stop"


@dataclass(frozen=True)
class Abort:
    """``(abort MATCHID)``: the match ends now, unfinished."""

    match_id: str
    kind = "abort"


@dataclass(frozen=True)
class Preview:
    """``(preview (RULES...) PREVIEWCLOCK)``: rules to look at before a match."""

    rules: str
    clock: float
    kind = "preview"


Message = Info | Start | Play | Stop | Abort | Preview

_SHAPES = {
    "info": "(info)",
    "start": "(start MATCHID ROLE (RULES...) STARTCLOCK PLAYCLOCK)",
    "play": "(play MATCHID MOVES), MOVES being nil or (MOVE...), "
    "or (play MATCHID TURN LASTMOVE PERCEPTS) in GDL-II",
    "stop": "(stop MATCHID MOVES), MOVES being nil or (MOVE...), "
    "or (stop MATCHID TURN LASTMOVE PERCEPTS) in GDL-II",
    "abort": "(abort MATCHID)",
    "preview": "(preview (RULES...) PREVIEWCLOCK)",
}

_CLOCK = re.compile(r"\d+(\.\d+)?")
_SHOWN = 80
"""How much of a message an error message quotes."""

READ_AT_ONCE = 4096
"""Longest message read whole by `read_message` (about 20 ms of reading at
worst); longer ones are start or preview messages only, looked at, not read."""

_PEEK = 1000
"""Characters of a long message's beginning and end looked at."""
_LONG_KIND = re.compile(r"\(\s*(start|preview)\b", re.IGNORECASE)
_LONG_START = re.compile(r'\(\s*start\s+([^\s()";]+)\s+([^\s()";]+)\s*\(', re.IGNORECASE)
_LONG_START_END = re.compile(r"\)\s*(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*\)\Z")
_LONG_PREVIEW_END = re.compile(r"\)\s*(\d+(?:\.\d+)?)\s*\)\Z")


def read_message(text: str) -> Message:
    """The message in `text`, with work bounded by `READ_AT_ONCE` whatever its length.

    A message up to that length is read whole (`parse_message`).  A longer one
    must be a ``start`` or a ``preview``; only its beginning and end are looked
    at: the match id, the role and the clocks of a start, whose rules are the
    text between, as written (they are read, in a child process, by the
    server's copy of the game, which reports what is wrong with them).
    """
    if len(text) <= READ_AT_ONCE:
        return parse_message(text)
    body = text.strip()
    head, tail = body[:_PEEK], body[-_PEEK:]
    kind = _LONG_KIND.match(head)
    if kind is None:
        raise ProtocolError(
            f"a message of {len(text)} characters must be a start or a preview "
            f"(other messages are at most {READ_AT_ONCE})"
        )
    if kind.group(1).lower() == "preview":
        end = _LONG_PREVIEW_END.search(tail)
        if end is None:
            raise ProtocolError(f"malformed preview message: expected {_SHAPES['preview']}")
        return Preview("", float(end.group(1)))
    start, end = _LONG_START.match(head), _LONG_START_END.search(tail)
    if start is None or end is None:
        raise ProtocolError(f"malformed start message: expected {_SHAPES['start']}")
    rules_end = len(body) - len(tail) + end.start()
    try:
        match_id = _symbol(start.group(1), "the match id")
        role = _symbol(start.group(2), "the role")
    except _ShapeError as error:
        raise ProtocolError(f"malformed start message: {error}") from None
    return Start(
        match_id, role, body[start.end() : rules_end], float(end.group(1)), float(end.group(2))
    )


def parse_message(text: str) -> Message:
    """The message written in `text`; `ProtocolError` if it is not one."""
    try:
        exprs = parse_sexprs(text)
    except GdlSyntaxError as error:
        raise ProtocolError(_cap(f"not a well-formed message: {error}")) from None
    if not exprs:
        raise ProtocolError("empty message")
    if len(exprs) > 1:
        raise ProtocolError(f"a message is one list, found {len(exprs)} expressions")
    (expr,) = exprs
    if isinstance(expr, str) or not expr or not isinstance(expr[0], str):
        raise ProtocolError(f"a message is a list starting with its type, not {_shown(expr)}")
    kind = expr[0].lower()
    if kind not in _SHAPES:
        known = ", ".join(_SHAPES)
        raise ProtocolError(_cap(f"unknown message type {expr[0]!r}; known types: {known}"))
    args = expr[1:]
    try:
        return _READERS[kind](args)
    except (_ShapeError, ValueError) as error:
        raise ProtocolError(f"malformed {kind} message {_shown(expr)}: {error}") from None


class _ShapeError(Exception):
    pass


def _arity(kind: str, args: tuple, count: int) -> None:
    if len(args) != count:
        raise _ShapeError(f"expected {_SHAPES[kind]}, got {len(args)} arguments")


def _symbol(expr: SExpr, what: str) -> str:
    if not isinstance(expr, str) or expr.startswith("?"):
        raise _ShapeError(f"{what} must be a symbol, not {_shown(expr)}")
    return expr


def _clock(expr: SExpr, what: str) -> float:
    if not isinstance(expr, str) or not _CLOCK.fullmatch(expr):
        raise _ShapeError(f"{what} must be a number of seconds, not {_shown(expr)}")
    return float(expr)


def _rules(expr: SExpr) -> str:
    if isinstance(expr, str):
        raise _ShapeError(f"the rules must be a list, not {_shown(expr)}")
    return "".join(to_kif(rule) + "\n" for rule in expr)


def _move(expr: SExpr) -> str:
    """A move term's canonical text; a move has no variables and no empty lists."""
    if isinstance(expr, str):
        if expr.startswith("?"):
            raise _ShapeError(f"a move cannot be a variable: {_shown(expr)}")
        return expr
    if not expr or not isinstance(expr[0], str):
        raise _ShapeError(f"a move is a symbol or (name arg...), not {_shown(expr)}")
    _symbol(expr[0], "the name of a move")
    for arg in expr[1:]:
        _move(arg)
    return to_kif(expr)


def _moves(expr: SExpr) -> tuple[str, ...] | None:
    if isinstance(expr, str):
        if expr.lower() == "nil":
            return None
        raise _ShapeError(f"the moves must be nil or a list of moves, not {_shown(expr)}")
    if not expr:  # (): no moves, as nil
        return None
    return tuple(_move(move) for move in expr)


def _read_start(args: tuple) -> Start:
    _arity("start", args, 5)
    match_id, role, rules, start_clock, play_clock = args
    return Start(
        _symbol(match_id, "the match id"),
        _symbol(role, "the role"),
        _rules(rules),
        _clock(start_clock, "the start clock"),
        _clock(play_clock, "the play clock"),
    )


def _read_play(args: tuple) -> Play:
    if len(args) == 4:
        return Play(_symbol(args[0], "the match id"), None, _seen(args[1:]))
    _arity("play", args, 2)
    return Play(_symbol(args[0], "the match id"), _moves(args[1]))


def _read_stop(args: tuple) -> Stop:
    if len(args) == 4:
        return Stop(_symbol(args[0], "the match id"), None, _seen(args[1:]))
    _arity("stop", args, 2)
    return Stop(_symbol(args[0], "the match id"), _moves(args[1]))


def _seen(args: tuple) -> Seen:
    """TURN LASTMOVE PERCEPTS of a GDL-II play or stop."""
    turn, move, percepts = args
    if not isinstance(turn, str) or not turn.isdigit():
        raise _ShapeError(f"the turn must be a number of joint moves, not {_shown(turn)}")
    last = None if isinstance(move, str) and move.lower() == NIL else _move(move)
    if isinstance(percepts, str):
        if percepts.lower() != NIL:
            raise _ShapeError(f"the percepts must be nil or a list, not {_shown(percepts)}")
        seen: tuple[str, ...] = ()
    else:
        seen = tuple(_move(percept) for percept in percepts)
    return Seen(int(turn), last, seen)


def _read_abort(args: tuple) -> Abort:
    _arity("abort", args, 1)
    return Abort(_symbol(args[0], "the match id"))


def _read_info(args: tuple) -> Info:
    _arity("info", args, 0)
    return Info()


def _read_preview(args: tuple) -> Preview:
    _arity("preview", args, 2)
    return Preview(_rules(args[0]), _clock(args[1], "the preview clock"))


_READERS = {
    "info": _read_info,
    "start": _read_start,
    "play": _read_play,
    "stop": _read_stop,
    "abort": _read_abort,
    "preview": _read_preview,
}


def _shown(expr: SExpr) -> str:
    return _cap(to_kif(expr), _SHOWN)


def _cap(text: str, length: int = 3 * _SHOWN) -> str:
    return text if len(text) <= length else text[: length - 3] + "..."


# ---------------------------------------------------------------- replies

_NAME = re.compile(r"[^\s();?\"][^\s();\"]*")


def check_name(name: str) -> str:
    """`name` if it can be the player's name in an info reply (one symbol); else ValueError."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"the player name must be one word without spaces, parentheses, quotes or ';' "
            f"(and not start with '?'): {name!r}"
        )
    return name


def info_reply(name: str, busy: bool) -> str:
    """``((name NAME) (status available))``, or ``busy`` when no match can be taken."""
    return f"((name {name}) (status {'busy' if busy else 'available'}))"


def error_reply(reason: str) -> str:
    """``(error "reason")``: a reply a manager cannot mistake for a move or ``ready``.

    The reason is put on one line, with double quotes and backslashes replaced.
    """
    flat = " ".join(reason.split()).replace("\\", "/").replace('"', "'")
    return f'(error "{flat}")'
