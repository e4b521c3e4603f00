"""Playout policies: how a playout from a state chooses its moves, in one place.

A policy is a small value (`Random`, `Greedy`, `Decisive`, `Mast`, `Amaf`, `Part`
and `FinishingMoves`, which plays random playouts and keeps the moves that ended
them); it is run by the state, ``state.playouts(rng, count, policy)``
(`ggp.games.base.State.playouts`).  Its `play` is the pure-Python version, through
the game interface only; a state with faster versions of some policies (a
game's own Python board, compiled rules, native code: `ggp.gdl.compiled`,
`ggp.gdl.native`) overrides `State.playouts` to run them, and plays exactly the
same moves for the same seed (the tests compare them).  The search (MCTS's
leaf evaluators, RAVE, MAST, the traps) and the agents ask for playouts only so.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ggp.games import amaf
from ggp.games.base import (
    Finishers,
    GameDefinitionError,
    Goals,
    PlayoutPolicy,
    PlayoutResult,
    Result,
    State,
)
from ggp.games.move_averages import MoveAverages


class Random(PlayoutPolicy[list[PlayoutResult]]):
    """Uniformly random joint moves to the end: ``rng.choice`` of each role's legal
    moves in role order, at every step; goals and length of each playout."""

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        return [_random_playout(state, rng) for _ in range(count)]


RANDOM = Random()
"""The random policy (it has no parameters)."""


class FastRandomState(State):
    """A state that plays random playouts its own faster way (`fast_random_playout`:
    on its board, without move texts), the same moves as `Random` for the same seed."""

    __slots__ = ()

    @abstractmethod
    def fast_random_playout(self, rng: random.Random) -> PlayoutResult:
        """One playout of `Random`, faster."""

    def playouts(self, rng: random.Random, count: int, policy: PlayoutPolicy[Result]) -> Result:
        """Random playouts by `fast_random_playout`; the other policies' `play`."""
        if isinstance(policy, Random):
            return [self.fast_random_playout(rng) for _ in range(count)]  # type: ignore[return-value]
        return policy.play(self, rng, count)


def random_playout(state: State, rng: random.Random) -> PlayoutResult:
    """One random playout from `state`, the fastest way the state has."""
    return state.playouts(rng, 1, RANDOM)[0]


class FinishingMoves(PlayoutPolicy[Finishers]):
    """Per role, the moves that ended `count` random playouts from the state.

    The playouts are those of `Random` for the same `rng`; the moves kept are
    those of the roles that had a choice in each playout's last joint move.
    Greedy and decisive playouts given these moves (``finishers``) look only at
    them for a win: a move that never ended a random game is rarely one that can
    (on Breakthrough, a step onto the last row), and looking at every legal
    move costs a next state each.
    """

    def play(self, state: State, rng: random.Random, count: int) -> Finishers:
        found: list[set[str]] = [set() for _ in state.game.roles]
        for _ in range(count):
            current = state
            moves: tuple[tuple[str, ...], ...] = ()
            joint: list[str] = []
            while not current.is_terminal():
                moves = current.all_legal_moves()
                joint = [rng.choice(legal) for legal in moves]
                current = current.next(joint)
            for role, move in enumerate(joint):
                if len(moves[role]) > 1:
                    found[role].add(move)
        return tuple(frozenset(moves) for moves in found)


FINISHING_MOVES = FinishingMoves()
"""The finishing-moves policy (it has no parameters)."""


@dataclass(frozen=True)
class Greedy(PlayoutPolicy[list[PlayoutResult]]):
    """Playouts that take a winning move where one is seen.

    In the first `plies` moves of a playout, a role that alone has a choice (the
    others have one move each) plays the first of its moves, in legal-move
    order, that ends the game with goal 100 for it, when there is one; every
    other move is uniformly random, as in `Random`.  Looking costs a next state
    per move, so the rule is kept to the first moves, where it sharpens the
    value of a leaf (a leaf whose mover can win at once is valued as won).  With
    `finishers`, only a role's moves among its finishers are looked at.
    """

    plies: int
    finishers: Finishers | None = None

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        return [_greedy_playout(state, rng, self.plies, self.finishers) for _ in range(count)]


