"""What the rules of a GDL game say about its play, from the rules and random playouts:
for ``ggp check`` to print and for a search to use at the start clock.

- **latches**: base facts that no move takes away once they hold.  Found from the
  rules (a ``next`` rule keeps the fact: its head and a ``(true ...)`` of its body
  both match it) and confirmed on the playouts (never lost once held); *proven*
  when that rule's other conditions are static facts and ``distinct`` literals
  that hold, so it keeps the fact whatever is played;
- **goal-relevant base facts**: the ``(true ...)`` patterns the ``goal`` rules
  depend on (through every relation they use), and the facts of the playouts
  that match one;
- **constant-sum**: whether the goals of the terminal states of the playouts
  always add up to the same total (an observation, not a proof);
- **what each role's moves touch**: the base relations of the ``next`` rules with
  a ``(does ROLE ...)`` in their body that can stand for a move of that role;
- **playout statistics**: length (mean, min, max) and each role's mean number of
  legal moves in the non-terminal states.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.interpreter.reasoner import WorkLimitExceeded
from ggp.gdl.playouts import Playout
from ggp.gdl.syntax.lint import matches
from ggp.gdl.syntax.parser import parse_term
from ggp.gdl.syntax.strata import STATIC, Strata, body_sentences
from ggp.gdl.syntax.terms import Rule, Term, arguments, is_ground, is_variable, relation, to_kif

StaticFacts = Callable[[str], "set[tuple] | None"]
"""The facts (argument tuples) of a static relation; None where they are not known in
full (a relation computed on demand only)."""


@dataclass(frozen=True)
class Latch:
    fact: str
    proven: bool
    """Kept by a rule whatever is played (see the module), not only seen kept."""


@dataclass(frozen=True)
class PlayoutStats:
    playouts: int
    terminal: int
    """Playouts that reached a terminal state."""
    mean_length: float
    min_length: int
    max_length: int
    branching: tuple[float, ...]
    """Per role, the mean number of legal moves over the non-terminal states."""


@dataclass(frozen=True)
class Analysis:
    latches: tuple[Latch, ...]
    goal_patterns: tuple[str, ...]
    """The ``(true ...)`` arguments the goal rules depend on, as written."""
    goal_facts: frozenset[str]
    """The facts of the playouts that match a goal pattern."""
    facts_seen: int
    """The distinct facts of the playouts' states."""
    goal_sums: tuple[int, ...]
    """The distinct totals of the goals in the terminal states reached, sorted."""
    touches: tuple[tuple[str, tuple[str, ...]], ...]
    """Per role: the base relations its moves can change (in `next` rules)."""
    stats: PlayoutStats

    @property
    def constant_sum(self) -> bool | None:
        """Whether every terminal state reached had the same total; None if none was."""
        return len(self.goal_sums) == 1 if self.goal_sums else None


def analyse_game(game: GdlGame, playouts: Sequence[Playout]) -> Analysis:
    """The analysis of `game` (on any reasoner) on `playouts` of it (`record_playout`)."""
    return analyse(game.rules, game.strata, static_facts(game), game.role_terms, playouts)


def static_facts(game: GdlGame) -> StaticFacts:
    """The facts of a static relation of `game`; None where they are not known in full
    (computed on demand only, or more work than the game's limit allows)."""
    demand = game.reasoner.strata.demand

    def facts(name: str) -> set[tuple] | None:
        if name in demand:
            return None
        try:
            return game.reasoner.facts(name)
        except WorkLimitExceeded:
            return None

    return facts


def analyse(
    rules: Sequence[Rule],
    strata: Strata,
    static: StaticFacts,
    roles: Sequence[Term],
    playouts: Sequence[Playout],
) -> Analysis:
    """The analysis of a game (its validated `rules`, their `strata`, the facts of its
    static relations and its role terms) on `playouts` of it."""
    terms = _Terms()
    facts = {fact for playout in playouts for state in playout.states for fact in state}
    return Analysis(
        latches=tuple(_latches(rules, strata, static, playouts, terms)),
        goal_patterns=(patterns := _goal_patterns(rules)),
        goal_facts=frozenset(_matching(patterns, facts, terms)),
        facts_seen=len(facts),
        goal_sums=tuple(sorted({sum(p.goals) for p in playouts if p.goals is not None})),
        touches=tuple(_touches(rules, roles, playouts, terms)),
        stats=_stats(playouts, len(roles)),
    )


