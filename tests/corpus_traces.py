"""Replay the corpus's recorded random playouts step by step against a game.

The traces (``../shared/gdl-corpus/traces/GAME.jsonl.gz``, format in the
corpus README) were recorded by an independent GDL reasoner.  Replaying one
checks, at every step, the state's facts, every role's legal moves, the next
state for the recorded joint move, and at the end termination and the goals.
Roles are matched by position; the corpus text is lower case, so ours is
compared lower-cased (our native games use lower case, so the recorded joint
moves are played as they are).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ggp.games.base import Game

FactMap = Callable[[Sequence[str]], Sequence[str]]


def load_traces(shared_dir: Path, name: str) -> Iterator[dict]:
    """The recorded playouts of the corpus game `name`."""
    with gzip.open(shared_dir / "gdl-corpus" / "traces" / f"{name}.jsonl.gz", "rt") as lines:
        for line in lines:
            yield json.loads(line)


def lowered(items: Sequence[str]) -> list[str]:
    return [item.lower() for item in items]


def replay(game: Game, trace: dict, facts_of: FactMap = tuple) -> int:
    """Replay `trace` against `game`; return the number of steps checked.

    `facts_of` turns the trace's facts into the game's (for a corpus game that
    names things differently); the result is compared sorted.
    """
    where = f"{trace['game']} playout {trace['playout']}"
    roles = trace["roles"]
    assert len(roles) == len(game.roles), where
    state = game.initial_state()
    for number, step in enumerate(trace["steps"]):
        at = f"{where}, step {number}"
        assert lowered(state.facts()) == sorted(facts_of(step["state"])), at
        assert not state.is_terminal(), at
        for index, role in enumerate(roles):
            assert lowered(state.legal_moves(index)) == step["legal"][role], f"{at}, {role}"
        state = state.next(step["joint"])
    assert lowered(state.facts()) == sorted(facts_of(trace["terminal_state"])), where
    if trace["truncated"]:
        assert not state.is_terminal(), where
    else:
        assert state.is_terminal(), where
        assert list(state.goals()) == [trace["goals"][role] for role in roles], where
    return len(trace["steps"])
