"""Computing a relation only where it is asked for: the magic-sets transformation.

Many public games were written for top-down provers, with relations meant
to be asked with most arguments known: chess's ``(threatened_with_capture
?owner ?cx ?cy ?x ?y ?ignorex ?ignorey)`` is only ever asked about one
move, but bottom-up it has millions of facts.  For such a relation ``R``
the transformation adds a *demand* relation holding the argument values
that callers ask about, and lets ``R``'s rules derive only facts for those:

- every rule ``R(args) :- body`` becomes ``R(args) :- demand_R(bound args), body``;
- every call of ``R`` in a rule ``H(...) :- ..., R(args), ...`` adds a rule
  ``demand_R(bound args) :- [demand_H(...)], literals before the call``
  (all positive literals of the rule for a call under ``not``), keeping
  only the literals linked to the call's arguments through shared
  variables, and ground ones as cheap conditions.

The *bound* argument positions of ``R`` (its adornment) are those bound at
every call, reading each rule body left to right as the author wrote it,
which is how the top-down provers these games were written for read them.
The result is evaluated bottom-up like any other program: recursion through
``R`` (counting loops) is semi-naive as usual.  Demand rules never use a
literal of a later phase than ``R``'s (a static relation may become a state
relation, computed for what each state asks, but nothing comes to depend on
``does``).  Should the rewritten program not be stratified, or put ``legal``
or ``init`` in a later phase, the relations concerned are computed in full
again.  `demand_reasoner` chooses which relations to rewrite.
"""

from __future__ import annotations

from collections.abc import Iterable

from ggp.gdl.interpreter.reasoner import Reasoner, WorkLimitExceeded
from ggp.gdl.syntax.errors import GdlError
from ggp.gdl.syntax.strata import STATE, STATIC, Clause, Strata
from ggp.gdl.syntax.terms import Term, arguments, is_ground, relation, to_kif, variables

DEMAND_PREFIX = "demand "
"""Demand relations are named ``"demand R"``: no GDL symbol contains a space."""


def demand_name(name: str) -> str:
    return DEMAND_PREFIX + name


def _kind(literal: Term) -> str:
    if type(literal) is tuple and literal[0] in ("not", "distinct"):
        return literal[0]
    return "positive"


def _bound_positions(args: tuple[Term, ...], bound: set[str]) -> frozenset[int]:
    return frozenset(i for i, arg in enumerate(args) if set(variables(arg)) <= bound)


class _Call:
    """A sentence read by a clause body, and what may bind its arguments there.

    `literals` are the positive literals a demand rule may use: those before
    the call (all of them for a call under ``not``), leaving out those of a
    later phase than the called relation's (`_ceiling`).  `guarded` says
    whether the rule's own demand (for a demand-driven head) may be used.
    """

    def __init__(
        self, position: int, sentence: Term, literals: list[Term], guarded: bool, bound: set[str]
    ) -> None:
        self.position = position
        self.sentence = sentence
        self.literals = literals
        self.guarded = guarded
        self.bound = bound
        self.positions = _bound_positions(arguments(sentence), bound)


def _ceiling(phase: dict[str, int], name: str) -> int:
    """The latest phase a relation's demand may depend on: state, or its own if later.

    A static relation asked about in each state becomes a state relation
    computed only for what is asked; nothing becomes move-dependent.
    """
    return max(phase.get(name, STATIC), STATE)


def _calls(clause: Clause, head_bound: set[str], strata: Strata) -> Iterable[_Call]:
    phase = strata.phase
    head_phase = phase.get(relation(clause.head), STATIC)
    for position, literal in enumerate(clause.body):
        kind = _kind(literal)
        if kind == "distinct":
            continue
        sentence = literal[1] if kind == "not" else literal
        ceiling = _ceiling(phase, relation(sentence))
        usable = [
            lit
            for i, lit in enumerate(clause.body)
            if _kind(lit) == "positive"
            and (i < position or (kind == "not" and i != position))
            and phase.get(relation(lit), STATIC) <= ceiling
        ]
        wanted = set(variables(sentence))
        guard = set(head_bound) if head_phase <= ceiling else set()
        literals, guarded = _connected(wanted, usable, guard)
        literals += [
            lit
            for lit in usable
            if lit not in literals
            and is_ground(lit)
            and relation(sentence) not in strata.reachable(relation(lit))
        ]
        guarded = guarded or (not wanted and head_phase <= ceiling)
        bound = (guard if guarded else set()) | {var for lit in literals for var in variables(lit)}
        yield _Call(position, sentence, literals, guarded, bound)


