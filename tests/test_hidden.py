"""Playing without seeing: the particle belief's posterior, its fallback search, and
information-set MCTS knowing the value of information (Monty Hall's switch)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from ggp.games.registry import load_game
from ggp.player.agents import Sight, make_agent
from ggp.player.search.hidden import Belief, BeliefLost, InformationSetSearch

MONTY = load_game("monty_hall", reasoner="interpreter")


def monty_belief(seed: int, size: int = 300) -> Belief:
    """The candidate's belief after choosing door 1 and seeing door 3 opened."""
    belief = Belief(MONTY, 0, size, random.Random(seed))
    belief.observe("noop", ())
    belief.observe("(choose 1)", ())
    belief.observe("noop", ("(open_door 3)",))
    return belief


def car(state) -> str:
    (fact,) = [fact for fact in state.facts() if fact.startswith("(car")]
    return fact


def test_the_belief_is_the_posterior_car_behind_the_other_door_two_times_in_three() -> None:
    belief = monty_belief(seed=5, size=600)
    cars = Counter(car(state) for state in belief.particles)
    assert set(cars) == {"(car 1)", "(car 2)"}  # never behind the opened door
    assert 0.58 < cars["(car 2)"] / 600 < 0.75  # 2/3; 0.58 is over 4 deviations below


def test_the_belief_tries_every_chance_move_as_often_as_the_others() -> None:
    """Stratified tries: a third of the particles exactly behind each door (independent
    draws gave 86, 71 and 43 of 200 once, and the search then stayed with its door)."""
    belief = Belief(MONTY, 0, 300, random.Random(7))
    belief.observe("noop", ())
    assert Counter(car(state) for state in belief.particles) == {
        "(car 1)": 100,
        "(car 2)": 100,
        "(car 3)": 100,
    }
    belief.observe("(choose 1)", ())
    belief.observe("noop", ("(open_door 3)",))
    cars = Counter(car(state) for state in belief.particles)
    assert cars == {"(car 1)": 100, "(car 2)": 200}  # the posterior: 1/3 and 2/3


def test_a_belief_rebuilds_itself_from_the_history_when_rejection_finds_nothing() -> None:
    belief = monty_belief(seed=1, size=20)
    belief.particles = [MONTY.initial_state()]  # a belief that lost track
    belief.observe("switch", ("(car 2)",))
    assert {car(state) for state in belief.particles} == {"(car 2)"}
    assert all("(chosen 2)" in state.facts() for state in belief.particles)


def test_a_contradiction_is_a_clear_error() -> None:
    belief = monty_belief(seed=1, size=20)
    with pytest.raises(BeliefLost, match="no state is consistent"):
        belief.observe("noop", ("(car 3)",))  # the car behind the opened door


def test_the_search_switches_at_monty_halls_last_step() -> None:
    search = InformationSetSearch(monty_belief(seed=2), rng=random.Random(3))
    search.run(iterations=600)
    assert 1 < search.nodes <= 601  # a node for each new information set reached
    values = search.values()
    assert search.best_move() == "switch"
    assert values["switch"][1] > values["noop"][1]


def test_the_ismcts_agent_plays_from_what_it_is_told() -> None:
    agent = make_agent("ismcts:iterations=300,particles=100", seed=4)
    agent.start(MONTY, 0)
    assert agent.choose_unseen(["noop"], None) == "noop"
    agent.perceive(Sight("noop", ()))
    agent.choose_unseen(["(choose 1)", "(choose 2)", "(choose 3)"], None)
    agent.perceive(Sight("(choose 1)", ()))
    agent.perceive(Sight("noop", ("(open_door 2)",)))
    assert agent.choose_unseen(["noop", "switch"], None) == "switch"
    assert agent.ranking()[0].move == "switch"


def test_ismcts_refuses_a_game_of_perfect_information() -> None:
    agent = make_agent("ismcts", seed=0)
    with pytest.raises(Exception, match="plays GDL-II games"):
        agent.start(load_game("tictactoe"), 0)


def test_a_belief_moves_to_another_reasoner_keeping_its_states() -> None:
    belief = monty_belief(seed=4, size=50)
    keys = sorted(state.key() for state in belief.particles)
    compiled = load_game("monty_hall", reasoner="compiled")
    belief.move_to(compiled)
    assert belief.game is compiled
    assert all(state.game is compiled for state in belief.particles)
    assert sorted(state.key() for state in belief.particles) == keys
    belief.observe("switch", ("(car 2)",))  # and goes on there
    assert {car(state) for state in belief.particles} == {"(car 2)"}
