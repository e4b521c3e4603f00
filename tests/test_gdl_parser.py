"""Reading KIF/GDL text: terms, rules, keywords, case, and syntax errors."""

from __future__ import annotations

import pytest
from ggp.gdl.syntax.errors import GdlSyntaxError
from ggp.gdl.syntax.parser import parse_rules, parse_sexprs, parse_term, parse_terms
from ggp.gdl.syntax.terms import Rule, is_ground, is_variable, rules_text, to_kif, variables


def test_facts_rules_comments_and_literals() -> None:
    rules = parse_rules(
        """
        ; a comment (with parentheses) on its own line
        (role xplayer)   ; and after a fact
        (<= (legal ?p (mark ?x ?y))
            (true (control ?p))
            (or (not (true (cell ?x ?y x))) (distinct ?x 3)))
        (<= terminal (not open))
        """
    )
    assert rules == [
        Rule(("role", "xplayer"), (), 3),
        Rule(
            ("legal", "?p", ("mark", "?x", "?y")),
            (
                ("true", ("control", "?p")),
                ("or", ("not", ("true", ("cell", "?x", "?y", "x"))), ("distinct", "?x", "3")),
            ),
            4,
        ),
        Rule("terminal", (("not", "open"),), 7),
    ]


def test_keywords_in_any_case_other_symbols_keep_theirs() -> None:
    (rule,) = parse_rules("(<= (LEGAL ?P (Place Red)) (True (Control ?P)) (NOT (Or1 a B)))")
    assert rule.head == ("legal", "?P", ("Place", "Red"))
    assert rule.body == (("true", ("Control", "?P")), ("not", ("Or1", "a", "B")))


def test_symbols_with_the_characters_public_games_use() -> None:
    (rule,) = parse_rules("(<= (a-b_c+1 <x> ?y-2) (=> 10 -3 ?y-2))")
    assert rule.head == ("a-b_c+1", "<x>", "?y-2")
    assert rule.body == (("=>", "10", "-3", "?y-2"),)


def test_zero_argument_function_differs_from_constant_but_sentence_is_a_proposition() -> None:
    (rule,) = parse_rules("(<= (next (lock)) (foo))")
    assert rule.head == ("next", ("lock",))
    assert rule.body == ("foo",)
    assert to_kif(rule.head) == "(next (lock))"


def test_canonical_printing_round_trips() -> None:
    text = "(<= (legal ?p (move ?x1 ?y1)) (true (cell ?x1 ?y1 ?p)) (distinct ?x1 1))"
    rules = parse_rules(
        "  (<=  (legal ?p  (move ?x1 ?y1))\n (true (cell ?x1 ?y1 ?p))(distinct ?x1 1) )"
    )
    assert rules_text(rules) == text + "\n"
    assert parse_rules(rules_text(rules))[0].body == rules[0].body


def test_terms_and_sexprs() -> None:
    assert parse_term(" ( mark 1  2 ) ") == ("mark", "1", "2")
    assert parse_term("noop") == "noop"
    assert parse_terms("a (f ?x) ?y") == ["a", ("f", "?x"), "?y"]
    assert parse_sexprs("(play m1 ((mark 1 2) noop))") == [
        ("play", "m1", (("mark", "1", "2"), "noop"))
    ]
    assert parse_sexprs("(START id) (PLAY)") == [("START", "id"), ("PLAY",)]
    with pytest.raises(GdlSyntaxError, match="expected one term, found 2"):
        parse_term("a b")


def test_term_helpers() -> None:
    term = ("f", "?x", ("g", "a", "?y", "?x"))
    assert list(variables(term)) == ["?x", "?y", "?x"]
    assert not is_ground(term) and is_ground(("g", "a"))
    assert is_variable("?x") and not is_variable("x") and not is_variable(("?x",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "(role a))",
            "line 1, column 9: unexpected ')': there is no open '(' to close",
        ),
        (
            "(role a)\n(init (cell 1\n",
            "line 3, column 1: the text ends inside a list: the '(' at line 2, column 1 "
            "is never closed; expected ')'",
        ),
        ("(role ? a)", "line 1, column 7: unexpected character '?'; a variable is ? followed"),
        (
            "\x00\x01junk (role a)",
            "line 1, column 1: unexpected control character '\\x00'; is this a GDL file?",
        ),
        (
            "(role a) (p \ufffd\ufffd)",
            "line 1, column 13: unexpected bytes that are not UTF-8 text; is this a GDL file?",
        ),
        ("?x", "line 1, column 1: a fact must be a sentence, not the variable ?x"),
        ("()", "line 1, column 1: a fact must be a sentence, not an empty list"),
        ("(?r a)", "line 1, column 2: a fact (a sentence) must start with a name, not with "),
        ("(<= )", "line 1, column 1: a rule (<= head body...) needs a head"),
        ("(<= (p) (not a b))", "line 1, column 9: (not ...) takes one sentence, found 2"),
        ("(<= (p) (distinct a))", "line 1, column 9: (distinct ...) takes two terms, found 1"),
        ("(<= (p) (or))", "line 1, column 9: (or ...) needs at least one literal"),
        ("(<= (not p) q)", "line 1, column 6: the head of a rule must be a sentence, not 'not'"),
        ("(<= p (q ((a) b)))", "line 1, column 11: a function term must start with a name"),
        ("(<= p (<= q r))", "line 1, column 8: a literal in a rule body must be a sentence"),
    ],
)
def test_syntax_errors_say_where_and_what(text: str, message: str) -> None:
    with pytest.raises(GdlSyntaxError) as error:
        parse_rules(text, "game.kif")
    assert str(error.value).startswith(f"game.kif: {message}")


def test_unexpected_token_lists_what_was_expected() -> None:
    with pytest.raises(GdlSyntaxError) as error:
        parse_rules("(role a)\n  )")
    assert error.value.line == 2 and error.value.column == 3
    assert "expected '(' or a symbol or a variable or the end of the text" in str(error.value)


def test_absurd_nesting_is_a_syntax_error_not_a_crash() -> None:
    assert parse_term("(f " * 99 + ")" * 99)[0] == "f"
    with pytest.raises(GdlSyntaxError, match="lists nested more than 100 deep"):
        parse_rules("(role a)\n" + "(f " * 5000 + ")" * 5000)
