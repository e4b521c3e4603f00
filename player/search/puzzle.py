"""The puzzle search: a portfolio of searches for a game of one role, sharing time,
and the best line any of them found.

A puzzle needs one line that reaches 100, found once and then kept (MCTS would
average a playout that reached 100 away among the others).  The searches take
turns of `SLICE` seconds from the current state:

- depth-first search with a transposition table (`ggp.player.search.dfs`): exact
  where the states are few, by iterative deepening, or in one plain iteration
  where every random line had the same length; it drops out when its table is
  full;
- a plain depth-first search that tries first the moves leaving the fewest
  onward moves (`ggp.player.search.dfs.fail_first`, Warnsdorff's rule: a
  knight's tour at once);
- Nested Monte Carlo Search of rising levels (`ggp.player.search.nmcs`);
- NRPA (`ggp.player.search.nrpa`);
- a depth-first search that fills the most constrained variable first
  (`ggp.player.search.constrained`, for puzzles that are filled in; it ends at
  once on others);
- where partial satisfaction of the goal rules tracks the goal on this puzzle
  (`ggp.player.search.guidance.profile`), a greedy best-first search guided by it
  (`ggp.player.search.best_first`); the depth-first search then tries the
  best-scored moves first.  Where the goal, defined before the end, never rises
  along a line, it cuts the depth-first search off where it cannot beat the best
  line found, and orders its moves;
- where the goal depends on the number of moves and positions are reached by
  lines of different lengths (`ggp.player.search.guidance.Profile.length_matters`),
  a breadth-first search for the shortest line to each goal
  (`ggp.player.search.breadth_first`: the tiles in order by the fewest moves).

Every line found is offered to `BestLine`, which keeps the best.  Once it
reaches 100, or the depth-first search has searched every line (the best line is
then optimal), nothing is searched any more: its moves are played as they are.
When a move is played (`advance`), the best line goes on from the new state if
the move was its first (it still reaches its goal there) and the searches start
again from the new state, where the lines are shorter; the depth-first search
keeps its table (`dfs.Table`), so what it searched below the new state before
the move is not searched again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ggp.games.base import State
from ggp.player.search import dfs, nmcs, nrpa
from ggp.player.search.best_first import best_first
from ggp.player.search.breadth_first import breadth_first
from ggp.player.search.constrained import fewest_choices
from ggp.player.search.guidance import Profile
from ggp.player.search.lines import ROLE, BestLine, Line

SLICE = 0.05
"""Seconds one search runs before the next takes its turn."""

FAIL_FIRST_DEPTH = 10_000
"""The depth limit of the fail-first search: none, in effect (one plain depth-first
search; its table bounds it)."""

GOALS_KEPT = 100_000
"""States whose goal `PuzzleSearch._bound` remembers at most (then it forgets them all)."""

NRPA_LEVEL = 3
"""The level of the portfolio's NRPA (restarted when a run ends)."""


@dataclass
class _Turn:
    name: str
    search: Iterator[Line | None]
    seconds: float = 0.0
    """CPU time this search has had (for the log)."""


def _goal(state: State) -> int:
    return state.goals()[ROLE]