@dataclass(frozen=True)
class Guide:
    """What guides `Decisive` playouts: where one role has a choice and no winning
    move, it draws `moves` of its safe moves one by one (as `Decisive` draws one,
    each drawn move taken out of the draw) and plays the one whose next state
    `evaluation` values most for it (the first drawn of equals); it plays the
    first safe move where fewer are safe, as `Decisive` does.  `evaluation` is a
    learnt one (`ggp.player.search.heuristic.Heuristic`: ``bits``,
    ``value_of_bits``, and for native code ``masks`` and ``native_tables``).
    Each move drawn costs a next state and the opponents' replies looked at,
    so the playouts run slower by about the number of moves."""

    evaluation: Any
    moves: int


@dataclass(frozen=True)
class Decisive(PlayoutPolicy[list[PlayoutResult]]):
    """Playouts with decisive and anti-decisive moves (Teytaud and Teytaud 2010,
    "On the huge benefit of decisive moves in Monte-Carlo Tree Search").

    In the first `plies` moves of a playout, a role that alone has a choice (the
    others have one move each) takes a winning move as in `Greedy`; when it has
    none, it avoids a move after which another role can win at once: it draws a
    move with ``rng.choice`` among those not rejected yet (all of them at first,
    in legal-move order), and rejects it if the next state is not terminal and
    another role with a choice there has a move ending the game with goal 100
    for it (the rest playing their first legal moves); it redraws among the
    rest, and when every move is rejected plays ``rng.choice`` of all of them.
    The roles without a choice draw their one move, in role order around the
    chooser's draws, as in `Random`.

    Where several roles have a choice (simultaneous moves), each of them, in
    role order, takes its first winning move (the others playing their first
    legal moves) or, when it has none, draws a move by the same rule; the roles
    without a choice play their one move without a draw.  On simultaneous
    Connect Four, that is Connect Four's rule on each board.  A state where none
    has a choice, and every move after `plies`, is played uniformly at random.
    A looked-at move costs a next state and one per reply of the opponents.
    With `finishers`, wins are looked for among them alone (`Greedy`), the
    opponents' included; with `guide`, the lone chooser's move is chosen as
    `Guide` says (not where several roles choose).
    """

    plies: int
    finishers: Finishers | None = None
    guide: Guide | None = None

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        guide = self.guide if self.guide is not None and self.guide.moves > 1 else None
        return [
            _decisive_playout(state, rng, self.plies, self.finishers, guide) for _ in range(count)
        ]


@dataclass(frozen=True, eq=False)
class Mast(PlayoutPolicy[list[PlayoutResult]]):
    """MAST playouts, learnt into `averages` as they are played.

    Draws one 32-bit seed from `rng` and plays from ``random.Random(seed)``: in
    each move, a role with a choice plays a uniformly random move with
    probability `epsilon` (one ``random()`` draw, then ``choice``), else its move
    with the best average (`MoveAverages.best`); a role without a choice plays
    its one move, drawing nothing.  After `plies` moves (None: never) every role
    plays ``choice`` of its moves, as `Random` does.  At the end of each
    playout, every move played by the averages' rule (the epsilon-greedy one) is
    learnt with its role's goal/100, once per time it was played, so that the
    next playout already knows it.
    """

    averages: MoveAverages
    epsilon: float
    plies: int | None = None

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        seeded = random.Random(rng.getrandbits(32))
        averages, epsilon, plies = self.averages, self.epsilon, self.plies
        return [_mast_playout(state, seeded, averages, epsilon, plies) for _ in range(count)]


