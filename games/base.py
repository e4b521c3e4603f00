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
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ggp.games import amaf

Goals = tuple[int, ...]
"""One goal value (0..100) per role, in role order."""

PlayoutResult = tuple[Goals, int]
"""The goal vector at the end of a playout, and how many joint moves it took."""

Finishers = tuple[frozenset[str], ...]
"""Per role, the moves that playouts look at for a win (`ggp.games.playouts.FinishingMoves`)."""

Result = TypeVar("Result")


class PlayoutPolicy(ABC, Generic[Result]):
    """How playouts choose their moves (`ggp.games.playouts` holds them all)."""

    __slots__ = ()

    @abstractmethod
    def play(self, state: State, rng: random.Random, count: int) -> Result:
        """`count` playouts from `state` through the `State` interface alone."""


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
    (`playouts.Random`): more than one where a game's playouts cost
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

    def native_tree(self) -> Any:
        """A search tree the game's native code holds and searches itself (the
        loop of `ggp.player.search.mcts.MCTS` in C, `ggp.gdl.native.tree.NativeTree`),
        for states with integer `bits`; None (here) where it has none."""
        return None

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

    def percepts_listed(self, joint: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """`percepts` for a joint move taken as `next_listed` takes it: a state may
        skip the checks and spelling; this one does not."""
        return self.percepts(joint)

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

    def playouts(self, rng: random.Random, count: int, policy: PlayoutPolicy[Result]) -> Result:
        """`count` playouts from this state by `policy` (`ggp.games.playouts`): its
        pure-Python `play` here, through this interface.  A state with a faster
        version of a policy (a board in Python, compiled rules, native code)
        overrides this to run it, the same moves for the same seed.  Where the
        search spends its time."""
        return policy.play(self, rng, count)

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
