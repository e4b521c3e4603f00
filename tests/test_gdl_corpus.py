"""Every public game of the shared corpus against its recorded playouts.

The playouts were recorded by an independent reasoner (GGP-Base's prover);
each step must agree: the state, every role's legal moves, the next state,
and the goals at the end (see `ggp.gdl.traces`).  Skipped without ``../shared``.
"""

from __future__ import annotations

import pytest
from conftest import SHARED
from ggp.gdl.interpreter.game import GdlGame
from ggp.gdl.traces import read_playouts, replay

INDEX = SHARED / "gdl-corpus" / "INDEX.tsv"


def corpus_index() -> dict[str, dict[str, str]]:
    """INDEX.tsv by game name (empty when the corpus is absent)."""
    if not INDEX.is_file():
        return {}
    header, *lines = INDEX.read_text().splitlines()
    columns = header.split("\t")
    return {
        line.split("\t")[0]: dict(zip(columns, line.split("\t"), strict=True)) for line in lines
    }


GAMES = corpus_index()


@pytest.mark.parametrize("name", sorted(GAMES) or ["corpus-absent"])
def test_game_agrees_with_its_recorded_playouts(name: str, shared_dir) -> None:
    if not GAMES:
        pytest.skip("the GDL corpus is absent")
    corpus = shared_dir / "gdl-corpus"
    game = GdlGame.from_file(corpus / "games" / f"{name}.kif")
    report = replay(game, read_playouts(corpus / "traces" / f"{name}.jsonl.gz"))
    assert report.agrees, report.disagreements[0].describe()
    assert report.playouts == int(GAMES[name]["playouts"])
    assert report.steps == int(GAMES[name]["steps"])
    assert report.recorded_errors == int(GAMES[name]["playouts_with_reference_error"])
