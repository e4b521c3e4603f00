"""Choosing the search's configuration for this game by races on this game.

Each enhancement of plain UCT we measured won on one game and lost on another
(docs/mcts-enhancements.md), so the served search does not fix them: it
starts with a configuration (`SearchConfig`, the defaults of
`ggp.player.service.search_worker`) and lets the game decide.  A `Race` plays quick
self-play games between the current configuration (the *champion*) and one
*challenger* at a time, a variant of it that changes one thing (`CHANGES`):
the tactics on or off (a bounded search for forced wins and losses before
each move, `ggp.player.search.tactics`, whose proofs override the tree's
choice), decisive playouts on or off, MAST or RAVE instead of random playouts,
implicit minimax with the learnt heuristic on or off, half or twice the
exploration constant, transpositions on or off (a state reached by other
orders of moves one node of the tree: they pay where states recur), and, in
games of more than two roles, the solver's max^n proofs (`MAXN_CHANGE`: each
role takes what is best for itself) instead of its security values, and, in games
where the roles' moves are independent at some states, trees over our part there
or the tree of joint moves everywhere (`PARTS_CHANGE`).  Both
sides get the same CPU time a move (`move_seconds` of the searching thread's
time), so a challenger whose simulations cost more has to win them back on
this game; a side with the tactics gives them `tactics_share` of its move
(as the served search does) and searches the rest.  The challenger takes one
seat (each seat in turn), the champion plays every other role.

After each game the challenger's score is judged by its Wilson interval.  With
two roles the score is the challenger's goal / 100 (draws half).  With more,
one half is no par: three roles share the points, so a challenger as good as
the champion scores about a third of a constant sum, and one that plays better
may still score below one half.  There the score is one half plus the
challenger's goal less the mean goal of the other seats, over 200
(`RaceGame.score`): about one half where it does as well as the champions
around it, above where it takes more.  A challenger whose interval lies above
one half (`CHOOSE_CONFIDENCE`) replaces the champion (the next challengers race
the new one); one that could no longer be chosen even by winning every game left up to
`max_games` is dropped, "out of reach" (three games lost of 16 leave 13 wins at
most, where 14 are needed), and the champion stays: the games left could not
change the verdict, and their time goes back to the search.  A race stops
when every challenger has been judged, and all races end where a screen game's
searches ran fewer simulations a move than the moves they chose among, on both
sides (`Standing.too_small`: Hex's race moves, about 50 simulations among 50
to 80 moves): such searches play little better than at random, and their games
judge nothing.  Games start from the state the match has
reached when they begin, so a race run during play judges the configurations
on the positions still to come.

Race games are short (`move_seconds`: a few hundred simulations a move) where a move
of the match has tens of thousands, so a challenger the screen chooses is *confirmed
at the match's scale* before it replaces the champion: where the caller gives
`confirm_seconds` (the CPU seconds of a race move near the match's own, `RACE_SCALE`
of it as a match serves the races, `ggp.player.service.served_races`; 0 while the
match has not searched yet: the confirmation then waits, `ready`), the challenger
plays `CONFIRM_GAMES` more games at that budget and is chosen only if it scores at
least one half in them (it does not lose where the match is played); otherwise it is
dropped, "not confirmed at scale", as soon as the games left could not bring it to
one half.  A verdict's figures give the simulations a move of both phases.

`Race.run` plays race moves until a deadline, a move at a time, so the caller
interleaves races with its own search (`ggp.player.service.search_worker` gives them
part of the start clock and of the pondering).  Nothing here knows any game.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ggp.games.base import GameDefinitionError, State
from ggp.games.playouts import RANDOM
from ggp.player.search.factored import independent_choices, proves_only_even_ends
from ggp.player.search.mcts import MCTS
from ggp.player.search.tactics import Tactics, Verdict
from ggp.server.stats import wilson_interval

CHOOSE_CONFIDENCE = 0.99
"""The confidence of the interval that must lie above one half for a challenger to
be chosen: 7 wins of 7 games, 11 of 12, 14 of 16 (with several challengers, each looked
at after every game, a laxer one would choose a challenger no better than the
champion one race in a few)."""

MAX_GAMES = 16
"""Race games a challenger plays at most: it is dropped as soon as winning every game
left to this many could not choose it."""

CONFIRM_GAMES = 4
"""Games at the match's scale a challenger chosen by the screen plays before it is
taken (`Race` ``confirm_seconds``): it must score at least one half in them."""

MAX_PLIES = 1000
"""A race game not over after this many joint moves is dropped (no score)."""

GAME_SECONDS = 2.0
"""CPU seconds a race game should take, about (`move_seconds`)..."""

MOVE_SECONDS = (0.005, 0.05)
"""...within these bounds on a race move's time."""

