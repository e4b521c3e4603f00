"""The server's own copy of a match's game, in a child process the server can kill.

Rules and moves come from the network: reading, checking and building the
rules, and computing each state, can take any time and memory.  So the server
does none of it itself: each match has one of these processes
(``python -m ggp.player.service.game_process --memory BYTES``), driven by JSON lines on
stdin as the search worker is (`ggp.player.service.search_worker`), each answer one line
on stdout echoing the command's ``id``:

- ``{"cmd": "build", "rules": TEXT, "role": NAME, "cpu": S}``: read and check
  the rules, build the game on the interpreter (ready at once, unlike the
  compiled game the worker may build) and find the role (another case is
  accepted if unambiguous); answers ``{"roles": [...], "role": I,
  "legal": [...], "terminal": bool}``, the legal moves being the role's in
  the initial state;
- ``{"cmd": "advance", "moves": [M, ...], "cpu": S}``: play the joint move
  (moves in another case are accepted if unambiguous); answers ``{"joint":
  [...], "legal": [...], "terminal": bool}``: the joint move as the rules
  spell it, and the role's legal moves in the state reached (none when it
  is terminal);
- ``{"cmd": "ready"}``: answers ``{}`` once the process has started (imports
  done, parser built): a game process is started ahead of the match it serves;
- GDL-II (``build`` answers ``"gdl_ii": true`` when the rules have ``sees``): the
  state is not known, and the copy keeps the states consistent with what the
  role has seen (`ggp.player.search.hidden.Belief`) and searches them itself, as no
  search worker can follow such a match.  The copy then builds the rules again in
  a thread, compiled with native code (`StagedRules`, as a search worker does),
  and moves its belief to them when they are ready; until then the interpreter
  plays them:
  ``{"cmd": "perceive", "move": M, "percepts": [P, ...], "cpu": S}``: we
  played M and saw the percepts; answers ``{"legal":
  [...], "terminal": false}``, our legal moves now;
  ``{"cmd": "choose", "until": T, "iterations": N or null, "cpu": S}``: search
  (information-set MCTS) until the time T (seconds since the epoch) or N iterations;
  answers ``{"move": M, "sims": N, "nodes": N, "reasoner": TEXT}``, TEXT saying
  what played the rules (`ggp.gdl.load.describe_reasoner`);
- ``{"cmd": "quit"}``: exit.

Rules that are not valid GDL, an unknown role, a joint move that cannot be
played: ``{"error": TEXT}``, and nothing changes.  Anything else that goes
wrong (running out of memory, a bug) answers ``{"failed": TEXT}``: the copy
can no longer be trusted.  Each command may use ``cpu`` more CPU seconds
(`ggp.player.service.lifeline.limit_cpu`); the address space is limited to ``--memory``
bytes for the life of the process, which ends when the server does.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any, TextIO

from ggp.games.base import Game, GameError, State
from ggp.gdl.load import describe_reasoner
from ggp.gdl.syntax.parser import parse_sexprs
from ggp.player.search.hidden import Belief, InformationSetSearch
from ggp.player.service import lifeline
from ggp.player.service.game_factory import game_from_text
from ggp.player.service.staged_rules import StagedRules


class GameCopy:
    """The game and the state the match has reached."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.state: State | None = None
        self.role = 0
        self.belief: Belief | None = None
        """In a GDL-II game, the states we may be in, instead of `state`."""
        self.staged: StagedRules | None = None
        """In a GDL-II game, the faster rules being built, until the belief moves to them."""

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        """The answer to one command (without its id)."""
        name = command.get("cmd")
        if name == "build":
            return self.build(command["rules"], command["role"])
        if name == "advance":
            return self.advance(command["moves"])
        if name == "ready":
            return {}
        if name == "perceive":
            return self.perceive(command["move"], command["percepts"])
        if name == "choose":
            return self.choose(command["until"], command.get("iterations"))
        raise GameError(f"unknown command {name!r}")

    def build(self, rules: str, role: str) -> dict[str, Any]:
        game = game_from_text(rules, "the rules of this match", "interpreter")
        self.role = find_role(game, role)
        if self.role == game.random_role:
            raise GameError("the role random is chance, moved by the game manager: not a player")
        self.game, self.state = game, game.initial_state()
        if game.gdl_ii:
            self.belief = Belief(game, self.role, rng=random.Random())
            self.staged = StagedRules(rules, build_faster)
        return {
            "roles": list(game.roles),
            "role": self.role,
            "gdl_ii": game.gdl_ii,
            **self._where(),
        }

    def perceive(self, move: str | None, percepts: Sequence[str]) -> dict[str, Any]:
        belief = self._belief()
        if move is None:
            raise GameError("no move of ours to perceive the outcome of")
        state = belief.sample()
        if state.is_terminal():
            raise GameError("the game is already over")
        belief.observe(spelt(state, self.role, move), percepts)
        terminal = all(state.is_terminal() for state in belief.particles)
        return {"legal": [] if terminal else list(belief.legal_moves()), "terminal": terminal}

    def choose(self, until: float, iterations: int | None) -> dict[str, Any]:
        belief = self._belief()
        search = InformationSetSearch(belief, rng=random.Random())
        search.run(iterations, time.monotonic() + until - time.time())
        return {
            "move": search.best_move(),
            "sims": search.iterations,
            "nodes": search.nodes,
            "reasoner": self.reasoner(),
        }

    def reasoner(self) -> str:
        """What plays the rules of the belief's states, in words (for the server's log)."""
        assert self.belief is not None
        said = describe_reasoner(self.belief.game)
        if self.staged is not None:
            return f"{said}, while the faster rules are built"
        return said

    def _belief(self) -> Belief:
        """The belief, moved to the faster rules once they are built."""
        belief = self.belief
        if belief is None:
            raise GameError("not a GDL-II game: the copy follows joint moves (advance)")
        staged = self.staged
        if staged is not None and staged.done.is_set():
            self.staged = None
            if staged.game is not None:
                belief.move_to(staged.game)
        return belief

    def advance(self, moves: Sequence[str]) -> dict[str, Any]:
        state = self.state
        if state is None:
            raise GameError("no game has been built")
        roles = state.game.roles
        if state.is_terminal():
            raise GameError("the game is already over")
        if len(moves) != len(roles):
            raise GameError(
                f"a joint move has one move per role ({len(roles)}: {', '.join(roles)}), "
                f"got {len(moves)}: {' '.join(moves)}"
            )
        joint = [spelt(state, i, move) for i, move in enumerate(moves)]
        self.state = state.next(joint)
        return {"joint": joint, **self._where()}

    def _where(self) -> dict[str, Any]:
        state = self.state
        assert state is not None
        terminal = state.is_terminal()
        return {
            "legal": [] if terminal else list(state.legal_moves(self.role)),
            "terminal": terminal,
        }