class _Terms:
    """Fact and move texts parsed once each."""

    def __init__(self) -> None:
        self._parsed: dict[str, Term] = {}

    def __call__(self, text: str) -> Term:
        term = self._parsed.get(text)
        if term is None:
            term = self._parsed[text] = parse_term(text)
        return term


def _keeping_rules(rules: Sequence[Rule]) -> list[tuple[Rule, Term, Term]]:
    """The ``next`` rules with a positive ``(true F)`` whose F may be their head's fact:
    (rule, head fact, F)."""
    found = []
    for rule in rules:
        if relation(rule.head) != "next":
            continue
        fact = arguments(rule.head)[0]
        for literal in rule.body:
            if type(literal) is tuple and literal[0] == "true":
                found.append((rule, fact, literal[1]))
    return found


def _latches(
    rules: Sequence[Rule],
    strata: Strata,
    static: StaticFacts,
    playouts: Sequence[Playout],
    terms: _Terms,
) -> Iterator[Latch]:
    held: set[str] = set()
    lost: set[str] = set()
    for playout in playouts:
        for before, after in zip(playout.states, playout.states[1:], strict=False):
            held.update(before)
            lost.update(set(before) - set(after))
    keeping = _keeping_rules(rules)
    for fact in sorted(held - lost):
        term = terms(fact)
        kept = [
            (rule, binding)
            for rule, head, kept in keeping
            if matches(head, term, binding := {}) and matches(kept, term, binding)
        ]
        if kept:
            proven = any(_holds_always(rule, b, term, strata, static) for rule, b in kept)
            yield Latch(fact, proven)


def _holds_always(
    rule: Rule, binding: dict[str, Term], fact: Term, strata: Strata, static: StaticFacts
) -> bool:
    """Whether every literal of `rule` under `binding` holds in any state where `fact`
    does: ``(true fact)`` itself, true ``distinct`` and static literals, all ground."""
    for literal in rule.body:
        literal = _bind(literal, binding)
        if not is_ground(literal):
            return False
        kind = literal[0] if type(literal) is tuple else literal
        if kind == "true" and literal[1] == fact:
            continue
        if kind == "distinct":
            if literal[1] == literal[2]:
                return False
            continue
        negated = kind == "not"
        sentence = literal[1] if negated else literal
        name = relation(sentence)
        if kind == "or" or strata.phase.get(name) != STATIC:
            return False
        facts = static(name)
        if facts is None or (tuple(arguments(sentence)) in facts) == negated:
            return False
    return True


def _bind(term: Term, binding: dict[str, Term]) -> Term:
    if is_variable(term):
        return binding.get(term, term)  # type: ignore[arg-type]
    if type(term) is str:
        return term
    return tuple(_bind(part, binding) for part in term)


def _goal_patterns(rules: Sequence[Rule]) -> tuple[str, ...]:
    uses: dict[str, list[Rule]] = {}
    for rule in rules:
        uses.setdefault(relation(rule.head), []).append(rule)
    seen = {"goal"}
    todo = ["goal"]
    patterns: dict[str, None] = {}
    while todo:
        for rule in uses.get(todo.pop(), ()):
            for sentence, _ in body_sentences(rule.body):
                name = relation(sentence)
                if name == "true":
                    patterns[to_kif(sentence[1])] = None
                elif name not in seen:
                    seen.add(name)
                    todo.append(name)
    return tuple(patterns)


def _matching(patterns: Sequence[str], facts: set[str], terms: _Terms) -> set[str]:
    parsed = [parse_term(pattern) for pattern in patterns]
    return {fact for fact in facts if any(matches(p, terms(fact)) for p in parsed)}


def _does_literals(rules: Sequence[Rule]) -> dict[str, list[Term]]:
    """Per relation, the ``does`` sentences its rules' bodies hold, directly or through
    the relations they use (so that a ``next`` rule reading a move through a relation
    of its own is seen to depend on that move)."""
    direct: dict[str, list[Term]] = {}
    uses: dict[str, set[str]] = {}
    for rule in rules:
        name = relation(rule.head)
        for sentence, _ in body_sentences(rule.body):
            if relation(sentence) == "does":
                direct.setdefault(name, []).append(sentence)
            else:
                uses.setdefault(name, set()).add(relation(sentence))
    found: dict[str, list[Term]] = {}
    for name in uses.keys() | direct.keys():
        reached, todo = {name}, [name]
        while todo:
            for other in uses.get(todo.pop(), ()):
                if other not in reached:
                    reached.add(other)
                    todo.append(other)
        found[name] = [d for other in sorted(reached) for d in direct.get(other, ())]
    return found


