"""The served search's playouts (`ServePlayout`): random ones on the interpreter,
stopped at the search's deadline, and on native code decisive ones where they pay
(`decisive_suits`): a playout move that wins at once is taken, and one after which
the opponent can win at once avoided, looking for those wins among the game's
finishing moves where they are few (`serve_finishers`).  The trees over parts
(`ggp.player.search.factored`) play decisive part playouts where our role has few
moves in the part (`part_decisive_suits`)."""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import Callable

from ggp.games.base import Finishers, Game, GameDefinitionError, State
from ggp.games.playouts import FINISHING_MOVES, RANDOM, Decisive
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.player.search.evaluation import RandomPlayout
from ggp.player.search.tree import Rewards

SEARCH_DECISIVE = 1000
"""Playout moves with decisive and anti-decisive moves (`playouts.Decisive`;
1000: every move of these games' playouts) in the search of a game where
`decisive_suits` says they pay.  Against this search without them (1 s a move,
native code) they won Connect Four: 0.700 (0.55-0.82), 40 matches, for 0.34 of
the simulations per CPU-second (docs/mcts-enhancements.md)."""

SEARCH_DECISIVE_MOVES = 10
"""The most legal moves a role may have in the initial state for the search to
play decisive playouts.  A playout move looked at costs a next state per move
of the mover and per reply of the opponent, so the cost grows with the square
of the moves: at Connect Four's 8 the playouts ran 0.07 of the random ones
per CPU-second and won.  Where more moves can end the game than `FINISH_SHARE` of
its moves (the corpus Hex: 77 of 82 a role), looking at each costs as much, so
random playouts stay; where fewer can (Breakthrough), the playouts look at those alone
(`serve_finishers`) and are decisive once native code runs them."""


def decisive_suits(game: Game) -> bool:
    """Whether the search of `game` plays decisive playouts: at most one role has a
    choice in the initial state, and either no role has more than
    `SEARCH_DECISIVE_MOVES` legal moves there or, once the rules run on native
    code, the game's finishing moves are few (`serve_finishers`: the playouts look
    for wins among them alone).  Where several roles move at once, the playouts'
    rule costs a look per move of every chooser: on simultaneous Connect Four they
    ran 0.02 of the random playouts per CPU-second and scored 0.467 (0.30-0.64, 30
    matches at 1 s a move, factor=yes) against the random ones, no gain."""
    moves = game.initial_state().all_legal_moves()
    if sum(len(legal) > 1 for legal in moves) > 1:
        return False
    return max(len(legal) for legal in moves) <= SEARCH_DECISIVE_MOVES or (
        serve_finishers(game) is not None
    )


class ServePlayout(RandomPlayout):
    """The search's playouts: decisive ones for `plies` moves once the rules
    run on native code, random ones before (the generic version steps every
    looked-at move through the game interface, too slow to pay).  The decisive
    ones look for wins among the game's finishing moves (`serve_finishers`)
    where those are few.

    On the interpreter, where one playout of a large game takes seconds (chess
    on a loaded machine: longer than a play clock), a playout looks at `stop`
    before each move and, when it says so, ends there valued as a draw for
    every role (`STOPPED`): the search then answers in time, and pondering
    hears the next command.
    """

    def __init__(self, plies: int, stop: Callable[[], bool] = lambda: False) -> None:
        super().__init__()
        self.plies = plies
        self.stop = stop

    def evaluate(self, state: State, rng: random.Random) -> Rewards:
        if not isinstance(state.game, CompiledGame):
            return self._stoppable(state, rng)
        self._follow(state)
        return super().evaluate(state, rng)

    def native_playouts(self, state: State) -> tuple[int, bool, int | None] | None:
        self._follow(state)
        return super().native_playouts(state)

    def _follow(self, state: State) -> None:
        """The policy for the rules `state` runs on: decisive ones on native code (made
        again only when the finishers change: this runs at every Python-tree leaf)."""
        native = getattr(state.game, "native_playouts", None) is not None
        self.decisive = self.plies if native else 0
        finishers = serve_finishers(state.game) if self.decisive else None
        if not self.decisive:
            self.policy = RANDOM
        elif self.policy is RANDOM or finishers is not self.finishers:
            self.policy = Decisive(self.plies, finishers)
        self.finishers = finishers

    def evaluate_part(self, state: State, rng: random.Random, part: frozenset[str]) -> Rewards:
        native = getattr(state.game, "native_playouts", None) is not None
        self.decisive = self.plies if native and isinstance(state.game, CompiledGame) else 0
        return super().evaluate_part(state, rng, part)

    def _stoppable(self, state: State, rng: random.Random) -> Rewards:
        self.playouts += 1
        while not state.is_terminal():
            if self.stop():
                return [STOPPED] * len(state.game.roles)
            state = state.next([rng.choice(moves) for moves in state.all_legal_moves()])
        return [goal * 0.01 for goal in state.goals()]


