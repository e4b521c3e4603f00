"""Look games up by name (``connect_four:width=5,height=4``) or by ``.kif`` path."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from ggp.games.base import Game, GameError

NATIVE_GAMES = {
    "tictactoe": "ggp.games.tictactoe:TicTacToe",
    "connect_four": "ggp.games.connect_four:ConnectFour",
    "othello": "ggp.games.othello:Othello",
    "ultimate_tictactoe": "ggp.games.ultimate_tictactoe:UltimateTicTacToe",
    "hex": "ggp.games.hex:Hex",
    "breakthrough": "ggp.games.breakthrough:Breakthrough",
}
"""Built-in native games: name -> ``module:class``; options are constructor keywords."""

GDL_DIR = Path(__file__).parent / "gdl"
GDL_II_DIR = Path(__file__).parent / "gdl2"
"""GDL-II games shipped as examples (hidden information and chance), played by name."""


def gdl_ii_games() -> tuple[str, ...]:
    """The names of the shipped GDL-II games (``monty_hall``...)."""
    return tuple(sorted(path.stem for path in GDL_II_DIR.glob("*.kif")))


def parse_spec(spec: str, what: str = "game") -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and its options.

    `what` names the kind of thing in error messages (game, agent...).
    """
    name, _, rest = spec.partition(":")
    options: dict[str, str] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameError(f"bad {what} option {item!r} in {spec!r}: expected key=value")
        options[key.strip()] = value.strip()
    return name.strip(), options


def _convert_options(cls: type, spec: str, options: dict[str, str]) -> dict[str, object]:
    params = {
        p.name: p for p in inspect.signature(cls).parameters.values() if p.kind == p.KEYWORD_ONLY
    }
    converted: dict[str, object] = {}
    for key, text in options.items():
        if key not in params:
            known = ", ".join(f"{p}={params[p].default}" for p in params) or "none"
            raise GameError(f"{spec}: unknown option {key!r}; options: {known}")
        kind = type(params[key].default)
        try:
            converted[key] = kind(text)
        except ValueError:
            raise GameError(f"{spec}: option {key} must be {kind.__name__}, got {text!r}") from None
    return converted


def load_game(spec: str, *, gdl: bool = False, reasoner: str = "auto") -> Game:
    """The game named by `spec`: a built-in name with options, or a ``.kif`` path.

    With ``gdl=True`` a built-in game is loaded from its GDL twin in
    ``games/gdl/`` instead of the native Python implementation.  A GDL game
    is played by the `reasoner` asked for (`ggp.gdl.load`: auto, compiled or
    interpreter).
    """
    name, options = parse_spec(spec)
    if name.endswith(".kif") or Path(name).suffix == ".kif":
        return _load_kif(Path(name), options, reasoner=reasoner)
    if name in gdl_ii_games():
        return _load_kif(GDL_II_DIR / f"{name}.kif", options, name=name, reasoner=reasoner)
    if name not in NATIVE_GAMES:
        raise GameError(
            f"unknown game {name!r}; built-in games: {', '.join(NATIVE_GAMES)}; "
            f"GDL-II games: {', '.join(gdl_ii_games())}; or give the path of a .kif file"
        )
    if gdl:
        if options:
            raise GameError(f"{name}: the GDL twin has no options; drop {spec.partition(':')[2]!r}")
        twin = _load_kif(GDL_DIR / f"{name}.kif", {}, name=name, reasoner=reasoner)
        twin.board_view = _native_game(name)  # draw the twin's states as the native board
        return twin
    cls = _native_game_class(name)
    return cls(**_convert_options(cls, spec, options))


def _native_game_class(name: str) -> type:
    module_name, _, class_name = NATIVE_GAMES[name].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def _native_game(name: str) -> Game:
    return _native_game_class(name)()


def _load_kif(
    path: Path, options: dict[str, str], name: str | None = None, reasoner: str = "auto"
) -> Game:
    if options:
        raise GameError(f"{path}: a .kif game takes no options")
    if not path.is_file():
        raise GameError(f"no such game file: {path}")
    from ggp.gdl.load import game_from_file  # the GDL reasoner is only loaded when needed

    return game_from_file(path, name=name, reasoner=reasoner)
