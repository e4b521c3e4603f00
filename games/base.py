"""The generic Game/State interface: the one seam between search and rules.

Everything that searches or referees talks to games only through `Game` and
`State`; it never knows whether the rules are native Python or interpreted GDL.

GGP games are n-player and simultaneous in general, so the interface speaks of
roles, joint moves (one move per role, in role order) and goal vectors (an int
0..100 per role).  Turn-taking games give the role not on move the single move
``noop``.  A move is the canonical KIF text of its term: ``(mark 1 2)``,
``noop`` (single spaces, no space after ``(`` or before ``)``).  Native games
use the same roles, move texts and state facts as their GDL twins, so the two
are interchangeable everywhere.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from array import array
from collections.abc import Sequence

from ggp.games import amaf
from ggp.games.move_averages import MoveAverages

Goals = tuple[int, ...]
"""One goal value (0..100) per role, in role order."""

PlayoutResult = tuple[Goals, int]
"""The goal vector at the end of a playout, and how many joint moves it took."""

Finishers = tuple[frozenset[str], ...]
"""Per role, the moves that playouts look at for a win (`State.finishing_moves`)."""


class GameError(Exception):
    """Base class of the errors a game raises on bad input or broken rules."""


class IllegalMoveError(GameError, ValueError):
    """A joint move that is not legal in the state it was applied to."""

    def __init__(self, role: str, move: str, legal: Sequence[str]) -> None:
        self.role = role
        self.move = move
        self.legal = tuple(legal)
        shown = ", ".join(self.legal) if self.legal else "none"
        super().__init__(f"illegal move {move!r} for role {role}; legal moves: {shown}")


class GameDefinitionError(GameError):
    """The rules themselves are broken in this state (no legal move, no goal...)."""


class Game(ABC):
    """A game: its roles in order, its initial state, and how to read states back.

    `name` is what the game is called by (`load_game` accepts it back); a native
    game with options spells them in it, e.g. ``connect_four:height=4,width=5``.
    """

    name: str
    roles: tuple[str, ...]
    playout_batch: int = 1
    """How many playouts a search should run at once from a leaf
    (`State.random_playouts`): more than one where a game's playouts cost
    little beside the search's own bookkeeping (native code), so that the
    search does not spend most of its time outside them."""
    gdl_ii: bool = False
    """Whether the rules are GDL-II's (Thielscher 2010): they have ``sees`` rules, and
    each role is told only its own move and its percepts (`State.percepts`), never
    the joint move, so it may not know the state.  A game with a role ``random``
    and no ``sees`` rule is one of chance with perfect information, as written for
    GDL: its roles see every joint move."""
    random_role: int | None = None
    """The index of the role ``random`` (chance, in GDL-II and before it): never a
    player, moved uniformly at random among its legal moves by the referee; None if
    there is none."""

    @property
    def rules_id(self) -> str:
        """What identifies these rules across processes and matches (for saved data).

        The name, options included, for a native game; GDL games use a hash
        of their rules.
        """
        return self.name

    @abstractmethod
    def initial_state(self) -> State:
        """The state the game starts in."""

    @abstractmethod
    def state_from_facts(self, facts: Sequence[str]) -> State:
        """Rebuild a state from its GDL facts (the inverse of `State.facts`)."""

    def move_slots(self) -> amaf.MoveSlots:
        """A numbering of the moves for AMAF tables (`ggp.games.amaf`): here made as
        moves appear; games with native playouts number them as their C code does."""
        return amaf.MoveSlots(len(self.roles))

    def role_index(self, role: str) -> int:
        """The position of `role` in `roles`; a clear error if there is none."""
        try:
            return self.roles.index(role)
        except ValueError:
            raise GameError(
                f"no role {role!r} in {self.name}; roles: {', '.join(self.roles)}"
            ) from None


class State(ABC):
    """One state of a game.  States are immutable values."""

    __slots__ = ()

    @property
    @abstractmethod
    def game(self) -> Game:
        """The game this state belongs to."""

    @abstractmethod
    def legal_moves(self, role: int) -> tuple[str, ...]:
        """The legal moves of the role at index `role`, in a deterministic order."""

    @abstractmethod
    def next(self, joint: Sequence[str]) -> State:
        """The state after the joint move (one move per role, in role order).

        Raises `IllegalMoveError` if a move is not legal for its role, and
        `GameError` if the joint move does not have one move per role.
        """

    def percepts(self, joint: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """GDL-II: per role, in role order, what it sees (the ``sees`` facts) when
        `joint` is played in this state, sorted texts.  Only GDL-II games
        (`Game.gdl_ii`) have percepts; in the others every role sees the joint move."""
        raise GameError(f"{self.game.name} is not a GDL-II game: it has no percepts")

    def next_listed(self, joint: Sequence[str]) -> State:
        """`next` for a joint move taken from this non-terminal state's own lists
        of legal moves (`legal_moves`), one per role, as searches take them.  A
        state may skip `next`'s checks and spelling for it; this one does not."""
        return self.next(joint)

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over in this state."""

    @abstractmethod
    def goals(self) -> Goals:
        """The goal value (0..100) of every role, in role order.

        Defined in terminal states; a game may raise `GameDefinitionError`
        elsewhere.
        """

    @abstractmethod
    def key(self) -> str:
        """A stable key: equal states give equal keys, in every process."""

    @abstractmethod
    def facts(self) -> tuple[str, ...]:
        """The state as GDL facts (the arguments of ``true``), sorted."""

    def all_legal_moves(self) -> tuple[tuple[str, ...], ...]:
        """The legal moves of every role, in role order."""
        return tuple(self.legal_moves(i) for i in range(len(self.game.roles)))

    def random_playout(self, rng: random.Random) -> PlayoutResult:
        """Play uniformly random joint moves to the end; return goals and length.

        This generic version goes through the interface; games override it
        with a faster one where they can (it is where search spends its time).
        """
        state: State = self
        steps = 0
        while not state.is_terminal():
            joint = [rng.choice(moves) for moves in state.all_legal_moves()]
            state = state.next(joint)
            steps += 1
        return state.goals(), steps

    def random_playouts(self, rng: random.Random, count: int) -> list[PlayoutResult]:
        """`count` random playouts from this state (as many calls of `random_playout`).

        Games whose playouts run in native code override it to run them all
        in one call.
        """
        return [self.random_playout(rng) for _ in range(count)]

    def finishing_moves(self, rng: random.Random, count: int) -> Finishers:
        """Per role, the moves that ended `count` random playouts from this state.

        The playouts are those of `random_playouts` for the same `rng`; the
        moves kept are those of the roles that had a choice in each playout's
        last joint move.  Greedy and decisive playouts given these moves
        (``finishers``) look only at them for a win: a move that never ended
        a random game is rarely one that can (on Breakthrough, a step onto
        the last row), and looking at every legal move costs a next state
        each.  Games with native code run them in one call.
        """
        found: list[set[str]] = [set() for _ in self.game.roles]
        for _ in range(count):
            state: State = self
            moves: tuple[tuple[str, ...], ...] = ()
            joint: list[str] = []
            while not state.is_terminal():
                moves = state.all_legal_moves()
                joint = [rng.choice(legal) for legal in moves]
                state = state.next(joint)
            for role, move in enumerate(joint):
                if len(moves[role]) > 1:
                    found[role].add(move)
        return tuple(frozenset(moves) for moves in found)

    def greedy_playouts(
        self, rng: random.Random, count: int, plies: int, finishers: Finishers | None = None
    ) -> list[PlayoutResult]:
        """`count` playouts that take a winning move where one is seen.

        In the first `plies` moves of a playout, a role that alone has a
        choice (the others have one move each) plays the first of its moves,
        in legal-move order, that ends the game with goal 100 for it, when
        there is one; every other move is uniformly random, as in
        `random_playout`.  Looking costs a next state per move, so the rule
        is kept to the first moves, where it sharpens the value of a leaf
        (a leaf whose mover can win at once is valued as won).  With
        `finishers`, only a role's moves among its finishers are looked at.
        Games with native code run them in one call.
        """
        return [_greedy_playout(self, rng, plies, finishers) for _ in range(count)]

    def decisive_playouts(
        self, rng: random.Random, count: int, plies: int, finishers: Finishers | None = None
    ) -> list[PlayoutResult]:
        """`count` playouts with decisive and anti-decisive moves (Teytaud and
        Teytaud 2010, "On the huge benefit of decisive moves in Monte-Carlo
        Tree Search").

        In the first `plies` moves of a playout, a role that alone has a
        choice (the others have one move each) takes a winning move as in
        `greedy_playouts`; when it has none, it avoids a move after which
        another role can win at once: it draws a move with ``rng.choice``
        among those not rejected yet (all of them at first, in legal-move
        order), and rejects it if the next state is not terminal and
        another role with a choice there has a move ending the game with
        goal 100 for it (the rest playing their first legal moves); it
        redraws among the rest, and when every move is rejected plays
        ``rng.choice`` of all of them.  The roles without a choice draw
        their one move, in role order around the chooser's draws, as in
        `random_playout`.

        Where several roles have a choice (simultaneous moves), each of them,
        in role order, takes its first winning move (the others playing their
        first legal moves) or, when it has none, draws a move by the same
        rule; the roles without a choice play their one move without a draw.
        On simultaneous Connect Four, that is Connect Four's rule on each
        board.  A state where none has a choice, and every move after
        `plies`, is played uniformly at random.  A looked-at move costs a
        next state and one per reply of the opponents.  With `finishers`,
        wins are looked for among them alone (`greedy_playouts`), the
        opponents' included.  Games with native code run them in one call.
        """
        return [_decisive_playout(self, rng, plies, finishers) for _ in range(count)]

    def mast_playouts(
        self,
        rng: random.Random,
        count: int,
        averages: MoveAverages,
        epsilon: float,
        plies: int | None = None,
    ) -> list[PlayoutResult]:
        """`count` MAST playouts, learnt into `averages` as they are played.

        Draws one 32-bit seed from `rng` and plays from ``random.Random(seed)``:
        in each move, a role with a choice plays a uniformly random move with
        probability `epsilon` (one ``random()`` draw, then ``choice``), else its
        move with the best average (`MoveAverages.best`); a role without a
        choice plays its one move, drawing nothing.  After `plies` moves (None:
        never) every role plays ``choice`` of its moves, as `random_playout`
        does.  At the end of each playout, every move played by the averages'
        rule (the epsilon-greedy one) is learnt with its role's goal/100, once
        per time it was played, so that the next playout already knows it.
        Games with native code run them in one call and play exactly these
        playouts for the seed.
        """
        seeded = random.Random(rng.getrandbits(32))
        return [_mast_playout(self, seeded, averages, epsilon, plies) for _ in range(count)]

    def amaf_playouts(
        self,
        rng: random.Random,
        count: int,
        slots: amaf.MoveSlots,
        tables: Sequence[array | None],
        tree: amaf.Tree,
    ) -> list[PlayoutResult]:
        """`count` random playouts that record their moves in AMAF tables (`ggp.games.amaf`).

        Draws one 32-bit seed from `rng` and plays the playouts of
        `random_playouts` with ``random.Random(seed)``; then the simulation
        (the moves `tree` of its path, whose nodes' tables are `tables`, and
        these playouts) is added to the tables (`amaf.add`), each playout's
        moves numbered by `slots`.  Games with native code do it in one call.
        """
        seeded = random.Random(rng.getrandbits(32))
        results = []
        playouts = []
        for _ in range(count):
            goals, steps, played = _recorded_playout(self, seeded, slots)
            results.append((goals, steps))
            playouts.append(([goal * 0.01 for goal in goals], played))
        amaf.add(tables, tree, playouts)
        return results

    def part_playouts(
        self, rng: random.Random, count: int, part: frozenset[str]
    ) -> list[PlayoutResult]:
        """`count` random playouts of one part of the state, the others frozen
        (`ggp.player.search.factored`: a search over `part`, a set of moves).

        Draws one 32-bit seed from `rng` and plays from ``random.Random(seed)``.
        At each step, a role with a choice none of whose moves is in `part` makes
        no move (Sancho's "pseudo no-op" on the other parts): it plays its first
        legal move, and what that changed is undone against its second
        (`reverted`), drawing nothing; every other role draws ``choice`` of its
        moves, in role order.  On simultaneous Connect Four that is Connect
        Four on our board alone, the other board as it is.  Where a role has no
        legal move (our part is full, the others still open: a state the game
        never reaches), the playout ends even, 50 for every role.  Games with
        native code run them in one call and play exactly these playouts.
        """
        seeded = random.Random(rng.getrandbits(32))
        return [_part_playout(self, seeded, part) for _ in range(count)]

    def reverted(self, before: State, alternative: State) -> State:
        """This state with every fact on which it differs from `alternative` as it
        is in `before` (three states of this game).

        With this state and `alternative` the successors of `before` by two joint
        moves that differ in one role's move only, that undoes what the role's
        choice changed: the state as if it had made no move (`ggp.player.search.factored`).
        """
        mine, theirs, old = set(self.facts()), set(alternative.facts()), set(before.facts())
        differ = mine ^ theirs
        return self.game.state_from_facts(sorted((mine - differ) | (old & differ)))

    def rebased(self, base: State, onto: State) -> State:
        """This state with the facts on which it differs from `base` as they are here
        and every other fact as it is in `onto` (three states of this game).

        With this state reached from `base` by moves on one part of the state
        only, that is the state those moves reach from `onto`, where the other
        parts have moved on (`ggp.player.search.factored.PartTrees`).
        """
        mine, old, new = set(self.facts()), set(base.facts()), set(onto.facts())
        changed = mine ^ old
        return self.game.state_from_facts(sorted((mine & changed) | (new - changed)))

    def render(self) -> str:
        """A human-readable picture of the state (the facts unless overridden)."""
        return "\n".join(self.facts())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and other.key() == self.key()
            and (other.game is self.game or other.game.rules_id == self.game.rules_id)
        )

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"<{self.game.name} state {self.key()}>"


_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def canonical_move(text: str) -> str:
    """The canonical KIF spelling of a move term: ``( mark 1  2 )`` -> ``(mark 1 2)``.

    Case is kept (game managers compare moves case-sensitively).
    """
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if out and token != ")" and out[-1] != "(":
            out.append(" ")
        out.append(token)
    return "".join(out)


def check_joint(state: State, joint: Sequence[str]) -> None:
    """Raise a clear error unless `joint` has one legal move per role of `state`."""
    roles = state.game.roles
    if len(joint) != len(roles):
        raise GameError(
            f"a joint move needs one move per role ({len(roles)}: {', '.join(roles)}), "
            f"got {len(joint)}: {list(joint)}"
        )
    for index, move in enumerate(joint):
        legal = state.legal_moves(index)
        if move not in legal:
            raise IllegalMoveError(roles[index], move, legal)


def winning_joint(state: State, finishers: Finishers | None = None) -> list[str] | None:
    """The joint move in which the one role with a choice wins at once (the game ends
    with goal 100 for it), its first such move in legal-move order (among its
    `finishers`, if given); None if there is none."""
    moves = state.all_legal_moves()
    role = _sole_chooser(moves)
    return None if role is None else _winning(state, moves, role, finishers)


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
) -> str:
    """`role`'s move by the anti-decisive rule of `State.decisive_playouts`."""
    joint = [legal[0] for legal in moves]
    candidates = list(moves[role])
    while candidates:
        joint[role] = move = rng.choice(candidates)
        if not _threatened(state, joint, role, finishers):
            return move
        candidates.remove(move)
    return rng.choice(moves[role])


def _simultaneous_joint(
    state: State, moves: Sequence[Sequence[str]], rng: random.Random, finishers: Finishers | None
) -> list[str]:
    """The joint move of `State.decisive_playouts` where several roles have a choice."""
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
    state: State, rng: random.Random, plies: int, finishers: Finishers | None
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
                _safe_move(state, moves, role, rng, finishers)
                if role == chooser
                else rng.choice(legal)
                for role, legal in enumerate(moves)
            ]
        state = state.next(joint)
        steps += 1
    return state.goals(), steps


def _part_playout(state: State, rng: random.Random, part: frozenset[str]) -> PlayoutResult:
    steps = 0
    even = tuple([50] * len(state.game.roles))
    while not state.is_terminal():
        try:
            moves = state.all_legal_moves()
        except GameDefinitionError:
            return even, steps
        if not all(moves):
            return even, steps
        frozen = [len(legal) > 1 and part.isdisjoint(legal) for legal in moves]
        joint = [
            legal[0] if still else rng.choice(legal)
            for legal, still in zip(moves, frozen, strict=True)
        ]
        after = state.next(joint)
        for role, still in enumerate(frozen):
            if still:
                alternative = list(joint)
                alternative[role] = moves[role][1]
                after = after.reverted(state, state.next(alternative))
        state = after
        steps += 1
    return state.goals(), steps


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
    """A random playout (as `State.random_playout` plays it) and the distinct
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
