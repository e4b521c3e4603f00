"""The races of one match, as a search worker serves them.

`ggp.player.search.races.Race` plays quick self-play games between the search's
configuration and one challenger at a time; `ServedRaces` decides when a match's race
starts (once the rules are final: compiled, their native code attached or none to
come), what it judges on this game (max^n proofs first where more than two roles play,
trees over parts where the roles move on separate parts, the tactics only where the
load asks for them), at what scale a challenger the quick screen chooses is confirmed
(`RACE_SCALE` of the match's own searches of a move), and how much of pondering the
race gets (no more than the tree's own).  It says in the server's log what it races,
every verdict with the match's scale beside it, and at the match's end what it left
unjudged and the time the races took (`benchmarks/serve_log.py` reads these lines).
The search worker takes the configuration a verdict chose.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import Callable

from ggp.games.base import GameDefinitionError, State
from ggp.gdl.compiled.compiled_game import CompiledGame
from ggp.player.search.factored import independent_choices, independent_somewhere
from ggp.player.search.mcts import MCTS
from ggp.player.search.races import (
    CHANGES,
    MAXN_CHANGE,
    PARTS_CHANGE,
    TACTICS_CHANGE,
    Race,
    SearchConfig,
)
from ggp.player.search.races import move_seconds as race_move_seconds
from ggp.player.service.served_tactics import ServedTactics

SEARCH_RACES = True
"""Choose the configuration of the search for this game by races on it
(`ggp.player.search.races`): once the rules are final, quick self-play games at equal
time between the current configuration and one variant at a time, run in a
share of the start clock's search (the ``race`` share the server asks for) and
in every other slice of pondering, until every variant is judged."""

RACE_SCALE = 0.1
"""A challenger the races' screen chooses is confirmed in games whose moves get this
share of the CPU seconds of the match's own searches (`ggp.player.search.races`,
``confirm_seconds``): at 10 s a move, about a second, thousands of simulations."""


class ServedRaces:
    """The race of one match over the search configuration.

    `make_tree` builds a race's tree of a configuration at a state, `make_part` a tree
    over a set of moves at a state (for a side that searches trees over parts), and
    `root` gives the state the match has reached (where each race game starts).
    """

    def __init__(
        self,
        make_tree: Callable[[SearchConfig, State], MCTS],
        make_part: Callable[[State, frozenset[str]], MCTS],
        root: Callable[[], State],
        rng: random.Random,
    ) -> None:
        self.make_tree = make_tree
        self.make_part = make_part
        self.root = root
        self.rng = rng
        self.on = SEARCH_RACES
        """Whether to race configurations (``races`` at load)."""
        self.race: Race | None = None
        """The race choosing the configuration, once the rules and the heuristic are final."""
        self.race_seconds = 0.0
        """Seconds of pondering given to races in this match..."""
        self.tree_seconds = 0.0
        """...and to the tree: races get a slice only while they have had no more than the
        tree (a race move may run past its slice, several times over; `ponders`)."""
        self.search_seconds = 0.0
        """Seconds of the searches' ``race`` share (the start clock's) given to races in
        this match: with `race_seconds`, what the races cost the tree (`report_end`)."""
        self.moves_cpu: list[float] = []
        """The searching thread's CPU seconds in the tree of each search answered, races
        left out (for the confirmation at the match's scale)..."""
        self.moves_sims: list[int] = []
        """...and the simulations behind each (pondered ones included)."""

    def load(self, on: bool) -> None:
        """A new match: races with `on`, none run yet."""
        self.on, self.race = on, None
        self.race_seconds = self.tree_seconds = self.search_seconds = 0.0
        self.moves_cpu, self.moves_sims = [], []

    def start(
        self,
        config: SearchConfig,
        heuristic: bool,
        tactics: ServedTactics,
        factor: bool,
        proofs: bool,
    ) -> SearchConfig | None:
        """With `on`, once the rules are final (compiled, their native code attached
        or none to come), start racing challengers against `config` from the match's
        state; returns the configuration raced from (`config` with the tactics as they
        run now), or None where no race started now.  `heuristic`: whether one is
        learnt (challengers that need it are raced only then); `factor`: whether trees
        over parts play where the roles move on separate parts; `proofs`: whether the
        search proves (max^n proofs are then raced first where more than two roles
        play)."""
        if not self.on or self.race is not None:
            return None
        state = self.root()
        game = state.game
        if not isinstance(game, CompiledGame):
            return None  # no races on the interpreter: one simulation can outlast a move
        build = game.native_build
        if build is not None and build.is_alive():
            return None
        try:
            seconds = race_move_seconds(state, self.rng)  # of the state the race starts from
            parts = factor and independent_somewhere(state, self.rng)
        except GameDefinitionError as error:  # rules that break in playouts: no races
            print(f"search worker: no races: {error}", file=sys.stderr)
            self.on = False
            return None
        config = dataclasses.replace(config, tactics=tactics.on)
        changes = CHANGES if tactics.race else tuple(c for c in CHANGES if c != TACTICS_CHANGE)
        if len(game.roles) > 2 and proofs:
            changes = (MAXN_CHANGE, *changes)  # the proofs' question of n players first
        if parts and independent_choices(state):
            # trees over parts play from here: they take none of the joint tree's
            # configuration but the tactics, and the joint tree is their challenger
            changes = (PARTS_CHANGE, *(c for c in changes if c == TACTICS_CHANGE))
        elif parts:
            changes = (PARTS_CHANGE, *changes)
        self.race = Race(
            config,
            self.make_tree,
            self.root,
            seconds,
            heuristic,
            changes=changes,
            confirm_seconds=self.scale_seconds,
            tactics_share=tactics.share(),
            make_part=self.make_part if parts else None,
        )
        print(
            f"search worker: racing configurations against {config.describe()}, "
            f"{self.race.move_seconds:.3f} CPU-s a move",
            file=sys.stderr,
        )
        return config

    @property
    def ready(self) -> bool:
        """Whether a race is running and has games to play now."""
        return self.race is not None and self.race.ready

    def ponders(self) -> bool:
        """Whether the race may have the next slice of pondering: while races have had
        no more of it than the tree."""
        return self.race_seconds <= self.tree_seconds

    def run(self, until: float) -> SearchConfig | None:
        """Race until `until` (monotonic; a race move may run past it) and log the
        verdicts; returns the champion where a verdict changed it, else None."""
        race = self.race
        if race is None or not race.ready:
            return None
        known = len(race.verdicts)
        changed = race.run(until)
        for verdict in race.verdicts[known:]:
            print(
                f"search worker: race after {race.games} games: {verdict} ({self.match_scale()})",
                file=sys.stderr,
            )
        return race.champion if changed else None

    def record_move(self, cpu: float, sims: int) -> None:
        """A move's search took `cpu` CPU seconds in the tree (races left out) for
        `sims` simulations, pondered ones included."""
        self.moves_cpu.append(cpu)
        self.moves_sims.append(sims)

    def scale_seconds(self) -> float:
        """CPU seconds of a race move at the match's scale: `RACE_SCALE` of the median
        CPU seconds of the match's searches of a move so far (of the last ten; the
        start clock's left out); 0 before the first."""
        recent = sorted(self.moves_cpu[-10:])
        return RACE_SCALE * recent[len(recent) // 2] if recent else 0.0

    def match_scale(self) -> str:
        """The match's searches so far, for the races' log lines."""
        if not self.moves_sims:
            return "no search of the match yet"
        sims = sorted(self.moves_sims[-10:])
        return (
            f"the match's searches: {sims[len(sims) // 2]} simulations a move, "
            f"a race move at scale {self.scale_seconds():.3f} CPU-s"
        )

    def report_end(self, played: str) -> None:
        """At the end of a match: where its race judged nothing or left some
        challengers, say so (their races get the pondering and the start clock's
        share, which a simultaneous game whose parts are searched apart hardly has;
        `played`: the configuration the search played); and where races ran, the
        time they took from the tree, of the searches' race share and of pondering
        (the tree's pondering beside it)."""
        race = self.race
        if race is not None and not race.finished:
            print(
                f"search worker: the match ended before the race judged "
                f"{', '.join(race.unjudged())} ({race.games} race games); the search "
                f"played {played}",
                file=sys.stderr,
            )
        if self.search_seconds == 0 and self.race_seconds == 0:
            return
        print(
            f"search worker: the races took {self.search_seconds:.1f} s of the "
            f"searches and {self.race_seconds:.1f} s of pondering, the tree pondered "
            f"{self.tree_seconds:.1f} s",
            file=sys.stderr,
        )
