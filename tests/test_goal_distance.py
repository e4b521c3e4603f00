"""A piece's distance to its role's goal, read from the rules (`ggp.player.search.goal_distance`),
and the material alone weighed by it (`heuristic.learn`'s ``progress``)."""

from __future__ import annotations

import random

import pytest
from ggp.games.base import GameError
from ggp.games.registry import GDL_DIR
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.player.agents import make_agent
from ggp.player.search.goal_distance import goal_distances
from ggp.player.search.heuristic import learn
from test_gdl_native import needs_native
from test_heuristic import TOKENS, compiled


def pieces(game: CompiledGame, relation: str, role: str) -> int:
    """The mask of the base facts of `relation` that end with `role`."""
    mask = 0
    for i, text in enumerate(game.compiled.base_texts):
        if text.startswith(f"({relation} ") and text.endswith(f" {role})"):
            mask |= 1 << i
    return mask


def distances_of(game: CompiledGame, relation: str, role: int) -> dict[str, int] | None:
    """`goal_distances` of the role's pieces, by the facts' texts."""
    compiled_rules = game.compiled
    network = compiled_rules.network
    values = compiled_rules.goal_values[role]
    best = max(range(len(values)), key=values.__getitem__)
    mask = pieces(game, relation, game.roles[role])
    found = goal_distances(network, mask, role, network.goals[role][best][0])
    if found is None:
        return None
    return {compiled_rules.base_texts[bit]: d for bit, d in found.items()}


def test_a_breakthrough_pawn_is_as_far_from_the_goal_as_the_rows_it_has_left() -> None:
    game = compiled((GDL_DIR / "breakthrough.kif").read_text(), "breakthrough", native=False)
    white = distances_of(game, "cellholds", 0)
    black = distances_of(game, "cellholds", 1)
    assert white is not None and black is not None
    assert len(white) == len(black) == 64  # every cell, from either side
    for x in range(1, 9):
        for y in range(1, 9):
            assert white[f"(cellholds {x} {y} white)"] == 8 - y
            assert black[f"(cellholds {x} {y} black)"] == y - 1


def test_pieces_that_are_placed_and_never_moved_have_no_distances() -> None:
    four = compiled((GDL_DIR / "connect_four.kif").read_text(), "connect_four", native=False)
    relation = four.compiled.base_texts[0].split()[0][1:]
    assert distances_of(four, relation, 0) is None
    # Tokens are only taken: no move takes one anywhere (and no goal reads one alone).
    tokens = compiled(TOKENS, "tokens", native=False)
    assert distances_of(tokens, "token", 0) is None


@needs_native
def test_progress_weighs_a_piece_by_its_distance_to_the_goal() -> None:
    game = compiled((GDL_DIR / "breakthrough.kif").read_text(), "breakthrough", native=True)
    alike = learn(game, random.Random(1), material=0.5, material_first=True)
    weighed = learn(game, random.Random(1), material=0.5, material_first=True, progress=1.0)
    assert alike is not None and weighed is not None
    assert alike.material_alone and weighed.material_alone
    assert weighed.progress == 1.0 and alike.progress == 0.0
    assert "(cellholds ? ? white) 0 from the goal" in weighed.names
    assert "material alone (tried first, progress 1)" in weighed.describe()
    # White's pawn from d2 to d5, against black's from e7 to e6: the same material.
    start = [f"(cellholds {x} {y} white)" for x in range(1, 9) for y in (1, 2)]
    start += [f"(cellholds {x} {y} black)" for x in range(1, 9) for y in (7, 8)]
    moved = [f for f in start if f not in ("(cellholds 4 2 white)", "(cellholds 5 7 black)")]
    moved += ["(cellholds 4 5 white)", "(cellholds 5 6 black)", "(control white)"]
    state = game.state_from_facts(moved)
    initial = game.initial_state()
    assert alike.value(state)[0] == pytest.approx(alike.value(initial)[0])
    assert weighed.value(state)[0] > weighed.value(initial)[0]
    assert weighed.value(state)[1] < weighed.value(initial)[1]
    # A piece at the goal is worth 1 + progress times a piece at the farthest distance.
    white = weighed.weights[0]
    at_goal = 1 + weighed.names.index("(cellholds ? ? white) 0 from the goal")
    farthest = 1 + weighed.names.index("(cellholds ? ? white) 7 from the goal")
    assert white[at_goal] == pytest.approx(2 * white[farthest]) and white[farthest] == 0.5


@needs_native
def test_progress_leaves_the_material_alike_where_pieces_have_no_distances() -> None:
    game = compiled(TOKENS, "tokens", native=True)
    learnt = learn(
        game, random.Random(1), playouts=1000, material=0.5, material_first=True, progress=1.0
    )
    assert learnt is not None and learnt.material_alone and learnt.progress == 0.0
    assert learnt.names == ("(token white ?)", "(token black ?)")


def test_the_agent_option_needs_the_material_term() -> None:
    with pytest.raises(GameError, match="progress=K"):
        make_agent("mcts:imm=0.4,progress=1")
    agent = make_agent("mcts:imm=0.4,material=0.5,material_first=yes,progress=0.5")
    assert agent.progress == 0.5
