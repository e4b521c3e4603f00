"""`ggp bench --mcts` prints simulations per second and the ratio to bare playouts."""

from __future__ import annotations

import re

from ggp.cli import main
from test_gdl_game import RACE


def test_bench_mcts_prints_simulations_per_second(capsys) -> None:
    assert main(["bench", "tictactoe", "--mcts", "--seconds", "0.2", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"tictactoe: [\d,]+ simulations/s \(MCTS from the initial state, c=", out)
    assert re.search(r"\d\.\d\d x the [\d,]+ bare playouts/s", out)


LONG_RACE = RACE.replace(
    "(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)",
    " ".join(f"(succ {n} {n + 1})" for n in range(12)),
).replace("(true (count 4))", "(true (count 12))")
HALF_BROKEN_RACE = LONG_RACE.replace(
    "(<= (goal ?p 0) (role ?p) (not (true (control ?p))))",
    "(<= (goal left 0) (not (true (control left))))",
)
"""Right has no goal value when left wins: about half the playouts break."""


def test_bench_mcts_counts_the_iterations_where_the_rules_break(tmp_path, capsys) -> None:
    game = tmp_path / "race.kif"
    game.write_text(HALF_BROKEN_RACE)
    assert main(["bench", str(game), "--mcts", "--seconds", "1", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    found = re.search(
        r"[\d,]+ simulations/s .* bare playouts/s measured in turn .*; ([\d,]+) of ([\d,]+) "
        r"iterations and ([\d,]+) of ([\d,]+) bare playouts broke and are not counted, the "
        r"first with: race: role Right has no goal value in the terminal state",
        out,
    )
    assert found, out
    broken, total, bare_broken, bare_total = (int(g.replace(",", "")) for g in found.groups())
    assert 0 < broken < total and 0 < bare_broken < bare_total


def test_bench_mcts_without_an_unbroken_iteration_has_no_figure(tmp_path, capsys) -> None:
    game = tmp_path / "race.kif"
    game.write_text(HALF_BROKEN_RACE.replace("(<= (goal left 0) (not (true (control left))))", ""))
    assert main(["bench", str(game), "--mcts", "--seconds", "0.4", "--runs", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("race: no figure: every iteration broke; ")
    assert "the first with: race: role " in out
