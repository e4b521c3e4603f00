"""Reading the facts of a two-player board game back into bitboards.

Connect Four, Othello, Hex and Breakthrough all describe a state by facts
``(RELATION X Y ROLE)`` for the stones and ``(control ROLE)`` for the role on
move; `read_board_facts` checks and decodes that shape once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ggp.games.base import GameError


def read_board_facts(
    facts: Sequence[str],
    *,
    game: str,
    relation: str,
    roles: Sequence[str],
    square: Callable[[str, str], int | None],
) -> tuple[list[int], int]:
    """Bitboards per role and the index of the role in control.

    `square` maps the texts of X and Y to a bit index, or None when they name
    no square. A fact of another shape, a second stone on a square, or other
    than exactly one control fact raises GameError naming the game.
    """
    bits = [0] * len(roles)
    occupied = 0
    movers = []
    for fact in facts:
        parts = fact.strip("()").split() or [""]
        if parts[0] == relation and len(parts) == 4 and parts[3] in roles:
            index = square(parts[1], parts[2])
            if index is not None and not occupied >> index & 1:
                bits[roles.index(parts[3])] |= 1 << index
                occupied |= 1 << index
                continue
        elif parts[0] == "control" and len(parts) == 2 and parts[1] in roles:
            movers.append(roles.index(parts[1]))
            continue
        raise GameError(f"not a fact of {game} (or a repeated square): {fact!r}")
    if len(movers) != 1:
        raise GameError(f"{game} facts need exactly one control fact, got {len(movers)}")
    return bits, movers[0]
