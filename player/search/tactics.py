"""Tactics: forced wins and losses a few moves ahead, whatever the playouts say.

Random playouts are blind to short forced lines, and MCTS sees one only once
its tree has grown every reply of the line: with a few thousand simulations
a move it walks into a two-move trap or misses a three-move win often enough
to lose games against a player that searches them (docs/tactics.md).  This is
a bounded search for such lines at the position to move from, run before the
MCTS search of each move; its proofs override the MCTS choice.

For one role ("we"), over terminal outcomes only (no heuristic), it asks two
questions of a state, each within a number of joint moves ("plies"):

- *win*: can we make sure to end the game with goal 100, whatever the other
  roles play?
- *loss*: can the other roles, together, make sure we end it with goal 0,
  whatever we play?

They are AND/OR searches over pure strategies: at a state, a win is one of
our moves after which every joint move of the others leads to a win (a loss:
one joint move of the others after which every move of ours leads to a loss).
Where one role moves at a time that is the plain game tree.  Where several
choose at once, the move of a side must be good whatever the other side
chooses at the same time, so neither side is credited with seeing the other's
move: a proof there holds in the matrix game too (a pure strategy that wins
against every reply wins against mixed ones).  A position where the joint
moves are too many (`MAX_JOINTS`) is left unknown.  At the position to move
from, our move wins if it wins against every joint move the others make at the
same time, and loses if one of them (and their play after) holds us to 0: the
move's worst case, so that a move the others can punish by the right reply is
avoided while a move they cannot is left.  What the proofs mean is
the solver's *security value* (`ggp.player.search.solver`): a proven loss
says the others *can* hold us to 0, which, in a game of more than two roles,
assumes they play together against us (as MCTS-Solver's proofs already do).
The positions searched must be the true state of the game: the worker runs
this only in games of complete information (GDL-II matches are searched by
the server's copy of the game, `ggp.player.service.session`).

Each question is answered by iterative deepening, one ply more at a time,
within a budget of states looked at and a deadline.  A *transposition table*
keyed by `State.key()` keeps, for each state searched, the fewest plies within
which a win (a loss) is proven and the most within which none exists; it is
kept from move to move of a match (what the last move proved within five
plies, this one needs within three), so states reached by other orders of
moves, or again, are searched once.

`Tactics.analyse` gives, for the position to move from, our moves proven to
win (the fastest first) and those proven to lose, with the depth it searched
completely; `Verdict.allowed` is what the served search may then play: a
proven win; otherwise any move not proven to lose, if one is left.  Nothing
here names or knows a game: it sees the rules through `State` alone, or, where
the state is native, through the game's native library, which runs the same
search in C (`ggp.gdl.native.tactics`) some forty times as fast, with a local search
beside it (moves near what the last plies changed, read from the rules).

`Tactics.check` searches the move the served search chose alone, with the time left
after that search: by deepening as `analyse` does, or in native code (`CHECK_BY`) by
proof-number search (`NativeTactics.loss_proof`), which follows a narrow forced line as
deep as it goes where deepening a ply at a time over every line stops a few plies down,
or by both, the deepening first.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product

from ggp.games.base import State
from ggp.gdl.compiled.compiled_game import CompiledState
from ggp.gdl.native.rules import NativeRules
from ggp.gdl.native.tactics import Found, NativeTactics

WIN = 100
"""The goal a win gives us..."""

LOSS = 0
"""...and a loss."""

MAX_DEPTH = 5
"""Plies searched at most from the position to move from: our move and two more
of ours (a win in three moves, a turn-taking game) or of the other side's (a
loss within its second move)."""

NATIVE_MAX_DEPTH = 64
"""Plies searched at most by the native search (`ggp.gdl.native.tactics`, whose
recursion also stays within its `STACK_BYTES`): its deadline or budget ends it first where
the lines are wide.  Where they are narrow (Connect Four's last twenty discs) the
deepening passed 20 plies in half a second and, capped there, stopped with its time
left: a lost Connect Four match at 403c8d3 had every move at step 24 lost within 24
plies, proven in 1.1 million states with the cap at 64 and not at all with it at 20."""

LOCAL_SHARE = 0.5
"""The share of the native search's time and states that goes to its local search
(`ggp.gdl.native.tactics`), after the full-width one, where the rules give the
moves' touch masks (`ggp.gdl.native.locality`), for the whole match.  A trial that
took it away after 8 searches with a proof and no move proven by it alone (5f3861d to
f2070b5) stopped it in 13 of 18 Breakthrough matches against Sancho 1.61c, at moves 8
to 39, where its first proof beyond the full width comes at moves 15 to 53: Breakthrough
scored 3 of 14 with the trial and 6 of 13 without it (docs/tactics.md)."""

CHECK_BY = "depth"
"""How `Tactics.check` searches a move alone in native code: ``depth``, deepening over
every line (`analyse`'s ``only``); ``numbers``, proof-number search
(`NativeTactics.loss_proof`: losses only, the search before the check looked for the
wins); ``both``, the deepening with `CHECK_DEPTH_SHARE` of the states and time, then
proof numbers with the rest where it proved nothing.  Replayed at a million and four
million states a move (`benchmarks/loss_proofs.py`, docs/tactics.md): of the 252 drops
that lose in 96 logged Connect Four positions, the deepening proved 133 and 138, proof
numbers 174 and 197, both 169 and 193; of our last moves in lost Breakthrough matches,
28 and 28 of 60, 26 and 28, 27 and 29.  The rule written before asked for no fewer than
the deepening at both budgets: proof numbers and both stay options."""

CHECK_DEPTH_SHARE = 0.25
"""With `CHECK_BY` ``both``: the share of the check of a move that goes to the
deepening, before proof numbers get the rest."""

MAX_JOINTS = 400
"""Joint moves a state may have to be searched: past this it is left unknown
(simultaneous moves with many choices on each side)."""

MAX_ENTRIES = 300_000
"""States the transposition table holds at most; past this it starts afresh."""

CLOCK_EVERY = 64
"""States looked at between two looks at the clock."""


class OutOfBudget(Exception):
    """The search has looked at its budget of states or reached its deadline."""


@dataclass(frozen=True)
class Verdict:
    """What `Tactics.analyse` proved at a position where we have a choice."""

    moves: tuple[str, ...]
    """Our legal moves there."""
    wins: dict[str, int]
    """Our moves proven to win, with the plies (our move included) within which."""
    losses: dict[str, int]
    """Our moves after which the others can force our loss, with the plies (with
    simultaneous moves: by some joint move at the same time, which they must guess)."""
    depth: int
    """Plies searched completely for every move not proven (0: not even one)."""
    finished: bool
    """Whether the search ended by itself (every depth searched, a win found, or
    every move lost), not at the deadline or out of its budget."""
    nodes: int
    """States looked at (successor states made)."""
    seconds: float
    """The search's time (monotonic clock)."""

    @property
    def found(self) -> bool:
        """Whether any move was proven to win or to lose."""
        return bool(self.wins or self.losses)

    @property
    def proved(self) -> bool:
        """Whether a proof bears on the choice: a win, or a loss of some but not all moves."""
        return bool(self.wins) or 0 < len(self.losses) < len(self.moves)

    def allowed(self) -> list[str] | None:
        """The moves the search may play (None: any): the fastest proven wins if there
        are any, else the moves not proven to lose, if some are left."""
        if self.wins:
            fastest = min(self.wins.values())
            return [move for move, plies in self.wins.items() if plies == fastest]
        if self.losses and len(self.losses) < len(self.moves):
            return [move for move in self.moves if move not in self.losses]
        return None

    def choose(self, move: str | None, ranked: Sequence[str] = ()) -> str:
        """The move to play: `move` (the search's choice) if the proofs allow it, else
        the first of `ranked` (the search's moves, best first) they allow, else the
        first they allow."""
        allowed = self.allowed()
        if allowed is None or move in allowed:
            return move if move is not None else self.moves[0]
        return next((other for other in ranked if other in allowed), allowed[0])

    def bounds(self, move: str) -> tuple[float, float]:
        """What is proven of our reward (goal / 100) after `move`: (lower, upper)."""
        if move in self.wins:
            return 1.0, 1.0
        if move in self.losses:
            return 0.0, 0.0
        return 0.0, 1.0

    def joined(self, other: Verdict) -> Verdict:
        """This verdict with the proofs of `other`, a later search of the same position
        (the fewer plies where both prove a move), its states and time added."""
        wins, losses = dict(self.wins), dict(self.losses)
        _merge(wins, other.wins)
        _merge(losses, other.losses)
        return Verdict(
            self.moves or other.moves,
            wins,
            losses,
            self.depth,
            self.finished,
            self.nodes + other.nodes,
            self.seconds + other.seconds,
        )

    def describe(self) -> str:
        """What the log says of it: ``(move 1 2) wins within 3 plies`` or
        ``4 of 22 moves lose within 4 plies``, or what was searched."""
        searched = f"{self.nodes} states, {_plies(self.depth)}, {self.seconds:.2f} s"
        if self.wins:
            move = min(self.wins, key=self.wins.__getitem__)
            return f"{move} wins within {_plies(self.wins[move])} ({searched})"
        if self.losses:
            plies = max(self.losses.values())
            lost = len(self.losses)
            every = " (every move)" if lost == len(self.moves) else ""
            return (
                f"{lost} of {len(self.moves)} moves lose within {_plies(plies)}{every} ({searched})"
            )
        return f"nothing proven ({searched})"


def _plies(count: int) -> str:
    return f"{count} ply" if count == 1 else f"{count} plies"


class Tactics:
    """Forced wins and losses of role index `role`, over one match (see the module)."""

    def __init__(
        self,
        role: int,
        max_entries: int = MAX_ENTRIES,
        native: bool = True,
        local_share: float = LOCAL_SHARE,
        check_by: str | None = None,
    ) -> None:
        if check_by not in (None, "depth", "numbers", "both"):
            raise ValueError(f"no check by {check_by!r}: depth, numbers or both")
        self.role = role
        self.use_native = native
        """Whether to search in the game's native library where the state has one."""
        self.check_by = check_by or CHECK_BY
        """How `check` searches a move in native code (`CHECK_BY`)."""
        self.local_share = local_share
        """The share of the native search that goes to the local search (0: none)."""
        self.native: NativeTactics | None = None
        """The native search and its table, made at the first native state."""
        self.max_entries = max_entries
        self.table: dict[str, list[int]] = {}
        """State key -> [plies a win is proven within, plies none is within,
        plies a loss is proven within, plies none is within]."""
        self.nodes = 0
        self._budget = 0
        self._deadline = 0.0

    def native_rules(self, state: State) -> NativeRules | None:
        """The native library the search of `state` runs in (None: the search in Python):
        that of a compiled state whose game answers its goals natively."""
        if not self.use_native or not isinstance(state, CompiledState):
            return None
        native = state.game.native_playouts
        return native if isinstance(native, NativeRules) else None

    def analyse(
        self,
        state: State,
        deadline: float,
        budget: int,
        max_depth: int | None = None,
        only: str | None = None,
    ) -> Verdict:
        """Our moves at the non-terminal `state` proven to win or lose within
        `max_depth` plies (default `MAX_DEPTH`, `NATIVE_MAX_DEPTH` in native code),
        deepening one ply at a time until `deadline` (monotonic) or until `budget`
        states are looked at (see the module).  `only`: our move `only` alone is
        searched (all its states go to it, full width in native code), the verdict's
        other moves left unproven."""
        native = self.native_rules(state)
        if native is not None:
            assert isinstance(state, CompiledState)
            depth = NATIVE_MAX_DEPTH if max_depth is None else max_depth
            return self._analyse_native(native, state, deadline, budget, depth, only)
        if max_depth is None:
            max_depth = MAX_DEPTH
        began = time.monotonic()
        if len(self.table) > self.max_entries:
            self.table.clear()
        self.nodes, self._budget, self._deadline = 0, budget, deadline
        wins: dict[str, int] = {}
        losses: dict[str, int] = {}
        done = 0
        finished = False
        moves: tuple[str, ...] = ()
        try:
            split = self._split(state)
            if split is not None:
                moves = split[0]
                searched = _searched(moves, only)
                children = {move: list(self._lazy(state, [move], split[1])) for move in searched}
                for depth in range(1, max_depth + 1):
                    for move in searched:
                        if move in wins or move in losses:
                            continue
                        if all(self._wins(child, depth - 1) for child in children[move]):
                            wins[move] = depth
                        elif any(self._loses(child, depth - 1) for child in children[move]):
                            losses[move] = depth
                    done = depth
                    if wins or len(losses) == len(searched):
                        break
            finished = True
        except OutOfBudget:
            pass
        seconds = time.monotonic() - began
        return Verdict(moves, wins, losses, done, finished, self.nodes, seconds)

    def check(
        self, state: State, verdict: Verdict, ranked: Sequence[str], deadline: float, budget: int
    ) -> Verdict:
        """`verdict` (of `state`, by `analyse`) with the move it would have played searched
        again, alone, with the time left: the search's favourite it allows (`Verdict.choose`
        over `ranked`, the search's moves best first); where that is proven lost, the next
        one, until one is not proven lost by `deadline` or within `budget` states, or is
        proven to win.  A move searched alone gets every state of the search, where the
        search of the position shares them among all our moves."""
        while verdict.moves and time.monotonic() < deadline and budget > 0:
            move = verdict.choose(ranked[0] if ranked else None, ranked)
            if move in verdict.wins or move in verdict.losses:  # proven, or every move lost
                break
            alone = self.check_alone(state, move, deadline, budget)
            budget -= alone.nodes
            verdict = verdict.joined(alone)
            if move not in alone.losses:
                break
        return verdict

    def check_alone(self, state: State, move: str, deadline: float, budget: int) -> Verdict:
        """What the check proves of `move` searched alone by `deadline` within `budget`
        states, as `check_by` says (in native code; elsewhere by `analyse`'s ``only``)."""
        native = self.native_rules(state) if self.check_by != "depth" else None
        if native is None:
            return self.analyse(state, deadline, budget, only=move)
        assert isinstance(state, CompiledState)
        first = None
        if self.check_by == "both":
            began = time.monotonic()
            share = CHECK_DEPTH_SHARE
            until = began + share * (deadline - began)
            first = self.analyse(state, until, max(1, int(share * budget)), only=move)
            if first.found:
                return first
            budget -= first.nodes
        began = time.monotonic()
        moves = state.legal_moves(self.role)
        found = self._native_search(native).loss_proof(
            state.bits, moves.index(move), max(1, budget), deadline
        )
        seconds = time.monotonic() - began
        if found is None:
            numbers = Verdict((), {}, {}, 0, True, 0, seconds)
        else:
            losses = {move: found.plies} if found.proven else {}
            numbers = Verdict(moves, {}, losses, 0, found.finished, found.nodes, seconds)
        return numbers if first is None else first.joined(numbers)

    def _native_search(self, native: NativeRules) -> NativeTactics:
        """The native search of this role over `native`, and its tables (made once)."""
        search = self.native
        if search is None or search.native is not native:
            masks = native.touch_masks() if self.local_share > 0 else None
            if masks is not None and len(masks) != native.inputs:  # not the library's moves
                masks = None
            search = self.native = NativeTactics(native, self.role, masks)
        return search

    def _analyse_native(
        self,
        native: NativeRules,
        state: CompiledState,
        deadline: float,
        budget: int,
        depth: int,
        only: str | None,
    ) -> Verdict:
        """`analyse` in the native library, its tables kept from call to call: the
        full-width search, then the local one with `local_share` of the time and
        states left (where there are touch masks, and not for a move alone); what
        either proves is proven."""
        began = time.monotonic()
        search = self._native_search(native)
        # a move searched alone is searched full width: in simultaneous Connect Four the
        # local search's share, given to it, proved half as many blunders (docs/tactics.md)
        share = self.local_share if search.touch is not None and only is None else 0.0
        full_budget = max(1, int(budget * (1 - share)))
        full_deadline = began + (deadline - began) * (1 - share)
        moves = state.legal_moves(self.role)
        searched = _searched(moves, only)
        index = None if only is None else moves.index(only)
        found = search.search(state.bits, depth, full_budget, full_deadline, only=index)
        if found is None:
            return Verdict((), {}, {}, 0, True, 0, time.monotonic() - began)
        wins = _proven(moves, found.wins)
        losses = _proven(moves, found.losses)
        nodes = found.nodes
        if share and not found.finished:
            local = search.search(
                state.bits, depth, budget - found.nodes, deadline, local=True, only=index
            )
            assert local is not None
            nodes += local.nodes
            local_wins, local_losses = _proven(moves, local.wins), _proven(moves, local.losses)
            _merge(wins, local_wins)
            _merge(losses, local_losses)
            if wins or len(losses) == len(searched):  # the full-width search's answer too
                found = Found(found.wins, found.losses, found.nodes, found.depth, True)
        seconds = time.monotonic() - began
        return Verdict(moves, wins, losses, found.depth, found.finished, nodes, seconds)

    # ------------------------------------------------------------ the searches

    def _wins(self, state: State, depth: int) -> bool:
        """Whether we can force a win from `state` within `depth` plies."""
        if state.is_terminal():
            return state.goals()[self.role] == WIN
        if depth == 0:
            return False
        entry = self._entry(state)
        if entry[0] <= depth:
            return True
        if entry[1] >= depth:
            return False
        split = self._split(state)
        found = False
        if split is not None:
            ours, theirs = split
            for move in ours:
                if all(self._wins(child, depth - 1) for child in self._lazy(state, [move], theirs)):
                    found = True
                    break
        if found:
            entry[0] = depth
        else:
            entry[1] = depth
        return found

    def _loses(self, state: State, depth: int) -> bool:
        """Whether the others can force our loss from `state` within `depth` plies."""
        if state.is_terminal():
            return state.goals()[self.role] == LOSS
        if depth == 0:
            return False
        entry = self._entry(state)
        if entry[2] <= depth:
            return True
        if entry[3] >= depth:
            return False
        split = self._split(state)
        found = False
        if split is not None:
            ours, theirs = split
            for joint in theirs:
                if all(self._loses(child, depth - 1) for child in self._lazy(state, ours, [joint])):
                    found = True
                    break
        if found:
            entry[2] = depth
        else:
            entry[3] = depth
        return found

    # ------------------------------------------------------------ the moves

    def _entry(self, state: State) -> list[int]:
        key = state.key()
        entry = self.table.get(key)
        if entry is None:
            entry = self.table[key] = [NEVER, -1, NEVER, -1]
        return entry

    def _split(self, state: State) -> tuple[tuple[str, ...], list[tuple[str, ...]]] | None:
        """Our legal moves and the joint moves of the others (each a tuple of one move
        per other role, in role order) at the non-terminal `state`; None when the
        joint moves are more than `MAX_JOINTS`."""
        legal = state.all_legal_moves()
        ours = legal[self.role]
        others = [moves for role, moves in enumerate(legal) if role != self.role]
        count = len(ours)
        for moves in others:
            count *= len(moves)
        if count > MAX_JOINTS:
            return None
        return ours, list(product(*others))

    def _joint(self, ours: str, theirs: tuple[str, ...]) -> list[str]:
        joint = list(theirs)
        joint.insert(self.role, ours)
        return joint

    def _lazy(
        self, state: State, ours: Sequence[str], theirs: list[tuple[str, ...]]
    ) -> Iterator[State]:
        """The successors of `state` by each of our moves `ours` with each joint
        move of the others `theirs`, made one at a time as they are asked for
        (each counts against the budget)."""
        for move, joint in product(ours, theirs):
            if self.nodes >= self._budget:
                raise OutOfBudget
            if self.nodes % CLOCK_EVERY == 0 and time.monotonic() >= self._deadline:
                raise OutOfBudget
            self.nodes += 1
            yield state.next_listed(self._joint(move, joint))


def _searched(moves: Sequence[str], only: str | None) -> Sequence[str]:
    """The moves a search with `only` looks at."""
    if only is None:
        return moves
    if only not in moves:
        raise ValueError(f"{only} is not a legal move")
    return (only,)


def _proven(moves: Sequence[str], plies: Sequence[int]) -> dict[str, int]:
    """The moves with a proof (plies > 0), with its plies."""
    return {move: count for move, count in zip(moves, plies, strict=True) if count}


def _merge(into: dict[str, int], other: dict[str, int]) -> None:
    """Proofs of `other` into `into`, the fewer plies where both prove a move."""
    for move, plies in other.items():
        into[move] = min(plies, into.get(move, plies))


NEVER = 1 << 30
"""Plies within which nothing is proven yet (a table entry's first value)."""
