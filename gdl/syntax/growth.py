"""Whether a game's terms can grow without bound: a check made before a match starts.

A rule such as ``(<= (next (n (s ?x))) (true (n ?x)))`` wraps a term in one more
function each step: the state grows for ever, and a referee or player that
recurses over terms breaks down after a few hundred steps.  The check is the
classic one for logic programs with function symbols (weak acyclicity of the
argument positions, with depths): a node for each argument of each relation
(the arguments of a fluent for ``true``, ``next``, ``init`` and ``base``; of a
move for ``legal``, ``does`` and ``input``); for each rule, an edge from where a
variable is bound in the body to where it appears in the head, weighted by how
much deeper inside functions the head nests it (negative when shallower).
Terms are bounded unless a cycle of the graph has a positive weight; a
description whose terms grow is refused.

The check is conservative: a counter that grows with ``s`` and is bounded only by
the terminal condition is refused too (the corpus of public games has none).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ggp.gdl.syntax.scc import strongly_connected_components
from ggp.gdl.syntax.terms import Rule, Term, arguments, relation, to_kif

_FLUENT_RELATIONS = frozenset({"true", "next", "init", "base"})
_MOVE_RELATIONS = frozenset({"legal", "does", "input"})


def _positions(sentence: Term) -> tuple[str, tuple[Term, ...]]:
    """The node name of a sentence's arguments and those arguments (a fluent's or
    a move's for the relations that carry one)."""
    name = relation(sentence)
    args = arguments(sentence)
    if name in _FLUENT_RELATIONS and len(args) == 1:
        inner = args[0]
        return f"fluent {relation(inner)}", arguments(inner)
    if name in _MOVE_RELATIONS and len(args) == 2:
        inner = args[1]
        return f"move {relation(inner)}", (args[0], *arguments(inner))
    return name, args


def _occurrences(term: Term, depth: int = 0) -> Iterator[tuple[str, int]]:
    """Each variable of `term` with how deep inside functions it sits."""
    if type(term) is str:
        if term[:1] == "?":
            yield term, depth
    else:
        for part in term[1:]:
            yield from _occurrences(part, depth + 1)


def _bound(literal: Term) -> Iterator[Term]:
    """The sentences of a body literal that bind variables (negations and
    ``distinct`` bind nothing; each disjunct of an ``or`` may)."""
    name = relation(literal)
    if name in ("not", "distinct"):
        return
    if name == "or":
        for part in arguments(literal):
            yield from _bound(part)
        return
    yield literal


def growing_terms(rules: Sequence[Rule]) -> Rule | None:
    """A rule through which terms grow without bound (None if they cannot)."""
    nodes: dict[tuple[str, int], int] = {}

    def node(name: str, index: int) -> int:
        return nodes.setdefault((name, index), len(nodes))

    edges: list[tuple[int, int, int, Rule]] = []
    for rule in rules:
        sources: dict[str, list[tuple[int, int]]] = {}
        for literal in rule.body:
            for sentence in _bound(literal):
                name, args = _positions(sentence)
                for index, arg in enumerate(args):
                    for variable, depth in _occurrences(arg):
                        sources.setdefault(variable, []).append((node(name, index), depth))
        name, args = _positions(rule.head)
        for index, arg in enumerate(args):
            target = node(name, index)
            for variable, depth in _occurrences(arg):
                for source, bound_depth in sources.get(variable, ()):
                    edges.append((source, target, depth - bound_depth, rule))
    successors: list[list[int]] = [[] for _ in nodes]
    for source, target, _, _ in edges:
        successors[source].append(target)
    component = [0] * len(nodes)
    for number, members in enumerate(strongly_connected_components(successors)):
        for member in members:
            component[member] = number
    inside = [edge for edge in edges if component[edge[0]] == component[edge[1]]]
    return _positive_cycle(len(nodes), inside)


def _positive_cycle(count: int, edges: list[tuple[int, int, int, Rule]]) -> Rule | None:
    """A rule on a cycle of positive weight (Bellman-Ford for longest paths: a distance
    that still grows after `count` rounds lies on or after such a cycle), or None."""
    if not any(weight > 0 for _, _, weight, _ in edges):
        return None
    distance = [0] * count
    for _ in range(count):
        changed: set[int] = set()
        for source, target, weight, _ in edges:
            if distance[source] + weight > distance[target]:
                distance[target] = distance[source] + weight
                changed.add(target)
        if not changed:
            return None
    growing = [rule for _, target, weight, rule in edges if weight > 0 and target in changed]
    return growing[0] if growing else next(rule for _, _, weight, rule in edges if weight > 0)


def growth_fault(rules: Sequence[Rule]) -> str | None:
    """Why the terms of `rules` grow without bound, said for a person (None if not)."""
    rule = growing_terms(rules)
    if rule is None:
        return None
    where = f"line {rule.line}: " if rule.line else ""
    return (
        f"{where}{to_kif(rule.head)} nests a term deeper each time it is used, with no "
        "bound: the game's states would grow for ever"
    )
