"""A game given by GDL rules, behind the generic `ggp.games.base` interface.

A state is the frozenset of its ``true`` terms.  Everything a state computes
(its layer of derived facts, legal moves, terminality, goals, text) is kept
on the state, so search asking every role's legal moves and then the next
state computes each thing once.  Moves and facts are printed exactly as the
rules spell them (`ggp.gdl.syntax.terms.to_kif`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from ggp.games.base import (
    Game,
    GameDefinitionError,
    GameError,
    Goals,
    PlayoutResult,
    canonical_move,
    check_joint,
)
from ggp.games.playouts import FastRandomState
from ggp.gdl.interpreter.facts import Layer
from ggp.gdl.interpreter.magic import DEMAND_PREFIX, demand_reasoner
from ggp.gdl.interpreter.reasoner import WorkLimitExceeded
from ggp.gdl.syntax.errors import GdlSyntaxError
from ggp.gdl.syntax.parser import parse_rules, parse_term
from ggp.gdl.syntax.terms import Rule, Term, is_ground, relation, rules_text, to_kif
from ggp.gdl.syntax.validator import check

RANDOM_ROLE = "random"
"""GDL-II's chance role: moved by the referee, never by a player."""

_SHOWN_FACTS = 400
"""How much of a state's text error messages show."""


class RulesTooExpensive(GameDefinitionError):
    """Computing a state or joint move needs more work than `GdlGame.limit_work` allows."""


