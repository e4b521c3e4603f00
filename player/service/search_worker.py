"""The search process of one match: MCTS driven by JSON lines on stdin.

The HTTP player starts one or more of these per match (``python -m
ggp.player.service.search_worker``, see `ggp.player.service.worker_pool`) so that search
never blocks its event loop and a crash or a runaway search costs one match at most.  Each
line on stdin is a command with an ``id``; each answer, one line on stdout,
echoes that ``id``:

- ``{"cmd": "load", "rules": TEXT, "table_dir": DIR or null, "depth": N,
  "max_nodes": N or null, "ponder": S, "traps": B, "races": R, "tactics": T,
  "tactics_race": A, "tactics_workers": K, "final": F, "settle": W}``: read the rules and grow a
  search tree at the initial state on the interpreter, while the compiled game (and its
  native code) is built in the background (`ggp.player.service.staged_rules`: the search
  moves to it when it is ready), with a state table from DIR when given, holding at most
  ``max_nodes`` nodes when given (`MCTS.max_nodes`; B, by default `SEARCH_TRAPS`, says
  whether small positions are solved exactly; R, by default `SEARCH_RACES`
  (`ggp.player.service.served_races`), whether configurations are raced; T, by default
  `SEARCH_TACTICS`, whether each position is searched for forced wins and losses first,
  and the move chosen checked after the MCTS search, with the time of K workers
  (`ggp.player.service.served_tactics`; by default 1: the pool gives the tactics of all
  its workers to one); A, by default false, whether the races judge the tactics where T
  is false (a challenger that turns them on); F, by default `DEFAULT_FINAL`, how the move
  is chosen from the root's statistics (`ggp.player.search.mcts.FINAL_CHOICES`); with W,
  the answer waits up to W seconds for the compiled game, for benchmarks); answers
  ``{"roles": [...]}``;
- ``{"cmd": "search", "role": I, "until": T, "iterations": N or null,
  "race": F, "start": S}``: search until T (`time.time()` seconds: the deadline counts
  from when the server sent the command, not from when an earlier command let
  the worker read it) and for at most N iterations, the first share F (by
  default 0) of the time racing configurations where a race runs
  (`SEARCH_RACES`); S (by default false) says it is the start clock's search,
  which takes faster rules whenever they come (`SMALL_TREE`); answers
  ``{"move": M, "sims": N, "steps": K, "nodes": H, "stats": [[MOVE, VISITS,
  MEAN, LOWER, UPPER], ...], "pondered": P, "ponder_seconds": W, "settled": V, "cpu": C,
  "reasoner": R, "config": S, "proven": G, "exact": E, "tactics": X}``, M the best
  move of role index I after K joint moves (the server checks that the worker is
  in step), H the nodes the tree holds, the root statistics of role I best first with the bounds
  the solver proved of its reward after each move (to sum them over several
  workers), N the simulations (the iterations that evaluated a leaf), P the
  simulations run while pondering since the last answer, in W seconds, V the
  other iterations of both (those that ended on a node already proven,
  `MCTS.settled`), C the CPU seconds of this search, R what played the rules
  (`reasoner_of`: ``interpreter`` until the compiled game is ready, ``native``
  once the native code built in the background is attached; ``A, then B``
  when the search moved from A to B), S the search's configuration
  (`ggp.player.search.races.SearchConfig.describe`) and G the goal of role I the
  solver (or the tactics) proved at the root (null: not proven), E whether the exact
  solver settled the position (`SEARCH_TRAPS`: then M keeps that goal), and
  X what the tactical search proved (`Verdict.describe`; empty: nothing), its
  bounds folded into the statistics' (`SEARCH_TACTICS`); in a game of one role
  (`SEARCH_PUZZLES`) the puzzle search answers instead, M the next move of
  its best line, with ``"line_goal": L, "line": D, "plan": [M, ...]``, L the goal
  that line reaches (null: no line yet), D what the log says of it and the
  plan its moves (the session's fallback plays them), no statistics,
  and G = L once nothing is left to search for; once races have changed the
  configuration, the answer has ``"chosen": {FIELD: VALUE, ...}`` too (the
  `SearchConfig` searched with, for the pool to pass on);
- ``{"cmd": "advance", "joint": [M, ...]}``: the joint move was played;
  re-root the tree (kept for the next search); answers ``{"terminal": bool}``;
- ``{"cmd": "configure", "config": {FIELD: VALUE, ...}}``: a worker that does not race
  searches as another worker's races chose (a new tree at the root; implicit
  minimax and the prior only once a heuristic is learnt here); answers
  ``{"config": S}``;
- ``{"cmd": "save"}``: save the state table, if any; answers ``{"path": P or null}``;
- ``{"cmd": "quit"}``: exit without answering (as at the end of stdin).

A command that fails answers ``{"id": ..., "error": TEXT}``.  The search stops
early enough to answer by T: it does not begin a simulation it
could not finish in time, judging by the slowest one of this search.

*Races* (`ggp.player.search.races`, served by
`ggp.player.service.served_races`): once the rules are final, every other slice of
pondering and the ``race`` share of a search go to quick self-play games that
choose the search's configuration for this game; the verdicts, with their
figures, go to stderr (the server's log).  Of a pool's workers only the first
races (`ggp.player.service.worker_pool`); the others follow its choice.

*Pondering*: with ``ponder`` S > 0 at load, the worker keeps searching its
tree while no command is waiting, for at most S seconds after the last one
(the opponent's time, and moves where we only have ``noop``).  It searches
in slices of `PONDER_SLICE` seconds and looks for a command between two, so
an ``advance`` or a ``search`` is read within a slice; the search it asks
for goes on from the tree pondering grew.  After answering a search it waits
`REPLY_PAUSE` before pondering, leaving the CPU to the server's reply.  Workers run at the server's
priority: a lower one (nice) let a loaded machine starve them past the
deadline.

*No full garbage collections* (`skip_full_collections`): a search tree is
freed by reference counting (it holds no cycles), but CPython's collector
still scans every object the tree holds each time the old generation grows
by a quarter, and a tree of 250,000 Breakthrough nodes is 2.6 million
objects: on the 2-core machine at load 12 those scans took 0.2 s at first,
then 6 to 8 s, and a full collection 10 s, long past a 10 s play clock's
deadline (a campaign's fallback at the first move, after the start clock's
search had filled the tree).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import math
import os
import random
import select
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ggp.games.base import Game, GameDefinitionError, GameError, State
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.player.search.guidance import profile
from ggp.player.search.heuristic import Heuristic, Learning
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.lines import BestLine
from ggp.player.search.mcts import DEFAULT_FINAL, MCTS, checked_final
from ggp.player.search.puzzle import PuzzleSearch
from ggp.player.search.races import SearchConfig
from ggp.player.search.state_table import StateTable, table_path
from ggp.player.search.tactics import Verdict
from ggp.player.search.traps import SOLVE_SHARE, TRAP_SHARE, Plan, Traps
from ggp.player.service.game_factory import game_from_text
from ggp.player.service.lifeline import watch_parent
from ggp.player.service.serve_playouts import (
    SEARCH_DECISIVE,
    ServePlayout,
    decisive_suits,
    part_decisive_suits,
)
from ggp.player.service.served_parts import ServedParts
from ggp.player.service.served_races import SEARCH_RACES, ServedRaces
from ggp.player.service.served_tactics import SEARCH_TACTICS, ServedTactics
from ggp.player.service.staged_rules import Builder, StagedRules, replay

SMALL_TREE = 100
"""A search more than half over still moves to the faster rules (or the heuristic)
while its tree holds at most this many nodes: such a tree is worth less than the
rest of the search on them.  On battle at load 17 to 20 the interpreter's tree had
2 to 8 nodes when the compiled rules came, 13 s into a 30 s start clock, and the
start was searched to its end on the interpreter (11 and 109 simulations).  The
start clock's search moves whenever they come: its answer plays no move, and the
first move's search would leave its tree for them anyway (kalaha_2009 against
Sancho: native code ready 52 s into a 58.7 s start, 1,099 interpreted nodes kept
to the end, then dropped at the first play)."""

PONDER_SLICE = 0.01
"""Seconds of pondering between two looks for a command."""

PONDER_INTERPRETED = 0.1
"""On the interpreter, the worker ponders only while the slowest simulation of
its last search took less than this many seconds: a simulation's playout stops
when a command comes (`ServePlayout`), but choosing and stepping to a new node
does not, and on a large game on a loaded machine that alone takes seconds
(chess_200 at load 40: every other reply came after the deadline)."""

REPLY_PAUSE = 0.1
"""Seconds a worker waits after answering a search before it ponders: the
server, at the same priority, then has the CPU to send the reply on time."""

NATIVE_SLICE = 0.02
"""Seconds of a search's iterations in one call of a tree the native library holds
(`MCTS.native`): between calls the search looks, as between Python iterations, for
better rules or a heuristic ready and for races to run.  Each iteration still
starts only if one as slow as the slowest so far ends by the deadline."""

SEARCH_C = 0.35
"""The exploration constant of the search (the ``mcts`` agent's default, 0.7, was
measured on the Python reasoners).  On native code, where a move gets tens of
thousands of simulations, 0.35 beat 0.7 at equal time: 0.628 (0.52-0.72) over
90 matches of Connect Four and Breakthrough (docs/mcts-enhancements.md)."""

SEARCH_SOLVER = True
"""MCTS-Solver in the search: a proven win is played, a proven loss avoided
while a move that may not lose is left, and a proven root is answered at once.
At equal time it neither won nor lost against plain UCT (0.529, 0.48-0.58, over
420 matches; 0.550 on native code), so it is on for what it guarantees."""

SEARCH_SHALLOW = 0
"""Plies of the shallow proof search (`ggp.player.search.shallow`; 0: off), on nodes with
`MCTS`'s default 200 visits.  Off: at equal time against this search without it
(0.5 s a move, native code) depth 2 scored 0.511 (0.41-0.61, 90 matches):
Breakthrough 0.550 (0.42-0.67, 60), Connect Four 0.433 (0.27-0.61, 30; every
variant tried there below 0.5), at a cost of 7 to 13% of the simulations
(docs/mcts-enhancements.md)."""

SEARCH_IMM = 0.4
"""The weight alpha of implicit minimax backups (`ggp.player.search.imm`) in the search on
games where a heuristic is learnt (0: off, and nothing is learnt).  The
heuristic is learnt in the background (`ggp.player.search.heuristic.Learning`) while the
plain search goes on; once it is there, a search with the backups replaces
the plain tree (see `SearchWorker.take_heuristic`).  On games where none is
learnt (of the corpus's connectFour, connectFourSimultaneous, hex and
ticTacToe: none) the search stays exactly the plain one.  With
`SEARCH_MATERIAL`, at equal time against the plain search (native
Breakthrough, seats swapped): 0.900 (0.70-0.97, 20 matches) at 0.5 s a move,
0.675 (0.52-0.80, 40 matches) at 1 s, load average 4 to 17
(docs/mcts-enhancements.md)."""

SEARCH_PRIOR = True
"""Where a heuristic is learnt, seed each new edge of the tree with `SEARCH_PRIOR_VISITS`
virtual visits worth the heuristic's value of the child (`ggp.player.search.imm.HeuristicPrior`,
progressive bias as Sancho seeds its nodes), beside implicit minimax.  Off until it
wins at equal time (docs/per-game-search.md); races may still choose it per game
("heuristic prior on/off")."""

SEARCH_PRIOR_VISITS = 8
"""The virtual visits of the heuristic prior (Sancho weights its piece heuristic 6)."""

SEARCH_MATERIAL = 0.5
"""The weight of the learnt heuristic's material term (`heuristic.material_term`)."""