@dataclass(frozen=True, eq=False)
class Amaf(PlayoutPolicy[list[PlayoutResult]]):
    """Random playouts that record their moves in AMAF tables (`ggp.games.amaf`).

    Draws one 32-bit seed from `rng` and plays the playouts of `Random` with
    ``random.Random(seed)``; then the simulation (the moves `tree` of its path,
    whose nodes' tables are `tables`, and these playouts) is added to the tables
    (`amaf.add`), each playout's moves numbered by `slots` (for compiled rules,
    the game's `move_slots`).
    """

    slots: amaf.MoveSlots
    tables: Sequence[array | None]
    tree: amaf.Tree

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        seeded = random.Random(rng.getrandbits(32))
        results = []
        playouts = []
        for _ in range(count):
            goals, steps, played = _recorded_playout(state, seeded, self.slots)
            results.append((goals, steps))
            playouts.append(([goal * 0.01 for goal in goals], played))
        amaf.add(self.tables, self.tree, playouts)
        return results


@dataclass(frozen=True)
class Part(PlayoutPolicy[list[PlayoutResult]]):
    """Random playouts of one part of the state, the others frozen
    (`ggp.player.search.factored`: a search over `part`, a set of moves).

    Draws one 32-bit seed from `rng` and plays from ``random.Random(seed)``.  At
    each step, a role with a choice none of whose moves is in `part` makes no
    move (Sancho's "pseudo no-op" on the other parts): it plays its first legal
    move, and what that changed is undone against its second
    (`State.reverted`), drawing nothing; every other role draws ``choice`` of
    its moves, in role order.  On simultaneous Connect Four that is Connect Four
    on our board alone, the other board as it is.  Where a role has no legal
    move (our part is full, the others still open: a state the game never
    reaches), the playout ends even, 50 for every role.

    In the first `decisive` moves, where the part has one chooser (one role with
    a choice that is not frozen), that role plays `Decisive`'s rule within the
    part: its first move after which, the frozen moves undone, the game ends
    with goal 100 for it, or else a move drawn as `Decisive` draws it, rejected
    when after it the part's one chooser is another role that can win so (the
    roles without a choice in a look playing their first moves).  On
    simultaneous Connect Four that is `Decisive` on our board alone.
    """

    part: frozenset[str]
    decisive: int = 0

    def play(self, state: State, rng: random.Random, count: int) -> list[PlayoutResult]:
        seeded = random.Random(rng.getrandbits(32))
        return [_part_playout(state, seeded, self.part, self.decisive) for _ in range(count)]


def winning_joint(state: State, finishers: Finishers | None = None) -> list[str] | None:
    """The joint move in which the one role with a choice wins at once (the game ends
    with goal 100 for it), its first such move in legal-move order (among its
    `finishers`, if given); None if there is none."""
    moves = state.all_legal_moves()
    role = _sole_chooser(moves)
    return None if role is None else _winning(state, moves, role, finishers)


def _random_playout(state: State, rng: random.Random) -> PlayoutResult:
    steps = 0
    while not state.is_terminal():
        joint = [rng.choice(moves) for moves in state.all_legal_moves()]
        state = state.next(joint)
        steps += 1
    return state.goals(), steps


def _sole_chooser(moves: Sequence[Sequence[str]]) -> int | None:
    """The one role with more than one legal move; None if there are several or none."""
    choosers = [role for role, legal in enumerate(moves) if len(legal) > 1]
    return choosers[0] if len(choosers) == 1 else None


def _winning(
    state: State, moves: Sequence[Sequence[str]], role: int, finishers: Finishers | None
) -> list[str] | None:
    """`winning_joint` where `role` is the one role with a choice among `moves`."""
    joint = [legal[0] for legal in moves]
    looked = moves[role] if finishers is None else [m for m in moves[role] if m in finishers[role]]
    for move in looked:
        joint[role] = move
        after = state.next(joint)
        if after.is_terminal() and after.goals()[role] == 100:
            return joint
    return None


