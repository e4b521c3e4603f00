"""The arena on a GDL-II game: a person sees only their own view while playing (their
moves, percepts and legal moves; no state, no hints, no log), and the whole match
once it is over; agents in their processes are told their sights only."""

from __future__ import annotations

import pytest
from test_arena_api import arena, config, follow, start  # noqa: F401 - fixtures

pytestmark = pytest.mark.asyncio


async def test_a_person_sees_only_their_view_of_blind_tictactoe(arena) -> None:  # noqa: F811
    client = await arena()
    match_id = await start(
        client, {"builtin": "blind_tictactoe"}, ["person", "ismcts:iterations=20", "random"]
    )
    seen = []

    async def on_message(data: dict) -> None:
        if data["type"] == "step":
            assert data["rankings"] == {}
            assert not any(fact.startswith("(cell") for fact in data["facts"])
        if data["type"] != "waiting" or data["waiting"] != [0]:
            return
        snapshot = await (await client.get(f"/api/matches/{match_id}")).json()
        assert snapshot["view"] == {"role": 0}
        for step in snapshot["steps"]:
            assert set(step["facts"]) <= {"ok", "taken"}
            if step["moves"]:
                assert step["moves"][1:] == ["?", "?"]
        now = snapshot["steps"][-1]
        assert now["legal"][1:] == [[], []]
        hint = await client.post(f"/api/matches/{match_id}/hint", json={"role": 0})
        assert hint.status == 409 and "GDL-II" in (await hint.json())["error"]
        log = await client.get(f"/api/matches/{match_id}/log")
        assert log.status == 409
        seen.append(now["facts"])
        played = await client.post(
            f"/api/matches/{match_id}/move", json={"role": 0, "move": now["legal"][0][0]}
        )
        assert played.status == 200

    messages = await follow(client, match_id, on_message)
    assert messages[-1]["status"] == "finished" and len(seen) >= 3
    whole = await (await client.get(f"/api/matches/{match_id}")).json()
    assert whole["view"] is None
    assert any(fact.startswith("(cell") for fact in whole["steps"][-1]["facts"])
    assert "?" not in whole["steps"][1]["moves"]


async def test_an_agent_that_sees_the_state_is_refused_for_a_gdl_ii_game(arena) -> None:  # noqa: F811
    client = await arena()
    response = await client.post(
        "/api/matches",
        json={"game": {"builtin": "monty_hall"}, "players": ["mcts", "random"]},
    )
    assert response.status == 400
    assert "would see the whole state" in (await response.json())["error"]
