"""The tactics as a search worker serves them, over one match.

`ggp.player.search.tactics.Tactics` proves forced wins and losses from a position;
`ServedTactics` decides when it runs in a match and with how much of the clock:
before each move's MCTS search (`prove`, `share` of the move's time), on the move
the search chose where that search did not finish (`check`, `check_share`), and
while another role is on move, on the positions after its likeliest replies
(`ponder`, one slice of pondering in `ponder_every`), so that at our move the
table holds what they prove.  It says in the server's log what it found and when it
stopped: where the rules break in it, the tactics stop for the match, and the
search goes on without them (docs/tactics.md).

With several search workers in a match the pool gives the tactics of all of them
to one (``tactics_workers`` at load, `ggp.player.service.worker_pool`): its shares
of each move grow with them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ggp.games.base import GameDefinitionError, State
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.player.search.mcts import MCTS
from ggp.player.search.tactics import Tactics, Verdict

SEARCH_TACTICS = False
"""Search each move's position for forced wins and losses a few plies deep
(`ggp.player.search.tactics`) before the MCTS search, in at most `TACTICS_SHARE`
of the move's time and `TACTICS_NODES` states: a proven win is played at once,
and a move proven to lose is not played while one not proven to lose is left
(docs/tactics.md).  The default where ``load`` does not say; the server always
says (`ggp.player.service.session.TACTICS`)."""

TACTICS_SHARE = 0.1
"""The share of a move's time the tactical search may take..."""

CHECK_SHARE = 0.1
"""The share of a move's time kept, where the tactics did not finish before the MCTS
search, for the check of the move it chose (`Tactics.check`: that move searched alone,
and the next where it is proven lost)..."""

TACTICS_NODES = 200_000
"""...and the states it may look at in Python (about 2 CPU-s of Breakthrough's
compiled rules), or..."""

NATIVE_TACTICS_NODES = 50_000_000
"""...in the game's native library (about 10 CPU-s of native Breakthrough)."""

TACTICS_PONDER = 4
"""One slice of pondering in this many goes to the tactics (`ServedTactics.ponder`),
in a worker that searches them for itself alone."""

TACTICS_REPLIES = 3
"""While pondering where another role is on move, a slice in `ponder_every` goes to
the tactics of the positions after its likeliest replies (the most visited at the
root), this many, so that at our move their table holds what they prove."""


