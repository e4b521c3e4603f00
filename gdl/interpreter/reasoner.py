"""Bottom-up (forward-chaining) evaluation of a validated game description.

Facts are computed stratum by stratum (`ggp.gdl.syntax.strata`), each into the `Layer`
of its phase: static strata once per game into the reasoner's own layer,
state strata once per state, move strata once per joint move.  Only what a
query needs is computed (`Reasoner.facts`), and what was computed stays in
its layer, so asking for the legal moves and then the next state of the same
state does not compute anything twice.

A recursive stratum is evaluated semi-naively: one full round, then rounds in
which every clause reads one recursive literal from the facts that are new
since the last round (the delta) and the others from all facts.  Each clause
is compiled (`ggp.gdl.interpreter.joins`) when its stratum is first evaluated, so that its
join order is chosen with the sizes of the facts it reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ggp.gdl.interpreter.facts import Args, Layer
from ggp.gdl.interpreter.joins import ClausePlan, TermTooLarge, WorkLimit, compile_clause, estimator
from ggp.gdl.syntax.strata import Strata, Stratum
from ggp.gdl.syntax.terms import Term, relation


class _StratumPlan:
    """The compiled clauses of a stratum: full ones, and delta variants if recursive."""

    def __init__(self, full: list[ClausePlan], variants: list[tuple[str, ClausePlan]]) -> None:
        self.full = full
        self.variants = variants


class WorkLimitExceeded(Exception):
    """A stratum made more join bindings than `Reasoner.limits` allows."""

    def __init__(self, stratum: Stratum, cause: WorkLimit | None = None) -> None:
        super().__init__(f"stratum {stratum.index} exceeded its work limit")
        self.stratum = stratum
        self.cause = cause
        """A `TermTooLarge` when that is why; else the bindings were too many."""

    @property
    def term_too_large(self) -> TermTooLarge | None:
        return self.cause if isinstance(self.cause, TermTooLarge) else None


class Reasoner:
    """Computes the facts of a game's relations for given ``true``/``does`` facts.

    With `limits` (join bindings allowed per stratum evaluation, per phase),
    an evaluation that would exceed them raises `WorkLimitExceeded` instead;
    strata in `unlimited` are exempt, but held to `ceiling` if it is set.
    `ggp.gdl.interpreter.magic` uses this to find the relations too expensive to
    compute in full.
    """

    def __init__(self, strata: Strata, limits: tuple[int, ...] | None = None) -> None:
        self.strata = strata
        self.static = Layer()
        self.limits = limits
        self.unlimited: set[int] = set()
        self.ceiling: int | None = None
        self.counter: list[int] | None = None
        """When set, every counted stratum adds its bindings to this one counter and the
        limits apply to its total (a budget for the whole evaluation)."""
        self.query_limit: int | None = None
        """When set (and `limits` is not), each `facts` query may make at most this many
        join bindings over all the strata it evaluates, and derive no fact of more than
        `ggp.gdl.interpreter.joins.MAX_TERM_SIZE` symbols where terms nest; past that,
        `WorkLimitExceeded` (a budget for each state and joint move, see `GdlGame`)."""
        self._plans: dict[int, _StratumPlan] = {}
        self._needed: dict[str, list[Stratum]] = {}

    def phase(self, name: str) -> int:
        return self.strata.phase.get(name, 0)

    def state_layers(self, state: Iterable[Term]) -> tuple[Layer, Layer]:
        """The layers in which the facts of a state (its ``true`` terms) are computed."""
        return (self.static, Layer({"true": {(fact,) for fact in state}}))

    def move_layers(
        self, state_layers: Sequence[Layer], does: Iterable[tuple[Term, Term]]
    ) -> tuple[Layer, Layer, Layer]:
        """The layers for a joint move (``does`` facts: role, move) in a state."""
        return (state_layers[0], state_layers[1], Layer({"does": set(does)}))

    def facts(self, name: str, layers: Sequence[Layer] = ()) -> set[Args]:
        """The facts of relation `name` (argument tuples), computed as needed.

        `layers` is ``(static,)`` or what `state_layers`/`move_layers` gave;
        it must reach the phase of `name`.
        """
        layers = layers or (self.static,)
        if self.query_limit is not None and self.limits is None:
            self.counter = [0]
        needed = self._needed.get(name)
        if needed is None:
            needed = self._needed[name] = self.strata.needed(name)
        for stratum in needed:
            layer = layers[stratum.phase]
            if stratum.index not in layer.done:
                self._evaluate(stratum, layers)
                layer.done.add(stratum.index)
        return layers[self.phase(name)].facts.get(name, set())

    def _evaluate(self, stratum: Stratum, layers: Sequence[Layer]) -> None:
        plan = self._plans.get(stratum.index)
        if plan is None:
            plan = self._plans[stratum.index] = self._compile(stratum, layers)
        layer = layers[stratum.phase]
        run = self._runner(stratum)
        if not stratum.recursive:
            for clause in plan.full:
                layer.extend(clause.relation, run(clause, layers, None))
            return
        delta: dict[str, list[Args]] = {}
        for clause in plan.full:
            fresh = layer.add(clause.relation, run(clause, layers, None))
            if fresh:
                delta.setdefault(clause.relation, []).extend(fresh)
        while delta:
            found: dict[str, set[Args]] = {}
            for name, clause in plan.variants:
                if name in delta:
                    derived = run(clause, layers, delta)
                    if derived:
                        found.setdefault(clause.relation, set()).update(derived)
            delta = {}
            for name, derived in found.items():
                fresh = layer.add(name, derived)
                if fresh:
                    delta[name] = fresh

    def _runner(self, stratum: Stratum):
        """How to run a clause: plainly, or counting work against the limit."""
        if self.limits is None:
            if self.query_limit is None:
                return ClausePlan.run
            limit = self.query_limit
        elif stratum.index in self.unlimited:
            if self.ceiling is None:
                return ClausePlan.run
            limit = self.ceiling
        else:
            limit = self.limits[stratum.phase]
        work = self.counter if self.counter is not None else [0]

        def counted(clause: ClausePlan, layers, delta):
            try:
                return clause.run_counted(layers, delta, work, limit)
            except WorkLimit as cause:
                raise WorkLimitExceeded(stratum, cause) from None

        return counted

    def _compile(self, stratum: Stratum, layers: Sequence[Layer]) -> _StratumPlan:
        estimate = estimator(layers, self.phase, stratum.relations)
        full = [compile_clause(c, self.phase, estimate) for c in stratum.clauses]
        variants = []
        if stratum.recursive:
            for clause in stratum.clauses:
                for position, literal in enumerate(clause.body):
                    if self._reads_stratum(literal, stratum):
                        plan = compile_clause(clause, self.phase, estimate, position)
                        variants.append((relation(literal), plan))
        return _StratumPlan(full, variants)

    def _reads_stratum(self, literal: Term, stratum: Stratum) -> bool:
        """Whether `literal` is a positive sentence that may read this stratum's facts."""
        if type(literal) is tuple and literal[0] in ("not", "distinct"):
            return False
        return any(node in stratum.nodes for node in self.strata.nodes_of(literal))
