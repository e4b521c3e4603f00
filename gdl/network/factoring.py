"""Rules of a move factored by what the move touches: each role does one move a step.

A frame rule such as checkers'

    (<= (next (cell ?x ?y ?p))
        (does ?player (move ?piece ?x1 ?y1 ?x2 ?y2))
        (true (cell ?x ?y ?p))
        (different_cells ?x ?y ?x1 ?y1)
        (different_cells ?x ?y ?x2 ?y2))

grounds once for every move and every cell the move leaves alone: moves
times cells (343,728 ground rules in brawl).  Each role does exactly one move
a step, so for a given role (and given values of the move's variables shared
with the head) at most one instance of the ``does`` literal holds, and "a
move of this kind is done and passes the conditions on the cell" is "a move
of this kind is done, and no move of this kind that fails a condition on the
cell is done".  The rule becomes

    (<= (next (cell ?x ?y ?p)) (true (cell ?x ?y ?p))
        (kind ?player) (not (touched ?player ?x ?y)))
    (<= (kind ?player) (does ?player (move ?piece ?x1 ?y1 ?x2 ?y2)))
    (<= (touched ?player ?x ?y) (does ?player (move ?piece ?x1 ?y1 ?x2 ?y2))
        (complement ?x ?y ?x1 ?y1))     ; and one for ?x2 ?y2

whose ground rules number moves plus the cells each move touches, plus
cells.  Proof: let m be the role's move.  The rule body holds iff m is of
the kind and passes the conditions C; ``kind`` holds iff m is of the kind;
``touched`` iff m is of the kind and fails C; so ``kind`` and not
``touched`` iff m is of the kind and passes C.  Only "at most one move per
role" is used, which holds for every joint move (and for none).

Which literals are conditions: besides the ``does`` literal D, the literals
sharing a variable of D that is neither in the head nor D's role (the
move's own variables).  The conditions that also have a variable outside D
(the *cell* variables) are negated one by one: ``(not S)`` becomes ``S``,
``(distinct ?a ?b)`` makes the two variables equal, a static sentence S
becomes membership in its complement, computed over the cell values the
rest of the rule can give times the move values (a static relation of the
relaxed model).  The other conditions only restrict the move and stay with
D.  A rule is factored only when every such condition is one of these, and
its cell variables are bound by the rest of the rule.  Names of the new
relations contain a space: no GDL symbol does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ggp.gdl.syntax.strata import STATIC, Clause
from ggp.gdl.syntax.terms import Term, is_variable, relation, variables

DENSE = 0.5
"""A complement holding for more than this share of its (cell, move) pairs means a
condition true for few cells (a neighbour, not "another cell"): the rule's own
ground rules are then fewer than the factored ones, and it is kept."""


@dataclass
class Factoring:
    """A clause rewritten by `factor`, and what the relaxed model must compute for it."""

    original: Clause
    clauses: list[Clause]
    """What replaces the clause when it is grounded: the rule itself, ``kind``, ``touched``."""
    relaxed: list[Clause]
    """What the relaxed model computes besides the original clause: ``kind``, ``touched``
    and the complements with their domains."""
    complements: list[tuple[str, str, str]] = field(default_factory=list)
    """(complement, cell domain, move domain) relation names, to tell their density."""

    def relations(self) -> set[str]:
        """The relations `relaxed` defines."""
        return {relation(clause.head) for clause in self.relaxed}

    def worthwhile(self, size: Callable[[str], int]) -> bool:
        """Whether no complement is dense (`DENSE`), given each relation's fact count."""
        return all(
            size(complement) <= DENSE * size(cells) * size(moves)
            for complement, cells, moves in self.complements
        )


def _atom(name: str, args: list[str]) -> Term:
    return (name, *args) if args else name


def _positive(literal: Term) -> bool:
    return not (type(literal) is tuple and literal[0] in ("not", "distinct"))


