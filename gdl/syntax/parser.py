"""Reading KIF text into terms and rules (see `ggp.gdl.syntax.terms` for the data).

The lark grammar (``grammar.lark``) reads s-expressions; this module then
gives them their GDL meaning: top-level expressions are facts or
``(<= head body...)`` rules, body literals may be ``not``, ``or`` and
``distinct``.  GDL keywords are recognised in any case and stored lower-cased
where they name a relation or connective; every other symbol keeps its case.
Errors name the line and column and say what was expected.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from ggp.gdl.syntax.errors import GdlSyntaxError
from ggp.gdl.syntax.terms import KEYWORDS, Rule, Term
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

SExpr = str | tuple
"""An s-expression: a symbol or a tuple of s-expressions (any first element)."""

_EXPECTED = {
    "LPAR": "'('",
    "RPAR": "')'",
    "SYMBOL": "a symbol",
    "VARIABLE": "a variable",
    "$END": "the end of the text",
}


MAX_DEPTH = 100
"""Deepest nesting of lists accepted (games nest a few levels; this guards the stack)."""

_PARENTHESIS_OR_COMMENT = re.compile(r"[()]|;[^\n]*")


def _check_depth(text: str) -> None:
    """Refuse lists nested more than `MAX_DEPTH` deep before lark reads the text.

    Lark would first push every '(' on its stack: a 990 KB message of '('
    cost it 6 CPU seconds and 500 MB.  This scan stops at the first '(' too
    deep.
    """
    depth = 0
    for match in _PARENTHESIS_OR_COMMENT.finditer(text):
        char = match.group()
        if char == "(":
            depth += 1
            if depth > MAX_DEPTH:
                position = match.start()
                line = text.count("\n", 0, position) + 1
                column = position - text.rfind("\n", 0, position)
                raise GdlSyntaxError(f"lists nested more than {MAX_DEPTH} deep", line, column)
        elif char == ")":
            depth = max(depth - 1, 0)  # an unmatched ')' is lark's error to report


class _List:
    """A parenthesised list as read, with where its '(' is (for messages)."""

    __slots__ = ("items", "line", "column")

    def __init__(self, items: list, line: int, column: int) -> None:
        self.items = items
        self.line = line
        self.column = column


class _Reader(Transformer):
    """Builds `_List` objects while parsing; symbols stay lark Tokens (positions)."""

    @v_args(inline=False)
    def list(self, children: list) -> _List:
        opening = children[0]
        return _List(children[1:-1], opening.line, opening.column)

    @v_args(inline=False)
    def start(self, children: list) -> list:
        return children


@cache
def _lark() -> Lark:
    grammar = (Path(__file__).parent / "grammar.lark").read_text()
    return Lark(grammar, parser="lalr", transformer=_Reader())


def _read(text: str) -> list:
    """The top-level expressions of `text` as Tokens and `_List`s."""
    _check_depth(text)
    try:
        return _lark().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(text, error) from None


def _syntax_error(text: str, error: UnexpectedInput) -> GdlSyntaxError:
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        hint = "; a variable is ? followed by a name, like ?x" if char == "?" else ""
        what = f"character {char!r}"
        if char == "\ufffd":  # what reading the file made of bytes that are not UTF-8
            what, hint = "bytes that are not UTF-8 text", "; is this a GDL file?"
        elif char and (ord(char) < 32 or ord(char) == 127):
            what, hint = f"control character {char!r}", "; is this a GDL file?"
        return GdlSyntaxError(f"unexpected {what}{hint}", error.line, error.column)
    at_end = isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    )
    if at_end:
        line, column = _unclosed_parenthesis(text)
        return GdlSyntaxError(
            f"the text ends inside a list: the '(' at line {line}, column {column} "
            "is never closed; expected ')'",
            *_end_position(text),
        )
    assert isinstance(error, UnexpectedToken)
    expected = sorted(_EXPECTED.get(name, name) for name in error.expected)
    if error.token.type == "RPAR":
        what = "unexpected ')': there is no open '(' to close"
    else:
        what = f"unexpected {error.token!r}"
    return GdlSyntaxError(f"{what}; expected {' or '.join(expected)}", error.line, error.column)


def _unclosed_parenthesis(text: str) -> tuple[int, int]:
    """Line and column of the first '(' that is never closed."""
    opened: list[Token] = []
    for token in _lark().lex(text, dont_ignore=False):
        if token.type == "LPAR":
            opened.append(token)
        elif token.type == "RPAR" and opened:
            opened.pop()
    return (opened[0].line, opened[0].column) if opened else (1, 1)


def _end_position(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


# ---------------------------------------------------------------- s-expressions


def _plain(expr: Token | _List) -> SExpr:
    if isinstance(expr, _List):
        return tuple(_plain(item) for item in expr.items)
    return sys.intern(str(expr))


def parse_sexprs(text: str) -> list[SExpr]:
    """Every top-level s-expression of `text`, as symbols and tuples.

    No GDL meaning is given and no case is changed; this reads protocol
    messages such as ``(play match-1 ((mark 1 2) noop))``.
    """
    return [_plain(expr) for expr in _read(text)]


def parse_terms(text: str) -> list[Term]:
    """Every top-level expression of `text` as a GDL term (symbols keep their case)."""
    return [_term(expr) for expr in _read(text)]


def parse_term(text: str) -> Term:
    """The one term written in `text`: ``(mark 1 2)``, ``noop``."""
    terms = parse_terms(text)
    if len(terms) != 1:
        raise GdlSyntaxError(f"expected one term, found {len(terms)} in {text!r}")
    return terms[0]


def _term(expr: Token | _List) -> Term:
    if not isinstance(expr, _List):
        return sys.intern(str(expr))
    if not expr.items:
        raise GdlSyntaxError(
            "an empty list '()' is not a term; a term is a symbol, a variable or (function arg...)",
            expr.line,
            expr.column,
        )
    functor = expr.items[0]
    if isinstance(functor, _List) or functor.type != "SYMBOL":
        raise _bad_functor(functor, "a function term")
    return (sys.intern(str(functor)), *(_term(item) for item in expr.items[1:]))


def _bad_functor(functor: Token | _List, what: str) -> GdlSyntaxError:
    if isinstance(functor, _List):
        return GdlSyntaxError(
            f"{what} must start with a name, not with a list", functor.line, functor.column
        )
    return GdlSyntaxError(
        f"{what} must start with a name, not with the variable {functor}",
        functor.line,
        functor.column,
    )


# ---------------------------------------------------------------- rules


def _keyword(token: Token) -> str:
    """The symbol, lower-cased if it is a GDL keyword in another case."""
    text = str(token)
    lower = text.lower()
    return sys.intern(lower if lower in KEYWORDS else text)


def _sentence(expr: Token | _List, what: str) -> Term:
    """A sentence: ``terminal`` or ``(cell 1 1 b)``; ``(p)`` is read as ``p``."""
    if not isinstance(expr, _List):
        if expr.type == "VARIABLE":
            raise GdlSyntaxError(
                f"{what} must be a sentence, not the variable {expr}", expr.line, expr.column
            )
        return _keyword(expr)
    if not expr.items:
        raise GdlSyntaxError(
            f"{what} must be a sentence, not an empty list '()'", expr.line, expr.column
        )
    functor = expr.items[0]
    if isinstance(functor, _List) or functor.type != "SYMBOL":
        raise _bad_functor(functor, f"{what} (a sentence)")
    name = _keyword(functor)
    if name in ("<=", "not", "or", "distinct"):
        raise GdlSyntaxError(
            f"{what} must be a sentence, not {name!r} (rules cannot be nested, and "
            "not, or and distinct belong in rule bodies)",
            functor.line,
            functor.column,
        )
    if len(expr.items) == 1:
        return name
    return (name, *(_term(item) for item in expr.items[1:]))


def _literal(expr: Token | _List) -> Term:
    if isinstance(expr, _List) and expr.items and not isinstance(expr.items[0], _List):
        functor = expr.items[0]
        name = _keyword(functor) if functor.type == "SYMBOL" else ""
        args = expr.items[1:]
        if name == "not":
            if len(args) != 1:
                raise GdlSyntaxError(
                    f"(not ...) takes one sentence, found {len(args)}", expr.line, expr.column
                )
            return ("not", _sentence(args[0], "the argument of not"))
        if name == "distinct":
            if len(args) != 2:
                raise GdlSyntaxError(
                    f"(distinct ...) takes two terms, found {len(args)}", expr.line, expr.column
                )
            return ("distinct", _term(args[0]), _term(args[1]))
        if name == "or":
            if not args:
                raise GdlSyntaxError("(or ...) needs at least one literal", expr.line, expr.column)
            return ("or", *(_literal(arg) for arg in args))
    return _sentence(expr, "a literal in a rule body")


def _rule(expr: Token | _List) -> Rule:
    line = expr.line
    if (
        isinstance(expr, _List)
        and expr.items
        and not isinstance(expr.items[0], _List)
        and str(expr.items[0]) == "<="
    ):
        if len(expr.items) < 2:
            raise GdlSyntaxError("a rule (<= head body...) needs a head", line, expr.column)
        head = _sentence(expr.items[1], "the head of a rule")
        return Rule(head, tuple(_literal(item) for item in expr.items[2:]), line)
    return Rule(_sentence(expr, "a fact"), (), line)


def parse_rules(text: str, source: str = "") -> list[Rule]:
    """The rules and facts of a game description, in order.

    `source` (a file name) prefixes error messages.  Raises `GdlSyntaxError`.
    """
    try:
        return [_rule(expr) for expr in _read(text)]
    except GdlSyntaxError as error:
        raise error.in_source(source) if source else error from None
