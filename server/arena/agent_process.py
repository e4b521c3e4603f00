"""An agent of an arena match in its own process: ``python -m ggp.server.arena.agent_process``.

The arena's event loop must stay free to answer pages while agents search, and
a search in a thread of its process would hold Python's global lock (the
loop lagged 40 ms at the median, 0.4 s at worst, with two MCTS agents in
threads).  Here the agent plays in a child process, told by JSON lines on stdin, each
with an ``id`` that its answer (one line on stdout) echoes:

- ``{"cmd": "start", "game": G, "agent": SPEC, "seed": N, "role": I,
  "clocks": [START, PLAY]}``: build the game (G as `ggp.server.arena.catalogue.
  resolve_game` takes it) and the agent; answers ``{"ok": true}``;
- ``{"cmd": "play", "joint": [M...] or null, "seconds": S or null}``: play the
  previous joint move, then choose a move within S seconds; while an MCTS
  agent searches, ``{"thinking": RANKING}`` lines (no id) say how it ranks
  its moves so far; answers ``{"move": M, "ranking": RANKING}``;
- ``{"cmd": "stop", "joint": [M...] or null}``: the match is over;
  answers ``{"ok": true}``;
- in a GDL-II game (`Game.gdl_ii`), ``play`` and ``stop`` carry ``"sight": [MOVE,
  [PERCEPT...]] or null`` instead of the joint move, and ``play`` the role's
  ``"legal"`` moves: the agent is told only those (`Agent.perceive`,
  `Agent.choose_unseen`); hints are not given;
- ``{"cmd": "hint", "moves": [[M...]...], "role": I, "seconds": S}``: play the
  joint moves made since the last command, then search S seconds from there
  for role I (a child started with ``"agent": null`` only gives hints);
  answers ``{"ranking": RANKING}`` with every move of the role.

An error answers ``{"error": TEXT}``; the end of stdin ends the process, and so does
the end of the arena's process, even in the middle of a search.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from typing import Any, TextIO

from ggp.games.base import GameError, State
from ggp.player.agents import Agent, Clocks, MCTSAgent, Sight, make_agent
from ggp.player.search.mcts import MCTS
from ggp.player.service.lifeline import watch_parent
from ggp.server.arena.catalogue import resolve_game

THINKING_INTERVAL = 0.5
RANKING_LENGTH = 10


def ranking_json(stats: Any, length: int = RANKING_LENGTH) -> list[dict]:
    return [
        {"move": s.move, "visits": s.visits, "value": round(s.value, 4)} for s in stats[:length]
    ]


HINT_ITERATIONS = 50_000


def hint_ranking(state: State, role: int, seconds: float) -> list[dict]:
    """What a short search from `state` thinks of each of `role`'s moves, best first."""
    tree = MCTS(state, rng=random.Random())
    tree.search(HINT_ITERATIONS, time.monotonic() + seconds)
    return ranking_json(tree.statistics(role), length=len(state.legal_moves(role)))


class AgentProcess:
    """The agent, its game and the match's current state, in this process."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.agent: Agent | None = None
        self.state: State | None = None
        self.role = 0

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(json.dumps(message) + "\n")
            self.out.flush()

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        name = command.get("cmd")
        if name == "start":
            game = resolve_game(command["game"], None).game
            self.role = command["role"]
            if command["agent"] is not None:
                self.agent = make_agent(command["agent"], command.get("seed"))
                self.agent.start(game, self.role, Clocks(*command["clocks"]))
            self.state = game.initial_state()
            return {"ok": True}
        if self.state is None:
            raise GameError(f"{name!r} before start")
        if name == "hint":
            if self.state.game.gdl_ii:
                raise GameError("no hints in a GDL-II game: a hint would search the hidden state")
            for joint in command["moves"]:
                self.state = self.state.next(joint)
            return {"ranking": hint_ranking(self.state, command["role"], command["seconds"])}
        if self.agent is None:
            raise GameError(f"{name!r}: this process has no agent")
        if self.state.game.gdl_ii:
            return self.unseen(name, command)
        if command.get("joint") is not None:
            self.state = self.state.next(command["joint"])
            self.agent.observe(command["joint"], self.state)
        if name == "play":
            return self.play(command.get("seconds"))
        if name == "stop":
            self.agent.stop(self.state)
            return {"ok": True}
        raise GameError(f"unknown command {name!r}")

    def unseen(self, name: str, command: dict[str, Any]) -> dict[str, Any]:
        """``play`` and ``stop`` of a GDL-II game: the agent is told its sight only."""
        agent = self.agent
        assert agent is not None
        if command.get("sight") is not None:
            move, percepts = command["sight"]
            agent.perceive(Sight(move, tuple(percepts)))
        if name == "stop":
            return {"ok": True}
        if name != "play":
            raise GameError(f"unknown command {name!r}")
        seconds = command.get("seconds")
        deadline = None if seconds is None else time.monotonic() + seconds
        move = agent.choose_unseen(command["legal"], deadline)
        return {"move": move, "ranking": ranking_json(agent.ranking())}

    def play(self, seconds: float | None) -> dict[str, Any]:
        agent, state = self.agent, self.state
        assert agent is not None and state is not None
        deadline = None if seconds is None else time.monotonic() + seconds
        done = threading.Event()
        if isinstance(agent, MCTSAgent) and len(state.legal_moves(self.role)) > 1:
            threading.Thread(target=self._report, args=(agent, state, done), daemon=True).start()
        try:
            move = agent.choose_move(state, deadline)
        finally:
            done.set()
        return {"move": move, "ranking": ranking_json(agent.ranking())}

    def _report(self, agent: MCTSAgent, state: State, done: threading.Event) -> None:
        """Send, while the agent searches, how it ranks its moves so far."""
        shown = None
        while not done.wait(THINKING_INTERVAL):
            tree = agent.tree
            try:  # a read of counters the search updates meanwhile: a snapshot
                if tree is None or tree.root.state != state:
                    continue
                ranking = ranking_json(tree.statistics(self.role))
            except (AttributeError, ValueError, IndexError):
                continue
            if ranking and ranking != shown and not done.is_set():
                shown = ranking
                self.send({"thinking": ranking})


def serve(commands: TextIO, answers: TextIO) -> None:
    worker = AgentProcess(answers)
    for line in commands:
        command = json.loads(line)
        try:
            answer = worker.handle(command)
        except GameError as error:
            answer = {"error": str(error)}
        except Exception as error:  # a bug or broken rules: say so, the referee aborts
            answer = {"error": f"{type(error).__name__}: {error}"}
        worker.send({**answer, "id": command.get("id")})


def main() -> None:
    watch_parent()  # the arena gone (even by SIGKILL), the agent stops mid-search
    answers = sys.stdout
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
