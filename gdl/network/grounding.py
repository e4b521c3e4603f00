"""Grounding: every relevant ground instance of a game's rules, computed once.

The compiled reasoner (`ggp.gdl.compiled.compile`) works on ground (variable-free) rules.
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

Before that, rules are rewritten so that they have fewer ground instances
for the same meaning: relations only asked with some arguments ground are
restricted to them (`ggp.gdl.network.demand`), groups of literals linked only by
variables outside the head become relations of their own
(`project_local_variables`), and rules of a move are written by the cells
the move touches (`ggp.gdl.network.factoring`, chosen once the relaxed model
tells which pays).  A rule that still has many instances has its variables
eliminated where measured to pay (`ggp.gdl.network.elimination`).

Only what ``legal``, ``next``, ``init``, ``goal``, ``terminal`` and ``sees``
(GDL-II) need is computed.  Both steps are bounded (`Budget`): units of work (mostly join
bindings, each counted before it is made), ground rules, and the size of a
term of the relaxed model (`ggp.gdl.interpreter.joins.MAX_TERM_SIZE`), which
stops relations whose terms grow without bound.  Past a bound,
`GroundingError` says which and the game stays on the interpreter.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ggp.gdl.interpreter.facts import Layer
from ggp.gdl.interpreter.joins import WorkLimit, compile_clause, estimator
from ggp.gdl.interpreter.reasoner import Reasoner, WorkLimitExceeded
from ggp.gdl.network.demand import restrict_to_demand
from ggp.gdl.network.elimination import (
    Bucket,
    buckets,
    eliminated,
    phase_of_clause,
    split_move,
)
from ggp.gdl.network.factoring import factor
from ggp.gdl.syntax.strata import STATIC, Clause, Strata
from ggp.gdl.syntax.terms import Term, arguments, relation, to_kif, variables

RELAXED_TRUE = "relaxed true"
RELAXED_DOES = "relaxed does"
"""Names of the relaxed inputs: no GDL symbol contains a space, so no clash."""

_BINDING = "binding"


@dataclass(frozen=True)
class Budget:
    """How much grounding and compiling may cost before the game stays interpreted.

    Counted in units of work, not time, so that the same game is compiled or
    not on a quiet and on a loaded machine.  A unit is about the cost of one
    join binding (`WORK_UNITS` says what the other steps are charged); the
    default is about 5 s of one core of a quiet machine.
    """

    work: int = 4_000_000
    """Units of work for grounding and compiling together."""
    ground_rules: int = 300_000
    """Ground rules."""


WORK_UNITS = {"ground rule literal": 1.0, "network literal": 2.0, "source byte": 0.4}
"""What a step costs, in units of about one join binding (measured on corpus games
with `benchmarks/gdl_compiled.py --calibrate`: 1.2 to 2.5 us of CPU per unit, the
more the busier the machine): turning a ground rule's literal into the network's,
folding one literal of the network and writing it into code, and compiling one
byte of generated source."""


class GroundingError(Exception):
    """The game cannot be grounded (or compiled) within its budget; says why."""


class Work:
    """The work spent on grounding and compiling one game, against its `Budget`.

    Every step counts its work before or while doing it, in small enough
    pieces that the budget is never exceeded: a step known to cost more than
    what is left is refused before it starts (`afford`).
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.counter = [0]
        """Units spent so far (a list, so that joins can count into it)."""
        self.start = time.process_time()

    @property
    def spent(self) -> int:
        return self.counter[0]

    def seconds(self) -> float:
        """CPU time since the start (shown, never used to decide)."""
        return time.process_time() - self.start

    def exceeded(self, what: str) -> GroundingError:
        return GroundingError(
            f"work budget of {self.budget.work:,} units exceeded while {what} "
            f"({self.spent:,} spent)"
        )

    def afford(self, units: int, what: str) -> None:
        """Spend `units` on `what`, or raise `GroundingError` first if they are not left."""
        if self.counter[0] + units > self.budget.work:
            raise self.exceeded(what)
        self.counter[0] += units


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
    goals_left: str = ""
    """Why the goals are not grounded (then there are no goal rules), if they are not."""