TACTICS_SHARE = 0.1
"""The share of a race move a side with the tactics gives them, as a search worker
of `ggp serve` does (`ggp.player.service.served_tactics.TACTICS_SHARE`)."""

TACTICS_STATES = 50_000_000
"""States the tactics of a race move may look at: the move's time bounds them first."""


def move_seconds(state: State, rng: random.Random, playouts: int = 3) -> float:
    """CPU seconds a race move: `GAME_SECONDS` over the joint moves of a random
    playout from `state` (the mean of `playouts`), within `MOVE_SECONDS`."""
    plies = sum(state.playouts(rng, 1, RANDOM)[0][1] for _ in range(playouts)) / playouts
    low, high = MOVE_SECONDS
    return min(high, max(low, GAME_SECONDS / max(plies, 1.0)))


@dataclass(frozen=True)
class SearchConfig:
    """What the served search's tree of joint moves does (see `ggp.player.search.mcts.MCTS`)."""

    c: float
    """The exploration constant."""
    decisive: bool = False
    """Decisive and anti-decisive playouts on native code (`playouts.Decisive`)."""
    mast: bool = False
    """MAST playouts (move averages) instead of random ones."""
    rave: bool = False
    """GRAVE choices from the random playouts' move statistics."""
    imm: bool = False
    """Implicit minimax backups of the learnt heuristic (where one is learnt)."""
    prior: bool = False
    """The heuristic prior (progressive bias): a new edge starts with virtual visits
    worth the learnt heuristic's value of the child (where one is learnt)."""
    transpose: bool = False
    """Transpositions: the tree is a graph, a state reached by several orders of
    moves one node (`MCTS` ``transpose``)."""
    tactics: bool = False
    """The tactics before each move: a bounded search for forced wins and losses
    whose proofs override the tree's choice (`ggp.player.search.tactics`)."""
    maxn: bool = False
    """The solver's max^n proofs, for games of more than two roles (`MCTS` ``maxn``):
    a node is proven with the goals of the child its chooser takes, where the
    security values take every other role to play against each."""
    joint: bool = False
    """The tree of joint moves also where the roles' moves are independent, not a tree
    over our part there (`ggp.player.search.factored`; the races' ``make_part``)."""

    def valid(self, heuristic: bool) -> bool:
        """Whether `MCTS` can run this (`heuristic`: whether one was learnt for `imm`)."""
        if (self.imm or self.prior) and not heuristic:
            return False
        playouts = self.decisive + self.mast + self.rave
        together = self.rave and (self.imm or self.prior or self.transpose)
        return playouts <= 1 and not together

    def same_tree(self, other: SearchConfig) -> bool:
        """Whether trees of this configuration and `other` search alike (the two differ
        at most in the tactics, which run beside the tree): a tree can be kept."""
        return dataclasses.replace(self, tactics=other.tactics) == other

    def describe(self) -> str:
        playouts = "random playouts"
        if self.decisive:
            playouts = "decisive playouts"
        elif self.mast:
            playouts = "MAST playouts"
        elif self.rave:
            playouts = "RAVE"
        imm = ", implicit minimax" if self.imm else ""
        prior = ", heuristic prior" if self.prior else ""
        transpose = ", transpositions" if self.transpose else ""
        maxn = ", max^n proofs" if self.maxn else ""
        joint = ", joint moves throughout" if self.joint else ""
        tactics = ", tactics" if self.tactics else ""
        return f"{playouts}{imm}{prior}{transpose}{maxn}{joint}, c={self.c:g}{tactics}"