def factor(clause: Clause, phase: dict[str, int], prefix: str) -> Factoring | None:
    """The clause factored by its first ``does`` literal that allows it, or None.

    New relations are named `prefix` and a word (`prefix` must contain a space).
    """
    if phase.get(relation(clause.head), STATIC) == STATIC:
        return None
    for index, literal in enumerate(clause.body):
        if type(literal) is tuple and literal[0] == "does" and len(literal) == 3:
            found = _factor_on(clause, index, phase, prefix)
            if found is not None:
                # Another role's move in the same rule (simultaneous moves): factored too.
                further = factor(found.clauses[0], phase, f"{prefix} {index}")
                if further is not None:
                    found.clauses[:1] = further.clauses
                    found.relaxed += further.relaxed
                    found.complements += further.complements
                return found
    return None


def _factor_on(clause: Clause, index: int, phase: dict[str, int], prefix: str) -> Factoring | None:
    does = clause.body[index]
    role = does[1]
    if type(role) is not str:
        return None
    head_vars = set(variables(clause.head))
    does_vars = set(variables(does))
    shared = sorted(does_vars & (head_vars | {role}))
    own = does_vars - set(shared)
    rest = [lit for i, lit in enumerate(clause.body) if i != index]
    conditions = [lit for lit in rest if own & set(variables(lit))]
    others = [lit for lit in rest if not own & set(variables(lit))]
    cells = {v for lit in conditions for v in variables(lit)} - does_vars
    bound = {v for lit in others if _positive(lit) for v in variables(lit)}
    if not cells or not cells <= bound:
        return None
    on_move = [lit for lit in conditions if not cells & set(variables(lit))]
    on_cells = [lit for lit in conditions if cells & set(variables(lit))]
    domain_body = tuple(lit for lit in others if _positive(lit))
    kind = Clause(_atom(f"{prefix} kind", shared), (does, *on_move), clause.rule)
    touched: dict[tuple[str, ...], Term] = {}
    touching: list[Clause] = []
    factoring = Factoring(clause, [], [])
    for number, condition in enumerate(on_cells):
        cell_vars = sorted(cells & set(variables(condition)))
        head = touched.setdefault(
            tuple(cell_vars), _atom(f"{prefix} touched {len(touched)}", [*shared, *cell_vars])
        )
        negation = _negation(condition, cell_vars, phase)
        if negation is None:
            return None
        if negation == "complement":
            move_vars = sorted(set(variables(condition)) - cells)
            name = f"{prefix} complement {number}"
            cell_domain = _atom(f"{prefix} cells {number}", cell_vars)
            move_domain = _atom(f"{prefix} moves {number}", move_vars)
            complement = _atom(name, [*cell_vars, *move_vars])
            factoring.relaxed += [
                Clause(cell_domain, domain_body, clause.rule),
                Clause(move_domain, (does,), clause.rule),
                Clause(complement, (cell_domain, move_domain, ("not", condition)), clause.rule),
            ]
            factoring.complements.append((name, relation(cell_domain), relation(move_domain)))
            body: tuple[Term, ...] = (does, *on_move, complement)
        elif type(negation) is dict:  # (distinct ?a ?b): the cell variable is the move's
            head = _substitute(head, negation)
            body = (does, *on_move)
        else:
            body = (does, *on_move, negation)
        touching.append(Clause(head, body, clause.rule))
    rule = Clause(
        clause.head,
        (*others, kind.head, *(("not", head) for head in touched.values())),
        clause.rule,
    )
    factoring.clauses = [rule, kind, *touching]
    factoring.relaxed += [kind, *touching]
    return factoring


def _negation(
    condition: Term, cell_vars: list[str], phase: dict[str, int]
) -> Term | dict[str, str] | str | None:
    """How a condition on the cells is negated: a sentence, a substitution making a
    ``distinct`` pair equal, ``"complement"`` for a static sentence, or None (not factored)."""
    if type(condition) is tuple and condition[0] == "not":
        return condition[1]
    if type(condition) is tuple and condition[0] == "distinct":
        a, b = condition[1], condition[2]
        if not (is_variable(a) and is_variable(b)):
            return None
        return {a: b} if a in cell_vars else {b: a}
    if phase.get(relation(condition), STATIC) == STATIC:
        return "complement"
    return None


def _substitute(term: Term, mapping: dict[str, str]) -> Term:
    if type(term) is str:
        return mapping.get(term, term)
    return tuple(_substitute(part, mapping) for part in term)
