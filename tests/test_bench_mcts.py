"""`ggp bench --mcts` prints simulations per second and the ratio to bare playouts."""

from __future__ import annotations

import re

from ggp.cli import main


def test_bench_mcts_prints_simulations_per_second(capsys) -> None:
    assert main(["bench", "tictactoe", "--mcts", "--seconds", "0.2", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"tictactoe: [\d,]+ simulations/s \(MCTS from the initial state, c=", out)
    assert re.search(r"\d\.\d\d x the [\d,]+ bare playouts/s", out)
