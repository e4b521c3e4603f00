"""Leaf evaluation: what a new leaf of the search is worth to each role.

`RandomPlayout` plays the game out from the leaf (random, greedy or decisive
playouts, `ggp.games.playouts`); `mast.MastPlayout` is the other evaluator.  The search
(`mcts.MCTS`) takes either, or any object with the same `evaluate`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ggp.games.base import Finishers, GameError, PlayoutPolicy, PlayoutResult, State
from ggp.games.playouts import RANDOM, Decisive, Greedy, Guide, Part
from ggp.player.search.tree import Rewards


class RandomPlayout:
    """Evaluates a state by uniformly random playouts to the end.

    One playout, or the mean of `Game.playout_batch` of them where the game
    asks for more (its playouts cost little beside the tree's bookkeeping),
    run in one call (`State.playouts`).  `playouts` counts them all.  With
    `greedy`, the playouts take a winning move where they see one in their
    first `greedy` moves (`ggp.games.playouts.Greedy`); with `decisive`, in
    their first `decisive` moves they also avoid a move after which another
    role can win at once (`ggp.games.playouts.Decisive`), and with `guide` they
    choose among safe moves by a learnt evaluation (`ggp.games.playouts.Guide`).
    With `finishers`, both look for a win among those moves alone
    (`ggp.games.playouts.FinishingMoves`).
    """

    playouts = 0
    greedy = 0
    decisive = 0
    finishers: Finishers | None = None
    guide: Guide | None = None
    policy: PlayoutPolicy[list[PlayoutResult]] = RANDOM
    """The playouts' policy (from `greedy`, `decisive` and `finishers`)."""

    def __init__(
        self,
        greedy: int = 0,
        decisive: int = 0,
        finishers: Finishers | None = None,
        guide: Guide | None = None,
    ) -> None:
        if greedy and decisive:
            raise GameError("decisive playouts take winning moves themselves: not with greedy")
        if guide is not None and not decisive:
            raise GameError("guided playouts choose among decisive playouts' safe moves")
        self.greedy = greedy
        self.decisive = decisive
        self.finishers = finishers
        self.guide = guide
        if decisive:
            self.policy = Decisive(decisive, finishers, guide)
        elif greedy:
            self.policy = Greedy(greedy, finishers)

    def native_playouts(self, state: State) -> tuple[int, bool, int | None] | None:
        """The playouts `evaluate` plays in `state`'s game as the native tree loop
        names them (`ggp.player.search.native_search`): the moves in which winning
        moves are taken, whether losing ones are avoided too, and the input bits of
        the finishers (None: every move is looked at); None where it cannot play
        them (finishers of a game without input bits)."""
        finish = None
        if self.finishers is not None:
            inputs = getattr(state.game, "finish_inputs", None)
            if inputs is None:
                return None
            finish = inputs(self.finishers)
        if self.decisive:
            return self.decisive, True, finish
        return self.greedy, False, finish

    def evaluate_part(self, state: State, rng: random.Random, part: frozenset[str]) -> Rewards:
        """The mean of `Game.playout_batch` playouts of the part of `part`, the other
        parts frozen (`ggp.games.playouts.Part`), decisive within the part for the
        first `decisive` moves (not greedy)."""
        count = state.game.playout_batch
        self.playouts += count
        return mean_rewards(state.playouts(rng, count, Part(part, self.decisive)))

    def evaluate(self, state: State, rng: random.Random) -> Rewards:
        count = state.game.playout_batch
        self.playouts += count
        results = state.playouts(rng, count, self.policy)
        if count == 1:
            return [goal * 0.01 for goal in results[0][0]]
        return mean_rewards(results)


def mean_rewards(results: Sequence[PlayoutResult]) -> Rewards:
    """Each role's mean goal over playouts, scaled to 0..1."""
    scale = 0.01 / len(results)
    columns = zip(*(goals for goals, _ in results), strict=True)
    return [sum(column) * scale for column in columns]
