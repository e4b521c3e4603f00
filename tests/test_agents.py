"""Agent specs, and how strong the MCTS agent is at tic-tac-toe."""

from __future__ import annotations

import pytest
from ggp.games.base import GameError
from ggp.games.registry import load_game
from ggp.gdl.load import game_from_text
from ggp.player.agents import DEFAULT_TIME, MCTSAgent, make_agent
from ggp.server.match import derive_seed, play_match
from ggp.server.tournament import run_tournament
from perfect_play import PerfectAgent

TICTACTOE = load_game("tictactoe")


def test_mcts_specs_and_their_options() -> None:
    agent = make_agent("mcts:iterations=200,c=0.7,final=mean,stochastic=yes,depth=3", seed=1)
    assert isinstance(agent, MCTSAgent) and agent.spec.startswith("mcts:")
    assert (agent.iterations, agent.time, agent.c, agent.final) == (200, None, 0.7, "mean")
    assert agent.stochastic and agent.depth == 3
    timed = make_agent("mcts:time=1.5")
    assert (timed.iterations, timed.time) == (None, 1.5)
    default = make_agent("mcts")
    assert (default.iterations, default.time, default.nodes) == (None, DEFAULT_TIME, None)


def test_the_nodes_option_caps_the_agents_tree() -> None:
    agent = make_agent("mcts:iterations=300,nodes=25", seed=1)
    agent.start(TICTACTOE, 0)
    agent.choose_move(TICTACTOE.initial_state(), None)
    assert agent.tree.max_nodes == 25 and agent.tree.node_count == 25


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:rollouts=5", "unknown option 'rollouts'; options: iterations=N, time=SECONDS"),
        ("mcts:iterations=0", "iterations must be int >= 1, got '0'"),
        ("mcts:c=-1", "option c must be float >= 0"),
        ("mcts:time=0", "option time must be float > 0"),
        ("mcts:nodes=0", "option nodes must be int >= 1"),
        ("mcts:final=best", "final must be visits or mean"),
        ("mcts:stochastic=maybe", "stochastic must be"),
        ("random:seed=3", "agent 'random' takes no options"),
        ("alphazero", "unknown agent 'alphazero'; agents: random, legal, flatmc, mcts, human"),
    ],
)
def test_bad_specs_are_explained(spec: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        make_agent(spec)


def test_an_agent_with_a_single_legal_move_does_not_search() -> None:
    agent = make_agent("mcts:iterations=100000")
    agent.start(TICTACTOE, 1)
    assert agent.choose_move(TICTACTOE.initial_state(), None) == "noop"
    assert agent.tree is None and agent.ranking() == []


def test_mcts_never_loses_to_a_perfect_player_in_either_seat() -> None:
    # 2000 iterations a move; 25 matches in each seat (600 of 600 drawn with
    # other seeds: benchmarks/mcts_strength.py).
    for match in range(50):
        seat = match % 2
        mcts = make_agent("mcts:iterations=2000", derive_seed("perfect", match))
        perfect = PerfectAgent(derive_seed("perfect", match, "opponent"))
        agents = [mcts, perfect] if seat == 0 else [perfect, mcts]
        goals = play_match(TICTACTOE, agents).goals
        assert goals[seat] >= 50, f"match {match}: MCTS lost in seat {seat}"


def test_mcts_never_loses_to_random() -> None:
    results = run_tournament(
        "tictactoe", ["mcts:iterations=1000", "random"], games=200, swap=True, seed=1
    )
    losses = [r for r in results if r.goals[r.seats.index(0)] < 50]
    assert not losses
    assert sum(r.goals[r.seats.index(0)] == 100 for r in results) > 170


def test_ggp_play_uses_mcts_by_default_and_takes_any_agent_spec(monkeypatch, capsys) -> None:
    import io
    import sys

    from ggp.cli import build_parser, main

    assert build_parser(["play"]).parse_args(["play", "tictactoe"]).ai == "mcts"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5))
    assert main(["play", "tictactoe", "--ai", "mcts:iterations=300", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Game over" in out and "You win!" not in out


NO_GOAL_AFTER_B = """
(role one) (role two)
(init (round 0))
(<= (legal one a) (true (round 0)))
(<= (legal one b) (true (round 0)))
(<= (legal two wait) (true (round 0)))
(<= (next (round 1)) (true (round 0)))
(<= (next (chose ?m)) (does one ?m))
(<= terminal (true (round 1)))
(<= (goal ?r 100) (role ?r) (true (chose a)))
(<= (goal two 0) (true (chose b)))
"""
"""After b the game ends without a goal for one: rules that break where the search looks."""


@pytest.mark.parametrize("spec", ["mcts:iterations=200", "mcts:iterations=200,factor=yes"])
def test_an_agent_searches_past_states_where_the_rules_break(spec: str) -> None:
    game = game_from_text(NO_GOAL_AFTER_B, reasoner="compiled")
    agent = make_agent(spec, 3)
    agent.start(game, 0)
    assert agent.choose_move(game.initial_state(), None) == "a"