def _threatened(state: State, joint: list[str], role: int, finishers: Finishers | None) -> bool:
    """Whether after `joint` another role than `role` with a choice can win at once
    (its winning move looked for with the others playing their first moves)."""
    after = state.next(joint)
    if after.is_terminal():
        return False
    moves = after.all_legal_moves()
    if not all(moves):
        return False
    return any(
        other != role and len(legal) > 1 and _winning(after, moves, other, finishers) is not None
        for other, legal in enumerate(moves)
    )


def _safe_move(
    state: State,
    moves: Sequence[Sequence[str]],
    role: int,
    rng: random.Random,
    finishers: Finishers | None,
    guide: Guide | None = None,
) -> str:
    """`role`'s move by the anti-decisive rule of `Decisive` (with `guide`, `Guide`'s)."""
    joint = [legal[0] for legal in moves]
    candidates = list(moves[role])
    best, best_value, accepted = None, 0.0, 0
    while candidates:
        joint[role] = move = rng.choice(candidates)
        if not _threatened(state, joint, role, finishers):
            if guide is None:
                return move
            after = state.next(joint)
            evaluation = guide.evaluation
            value = evaluation.value_of_bits(evaluation.bits(after), after)[role]
            if best is None or value > best_value:
                best, best_value = move, value
            accepted += 1
            if accepted >= guide.moves:
                break
        candidates.remove(move)
    if best is not None:
        return best
    return rng.choice(moves[role])


def _simultaneous_joint(
    state: State, moves: Sequence[Sequence[str]], rng: random.Random, finishers: Finishers | None
) -> list[str]:
    """The joint move of `Decisive` where several roles have a choice."""
    wins = [
        None if len(legal) == 1 else _winning(state, moves, role, finishers)
        for role, legal in enumerate(moves)
    ]
    joint = []
    for role, legal in enumerate(moves):
        win = wins[role]
        if len(legal) == 1:
            joint.append(legal[0])
        elif win is not None:
            joint.append(win[role])
        else:
            joint.append(_safe_move(state, moves, role, rng, finishers))
    return joint


def _greedy_playout(
    state: State, rng: random.Random, plies: int, finishers: Finishers | None
) -> PlayoutResult:
    steps = 0
    while not state.is_terminal():
        joint = winning_joint(state, finishers) if steps < plies else None
        if joint is None:
            joint = [rng.choice(moves) for moves in state.all_legal_moves()]
        state = state.next(joint)
        steps += 1
    return state.goals(), steps


def _decisive_playout(
    state: State,
    rng: random.Random,
    plies: int,
    finishers: Finishers | None,
    guide: Guide | None = None,
) -> PlayoutResult:
    steps = 0
    while not state.is_terminal():
        moves = state.all_legal_moves()
        if steps < plies and sum(len(legal) > 1 for legal in moves) > 1 and all(moves):
            state = state.next(_simultaneous_joint(state, moves, rng, finishers))
            steps += 1
            continue
        chooser = _sole_chooser(moves) if steps < plies else None
        joint = None if chooser is None else _winning(state, moves, chooser, finishers)
        if joint is None:
            joint = [
                _safe_move(state, moves, role, rng, finishers, guide)
                if role == chooser
                else rng.choice(legal)
                for role, legal in enumerate(moves)
            ]
        state = state.next(joint)
        steps += 1
    return state.goals(), steps


def _part_playout(
    state: State, rng: random.Random, part: frozenset[str], decisive: int = 0
) -> PlayoutResult:
    steps = 0
    even = tuple([50] * len(state.game.roles))
    while not state.is_terminal():
        try:
            moves = state.all_legal_moves()
        except GameDefinitionError:
            return even, steps
        if not all(moves):
            return even, steps
        frozen, chooser = _part_roles(moves, part)
        if steps >= decisive:
            chooser = None
        joint = None if chooser is None else _part_winning(state, moves, frozen, chooser)
        if joint is None:
            joint = [
                legal[0]
                if still
                else _part_safe_move(state, moves, frozen, role, rng, part)
                if role == chooser
                else rng.choice(legal)
                for role, (legal, still) in enumerate(zip(moves, frozen, strict=True))
            ]
        state = _part_next(state, joint, moves, frozen)
        steps += 1
    return state.goals(), steps


