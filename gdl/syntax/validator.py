"""The restrictions of GDL (Love et al., "General Game Playing: Game
Description Language Specification", 2008), checked before a game is played.

Each fault is one line that names the rule (with its line) and says what is
wrong.  `validate` lists every fault; `check` raises `GdlValidationError`
with all of them, so a broken game is refused at load time, not half-played.

- **Arity**: a relation is used with one number of arguments throughout, and
  the GDL relations with theirs (``role`` 1, ``legal`` 2, ``terminal`` 0...).
- **Safety**: every variable of a rule's head, of a ``not`` literal and of a
  ``distinct`` literal also appears in a positive sentence of the body.
- **Stratified negation**: no relation depends on itself through ``not``.
- **Recursion restriction**: in a rule ``p(t...) :- ..., q(v...), ...`` where
  ``q`` is in a cycle with ``p``, every argument ``v`` is ground, or is one of
  the head's arguments ``t``, or is an argument of a positive body sentence
  whose relation is not in a cycle with ``p`` (this keeps the model finite).
- **Keywords**: ``true`` and ``does`` never head a rule; ``init``, ``base``,
  ``input`` and ``role`` do not depend on ``true`` or ``does``; ``legal``,
  ``goal`` and ``terminal`` do not depend on ``does``; there is a role, a
  ``terminal`` rule and a ``goal`` rule.
- **GDL-II** (Thielscher, "A General Game Description Language for Incomplete
  Information Games", 2010): ``sees`` (2 arguments: a role and a percept) may
  depend on ``true`` and ``does``, like ``next``, and never appears in a rule's
  body (nothing depends on what a role sees).  The role ``random`` (chance) is
  declared like any role; that no player plays it is the referee's and the
  player's check (`ggp.server`, `ggp.player`), not the rules'.

A rule with ``or`` is checked as its alternatives (`ggp.gdl.syntax.strata.clauses`), each
of which must be safe and follow the recursion restriction.
"""

from __future__ import annotations

from ggp.gdl.syntax.errors import GdlValidationError
from ggp.gdl.syntax.strata import Strata, alternative_count, body_sentences, clauses
from ggp.gdl.syntax.terms import Rule, Term, arguments, is_ground, relation, to_kif, variables

KEYWORD_ARITIES = {
    "role": 1,
    "init": 1,
    "true": 1,
    "next": 1,
    "legal": 2,
    "does": 2,
    "goal": 2,
    "terminal": 0,
    "base": 1,
    "input": 2,
    "sees": 2,
}
NEVER_IN_HEADS = ("true", "does")
NEVER_IN_BODIES = ("sees",)
NOT_ON_STATE = ("role", "init", "base", "input")
NOT_ON_MOVES = ("legal", "goal", "terminal")


def check(rules: list[Rule], source: str = "") -> Strata:
    """The dependency structure of `rules`; raises `GdlValidationError` listing all faults."""
    faults, strata = validate(rules)
    if faults:
        raise GdlValidationError(faults, source)
    assert strata is not None
    return strata


def validate(rules: list[Rule]) -> tuple[list[str], Strata | None]:
    """Every fault of `rules` (empty if none), and their strata when arities agree."""
    faults = _size_faults(rules)
    if faults:  # multiplying the rules out would already be too much work
        return faults, None
    faults = _arity_faults(rules)
    faults += _head_faults(rules)
    faults += _body_faults(rules)
    heads = {relation(rule.head) for rule in rules}
    if "role" not in heads:
        faults.append("no roles: a game needs at least one (role NAME) fact")
    if "terminal" not in heads:
        faults.append("no terminal: a game needs a terminal rule, or it never ends")
    if "goal" not in heads:
        faults.append("no goal: a game needs (goal ROLE VALUE) rules, or it has no result")
    strata = Strata.of(rules)
    for rule in rules:
        faults += _safety_faults(rule)
    faults += _negation_faults(strata)
    faults += _recursion_faults(strata)
    faults += _dependency_faults(strata)
    return faults, strata


MAX_ALTERNATIVES = 256
"""Clauses one rule's ``(or ...)`` literals may multiply out to (the corpus needs 12)."""
MAX_CLAUSES = 20_000
"""Clauses a whole description may multiply out to (the corpus needs 640)."""


def _size_faults(rules: list[Rule]) -> list[str]:
    """Rules whose ``(or ...)`` literals multiply out to too many clauses, counted first."""
    faults = []
    total = 0
    for rule in rules:
        count = 1
        for literal in rule.body:
            count *= alternative_count(literal)
        total += count
        if count > MAX_ALTERNATIVES:
            faults.append(
                f"{rule.located()}: its (or ...) literals multiply out to {count:,} "
                f"alternatives; at most {MAX_ALTERNATIVES:,} are accepted"
            )
    if total > MAX_CLAUSES and not faults:
        faults.append(
            f"the rules multiply out to {total:,} clauses through their (or ...) literals; "
            f"at most {MAX_CLAUSES:,} are accepted"
        )
    return faults


def arities(rules: list[Rule]) -> dict[str, int]:
    """Every relation of `rules` and its number of arguments (as first used)."""
    found: dict[str, int] = {}
    for rule in rules:
        for sentence, _ in body_sentences((rule.head, *rule.body)):
            found.setdefault(relation(sentence), len(arguments(sentence)))
    return found