SEARCH_MATERIAL_FIRST = True
"""Where the material term predicts the goals, it alone is the heuristic, a fit of fact
counts only where it does not (`heuristic.learn`'s ``material_first``; Sancho's piece
heuristic, wherever piece counts predict the outcome).  On Breakthrough, the only
corpus game it changes of the tuning and development sets, the material alone won
28 of 40 games against the fit with its material term at 1 s a move; against
Sancho 1.61c at 60 s / 10 s, 4 of 10 where the fit had won 3 of 10
(docs/per-game-search.md)."""

SEARCH_PROGRESS = 0.0
"""With the material alone as the heuristic, the weight of a piece's progress towards its
role's goal, read from the rules (`heuristic.learn`'s ``progress``; 0: pieces alike).
Off: on Breakthrough, ``progress=1`` won 18 of 40 self-play games at 1 s a move against
the pieces alike, and 5 of 10 against Sancho 1.61c at 60 s / 10 s with the tactics on,
as the pieces alike had (docs/per-game-search.md)."""

SEARCH_FACTOR = True
"""Where the roles move at once on separate parts of the state
(`ggp.player.search.factored.independent_choices`), search each move with a fresh tree over
our moves' part (`mcts:factor=yes`) instead of the tree of joint moves.  Turn-taking
games never are: they keep the tree of the other searches.  On simultaneous
Connect Four it beat the joint-move search 0.783 (0.61-0.89, 30 matches at
0.5 s a move, docs/mcts-enhancements.md); it lost pacman3p, crossers3 and
battlebrushes, so the races judge the joint-move tree against it per game
(`SearchConfig.joint`)."""

