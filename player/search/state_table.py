"""State tables: the top of the search tree kept from one match to the next.

After a match, the statistics of the expanded nodes within `depth` joint moves
of the initial state are saved as JSON, keyed by `State.key()`; the next match
of the same game presets every new node it finds in the table, so the search
starts where earlier matches left off ("learning from earlier matches").

A file holds one game, named after a hash of `Game.rules_id`::

    {"format": "ggp-state-table/1", "rules_id": "tictactoe", "roles": [...],
     "states": {"<state key>": {"visits": 120,
                                "moves": [{"(mark 1 1)": [14, 0.61], ...},
                                          {"noop": [119, 0.37]}]}}}

`moves` has one object per role: move -> [visits, mean reward 0..1].
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from ggp.games.base import Game, GameError
from ggp.player.search.tree import Node

FORMAT = "ggp-state-table/1"


def table_path(directory: str | os.PathLike[str], game: Game) -> Path:
    """Where the table of `game` lives in `directory`: ``<name>-<hash of rules>.json``."""
    digest = hashlib.sha256(game.rules_id.encode()).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9_]+", "_", game.name).strip("_") or "game"
    return Path(directory) / f"{name}-{digest}.json"


def prune_tables(directory: str | os.PathLike[str], keep: int) -> list[Path]:
    """Delete the oldest tables (by last change) of `directory` beyond the newest `keep`.

    Only table files (``*-<16 hex digits>.json``) are counted and deleted;
    returns those deleted.
    """
    tables = []
    for path in Path(directory).glob("*.json"):
        if _TABLE_NAME.fullmatch(path.name):
            try:
                tables.append((path.stat().st_mtime, path))
            except FileNotFoundError:  # deleted meanwhile
                continue
    tables.sort(reverse=True)
    dropped = []
    for _, path in tables[keep:]:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        dropped.append(path)
    return dropped


_TABLE_NAME = re.compile(r"[A-Za-z0-9_]+-[0-9a-f]{16}\.json")


class StateTable:
    """Node statistics by state key, for the nodes within `depth` of the initial state."""

    def __init__(self, game: Game, depth: int, states: dict[str, Any] | None = None) -> None:
        self.game = game
        self.depth = depth
        self.states: dict[str, Any] = states or {}

    @classmethod
    def load(cls, path: Path, game: Game, depth: int) -> StateTable:
        """The table saved at `path`, or an empty one if there is none yet."""
        if not path.exists():
            return cls(game, depth)
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT or not isinstance(data.get("states"), dict):
                raise ValueError(f"not a {FORMAT} file")
        except (OSError, ValueError) as error:
            raise GameError(f"cannot read the state table {path}: {error}") from None
        if data.get("rules_id") != game.rules_id:
            raise GameError(f"the state table {path} belongs to other rules than {game.name}")
        return cls(game, depth, data["states"])

    def save(self, path: Path) -> None:
        """Write the table to `path` atomically (readers never see half a file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "format": FORMAT,
            "rules_id": self.game.rules_id,
            "game": self.game.name,
            "roles": list(self.game.roles),
            "depth": self.depth,
            "states": self.states,
        }
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            json.dump(data, out, separators=(",", ":"))
        os.replace(temporary, path)

    def preset(self, node: Node, rng: random.Random) -> None:
        """Give a new `node` the statistics the table holds for its state, if any."""
        if node.depth > self.depth:
            return
        entry = self.states.get(node.state.key())
        if entry is None:
            return
        node.expand(rng)
        node.visits = entry["visits"]
        for role, saved in enumerate(entry["moves"]):
            for i, move in enumerate(node.moves[role]):
                if move in saved:
                    visits, value = saved[move]
                    node.counts[role][i] = visits
                    node.sums[role][i] = value * visits
            counts = node.counts[role]
            node.untried[role] = [i for i in node.untried[role] if counts[i] == 0]

    def record(self, root: Node) -> None:
        """Take in the statistics of the tree under `root`, down to the table's depth.

        A state already in the table keeps whichever record has more visits
        (the same state may be reached by several paths).
        """
        for node in root.walk(self.depth):
            key = node.state.key()
            old = self.states.get(key)
            if old is not None and old["visits"] > node.visits:
                continue
            self.states[key] = {
                "visits": node.visits,
                "moves": [
                    {
                        move: [n, round(total / n, 6)]
                        for move, n, total in zip(moves, counts, sums, strict=True)
                        if n
                    }
                    for moves, counts, sums in zip(node.moves, node.counts, node.sums, strict=True)
                ],
            }