def build_faster(rules: str) -> Game:
    """The game of `rules` compiled, native code attached in the background when it is
    built (`ggp.gdl.load`, reasoner ``native``), for a GDL-II match's search."""
    return game_from_text(rules, "the rules of this match", "native")


def find_role(game: Game, role: str) -> int:
    """The index of `role`; a role spelt in another case is accepted if unambiguous."""
    if role in game.roles:
        return game.roles.index(role)
    folded = [i for i, name in enumerate(game.roles) if name.lower() == role.lower()]
    if len(folded) == 1:
        return folded[0]
    raise GameError(f"no role {role!r} in these rules; roles: {', '.join(game.roles)}")


def spelt(state: State, role: int, move: str) -> str:
    """The legal move `move` as the rules spell it (another case is accepted if unambiguous)."""
    legal = state.legal_moves(role)
    if move in legal:
        return move
    folded = [m for m in legal if m.lower() == move.lower()]
    if len(folded) == 1:
        return folded[0]
    shown = ", ".join(legal[:20]) + (", ..." if len(legal) > 20 else "")
    raise GameError(f"{move} is not a legal move of {state.game.roles[role]}; legal: {shown}")


def serve(commands: TextIO, answers: TextIO) -> None:
    """Answer the commands read from `commands` until ``quit`` or their end."""
    copy = GameCopy()
    for line in commands:
        command = json.loads(line)
        if command.get("cmd") == "quit":
            break
        if "cpu" in command:
            lifeline.limit_cpu(command["cpu"])
        try:
            answer = copy.handle(command)
        except GameError as error:
            answer = {"error": str(error)}
        except Exception as error:  # out of memory, a bug: the copy is not to be trusted
            traceback.print_exc(file=sys.stderr)
            answer = {"failed": f"{type(error).__name__}: {error}"}
        answer["id"] = command.get("id")
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memory", type=int, required=True, help="bytes of address space")
    args = parser.parse_args()
    lifeline.watch_parent()
    lifeline.limit_memory(args.memory)
    parse_sexprs("(role r)")  # builds the parser now, while waiting for a match
    answers = sys.stdout
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