SEARCH_KEEP_PARTS = True
"""With `SEARCH_FACTOR`, keep each part's tree from move to move
(`ggp.player.search.factored.PartTrees`, `mcts:keep_parts=yes`) and ponder, while the
opponents think, the part tree not searched last (on simultaneous Connect Four
the board the opponent drops on now, ours next turn).  Against fresh part
trees, at equal time without pondering, simultaneous Connect Four: 0.750
(0.57-0.87, 30 matches at 1 s a move, docs/mcts-enhancements.md)."""


SEARCH_PART_PLAYOUTS = True
"""With `SEARCH_FACTOR`, search each part as a game of its own: the part trees'
playouts play the part alone, the other parts frozen (`playouts.Part`,
`mcts:part_playouts=yes`), and the solver (`SEARCH_SOLVER`) proves in them.
Against the search without (kept part trees), simultaneous Connect Four at 1 s
a move: 0.750 (0.51-0.90, 16 matches; the playouts alone 0.609 over 32,
docs/mcts-enhancements.md)."""

SEARCH_PUZZLES = True
"""Search games of one role with the puzzle search (`ggp.player.search.puzzle`)
instead of MCTS: a portfolio (depth-first, NMCS, NRPA, fewest choices first, best
first where the goal rules guide) that keeps the best line found, from the start
clock on, and plays a line reaching 100 without searching again.  On a
development set of 12 corpus puzzles at 60 s / 10 s it took the mean goal from
60.8 (MCTS) to 90.0, seven puzzles solved against eleven (docs/puzzles.md).
No heuristic is learnt and no configurations are raced in a puzzle."""

PUZZLE_LOOK = 0.25
"""Seconds of puzzle search between two looks for the faster rules while they are
being built (`SearchWorker._search_puzzle`)."""

SEARCH_TRAPS = True
"""Play positions the exact solver settles in a tenth of the move's time
exactly, and among the moves that keep their value the trap a flat Monte Carlo
opponent is likeliest to fall into (`ggp.player.search.traps`, `mcts:traps=yes`)."""


def build_native(rules: str) -> Game:
    """The game of `rules` on native code, or the fastest reasoner there is (`ggp.gdl.load`)."""
    return game_from_text(rules, "the rules of this match", "native")