def project_local_variables(clause: Clause, phase: dict[str, int], prefix: str) -> list[Clause]:
    """The clause with each group of literals joined only by local variables projected.

    In ``(<= (next (connected ?k ?m ?n)) (transfer ?e) (true (connected ?e ?m
    ?n)) (true (step ?k)))`` the variable ``?e`` is not in the head, so the
    first two literals only matter through ``?m ?n``: they become a new
    relation ``(p ?m ?n)`` with its own clause, and the ground rules number
    cells times groups plus cells times steps instead of their product.  A
    group (literals linked by variables not in the head) is projected when it
    has a positive literal that depends on the state or the moves, the head
    variables it shares all appear in its positive literals, and the other
    literals have variables it does not share (else nothing is gained).
    Projected relations are named `prefix` and a number (`prefix` contains a
    space: no GDL symbol does).
    """
    if phase.get(relation(clause.head), STATIC) == STATIC:
        return [clause]
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
    projected: list[Clause] = []
    kept = set(range(len(body)))
    added: list[Term] = []
    for members in groups.values():
        part = [body[i] for i in members]
        interface = [v for v in dict.fromkeys(variables(tuple(part))) if v in head]
        others = {v for i in range(len(body)) if i not in members for v in variables(body[i])}
        if not others - set(interface) or not _projectable(part, head, phase):
            continue  # no other variable to multiply the group by: nothing to gain
        name = f"{prefix} {len(projected)}"
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


PLAY = ("init", "legal", "next", "terminal", "sees")
"""The relations that must be grounded for a game to be compiled, with every relation
they depend on (through negation too: instantiation asks which negated atoms are in
the relaxed model).  ``sees`` (GDL-II's percepts) is grounded as ``next`` is: it
depends on the state and the moves, and is asked at every joint move of a search."""
GOAL_SHARE = 4
"""Goals, grounded last, may use at most 1/GOAL_SHARE of the budget: past it (games
that count or sum for their goals) the interpreter computes the goals, once a playout."""


def needed_relations(strata: Strata, names: Iterable[str]) -> set[str]:
    """The relations `names` depend on, directly or not (themselves included)."""
    return set().union(*(strata.reachable(name) for name in names))


class _Relaxed:
    """The relaxed model, computed a group of relations at a time, within the budget."""

    def __init__(self, strata: Strata, work: Work) -> None:
        self.work = work
        limit = work.budget.work
        self.reasoner = Reasoner(Strata.of(strata.rules, _relaxed_program(strata)))
        self.reasoner.limits = (limit, limit, limit)
        self.reasoner.counter = work.counter

    def compute(self, names: Iterable[str], limit: int) -> None:
        """The relaxed model of `names`; `GroundingError` past `limit` units in all."""
        self.reasoner.limits = (limit, limit, limit)
        try:
            for name in names:
                if name not in ("true", "does"):  # relaxed as RELAXED_TRUE, RELAXED_DOES
                    self.reasoner.facts(name)
        except WorkLimitExceeded as exceeded:
            names = ", ".join(sorted(n for n in exceeded.stratum.relations if " " not in n))
            large = exceeded.term_too_large
            if large is not None:
                raise GroundingError(
                    f"the relaxed model of {names} grows without bound: {large}"
                ) from None
            raise self.work.exceeded(f"computing the relaxed model of {names}") from None