def _part_roles(
    moves: Sequence[Sequence[str]], part: frozenset[str]
) -> tuple[list[bool], int | None]:
    """Which roles are frozen in a part playout (a choice, none of it in `part`),
    and the part's one chooser (a role with a choice not frozen; None: none or several)."""
    frozen = [len(legal) > 1 and part.isdisjoint(legal) for legal in moves]
    choosers = [role for role, legal in enumerate(moves) if len(legal) > 1 and not frozen[role]]
    return frozen, choosers[0] if len(choosers) == 1 else None


def _part_next(
    state: State, joint: Sequence[str], moves: Sequence[Sequence[str]], frozen: Sequence[bool]
) -> State:
    """The state after `joint` with what each frozen role's move changed undone."""
    after = state.next(list(joint))
    for role, still in enumerate(frozen):
        if still:
            alternative = list(joint)
            alternative[role] = moves[role][1]
            after = after.reverted(state, state.next(alternative))
    return after


def _part_winning(
    state: State, moves: Sequence[Sequence[str]], frozen: Sequence[bool], role: int
) -> list[str] | None:
    """The joint move (the others' first moves) in which `role` wins at once in the
    part: its first move after which the game ends with goal 100 for it; None if none."""
    joint = [legal[0] for legal in moves]
    for move in moves[role]:
        joint[role] = move
        after = _part_next(state, joint, moves, frozen)
        if after.is_terminal() and after.goals()[role] == 100:
            return joint
    return None


def _part_safe_move(
    state: State,
    moves: Sequence[Sequence[str]],
    frozen: Sequence[bool],
    role: int,
    rng: random.Random,
    part: frozenset[str],
) -> str:
    """`role`'s move by the anti-decisive rule within the part (see `Part`)."""
    joint = [legal[0] for legal in moves]
    candidates = list(moves[role])
    while candidates:
        joint[role] = move = rng.choice(candidates)
        if not _part_threatened(_part_next(state, joint, moves, frozen), role, part):
            return move
        candidates.remove(move)
    return rng.choice(moves[role])


def _part_threatened(after: State, role: int, part: frozenset[str]) -> bool:
    """Whether at `after` the part's one chooser is another role than `role` that
    can win at once in the part."""
    if after.is_terminal():
        return False
    try:
        moves = after.all_legal_moves()
    except GameDefinitionError:
        return False
    if not all(moves):
        return False
    frozen, other = _part_roles(moves, part)
    return other not in (None, role) and _part_winning(after, moves, frozen, other) is not None


def _mast_playout(
    state: State, rng: random.Random, averages: MoveAverages, epsilon: float, plies: int | None
) -> PlayoutResult:
    played: list[tuple[int, str]] = []
    steps = 0
    while not state.is_terminal():
        joint = []
        for role, moves in enumerate(state.all_legal_moves()):
            if plies is not None and steps >= plies:
                move = rng.choice(moves)
            elif len(moves) == 1:
                move = moves[0]
            else:
                move = rng.choice(moves) if rng.random() < epsilon else averages.best(role, moves)
                played.append((role, move))
            joint.append(move)
        state = state.next(joint)
        steps += 1
    goals = state.goals()
    for role, move in played:
        averages.learn(role, move, goals[role] * 0.01)
    return goals, steps


def _recorded_playout(
    state: State, rng: random.Random, slots: amaf.MoveSlots
) -> tuple[Goals, int, list[tuple[int, int]]]:
    """A random playout (as `Random` plays it) and the distinct
    (slot, role) moves of the roles that had a choice."""
    played: dict[int, int] = {}
    steps = 0
    while not state.is_terminal():
        joint = []
        for role, moves in enumerate(state.all_legal_moves()):
            move = rng.choice(moves)
            if len(moves) > 1:
                played.setdefault(slots.slot(role, move), role)
            joint.append(move)
        state = state.next(joint)
        steps += 1
    return state.goals(), steps, list(played.items())
