"""Grounding: every relevant ground instance of a game's rules, computed once.

The compiled reasoner (`gdl.compiled.compile`) works on ground (variable-free) rules.
Which ground instances are relevant is found by evaluating a *relaxed*
program bottom-up with the ordinary reasoner:

- ``(true X)`` becomes a relation holding every ``X`` of an ``init`` or a
  ``next`` fact, and ``(does R M)`` every ``(R, M)`` of a ``legal`` fact, so
  the relaxed model holds every state fact and move that can ever occur;
- negative literals of relations that depend on the state or the moves are
  dropped (they can only remove facts), so the relaxed model of such a
  relation is a superset of its facts in any reachable state;
- static relations keep their negations: they are computed exactly.

Then every clause is instantiated over the relaxed model: each binding of
its positive literals (static ones exactly, the others over-approximated)
that passes its ``distinct`` and static ``not`` literals gives a ground rule
whose body keeps only the literals that depend on the state or the moves.
A negative literal on an atom outside the relaxed model is always true and
is dropped too.

Both steps are bounded (`Budget`): join bindings, ground rules and time.
Past a bound, `GroundingError` says which and the game stays on the
interpreter.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from gdl.interpreter.facts import Layer
from gdl.interpreter.joins import WorkLimit, compile_clause, estimator
from gdl.interpreter.reasoner import Reasoner, WorkLimitExceeded
from gdl.syntax.strata import STATIC, Clause, Strata
from gdl.syntax.terms import Term, arguments, relation, to_kif, variables

RELAXED_TRUE = "relaxed true"
RELAXED_DOES = "relaxed does"
"""Names of the relaxed inputs: no GDL symbol contains a space, so no clash."""

_BINDING = "binding"


@dataclass(frozen=True)
class Budget:
    """How much grounding and compiling may cost before the game stays interpreted."""

    seconds: float = 5.0
    """Wall-clock time for grounding and compiling together."""
    bindings: int = 2_000_000
    """Join bindings made by the relaxed fixpoint (per stratum) and by instantiation."""
    ground_rules: int = 300_000
    """Ground rules."""


class GroundingError(Exception):
    """The game cannot be grounded (or compiled) within its budget; says why."""


class Deadline:
    """The time left for one grounding and compilation."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def check(self, what: str) -> None:
        """Raise `GroundingError` if the budget's time has run out during `what`."""
        if self.elapsed() > self.budget.seconds:
            raise GroundingError(
                f"time limit of {self.budget.seconds:g} s exceeded while {what} "
                f"({self.elapsed():.1f} s)"
            )


GroundRule = tuple[Term, tuple[Term, ...], tuple[Term, ...]]
"""A ground rule: head sentence, positive body sentences, negated body sentences."""


@dataclass
class GroundProgram:
    """The relevant ground rules of a game, and the domains of its inputs."""

    base: list[Term]
    """Every term that may be ``true`` in a reachable state, sorted by text."""
    inputs: list[tuple[Term, Term]]
    """Every (role, move) that may be a ``does`` fact, sorted by text."""
    rules: list[GroundRule]
    """Ground rules of the relations that depend on the state or the moves."""
    static: dict[str, set[tuple]] = field(default_factory=dict)
    """The facts of the static relations (argument tuples), exactly."""
    seconds: float = 0.0


def project_local_variables(clauses: list[Clause], phase: dict[str, int]) -> list[Clause]:
    """The clauses with each group of literals joined only by local variables projected.

    In ``(<= (next (connected ?k ?m ?n)) (transfer ?e) (true (connected ?e ?m
    ?n)) (true (step ?k)))`` the variable ``?e`` is not in the head, so the
    first two literals only matter through ``?m ?n``: they become a new
    relation ``(p ?m ?n)`` with its own clause, and the ground rules number
    cells times groups plus cells times steps instead of their product.  A
    group (literals linked by variables not in the head) is projected when it
    has a positive literal that depends on the state or the moves, the head
    variables it shares all appear in its positive literals, and the other
    literals have variables it does not share (else nothing is gained).
    Projected relations are named ``projection N``: no GDL symbol contains a
    space.
    """
    projected: list[Clause] = []
    for clause in clauses:
        if phase.get(relation(clause.head), STATIC) == STATIC:
            projected.append(clause)
            continue
        head = set(variables(clause.head))
        body = list(clause.body)
        parent = list(range(len(body)))
        first: dict[str, int] = {}
        for i, literal in enumerate(body):
            for var in variables(literal):
                if var not in head:
                    if var in first:
                        parent[_find(parent, i)] = _find(parent, first[var])
                    else:
                        first[var] = i
        groups: dict[int, list[int]] = {}
        for i, literal in enumerate(body):
            if any(var not in head for var in variables(literal)):
                groups.setdefault(_find(parent, i), []).append(i)
        kept = set(range(len(body)))
        added: list[Term] = []
        for members in groups.values():
            part = [body[i] for i in members]
            interface = [v for v in dict.fromkeys(variables(tuple(part))) if v in head]
            others = {v for i in range(len(body)) if i not in members for v in variables(body[i])}
            if not others - set(interface) or not _projectable(part, head, phase):
                continue  # no other variable to multiply the group by: nothing to gain
            name = f"projection {len(projected)}"
            sentence = (name, *interface) if interface else name
            projected.append(Clause(sentence, tuple(part), clause.rule))
            kept -= set(members)
            added.append(sentence)
        projected.append(
            Clause(clause.head, tuple(body[i] for i in sorted(kept)) + tuple(added), clause.rule)
        )
    return projected