def _connected(wanted: set[str], literals: list[Term], guard: set[str]) -> tuple[list[Term], bool]:
    """The literals linked to the `wanted` variables through shared variables.

    Only they can bind a call's arguments or narrow them down; unrelated
    literals would only make the demand wait for their joins (and, when
    they depend on the called relation, make it recursive).  Ground
    literals are added separately as cheap conditions.  The second value
    says whether the guard (the head's demanded variables) is linked too.
    """
    reached = set(wanted)
    chosen = [False] * len(literals)
    guarded = False
    changed = True
    while changed:
        changed = False
        if not guarded and guard & reached:
            guarded = changed = True
            reached |= guard
        for i, lit in enumerate(literals):
            if not chosen[i] and reached & set(variables(lit)):
                chosen[i] = changed = True
                reached |= set(variables(lit))
    return [lit for i, lit in enumerate(literals) if chosen[i]], guarded


def adornments(strata: Strata, candidates: set[str]) -> dict[str, frozenset[int]]:
    """The argument positions bound at every call of each candidate (none: omitted)."""
    clauses = strata.clauses
    arity = {relation(c.head): len(arguments(c.head)) for c in clauses}
    adorned = {name: frozenset(range(arity[name])) for name in candidates if arity.get(name)}
    changed = True
    while changed:
        changed = False
        called: dict[str, frozenset[int]] = {}
        for clause in clauses:
            head = relation(clause.head)
            head_bound = _head_bound_variables(clause, adorned.get(head, frozenset()))
            for call in _calls(clause, head_bound, strata):
                name = relation(call.sentence)
                if name in adorned:
                    called[name] = called.get(name, call.positions) & call.positions
        for name in list(adorned):
            positions = called.get(name, frozenset())
            if positions != adorned[name]:
                changed = True
                if positions:
                    adorned[name] = positions
                else:
                    del adorned[name]
    return adorned


def _head_bound_variables(clause: Clause, positions: frozenset[int]) -> set[str]:
    args = arguments(clause.head)
    return {var for i in positions for var in variables(args[i])}


def _demand_atom(name: str, args: tuple[Term, ...], positions: frozenset[int]) -> Term:
    return (demand_name(name), *(args[i] for i in sorted(positions)))


def transform(strata: Strata, adorned: dict[str, frozenset[int]]) -> list[Clause]:
    """The clauses of `strata` rewritten so that `adorned` relations are computed on demand."""
    result = []
    for clause in strata.clauses:
        head = relation(clause.head)
        guard: tuple[Term, ...] = ()
        if head in adorned:
            guard = (_demand_atom(head, arguments(clause.head), adorned[head]),)
        result.append(Clause(clause.head, guard + clause.body, clause.rule))
        head_bound = _head_bound_variables(clause, adorned.get(head, frozenset()))
        for call in _calls(clause, head_bound, strata):
            name = relation(call.sentence)
            if name not in adorned:
                continue
            distinct = [
                lit
                for i, lit in enumerate(clause.body)
                if _kind(lit) == "distinct"
                and (i < call.position or _kind(clause.body[call.position]) == "not")
                and set(variables(lit)) <= call.bound
            ]
            body = (guard if call.guarded else ()) + tuple(call.literals + distinct)
            demand = _demand_atom(name, arguments(call.sentence), adorned[name])
            result.append(Clause(demand, body, clause.rule))
    return _unique(result)


def _unique(clauses: list[Clause]) -> list[Clause]:
    seen: set[tuple[Term, tuple[Term, ...]]] = set()
    unique = []
    for clause in clauses:
        key = (clause.head, clause.body)
        if key not in seen:
            seen.add(key)
            unique.append(clause)
    return unique


def demand_strata(strata: Strata, candidates: set[str]) -> Strata:
    """`strata` rewritten so that the `candidates` that can be are computed on demand.

    Candidates never read with a bound argument stay as they are, and so do
    those that would make the rewritten program unstratified or put a GDL
    relation in a later phase than it may be (``legal`` depending on ``does``).
    """
    candidates = set(candidates)
    while True:
        adorned = adornments(strata, candidates)
        if not adorned:
            return strata
        rewritten = Strata.of(strata.rules, transform(strata, adorned))
        broken = _negated_in_cycles(rewritten) & adorned.keys() or (
            {name.removeprefix(DEMAND_PREFIX) for name in rewritten.unstratified()} & adorned.keys()
        )
        broken |= _phase_breakers(strata, rewritten, adorned.keys())
        if not broken:
            rewritten.demand = {name: tuple(sorted(p)) for name, p in adorned.items()}
            return rewritten
        candidates -= broken


