"""Where the referee gets a game and the GDL text of its rules.

Remote players need the rules as GDL text; the referee needs a `Game` to
judge moves.  A ``.kif`` game is both.  A built-in game keeps its native
rules for the referee and the in-process agents (they are fast, and agree move
for move with their GDL twins), and sends its GDL twin
(``games/gdl/NAME.kif``) to remote players; without a twin (or with options,
which the twins do not have) only in-process players can play it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.games.base import Game
from ggp.games.registry import GDL_DIR, load_game, parse_spec
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.load import game_from_text
from ggp.gdl.syntax.terms import rules_text


@dataclass(frozen=True)
class RefereeGame:
    """A game as the referee runs it."""

    spec: str
    """How the game was named (a built-in game with options, or a ``.kif`` path)."""
    game: Game
    rules: str | None
    """The canonical GDL text of the rules (one rule a line, no comments), or None."""


def game_from_rules(text: str, name: str = "gdl") -> Game:
    """The game described by GDL `text` (the one place the referee builds one),
    compiled when it compiles within its budget (`ggp.gdl.load`)."""
    return game_from_text(text, name)


def referee_game(spec: str, *, gdl: bool = False) -> RefereeGame:
    """The game named by `spec` (see `ggp.games.registry.load_game`) and its GDL text."""
    game = load_game(spec, gdl=gdl)
    if isinstance(game, GdlGame):
        return RefereeGame(spec, game, rules_text(game.rules))
    name, options = parse_spec(spec)
    twin = GDL_DIR / f"{name}.kif"
    if options or not twin.is_file():
        return RefereeGame(spec, game, None)
    return RefereeGame(spec, game, rules_text(GdlGame.from_file(twin, name=name).rules))


def referee_game_from_text(text: str, name: str) -> RefereeGame:
    """The game described by GDL `text` (pasted or uploaded), named `name`."""
    game = game_from_rules(text, name)
    assert isinstance(game, GdlGame)
    return RefereeGame(name, game, rules_text(game.rules))