def _touches(
    rules: Sequence[Rule], roles: Sequence[Term], playouts: Sequence[Playout], terms: _Terms
) -> Iterator[tuple[str, tuple[str, ...]]]:
    moves: list[set[Term]] = [set() for _ in roles]
    for playout in playouts:
        for legal in playout.legal:
            for i, role_moves in enumerate(legal):
                moves[i].update(terms(move) for move in role_moves)
    does = _does_literals(rules)
    next_rules = [rule for rule in rules if relation(rule.head) == "next"]
    for i, role in enumerate(roles):
        touched = set()
        for rule in next_rules:
            sentences = [s for s, _ in body_sentences(rule.body)]
            reads = [s for s in sentences if relation(s) == "does"]
            reads += [
                d for s in sentences if relation(s) != "does" for d in does.get(relation(s), ())
            ]
            for sentence in reads:
                who, what = arguments(sentence)
                if matches(who, role) and any(matches(what, move, {}) for move in moves[i]):
                    touched.add(relation(arguments(rule.head)[0]))
                    break
        yield to_kif(role), tuple(sorted(touched))


def _stats(playouts: Sequence[Playout], roles: int) -> PlayoutStats:
    lengths = [playout.length for playout in playouts] or [0]
    counts: list[list[int]] = [[] for _ in range(roles)]
    for playout in playouts:
        for legal in playout.legal:
            for i, role_moves in enumerate(legal):
                counts[i].append(len(role_moves))
    return PlayoutStats(
        playouts=len(playouts),
        terminal=sum(playout.terminal for playout in playouts),
        mean_length=statistics.fmean(lengths),
        min_length=min(lengths),
        max_length=max(lengths),
        branching=tuple(statistics.fmean(c) if c else 0.0 for c in counts),
    )


def describe(analysis: Analysis, roles: Sequence[str]) -> list[str]:
    """The analysis as lines of text (``ggp check``'s "rules analysis" section)."""
    stats = analysis.stats
    lines = [
        f"playouts: {stats.playouts} ({stats.terminal} reached a terminal state), length "
        f"mean {stats.mean_length:.1f}, min {stats.min_length}, max {stats.max_length}",
        "mean legal moves per state: "
        + ", ".join(f"{role} {b:.1f}" for role, b in zip(roles, stats.branching, strict=True)),
    ]
    proven = [latch.fact for latch in analysis.latches if latch.proven]
    seen = [latch.fact for latch in analysis.latches if not latch.proven]
    lines.append(
        f"latches proven (a next rule keeps them whatever is played): {len(proven)}"
        f"{f': {_sample(proven)}' if proven else ''}"
    )
    if seen:
        lines.append(
            f"latches seen, not proven (a next rule may keep them, never lost in the "
            f"playouts): {len(seen)}: {_sample(seen)}"
        )
    by_relation: dict[str, int] = {}
    for fact in analysis.goal_facts:
        name = fact.strip("()").split(" ", 1)[0]
        by_relation[name] = by_relation.get(name, 0) + 1
    relevant = ", ".join(f"{name} {count}" for name, count in sorted(by_relation.items()))
    lines.append(
        f"goal-relevant base facts: {len(analysis.goal_facts)} of the {analysis.facts_seen} "
        f"seen{f' ({relevant})' if relevant else ''}, from {len(analysis.goal_patterns)} "
        "(true ...) patterns of the goal rules"
    )
    if analysis.constant_sum is None:
        lines.append("constant-sum: unknown (no terminal state reached)")
    elif len(roles) == 1:
        sums = ", ".join(map(str, analysis.goal_sums))
        lines.append(f"constant-sum: one role; its goals in the terminal states reached: {sums}")
    elif analysis.constant_sum:
        lines.append(f"constant-sum: yes, the goals add up to {analysis.goal_sums[0]}")
    else:
        sums = ", ".join(map(str, analysis.goal_sums))
        lines.append(f"constant-sum: no, the goals add up to {sums}")
    for role, touched in analysis.touches:
        lines.append(f"moves of {role} change: {', '.join(touched) or 'nothing'}")
    return lines


def _sample(items: Sequence[str], count: int = 6) -> str:
    shown = " ".join(items[:count])
    return shown + (f" ... ({len(items) - count} more)" if len(items) > count else "")
