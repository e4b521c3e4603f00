"""When replies are due (`player.session.reply_deadline`), and the session's own game."""

from __future__ import annotations

import time

import pytest
from gdl_texts import TICTACTOE

from gdl.load import game_from_text as load_gdl
from player import game_factory
from player.protocol import NIL
from player.session import Session, reply_deadline


def test_the_deadline_is_arrival_plus_clock_minus_margin() -> None:
    assert reply_deadline(100.0, 2.0, 0.5) == pytest.approx(101.5)
    assert reply_deadline(100.0, 30.0, 0.5) == pytest.approx(129.5)


def test_a_margin_larger_than_the_clock_leaves_a_tenth_of_it() -> None:
    assert reply_deadline(100.0, 1.0, 0.95) == pytest.approx(100.1)
    assert reply_deadline(100.0, 2.0, 5.0) == pytest.approx(100.2)


@pytest.mark.asyncio
async def test_moves_are_answered_while_the_rules_are_still_being_compiled(monkeypatch) -> None:
    """The session's own copy of the game (moves checked, fallback moves) is
    interpreted, so a slow compilation cannot leave a `play` without a move."""
    loaded = []

    def slow_unless_interpreted(text: str, name: str, source: str, reasoner: str) -> object:
        loaded.append(reasoner)
        if reasoner != "interpreter":
            time.sleep(5)  # a compilation that outlasts the clocks
        return load_gdl(text, name, source, reasoner=reasoner)

    monkeypatch.setattr(game_factory, "load_gdl", slow_unless_interpreted)
    session = Session("m", "xplayer", 1.0, iterations=20)
    try:
        await session.prepare(TICTACTOE, time.monotonic() + 1.0)
        choice = await session.play(None, time.monotonic() + 1.0)
    finally:
        await session.close()
    assert loaded == ["interpreter"]
    assert choice.move != NIL
    assert choice.move.startswith("(mark ")
