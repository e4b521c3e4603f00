"""The search process of one match: MCTS driven by JSON lines on stdin.

The HTTP player starts one of these per match (``python -m player.search_worker``)
so that search never blocks its event loop and a crash or a runaway search
costs one match at most.  Each line on stdin is a command with an ``id``; each
answer, one line on stdout, echoes that ``id``:

- ``{"cmd": "load", "rules": TEXT, "table_dir": DIR or null, "depth": N,
  "max_nodes": N or null}``: build the game and a search tree at its initial
  state (with a state table from DIR when given, holding at most ``max_nodes``
  nodes when given: `MCTS.max_nodes`); answers ``{"roles": [...]}``;
- ``{"cmd": "search", "role": I, "until": T, "iterations": N or null}``:
  search until T (`time.time()` seconds: the deadline counts from when the
  server sent the command, not from when an earlier command let the worker
  read it) and for at most N simulations; answers
  ``{"move": M, "sims": N, "steps": K, "nodes": H}``, M the best move of role
  index I after K joint moves (the server checks that the worker is in step),
  H the nodes the tree holds;
- ``{"cmd": "advance", "joint": [M, ...]}``: the joint move was played;
  re-root the tree (kept for the next search); answers ``{"terminal": bool}``;
- ``{"cmd": "save"}``: save the state table, if any; answers ``{"path": P or null}``;
- ``{"cmd": "quit"}``: exit without answering (as at the end of stdin).

A command that fails answers ``{"id": ..., "error": TEXT}``.  The search stops
early enough to answer by T: it does not begin a simulation it
could not finish in time, judging by the slowest one of this search.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

from games.base import GameError
from player.game_factory import game_from_text
from player.lifeline import watch_parent
from player.mcts import MCTS
from player.state_table import StateTable, table_path

NICENESS = 5
"""Workers run at a lower priority than the server, so that it answers `info`
and sends replies on time even when every core is searching."""


class SearchWorker:
    """The game, the search tree and the state table of one match."""

    def __init__(self) -> None:
        self.tree: MCTS | None = None
        self.table: StateTable | None = None
        self.table_file: Path | None = None
        self.rng = random.Random()
        self.steps = 0
        """Joint moves played since the initial state."""

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        """The answer to one command (without its id)."""
        name = command.get("cmd")
        if name == "load":
            return self.load(
                command["rules"],
                command.get("table_dir"),
                command.get("depth", 4),
                command.get("max_nodes"),
            )
        if self.tree is None:
            raise GameError(f"{name!r} before any game was loaded")
        if name == "search":
            left = command["until"] - time.time()
            return self.search(command["role"], left, command.get("iterations"))
        if name == "advance":
            return self.advance(command["joint"])
        if name == "save":
            return self.save()
        raise GameError(f"unknown command {name!r}")

    def load(
        self, rules: str, table_dir: str | None, depth: int, max_nodes: int | None = None
    ) -> dict[str, Any]:
        game = game_from_text(rules, "the rules of this match")
        if table_dir is not None:
            self.table_file = table_path(table_dir, game)
            try:
                self.table = StateTable.load(self.table_file, game, depth)
            except GameError as error:  # a damaged table costs its learning, not the match
                print(f"search worker: {error}; starting a new table", file=sys.stderr)
                self.table = StateTable(game, depth)
        self.tree = MCTS(game.initial_state(), rng=self.rng, table=self.table, max_nodes=max_nodes)
        return {"roles": list(game.roles)}

    def search(self, role: int, seconds: float, iterations: int | None) -> dict[str, Any]:
        tree = self.tree
        assert tree is not None
        deadline = time.monotonic() + seconds
        sims = 0
        slowest = 0.0
        while iterations is None or sims < iterations:
            began = time.monotonic()
            if began + slowest >= deadline or tree.search(iterations=1) == 0:
                break
            slowest = max(slowest, time.monotonic() - began)
            sims += 1
        return {
            "move": tree.best_move(role),
            "sims": sims,
            "steps": self.steps,
            "nodes": tree.node_count,
        }

    def advance(self, joint: list[str]) -> dict[str, Any]:
        tree = self.tree
        assert tree is not None
        self._record()
        state = tree.root.state.next(joint)
        tree.advance(joint, state)
        # Count the subtree kept now, at the start of the move (about 1 % of the
        # search time), not when answering a search, where it would eat into
        # the time kept for the reply.
        tree.node_count  # noqa: B018
        self.steps += 1
        return {"terminal": state.is_terminal()}

    def save(self) -> dict[str, Any]:
        if self.table is None or self.table_file is None:
            return {"path": None}
        self._record()
        self.table.save(self.table_file)
        return {"path": str(self.table_file)}

    def _record(self) -> None:
        tree, table = self.tree, self.table
        if tree is not None and table is not None and tree.root.depth <= table.depth:
            table.record(tree.root)


def serve(commands: TextIO, answers: TextIO) -> None:
    """Answer the commands read from `commands` until ``quit`` or their end."""
    worker = SearchWorker()
    for line in commands:
        command = json.loads(line)
        if command.get("cmd") == "quit":
            break
        try:
            answer = worker.handle(command)
        except GameError as error:
            answer = {"error": str(error)}
        except Exception as error:  # a bug: say so, keep the trace, keep serving
            traceback.print_exc(file=sys.stderr)
            answer = {"error": f"{type(error).__name__}: {error}"}
        answer["id"] = command.get("id")
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main() -> None:
    watch_parent()
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    answers = sys.stdout
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
