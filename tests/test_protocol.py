"""Reading GGP messages and writing replies (`ggp.player.service.protocol`)."""

from __future__ import annotations

import pytest
from ggp.gdl.syntax.parser import parse_rules
from ggp.player.service.protocol import (
    READ_AT_ONCE,
    Abort,
    Info,
    Play,
    Preview,
    ProtocolError,
    Start,
    Stop,
    check_name,
    error_reply,
    info_reply,
    parse_message,
    read_message,
)


@pytest.mark.parametrize("text", ["(info)", "( INFO )", "( Info )", "\n(iNfO)\r\n"])
def test_info_in_any_case_and_spacing(text: str) -> None:
    assert parse_message(text) == Info()


def test_start_as_ggp_base_sends_it() -> None:
    text = "( START m.1 xplayer (( role xplayer ) ( <= ( legal ?w noop ) ( ROLE ?w ) )) 5 2)"
    message = parse_message(text)
    assert isinstance(message, Start)
    assert (message.match_id, message.role) == ("m.1", "xplayer")
    assert (message.start_clock, message.play_clock) == (5.0, 2.0)
    assert message.rules == "(role xplayer)\n(<= (legal ?w noop) (ROLE ?w))\n"
    rules = parse_rules(message.rules)
    assert [str(rule) for rule in rules] == ["(role xplayer)", "(<= (legal ?w noop) (role ?w))"]


def test_play_moves_are_terms_whitespace_insensitive_and_case_kept() -> None:
    assert parse_message("( PLAY m.1 (( mark  1 1 ) NoOp ) )") == Play(
        "m.1", ("(mark 1 1)", "NoOp")
    )
    assert parse_message("(play m.1 ((move (pos a 1)) noop))").moves == (
        "(move (pos a 1))",
        "noop",
    )


@pytest.mark.parametrize("nil", ["nil", "NIL", "Nil", "()"])
def test_nil_in_any_case_means_no_moves(nil: str) -> None:
    assert parse_message(f"(play m.1 {nil})") == Play("m.1", None)
    assert parse_message(f"( STOP m.1 {nil} )") == Stop("m.1", None)


def test_abort_and_preview() -> None:
    assert parse_message("( ABORT m.7 )") == Abort("m.7")
    assert parse_message("(preview ((role a) (init p)) 30)") == Preview("(role a)\n(init p)\n", 30)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty message"),
        ("   ", "empty message"),
        ("(play m.1 nil", "well-formed"),
        ("(info) (info)", "one list"),
        ("info", "a list starting with its type"),
        ("((info))", "a list starting with its type"),
        ("( FOO )", "unknown message type 'FOO'"),
        ("(info extra)", "expected (info)"),
        ("(start m.1 xplayer ((role xplayer)) 5)", "got 4 arguments"),
        ("(start m.1 xplayer ((role xplayer)) 5 soon)", "the play clock must be a number"),
        ("(start m.1 xplayer ((role xplayer)) 5 -2)", "the play clock must be a number"),
        ("(start m.1 xplayer role 5 2)", "the rules must be a list"),
        ("(start (m 1) xplayer ((role xplayer)) 5 2)", "the match id must be a symbol"),
        ("(start m.1 ?r ((role xplayer)) 5 2)", "the role must be a symbol"),
        ("(play m.1 noop)", "nil or a list of moves"),
        ("(play m.1 (?x noop))", "cannot be a variable"),
        ("(play m.1 ((mark ?x 1) noop))", "cannot be a variable"),
        ("(play m.1 (() noop))", "a move is a symbol or (name arg...)"),
        ("(play m.1 (((mark) 1) noop))", "a move is a symbol or (name arg...)"),
        ("(abort)", "expected (abort MATCHID)"),
    ],
)
def test_bad_messages_are_refused_with_a_reason(text: str, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message(text)
    assert words in str(caught.value)


def test_a_long_bad_message_is_quoted_shortened() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_message("(play m.1 " + "x" * 500 + ")")
    assert len(str(caught.value)) < 300


def test_replies() -> None:
    assert info_reply("bot", busy=False) == "((name bot) (status available))"
    assert info_reply("bot", busy=True) == "((name bot) (status busy))"
    assert (
        error_reply('no match "m.9"\nknown: \\ none') == "(error \"no match 'm.9' known: / none\")"
    )


@pytest.mark.parametrize("name", ["ggp-player", "Bot_2"])
def test_player_names_are_single_symbols(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["", "my bot", "a(b", '"x"', "?x", "a;b"])
def test_bad_player_names(name: str) -> None:
    with pytest.raises(ValueError, match="one word"):
        check_name(name)


def test_short_messages_are_read_whole() -> None:
    assert read_message("( PLAY m.1 nil )") == Play("m.1", None)
    with pytest.raises(ProtocolError, match="not a well-formed message"):
        read_message("(play m.1 nil")


def test_a_long_start_is_looked_at_and_its_rules_left_to_the_child() -> None:
    rules = "(role xplayer) " * (READ_AT_ONCE // 10)
    message = read_message(f"\n( START  m.2 xplayer ( {rules}) 100 20 )\n")
    assert message == Start("m.2", "xplayer", f" {rules}", 100.0, 20.0)
    assert read_message(f"(preview ({rules}) 30)") == Preview("", 30.0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(" * 990_000, "a message of 990000 characters must be a start or a preview"),
        ("(play m.1 (" + "a " * READ_AT_ONCE + "))", "must be a start or a preview"),
        ("(start m.1 xplayer (" + "(" * READ_AT_ONCE + ")", "malformed start message"),
        ("(start ?m xplayer (" + " " * READ_AT_ONCE + ") 1 1)", "the match id must be a symbol"),
        ("(preview (" + " " * READ_AT_ONCE + ") x)", "malformed preview message"),
    ],
)
def test_long_messages_that_are_not_a_start_are_refused(text: str, words: str) -> None:
    with pytest.raises(ProtocolError, match=words.replace("?", "\\?")):
        read_message(text)
