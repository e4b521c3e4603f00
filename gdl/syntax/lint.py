"""Warnings about a valid game description: what GDL allows but an author rarely means.

The validator (`ggp.gdl.syntax.validator`) refuses what GDL forbids; these are
allowed and almost always typos, and `ggp check` prints them:

- a relation used in a rule body but defined nowhere and not a GDL keyword
  (``minsu2`` for ``minus2``): the literal never holds, so its rule never does;
- a relation defined but never used: no ``legal``, ``next``, ``goal``,
  ``terminal``, ``init``, ``base`` or ``input`` rule depends on it;
- a ``(true F)`` whose fact no ``init`` or ``next`` rule can make, and a
  ``(does R M)`` whose move no ``legal`` rule can give (by the functor of F or M).

Each warning is one line naming the rule (with its line) and, where a defined
name is close, the name probably meant.  `unplayed_legal_rules` adds one from
playouts: a ``legal`` rule whose move was never legal in them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator

from ggp.gdl.syntax.strata import body_sentences
from ggp.gdl.syntax.terms import KEYWORDS, Rule, Term, arguments, is_variable, relation, to_kif

ROOTS = frozenset({"legal", "next", "goal", "terminal", "init", "base", "input", "role", "sees"})
"""Relations a game is played by (``sees``: GDL-II): what they depend on is used."""


def lint(rules: list[Rule]) -> list[str]:
    """Every warning about `rules` (a validated description), in the order of the rules."""
    return [
        *_undefined_relations(rules),
        *_unused_relations(rules),
        *_unmade_facts(rules),
        *_unplayable_moves(rules),
    ]


def _literals(rules: Iterable[Rule]) -> Iterator[tuple[Rule, Term]]:
    """Every sentence in every rule body, with its rule (through ``or`` and ``not``)."""
    for rule in rules:
        for sentence, _ in body_sentences(rule.body):
            yield rule, sentence


def _meant(name: str, known: Iterable[str]) -> str:
    """``; did you mean X?`` for the known name closest to `name`, if one is close."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.7)
    return f"; did you mean {close[0]}?" if close else ""


def _undefined_relations(rules: list[Rule]) -> Iterator[str]:
    defined = {relation(rule.head) for rule in rules}
    reported: set[str] = set()
    for rule, sentence in _literals(rules):
        name = relation(sentence)
        if name in defined or name in KEYWORDS or name in reported:
            continue
        reported.add(name)
        yield (
            f"line {rule.line}: {name} is used but defined nowhere (no rule or fact "
            f"has it as its head), so {to_kif(sentence)} never holds{_meant(name, defined)}"
        )


def _unused_relations(rules: list[Rule]) -> Iterator[str]:
    uses: dict[str, set[str]] = {}
    first: dict[str, Rule] = {}
    for rule in rules:
        head = relation(rule.head)
        first.setdefault(head, rule)
        uses.setdefault(head, set()).update(relation(s) for s, _ in body_sentences(rule.body))
    reached = set(ROOTS)
    todo = [name for name in ROOTS if name in uses]
    while todo:
        for name in uses.get(todo.pop(), ()):
            if name not in reached:
                reached.add(name)
                todo.append(name)
    for name, rule in first.items():
        if name not in reached and name not in KEYWORDS:
            yield (
                f"line {rule.line}: {name} is defined but never used (no legal, next, goal, "
                "terminal or init rule depends on it)"
            )


def _functor(term: Term) -> str | None:
    """The name of a fact or move (``cell`` of ``(cell 1 1 b)``); None for a variable."""
    name = relation(term)
    return None if is_variable(name) else name


def _unmade_facts(rules: list[Rule]) -> Iterator[str]:
    made = {
        _functor(arguments(rule.head)[0])
        for rule in rules
        if relation(rule.head) in ("init", "next")
    }
    if None in made:  # a rule makes any fact at all
        return
    yield from _unmatched(rules, "true", 0, made, "no init or next rule makes a {} fact")


def _unplayable_moves(rules: list[Rule]) -> Iterator[str]:
    given = {_functor(arguments(rule.head)[1]) for rule in rules if relation(rule.head) == "legal"}
    if None in given:  # a rule makes any move legal
        return
    yield from _unmatched(rules, "does", 1, given, "no legal rule gives a {} move")


def _unmatched(
    rules: list[Rule], keyword: str, position: int, known: set[str | None], why: str
) -> Iterator[str]:
    """Where `keyword` literals name, at `position`, a functor not in `known`."""
    reported: set[str] = set()
    names = {name for name in known if name is not None}
    for rule, sentence in _literals(rules):
        if relation(sentence) != keyword:
            continue
        name = _functor(arguments(sentence)[position])
        if name is None or name in known or name in reported:
            continue
        reported.add(name)
        yield (
            f"line {rule.line}: {to_kif(sentence)} never holds: {why.format(name)}"
            f"{_meant(name, names)}"
        )


def matches(pattern: Term, term: Term, binding: dict[str, Term] | None = None) -> bool:
    """Whether ground `term` is an instance of `pattern` (its variables bound alike
    throughout, and consistently with `binding`, which is extended)."""
    binding = {} if binding is None else binding
    if is_variable(pattern):
        bound = binding.setdefault(pattern, term)  # type: ignore[arg-type]
        return bound == term
    if type(pattern) is str or type(term) is str:
        return pattern == term
    return len(pattern) == len(term) and all(
        matches(p, t, binding) for p, t in zip(pattern, term, strict=True)
    )


def unplayed_legal_rules(rules: list[Rule], legal_seen: set[tuple[Term, Term]]) -> list[str]:
    """A warning for each ``legal`` rule none of whose moves was among `legal_seen`
    (role and move terms legal in some state of the playouts): the rule never held there
    and its moves could not be played."""
    warnings = []
    for rule in rules:
        if relation(rule.head) != "legal":
            continue
        if not any(matches(rule.head, ("legal", *seen)) for seen in legal_seen):
            warnings.append(
                f"line {rule.line}: the rule for {to_kif(rule.head)} never held in the random "
                "playouts (its move could not be played)"
            )
    return warnings
