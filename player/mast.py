"""MAST, the Move-Average Sampling Technique: playouts that prefer good moves.

Over the whole search, every move of every role (by its text, wherever it
was played) keeps the average reward its role got in the simulations that
played it, in the tree or in the playout.  A MAST playout then plays, for
each role with a choice, a uniformly random move with probability `epsilon`
and otherwise the move with the best average (moves never seen count as
the best, so they get tried): the epsilon-greedy form, which Tak, Winands
and Björnsson (2012) found stronger in GGP than sampling in proportion to
exp(average / temperature), and which needs no exponentials.

The playout steps through the `games.base` interface (`all_legal_moves`,
`next`), so it costs more per simulation than a game's own random playout.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from games.base import State

if TYPE_CHECKING:
    from player.mcts import Node, Rewards

DEFAULT_EPSILON = 0.4
"""The chance of a uniformly random move in a MAST playout."""

UNSEEN = 1.0
"""The average a move starts with: optimistic, so that new moves get played."""


class MoveAverages:
    """Per role, move text -> the number of simulations that played it and
    the average reward of the role in them."""

    def __init__(self, roles: int) -> None:
        self.counts: list[dict[str, int]] = [{} for _ in range(roles)]
        self.means: list[dict[str, float]] = [{} for _ in range(roles)]

    def learn(self, role: int, move: str, reward: float) -> None:
        """One more simulation in which `role` played `move` and got `reward`."""
        n = self.counts[role].get(move, 0) + 1
        self.counts[role][move] = n
        mean = self.means[role].get(move, 0.0)
        self.means[role][move] = mean + (reward - mean) / n

    def learn_path(self, path: Sequence[tuple[Node, tuple[int, ...]]], rewards: Rewards) -> None:
        """Learn the moves chosen in the tree (`path`: node and joint move indices)."""
        for node, joint in path:
            moves = node.moves
            for role in node.choosers:
                self.learn(role, moves[role][joint[role]], rewards[role])

    def best(self, role: int, moves: Sequence[str]) -> str:
        """The move of `moves` with the best average for `role` (the first on ties)."""
        get = self.means[role].get
        return max(moves, key=lambda move: get(move, UNSEEN))


class MastPlayout:
    """Evaluates a state by one epsilon-greedy MAST playout to the end.

    With `steps`, only the first `steps` joint moves follow MAST; the game's
    own (faster) random playout plays the rest.
    """

    def __init__(
        self, averages: MoveAverages, epsilon: float = DEFAULT_EPSILON, steps: int | None = None
    ) -> None:
        self.averages = averages
        self.epsilon = epsilon
        self.steps = steps

    def evaluate(self, state: State, rng: random.Random) -> Rewards:
        averages, epsilon = self.averages, self.epsilon
        played: list[tuple[int, str]] = []
        left = self.steps if self.steps is not None else -1
        while left != 0 and not state.is_terminal():
            left -= 1
            joint = []
            for role, moves in enumerate(state.all_legal_moves()):
                if len(moves) == 1:
                    move = moves[0]
                elif rng.random() < epsilon:
                    move = rng.choice(moves)
                    played.append((role, move))
                else:
                    move = averages.best(role, moves)
                    played.append((role, move))
                joint.append(move)
            state = state.next(joint)
        goals = state.goals() if state.is_terminal() else state.random_playout(rng)[0]
        rewards = [goal * 0.01 for goal in goals]
        for role, move in played:
            averages.learn(role, move, rewards[role])
        return rewards
