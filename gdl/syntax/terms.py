"""The data structures of GDL: terms, sentences, literals and rules.

They are plain Python values so that every part of the player (reasoner,
grounder, HTTP player) can share them without wrappers:

- a **symbol** is a `str`: a constant (``mark``, ``1``, ``placeControl``) or,
  when it starts with ``?``, a variable (``?x``).  Case is kept.  The parser
  interns symbols (`sys.intern`), so equal symbols are usually the same object;
- a **compound term** is a tuple ``(functor, arg, ...)`` whose functor is a
  constant and whose args are terms: ``(mark 1 2)`` is ``("mark", "1", "2")``.
  ``(f)``, a function of no arguments, is ``("f",)``, distinct from ``f``;
- a **sentence** (an atom) is a symbol (a proposition such as ``terminal``)
  or a compound whose functor is the relation name: ``("cell", "1", "1", "b")``.
  Relation names that are GDL keywords are lower-cased by the parser;
- a **literal** in a rule body is a sentence, ``("not", sentence)``,
  ``("distinct", term, term)`` or ``("or", literal, ...)``;
- a `Rule` is a head sentence, a body of literals and the line it starts on.
  A fact is a rule with an empty body.

`to_kif` is the one canonical printer: single spaces, no space after ``(``
or before ``)``, symbols exactly as spelled.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

Term = str | tuple["Term", ...]
"""A symbol, or a tuple (functor, *args) of terms."""

KEYWORDS = frozenset(
    {
        "role",
        "init",
        "true",
        "next",
        "legal",
        "does",
        "goal",
        "terminal",
        "distinct",
        "not",
        "or",
        "base",
        "input",
        "sees",
        "<=",
    }
)
"""The symbols GDL gives a meaning to; the parser reads them case-insensitively."""


def is_variable(term: Term) -> bool:
    """Whether `term` is a variable (``?x``)."""
    return type(term) is str and term[:1] == "?"


def to_kif(term: Term) -> str:
    """The canonical KIF text of a term, sentence or literal: ``(mark 1 2)``."""
    if type(term) is str:
        return term
    return "(" + " ".join(map(to_kif, term)) + ")"


def variables(term: Term) -> Iterator[str]:
    """The variables in `term`, left to right, repeats included."""
    if type(term) is str:
        if term[:1] == "?":
            yield term
    else:
        for part in term:
            yield from variables(part)


def is_ground(term: Term) -> bool:
    """Whether `term` has no variables."""
    return next(variables(term), None) is None


def relation(sentence: Term) -> str:
    """The relation name of a sentence: ``cell`` for ``(cell 1 1 b)``."""
    return sentence if type(sentence) is str else sentence[0]


def arguments(sentence: Term) -> tuple[Term, ...]:
    """The arguments of a sentence: ``()`` for a proposition."""
    return () if type(sentence) is str else sentence[1:]


@dataclass(frozen=True)
class Rule:
    """``(<= head body...)``, or a fact when `body` is empty.

    `line` is where the rule starts in the game description (0 if unknown).
    """

    head: Term
    body: tuple[Term, ...] = ()
    line: int = 0

    def __str__(self) -> str:
        if not self.body:
            return to_kif(self.head)
        return "(<= " + " ".join(to_kif(part) for part in (self.head, *self.body)) + ")"

    def located(self) -> str:
        """The rule with its line, for error messages (long rules shortened)."""
        text = str(self)
        if len(text) > 120:
            text = text[:117] + "..."
        return f"line {self.line}: {text}" if self.line else text


def rules_text(rules: tuple[Rule, ...] | list[Rule]) -> str:
    """The canonical text of a game description: one rule per line, in order."""
    return "".join(f"{rule}\n" for rule in rules)
