"""Agents: whatever chooses a move for one role of a match.

An agent is told the game, its role and the match clocks at the start, is
asked for a move in each state (with a deadline, a `time.monotonic()` value,
or None), and sees every joint move as it is played, so that search can reuse
its tree.  Agents are named by specs on the command line: ``random``,
``legal``, ``mcts``, ``human``, with options after a colon
(``mcts:iterations=200,c=0.7``).
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ggp.games.base import Finishers, Game, GameError, State, canonical_move
from ggp.games.playouts import FINISHING_MOVES, Guide, random_playout
from ggp.games.registry import parse_spec
from ggp.player.agent_base import Agent, Clocks, MatchQuit, Sight
from ggp.player.search.factored import (
    FACTOR,
    KEEP_PARTS,
    PartTrees,
    independent_choices,
    proves_only_even_ends,
)
from ggp.player.search.heuristic import CUTOFF, HEURISTIC, MATERIAL, CutoffPlayout, Heuristic, learn
from ggp.player.search.hidden import DEFAULT_PARTICLES, Belief, InformationSetSearch
from ggp.player.search.imm import IMM, PRIOR, HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import (
    DECISIVE,
    DEFAULT_C,
    DEFAULT_FINAL,
    FINAL_CHOICES,
    GREEDY,
    MAST,
    MCTS,
    PART_PLAYOUTS,
    PARTIAL_PROOFS,
    RAVE,
    SHALLOW,
    SHALLOW_VISITS,
    SOLVER,
    TRANSPOSE,
    MoveStats,
)
from ggp.player.search.rave import BIAS, REF
from ggp.player.search.state_table import StateTable, table_path
from ggp.player.search.traps import SOLVE_SHARE, TRAP_SHARE, TRAPS, Traps

DEFAULT_PLAYOUTS = 500
"""Random playouts per move of a ``flatmc`` agent given neither playouts nor time."""

DEFAULT_TIME = 1.0
"""Seconds per move of an MCTS agent given no budget: about what a person will wait."""


def _share(deadline: float | None, share: float) -> float | None:
    """The time `share` of the way from now to `deadline` (None: no deadline)."""
    if deadline is None:
        return None
    now = time.monotonic()
    return now + share * (deadline - now)


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    spec = "random"
    plays_unseen = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: State, deadline: float | None) -> str:
        return self.rng.choice(state.legal_moves(self.role))

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        return self.rng.choice(legal)


class LegalAgent(Agent):
    """Plays the first legal move: a deterministic baseline."""

    spec = "legal"
    plays_unseen = True

    def choose_move(self, state: State, deadline: float | None) -> str:
        return state.legal_moves(self.role)[0]

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        return legal[0]


class InformationSetAgent(Agent):
    """GDL-II: information-set MCTS over a particle belief (`ggp.player.search.hidden`).

    The belief keeps `particles` states consistent with what the role has seen;
    each move is searched for `iterations`, `time` seconds or both (never past
    the referee's deadline), from scratch; a forced move is played unsearched.
    Plays GDL-II games only (`mcts` sees the whole state of the others)."""

    spec = "ismcts"
    plays_unseen = True

    def __init__(
        self,
        *,
        iterations: int | None = None,
        time: float | None = None,
        particles: int = DEFAULT_PARTICLES,
        c: float = 0.7,
        seed: int | None = None,
    ) -> None:
        self.iterations = iterations
        self.time = DEFAULT_TIME if iterations is None and time is None else time
        self.particles = particles
        self.c = c
        self.rng = random.Random(seed)
        self.last_ranking: list[MoveStats] = []

    def start(self, game: Game, role: int, clocks: Clocks | None = None) -> None:
        if not game.gdl_ii:
            raise GameError(f"agent ismcts plays GDL-II games; {game.name} is not one: use mcts")
        super().start(game, role, clocks)
        self.belief = Belief(game, role, self.particles, random.Random(self.rng.getrandbits(32)))

    def perceive(self, sight: Sight) -> None:
        self.belief.observe(sight.move, sight.percepts)

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        if len(legal) == 1:
            return legal[0]
        deadline = _share(deadline, 0.9)  # a margin for the reply to reach the referee
        if self.time is not None:
            own = time.monotonic() + self.time
            deadline = own if deadline is None else min(own, deadline)
        search = InformationSetSearch(self.belief, self.c, random.Random(self.rng.getrandbits(32)))
        search.run(self.iterations, deadline)
        values = search.values()
        self.last_ranking = sorted(
            (MoveStats(move, visits, mean / 100) for move, (visits, mean) in values.items()),
            key=lambda stats: (-stats.visits, -stats.value, stats.move),
        )
        move = search.best_move()
        return move if move in legal else self.rng.choice(legal)

    def ranking(self) -> list[MoveStats]:
        return self.last_ranking


class FlatMonteCarloAgent(Agent):
    """Flat Monte Carlo: every legal move gets uniformly random playouts in turn
    (the other roles' moves drawn at random too), `playouts` each or until
    `time` seconds are up (whichever ends first, and never past the
    referee's deadline), and the move whose playouts gave it the most is
    played.  The simplest player that looks ahead, as GGP-Base's
    SampleMonteCarloGamer: a baseline below MCTS.  Without a tree it values
    every reply of the opponent as a random one, so it misses what a good
    reply would do (`ggp.player.search.traps` plays on that)."""

    spec = "flatmc"

    def __init__(
        self, *, playouts: int | None = None, time: float | None = None, seed: int | None = None
    ) -> None:
        self.playouts = DEFAULT_PLAYOUTS if playouts is None and time is None else playouts
        self.time = time
        self.rng = random.Random(seed)

    def choose_move(self, state: State, deadline: float | None) -> str:
        legal = state.legal_moves(self.role)
        if len(legal) == 1:
            return legal[0]
        if self.time is not None:
            own = time.monotonic() + self.time
            deadline = own if deadline is None else min(own, deadline)
        totals = [0.0] * len(legal)
        counts = [0] * len(legal)
        while self.playouts is None or counts[-1] < self.playouts:
            if deadline is not None and time.monotonic() >= deadline:
                break
            for i, move in enumerate(legal):
                joint = [self.rng.choice(moves) for moves in state.all_legal_moves()]
                joint[self.role] = move
                after = state.next(joint)
                if after.is_terminal():
                    goals = after.goals()
                else:
                    goals, _ = random_playout(after, self.rng)
                totals[i] += goals[self.role]
                counts[i] += 1
        means = [
            total / count if count else 0.0 for total, count in zip(totals, counts, strict=True)
        ]
        return legal[means.index(max(means))]


class MCTSAgent(Agent):
    """Monte Carlo tree search (`ggp.player.search.mcts`), reusing its tree from move to move.

    The budget per move is `iterations`, `time` seconds, or both (whichever
    ends first), and never past the referee's deadline.  A forced move (the
    only legal one, ``noop`` while another role moves) is played without a
    search: on Connect Four, searching during the other player's turns too
    (the tree is kept) won no measurable strength for twice the work.  With
    `table`, a folder, the statistics of the top `depth` levels of the tree
    are loaded at the start of a match and saved at its end
    (`ggp.player.search.state_table`).  `nodes` caps the nodes of the tree
    (`MCTS.max_nodes`; None: no cap).  `solver` and `mast` switch on the
    MCTS-Solver and MAST playouts (`MCTS`; `mast_steps`: MAST for that many moves
    of a playout only); `greedy` makes the random playouts take a winning move
    where they see one in their first `greedy` moves, and `decisive` also avoid
    a move after which another role can win at once in their first `decisive`
    moves (`playouts.Decisive`); with `finish` above 0, both look for
    wins only among the moves that ended `finish` random playouts from the
    initial state, learnt at the start of each match (`playouts.FinishingMoves`:
    on Breakthrough, the steps onto the last row); `shallow` (with `solver`)
    searches a node reached `shallow_visits` times `shallow` plies deep for
    forced wins and losses (`ggp.player.search.shallow`); `partial_proofs` (with `solver`)
    bounds simultaneous-move nodes from the joint moves tried so far; `maxn` (with
    `solver`) proves by each role's own best choice (`MCTS` ``maxn``); `bounded` (with
    `solver`) makes the search score-bounded (`MCTS` ``bounded``); with
    `factor`, a move where the roles' moves change separate parts of the state
    (`ggp.player.search.factored.independent_choices`) is searched by a fresh tree over
    the part ours act on, the other roles' choices elsewhere drawn at random,
    and with `keep_parts` by the tree of that part kept from the moves before
    (`ggp.player.search.factored.PartTrees`), and with `part_playouts` that part is
    searched as a game of its own: its playouts play it alone, the others
    frozen (`playouts.Part`), and with `solver` its proofs are proofs of
    it; `transpose` shares the
    node of a state reached by several orders of moves (`MCTS`); `rave`
    chooses moves by GRAVE with `rave_ref` and `rave_bias` (`ggp.player.search.rave`).  With
    `heuristic`, a state evaluation is learnt from random playouts at the start
    of each match (`ggp.player.search.heuristic`; `learnt` holds it, None where the game
    has no feature that predicts its goals, and then the playouts are plain)
    and the playouts are cut off after `cutoff` moves and valued by it.  With
    `imm` above 0, the heuristic is learnt the same way (with or without
    `heuristic`) and backed up in the tree as implicit minimax values weighted
    `imm` in the choice of moves (`ggp.player.search.imm`); with `prior` above 0, a move's
    statistics start with that many virtual visits worth the heuristic's value
    of the child it leads to (`ggp.player.search.imm.HeuristicPrior`).  Where the game has
    no heuristic, the search is plain.  `material` above 0 adds to a learnt
    heuristic its material term with that weight (`ggp.player.search.heuristic.material_term`);
    with `material_first`, the material term alone is the heuristic wherever it
    predicts the goals, a fit only where it does not; `progress` above 0 weighs a
    piece of the material alone by its distance to its role's goal, read from the
    rules (`ggp.player.search.goal_distance`).
    With `learn_decisive`, the heuristic is learnt from decisive playouts
    (`playouts.Decisive`) instead of random ones, on native code; with
    `rule_features`, the rule features (mobility, partial goal satisfaction) are
    tried too, kept where they earn their place (`ggp.player.search.heuristic.learn`).
    With `traps`, a position the exact solver settles in a tenth of the move's
    time (`ggp.player.search.traps`; within 200,000 states when the move has no time)
    is played exactly, and among the moves that keep its value by the trap
    a flat Monte Carlo opponent is likeliest to fall into.
    """

    spec = "mcts"

    def __init__(
        self,
        *,
        iterations: int | None = None,
        time: float | None = None,
        c: float = DEFAULT_C,
        final: str = DEFAULT_FINAL,
        stochastic: bool = False,
        table: str | None = None,
        depth: int = 4,
        nodes: int | None = None,
        solver: bool = SOLVER,
        mast: bool = MAST,
        mast_steps: int | None = None,
        greedy: int = GREEDY,
        decisive: int = DECISIVE,
        finish: int = 0,
        guide: int = 1,
        shallow: int = SHALLOW,
        shallow_visits: int = SHALLOW_VISITS,
        transpose: bool = TRANSPOSE,
        rave: bool = RAVE,
        rave_ref: int = REF,
        rave_bias: float = BIAS,
        heuristic: bool = HEURISTIC,
        cutoff: int = CUTOFF,
        imm: float = IMM,
        prior: int = PRIOR,
        material: float = MATERIAL,
        learn_decisive: bool = False,
        rule_features: bool = False,
        material_first: bool = False,
        progress: float = 0.0,
        partial_proofs: bool = PARTIAL_PROOFS,
        factor: bool = FACTOR,
        keep_parts: bool = KEEP_PARTS,
        part_playouts: bool = PART_PLAYOUTS,
        traps: bool = TRAPS,
        maxn: bool = False,
        bounded: bool = False,
        seed: int | None = None,
    ) -> None:
        if keep_parts and not factor:
            raise GameError("agent mcts: keep_parts=yes keeps the trees of factor=yes: add it")
        if part_playouts and not factor:
            raise GameError("agent mcts: part_playouts=yes plays in factor=yes's trees: add it")
        if part_playouts and (greedy or decisive):
            raise GameError("agent mcts: part_playouts=yes plays random ones: not greedy, decisive")
        if heuristic and (mast or greedy or decisive or rave):
            raise GameError(
                "agent mcts: heuristic=yes plays its own playouts, "
                "not mast or greedy (nor decisive, nor rave)"
            )
        if decisive and (greedy or mast or rave):
            raise GameError(
                "agent mcts: decisive=N plays its own random playouts (taking winning moves): "
                "not with greedy, mast or rave"
            )
        if finish and not (greedy or decisive):
            raise GameError(
                "agent mcts: finish=PLAYOUTS chooses the moves greedy=N or decisive=N "
                "look at for wins: add one of them"
            )
        if guide > 1 and not (decisive and (imm or prior)):
            raise GameError(
                "agent mcts: guide=K guides decisive=N playouts by the heuristic of imm=ALPHA "
                "or prior=VISITS: add them"
            )
        if material_first and not material:
            raise GameError("agent mcts: material_first=yes tries the material=W term first")
        if progress and not material:
            raise GameError("agent mcts: progress=K weighs the pieces of the material=W term")
        if not 0 <= imm <= 1:
            raise GameError(f"agent mcts: imm=ALPHA needs a weight from 0 to 1, got {imm}")
        if imm and rave:
            raise GameError("agent mcts: imm=ALPHA and rave=yes both change the choice of moves")
        if shallow and not solver:
            raise GameError("agent mcts: shallow=PLIES needs solver=yes (it proves for the solver)")
        if partial_proofs and not solver:
            raise GameError("agent mcts: partial_proofs=yes needs solver=yes (its proofs)")
        if bounded and not solver:
            raise GameError("agent mcts: bounded=yes needs solver=yes (its bounds)")
        if maxn and (not solver or shallow or partial_proofs):
            raise GameError(
                "agent mcts: maxn=yes needs solver=yes, without shallow or partial_proofs"
            )
        self.iterations = iterations
        self.time = DEFAULT_TIME if iterations is None and time is None else time
        self.c = c
        self.final = final
        self.stochastic = stochastic
        self.table_dir = table
        self.depth = depth
        self.nodes = nodes
        self.solver = solver
        self.mast = mast
        self.mast_steps = mast_steps
        self.greedy = greedy
        self.decisive = decisive
        self.finish = finish
        self.guide = guide
        self.finishers: Finishers | None = None
        self.shallow = shallow
        self.shallow_visits = shallow_visits
        self.transpose = transpose
        self.rave = rave
        self.rave_ref = rave_ref
        self.rave_bias = rave_bias
        self.heuristic = heuristic
        self.cutoff = cutoff
        self.imm = imm
        self.prior = prior
        self.material = material
        self.learn_decisive = learn_decisive
        self.rule_features = rule_features
        self.material_first = material_first
        self.progress = progress
        self.partial_proofs = partial_proofs
        self.maxn = maxn
        self.bounded = bounded
        self.factor = factor
        self.parts = PartTrees(self._part_tree, keep_parts)
        self.part_playouts = part_playouts
        self.traps_on = traps
        self.traps: Traps | None = None
        self.learnt: Heuristic | None = None
        self.rng = random.Random(seed)
        self.tree: MCTS | None = None
        self.table: StateTable | None = None
        self.steps = 0
        self.last_ranking: list[MoveStats] = []

    def start(self, game: Game, role: int, clocks: Clocks | None = None) -> None:
        super().start(game, role, clocks)
        self.tree = None
        self.parts = PartTrees(self._part_tree, self.parts.keep)
        self.steps = 0
        self.last_ranking = []
        self.traps = Traps(role) if self.traps_on else None
        if self.table_dir is not None:
            self.table = StateTable.load(table_path(self.table_dir, game), game, self.depth)
        if self.finish:
            seed = random.Random(self.rng.getrandbits(32))
            self.finishers = game.initial_state().playouts(seed, self.finish, FINISHING_MOVES)
        if self.heuristic or self.imm or self.prior:
            seed = random.Random(self.rng.getrandbits(32))
            self.learnt = learn(
                game,
                seed,
                material=self.material,
                decisive=self.learn_decisive,
                rich=self.rule_features,
                material_first=self.material_first,
                progress=self.progress,
            )

    def choose_move(self, state: State, deadline: float | None) -> str:
        legal = state.legal_moves(self.role)
        if len(legal) == 1:
            self.last_ranking = []
            return legal[0]
        if self.factor and independent_choices(state):
            self.tree = None
            tree = self.parts.tree_for(state, self.role)
        else:
            tree = self._joint_tree(state)
        if self.time is not None:
            own = time.monotonic() + self.time
            deadline = own if deadline is None else min(own, deadline)
        plan = None
        if self.traps is not None:
            plan = self.traps.solve(state, _share(deadline, SOLVE_SHARE))
            if plan is not None:
                move = self.traps.trap(plan, state, self.rng, _share(deadline, TRAP_SHARE))
                if move is not None:
                    self.last_ranking = tree.statistics(self.role)
                    return move
        tree.search(self.iterations, deadline)
        if tree.part is not None and proves_only_even_ends(tree, self.role):
            tree = self._joint_tree(state)
            tree.search(self.iterations, deadline)
        self.last_ranking = tree.statistics(self.role)
        if plan is not None:
            return self.traps.best_of(plan, [stats.move for stats in self.last_ranking])
        return tree.best_move(self.role)

    def _joint_tree(self, state: State) -> MCTS:
        """The tree of joint moves at `state`: the one kept from the moves before if it
        is there, else a fresh one."""
        if self.tree is None or self.tree.root_state != state:
            self.tree = MCTS(
                state,
                **self._shared_options(),
                table=self.table,
                solver=self.solver,
                partial_proofs=self.partial_proofs,
                maxn=self.maxn,
                bounded=self.bounded,
                mast=self.mast,
                mast_steps=self.mast_steps,
                shallow=self.shallow,
                shallow_visits=self.shallow_visits,
                transpose=self.transpose,
                rave=self.rave,
                rave_ref=self.rave_ref,
                rave_bias=self.rave_bias,
                evaluator=self._cutoff(),
                guide=self._guide(),
                imm=None
                if self.learnt is None or not self.imm
                else ImplicitMinimax(self.learnt, self.imm),
                prior=None
                if self.learnt is None or not self.prior
                else HeuristicPrior(self.learnt, self.prior),
            )
        return self.tree

    def _shared_options(self) -> dict[str, Any]:
        """The options of both trees: the joint-move one and, with `factor`, a part's.
        Rules that break in a state the search looks at (a terminal state without a
        role's goal) do not stop it: such iterations are counted and dropped, as in
        ``ggp serve``'s search, and the referee reports the error if play gets there."""
        return {
            "broken_rules": True,
            "c": self.c,
            "final": self.final,
            "stochastic": self.stochastic,
            "rng": self.rng,
            "depth": self.steps,
            "max_nodes": self.nodes,
            "greedy": self.greedy,
            "decisive": self.decisive,
            "finishers": self.finishers,
        }

    def _guide(self) -> Guide | None:
        """With `guide` above 1 and a learnt heuristic, the playouts' guide."""
        if self.guide <= 1 or self.learnt is None:
            return None
        return Guide(self.learnt, self.guide)

    def _part_tree(self, state: State, legal: frozenset[str]) -> MCTS:
        """With `factor`, where the roles' moves act on separate parts of the state:
        a fresh tree over our moves' part only (`ggp.player.search.factored`).  The solver
        proves there only with `part_playouts`, where the part is searched as a
        game of its own (the other parts frozen in the playouts as in the tree)."""
        return MCTS(
            state,
            **self._shared_options(),
            part=legal,
            part_playouts=self.part_playouts,
            solver=self.solver and self.part_playouts,
        )

    def _cutoff(self) -> CutoffPlayout | None:
        """The cut-off playouts of `heuristic` (None: plain playouts)."""
        if self.learnt is None or not self.heuristic:
            return None
        return CutoffPlayout(self.learnt, self.cutoff)

    def observe(self, joint: Sequence[str], state: State) -> None:
        self.steps += 1
        self.parts.advance(joint, state)
        if self.tree is not None:
            self._record()
            self.tree.advance(joint, state)

    def stop(self, state: State) -> None:
        if self.table is not None and self.table_dir is not None:
            self._record()
            self.table.save(table_path(self.table_dir, self.game))

    def ranking(self) -> list[MoveStats]:
        return self.last_ranking

    def _record(self) -> None:
        tree, table = self.tree, self.table
        if table is not None and tree is not None and tree.root_depth <= table.depth:
            table.record(tree.root)


class HumanAgent(Agent):
    """A person at a terminal: legal moves are listed, numbered; type one."""

    spec = "human"
    plays_unseen = True

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def perceive(self, sight: Sight) -> None:
        seen = " ".join(sight.percepts) if sight.percepts else "nothing"
        self._say(f"You played {sight.move} and see: {seen}")

    def choose_unseen(self, legal: Sequence[str], deadline: float | None) -> str:
        return self.choose_move_among(tuple(legal))

    def choose_move(self, state: State, deadline: float | None) -> str:
        return self.choose_move_among(state.legal_moves(self.role))

    def choose_move_among(self, legal: tuple[str, ...]) -> str:
        """The move the person types, among `legal` (listed, numbered)."""
        if len(legal) == 1 and legal[0] == "noop":
            return legal[0]
        role = self.game.roles[self.role]
        self._say(f"Your moves ({role}):")
        self._say(numbered_columns(legal))
        while True:
            self.stdout.write(f"{role}> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("quit", "exit", "q"):
                raise MatchQuit()
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            move = canonical_move(answer)
            if move in legal:
                return move
            if not move.startswith("(") and f"({move})" in legal:
                return f"({move})"
            # Typed in another case (`MARK 2 2`): the move as listed, if only one matches.
            typed = {move.lower(), f"({move})".lower()}
            matching = [candidate for candidate in legal if candidate.lower() in typed]
            if len(matching) == 1:
                return matching[0]
            self._say(
                f"{answer!r} is not a legal move: type a number from 1 to {len(legal)}, "
                "a move as listed, or quit"
            )

    def _say(self, text: str) -> None:
        print(text, file=self.stdout)


def numbered_columns(moves: Sequence[str], width: int = 78) -> str:
    """The moves numbered from 1, in as many columns as fit `width`, numbers
    running down each column (49 Hex moves take 13 lines, not 49)."""
    entries = [f"{number:>3}. {move}" for number, move in enumerate(moves, 1)]
    cell = max(map(len, entries)) + 2
    columns = max(1, width // cell)
    rows = -(-len(entries) // columns)
    lines = []
    for row in range(rows):
        line = "".join(entry.ljust(cell) for entry in entries[row::rows])
        lines.append(line.rstrip())
    return "\n".join(lines)


def _boolean(text: str) -> bool:
    if text.lower() in ("yes", "true", "1", "on"):
        return True
    if text.lower() in ("no", "false", "0", "off"):
        return False
    raise ValueError


_boolean.__name__ = "yes or no (1 or 0)"


def _at_least(kind: type, low: float, above: bool = False) -> Callable[[str], object]:
    def convert(text: str) -> object:
        value = kind(text)
        if value < low or (above and value == low):
            raise ValueError
        return value

    convert.__name__ = f"{kind.__name__} {'>' if above else '>='} {low}"
    return convert


def _one_of(*choices: str) -> Callable[[str], str]:
    def convert(text: str) -> str:
        if text not in choices:
            raise ValueError
        return text

    convert.__name__ = " or ".join(choices)
    return convert


MCTS_OPTIONS: dict[str, tuple[Callable[[str], object], str]] = {
    "iterations": (_at_least(int, 1), "N"),
    "time": (_at_least(float, 0, above=True), "SECONDS"),
    "c": (_at_least(float, 0), "X"),
    "final": (_one_of(*FINAL_CHOICES), "|".join(FINAL_CHOICES)),
    "stochastic": (_boolean, "yes|no"),
    "table": (str, "DIR"),
    "depth": (_at_least(int, 0), "N"),
    "nodes": (_at_least(int, 1), "N"),
    "solver": (_boolean, "yes|no"),
    "partial_proofs": (_boolean, "yes|no"),
    "maxn": (_boolean, "yes|no"),
    "bounded": (_boolean, "yes|no"),
    "factor": (_boolean, "yes|no"),
    "keep_parts": (_boolean, "yes|no"),
    "part_playouts": (_boolean, "yes|no"),
    "traps": (_boolean, "yes|no"),
    "mast": (_boolean, "yes|no"),
    "mast_steps": (_at_least(int, 1), "N"),
    "greedy": (_at_least(int, 0), "N"),
    "decisive": (_at_least(int, 0), "N"),
    "finish": (_at_least(int, 0), "PLAYOUTS"),
    "guide": (_at_least(int, 1), "K"),
    "shallow": (_at_least(int, 0), "PLIES"),
    "shallow_visits": (_at_least(int, 1), "N"),
    "transpose": (_boolean, "yes|no"),
    "rave": (_boolean, "yes|no"),
    "rave_ref": (_at_least(int, 0), "N"),
    "rave_bias": (_at_least(float, 0), "X"),
    "heuristic": (_boolean, "yes|no"),
    "cutoff": (_at_least(int, 0), "PLIES"),
    "imm": (_at_least(float, 0), "ALPHA"),
    "prior": (_at_least(int, 0), "VISITS"),
    "material": (_at_least(float, 0), "W"),
    "learn_decisive": (_boolean, "yes|no"),
    "rule_features": (_boolean, "yes|no"),
    "material_first": (_boolean, "yes|no"),
    "progress": (_at_least(float, 0), "K"),
}
"""The options of an ``mcts`` agent spec."""


def _convert_options(name: str, options: dict[str, str]) -> dict[str, object]:
    accepted = AGENT_OPTIONS.get(name, {})
    if options and not accepted:
        raise GameError(f"agent {name!r} takes no options, got {', '.join(options)}")
    described = ", ".join(f"{key}={what}" for key, (_, what) in accepted.items())
    converted: dict[str, object] = {}
    for key, text in options.items():
        if key not in accepted:
            raise GameError(f"agent {name}: unknown option {key!r}; options: {described}")
        convert, _ = accepted[key]
        try:
            converted[key] = convert(text)
        except ValueError:
            raise GameError(
                f"agent {name}: option {key} must be {convert.__name__}, got {text!r}"
            ) from None
    return converted


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": lambda seed: RandomAgent(seed),
    "legal": lambda seed: LegalAgent(),
    "flatmc": lambda seed, **options: FlatMonteCarloAgent(seed=seed, **options),
    "mcts": lambda seed, **options: MCTSAgent(seed=seed, **options),
    "human": lambda seed: HumanAgent(),
    "ismcts": lambda seed, **options: InformationSetAgent(seed=seed, **options),
    "nmcs": lambda seed, **options: _puzzle_agent("nmcs", seed, options),
    "nrpa": lambda seed, **options: _puzzle_agent("nrpa", seed, options),
}
"""Agent name -> factory(seed, **options)."""

FLATMC_OPTIONS: dict[str, tuple[Callable[[str], object], str]] = {
    "playouts": (_at_least(int, 1), "N"),
    "time": (_at_least(float, 0, above=True), "SECONDS"),
}
"""The options of a ``flatmc`` agent spec."""

ISMCTS_OPTIONS: dict[str, tuple[Callable[[str], object], str]] = {
    "iterations": (_at_least(int, 1), "N"),
    "time": (_at_least(float, 0, above=True), "SECONDS"),
    "particles": (_at_least(int, 1), "N"),
    "c": (_at_least(float, 0), "X"),
}
"""The options of an ``ismcts`` agent spec (GDL-II games)."""

NMCS_OPTIONS: dict[str, tuple[Callable[[str], object], str]] = {
    "level": (_at_least(int, 1), "N"),
    "time": (_at_least(float, 0, above=True), "SECONDS"),
}
"""The options of an ``nmcs`` agent spec (`ggp.player.puzzle_agents`)."""

NRPA_OPTIONS: dict[str, tuple[Callable[[str], object], str]] = {
    **NMCS_OPTIONS,
    "iterations": (_at_least(int, 1), "N"),
}
"""The options of an ``nrpa`` agent spec (`ggp.player.puzzle_agents`)."""


def _puzzle_agent(name: str, seed: int | None, options: dict[str, Any]) -> Agent:
    """An ``nmcs`` or ``nrpa`` agent (imported here: only when asked for)."""
    from ggp.player.puzzle_agents import NMCSAgent, NRPAAgent

    kind = NMCSAgent if name == "nmcs" else NRPAAgent
    return kind(seed=seed, **options)


AGENT_OPTIONS = {
    "flatmc": FLATMC_OPTIONS,
    "mcts": MCTS_OPTIONS,
    "nmcs": NMCS_OPTIONS,
    "nrpa": NRPA_OPTIONS,
    "ismcts": ISMCTS_OPTIONS,
}
"""The options each agent accepts in its spec: name -> (converter, what to write)."""


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent named by `spec`; `seed` makes its random choices repeatable."""
    name, _, port = spec.partition(":")
    if name not in AGENTS and re.fullmatch(r"\d+/?", port):
        raise GameError(
            f"{spec!r} is not an agent; the address of a GGP player is written "
            f"http://{spec} (ggp match, ggp tournament)"
        )
    name, options = parse_spec(spec, what="agent")
    if name not in AGENTS:
        raise GameError(f"unknown agent {name!r}; agents: {', '.join(AGENTS)}")
    agent = AGENTS[name](seed, **_convert_options(name, options))
    agent.spec = spec
    return agent
