"""A tiny simultaneous-move game for search tests, with any number of roles.

Each round every role picks a number 1..3 at the same time.  Role r scores a
point in each round it picks r + 1 (its favourite); goals are the points as a
share of the rounds, 0..100.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggp.games.base import Game, GameError, Goals, State, check_joint

MOVES = ("(pick 1)", "(pick 2)", "(pick 3)")


class PickGame(Game):
    def __init__(self, roles: int = 3, rounds: int = 2) -> None:
        self.name = f"pick:roles={roles},rounds={rounds}"
        self.roles = tuple(f"p{r + 1}" for r in range(roles))
        self.rounds = rounds

    def initial_state(self) -> PickState:
        return PickState(self, 0, (0,) * len(self.roles))

    def state_from_facts(self, facts: Sequence[str]) -> PickState:
        raise GameError("not needed in tests")


class PickState(State):
    __slots__ = ("_game", "round", "points")

    def __init__(self, game: PickGame, round: int, points: tuple[int, ...]) -> None:
        self._game = game
        self.round = round
        self.points = points

    @property
    def game(self) -> PickGame:
        return self._game

    def legal_moves(self, role: int) -> tuple[str, ...]:
        return () if self.is_terminal() else MOVES

    def next(self, joint: Sequence[str]) -> PickState:
        check_joint(self, joint)
        scored = zip(self.points, joint, strict=True)
        points = tuple(p + (move == MOVES[r]) for r, (p, move) in enumerate(scored))
        return PickState(self._game, self.round + 1, points)

    def is_terminal(self) -> bool:
        return self.round == self._game.rounds

    def goals(self) -> Goals:
        return tuple(100 * p // self._game.rounds for p in self.points)

    def key(self) -> str:
        return f"{self.round}:{self.points}"

    def facts(self) -> tuple[str, ...]:
        return (f"(round {self.round})",)
