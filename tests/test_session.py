"""When replies are due (`player.session.reply_deadline`)."""

from __future__ import annotations

import pytest

from player.session import reply_deadline


def test_the_deadline_is_arrival_plus_clock_minus_margin() -> None:
    assert reply_deadline(100.0, 2.0, 0.5) == pytest.approx(101.5)
    assert reply_deadline(100.0, 30.0, 0.5) == pytest.approx(129.5)


def test_a_margin_larger_than_the_clock_leaves_a_tenth_of_it() -> None:
    assert reply_deadline(100.0, 1.0, 0.95) == pytest.approx(100.1)
    assert reply_deadline(100.0, 2.0, 5.0) == pytest.approx(100.2)
