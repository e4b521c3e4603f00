"""A GDL game played through compiled rules (`ggp.gdl.compiled.compile`).

`CompiledGame` is a `GdlGame` (same roles, move texts, facts, keys and rules
id; the interpreter stays available as the oracle) whose states are
`CompiledState`: an integer of base-proposition bits.  Where the rules are
broken in a state (a role without legal moves, not exactly one goal value)
the state asks the interpreter, so that the error is the interpreter's own.
"""

from __future__ import annotations

import random
import threading
from array import array
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, Protocol, TypeVar

from ggp.games.amaf import MoveSlots, Tree
from ggp.games.base import (
    Finishers,
    GameError,
    Goals,
    PlayoutPolicy,
    PlayoutResult,
    Result,
    State,
    canonical_move,
    check_joint,
)
from ggp.games.move_averages import MoveAverages
from ggp.games.playouts import (
    Amaf,
    Decisive,
    FinishingMoves,
    Greedy,
    Mast,
    Part,
    Random,
)
from ggp.gdl.compiled.compile import CompiledRules, compile_rules
from ggp.gdl.interpreter.game import GdlGame, GdlState
from ggp.gdl.network.formulas import bit_indexes
from ggp.gdl.network.grounding import Budget
from ggp.gdl.syntax.terms import Rule, Term

Answer = TypeVar("Answer")


class NativeCode(Protocol):
    """The rules as native code (`ggp.gdl.native`), answering in the compiled functions' terms."""

    def step(self, bits: int) -> tuple[list[int], ...] | None: ...

    def terminal(self, bits: int) -> bool: ...

    def legal(self, bits: int) -> tuple[list[int], ...]: ...

    def goals(self, bits: int) -> tuple[list[int], ...]: ...

    def count_missing_goals_as(self, value: int | None) -> None:
        """Playouts give `value` to a role without a goal in their terminal state
        (`GdlGame.count_missing_goals_as`); None: they break there."""
        ...

    def next(self, bits: int, does: int) -> int: ...

    def sees(self, bits: int, does: int) -> tuple[list[int], ...]:
        """GDL-II: per role, the positions of its ``sees`` entries that hold when the
        joint move whose input bits are `does` is played."""
        ...

    def playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        greedy: int = 0,
        safe: bool = False,
        finish: int | None = None,
    ) -> list[PlayoutResult]:
        """Random playouts (greedy for `greedy` moves, see `playouts.Greedy`;
        with `safe`, decisive and anti-decisive, see `playouts.Decisive`;
        wins looked for among the input bits `finish` only, if given);
        `PlayoutBroke` if one reaches a state where the rules break."""
        ...

    def random_playouts(self, bits: int, rng: random.Random, count: int) -> list[PlayoutResult]:
        """The random playouts of `playouts` without its options (the shortest call)."""
        ...

    def finishing_moves(self, bits: int, rng: random.Random, count: int) -> int:
        """The input bits of `playouts.FinishingMoves`."""
        ...

    def mast_playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        averages: MoveAverages,
        epsilon: float,
        plies: int | None = None,
    ) -> list[PlayoutResult]:
        """MAST playouts (`playouts.Mast`), `averages` numbered by input
        index; `PlayoutBroke` as for `playouts`."""
        ...

    def part_playouts(
        self, bits: int, rng: random.Random, count: int, part: int, decisive: int = 0
    ) -> list[PlayoutResult]:
        """Playouts of one part (`playouts.Part`), `part` the input bits of
        its moves, decisive in the part for `decisive` moves; `PlayoutBroke`
        as for `playouts`."""
        ...

    def amaf_playouts(
        self,
        bits: int,
        rng: random.Random,
        count: int,
        tables: Sequence[array | None],
        tree: Tree,
    ) -> list[PlayoutResult]:
        """Random playouts recorded in AMAF tables (`playouts.Amaf`), slots by
        input index; `PlayoutBroke` as for `playouts`."""
        ...


class PlayoutBroke(Exception):
    """A native playout reached the state `bits`, where the rules break."""

    def __init__(self, bits: int) -> None:
        super().__init__("a playout reached a state where the rules break")
        self.bits = bits