def _arity_faults(rules: list[Rule]) -> list[str]:
    first_use: dict[str, tuple[int, Rule]] = {}
    reported: set[str] = set()
    faults = []
    for rule in rules:
        for sentence, _ in body_sentences((rule.head, *rule.body)):
            name, arity = relation(sentence), len(arguments(sentence))
            expected = KEYWORD_ARITIES.get(name)
            if expected is not None and arity != expected and (name, arity) not in reported:
                reported.add((name, arity))
                faults.append(
                    f"{rule.located()}: {name} takes {expected} argument"
                    f"{'s' if expected != 1 else ''}, here it has {arity}: {to_kif(sentence)}"
                )
                continue
            if name not in first_use:
                first_use[name] = (arity, rule)
            elif first_use[name][0] != arity and name not in reported:
                reported.add(name)
                other_arity, other = first_use[name]
                faults.append(
                    f"{rule.located()}: relation {name} is used with {arity} arguments "
                    f"here but with {other_arity} at line {other.line}"
                )
    return faults


def _head_faults(rules: list[Rule]) -> list[str]:
    return [
        f"{rule.located()}: {relation(rule.head)} cannot be the head of a rule; it is "
        f"given by the {'state' if relation(rule.head) == 'true' else 'players'} "
        "and only appears in rule bodies"
        for rule in rules
        if relation(rule.head) in NEVER_IN_HEADS
    ]


def _body_faults(rules: list[Rule]) -> list[str]:
    return [
        f"{rule.located()}: {name} cannot appear in a rule's body; it says what a role "
        "perceives after a joint move, and nothing may depend on it"
        for rule in rules
        for name in sorted({relation(s) for s, _ in body_sentences(rule.body)})
        if name in NEVER_IN_BODIES
    ]


def _safety_faults(rule: Rule) -> list[str]:
    faults = []
    unsafe_seen: set[str] = set()
    alternatives = clauses(rule)
    for clause in alternatives:
        bound = {
            var
            for literal, positive in body_sentences(clause.body)
            if positive
            for var in variables(literal)
        }
        places: list[tuple[str, Term]] = [("the head", clause.head)]
        for literal in clause.body:
            if type(literal) is tuple and literal[0] in ("not", "distinct"):
                places.append((to_kif(literal), literal))
        for where, term in places:
            for var in variables(term):
                if var not in bound and var not in unsafe_seen:
                    unsafe_seen.add(var)
                    faults.append(
                        f"{rule.located()}: unsafe variable {var}: it appears in {where} "
                        "but in no positive sentence of the body"
                        + (" (in one alternative of its or)" if len(alternatives) > 1 else "")
                    )
    return faults


def _negation_faults(strata: Strata) -> list[str]:
    faults = []
    for clause in strata.clauses:
        head = relation(clause.head)
        for literal in strata.negated_in_cycle(clause):
            name = relation(literal[1])
            if name == head:
                why = f"{head} depends on its own negation {to_kif(literal)}"
            else:
                cycle = " -> ".join([head, *strata.path(name, {head})])
                why = (
                    f"{head} depends on {to_kif(literal)} and {name} depends on {head} "
                    f"again (cycle {cycle})"
                )
            faults.append(f"{clause.rule.located()}: negation is not stratified: {why}")
    return _unique(faults)


def _recursion_faults(strata: Strata) -> list[str]:
    faults = []
    for clause in strata.clauses:
        head = relation(clause.head)
        head_args = set(arguments(clause.head))
        cyclic, acyclic_args = [], set()
        for literal in clause.body:
            if type(literal) is tuple and literal[0] in ("not", "distinct"):
                continue
            if strata.in_cycle(clause.head, literal):
                cyclic.append(literal)
            else:
                acyclic_args.update(arguments(literal))
        for literal in cyclic:
            for arg in arguments(literal):
                if is_ground(arg) or arg in head_args or arg in acyclic_args:
                    continue
                faults.append(
                    f"{clause.rule.located()}: breaks the recursion restriction: in "
                    f"{to_kif(literal)}, which is recursive with {head}, the argument "
                    f"{to_kif(arg)} is not ground, not an argument of the head and not an "
                    "argument of a positive literal of the body outside the recursion"
                )
    return _unique(faults)


def _dependency_faults(strata: Strata) -> list[str]:
    faults = []
    checks = [(name, {"true", "does"}) for name in NOT_ON_STATE]
    checks += [(name, {"does"}) for name in NOT_ON_MOVES]
    for name, forbidden in checks:
        path = strata.path(name, forbidden)
        if path:
            rule = _rule_using(strata, path[0], path[1])
            faults.append(
                f"{rule.located()}: {name} must not depend on {path[-1]}, but it does: "
                + " -> ".join(path)
            )
    return faults


def _rule_using(strata: Strata, head: str, name: str) -> Rule:
    """The first rule for `head` with `name` in its body."""
    return next(
        rule
        for rule in strata.rules
        if relation(rule.head) == head
        and any(relation(s) == name for s, _ in body_sentences(rule.body))
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