class PuzzleSearch:
    """The searches of one puzzle and the best line they found (see the module)."""

    def __init__(
        self,
        state: State,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        profile: Profile | None = None,
        played: int = 0,
        best: BestLine | None = None,
        playouts: bool = True,
    ) -> None:
        self.state = state
        self.profile = profile or Profile()
        """What random lines said about this puzzle (`ggp.player.search.guidance.profile`)."""
        self.played = played
        """Moves played since the state the profile was taken in (the initial state)."""
        self.playouts = playouts
        """Whether the searches that play whole lines at once (NMCS, NRPA) run: not on
        rules so slow (the interpreter) that one line could outlast a play clock."""
        self.rng = rng or random.Random()
        self.clock = clock
        self.best = best or BestLine()
        """The best line from `state` (given: one found before, on other rules of the game)."""
        self.settled = False
        """Whether the depth-first search proved the best line optimal."""
        self.found_by: str | None = None
        """The search that found the best line."""
        self.first_top: float | None = None
        """When (by `clock`) a line reaching 100 was first held."""
        self._dfs_outcome = dfs.Outcome()
        self._dfs_table = dfs.Table()
        """The depth-first search's table, kept from move to move (`dfs.Table`)."""
        self._goals: dict[object, int] = {}
        """The goals of states the depth-first search scored (`_bound`)."""
        self._turns: list[_Turn] = []
        self._next = 0
        """The index in `_turns` of the search whose turn is next."""
        self._start()

    @property
    def done(self) -> bool:
        """Whether searching more cannot improve the best line."""
        return self.best.solved or self.settled or self.state.is_terminal()

    def _start(self) -> None:
        self._dfs_outcome = dfs.Outcome()
        if len(self._dfs_table.entries) >= dfs.MAX_ENTRIES:
            self._dfs_table = dfs.Table()  # full: the search would give up at once
        state, rng = self.state, self.rng
        guidance, bounded = self.profile.guidance, self.profile.bounded
        order = self._best_scored if guidance is not None or bounded else None
        bound = self._bound if bounded else None
        depth = 1
        if self.profile.length is not None:  # every line as long: one plain iteration
            depth = max(1, self.profile.length - self.played)
        self._turns = [
            _Turn(
                "dfs",
                dfs.iterative_deepening(
                    state,
                    self._dfs_outcome,
                    order,
                    first_depth=depth,
                    bound=bound,
                    floor=self._floor,
                    table=self._dfs_table,
                ),
            ),
            _Turn(
                "fail-first",
                dfs.iterative_deepening(state, order=dfs.fail_first, first_depth=FAIL_FIRST_DEPTH),
            ),
            _Turn("nmcs", nmcs.iterated(state, rng)),
            _Turn("nrpa", nrpa.restarted(state, NRPA_LEVEL, rng)),
            _Turn("fewest-choices", fewest_choices(state)),
        ]
        if guidance is not None:
            self._turns.append(_Turn("best-first", best_first(state, guidance)))
        if self.profile.length_matters:
            self._turns.append(_Turn("breadth-first", breadth_first(state, self.profile.counters)))
        left_out = set() if self.playouts else {"nmcs", "nrpa"}
        if state.is_terminal() or len(state.legal_moves(ROLE)) > dfs.FAIL_FIRST_MOVES:
            left_out.add("fail-first")  # it would order nothing here: a second plain "dfs"
        self._turns = [turn for turn in self._turns if turn.name not in left_out]

    def _floor(self) -> int:
        """The goal of the best line held (-1: none)."""
        goal = self.best.goal
        return -1 if goal is None else goal

    def _best_scored(self, state: State, children: dfs.Children) -> dfs.Children:
        """`children` best first: by the guidance's score of the states they lead to,
        else by the goal there (where it is a bound)."""
        score = self.profile.guidance or self._bound
        return sorted(children, key=lambda entry: -score(entry[1]))

    def _bound(self, state: State) -> int:
        """The goal of `state` (a bound where `Profile.bounded`), remembered for the
        depth-first search, which orders the moves by it and then cuts the states
        they lead to off by it."""
        key = dfs.state_key(state)
        goal = self._goals.get(key)
        if goal is None:
            if len(self._goals) >= GOALS_KEPT:
                self._goals.clear()
            goal = self._goals[key] = _goal(state)
        return goal

    def search(self, deadline: float) -> int:
        """Search until `deadline` (by `clock`) or until `done`; the steps taken.
        The searches take their turns where the last call left off."""
        steps = 0
        while not self.done and self._turns and self.clock() < deadline:
            self._next %= len(self._turns)
            turn = self._turns[self._next]
            self._next += 1
            steps += self._run(turn, min(deadline, self.clock() + SLICE))
        return steps

    def _run(self, turn: _Turn, until: float) -> int:
        steps = 0
        began = time.process_time()
        try:
            while self.clock() < until:
                line = next(turn.search)
                steps += 1
                if line is not None:
                    self._offer(line, turn.name)
                    if self.done:
                        break
        except StopIteration:
            index = self._turns.index(turn)
            self._turns.remove(turn)
            if index < self._next:
                self._next -= 1
            outcome = self._dfs_outcome
            if turn.name == "dfs" and outcome.complete and not outcome.cut:
                self.settled = True  # (a bound read from random lines proves nothing)
        turn.seconds += time.process_time() - began
        return steps

    def _offer(self, line: Line, name: str) -> None:
        if self.best.offer(line):
            self.found_by = name
            if self.best.solved and self.first_top is None:
                self.first_top = self.clock()

    def move(self) -> str:
        """The move to play now: the best line's next move, else (no line found yet)
        a random legal one."""
        return self.best.next_move() or self.rng.choice(self.state.legal_moves(ROLE))

    def advance(self, move: str, state: State) -> None:
        """`move` was played, leading to `state`: keep what of the best line is left,
        and search from `state` from now on (unless nothing is left to search for)."""
        kept = self.best.line is not None and self.best.next_move() == move
        self.best.played(move)
        self.state = state
        self.played += 1
        if not kept:
            self.settled = False
        if self.done:
            self._turns = []
        else:
            self._start()

    def describe(self) -> str:
        """The best goal known and where it came from, for logs."""
        goal = self.best.goal
        if goal is None:
            return "best goal known: none yet"
        how = "proven optimal" if self.settled else f"found by {self.found_by}"
        left = len(self.best.line.moves) if self.best.line is not None else 0
        return f"best goal known {goal} ({how}, {left} moves left)"