class ServedTactics:
    """Our role's tactical search over a match, run as the served search needs it.

    `stopped` is called once the rules break in the tactics (they stop for the
    match, `broke`): the worker's configuration then says it searches without them.
    """

    def __init__(self, stopped: Callable[[], None] = lambda: None) -> None:
        self.stopped = stopped
        self.on = SEARCH_TACTICS
        """Whether to search for forced wins and losses (``tactics`` at load)."""
        self.race = False
        """Whether the races judge the tactics (``tactics_race`` at load)."""
        self.workers = 1
        """The workers whose tactics this one searches (``tactics_workers`` at load):
        the others leave theirs to it and search MCTS only."""
        self.broke = False
        """Whether the tactics stopped on rules that broke in them (this match): no race
        choice turns them on again."""
        self.search: Tactics | None = None
        """With `on`: our role's tactical search and its table, from the position the
        tree grew at (`restart`)."""
        self.replies: list[State] = []
        """The positions after the other role's likeliest replies, left for the tactics
        to search while pondering..."""
        self.replies_step = -1
        """...at the step they were found for."""

    def load(self, on: bool, race: bool, workers: int) -> None:
        """A new match's settings (the ``load`` command's)."""
        self.on, self.race, self.workers, self.broke = on, race, max(1, workers), False

    def restart(self) -> None:
        """The search grew a new tree: the tactics start afresh with it."""
        self.search = None
        self.replies, self.replies_step = [], -1

    def share(self) -> float:
        """The share of a move's time for the tactics: `TACTICS_SHARE` for each worker
        whose tactics this one searches, at most one half."""
        return min(0.5, TACTICS_SHARE * self.workers)

    def check_share(self) -> float:
        """The share of a move's time for the check of the move chosen: `CHECK_SHARE`
        for each worker whose tactics this one searches (as `share`)."""
        return min(0.5, CHECK_SHARE * self.workers)

    def ponder_every(self) -> int:
        """One slice of pondering in this many goes to the tactics: `TACTICS_PONDER`,
        more often for each worker whose tactics this one searches (at most every
        other slice)."""
        return max(2, TACTICS_PONDER // self.workers)

    def prove(self, state: State, role: int, step: int, deadline: float) -> Verdict | None:
        """With `on`, what the tactical search proves for `role` at `state` (the
        match's `step`) by `deadline`.  Not on the interpreter, where a state can
        take seconds."""
        if not self.on or not isinstance(state.game, CompiledGame):
            return None
        if self.search is None or self.search.role != role:
            self.search = Tactics(role)
        try:
            verdict = self.search.analyse(state, deadline, self._budget(state))
        except GameDefinitionError as error:  # rules that break below: the search alone
            self._stop(error)
            return None
        if verdict.found:
            print(f"search worker: tactics at move {step}: {verdict.describe()}", file=sys.stderr)
        return verdict

    def check(
        self, state: State, verdict: Verdict, ranked: list[str], step: int, deadline: float
    ) -> Verdict:
        """`verdict` (of `prove`) with the move it lets the search play (`ranked`: the
        search's favourite first) searched again alone until `deadline`
        (`Tactics.check`; in native code as `ggp.player.search.tactics.CHECK_BY` says)."""
        assert self.search is not None
        try:
            checked = self.search.check(state, verdict, ranked, deadline, self._budget(state))
        except GameDefinitionError as error:  # as `prove`; what was proven before holds
            self._stop(error)
            return verdict
        if checked.losses != verdict.losses or checked.wins != verdict.wins:
            numbers = self.search.check_by != "depth" and self.search.native_rules(state)
            how = f" by {self.search.check_by}" if numbers else ""
            print(
                f"search worker: the check at move {step} proved{how}: {checked.describe()}",
                file=sys.stderr,
            )
        return checked

    def ponder(self, tree: MCTS, step: int, deadline: float) -> bool:
        """With `on`, once we have searched: the tactics of the positions after the
        likeliest replies at `tree`'s root (`TACTICS_REPLIES`) until `deadline`, one
        at a time until each is finished; returns whether it searched."""
        if self.search is None or not self.on:
            return False
        if self.replies_step != step:  # looked for until some are found
            self.replies = likely_replies(tree, self.search.role, TACTICS_REPLIES)
            if self.replies:
                self.replies_step = step
        if not self.replies:
            return False
        reply = self.replies.pop(0)
        verdict = self.search.analyse(reply, deadline, self._budget(reply))
        if not verdict.finished:  # its turn again after the others' (native: deeper each time)
            self.replies.append(reply)
        return True

    def _budget(self, state: State) -> int:
        """The states the tactics may look at from `state`: `NATIVE_TACTICS_NODES` where
        they run in the native library, else `TACTICS_NODES`."""
        assert self.search is not None
        native = self.search.native_rules(state) is not None
        return NATIVE_TACTICS_NODES if native else TACTICS_NODES

    def _stop(self, error: GameDefinitionError) -> None:
        """The tactics stop for the match: the rules broke in them."""
        print(f"search worker: the tactics stop: {error}", file=sys.stderr)
        self.on, self.broke = False, True
        self.stopped()


def likely_replies(tree: MCTS, role: int, count: int) -> list[State]:
    """Where one role other than `role` is on move at the root of `tree`: the
    positions after its `count` most visited moves, those not terminal."""
    root = tree.root
    if root.moves is None or len(root.choosers) != 1 or root.choosers[0] == role:
        return []
    chooser = root.choosers[0]
    replies = []
    for stats in tree.statistics(chooser)[:count]:
        if stats.visits == 0:
            break
        joint = [moves[0] for moves in root.moves]
        joint[chooser] = stats.move
        state = root.state.next_listed(joint)
        if not state.is_terminal():
            replies.append(state)
    return replies