class CompiledGame(GdlGame):
    """A GDL game whose states are evaluated by compiled code.

    Raises `ggp.gdl.network.grounding.GroundingError` if the rules cannot be compiled
    within `budget`; `ggp.gdl.load` then keeps the interpreter instead.
    """

    def __init__(
        self, rules: list[Rule], name: str = "gdl", source: str = "", budget: Budget | None = None
    ) -> None:
        super().__init__(rules, name, source)
        self._attach(compile_rules(self.strata, self.role_terms, budget))

    @classmethod
    def from_game(cls, game: GdlGame, compiled: CompiledRules) -> CompiledGame:
        """The game `game` (already validated), played through `compiled`."""
        self = cls.__new__(cls)
        self.__dict__.update(vars(game))
        self._attach(compiled)
        return self

    native: NativeCode | None = None
    """The native code answering instead of the generated Python, once attached."""
    native_playouts: NativeCode | None = None
    """The native code playing whole random playouts: `native`, unless the goals are
    left to the interpreter (`CompiledRules.goals_left`), which native code cannot ask;
    then each step of a playout is a native call and its goals the interpreter's."""
    native_build: threading.Thread | None = None
    """The thread building the native code, when it is built in the background."""

    def _attach(self, compiled: CompiledRules) -> None:
        self.compiled = compiled
        self._move_slots: list[dict[str, int]] | None = None
        self._part_inputs: dict[frozenset[str], int] = {}
        self._finish_inputs: dict[Finishers, int] = {}
        self._functions = compiled.functions
        sees = compiled.functions.get("sees")
        if sees is None and not compiled.sees_code_left:  # no percept can ever hold
            sees = _seeing_nothing(len(self.roles))
        self._sees: Percepts | None = None if sees is None else (sees, compiled.percept_texts)
        self._base_index = {term: i for i, term in enumerate(compiled.network.base)}

    def use_native(
        self,
        native: NativeCode,
        playout_batch: int = 1,
        goal_values: list[list[int | None]] | None = None,
        percept_texts: list[list[str]] | None = None,
    ) -> None:
        """Answer through `native` from now on: the same answers, faster.

        May be called from another thread while this game is played: each
        question is answered whole by one side or the other.
        `playout_batch` becomes `Game.playout_batch`.  `goal_values`, when the
        compiled rules left the goals to the interpreter, says that `native`
        computes them after all, with these goal entries (`CompiledRules.goal_values`).
        `percept_texts` are the percepts of `native`'s ``sees`` entries
        (`CompiledRules.percept_texts`), if it computes them.
        """
        if goal_values is not None and self.compiled.goals_left:
            # the values first: a goals() that finds the native function finds them too
            self.compiled.goal_values = goal_values
            self.compiled.goals_left = ""
        functions = dict(self._functions)
        functions.update(
            step=native.step, goals=native.goals, terminal=native.terminal, legal=native.legal
        )
        self.compiled.use_native_next(native.next)
        if percept_texts is not None:
            self._sees = (_native_sees(native), percept_texts)
        self._functions = functions
        self.native = native
        # after `native` is set: a `count_missing_goals_as` meanwhile reaches it either way
        native.count_missing_goals_as(self.missing_goal)
        if not self.compiled.goals_left:
            self.playout_batch = playout_batch
            self.native_playouts = native

    def native_tree(self) -> Any:
        """A search tree held and searched by the native library (`ggp.gdl.native.tree`),
        where native code plays whole playouts; None elsewhere."""
        native = self.native_playouts
        tree = getattr(native, "tree", None)  # native code that holds trees
        if tree is None:
            return None
        return tree(self.compiled.move_texts, lambda bits: CompiledState(self, bits))

    def count_missing_goals_as(self, value: int | None) -> None:
        super().count_missing_goals_as(value)
        native = self.native
        if native is not None:
            native.count_missing_goals_as(value)

    def initial_state(self) -> CompiledState:
        return CompiledState(self, self.compiled.network.init)

    def state_from_facts(self, facts: Sequence[str]) -> State:
        """A compiled state, or an interpreted one if a fact can never be true here."""
        terms = GdlGame.state_from_facts(self, facts).terms
        bits = 0
        for term in terms:
            index = self._base_index.get(term)
            if index is None:
                return GdlState(self, terms)
            bits |= 1 << index
        return CompiledState(self, bits)

    def uses_general_next(self) -> bool:
        """Whether joint moves go through the general next-state function.

        Finds out by writing the next-state function of one joint move of the
        initial state (kept for use, so not wasted): where that function is too
        long, the compiled rules switch to the general one, written here too, so
        that what follows measures play rather than the writing of code.
        """
        state = self.initial_state()
        if state.is_terminal():
            return False
        legal = state._legal_ids()
        if not all(legal):  # a role without legal moves: no play to speak of
            return False
        joint = tuple(ids[0] for ids in legal)
        if self.compiled.specialised(joint) is None:
            self.compiled.general(joint)
        return not self.compiled.specialise

    def _input_slots(self) -> list[dict[str, int]]:
        """Per role, move text -> its input index (made once).

        Input indexes are distinct for the moves of different roles, so one
        pair of arrays serves them all and native code indexes it by the
        input bits it plays.
        """
        slots = self._move_slots
        if slots is None:
            network = self.compiled.network
            texts = self.compiled.move_texts
            slots = [{} for _ in self.roles]
            for index, (role, _) in enumerate(network.inputs):
                if role in self._role_index:  # else a move of no role: never legal
                    slots[self._role_index[role]][texts[index]] = index
            self._move_slots = slots
        return slots

    def part_inputs(self, part: frozenset[str]) -> int:
        """The input bits of the moves in `part`, of any role (made once per part)."""
        mask = self._part_inputs.get(part)
        if mask is None:
            texts = self.compiled.move_texts
            mask = sum(1 << index for index, text in enumerate(texts) if text in part)
            self._part_inputs[part] = mask
        return mask

    def finish_inputs(self, finishers: Finishers) -> int:
        """The input bits of each role's `finishers` (made once per set)."""
        mask = self._finish_inputs.get(finishers)
        if mask is None:
            mask = 0
            for slots, moves in zip(self._input_slots(), finishers, strict=True):
                for move in moves:
                    if move in slots:
                        mask |= 1 << slots[move]
            self._finish_inputs[finishers] = mask
        return mask

    def finishers_of(self, mask: int) -> Finishers:
        """Each role's moves among the input bits `mask` (`finish_inputs` undone)."""
        return tuple(
            frozenset(move for move, index in slots.items() if mask >> index & 1)
            for slots in self._input_slots()
        )

    def number_moves(self, averages: MoveAverages) -> None:
        """Number `averages` by input index (`MoveAverages.renumber`), if not yet so."""
        slots = self._input_slots()
        if averages.numbering is not slots:
            averages.renumber(slots, slots, len(self.compiled.move_texts))

    def move_slots(self) -> MoveSlots:
        """Moves numbered by input index, as native code numbers them, from the start
        (so that AMAF tables stay valid when native code is attached)."""
        return MoveSlots(len(self.roles), self._input_slots())

    def interpreted(self, bits: int) -> GdlState:
        """The state with these bits, evaluated by the interpreter."""
        base = self.compiled.network.base
        return GdlState(self, frozenset(base[i] for i in bit_indexes(bits)))