class GdlGame(Game):
    """A game whose rules are a validated GDL description."""

    def __init__(self, rules: list[Rule], name: str = "gdl", source: str = "") -> None:
        self.name = name
        self.rules = rules
        self.strata = check(rules, source or name)
        """The validated dependency structure of the rules as written."""
        self.reasoner = demand_reasoner(self.strata)
        self._rules_id = hashlib.sha256(rules_text(rules).encode()).hexdigest()
        self.role_terms = self._ordered_roles()
        self.roles = tuple(to_kif(role) for role in self.role_terms)
        self._role_index = {role: i for i, role in enumerate(self.role_terms)}
        self._initial = frozenset(args[0] for args in self.reasoner.facts("init"))
        self.random_role = self.roles.index(RANDOM_ROLE) if RANDOM_ROLE in self.roles else None
        self.gdl_ii = any(relation(rule.head) == "sees" for rule in rules)
        self._move_texts: dict[Term, str] = {}
        self.not_compiled = ""
        """Why the rules are not compiled, when compiling them was tried (`ggp.gdl.load`)."""
        self.not_native: Exception | None = None
        """Why there is no native code, when it was asked for and could not be had
        (`ggp.gdl.load`, `ggp.gdl.native.attach`): a `NativeUnavailable` with its fix."""
        self.board_view: Game | None = None
        """A game that draws these facts as a board (a built-in twin's native game)."""
        self.missing_goal: int | None = None
        """The goal of a role the rules give none in a terminal state: None (the
        default, the referee's) makes that a `GameDefinitionError`; a player's search
        counts it as a value (`count_missing_goals_as`)."""

    def count_missing_goals_as(self, value: int | None) -> None:
        """From now on a role without a goal value in a terminal state gets `value`
        (playouts included), instead of an error (None).  Rules that leave a role
        out of some terminal states (pacman3p's ghosts) then still play: a
        player's search must not stop there, while a referee reports the rules."""
        self.missing_goal = value

    def limit_work(self, bindings: int | None) -> None:
        """Bound what each question about a state or joint move (legal moves,
        terminal, goals, next state) may cost: at most `bindings` join bindings,
        and no derived fact of more than `ggp.gdl.interpreter.joins.MAX_TERM_SIZE`
        symbols where terms nest; past that, the state raises `RulesTooExpensive`.
        None: no bound (the default; counting costs 10-40% of the interpreter's speed).

        The trial at loading (`ggp.gdl.interpreter.magic`) only bounds the first joint move:
        rules whose later states cost a minute each, or whose terms double at every
        step, pass it.
        """
        self.reasoner.query_limit = bindings

    def render_facts(self, facts: Sequence[str]) -> str:
        """The facts of a state drawn by `board_view`, or listed one a line."""
        if self.board_view is not None:
            try:
                return self.board_view.state_from_facts(facts).render()
            except GameError:
                pass  # a state the board cannot draw: list its facts
        return "\n".join(facts)

    @classmethod
    def from_text(cls, text: str, name: str = "gdl", source: str = "") -> GdlGame:
        """The game described by GDL `text`; `source` names it in error messages."""
        return cls(parse_rules(text, source), name, source)

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> GdlGame:
        """The game in a ``.kif`` file, named after the file unless `name` is given."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise GameError(f"cannot read {path}: {error.strerror}") from None
        return cls.from_text(text, name or path.stem, str(path))

    @property
    def rules_id(self) -> str:
        """The sha256 of the canonical rules text: equal rules, equal id."""
        return self._rules_id

    def _ordered_roles(self) -> tuple[Term, ...]:
        """Roles in the order of their ``(role ...)`` facts; any others after, sorted."""
        derived = {args[0] for args in self.reasoner.facts("role")}
        ordered: list[Term] = []
        for rule in self.rules:
            if not rule.body and relation(rule.head) == "role":
                role = rule.head[1]
                if role in derived and role not in ordered:
                    ordered.append(role)
        ordered += sorted(derived - set(ordered), key=to_kif)
        return tuple(ordered)

    def move_text(self, move: Term) -> str:
        """The canonical text of a move term (remembered: moves recur in every state)."""
        text = self._move_texts.get(move)
        if text is None:
            text = self._move_texts[move] = to_kif(move)
        return text

    def initial_state(self) -> GdlState:
        return GdlState(self, self._initial)

    def state_from_facts(self, facts: Sequence[str]) -> GdlState:
        terms = []
        for fact in facts:
            try:
                term = parse_term(fact)
            except GdlSyntaxError as error:
                raise GameError(f"{self.name}: not a fact: {fact!r}: {error}") from None
            if not is_ground(term):
                raise GameError(f"{self.name}: a state fact has no variables: {fact!r}")
            terms.append(term)
        return GdlState(self, frozenset(terms))


class GdlState(FastRandomState):
    """One state of a `GdlGame`: the set of its true terms, and what follows."""

    __slots__ = ("_game", "terms", "_layers", "_legal", "_terminal", "_facts")

    def __init__(self, game: GdlGame, terms: frozenset[Term]) -> None:
        self._game = game
        self.terms = terms
        self._layers: tuple[Layer, Layer] | None = None
        self._legal: list[tuple[tuple[str, ...], dict[str, Term]]] | None = None
        self._terminal: bool | None = None
        self._facts: tuple[str, ...] | None = None

    @property
    def game(self) -> GdlGame:
        return self._game

    def layers(self) -> tuple[Layer, Layer]:
        """The layers of this state's derived facts (computed as they are asked for)."""
        if self._layers is None:
            self._layers = self._game.reasoner.state_layers(self.terms)
        return self._layers

    def derived(self, name: str) -> set[tuple]:
        """The facts of relation `name` in this state (argument tuples)."""
        try:
            return self._game.reasoner.facts(name, self.layers())
        except WorkLimitExceeded as exceeded:
            raise self._too_expensive(exceeded, "this state") from None

    def _too_expensive(self, exceeded: WorkLimitExceeded, where: str) -> RulesTooExpensive:
        game = self._game
        names = ", ".join(
            sorted({name.removeprefix(DEMAND_PREFIX) for name in exceeded.stratum.relations})
        )
        large = exceeded.term_too_large
        if large is not None:  # the fact tells more than the state
            why = f"computing {names} for {where}: {large}"
        else:
            why = (
                f"computing {names} for {where} needs more than "
                f"{game.reasoner.query_limit:,} join bindings; the state: {self.shown()}"
            )
        return RulesTooExpensive(f"{game.name}: the rules are too expensive to play: {why}")

    # ------------------------------------------------------------ moves

    def _legal_table(self) -> list[tuple[tuple[str, ...], dict[str, Term]]]:
        if self._legal is None:
            per_role: list[dict[str, Term]] = [{} for _ in self._game.roles]
            index = self._game._role_index
            text = self._game.move_text
            for role, move in self.derived("legal"):
                i = index.get(role)
                if i is not None:
                    per_role[i][text(move)] = move
            self._legal = [(tuple(sorted(moves)), moves) for moves in per_role]
        return self._legal

    def legal_moves(self, role: int) -> tuple[str, ...]:
        """The role's legal moves, sorted; none in a terminal state.

        Raises `GameDefinitionError` if a role has none in a non-terminal state.
        """
        if self.is_terminal():
            return ()
        moves = self._legal_table()[role][0]
        if not moves:
            raise GameDefinitionError(
                f"{self._game.name}: role {self._game.roles[role]} has no legal move in "
                f"a state that is not terminal: {self.shown()}"
            )
        return moves

    def _legal_terms(self, role: int) -> list[Term]:
        moves = self.legal_moves(role)
        table = self._legal_table()[role][1]
        return [table[move] for move in moves]

    def _resolve(self, role: int, text: str) -> str:
        """The legal move spelled like `text` (canonically, or else in another case)."""
        move = canonical_move(text)
        legal = self._legal_table()[role][1]
        if move in legal:
            return move
        folded = [m for m in legal if m.lower() == move.lower()]
        return folded[0] if len(folded) == 1 else move

    def next(self, joint: Sequence[str]) -> GdlState:
        if len(joint) == len(self._game.roles) and not self.is_terminal():
            joint = [self._resolve(i, move) for i, move in enumerate(joint)]
        check_joint(self, joint)
        table = self._legal_table()
        return self._successor([table[i][1][move] for i, move in enumerate(joint)])

    def _move_facts(self, moves: Iterable[Term], name: str) -> set[tuple]:
        """The facts of relation `name` (``next``, ``sees``) for the joint move `moves`."""
        reasoner = self._game.reasoner
        does = zip(self._game.role_terms, moves, strict=True)
        layers = reasoner.move_layers(self.layers(), does)
        try:
            return reasoner.facts(name, layers)
        except WorkLimitExceeded as exceeded:
            raise self._too_expensive(exceeded, "a joint move from this state") from None

    def _successor(self, moves: Iterable[Term]) -> GdlState:
        facts = self._move_facts(moves, "next")
        return GdlState(self._game, frozenset(args[0] for args in facts))

    def percepts(self, joint: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """Per role, the ``sees`` facts' percepts for `joint` (checked as by `next`)."""
        game = self._game
        if not game.gdl_ii:
            return super().percepts(joint)
        if len(joint) == len(game.roles) and not self.is_terminal():
            joint = [self._resolve(i, move) for i, move in enumerate(joint)]
        check_joint(self, joint)
        table = self._legal_table()
        seen: list[set[str]] = [set() for _ in game.roles]
        for role, percept in self._move_facts(
            [table[i][1][move] for i, move in enumerate(joint)], "sees"
        ):
            i = game._role_index.get(role)
            if i is not None:
                seen[i].add(to_kif(percept))
        return tuple(tuple(sorted(texts)) for texts in seen)

    def fast_random_playout(self, rng: random.Random) -> PlayoutResult:
        """As the generic playout (same choices for the same seed), without move texts."""
        state = self
        steps = 0
        roles = range(len(self._game.roles))
        while not state.is_terminal():
            state = state._successor([rng.choice(state._legal_terms(i)) for i in roles])
            steps += 1
        return state.goals(), steps

    # ------------------------------------------------------------ outcome

    def is_terminal(self) -> bool:
        if self._terminal is None:
            self._terminal = bool(self.derived("terminal"))
        return self._terminal

    def goals(self) -> Goals:
        """The goal value of every role; `GameDefinitionError` unless each has exactly one
        (or, in a terminal state, none and `GdlGame.missing_goal` counts for it)."""
        values: list[set[Term]] = [set() for _ in self._game.roles]
        index = self._game._role_index
        for role, value in self.derived("goal"):
            i = index.get(role)
            if i is not None:
                values[i].add(value)
        goals = []
        missing = self._game.missing_goal
        for role, found in zip(self._game.roles, values, strict=True):
            if not found and missing is not None and self.is_terminal():
                goals.append(missing)
                continue
            if len(found) != 1:
                what = (
                    "no goal value"
                    if not found
                    else f"{len(found)} goal values ({', '.join(sorted(map(to_kif, found)))})"
                )
                raise GameDefinitionError(
                    f"{self._game.name}: role {role} has {what} in "
                    f"{'the terminal' if self.is_terminal() else 'this'} state: {self.shown()}"
                )
            (value,) = found
            goals.append(_goal_value(self._game.name, role, value))
        return tuple(goals)

    # ------------------------------------------------------------ text

    def facts(self) -> tuple[str, ...]:
        if self._facts is None:
            self._facts = tuple(sorted(to_kif(term) for term in self.terms))
        return self._facts

    def key(self) -> str:
        return " ".join(self.facts())

    def render(self) -> str:
        return self._game.render_facts(self.facts())

    def shown(self) -> str:
        """The state's facts for an error message, shortened if long."""
        text = self.key()
        return text if len(text) <= _SHOWN_FACTS else text[: _SHOWN_FACTS - 3] + "..."


def _goal_value(game: str, role: str, value: Term) -> int:
    if type(value) is str and value.isdigit() and 0 <= int(value) <= 100:
        return int(value)
    raise GameDefinitionError(
        f"{game}: the goal value of role {role} is {to_kif(value)}, not an integer 0..100"
    )
