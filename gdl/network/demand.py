"""Relations restricted to the arguments they are asked for with.

chineseCheckers' ``(count ?x ?y ?z ?player ?payoff)`` holds for every three
cells of the board, but the rules only ask ``(count h1 h2 i1 red
?payoff)`` and two more such triples: grounding every triple gives cells
cubed ground rules.  When every literal of a relation (positive or
negative, in any rule) has ground terms at some argument positions, the
relation's rules are restricted to those values by a new static relation
(``demand count`` holding the triples asked for), and only those instances
are grounded.  Nothing else reads the relation, so nothing changes but its
instances nobody asks for.  The relations read from outside the rules
(``legal``, ``next``, ``goal``, ``terminal``, ``init``) are never restricted.
"""

from __future__ import annotations

from ggp.gdl.syntax.strata import INPUT_RELATIONS, Clause, body_sentences
from ggp.gdl.syntax.terms import Term, arguments, is_ground, relation

READ_OUTSIDE = frozenset({"legal", "next", "goal", "terminal", "init", "role", "base", "input"})


def restrict_to_demand(clauses: list[Clause]) -> list[Clause]:
    """The clauses, with the rules of each relation only ever asked with some arguments
    ground restricted to those (see the module docstring)."""
    defined = {relation(clause.head) for clause in clauses if clause.body}
    asked: dict[str, list[tuple[Term, ...]]] = {}
    for clause in clauses:
        for sentence, _ in body_sentences(clause.body):
            asked.setdefault(relation(sentence), []).append(arguments(sentence))
    demands: dict[str, tuple[int, ...]] = {}
    for name, uses in asked.items():
        if name in READ_OUTSIDE or name in INPUT_RELATIONS or name not in defined:
            continue
        arity = len(uses[0])
        if any(len(args) != arity for args in uses):
            continue
        positions = tuple(i for i in range(arity) if all(is_ground(args[i]) for args in uses))
        if positions:
            demands[name] = positions
    if not demands:
        return clauses
    restricted: list[Clause] = []
    for name, positions in demands.items():
        rule = next(clause.rule for clause in clauses if relation(clause.head) == name)
        for args in dict.fromkeys(tuple(args[i] for i in positions) for args in asked[name]):
            restricted.append(Clause((f"demand {name}", *args), (), rule))
    for clause in clauses:
        positions = demands.get(relation(clause.head))
        if positions is None or not clause.body:
            restricted.append(clause)
            continue
        head_args = arguments(clause.head)
        demand = (f"demand {relation(clause.head)}", *(head_args[i] for i in positions))
        restricted.append(Clause(clause.head, (demand, *clause.body), clause.rule))
    return restricted