Percepts = tuple[Callable[..., tuple[list[int], ...]], list[list[str]]]
"""GDL-II's percepts: a function of the state's bits and each role's input index
giving, per role, the positions of its ``sees`` entries that hold; and, per role
and position, the percept's text."""


def _seeing_nothing(roles: int) -> Callable[..., tuple[list[int], ...]]:
    """The percepts of rules in which no ``sees`` sentence can hold (no function written)."""
    nothing: tuple[list[int], ...] = tuple([] for _ in range(roles))

    def percepts(bits: int, *joint: int) -> tuple[list[int], ...]:
        return nothing

    return percepts


def _native_sees(native: NativeCode) -> Callable[..., tuple[list[int], ...]]:
    """`native`'s percepts, asked as the generated ``sees(S, m0, m1, ...)`` is."""
    sees = native.sees

    def percepts(bits: int, *joint: int) -> tuple[list[int], ...]:
        does = 0
        for index in joint:
            does |= 1 << index
        return sees(bits, does)

    return percepts


class CompiledState(State):
    """One state of a `CompiledGame`: the bits of its true base propositions."""

    __slots__ = ("_game", "bits", "_legal", "_terminal", "_facts")

    def __init__(self, game: CompiledGame, bits: int) -> None:
        self._game = game
        self.bits = bits
        self._legal: tuple[list[int], ...] | None = None
        self._terminal: bool | None = None
        self._facts: tuple[str, ...] | None = None

    @property
    def game(self) -> CompiledGame:
        return self._game

    def render(self) -> str:
        return self._game.render_facts(self.facts())

    @property
    def terms(self) -> frozenset[Term]:
        """The true terms, as `GdlState.terms`."""
        base = self._game.compiled.network.base
        return frozenset(base[i] for i in bit_indexes(self.bits))

    def reverted(self, before: State, alternative: State) -> State:
        """`State.reverted` on the bits of the base propositions."""
        if not (isinstance(before, CompiledState) and isinstance(alternative, CompiledState)):
            return super().reverted(before, alternative)
        differ = self.bits ^ alternative.bits
        return CompiledState(self._game, (self.bits & ~differ) | (before.bits & differ))

    def rebased(self, base: State, onto: State) -> State:
        """`State.rebased` on the bits of the base propositions."""
        if not (isinstance(base, CompiledState) and isinstance(onto, CompiledState)):
            return super().rebased(base, onto)
        changed = self.bits ^ base.bits
        return CompiledState(self._game, (self.bits & changed) | (onto.bits & ~changed))

    def _step(self) -> None:
        """Whether the state is terminal and, if not, its legal moves: one call answers both."""
        moves = self._game._functions["step"](self.bits)
        self._terminal = moves is None
        self._legal = moves

    def _legal_ids(self) -> tuple[list[int], ...]:
        """Per role, the input indexes of its legal moves (asked of non-terminal states only)."""
        if self._legal is None:
            legal = self._game._functions.get("legal")
            if self._terminal is None or legal is None:
                self._step()
            elif not self._terminal:
                self._legal = legal(self.bits)
        assert self._legal is not None, "a terminal state has no legal moves to ask for"
        return self._legal

    def legal_moves(self, role: int) -> tuple[str, ...]:
        if self.is_terminal():
            return ()
        ids = self._legal_ids()[role]
        if not ids:
            return self._game.interpreted(self.bits).legal_moves(role)  # raises its error
        return tuple(map(self._game.compiled.move_texts.__getitem__, ids))

    def _resolve(self, role: int, text: str) -> str:
        """The legal move spelled like `text` (canonically, or else in another case)."""
        move = canonical_move(text)
        legal = self.legal_moves(role)
        if move in legal:
            return move
        folded = [m for m in legal if m.lower() == move.lower()]
        return folded[0] if len(folded) == 1 else move

    def next(self, joint: Sequence[str]) -> State:
        roles = self._game.roles
        if len(joint) == len(roles) and not self.is_terminal():
            joint = [self._resolve(i, move) for i, move in enumerate(joint)]
        check_joint(self, joint)
        return self.next_listed(joint)  # checked: each move is one of its role's listed ones

    def percepts(self, joint: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """GDL-II percepts (`State.percepts`), checked and spelt as by `next`; computed
        by the compiled rules or native code (by the interpreter where the generated
        Python left them to it, `CompiledRules.sees_code_left`)."""
        game = self._game
        if not game.gdl_ii:
            return super().percepts(joint)  # raises: no percepts
        if len(joint) == len(game.roles) and not self.is_terminal():
            joint = [self._resolve(i, move) for i, move in enumerate(joint)]
        check_joint(self, joint)
        return self.percepts_listed(joint)

    def percepts_listed(self, joint: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """`percepts` for a joint move of this state's own lists of legal moves, nothing
        checked (as `next_listed`)."""
        game = self._game
        found = game._sees
        if found is None:
            return game.interpreted(self.bits).percepts(joint)
        sees, texts = found
        slots = game._input_slots()
        positions = sees(self.bits, *[slots[role][move] for role, move in enumerate(joint)])
        seen = []
        for role_texts, held in zip(texts, positions, strict=True):
            if len(held) > 1:
                held = sorted(held)  # entries are in the order of their texts
            seen.append(tuple([role_texts[p] for p in held]))
        return tuple(seen)

    def next_listed(self, joint: Sequence[str]) -> State:
        """`State.next_listed`: the moves' input indexes looked up, nothing checked."""
        game = self._game
        slots = game._move_slots or game._input_slots()
        ids = tuple(map(dict.__getitem__, slots, joint))
        return CompiledState(game, game.compiled.next_function(ids)(self.bits))

    def playouts(self, rng: random.Random, count: int, policy: PlayoutPolicy[Result]) -> Result:
        """With native code attached, each policy of `ggp.games.playouts` in one call of
        it (`NATIVE_PLAYOUTS`): the moves of the policy's `play` with
        ``random.Random(rng.getrandbits(32))`` (`ggp.gdl.native.rules`).  Without,
        random playouts on the compiled functions (the interpreter's moves for the
        same seed).  Any other policy plays its own `play`."""
        native = self._game.native_playouts
        if native is not None:
            if type(policy) is Random:  # the common case, by the shortest way
                try:
                    return native.random_playouts(self.bits, rng, count)  # type: ignore[return-value]
                except PlayoutBroke as broke:
                    self._explain(broke)
            run = NATIVE_PLAYOUTS.get(type(policy))
            if run is not None:
                return self._broke_explained(run, native, self, rng, count, policy)
        elif type(policy) is Random:
            return [self._compiled_playout(rng) for _ in range(count)]  # type: ignore[return-value]
        return policy.play(self, rng, count)

    def _compiled_playout(self, rng: random.Random) -> PlayoutResult:
        """A random playout on the compiled functions: the interpreter's moves."""
        game = self._game
        step = game._functions["step"]
        compiled = game.compiled
        functions = compiled.next_functions
        choice = rng.choice
        bits = self.bits
        steps = 0
        try:
            while True:
                moves = step(bits)
                if moves is None:
                    break
                joint = tuple(map(choice, moves))
                function = functions.get(joint) or compiled.next_function(joint)
                bits = function(bits)
                steps += 1
        except IndexError:  # a role without legal moves: the interpreter explains
            CompiledState(game, bits).all_legal_moves()
            raise
        return CompiledState(game, bits).goals(), steps

    def _broke_explained(self, playouts: Callable[..., Answer], *args: Any) -> Answer:
        """`playouts(*args)`, where the rules breaking is explained by the interpreter."""
        try:
            return playouts(*args)
        except PlayoutBroke as broke:
            self._explain(broke)

    def _explain(self, broke: PlayoutBroke) -> NoReturn:
        """The interpreter's error where a native playout found the rules broken, as on
        the Python path (or a `GameError` saying so)."""
        state = CompiledState(self._game, broke.bits)
        if state.is_terminal():
            state.goals()
        else:
            state.all_legal_moves()
        raise GameError("a native playout reached a state where the rules break") from None

    def is_terminal(self) -> bool:
        """Native code answers this alone: of the states a search adds, most are
        never expanded, and their legal moves are not needed (`_legal_ids`)."""
        if self._terminal is None:
            terminal = self._game._functions.get("terminal")
            if terminal is None:
                self._step()
            else:
                self._terminal = terminal(self.bits)
        return bool(self._terminal)

    def goals(self) -> Goals:
        function = self._game._functions.get("goals")
        if function is None:  # the generated Python leaves them to the interpreter
            return self._game.interpreted(self.bits).goals()
        found = function(self.bits)
        values = self._game.compiled.goal_values
        goals = []
        for role, entries in enumerate(found):
            value = values[role][entries[0]] if len(entries) == 1 else None
            if not entries and self._game.missing_goal is not None and self.is_terminal():
                value = self._game.missing_goal
            if value is None:
                return self._game.interpreted(self.bits).goals()  # raises its error
            goals.append(value)
        return tuple(goals)

    def facts(self) -> tuple[str, ...]:
        if self._facts is None:
            texts = self._game.compiled.base_texts
            self._facts = tuple(texts[i] for i in bit_indexes(self.bits))
        return self._facts

    def key(self) -> str:
        return " ".join(self.facts())


def _native_random(
    native: NativeCode, state: CompiledState, rng: random.Random, count: int, policy: Random
) -> list[PlayoutResult]:
    return native.random_playouts(state.bits, rng, count)


def _native_greedy(
    native: NativeCode,
    state: CompiledState,
    rng: random.Random,
    count: int,
    policy: Greedy | Decisive,
) -> list[PlayoutResult]:
    finishers = policy.finishers
    finish = None if finishers is None else state.game.finish_inputs(finishers)
    safe = type(policy) is Decisive
    guide = policy.guide if isinstance(policy, Decisive) else None
    return native.playouts(state.bits, rng, count, policy.plies, safe, finish, guide)


def _native_mast(
    native: NativeCode, state: CompiledState, rng: random.Random, count: int, policy: Mast
) -> list[PlayoutResult]:
    averages = policy.averages
    state.game.number_moves(averages)  # numbered by input index from the first call on
    return native.mast_playouts(state.bits, rng, count, averages, policy.epsilon, policy.plies)


def _native_amaf(
    native: NativeCode, state: CompiledState, rng: random.Random, count: int, policy: Amaf
) -> list[PlayoutResult]:
    """`policy.slots` must be the game's `move_slots`."""
    return native.amaf_playouts(state.bits, rng, count, policy.tables, policy.tree)


def _native_part(
    native: NativeCode, state: CompiledState, rng: random.Random, count: int, policy: Part
) -> list[PlayoutResult]:
    inputs = state.game.part_inputs(policy.part)
    return native.part_playouts(state.bits, rng, count, inputs, policy.decisive)


def _native_finishing_moves(
    native: NativeCode,
    state: CompiledState,
    rng: random.Random,
    count: int,
    policy: FinishingMoves,
) -> Finishers:
    return state.game.finishers_of(native.finishing_moves(state.bits, rng, count))


NATIVE_PLAYOUTS: dict[type, Callable[..., Any]] = {
    Random: _native_random,
    Greedy: _native_greedy,
    Decisive: _native_greedy,
    Mast: _native_mast,
    Amaf: _native_amaf,
    Part: _native_part,
    FinishingMoves: _native_finishing_moves,
}
"""The native code's version of each policy of `ggp.games.playouts`, by its type."""