def _negated_in_cycles(rewritten: Strata) -> set[str]:
    """The relations read under ``not`` within their own stratum.

    Computing them in full again is usually enough to restore stratification.
    """
    return {
        relation(literal[1]).removeprefix(DEMAND_PREFIX)
        for clause in rewritten.clauses
        for literal in rewritten.negated_in_cycle(clause)
    }


def _phase_breakers(strata: Strata, rewritten: Strata, adorned: Iterable[str]) -> set[str]:
    """Demand-driven relations that moved a GDL relation to a later phase."""
    late = {
        name
        for name, phase in rewritten.phase.items()
        if name in strata.phase and phase > strata.phase[name]
    }
    keywords = [
        name
        for name in late
        if name in ("init", "role", "base", "input", "legal", "goal", "terminal")
        and rewritten.phase[name] > (STATIC if name in ("init", "role", "base", "input") else STATE)
    ]
    breakers = set()
    for name in keywords:
        reached = rewritten.reachable(name)
        breakers |= {n for n in adorned if n in reached and n in late}
    return breakers


STATIC_WORK_LIMIT = 1_000_000
"""Join bindings a static stratum may make before it is computed on demand instead."""
STATE_WORK_LIMIT = 20_000
"""The same for a stratum computed in every state or for every joint move."""
CEILING = 5_000_000
"""Join bindings a stratum may make in the trial even once accepted over its limit
(several seconds of work for one state): past it the game is refused."""

GDL_RELATIONS = frozenset(
    {"role", "init", "true", "next", "legal", "does", "goal", "terminal", "base", "input"}
)


def demand_reasoner(strata: Strata) -> Reasoner:
    """A reasoner for `strata` that computes relations on demand where it pays.

    Relations that depend on the state are computed on demand whenever every
    call gives them a bound argument: per state, only what is asked about.
    Static relations are computed once per game, in full, unless that is too
    much work: the rules are tried on the initial state and one joint move
    with a limit on the join bindings each stratum may make, the relations of
    a stratum over its limit (and those that depend on them, through which
    the demand comes) become demand-driven too, and the trial starts again.
    A stratum that stays over its limit is accepted as it is, up to
    `CEILING`: past that, the rules are too expensive to play and `GdlError`
    says so.  The limits count bindings, not time, so the choice is the same
    on every machine.
    """
    candidates = {
        name
        for name, phase in strata.phase.items()
        if phase != STATIC and name in strata.edges and name not in GDL_RELATIONS
    }
    unlimited: set[int] = set()
    program = demand_strata(strata, candidates)
    while True:
        reasoner = Reasoner(program, (STATIC_WORK_LIMIT, STATE_WORK_LIMIT, STATE_WORK_LIMIT))
        reasoner.unlimited = unlimited
        reasoner.ceiling = CEILING
        try:
            _trial(reasoner)
        except WorkLimitExceeded as exceeded:
            if exceeded.stratum.index in unlimited:
                raise GdlError(_too_expensive(exceeded)) from None
            expensive = {
                name.removeprefix(DEMAND_PREFIX) for name in exceeded.stratum.relations
            } - GDL_RELATIONS
            expensive |= {
                name
                for name in strata.edges
                if name not in GDL_RELATIONS and strata.reachable(name) & expensive
            }
            rewritten = demand_strata(strata, candidates | expensive)
            if rewritten.demand.keys() > program.demand.keys():
                candidates |= expensive
                program = rewritten
                unlimited = set()
            else:
                unlimited = unlimited | {exceeded.stratum.index}
            continue
        reasoner.limits = None
        return reasoner


def _too_expensive(exceeded: WorkLimitExceeded) -> str:
    names = ", ".join(sorted({n.removeprefix(DEMAND_PREFIX) for n in exceeded.stratum.relations}))
    large = exceeded.term_too_large
    if large is not None:
        return f"the rules are too expensive to play: {large} ({names})"
    return (
        f"the rules are too expensive to play: computing {names} for the initial state "
        f"or its first joint move needs more than {CEILING:,} join bindings"
    )


def _trial(reasoner: Reasoner) -> None:
    """Compute what playing the first joint move of the game needs."""
    roles = sorted((args[0] for args in reasoner.facts("role")), key=to_kif)
    layers = reasoner.state_layers(args[0] for args in reasoner.facts("init"))
    reasoner.facts("goal", layers)
    if reasoner.facts("terminal", layers):
        return
    moves: dict[Term, list[Term]] = {}
    for role, move in reasoner.facts("legal", layers):
        moves.setdefault(role, []).append(move)
    if all(role in moves for role in roles):
        joint = [(role, min(moves[role], key=to_kif)) for role in roles]
        reasoner.facts("next", reasoner.move_layers(layers, joint))