Change = Callable[[SearchConfig], SearchConfig]

TACTICS_CHANGE: tuple[str, Change] = (
    "tactics on/off",
    lambda s: dataclasses.replace(s, tactics=not s.tactics),
)

CHANGES: tuple[tuple[str, Change], ...] = (
    TACTICS_CHANGE,
    ("decisive playouts on/off", lambda s: dataclasses.replace(s, decisive=not s.decisive)),
    ("implicit minimax on/off", lambda s: dataclasses.replace(s, imm=not s.imm)),
    ("heuristic prior on/off", lambda s: dataclasses.replace(s, prior=not s.prior)),
    ("MAST playouts", lambda s: dataclasses.replace(s, mast=True, decisive=False)),
    ("RAVE", lambda s: dataclasses.replace(s, rave=True, decisive=False, imm=False, prior=False)),
    ("half the exploration", lambda s: dataclasses.replace(s, c=s.c / 2)),
    ("twice the exploration", lambda s: dataclasses.replace(s, c=s.c * 2)),
    ("transpositions on/off", lambda s: dataclasses.replace(s, transpose=not s.transpose)),
)
"""The challengers, as changes of the champion, in the order they race."""

MAXN_CHANGE: tuple[str, Change] = (
    "max^n proofs on/off",
    lambda s: dataclasses.replace(s, maxn=not s.maxn),
)
"""A challenger for games of more than two roles only (with two, max^n proofs are the
security values), raced first there: the caller adds it (`changes`)."""

PARTS_CHANGE: tuple[str, Change] = (
    "trees over parts on/off",
    lambda s: dataclasses.replace(s, joint=not s.joint),
)
"""A challenger for games whose roles' moves are independent at some states only
(trees over parts won three such games and lost three in self-play,
docs/mcts-enhancements.md): the caller adds it, with ``make_part``."""

TreeMaker = Callable[[SearchConfig, State], MCTS]
"""A search tree of a configuration at a state."""

PartMaker = Callable[[State, frozenset[str]], MCTS]
"""A fresh tree over a part at a state: the moves given and every choice that
includes one (`MCTS` ``part``)."""


@dataclass
class Standing:
    """A challenger's record against the champion so far."""

    name: str
    config: SearchConfig
    champion: SearchConfig
    games: int = 0
    points: float = 0.0
    sims: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    """Simulations run by the challenger and by the champion..."""
    searches: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    """...in this many searches (a search per move where a side chooses)..."""
    choices: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    """...among this many legal moves in all (the most of a role a search was for)."""
    confirm: Standing | None = None
    """Once the screen chose it: its record in the games at the match's scale."""

    def interval(self, confidence: float) -> tuple[float, float]:
        return wilson_interval(self.points, self.games, confidence)

    def per_move(self) -> list[int]:
        """Simulations a move of the challenger and of the champion."""
        return [
            sims // searches if searches else 0
            for sims, searches in zip(self.sims, self.searches, strict=True)
        ]

    def record(self, game: RaceGame) -> None:
        self.games += 1
        self.points += game.score()
        for side in range(2):
            self.sims[side] += game.sims[side]
            self.searches[side] += game.searches[side]
            self.choices[side] += game.choices[side]

    def too_small(self) -> bool:
        """Whether the race's moves run fewer simulations than there are moves to choose
        from, on both sides: a search that cannot try each move once plays little better
        than at random, and games between such searches judge nothing."""
        return all(
            searches and sims < choices
            for sims, searches, choices in zip(self.sims, self.searches, self.choices, strict=True)
        )

    def describe(self) -> str:
        """The figures behind a verdict: score, its 95% interval, simulations a move
        (and those of the games at the match's scale, where it played some)."""
        low, high = self.interval(0.95)
        per_move = self.per_move()
        text = (
            f"{self.config.describe()} against {self.champion.describe()}: "
            f"{self.points:g} of {self.games} games ({self.points / self.games:.2f}, "
            f"{low:.2f}-{high:.2f}), {per_move[0]} against {per_move[1]} simulations a move"
        )
        confirm = self.confirm
        if confirm is not None and confirm.games:
            scaled = confirm.per_move()
            text += (
                f"; at the match's scale {confirm.points:g} of {confirm.games} games, "
                f"{scaled[0]} against {scaled[1]} simulations a move"
            )
        return text


