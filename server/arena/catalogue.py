"""The games an arena offers, how a request names one, and how its states are shown.

A request never names a file: a game is a built-in name (with options), the
name of a ``.kif`` file as listed from the ``--games`` folder (looked up in
that listing), or GDL text sent with the request.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

from ggp.games.base import Game, GameError, State
from ggp.games.registry import NATIVE_GAMES, gdl_ii_games, load_game, parse_spec
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.syntax.growth import growth_fault
from ggp.gdl.syntax.parser import parse_rules
from ggp.gdl.syntax.terms import arguments, relation, to_kif
from ggp.server.rules import RefereeGame, referee_game, referee_game_from_text

MAX_RULES = 200_000
"""Characters of GDL accepted in one request (the corpus's largest game has ~60,000)."""

_LINE = re.compile(r"^line (\d+)(?:, column (\d+))?:\s*")


def builtin_games() -> list[dict[str, Any]]:
    """The built-in games: name, roles, options with their defaults; the shipped GDL-II
    games (`ggp.games.registry.gdl_ii_games`) after the native ones."""
    listed = []
    for name in (*NATIVE_GAMES, *gdl_ii_games()):
        game = load_game(name, reasoner="interpreter")
        listed.append(
            {
                "name": name,
                "roles": list(game.roles),
                "options": _options(game),
                "board": board_of(game),
            }
        )
    return listed


def _options(game: Game) -> dict[str, int]:
    params = inspect.signature(type(game)).parameters.values()
    return {p.name: p.default for p in params if p.kind == p.KEYWORD_ONLY}


def kif_files(folder: Path | None) -> dict[str, Path]:
    """The ``.kif`` files directly in `folder`, by file name."""
    if folder is None or not folder.is_dir():
        return {}
    return {path.name: path for path in sorted(folder.glob("*.kif")) if path.is_file()}


def builtin_spec(spec: str) -> str:
    """`spec` if it names a built-in game (with options); a `GameError` otherwise, which
    says nothing of files: a built-in game is a name, never a path."""
    name, _ = parse_spec(spec)
    if name not in NATIVE_GAMES and name not in gdl_ii_games():
        shown = name if re.fullmatch(r"[A-Za-z0-9_]{1,40}", name) else "(not a game name)"
        known = ", ".join((*NATIVE_GAMES, *gdl_ii_games()))
        raise GameError(f"unknown built-in game {shown}; games: {known}")
    return spec


def resolve_game(request: dict[str, Any], folder: Path | None) -> RefereeGame:
    """The game a request names: ``{"builtin": SPEC, "gdl": bool}``, ``{"file": NAME}``
    or ``{"rules": TEXT, "name": NAME}``; a `GameError` saying what is wrong otherwise."""
    if not isinstance(request, dict):
        raise GameError("game: expected an object")
    if isinstance(builtin := request.get("builtin"), str):
        return referee_game(builtin_spec(builtin), gdl=bool(request.get("gdl")))
    if isinstance(file := request.get("file"), str):
        path = kif_files(folder).get(file)
        if path is None:
            raise GameError(f"no game file {file!r} in the arena's games folder")
        return playable(referee_game(str(path)))
    if isinstance(rules := request.get("rules"), str):
        if len(rules) > MAX_RULES:
            raise GameError(f"rules of {len(rules)} characters; at most {MAX_RULES} accepted")
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(request.get("name") or ""))[:60].strip("-.")
        return playable(referee_game_from_text(rules, name or _name_of_roles(rules)))
    raise GameError("game: give builtin, file or rules")


def _name_of_roles(rules: str) -> str:
    """A pasted game's name when its person gave none: its roles (``left-right``);
    ``pasted`` if they cannot be read (the game's load then says why)."""
    try:
        parsed = parse_rules(rules)
    except GameError:
        return "pasted"
    roles = [to_kif(arguments(rule.head)[0]) for rule in parsed if relation(rule.head) == "role"]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(roles))[:60].strip("-.")
    return name or "pasted"


def playable(game: RefereeGame) -> RefereeGame:
    """`game`, unless its rules make terms grow without bound (`GameError`): such a
    game's states grow until the referee breaks down (`ggp.gdl.syntax.growth`)."""
    if isinstance(game.game, GdlGame) and (fault := growth_fault(game.game.rules)):
        raise GameError(f"this game cannot be played: {fault}")
    return game


def faults_of(error: GameError) -> list[dict[str, Any]]:
    """The faults of rules that could not be loaded, each with its line where known."""
    line = getattr(error, "line", 0)
    if line:
        return [{"line": line, "column": getattr(error, "column", 0), "message": error.reason}]
    faults = getattr(error, "faults", None)
    if not faults:
        return [{"line": None, "column": None, "message": str(error)}]
    found = []
    for fault in faults:
        match = _LINE.match(fault)
        found.append(
            {
                "line": int(match.group(1)) if match else None,
                "column": int(match.group(2)) if match and match.group(2) else None,
                "message": fault[match.end() :] if match else fault,
            }
        )
    return found


def board_of(game: Game) -> dict[str, Any] | None:
    """What the page needs to draw `game`'s board: a built-in game or a GDL twin
    (drawn as its native game); None for any other game (its facts are shown)."""
    native = game if parse_spec(game.name)[0] in NATIVE_GAMES else None
    native = getattr(game, "board_view", None) or native
    if native is None or parse_spec(native.name)[0] not in NATIVE_GAMES:
        return None
    board: dict[str, Any] = {"kind": parse_spec(native.name)[0]}
    for size in ("width", "height", "size"):
        if isinstance(value := getattr(native, size, None), int):
            board[size] = value
    return board


def board_for_spec(spec: str | None) -> dict[str, Any] | None:
    """`board_of` the game a log names, without loading GDL: built-in names only."""
    if not spec:
        return None
    try:
        name, _ = parse_spec(spec)
        return board_of(load_game(spec)) if name in NATIVE_GAMES else None
    except GameError:
        return None


def state_view(state: State) -> dict[str, Any]:
    """A state as the page shows it: facts, each role's legal moves, goals at the end."""
    terminal = state.is_terminal()
    return {
        "facts": list(state.facts()),
        "terminal": terminal,
        "legal": [] if terminal else [list(moves) for moves in state.all_legal_moves()],
        "goals": list(state.goals()) if terminal else None,
    }