class SearchWorker:
    """The game, the search tree and the state table of one match.

    `build` builds the game the search moves to once it is ready (`StagedRules`);
    until then the search runs on the interpreter.
    """

    def __init__(self, build: Builder = build_native) -> None:
        self.build = build
        self.staged: StagedRules | None = None
        self.native_checked: Game | None = None
        """The game for which `take_native_tree` has looked at a native tree."""
        """The faster rules being built, until the search takes them (`take_faster_rules`)."""
        self.history: list[list[str]] = []
        """The joint moves played (to reach the current state in the faster game)."""
        self.tree: MCTS | None = None
        self.table: StateTable | None = None
        self.table_file: Path | None = None
        self.rng = random.Random()
        self.steps = 0
        """Joint moves played since the initial state."""
        self.max_nodes: int | None = None
        self.parts = ServedParts(self._part_tree, SEARCH_KEEP_PARTS)
        """With `SEARCH_FACTOR`: the trees over our part and which one a step searches."""
        self.traps_on = SEARCH_TRAPS
        """Whether to solve positions exactly and set traps (``traps`` at load)."""
        self.final = DEFAULT_FINAL
        """How the trees choose the move from their root's statistics (``final`` at load)."""
        self.traps: Traps | None = None
        """With `traps_on`: the exact values and traps of our role in this match."""
        self.tactics = ServedTactics(self._tactics_stopped)
        """Our role's tactical search over the match, as the search serves it."""
        self.ponder_limit = 0.0
        """Seconds pondered at most after a command (0: no pondering)."""
        self.ponder_until = 0.0
        """When pondering stops (monotonic): the last command + `ponder_limit`."""
        self.ponder_from = 0.0
        """When pondering may begin (monotonic): after a search, `REPLY_PAUSE` later."""
        self.pondered = 0
        """Simulations run while pondering since the last search answer..."""
        self.ponder_seconds = 0.0
        """...and the seconds they took..."""
        self.ponder_settled = 0
        """...and the iterations that ended on proven nodes (`MCTS.settled`)."""
        self.learning: Learning | None = None
        """The heuristic being learnt, until the search takes it (`take_heuristic`)."""
        self.stop_at = math.inf
        """When the simulation running must stop (monotonic): a search's deadline."""
        self.slowest = 0.0
        """The slowest simulation of the last search, in seconds."""
        self.waiting: Callable[[], bool] = lambda: False
        """Whether a command is waiting to be read (set by `serve`)."""
        self.playout = ServePlayout(0, self.must_stop)
        """The part trees' evaluation (set at ``load``)..."""
        self.part_playout = ServePlayout(SEARCH_DECISIVE, self.must_stop)
        """...and where `part_decisive_suits`, decisive within the part."""
        self.config = SearchConfig(SEARCH_C)
        """What the joint-move tree does: the defaults, then what races chose."""
        self.heuristic: Heuristic | None = None
        """The learnt heuristic, once taken (`take_heuristic`)."""
        self.races = ServedRaces(
            self.race_tree, self._part_tree, lambda: self.tree.root_state, self.rng
        )
        """The race choosing `config` over the match (`ggp.player.service.served_races`)."""
        self.chosen: SearchConfig | None = None
        """The configuration the races chose, once one changed it: this worker's own,
        or the racing worker's (``configure``), followed through new trees."""
        self.ponder_slices = 0
        """Slices of pondering so far (one in `ServedTactics.ponder_every` may go to the
        tactics)."""
        self.puzzle: PuzzleSearch | None = None
        """With `SEARCH_PUZZLES`, in a game of one role: its puzzle search (set at
        ``load``, moved onto the faster rules with the tree), searched and pondered
        in place of the tree."""

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        """The answer to one command (without its id)."""
        name = command.get("cmd")
        if name == "load":
            self.final = checked_final(command.get("final", DEFAULT_FINAL))
            answer = self.load(
                command["rules"],
                command.get("table_dir"),
                command.get("depth", 4),
                command.get("max_nodes"),
            )
            if "settle" in command:
                self.settle(command["settle"])
            self.ponder_limit = command.get("ponder", 0.0)
            self.traps_on = command.get("traps", SEARCH_TRAPS)
            self.tactics.load(
                command.get("tactics", SEARCH_TACTICS),
                bool(command.get("tactics_race", False)),
                int(command.get("tactics_workers", 1)),
            )
            self.races.load(command.get("races", SEARCH_RACES))
            return answer
        if self.tree is None:
            raise GameError(f"{name!r} before any game was loaded")
        if name == "search":
            left = command["until"] - time.time()
            race = command.get("race", 0.0)
            start_clock = bool(command.get("start", False))
            return self.search(command["role"], left, command.get("iterations"), race, start_clock)
        if name == "advance":
            return self.advance(command["joint"])
        if name == "save":
            return self.save()
        if name == "configure":
            return self.configure(command["config"])
        raise GameError(f"unknown command {name!r}")

    def load(
        self, rules: str, table_dir: str | None, depth: int, max_nodes: int | None = None
    ) -> dict[str, Any]:
        game = game_from_text(rules, "the rules of this match", "interpreter")
        if table_dir is not None:
            self.table_file = table_path(table_dir, game)
            try:
                self.table = StateTable.load(self.table_file, game, depth)
            except GameError as error:  # a damaged table costs its learning, not the match
                print(f"search worker: {error}; starting a new table", file=sys.stderr)
                self.table = StateTable(game, depth)
        self.max_nodes = max_nodes
        self.history = []
        self.learning = None
        self.heuristic = None
        self.chosen = None
        self.ponder_slices = 0
        self._grow(game.initial_state(), 0)
        self.staged = StagedRules(rules, self.build)
        return {"roles": list(game.roles)}

    def _grow(self, state: State, depth: int) -> None:
        """A new search at `state` with the default configuration: the tree, the
        part trees and the traps start afresh."""
        decisive = decisive_suits(state.game)
        self.config = SearchConfig(SEARCH_C, decisive=decisive)
        self._follow_choice()
        self.playout = ServePlayout(SEARCH_DECISIVE if decisive else 0, self.must_stop)
        self.tree = self.new_tree(state, depth)
        self.parts.restart(SEARCH_KEEP_PARTS)
        self.traps = None
        self.tactics.restart()
        self.puzzle = self._puzzle_at(state, depth)

    def _puzzle_at(self, state: State, depth: int) -> PuzzleSearch | None:
        """With `SEARCH_PUZZLES`, in a game of one role, the puzzle search at `state`,
        `depth` moves into the match, keeping the best line found on other rules:
        profiled by random lines on compiled rules (on the interpreter they cost too
        much, and the guidance reads the compiled rules), where alone NMCS and NRPA
        run (a line on the interpreter can outlast a play clock)."""
        if not SEARCH_PUZZLES or len(state.game.roles) != 1:
            return None
        best = self.puzzle.best if self.puzzle is not None else BestLine()
        compiled = isinstance(state.game, CompiledGame)
        profiled = profile(state.game, self.rng) if compiled else None
        return PuzzleSearch(
            state, self.rng, profile=profiled, played=depth, best=best, playouts=compiled
        )

    def take_faster_rules(self) -> None:
        """Once the faster rules are built, search on them: a new tree at the state
        the match has reached replaces the interpreter's (called where the
        heuristic is taken, `take_heuristic`).  Then the heuristic is learnt, on
        the rules the search keeps."""
        staged = self.staged
        if staged is None or not staged.done.is_set():
            return
        self.staged = None
        tree = self.tree
        assert tree is not None
        if staged.game is not None:
            state = replay(staged.game, self.history)
            print(
                f"search worker: the rules are compiled"
                f"{', with their native code,' if staged.game.native is not None else ''} after "
                f"{staged.seconds:.1f} s; the "
                f"search moves from the interpreter ({tree.node_count} nodes) to them at "
                f"move {self.steps}",
                file=sys.stderr,
            )
            self._grow(state, tree.root_depth)
        else:
            print(f"search worker: the interpreter plays on ({staged.why})", file=sys.stderr)
        if SEARCH_IMM > 0 and self.puzzle is None:
            self.learning = Learning(
                self.tree.root_state.game,
                SEARCH_MATERIAL,
                material_first=SEARCH_MATERIAL_FIRST,
                progress=SEARCH_PROGRESS,
            )

    def settle(self, timeout: float | None = None) -> None:
        """Wait until the faster rules are built (`timeout` seconds at most) and take
        them, for a caller that would rather wait than search on the interpreter."""
        if self.staged is not None:
            self.staged.wait(timeout)
            self.take_faster_rules()

    def take_better_search(self) -> None:
        """Take what has become ready since the last look: the faster rules, the heuristic,
        the native tree."""
        self.take_faster_rules()
        self.take_heuristic()
        self.take_native_tree()

    @property
    def improving(self) -> bool:
        """Whether something the search will take is still being prepared."""
        return self.staged is not None or self.learning is not None or self._native_to_come

    @property
    def _native_to_come(self) -> bool:
        """Whether the tree is Python's on compiled rules whose native code is being
        built or is attached, and `take_native_tree` has not looked at it yet."""
        tree = self.tree
        if tree is None or tree.native:
            return False
        game = tree.root_state.game
        return (
            isinstance(game, CompiledGame)
            and game is not self.native_checked
            and (
                game.native_playouts is not None
                or (game.native_build is not None and game.native_build.is_alive())
            )
        )

    def take_native_tree(self) -> None:
        """Once the game's native code is attached, search a tree it holds and searches
        (`MCTS.native`) where the search is of the kind it runs: a fresh tree at the
        root replaces the Python one, as for the heuristic (`take_heuristic`, called
        at the same points), and where the playouts turn decisive on native code
        (`_decisive_on_native`), the native tree the heuristic's came in first; looked
        at once a game."""
        tree = self.tree
        if tree is None:
            return
        game = tree.root_state.game
        if not isinstance(game, CompiledGame) or game is self.native_checked:
            return
        if game.native_playouts is None:
            return
        self.native_checked = game
        decisive = self._decisive_on_native(game)
        if tree.native and not decisive:  # a tree made since the code was attached
            return
        fresh = self.new_tree(tree.root_state, tree.root_depth)
        if fresh.native and not tree.native:
            print(
                f"search worker: the native library searches from move {self.steps} "
                f"(the Python tree's {tree.node_count} nodes dropped)",
                file=sys.stderr,
            )
        if fresh.native or decisive:
            self.tree = fresh

    def _decisive_on_native(self, game: Game) -> bool:
        """Decisive playouts by default where native code makes them cheap
        (`decisive_suits`: few finishing moves), unless a race chose already;
        returns whether the configuration changed."""
        if self.chosen is not None or self.config.decisive or not decisive_suits(game):
            return False
        self.config = dataclasses.replace(self.config, decisive=True)
        self.playout = ServePlayout(SEARCH_DECISIVE, self.must_stop)
        print(
            "search worker: decisive playouts, wins looked for among the game's "
            "few finishing moves",
            file=sys.stderr,
        )
        return True

    def new_tree(
        self,
        state: State,
        depth: int,
        config: SearchConfig | None = None,
        table: StateTable | None = None,
    ) -> MCTS:
        """A search tree at `state`, `depth` joint moves into the game, as `config`
        (by default `config`) says; a race's trees have no state table."""
        config = config or self.config
        imm = prior = None
        if config.imm and self.heuristic is not None:
            imm = ImplicitMinimax(self.heuristic, SEARCH_IMM)
        if config.prior and self.heuristic is not None:
            prior = HeuristicPrior(self.heuristic, SEARCH_PRIOR_VISITS)
        plain = not (config.mast or config.rave)
        plies = SEARCH_DECISIVE if config.decisive else 0
        playout = ServePlayout(plies, self.must_stop) if plain else None
        return MCTS(
            state,
            c=config.c,
            rng=self.rng,
            depth=depth,
            table=table if config is not self.config else self.table,
            max_nodes=self.max_nodes,
            solver=SEARCH_SOLVER,
            shallow=SEARCH_SHALLOW,
            rave=config.rave,
            mast=config.mast,
            imm=imm,
            prior=prior,
            evaluator=playout,
            transpose=config.transpose,
            broken_rules=True,
            maxn=config.maxn,
            final=self.final,
        )

    def configure(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Search as the racing worker chose (``configure``), from a new tree at the
        root unless only the tactics changed (the racing worker runs them); a worker
        that races itself chooses for itself.  Answers the configuration searched with."""
        try:
            config = SearchConfig(**fields)
        except TypeError as error:
            raise GameError(f"not a search configuration: {fields!r}") from error
        if not self.races.on and config != self.chosen:
            self.chosen = config
            before = self.config
            if self._follow_choice():
                print(
                    f"search worker: the search plays {config.describe()}, "
                    "as the racing worker chose",
                    file=sys.stderr,
                )
                self._regrow_unless_alike(before)
        return {"config": self.config.describe()}

    def _regrow_unless_alike(self, before: SearchConfig) -> None:
        """A new tree at the root for the configuration taken, unless `before`'s tree
        searches alike (only the tactics changed: they run beside the tree)."""
        if not before.same_tree(self.config):
            self.tree = self.new_tree(self.tree.root_state, self.tree.root_depth)

    def _follow_choice(self) -> bool:
        """Take `chosen` as the configuration where this worker can search with it
        (implicit minimax and the prior need a heuristic learnt here); returns
        whether the configuration changed."""
        chosen = self.chosen
        if chosen is None or chosen == self.config:
            return False
        if not chosen.valid(self.heuristic is not None):
            if self.improving:  # the heuristic may yet be learnt: `take_heuristic` looks again
                return False
            print(
                f"search worker: cannot search with {chosen.describe()} "
                f"(no heuristic learnt here); {self.config.describe()} plays on",
                file=sys.stderr,
            )
            return False
        self.config = chosen
        return True

    def race_tree(self, config: SearchConfig, state: State) -> MCTS:
        return self.new_tree(state, 0, config, None)

    def take_heuristic(self) -> None:
        """Once the heuristic is learnt, search with it: a new tree at the root,
        with implicit minimax backups, replaces the plain one (whose nodes hold
        no heuristic values).  Called where losing the tree costs least: when
        pondering, after a move, and in a search at most half over.  Where no
        heuristic was learnt the plain tree stays."""
        learning = self.learning
        if learning is None or not learning.done.is_set():
            return
        self.learning = None
        if learning.result is None:
            return
        assert self.tree is not None
        print(f"search worker: learnt heuristic\n{learning.result.describe()}", file=sys.stderr)
        self.heuristic = learning.result
        self.config = dataclasses.replace(self.config, imm=True, prior=SEARCH_PRIOR)
        self._follow_choice()
        self.tree = self.new_tree(self.tree.root_state, self.tree.root_depth)

    def start_race(self) -> None:
        """Once the rules are final and the heuristic learnt or not, start racing
        configurations from the current one (`ServedRaces.start`; not in a puzzle)."""
        if self.puzzle is not None or self.improving:
            return
        started = self.races.start(
            self.config,
            self.heuristic is not None,
            self.tactics,
            SEARCH_FACTOR,
            SEARCH_SOLVER and not SEARCH_SHALLOW,
        )
        if started is not None:
            self.config = started

    def must_stop(self) -> bool:
        """Whether a playout on the interpreter must end now (`ServePlayout`): the
        search's deadline has passed, or, pondering, a command is waiting."""
        return time.monotonic() >= self.stop_at or self.waiting()

    def racing(self) -> bool:
        """Whether a race is running (started now if it can start, `start_race`)."""
        self.start_race()
        return self.races.ready

    def run_race(self, until: float) -> None:
        """Race until `until` (monotonic; a race move may run past it) and take the
        champion a verdict chose (`ServedRaces.run`)."""
        self.start_race()
        if not self.races.ready:
            return
        champion = self.races.run(until)
        if champion is not None:
            before = self.config
            self.tactics.on = champion.tactics and not self.tactics.broke
            self.chosen = champion
            self.config = dataclasses.replace(champion, tactics=self.tactics.on)
            self._regrow_unless_alike(before)
        if self.races.race.finished:
            print(f"search worker: the search plays {self.config.describe()}", file=sys.stderr)

    def search(
        self,
        role: int,
        seconds: float,
        iterations: int | None,
        race: float = 0.0,
        start_clock: bool = False,
    ) -> dict[str, Any]:
        """Search for role `role` for `seconds` (or `iterations`), the first `race`
        share of them racing configurations where a race can run (`run_race`); in a
        puzzle, the puzzle search (`_search_puzzle`).  `start_clock`: the start
        clock's search (see `SMALL_TREE`)."""
        if self.puzzle is not None:
            return self._search_puzzle(seconds)
        start = time.monotonic()
        self.stop_at = start + seconds
        try:
            return self._search(role, start, seconds, iterations, race, start_clock)
        finally:
            self.stop_at = math.inf

    def _search(
        self,
        role: int,
        start: float,
        seconds: float,
        iterations: int | None,
        race: float,
        start_clock: bool,
    ) -> dict[str, Any]:
        deadline = start + seconds
        race_until = start + race * seconds
        cpu = time.process_time()
        thread_cpu = time.thread_time()
        raced = 0.0
        """Thread CPU seconds of this search that went to races."""
        sims = 0
        """Iterations of this search..."""
        settled = 0
        """...of which ended on a proven node, not simulations (`MCTS.settled`)."""
        slowest = 0.0
        self.take_better_search()
        tree = self._tree_for(role)
        first = reasoner_of(tree.root_state.game)
        plan = self._solve(role, start + SOLVE_SHARE * seconds)
        verdict = None
        search_until = deadline
        if plan is not None:
            assert self.traps is not None and self.tree is not None
            now = time.monotonic()
            trap_deadline = now + TRAP_SHARE * (deadline - now)
            move = self.traps.trap(plan, self.tree.root_state, self.rng, trap_deadline)
            if move is not None:
                return self._answer(tree, role, move, 0, cpu, plan, first)
        else:
            tactics_until = time.monotonic() + self.tactics.share() * seconds
            verdict = self.tactics.prove(tree.root_state, role, self.steps, tactics_until)
            if verdict is not None and verdict.wins:
                move = verdict.choose(None, [stats.move for stats in tree.statistics(role)])
                return self._answer(tree, role, move, 0, cpu, plan, first, verdict)
            if verdict is not None and not verdict.finished:
                search_until = deadline - self.tactics.check_share() * seconds
        while iterations is None or sims < iterations:
            began = time.monotonic()
            if self.improving and (
                start_clock or began - start <= deadline - began or tree.node_count <= SMALL_TREE
            ):
                self.take_better_search()
                tree = self._tree_for(role)
            if began < race_until and iterations is None and self.racing():
                race_cpu = time.thread_time()
                self.run_race(race_until)
                raced += time.thread_time() - race_cpu
                self.races.search_seconds += time.monotonic() - began
                tree = self._tree_for(role)
                continue
            began = time.monotonic()  # an iteration's time, not the look for a better search's
            if began + slowest >= search_until:
                break
            if tree.native:  # the library's loop, a slice at a time (`NATIVE_SLICE`)
                tree.slowest = slowest
                left = None if iterations is None else iterations - sims
                slice_end = began + NATIVE_SLICE
                before = tree.settled
                done = tree.search(left, slice_end, finish_by=search_until)
                settled += tree.settled - before
                slowest = tree.slowest
                if done == 0 and time.monotonic() < slice_end:  # proven, or no time for one more
                    if self.parts.spent(tree, self.steps, role):
                        tree = self._tree_for(role)
                        continue
                    break
                sims += done
                continue
            before = tree.settled
            if tree.search(iterations=1) == 0:
                if self.parts.spent(tree, self.steps, role):
                    tree = self._tree_for(role)
                    continue
                break
            settled += tree.settled - before
            slowest = max(slowest, time.monotonic() - began)
            sims += 1
        self.slowest = slowest
        if sims and iterations is None and race == 0:  # a move's search, not the start's
            self.races.record_move(
                time.thread_time() - thread_cpu - raced, sims - settled + self.pondered
            )
        move = tree.best_move(role)
        if plan is not None:
            move = Traps.best_of(plan, [stats.move for stats in tree.statistics(role)])
        elif verdict is not None:
            favourite = move
            ranked = [stats.move for stats in tree.statistics(role)]
            if search_until < deadline:
                order = [favourite, *ranked]
                verdict = self.tactics.check(tree.root_state, verdict, order, self.steps, deadline)
            move = verdict.choose(move, ranked)
            if move != favourite:
                print(
                    f"search worker: the tactics overrode the search at move {self.steps}: "
                    f"{favourite} loses within {verdict.losses[favourite]} plies, "
                    f"{move} played instead",
                    file=sys.stderr,
                )
        return self._answer(tree, role, move, sims - settled, cpu, plan, first, verdict, settled)

    def _search_puzzle(self, seconds: float) -> dict[str, Any]:
        """Search the puzzle for `seconds` (not at all once its best line reaches 100 or
        is proven optimal) and answer the best line's next move (see the module),
        with ``line_goal``, the goal it reaches (null: none yet), and ``line``, what
        the log says of it.  While the faster rules are being built, it looks for
        them every `PUZZLE_LOOK` seconds and goes on on them (keeping the best line):
        a start clock is long, and the interpreter's search far slower."""
        deadline = time.monotonic() + seconds
        cpu = time.process_time()
        assert self.tree is not None
        first = reasoner_of(self.tree.root_state.game)
        steps = 0
        while True:
            self.take_faster_rules()
            puzzle, staged = self.puzzle, self.staged
            assert puzzle is not None
            if staged is None:
                steps += puzzle.search(deadline)
                break
            searched = puzzle.search(min(deadline, time.monotonic() + PUZZLE_LOOK))
            steps += searched
            left = deadline - time.monotonic()
            if puzzle.done or left <= 0:
                break
            if searched == 0:  # nothing left to search on these rules: wait for the others
                staged.wait(min(left, PUZZLE_LOOK))
        reasoner = reasoner_of(self.tree.root_state.game)
        answer = {
            "move": puzzle.move(),
            "sims": steps,
            "steps": self.steps,
            "nodes": 0,
            "stats": [],
            "pondered": self.pondered,
            "ponder_seconds": round(self.ponder_seconds, 3),
            "cpu": round(time.process_time() - cpu, 4),
            "reasoner": reasoner if reasoner == first else f"{first}, then {reasoner}",
            "proven": puzzle.best.goal if puzzle.done else None,
            "exact": False,
            "line_goal": puzzle.best.goal,
            "line": puzzle.describe(),
            "plan": list(puzzle.best.line.moves) if puzzle.best.line is not None else [],
        }
        self.pondered, self.ponder_seconds, self.ponder_settled = 0, 0.0, 0
        return answer

    def _solve(self, role: int, deadline: float) -> Plan | None:
        """With `traps_on`, the exact solver's plan of the current state, if it
        finds one by `deadline` (`ggp.player.search.traps`).  Not on the
        interpreter: the solver looks at the clock every `exact.CLOCK_EVERY` states,
        seconds apart there for a large game (chess: 6 s past a 4 s search)."""
        if not self.traps_on or not isinstance(self.tree.root_state.game, CompiledGame):
            return None
        if self.traps is None or self.traps.role != role:
            self.traps = Traps(role)
        assert self.tree is not None
        try:
            return self.traps.solve(self.tree.root_state, deadline)
        except GameDefinitionError as error:  # rules that break below: the search alone
            print(f"search worker: the exact solver stops: {error}", file=sys.stderr)
            self.traps_on = False
            return None

    def _tactics_stopped(self) -> None:
        """The rules broke in the tactics: the search goes on without them."""
        self.config = dataclasses.replace(self.config, tactics=False)

    def _answer(
        self,
        tree: MCTS,
        role: int,
        move: str,
        sims: int,
        cpu: float,
        plan: Plan | None,
        first: str,
        verdict: Verdict | None = None,
        settled: int = 0,
    ) -> dict[str, Any]:
        """The answer to a search that chose `move` (see the module's docstring);
        `first` is what played the rules when the search began, `verdict` what the
        tactics proved (their bounds go into the statistics), `sims` the simulations
        and `settled` the other iterations (on proven nodes)."""
        reasoner = reasoner_of(tree.root_state.game)
        # a tree over our part proves with the other parts frozen: its bounds hold in
        # that part's game, not in the match (the others move too), so they stay here
        sound = tree.part is None
        if plan is not None:
            proven: int | None = round(100 * plan.value)
        elif sound and tree.root.proven is not None:
            proven = round(100 * tree.root.proven[role])
        elif verdict is not None and verdict.wins:
            proven = 100
        elif verdict is not None and verdict.moves and len(verdict.losses) == len(verdict.moves):
            # every move lost: 0 for sure only where the others do not choose at the same
            # time (with simultaneous moves each loss is a reply's, which they must guess)
            legal = tree.root_state.all_legal_moves()
            alone = all(len(moves) == 1 for other, moves in enumerate(legal) if other != role)
            proven = 0 if alone else None
        else:
            proven = None
        stats = [
            [s.move, s.visits, s.value, s.lower if sound else 0.0, s.upper if sound else 1.0]
            for s in tree.statistics(role)
        ]
        if verdict is not None:
            for row in stats:
                lower, upper = verdict.bounds(row[0])
                row[3], row[4] = max(row[3], lower), min(row[4], upper)
        answer = {
            "move": move,
            "sims": sims,
            "steps": self.steps,
            "nodes": tree.node_count,
            "stats": stats,
            "pondered": self.pondered,
            "ponder_seconds": round(self.ponder_seconds, 3),
            "settled": settled + self.ponder_settled,
            "cpu": round(time.process_time() - cpu, 4),
            "reasoner": reasoner if reasoner == first else f"{first}, then {reasoner}",
            "config": self.config.describe(),
            "proven": proven,
            "exact": plan is not None,
            "tactics": verdict.describe() if verdict is not None and verdict.found else "",
        }
        if self.chosen is not None:
            answer["chosen"] = dataclasses.asdict(self.chosen)
        self.pondered, self.ponder_seconds, self.ponder_settled = 0, 0.0, 0
        return answer

    def _tree_for(self, role: int) -> MCTS:
        """The tree to search for role `role` now: the joint-move tree, or with
        `SEARCH_FACTOR`, where the roles' moves are independent, a tree over ours
        (`ServedParts.tree_for`; unless the races chose the joint tree throughout: then
        no look at all)."""
        tree = self.tree
        assert tree is not None
        if not SEARCH_FACTOR or self.config.joint:
            return tree
        return self.parts.tree_for(tree, self.steps, role)

    def _part_tree(self, state: State, part: frozenset[str]) -> MCTS:
        """A fresh tree over the moves `part` at `state` (`ggp.player.search.factored`)."""
        return MCTS(
            state,
            c=SEARCH_C,
            rng=self.rng,
            max_nodes=self.max_nodes,
            solver=SEARCH_SOLVER and SEARCH_PART_PLAYOUTS,
            part=part,
            part_playouts=SEARCH_PART_PLAYOUTS,
            evaluator=self.part_playout if part_decisive_suits(part) else self.playout,
            broken_rules=True,
            final=self.final,
        )

    @property
    def pondering(self) -> bool:
        """Whether to search while no command is waiting (on the interpreter, only
        while its simulations are quick: `PONDER_INTERPRETED`)."""
        tree = self.tree
        if tree is None or time.monotonic() >= self.ponder_until:
            return False
        compiled = isinstance(tree.root_state.game, CompiledGame)
        return compiled or self.slowest < PONDER_INTERPRETED

    def patience(self) -> float | None:
        """Seconds to wait for a command before pondering a slice (None: until one comes)."""
        if not self.pondering:
            return None
        return max(0.0, self.ponder_from - time.monotonic())

    def heard(self, name: str | None = None) -> None:
        """The command `name` was answered: pondering may go on `ponder_limit`
        seconds from now (after a ``search``, from `REPLY_PAUSE` on)."""
        now = time.monotonic()
        self.ponder_until = now + self.ponder_limit
        self.ponder_from = now + REPLY_PAUSE if name == "search" else now

    def ponder(self) -> None:
        """Search for a slice of `PONDER_SLICE` seconds (stops at a terminal root):
        a kept part tree not searched last if there is one, else the joint tree
        (in a puzzle, the puzzle search, until it is done).
        While a race runs, it gets slices as long as it has had no more of the
        pondering's time than the search (`ServedRaces.ponders`), and one slice in
        `ServedTactics.ponder_every` goes to the tactics of the likeliest replies while
        there are some to search (`ServedTactics.ponder`)."""
        self.take_better_search()
        if self.puzzle is not None:
            began = time.monotonic()
            self.pondered += self.puzzle.search(began + PONDER_SLICE)
            self.ponder_seconds += time.monotonic() - began
            if self.puzzle.done:
                self.ponder_until = 0.0
            return
        self.ponder_slices += 1
        if self.races.ponders() and self.racing():
            began = time.monotonic()
            self.run_race(began + PONDER_SLICE)
            self.races.race_seconds += time.monotonic() - began
            return
        if self.ponder_slices % self.tactics.ponder_every() == 1 and self.tactics.ponder(
            self.tree, self.steps, time.monotonic() + PONDER_SLICE
        ):
            return
        tree = (None if self.config.joint else self.parts.ponder_tree()) or self.tree
        assert tree is not None
        began = time.monotonic()
        before = tree.settled
        if isinstance(tree.root_state.game, CompiledGame):
            sims = tree.search(deadline=began + PONDER_SLICE)
        else:  # a simulation at a time: one a command has stopped is the last
            sims = tree.search(iterations=1)
        if sims == 0:  # the game is over: nothing to think about
            self.ponder_until = 0.0
        settled = tree.settled - before
        self.pondered += sims - settled
        self.ponder_settled += settled
        self.ponder_seconds += time.monotonic() - began
        self.races.tree_seconds += time.monotonic() - began

    def advance(self, joint: list[str]) -> dict[str, Any]:
        tree = self.tree
        assert tree is not None
        self._record()
        self.history.append(list(joint))
        state = tree.root_state.next(joint)
        tree.advance(joint, state)
        self.parts.advance(joint, state)
        if self.puzzle is not None:
            self.puzzle.advance(joint[0], state)
        # Count the subtrees kept now, at the start of the move (about 1 % of the
        # search time), not when answering a search, where it would eat into
        # the time kept for the reply.
        for kept in (tree, *self.parts.trees):
            kept.node_count  # noqa: B018
        self.steps += 1
        self.take_better_search()
        terminal = state.is_terminal()
        if terminal:
            self.races.report_end(self.config.describe())
        return {"terminal": terminal}

    def save(self) -> dict[str, Any]:
        if self.table is None or self.table_file is None:
            return {"path": None}
        self._record()
        self.table.save(self.table_file)
        return {"path": str(self.table_file)}

    def _record(self) -> None:
        tree, table = self.tree, self.table
        if tree is not None and table is not None and tree.root_depth <= table.depth:
            table.record(tree.root)


def reasoner_of(game: Game) -> str:
    """What plays `game`'s rules now: ``native`` code (with its playouts per
    search leaf), the ``compiled`` generated Python, or the ``interpreter``."""
    if not isinstance(game, CompiledGame):
        return "interpreter"
    if game.native is None:
        return "compiled"
    return f"native, {game.playout_batch} playouts a leaf"


class LineReader:
    """Lines from a file descriptor, waited for with a time limit (for pondering).

    The descriptor is read directly (``os.read``), not through a buffered
    file, so that `select` sees every line not yet read.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.ended = False

    def pending(self) -> bool:
        """Whether a line (or the end of input) is waiting to be read."""
        if b"\n" in self.buffer or self.ended:
            return True
        ready, _, _ = select.select([self.fd], [], [], 0)
        return bool(ready)

    def readline(self, timeout: float | None) -> str | None:
        """The next line; ``""`` at the end of input; None if none came within `timeout`."""
        while b"\n" not in self.buffer:
            if self.ended:
                rest, self.buffer = self.buffer, b""
                return rest.decode()
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 16)
            self.ended = not chunk
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode() + "\n"


def serve(commands: int, answers: TextIO, build: Builder = build_native) -> None:
    """Answer the commands read from the descriptor `commands` until ``quit`` or their end.

    Between commands, the worker ponders (see the module's docstring); `build`
    builds the faster rules (`SearchWorker`).
    """
    worker = SearchWorker(build)
    lines = LineReader(commands)
    worker.waiting = lines.pending
    while True:
        line = lines.readline(worker.patience())
        if line is None:
            worker.ponder()
            continue
        if not line:
            break
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
        worker.heard(command.get("cmd"))


def skip_full_collections() -> None:
    """Never collect the oldest generation, where the tree's nodes end up (see
    the module): the young generations are still collected, and a tree is
    freed by reference counting (`tests/test_search_worker.py` checks that a
    search leaves no cyclic garbage)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


NEVER = 2**31 - 1
"""A threshold the count of middle-generation collections never reaches."""


def main() -> None:
    skip_full_collections()
    watch_parent()
    answers = sys.stdout
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    serve(sys.stdin.fileno(), answers)


if __name__ == "__main__":
    main()
