"""The one place where rules text received from a game manager becomes a `Game`.

Today the rules are interpreted by `gdl.game.GdlGame`; a compiled reasoner
will be switched in here, and only here, when it is ready.
"""

from __future__ import annotations

from games.base import Game
from gdl.game import GdlGame

GAME_NAME = "gdl"
"""The name of every game received: the protocol does not name games (state
tables are found by the hash of the rules, see `player.state_table`)."""


def game_from_text(text: str, source: str) -> Game:
    """The game described by the GDL `text`; `source` names it in error messages.

    Raises `games.base.GameError` (a syntax error, or rules that are not valid
    GDL, with every fault listed).
    """
    return GdlGame.from_text(text, GAME_NAME, source)
