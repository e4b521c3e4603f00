"""Variables of a large rule eliminated a group of literals at a time.

In alexChess's

    (<= (check ?piece ?king jump) ... (true (piece ?piece ?px ?py))
        (true (piece ?king ?kx ?ky)) (knightMove ?px ?py ?kx ?ky))

the ground rules number pieces times kings times squares times knight
moves, but ``?px ?py`` only matter through ``?piece ?kx ?ky``: the literals
holding them become a relation ``(e ?piece ?kx ?ky)`` with a rule of its own,
and the ground rules number pieces times squares times knight moves plus
pieces times kings times squares.  This is bucket (variable) elimination,
as in answer-set grounders: for a variable not in the head, its *bucket* is
the literals it occurs in; the variables found only there go with it, and
the others (the *interface*) are the new relation's arguments.

A bucket is a candidate when it has a literal that depends on the state or
the moves, its variables are bound by its positive literals (so that its
rule is safe), and the rest of the rule has a variable outside its
interface (else nothing is multiplied).  Whether it pays is measured by the
grounding (`ggp.gdl.network.grounding`): how many ground rules the bucket has
per instance of its interface.  Names of the new relations contain a space:
no GDL symbol does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.gdl.syntax.strata import STATIC, Clause, body_sentences
from ggp.gdl.syntax.terms import Term, relation, variables


@dataclass(frozen=True)
class Bucket:
    """Literals of a rule (indexes into its body) and the rule defining their projection."""

    members: frozenset[int]
    clause: Clause


def buckets(clause: Clause, phase: dict[str, int], prefix: str) -> list[Bucket]:
    """The candidate buckets of a rule, one per set of literals, named `prefix` and a number."""
    head = set(variables(clause.head))
    body = clause.body
    occurs: dict[str, set[int]] = {}
    for i, literal in enumerate(body):
        for var in variables(literal):
            occurs.setdefault(var, set()).add(i)
    found: list[Bucket] = []
    seen: set[frozenset[int]] = set()
    for var in sorted(occurs):
        members = frozenset(occurs[var])
        if var in head or members in seen:
            continue
        seen.add(members)
        inside = {u for i in members for u in variables(body[i])}
        interface = sorted(u for u in inside if u in head or not occurs[u] <= members)
        outside = head.union(*(variables(body[i]) for i in range(len(body)) if i not in members))
        literals = tuple(body[i] for i in sorted(members))
        bound = {u for literal in literals if _positive(literal) for u in variables(literal)}
        changing = any(
            phase.get(relation(sentence), STATIC) != STATIC
            for sentence, positive in body_sentences(literals)
            if positive
        )
        if not outside - set(interface) or not changing or not inside <= bound:
            continue
        name = f"{prefix} {len(found)}"
        head_term = (name, *interface) if interface else name
        found.append(Bucket(members, Clause(head_term, literals, clause.rule)))
    return found


def eliminated(clause: Clause, chosen: list[Bucket]) -> Clause:
    """The rule with each chosen bucket's literals replaced by its relation."""
    members = set().union(*(bucket.members for bucket in chosen))
    kept = tuple(literal for i, literal in enumerate(clause.body) if i not in members)
    return Clause(clause.head, kept + tuple(b.clause.head for b in chosen), clause.rule)


def phase_of_clause(clause: Clause, phase: dict[str, int]) -> int:
    """The phase of a new relation defined by `clause` alone: the latest of its literals'."""
    return max(phase.get(relation(s), STATIC) for s, _ in body_sentences(clause.body))


def _positive(literal: Term) -> bool:
    return not (type(literal) is tuple and literal[0] in ("not", "distinct"))


def split_move(clause: Clause, prefix: str) -> tuple[Clause, list[Clause]] | None:
    """The rule with a ``does`` literal split into the parts of the move other literals use.

    In shogi's ``(<= (next (cell ?x2 ?y2 ?r ?p ?s)) (does ?r (move ?x1 ?y1 ?x2 ?y2))
    (true (cell ?x1 ?y1 ?r ?p ?s)))`` the move's source only matters to the
    ``true`` literal and its destination only to the head.  A role does one
    move a step, so "it moves from ?x1 ?y1 to ?x2 ?y2" is "it moves from ?x1
    ?y1" and "it moves to ?x2 ?y2": the literal becomes ``(from ?r ?x1 ?y1)``
    and ``(to ?r ?x2 ?y2)``, each a relation of its own, and bucket elimination
    can then take the source with the piece it holds apart from the
    destination.  Parts: the move's variables (the role's aside) found in each
    group of other literals linked by variables outside the head, and those
    only in the head.  None if no ``does`` literal has two parts.
    """
    head = set(variables(clause.head))
    body = clause.body
    for index, does in enumerate(body):
        if not (type(does) is tuple and does[0] == "does" and len(does) == 3):
            continue
        role = does[1]
        if type(role) is not str:
            continue
        moved = set(variables(does[2])) - {role}
        others = [literal for i, literal in enumerate(body) if i != index]
        parts = [moved & vars_ for vars_ in _groups(others, head)]
        parts.append({v for v in moved & head if not any(v in part for part in parts)})
        parts = [part for part in parts if part]
        parts = [p for p in parts if not any(p < q for q in parts)]
        parts = list({frozenset(p): p for p in parts}.values())
        if len(parts) < 2:
            continue
        shared = [role] if role[:1] == "?" else []
        defined = []
        for number, part in enumerate(parts):
            args = [*shared, *sorted(part)]
            name = f"{prefix} {number}"
            defined.append(Clause((name, *args), (does,), clause.rule))
        kept = tuple(literal for i, literal in enumerate(body) if i != index)
        return Clause(clause.head, kept + tuple(d.head for d in defined), clause.rule), defined
    return None


def _groups(literals: list[Term], head: set[str]) -> list[set[str]]:
    """The variables of each group of `literals` linked by variables outside `head`."""
    groups: list[set[str]] = []
    for literal in literals:
        found = set(variables(literal))
        linked = [g for g in groups if any(v in g and v not in head for v in found)]
        for group in linked:
            groups.remove(group)
            found |= group
        groups.append(found)
    return groups
