"""The one place where rules text received from a game manager becomes a `Game`.

The rules are compiled (`ggp.gdl.load`, reasoner ``native``) when that is done
within the default budget, and interpreted by `ggp.gdl.interpreter.game.GdlGame` otherwise;
a compiled game gets native code, built in the background, where cffi and a
C compiler are there.  All play identically.

A role the rules give no goal in a terminal state gets 0 here
(`GdlGame.count_missing_goals_as`): a referee reports such rules, but a
player's search (its playouts, native ones included) must go on playing them
(pacman3p leaves its ghosts without a goal in some of its ends).
"""

from __future__ import annotations

from ggp.games.base import Game
from ggp.gdl.load import game_from_text as load_gdl

GAME_NAME = "gdl"
"""The name of every game received: the protocol does not name games (state
tables are found by the hash of the rules, see `ggp.player.search.state_table`)."""


MISSING_GOAL = 0
"""What a role the rules give no goal in a terminal state counts for in the search."""


def game_from_text(text: str, source: str, reasoner: str = "native") -> Game:
    """The game described by the GDL `text`; `source` names it in error messages.

    `reasoner` is as in `ggp.gdl.load` (``native``, ``auto``, ``compiled``, ``interpreter``).
    Raises `ggp.games.base.GameError` (a syntax error, or rules that are not valid
    GDL, with every fault listed).
    """
    game = load_gdl(text, GAME_NAME, source, reasoner=reasoner)
    game.count_missing_goals_as(MISSING_GOAL)
    return game
