"""Clauses compiled into joins: an order for the body, then one step per literal.

A join works set-at-a-time on **bindings**: tuples holding the clause's
constants first (so that every value a step needs is a position in the
binding) and then each variable's value, in the order the join binds them.
A step maps the list of bindings to a new list:

- a positive sentence looks each binding's key up in an index
  (`ggp.gdl.interpreter.facts.IndexSpec`) and extends the binding with each projection found;
- ``(not sentence)`` keeps the bindings whose key is not in the index;
- ``(distinct a b)`` keeps the bindings where the two values differ.

Before a step that extends the bindings, the variables that no later literal
and not the head read are dropped and the bindings made unique (`project`).
The head is then built from each remaining binding.  The body order is chosen
greedily when the clause is first evaluated: filters as soon as their
variables are bound, otherwise the sentence expected to yield the fewest
bindings, estimated from the facts at hand (with one relation read from the
*delta* first, for semi-naive recursion).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter

from ggp.gdl.interpreter.facts import (
    Args,
    IndexSpec,
    Layer,
    Skeleton,
    build_index,
    flatten_all,
    getter,
    is_flat,
    tuple_getter,
)
from ggp.gdl.syntax.strata import Clause
from ggp.gdl.syntax.terms import (
    Term,
    arguments,
    is_ground,
    is_variable,
    relation,
    to_kif,
    variables,
)

Binding = tuple
Step = Callable[[list[Binding], Sequence[Layer], dict[str, list[Args]] | None], list[Binding]]
Estimator = Callable[[str, Skeleton, tuple[int, ...]], float]
"""Expected facts per key: relation, skeleton, key leaf positions -> count."""


def _kind(literal: Term) -> str:
    if type(literal) is tuple and literal[0] in ("not", "distinct"):
        return literal[0]
    return "positive"


def shape(args: tuple[Term, ...]) -> tuple[Skeleton, list[Term]]:
    """The skeleton and leaves of a pattern: ground subterms are leaves too."""
    skeleton: list = []
    leaves: list[Term] = []
    for arg in args:
        if type(arg) is tuple and not is_ground(arg):
            inner, inner_leaves = shape(arg[1:])
            skeleton.append((arg[0], inner))
            leaves.extend(inner_leaves)
        else:
            skeleton.append(None)
            leaves.append(arg)
    return tuple(skeleton), leaves


def _constants(term: Term, out: dict[Term, int]) -> None:
    if is_variable(term):
        return
    if type(term) is str or is_ground(term):
        out.setdefault(term, len(out))
        return
    for arg in term[1:]:
        _constants(arg, out)


def _literal_terms(literal: Term) -> tuple[Term, ...]:
    kind = _kind(literal)
    if kind == "not":
        return arguments(literal[1])
    if kind == "distinct":
        return literal[1:]
    return arguments(literal)


@dataclass
class ClausePlan:
    """A clause compiled for one body order; `run` gives the head facts."""

    clause: Clause
    relation: str
    initial: Binding
    steps: list[Step]
    build: Callable[[Binding], Args]
    grows: bool = False
    """Whether the head nests variables in compound terms (see `run_counted`)."""

    def run(self, layers: Sequence[Layer], delta: dict[str, list[Args]] | None = None) -> set[Args]:
        bindings = [self.initial]
        for step in self.steps:
            bindings = step(bindings, layers, delta)
            if not bindings:
                return set()
        return set(map(self.build, bindings))

    def run_counted(
        self,
        layers: Sequence[Layer],
        delta: dict[str, list[Args]] | None,
        work: list[int],
        limit: int,
    ) -> set[Args]:
        """`run`, adding the bindings made to ``work[0]``; `WorkLimit` past `limit`.

        A step that could make more bindings than the limit leaves is refused
        before it makes any (a step that extends bindings counts them with its
        ``fanout`` attribute; any other keeps at most its input), so the limit
        is never passed and no join holds more than it in memory; and a head that nests terms
        (`grows`) is checked against `MAX_TERM_SIZE`, so a relation whose terms
        grow without bound stops.
        """
        bindings = [self.initial]
        for step in self.steps:
            fanout = getattr(step, "fanout", None)  # else it keeps at most its input
            expected = len(bindings) if fanout is None else fanout(bindings, layers, delta)
            if work[0] + expected > limit:
                raise WorkLimit
            bindings = step(bindings, layers, delta)
            work[0] += len(bindings)
            if work[0] > limit:
                raise WorkLimit
            if not bindings:
                return set()
        if not self.grows:
            return set(map(self.build, bindings))
        heads = list(map(self.build, bindings))
        for head in heads:
            if term_size(head, MAX_TERM_SIZE) > MAX_TERM_SIZE:
                raise TermTooLarge(self.relation, head)
        return set(heads)


class WorkLimit(Exception):
    """A join made more bindings than it was allowed to."""


MAX_TERM_SIZE = 200
"""Symbols a fact derived under a work limit may hold: a relation whose terms grow
at each derivation (``(succ ?x (s ?x))`` without end) stops there, before its terms
are too deep for the recursive functions on terms."""


class TermTooLarge(WorkLimit):
    """A derived fact holds more than `MAX_TERM_SIZE` symbols."""

    def __init__(self, relation: str, fact: Args) -> None:
        text = to_kif((relation, *fact))
        shown = text if len(text) <= 60 else text[:57] + "..."
        super().__init__(f"a fact of {relation} holds more than {MAX_TERM_SIZE} symbols: {shown}")
        self.relation = relation
        self.fact = fact


def term_size(term: Term, cap: int) -> int:
    """The symbols in `term` (subterms counted each time they occur), or a number over `cap`."""
    size = 0
    stack = [term]
    while stack:
        item = stack.pop()
        if type(item) is tuple:
            stack.extend(item)
            continue
        size += 1
        if size > cap:
            break
    return size


def _nests(term: Term) -> bool:
    """Whether a head puts a variable inside a compound term (so may build bigger terms)."""
    return any(type(arg) is tuple and not is_ground(arg) for arg in arguments(term))


class _Compiler:
    """Compiles one clause for a chosen literal order."""

    def __init__(self, clause: Clause, phase_of: Callable[[str], int]) -> None:
        self.clause = clause
        self.phase_of = phase_of
        self.slots: dict[Term, int] = {}
        for term in (
            *arguments(clause.head),
            *(t for lit in clause.body for t in _literal_terms(lit)),
        ):
            _constants(term, self.slots)
        self.initial = tuple(self.slots)

    def bound(self, term: Term) -> bool:
        return all(var in self.slots for var in variables(term))

    def pattern(self, sentence: Term) -> tuple[IndexSpec, tuple[int, ...], list[str]]:
        """The index spec of a sentence now, its key slots, and the variables it binds."""
        skeleton, leaves = shape(arguments(sentence))
        key, key_slots, project, equal = [], [], [], []
        first: dict[str, int] = {}
        new: list[str] = []
        for position, leaf in enumerate(leaves):
            if leaf in self.slots:
                key.append(position)
                key_slots.append(self.slots[leaf])
            elif leaf in first:
                equal.append((first[leaf], position))
            else:
                first[leaf] = position
                project.append(position)
                new.append(leaf)
        spec = IndexSpec(relation(sentence), skeleton, tuple(key), tuple(equal), tuple(project))
        return spec, tuple(key_slots), new

    def step(self, literal: Term, from_delta: bool = False) -> Step:
        kind = _kind(literal)
        if kind == "distinct":
            return self._distinct(literal[1], literal[2])
        sentence = literal[1] if kind == "not" else literal
        spec, key_slots, new = self.pattern(sentence)
        for var in new:
            self.slots[var] = len(self.slots)
        if kind == "not":
            return _negative_step(self.phase_of(spec.relation), spec, key_slots)
        if from_delta:
            return _delta_step(spec, key_slots)
        return _positive_step(self.phase_of(spec.relation), spec, key_slots)

    def project(self, remaining: list[Term]) -> Step | None:
        """A step dropping the variables that neither `remaining` nor the head read, if any.

        Bindings that differ only in such variables give the same heads, so
        they are made one before the next join multiplies them: in amazons,
        ``(does ?p (play ?x1 ?y1 ?x2 ?y2 ?x3 ?y3)) (distinctCell ?x ?y ?x1 ?y1)``
        joins the 100 cells a move may start from, not each of 65,000 moves.
        """
        needed = set(variables(self.clause.head))
        for literal in remaining:
            needed.update(variables(literal))
        dead = [t for t in self.slots if is_variable(t) and t not in needed]
        if not dead:
            return None
        kept = [t for t in self.slots if t not in dead]
        pick = tuple_getter(tuple(self.slots[t] for t in kept))
        self.slots = {t: i for i, t in enumerate(kept)}

        def project(bs, layers, delta):
            return list(dict.fromkeys(map(pick, bs)))

        return project

    def _distinct(self, a: Term, b: Term) -> Step:
        if a in self.slots and b in self.slots:
            first, second = self.slots[a], self.slots[b]
            return lambda bs, layers, delta: [x for x in bs if x[first] != x[second]]
        make_a, make_b = self.builder(a), self.builder(b)
        return lambda bs, layers, delta: [x for x in bs if make_a(x) != make_b(x)]

    def builder(self, term: Term) -> Callable[[Binding], Term]:
        """A function building `term` from a binding (all its variables bound)."""
        if term in self.slots:
            return itemgetter(self.slots[term])
        prefix = (term[0],)
        args = self.args_builder(term[1:])
        return lambda binding: prefix + args(binding)

    def args_builder(self, args: tuple[Term, ...]) -> Callable[[Binding], tuple]:
        """A function building the tuple of `args` from a binding."""
        if all(arg in self.slots for arg in args):
            return tuple_getter(tuple(self.slots[arg] for arg in args))
        parts = [self.builder(arg) for arg in args]
        if len(parts) == 1:
            (only,) = parts
            return lambda binding: (only(binding),)
        return lambda binding: tuple([part(binding) for part in parts])

    def head_builder(self) -> Callable[[Binding], Args]:
        return self.args_builder(arguments(self.clause.head))


def _positive_step(phase: int, spec: IndexSpec, key_slots: tuple[int, ...]) -> Step:
    if key_slots:
        key = getter(key_slots)
        if spec.project:

            def join(bs, layers, delta):
                get = layers[phase].index(spec).get
                return [b + p for b in bs for p in get(key(b), ())]

            def join_fanout(bs, layers, delta):
                get = layers[phase].index(spec).get
                return sum(map(len, map(get, map(key, bs), repeat((), len(bs)))))

            join.fanout = join_fanout  # type: ignore[attr-defined]
            return join

        def check(bs, layers, delta):
            index = layers[phase].index(spec)
            return [b for b in bs if key(b) in index]

        return check
    if spec.project:

        def product(bs, layers, delta):
            rows = layers[phase].index(spec)
            return [b + p for b in bs for p in rows]

        def product_fanout(bs, layers, delta):
            return len(bs) * len(layers[phase].index(spec))

        product.fanout = product_fanout  # type: ignore[attr-defined]
        return product
    return lambda bs, layers, delta: bs if layers[phase].index(spec) else []


def _negative_step(phase: int, spec: IndexSpec, key_slots: tuple[int, ...]) -> Step:
    if key_slots:
        key = getter(key_slots)

        def check(bs, layers, delta):
            index = layers[phase].index(spec)
            return [b for b in bs if key(b) not in index]

        return check
    return lambda bs, layers, delta: [] if layers[phase].index(spec) else bs


def _delta_step(spec: IndexSpec, key_slots: tuple[int, ...]) -> Step:
    """The first step of a semi-naive variant: read the new facts only."""
    key = getter(key_slots) if key_slots else None

    def scan_fanout(bs, layers, delta):  # at most every new fact for each binding
        return len(bs) * len(delta.get(spec.relation, ()))

    def scan(bs, layers, delta):
        facts = delta.get(spec.relation, ())
        rows = facts if is_flat(spec.skeleton) else flatten_all(facts, spec.skeleton)
        index = build_index(spec, rows)
        if key is None:
            if spec.project:
                return [b + p for b in bs for p in index]
            return bs if index else []
        if spec.project:
            return [b + p for b in bs for p in index.get(key(b), ())]
        return [b for b in bs if key(b) in index]

    scan.fanout = scan_fanout  # type: ignore[attr-defined]
    return scan


def compile_clause(
    clause: Clause,
    phase_of: Callable[[str], int],
    estimate: Estimator,
    delta_literal: int | None = None,
) -> ClausePlan:
    """Compile `clause`, ordering its body greedily with `estimate`.

    With `delta_literal` (a position in the body), that positive literal is
    read from the delta and placed first.
    """
    compiler = _Compiler(clause, phase_of)
    remaining = list(enumerate(clause.body))
    steps: list[Step] = []
    if delta_literal is not None:
        steps.append(compiler.step(clause.body[delta_literal], from_delta=True))
        remaining = [(i, lit) for i, lit in remaining if i != delta_literal]
    while remaining:
        ready = [
            (i, lit) for i, lit in remaining if _kind(lit) != "positive" and compiler.bound(lit)
        ]
        if ready:
            chosen = ready[0]
        else:
            positives = [(i, lit) for i, lit in remaining if _kind(lit) == "positive"]
            if not positives:
                raise ValueError(f"unsafe clause, cannot be ordered: {clause.rule.located()}")
            chosen = min(positives, key=lambda item: _cost(compiler, item, estimate))
            if steps and not compiler.bound(chosen[1]):  # a step that extends the bindings
                projection = compiler.project([lit for _, lit in remaining])
                if projection is not None:
                    steps.append(projection)
        steps.append(compiler.step(chosen[1]))
        remaining.remove(chosen)
    return ClausePlan(
        clause,
        relation(clause.head),
        compiler.initial,
        steps,
        compiler.head_builder(),
        _nests(clause.head),
    )


def _cost(compiler: _Compiler, item: tuple[int, Term], estimate: Estimator) -> tuple:
    position, literal = item
    spec, _, new = compiler.pattern(literal)
    expected = 0.0 if not new else estimate(spec.relation, spec.skeleton, spec.key)
    return (expected, -len(spec.key), position)


def estimator(
    layers: Sequence[Layer],
    phase_of: Callable[[str], int],
    incomplete: frozenset[str],
) -> Estimator:
    """Estimates from the facts in `layers` (guesses for `incomplete` relations).

    Expected facts per key = facts / product of the distinct values at the
    key positions; a relation of a later phase counts at least 1, since it
    may be empty now but not in other states.
    """
    cache: dict[tuple[str, Skeleton], tuple[int, list[int]]] = {}

    def estimate(name: str, skeleton: Skeleton, key: tuple[int, ...]) -> float:
        if name in incomplete:
            return 1000.0 / 30.0 ** len(key)
        phase = phase_of(name)
        stats = cache.get((name, skeleton))
        if stats is None:
            stats = cache[(name, skeleton)] = layers[phase].statistics(name, skeleton)
        count, distinct = stats
        if count == 0:
            return 0.0 if phase == 0 else 1.0
        expected = count / math.prod(distinct[i] for i in key)
        return expected if phase == 0 else max(expected, 1.0)

    return estimate
