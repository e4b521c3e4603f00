"""MAST, the Move-Average Sampling Technique: playouts that prefer good moves.

Over the whole search, every move of every role (by its text, wherever it
was played) keeps the average reward its role got in the simulations that
played it, in the tree or in the playout.  A MAST playout then plays, for
each role with a choice, a uniformly random move with probability `epsilon`
and otherwise the move with the best average (moves never seen count as
the best, so they get tried): the epsilon-greedy form, which Tak, Winands
and Björnsson (2012) found stronger in GGP than sampling in proportion to
exp(average / temperature), and which needs no exponentials.

The playouts are the game's (`ggp.games.playouts.Mast`): the generic ones step
through the game interface; a game with native code runs them in one call,
its averages read and learnt in C, at close to the speed of its random
playouts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ggp.games import move_averages
from ggp.games.base import State
from ggp.games.playouts import Mast
from ggp.player.search.evaluation import mean_rewards

if TYPE_CHECKING:
    from ggp.player.search.tree import Node, Rewards

DEFAULT_EPSILON = 0.4
"""The chance of a uniformly random move in a MAST playout."""


class MoveAverages(move_averages.MoveAverages):
    """The averages (`ggp.games.move_averages`), learnt from the search's tree too."""

    def learn_path(self, path: Sequence[tuple[Node, tuple[int, ...]]], rewards: Rewards) -> None:
        """Learn the moves chosen in the tree (`path`: node and joint move indices)."""
        for node, joint in path:
            moves = node.moves
            for role in node.choosers:
                self.learn(role, moves[role][joint[role]], rewards[role])


class MastPlayout:
    """Evaluates a state by epsilon-greedy MAST playouts to the end.

    One playout, or the mean of `Game.playout_batch` of them where the game
    asks for more, as `ggp.player.search.evaluation.RandomPlayout` does; `playouts` counts
    them all.  With `steps`, only the first `steps` joint moves follow MAST
    and the rest are uniformly random.
    """

    playouts = 0

    def __init__(
        self, averages: MoveAverages, epsilon: float = DEFAULT_EPSILON, steps: int | None = None
    ) -> None:
        self.averages = averages
        self.epsilon = epsilon
        self.steps = steps
        self.policy = Mast(averages, epsilon, steps)

    def evaluate(self, state: State, rng: random.Random) -> Rewards:
        count = state.game.playout_batch
        self.playouts += count
        return mean_rewards(state.playouts(rng, count, self.policy))