def ground(strata: Strata, budget: Budget | None = None, work: Work | None = None) -> GroundProgram:
    """The ground program of validated `strata` (`GroundingError` past the budget).

    What ``goal`` alone needs is grounded last, within `GOAL_SHARE` of the
    budget; past that the program has no goal rules (`GroundProgram.goals_left`
    says why) and the interpreter computes the goals.
    """
    work = work or Work(budget or Budget())
    budget = work.budget
    strata = Strata.of(strata.rules, restrict_to_demand(strata.clauses))
    phase = strata.phase
    projected = [
        project_local_variables(clause, phase, f"projection {i}")
        for i, clause in enumerate(strata.clauses)
    ]
    factorings = {
        i: found
        for i, clause in enumerate(strata.clauses)
        if (found := factor(clause, phase, f"factor {i}")) is not None
    }
    # The relaxed model is the original rules' (factored ones computed as they are
    # written), with what the factorings need besides.
    extra = [clause for found in factorings.values() for clause in found.relaxed]
    relaxed_strata = Strata.of(strata.rules, [c for part in projected for c in part] + extra)
    relaxed = _Relaxed(relaxed_strata, work)
    needed = needed_relations(relaxed_strata, PLAY)
    needed |= {relation(clause.head) for clause in extra}
    relaxed.compute((RELAXED_TRUE, RELAXED_DOES, *sorted(needed)), budget.work)
    layer = relaxed.reasoner.static

    def size(name: str) -> int:
        return len(layer.facts.get(name, ()))

    chosen: list[Clause] = []
    for i, part in enumerate(projected):
        found = factorings.get(i)
        chosen += found.clauses if found is not None and found.worthwhile(size) else part
    grounded = Strata.of(strata.rules, chosen)
    play = needed_relations(grounded, PLAY)
    goal = needed_relations(grounded, ("goal",)) - play
    relaxed.compute(sorted(play), budget.work)
    rules = _instances(grounded, layer, play, work, budget.work, [], "eliminated")
    goals_left = ""
    try:
        limit = min(budget.work, work.spent + budget.work // GOAL_SHARE)
        relaxed.compute(sorted(goal), limit)
        rules = _instances(grounded, layer, goal, work, limit, rules, "eliminated for goals")
    except GroundingError as error:
        goals_left = str(error)
        rules = [rule for rule in rules if relation(rule[0]) not in goal]
    base = sorted((args[0] for args in layer.facts.get(RELAXED_TRUE, ())), key=to_kif)
    inputs = sorted(
        (tuple(args) for args in layer.facts.get(RELAXED_DOES, ())),
        key=lambda move: (to_kif(move[0]), to_kif(move[1])),
    )
    static = {
        name: layer.facts.get(name, set())
        for name, p in phase.items()
        if p == STATIC and not (goals_left and name in goal)
    }
    return GroundProgram(base, inputs, rules, static, work.seconds(), goals_left)


def _instances(
    strata: Strata,
    layer: Layer,
    names: set[str],
    work: Work,
    limit: int,
    rules: list[GroundRule],
    prefix: str,
) -> list[GroundRule]:
    """`rules` and the ground rules of the state relations in `names`, within `limit` units.

    Relations made by eliminating variables are named `prefix` and numbers.
    """
    instantiator = _Instantiator(strata, layer, work, limit, rules, prefix)
    for clause in strata.clauses:
        name = relation(clause.head)
        if strata.phase.get(name, STATIC) != STATIC and name in names:
            instantiator.ground(clause)
    return rules


ELIMINATE_ABOVE = 5_000
"""A rule with more ground rules than this has its variables eliminated where it pays
(`ggp.gdl.network.elimination`).  Hex's path (6,561 ground rules, read at every step)
is so 81 bodies, a step 35 times as fast."""
LARGE_RULE = 20_000
"""Above this many ground rules a rule rewritten is kept if it has fewer: the budget's
sake.  Below, only with fewer than 1/`MIN_GAIN` as many: the new relations are one more
level of nodes to evaluate (skirmish's moves, 7,168 ground rules to 3,840, played 8%
fewer playouts a second)."""
MIN_GAIN = 2.0
"""How many times fewer ground rules a rewrite of a rule below `LARGE_RULE` must have."""
ATTEMPT_WORK = 100_000
"""Units a rule, or a bucket measured for elimination, may spend before it counts as large."""
MIN_RATIO = 2.0
"""A bucket is eliminated when it has at least this many ground rules per fact of its relation."""
MAX_ROUNDS = 3
"""Rounds of elimination on one rule (each may find buckets among the last one's relations)."""


class _Instantiator:
    """Ground rules of clauses over the relaxed model, eliminating variables of large ones."""

    def __init__(
        self,
        strata: Strata,
        layer: Layer,
        work: Work,
        limit: int,
        rules: list[GroundRule],
        prefix: str,
    ) -> None:
        self.phase = dict(strata.phase)
        self.layer = layer
        self.work = work
        self.limit = limit
        self.rules = rules
        self.estimate = estimator((layer,), _phase_zero, frozenset())
        self.prefix = prefix
        self.eliminations = 0

    def ground(self, clause: Clause, depth: int = 0) -> None:
        """Add the ground rules of `clause`, or of it rewritten if it is large and that pays:
        its buckets eliminated, or else its move split (`ggp.gdl.network.elimination`)."""
        alternatives: list[Callable[[], bool]] = []
        if depth < MAX_ROUNDS:
            self.eliminations += 1
            prefix = f"{self.prefix} {self.eliminations}"
            candidates = buckets(clause, self.phase, prefix)
            split = split_move(clause, f"{prefix} move")
            if candidates:
                alternatives.append(lambda: self.eliminate(clause, candidates, depth))
            if split is not None:
                alternatives.append(lambda: self.split(*split, depth))
        if alternatives:
            attempt = self.instances(clause, ATTEMPT_WORK)
            if attempt is not None and len(attempt[0]) <= ELIMINATE_ABOVE:
                self.add(clause, *attempt)
                return
            bound = None if attempt is None else len(attempt[0])  # a rewrite has fewer
            if bound is not None and bound <= LARGE_RULE:
                bound /= MIN_GAIN
            for alternative in alternatives:
                before = len(self.rules)
                if alternative():
                    if bound is None or len(self.rules) - before < bound:
                        return
                    del self.rules[before:]  # too many ground rules to pay
            if attempt is not None:
                self.add(clause, *attempt)
                return
        found = self.instances(clause)
        assert found is not None  # without a cap, the budget's limit raises
        self.add(clause, *found)

    def split(self, clause: Clause, parts: list[Clause], depth: int) -> bool:
        """Ground `clause`, a rule whose move is split, with the relations of its parts."""
        for part in parts:
            found = self.instances(part)
            assert found is not None
            self.define(part, *found)
        self.ground(clause, depth + 1)
        return True

    def define(self, clause: Clause, instances: set[tuple], split: int) -> None:
        """Add a new relation's facts (the heads of its instances) and ground rules."""
        name = relation(clause.head)
        self.phase[name] = phase_of_clause(clause, self.phase)
        self.layer.extend(name, {tuple(arguments(row[0])) for row in instances})
        self.add(clause, instances, split)

    def eliminate(self, clause: Clause, candidates: list[Bucket], depth: int) -> bool:
        """Ground `clause` with the buckets that pay eliminated; False if none does.

        The caller compares the ground rules with those of the rule as written, if known.
        """
        measured = []
        for bucket in candidates:
            found = self.instances(bucket.clause, ATTEMPT_WORK)
            if found is None:
                continue
            ratio = len(found[0]) / max(1, len({row[0] for row in found[0]}))
            if ratio >= MIN_RATIO:
                measured.append((-ratio, sorted(bucket.members), bucket, found))
        chosen: list[Bucket] = []
        used: set[int] = set()
        for _, _, bucket, found in sorted(measured, key=lambda item: item[:2]):
            if used & bucket.members:
                continue
            used |= bucket.members
            chosen.append(bucket)
            self.define(bucket.clause, *found)
        if not chosen:
            return False
        self.ground(eliminated(clause, chosen), depth + 1)
        return True

    def instances(self, clause: Clause, cap: int | None = None) -> tuple[set[tuple], int] | None:
        """The instances of `clause` (rows: head, state literals) and where its negative
        literals start; None past `cap` more units (`GroundingError` past the limit)."""
        phase = self.phase
        positive, negative = _state_literals(clause, phase)
        body = tuple(
            lit for lit in (_relaxed_literal(b, phase) for b in clause.body) if lit is not None
        )
        # The join builds the ground head and state literals of each instance directly.
        binder = Clause((_BINDING, clause.head, *positive, *negative), body, clause.rule)
        plan = compile_clause(binder, _phase_zero, self.estimate)
        plan.grows = False  # rows are rules made of relaxed facts, already bounded in size
        limit = self.limit if cap is None else min(self.limit, self.work.spent + cap)
        try:
            return plan.run_counted((self.layer,), None, self.work.counter, limit), 1 + len(
                positive
            )
        except WorkLimit:
            if limit < self.limit:
                return None
            raise self.work.exceeded(
                f"instantiating the rules (at {clause.rule.located()})"
            ) from None

    def add(self, clause: Clause, instances: set[tuple], split: int) -> None:
        """Add the ground rules of `instances` (`GroundingError` past the budget's count)."""
        rules = self.rules
        budget = self.work.budget
        if len(rules) + len(instances) > budget.ground_rules:
            raise GroundingError(
                f"more than {budget.ground_rules:,} ground rules "
                f"({len(instances):,} from {clause.rule.located()})"
            )
        layer = self.layer
        for row in instances:
            if not _relaxed_holds(row[0], layer):
                continue  # a factored rule's instance the rule as written never gives
            negated = tuple(atom for atom in row[split:] if _relaxed_holds(atom, layer))
            rules.append((row[0], row[1:split], negated))


def _phase_zero(name: str) -> int:
    return 0


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