Tactician = Callable[[int], Tactics]
"""The tactics of a role index (kept over the races: a proof holds in every game)."""


class RaceGame:
    """One self-play game: the challenger in seat `seat`, the champion in every other;
    the sides `tactics` says search for forced lines first, with `tactician`'s; a side
    with a `parts` maker searches each of its roles' moves with a fresh tree over that
    role's part where the roles' moves are independent, as the served search does
    (and its tree of joint moves where a part tree proves every move an even end)."""

    def __init__(
        self,
        state: State,
        seat: int,
        challenger: MCTS,
        champion: MCTS,
        move_seconds: float,
        clock: Callable[[], float],
        tactics: tuple[bool, bool] = (False, False),
        tactician: Tactician = Tactics,
        tactics_share: float = TACTICS_SHARE,
        parts: tuple[PartMaker | None, PartMaker | None] = (None, None),
    ) -> None:
        self.state = state
        self.seat = seat
        self.trees = (challenger, champion)
        self.parts = parts
        self.move_seconds = move_seconds
        self.clock = clock
        self.tactics = tactics
        self.tactician = tactician
        self.tactics_share = tactics_share
        self.plies = 0
        self.sims = [0, 0]
        self.searches = [0, 0]
        self.choices = [0, 0]
        """Legal moves of the roles each side searched for, summed over its searches."""

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    def score(self) -> float:
        """With two roles the challenger's goal / 100; with more, one half plus its goal
        less the other seats' mean goal, over 200 (see the module).  The game must be
        over."""
        goals = self.state.goals()
        mine = goals[self.seat]
        if len(goals) <= 2:
            return mine / 100
        others = (sum(goals) - mine) / (len(goals) - 1)
        return 0.5 + (mine - others) / 200

    def move(self) -> None:
        """Play one joint move: each side searches if one of its roles has a choice."""
        legal = self.state.all_legal_moves()
        joint = [moves[0] for moves in legal]
        independent = any(self.parts) and independent_choices(self.state)
        for side, tree in enumerate(self.trees):
            roles = [
                role
                for role in range(len(legal))
                if (role == self.seat) == (side == 0) and len(legal[role]) > 1
            ]
            if not roles:
                continue
            end = self.clock() + self.move_seconds
            verdicts = self._verdicts(roles) if self.tactics[side] else {}
            won = {role: verdict.choose(None) for role, verdict in verdicts.items() if verdict.wins}
            open_roles = [role for role in roles if role not in won]
            searched = dict.fromkeys(open_roles, tree)
            make_part = self.parts[side]
            if make_part is not None and independent:
                for index, role in enumerate(open_roles):
                    part = make_part(self.state, frozenset(legal[role]))
                    share = (end - self.clock()) / (len(open_roles) - index)  # time left, shared
                    until = self.clock() + share
                    self.sims[side] += self._search(part, until)
                    if proves_only_even_ends(part, role):  # the joint tree chooses
                        self.sims[side] += self._search(tree, until)
                        part = tree
                    searched[role] = part
            elif open_roles:
                self.sims[side] += self._search(tree, end)
            self.searches[side] += 1
            self.choices[side] += max(len(legal[role]) for role in roles)
            for role in roles:
                if role in won:
                    joint[role] = won[role]
                    continue
                joint[role] = searched[role].best_move(role)
                if role in verdicts:
                    ranked = [stats.move for stats in searched[role].statistics(role)]
                    joint[role] = verdicts[role].choose(joint[role], ranked)
        state = self.state.next(joint)
        for tree in self.trees:
            tree.advance(joint, state)
        self.state = state
        self.plies += 1

    def _search(self, tree: MCTS, end: float) -> int:
        """Search `tree` until the clock reads `end`; the simulations it ran (iterations
        on proven nodes are not simulations)."""
        settled = tree.settled
        if getattr(tree, "native", False) and self.clock is time.thread_time:  # in C
            sims = tree.search(thread_deadline=end)
        else:
            sims = 0
            while self.clock() < end and tree.search(iterations=1):
                sims += 1
        return sims - (tree.settled - settled)

    def _verdicts(self, roles: list[int]) -> dict[int, Verdict]:
        """What the tactics prove for each of `roles` within their share of the move
        (a wall-clock deadline: the tactics look at no other clock); rules that break
        in them prove nothing."""
        seconds = self.tactics_share * self.move_seconds / len(roles)
        verdicts = {}
        for role in roles:
            try:
                verdicts[role] = self.tactician(role).analyse(
                    self.state, time.monotonic() + seconds, TACTICS_STATES
                )
            except GameDefinitionError:
                continue
        return verdicts