def _find(parent: list[int], i: int) -> int:
    """Union-find: the representative of `i`."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _positive(literal: Term) -> bool:
    return not (type(literal) is tuple and literal[0] in ("not", "distinct"))


def _projectable(part: list[Term], head: set[str], phase: dict[str, int]) -> bool:
    """Whether a group of literals may become a relation of its own (see the caller)."""
    if not any(_positive(lit) and phase.get(relation(lit), STATIC) != STATIC for lit in part):
        return False
    bound = {v for lit in part if _positive(lit) for v in variables(lit)}
    return all(v in bound for lit in part for v in variables(lit) if v in head)


def _relaxed_literal(literal: Term, phase: dict[str, int]) -> Term | None:
    """A body literal in the relaxed program, or None if it is dropped."""
    if type(literal) is tuple and literal[0] == "distinct":
        return literal
    if type(literal) is tuple and literal[0] == "not":
        if phase.get(relation(literal[1]), STATIC) != STATIC:
            return None
        return literal
    name = relation(literal)
    if name == "true":
        return (RELAXED_TRUE, *arguments(literal))
    if name == "does":
        return (RELAXED_DOES, *arguments(literal))
    return literal


def _relaxed_program(strata: Strata) -> list[Clause]:
    phase = strata.phase
    relaxed = []
    for clause in strata.clauses:
        body = tuple(
            lit for lit in (_relaxed_literal(b, phase) for b in clause.body) if lit is not None
        )
        relaxed.append(Clause(clause.head, body, clause.rule))
    rule = strata.clauses[0].rule if strata.clauses else None
    for source in ("init", "next"):
        relaxed.append(Clause((RELAXED_TRUE, "?x"), ((source, "?x"),), rule))
    relaxed.append(Clause((RELAXED_DOES, "?r", "?m"), (("legal", "?r", "?m"),), rule))
    return relaxed


def relaxed_model(strata: Strata, budget: Budget, deadline: Deadline) -> Reasoner:
    """A reasoner whose static layer holds the relaxed model of every relation."""
    program = Strata.of(strata.rules, _relaxed_program(strata))
    limit = budget.bindings
    reasoner = Reasoner(program, (limit, limit, limit))
    try:
        for stratum in program.order:
            reasoner.facts(next(iter(stratum.relations)))
            deadline.check("computing the relaxed model")
    except WorkLimitExceeded as exceeded:
        names = ", ".join(sorted(n for n in exceeded.stratum.relations if " " not in n))
        raise GroundingError(
            f"the relaxed model of {names} needs more than {limit:,} join bindings"
        ) from None
    return reasoner


def ground(
    strata: Strata, budget: Budget | None = None, deadline: Deadline | None = None
) -> GroundProgram:
    """The ground program of validated `strata` (`GroundingError` past the budget)."""
    budget = budget or Budget()
    deadline = deadline or Deadline(budget)
    strata = Strata.of(strata.rules, project_local_variables(strata.clauses, strata.phase))
    reasoner = relaxed_model(strata, budget, deadline)
    layer = reasoner.static
    layers = (layer,)
    phase = strata.phase

    def phase_of(name: str) -> int:
        return 0

    estimate = estimator(layers, phase_of, frozenset())
    work = [0]
    rules: list[GroundRule] = []
    for clause in strata.clauses:
        if phase.get(relation(clause.head), STATIC) == STATIC:
            continue
        positive, negative = _state_literals(clause, phase)
        body = tuple(
            lit for lit in (_relaxed_literal(b, phase) for b in clause.body) if lit is not None
        )
        # The join builds the ground head and state literals of each instance directly.
        binder = Clause((_BINDING, clause.head, *positive, *negative), body, clause.rule)
        plan = compile_clause(binder, phase_of, estimate)
        try:
            instances = plan.run_counted(layers, None, work, budget.bindings)
        except WorkLimit:
            raise GroundingError(
                f"instantiating the rules needs more than {budget.bindings:,} join bindings "
                f"(at {clause.rule.located()})"
            ) from None
        if len(rules) + len(instances) > budget.ground_rules:
            raise GroundingError(
                f"more than {budget.ground_rules:,} ground rules "
                f"({len(instances):,} from {clause.rule.located()})"
            )
        split = 1 + len(positive)
        for row in instances:
            negated = tuple(atom for atom in row[split:] if _relaxed_holds(atom, layer))
            rules.append((row[0], row[1:split], negated))
        deadline.check("instantiating the rules")
    base = sorted((args[0] for args in layer.facts.get(RELAXED_TRUE, ())), key=to_kif)
    inputs = sorted(
        (tuple(args) for args in layer.facts.get(RELAXED_DOES, ())),
        key=lambda move: (to_kif(move[0]), to_kif(move[1])),
    )
    static = {name: layer.facts.get(name, set()) for name, p in phase.items() if p == STATIC}
    return GroundProgram(base, inputs, rules, static, deadline.elapsed())


def _relaxed_holds(sentence: Term, layer: Layer) -> bool:
    """Whether a ground sentence is in the relaxed model."""
    name = relation(sentence)
    if name == "true":
        name = RELAXED_TRUE
    elif name == "does":
        name = RELAXED_DOES
    return tuple(arguments(sentence)) in layer.facts.get(name, ())


def _state_literals(clause: Clause, phase: dict[str, int]) -> tuple[list[Term], list[Term]]:
    """The sentences of a clause's positive and negative literals that are not static.

    The others (static ones, ``distinct``) are decided by the join exactly.
    """
    positive: list[Term] = []
    negative: list[Term] = []
    for literal in clause.body:
        if type(literal) is tuple and literal[0] == "distinct":
            continue
        if type(literal) is tuple and literal[0] == "not":
            if phase.get(relation(literal[1]), STATIC) != STATIC:
                negative.append(literal[1])
        elif phase.get(relation(literal), STATIC) != STATIC:
            positive.append(literal)
    return positive, negative
