"""How strong MCTS is at Connect Four with tiny budgets (fixed seeds).

Rates measured over 1000 matches (500 in each seat, `ggp tournament ...
--games 1000 --swap --seed 5`): 10 iterations a move against random wins
95.0% as first player and 84.0% as second; 20 iterations against 10 scores
0.656 (docs/mcts-study.md).
"""

from __future__ import annotations

from ggp.server.tournament import run_tournament, standings

TEN = "mcts:iterations=10,solver=no"
"""Plain UCT, as measured."""


def wins_of_the_first_agent(specs: list[str], games: int, seed: int) -> int:
    results = run_tournament("connect_four", specs, games=games, seed=seed)
    first = specs.index(TEN)
    return sum(r.goals[first] == 100 for r in results)


def test_ten_iterations_beat_random_in_either_seat() -> None:
    assert wins_of_the_first_agent([TEN, "random"], games=20, seed=1) >= 18
    assert wins_of_the_first_agent(["random", TEN], games=20, seed=1) >= 16
    # The same on samples five times larger, so the rates do not hang on a seed.
    assert wins_of_the_first_agent([TEN, "random"], games=100, seed=2) >= 90
    assert wins_of_the_first_agent(["random", TEN], games=100, seed=2) >= 80


def test_twenty_iterations_beat_ten_clearly() -> None:
    specs = ["mcts:iterations=20,solver=no", TEN]
    results = run_tournament("connect_four", specs, games=100, swap=True, seed=1)
    twenty = standings(results, specs, ["red", "black"])[0]
    assert twenty.seat == "all" and twenty.games == 100
    assert twenty.score > 0.55, twenty
