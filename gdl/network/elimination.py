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
grounding (`gdl.network.grounding`): how many ground rules the bucket has
per instance of its interface.  Names of the new relations contain a space:
no GDL symbol does.
"""

from __future__ import annotations

from dataclasses import dataclass

from gdl.syntax.strata import STATIC, Clause, body_sentences
from gdl.syntax.terms import Term, relation, variables


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


def phase_of_bucket(bucket: Bucket, phase: dict[str, int]) -> int:
    """The phase of a bucket's relation: the latest of its literals'."""
    return max(phase.get(relation(s), STATIC) for s, _ in body_sentences(bucket.clause.body))


def _positive(literal: Term) -> bool:
    return not (type(literal) is tuple and literal[0] in ("not", "distinct"))