STOPPED = 0.5
"""The value of a playout stopped before its end (`ServePlayout`): nothing known."""

FINISH_PLAYOUTS = 1000
"""Random playouts from the initial state whose last moves are a game's finishing
moves (`playouts.FinishingMoves`: 45 ms on native Breakthrough)..."""

FINISH_SECONDS = 0.25
"""...or fewer, those of this many CPU seconds (a game of long playouts)..."""

FINISH_BATCH = 50
"""...in batches of at most this many, each sized after the first playout's time so
that the last ends near `FINISH_SECONDS` (chess_200's batches of 50 had taken 0.7
CPU-s, run inside a search)."""

FINISH_SHARE = 0.5
"""Decisive playouts look for wins among the finishing moves alone where these are
at most this share of the game's moves (Breakthrough: 44 of 310, each role's steps
onto its last row); elsewhere (Connect Four, tic-tac-toe: every move) at every move."""

_FINISHERS: weakref.WeakKeyDictionary[Game, Finishers | None] = weakref.WeakKeyDictionary()


def serve_finishers(game: Game) -> Finishers | None:
    """The finishing moves decisive playouts of `game` look at for wins (None: every
    move), found once per game by random playouts from its initial state on its
    native code (`FINISH_PLAYOUTS`, `FINISH_SECONDS`; seeded); None on other rules,
    where the rules break in those playouts, and where a role has none."""
    if game in _FINISHERS:
        return _FINISHERS[game]
    inputs = getattr(game, "finish_inputs", None)
    if inputs is None or getattr(game, "native_playouts", None) is None:
        return None  # not yet, perhaps: looked at again once native code is attached
    rng, state = random.Random(0), game.initial_state()
    found: list[frozenset[str]] = [frozenset() for _ in game.roles]
    start, played, batch = time.process_time(), 0, 1
    try:
        while played < FINISH_PLAYOUTS and (spent := time.process_time() - start) < FINISH_SECONDS:
            if played:  # batches that fit in what is left (chess_200: 14 ms a playout)
                each = spent / played
                batch = max(1, min(FINISH_BATCH, int((FINISH_SECONDS - spent) / max(each, 1e-9))))
            finished = state.playouts(rng, batch, FINISHING_MOVES)
            found = [old | new for old, new in zip(found, finished, strict=True)]
            played += batch
    except GameDefinitionError:
        found = []
    # a role none of whose moves ended a playout (Dots and Boxes: every last line is
    # forced) says nothing of where its wins are: every move is looked at
    finishers = tuple(found) if found and all(found) else None
    texts = game.compiled.move_texts  # type: ignore[attr-defined]
    if finishers is not None and inputs(finishers).bit_count() > FINISH_SHARE * len(texts):
        finishers = None
    _FINISHERS[game] = finishers
    return finishers


SEARCH_PART_DECISIVE = True
"""With `SEARCH_PART_PLAYOUTS`, the part trees' playouts are decisive within the part
(`playouts.Part` ``decisive``: the part's one chooser takes a move that wins at
once there, and avoids one after which the next chooser there can) for
`SEARCH_DECISIVE` moves on native code, where our role has at most
`SEARCH_DECISIVE_MOVES` moves in the part (`part_decisive_suits`), as the joint
tree's playouts are where `decisive_suits` says.  On 82 logged simultaneous
Connect Four positions graded against the exact solver at 1 CPU-s a search, the
part tree kept the board's value in 0.805 (0.71-0.88) of them with these
playouts, 0.585 (0.48-0.69) with random ones, for 0.30 of the simulations
(docs/results.md, "Connect Four positions graded against the solver")."""


def part_decisive_suits(part: frozenset[str]) -> bool:
    """Whether a part tree over the moves `part` plays decisive part playouts
    (`SEARCH_PART_DECISIVE`): our role has at most `SEARCH_DECISIVE_MOVES` of them,
    the bound `decisive_suits` puts on the joint tree's."""
    return SEARCH_PART_DECISIVE and len(part) <= SEARCH_DECISIVE_MOVES