class Race:
    """Races challengers against the champion, one at a time (see the module)."""

    def __init__(
        self,
        champion: SearchConfig,
        make_tree: TreeMaker,
        start: Callable[[], State],
        move_seconds: float,
        heuristic: bool = False,
        *,
        clock: Callable[[], float] = time.thread_time,
        max_games: int = MAX_GAMES,
        changes: tuple[tuple[str, Change], ...] = CHANGES,
        confirm_seconds: Callable[[], float] | None = None,
        confirm_games: int = CONFIRM_GAMES,
        tactics_share: float = TACTICS_SHARE,
        make_part: PartMaker | None = None,
    ) -> None:
        self.make_part = make_part
        """Trees over parts, for the sides whose configuration is not `joint` (None: the
        game has no independent moves, every side searches its joint-move tree)."""
        self.tactics_share = tactics_share
        self.tacticians: dict[int, Tactics] = {}
        """The race games' tactics of each role, kept from game to game."""
        self.confirm_seconds = confirm_seconds
        """CPU seconds of a race move at the match's scale, asked when a confirming
        game starts (None: the screen's verdict is taken without confirmation)."""
        self.confirm_games = confirm_games
        self.champion = champion
        self.make_tree = make_tree
        self.start = start
        self.move_seconds = move_seconds
        self.heuristic = heuristic
        self.clock = clock
        self.max_games = max_games
        self.pending = list(changes)
        self.standing: Standing | None = None
        self.game: RaceGame | None = None
        self.verdicts: list[str] = []
        """What each challenger's race found, in order (for the log)."""
        self.games = 0
        self._next_challenger()

    @property
    def finished(self) -> bool:
        return self.standing is None

    def unjudged(self) -> list[str]:
        """The challengers not judged yet: the one racing, then those waiting (some
        of which may turn out to change nothing, and be skipped)."""
        racing = [] if self.standing is None else [self.standing.name]
        return racing + [name for name, _ in self.pending]

    @property
    def ready(self) -> bool:
        """Whether a race move can be played now: not finished, and not a challenger
        to confirm while the match's scale is unknown (`confirm_seconds` gives 0)."""
        standing = self.standing
        if standing is None:
            return False
        if standing.confirm is None or self.game is not None or self.confirm_seconds is None:
            return True
        return self.confirm_seconds() > 0

    def run(self, until: float, now: Callable[[], float] = time.monotonic) -> bool:
        """Play race moves until `now()` reaches `until` (a move is never cut);
        returns whether the champion changed."""
        before = self.champion
        while self.ready and now() < until:
            self.step()
        return self.champion != before

    def step(self) -> None:
        """One move of the current race game (starting one if needed)."""
        standing = self.standing
        assert standing is not None
        game = self.game
        if game is None:
            state = self.start()
            if state.is_terminal():  # the match is over: nothing left to race on
                self.verdicts.append(f"{standing.name}: not judged, the match is over")
                self.standing = None
                return
            record = standing.confirm or standing
            seat = record.games % len(state.game.roles)
            challenger = self.make_tree(standing.config, state)
            champion = self.make_tree(standing.champion, state)
            seconds = self.move_seconds
            if standing.confirm is not None and self.confirm_seconds is not None:
                seconds = max(seconds, self.confirm_seconds())
            game = self.game = RaceGame(
                state,
                seat,
                challenger,
                champion,
                seconds,
                self.clock,
                (standing.config.tactics, standing.champion.tactics),
                self.tactician,
                self.tactics_share,
                (self.part_maker(standing.config), self.part_maker(standing.champion)),
            )
        game.move()
        if game.over or game.plies >= MAX_PLIES:
            self.game = None
            if game.over:
                self._record(standing, game)

    def part_maker(self, config: SearchConfig) -> PartMaker | None:
        """The trees over parts of a side searching as `config` (None: joint moves)."""
        return None if config.joint else self.make_part

    def tactician(self, role: int) -> Tactics:
        """The race games' tactics of role index `role`."""
        tactics = self.tacticians.get(role)
        if tactics is None:
            tactics = self.tacticians[role] = Tactics(role)
        return tactics

    def _record(self, standing: Standing, game: RaceGame) -> None:
        self.games += 1
        confirm = standing.confirm
        if confirm is not None:
            confirm.record(game)
            left = self.confirm_games - confirm.games
            if confirm.points + left < self.confirm_games / 2:  # one half is out of reach
                self.verdicts.append(f"not confirmed at scale, dropped: {standing.describe()}")
            elif left > 0:
                return
            else:  # one half or more of the games at scale
                self.verdicts.append(f"chosen: {standing.describe()}")
                self.champion = standing.config
            self._next_challenger()
            return
        standing.record(game)
        if standing.too_small():
            low, high = standing.per_move()
            self.verdicts.append(
                f"races ended, their games too small to judge: {standing.name} in "
                f"{standing.games} games ran {low} and {high} simulations a move, fewer than "
                f"the {standing.choices[1] // max(1, standing.searches[1])} moves a search "
                "chose among"
            )
            self.pending = []
            self.standing = None
            return
        if standing.interval(CHOOSE_CONFIDENCE)[0] > 0.5 and self.confirm_seconds is not None:
            standing.confirm = Standing(standing.name, standing.config, standing.champion)
            self.verdicts.append(f"won the screen, to be confirmed at scale: {standing.describe()}")
            return
        if standing.interval(CHOOSE_CONFIDENCE)[0] > 0.5:
            self.verdicts.append(f"chosen: {standing.describe()}")
            self.champion = standing.config
        elif not self._within_reach(standing):
            self.verdicts.append(f"out of reach, dropped: {standing.describe()}")
        else:
            return
        self._next_challenger()

    def _within_reach(self, standing: Standing) -> bool:
        """Whether winning every game left up to `max_games` would still choose the
        challenger (the interval's lower bound only rises with each win)."""
        wins = standing.points + self.max_games - standing.games
        return wilson_interval(wins, self.max_games, CHOOSE_CONFIDENCE)[0] > 0.5

    def _next_challenger(self) -> None:
        """The next change that makes a valid configuration other than the champion."""
        self.standing = None
        while self.pending:
            name, change = self.pending.pop(0)
            config = change(self.champion)
            if config != self.champion and config.valid(self.heuristic):
                self.standing = Standing(name, config, self.champion)
                return
