"""State tables: the top of the tree saved after a match and used by the next one."""

from __future__ import annotations

import json
import random

import pytest
from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.player.agents import make_agent
from ggp.player.search.mcts import MCTS
from ggp.player.search.state_table import StateTable, table_path
from ggp.server.match import play_match

TICTACTOE = load_game("tictactoe")


def play(table_dir, seed: int, depth: int = 2) -> None:
    agents = [
        make_agent(f"mcts:iterations=300,table={table_dir},depth={depth}", seed),
        make_agent("random", seed),
    ]
    play_match(TICTACTOE, agents)


def test_a_saved_table_is_loaded_and_its_visits_are_at_the_root_before_any_search(
    tmp_path,
) -> None:
    play(tmp_path, seed=1)
    path = table_path(tmp_path, TICTACTOE)
    saved = json.loads(path.read_text())
    assert saved["rules_id"] == "tictactoe" and saved["depth"] == 2
    root_key = TICTACTOE.initial_state().key()
    assert saved["states"][root_key]["visits"] == 300

    table = StateTable.load(path, TICTACTOE, depth=2)
    search = MCTS(TICTACTOE.initial_state(), rng=random.Random(0), table=table)
    stats = search.statistics(0)
    assert sum(s.visits for s in stats) == 300
    assert {s.move: [s.visits, round(s.value, 6)] for s in stats if s.visits} == (
        saved["states"][root_key]["moves"][0]
    )
    # The search goes on from there: the loaded statistics decide the first choice.
    assert search.best_move(0) == stats[0].move
    search.search(iterations=10)
    assert sum(s.visits for s in search.statistics(0)) == 310


def test_learning_accumulates_over_matches_and_stays_within_its_depth(tmp_path) -> None:
    play(tmp_path, seed=1)
    path = table_path(tmp_path, TICTACTOE)
    first = json.loads(path.read_text())["states"]
    play(tmp_path, seed=2)
    second = json.loads(path.read_text())["states"]
    root_key = TICTACTOE.initial_state().key()
    assert second[root_key]["visits"] == first[root_key]["visits"] + 300
    assert set(first) <= set(second)
    # depth 2: states within two joint moves of the start, so two marks at most
    # (a tic-tac-toe key is the nine cells, b for blank, then the mover).
    assert all(key[:9].count("b") >= 7 for key in second)
    assert any(key[:9].count("b") == 7 for key in second)


def test_a_broken_or_foreign_table_is_a_clear_error(tmp_path) -> None:
    path = table_path(tmp_path, TICTACTOE)
    path.write_text("{not json")
    with pytest.raises(GameError, match="cannot read the state table"):
        StateTable.load(path, TICTACTOE, depth=2)
    path.write_text(json.dumps({"format": "ggp-state-table/1", "rules_id": "chess", "states": {}}))
    with pytest.raises(GameError, match="other rules"):
        StateTable.load(path, TICTACTOE, depth=2)


def test_the_file_name_comes_from_a_hash_of_the_rules(tmp_path) -> None:
    assert table_path(tmp_path, TICTACTOE).name.startswith("tictactoe-")
    assert table_path(tmp_path, TICTACTOE) == table_path(tmp_path, load_game("tictactoe"))
