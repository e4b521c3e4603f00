"""Every corpus game that compiles within a test budget replays its recorded playouts.

The compiled reasoner must agree with the recordings (made by an independent
reasoner) exactly as the interpreter does (`tests/test_gdl_corpus.py`).  The
budget here counts work, not time, so the same games are compiled on every
machine; it is tighter than the default to keep the suite fast.  Skipped
without ``../shared``.
"""

from __future__ import annotations

import pytest
from ggp.gdl.compiled.compile import compile_rules
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.network.grounding import Budget, GroundingError
from ggp.gdl.traces import read_playouts, replay
from test_gdl_corpus import GAMES

TEST_BUDGET = Budget(work=1_000_000, ground_rules=20_000)
"""About 160 games compile within it; loading, compiling and replaying all take about
60 s of CPU (the interpreter corpus test loads every game too)."""


@pytest.mark.parametrize("name", sorted(GAMES) or ["corpus-absent"])
def test_compiled_game_agrees_with_its_recorded_playouts(name: str, shared_dir) -> None:
    if not GAMES:
        pytest.skip("the GDL corpus is absent")
    corpus = shared_dir / "gdl-corpus"
    game = GdlGame.from_file(corpus / "games" / f"{name}.kif")
    try:
        rules = compile_rules(game.strata, game.role_terms, TEST_BUDGET)
    except GroundingError as error:
        pytest.skip(f"not compiled within the test budget: {error}")
    report = replay(
        CompiledGame.from_game(game, rules), read_playouts(corpus / "traces" / f"{name}.jsonl.gz")
    )
    assert report.agrees, report.disagreements[0].describe()
    assert report.playouts == int(GAMES[name]["playouts"])
    assert report.steps == int(GAMES[name]["steps"])


REWRITTEN = ["checkers", "chineseCheckers3", "urmAdd"]
"""Games over 300,000 ground rules as written, compiled once their rules are rewritten
(moves factored, relations restricted to their demand, variables eliminated)."""


@pytest.mark.parametrize("name", REWRITTEN)
def test_games_compiled_once_rewritten_agree_with_their_recorded_playouts(
    name: str, shared_dir
) -> None:
    if name not in GAMES:
        pytest.skip("the GDL corpus is absent")
    corpus = shared_dir / "gdl-corpus"
    game = GdlGame.from_file(corpus / "games" / f"{name}.kif")
    rules = compile_rules(game.strata, game.role_terms)  # the default budget
    report = replay(
        CompiledGame.from_game(game, rules), read_playouts(corpus / "traces" / f"{name}.jsonl.gz")
    )
    assert report.agrees, report.disagreements[0].describe()
    assert report.playouts == int(GAMES[name]["playouts"]) and report.playouts > 0
