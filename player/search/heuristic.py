"""A state evaluation learnt from random playouts, and playouts cut off by it.

`learn` plays random playouts from a game's initial state and samples, of
each, the states a few moves before its end (`SKIP`, `WINDOW`: earlier
states of a random playout say little of how it ends).  A candidate feature
counts the true facts of one relation that have given constants at one or
two argument positions (``(cell ? ? white)``, ``(cell ? 7 white)``; ``?``
any value), or every fact of a relation.  The features whose counts
correlate clearly with some role's goal (`FEATURE_Z`) are kept, the
strongest `MAX_FEATURES`; each role's goal / 100 is fitted to them by least
squares, and the fit is kept only if it predicts the goals of playouts it
was not fitted on (`MIN_Z`, `MIN_CORRELATION`).  Otherwise, with a material weight, the
material term alone is the heuristic where it predicts the goals (`_material_alone`:
knightThrough's pieces), and else the game has none (None), as in Connect Four and
Hex, where no count of pieces says who wins.  With `material_first`, the material
term alone is tried first and the fit only where it predicts nothing (Sancho's
rule: piece counts wherever they predict the outcome).  The fit is
then rescaled (`SHARPNESS`) and squashed into 0..1.  Nothing here knows any
game: only the facts' relation names, argument positions and constants.

Beside those counts, two kinds of feature found from the rules of a compiled
game (`rule_features`) are candidates too: each role's *mobility* (its number
of legal moves in the state) and *partial goal satisfaction* (of each goal
rule whose conditions expand to conjunctions of facts, the number of
conjunctions of two or more conditions with exactly one, or two, conditions
unmet: Connect Four's lines of four holding three, or two, of a side's
discs).  They earn their place per game: the fit with them is kept only if
its held-out correlation beats the fit of the counts alone by `RICH_MARGIN`
(both figures are kept in `Heuristic` and printed by `describe`).

`CutoffPlayout` is an MCTS evaluator (as `ggp.player.search.evaluation.RandomPlayout`): random
playouts stopped after `plies` moves, a playout cut off valued by the
heuristic, one that ends in time by its goals / 100.  On native code both
the sampling and the cut-off playouts run in C
(`ggp.gdl.native.heuristic_source`), the features counted by popcount over masks
of the state's bits; elsewhere in Python.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import sqrt
from operator import mul
from typing import Any

from ggp.games.base import Game, GameError, State
from ggp.gdl.compiled.compiled_game import CompiledGame, CompiledState
from ggp.gdl.network.formulas import BASE, NODE, Network
from ggp.player.search.goal_distance import goal_distances

HEURISTIC = False
"""Whether the ``mcts`` agent learns and uses the heuristic by default: only if it
wins at equal time (docs/mcts-enhancements.md)."""

CUTOFF = 16
"""Moves after which a playout is cut off and valued by the heuristic, by default."""

PLAYOUTS = 1500
"""Random playouts `learn` plays from the initial state."""

SKIP = 2
"""States sampled from a playout are at least this many moves before its end: the
last states mostly say whose turn it was when the game ended."""

WINDOW = 12
"""...and fewer than `SKIP` + `WINDOW` moves before it: earlier states of a random
playout say little of how it will end (its last moves decide it)."""

EVERY = 1
"""A sample every this many moves in that window: every one, so that the states
of either parity are alike (with every other one, whose turn it is would say who
moved last, so who won, in every game where the last mover wins)."""

MAX_SAMPLES = 18000
"""Samples at most (the learning's time grows with them)."""

MIN_Z = 4.0
"""How clearly the fit must predict the goals: the correlation r of its values with
the goals over the states of P playouts it was not fitted on counts if
r * sqrt(P) >= MIN_Z (about MIN_Z standard errors from none; the states of one
playout are counted as one, being alike)."""

MIN_CORRELATION = 0.3
"""...and that correlation must be at least this: a fit that explains a few percent of
the goals' variance is no evaluation (the fits of Connect Four, 0.16 to 0.21, pass
`MIN_Z` from 1,500 playouts; Breakthrough's reach 0.44)."""

FEATURE_Z = 3.0
"""As `MIN_Z`, for one feature's count (over all the playouts) to be a candidate."""

MAX_FEATURES = 8
"""Features kept at most: the most correlated candidates."""

RIDGE = 1e-3
"""Ridge regularisation of the least-squares fit (relative to the samples), so that
features that move together (one side's pieces and the other's) keep small weights."""

SHARPNESS = 1.0
"""How far the heuristic's value moves from a role's mean goal.  The value is
0.5 + 0.5 * x / (1 + |x|) of a score x; a state whose fitted goal is the samples'
mean gets the score worth the role's mean goal, and each standard deviation (over
the samples) of fitted goal above it adds `SHARPNESS` to the score (from a mean
goal of 0.5, one is worth 0.75).  Random playouts' outcomes are noisy, so the
fitted goals spread little; this scale makes the fit's direction, not its size,
what the search sees."""

MATERIAL = 0.0
"""The weight of the material term by default (`material_term`; 0: none)."""

LEARNING_SEED = 0
"""The seed of `Learning`'s playouts: every search worker of a match learns the same
heuristic.  With a seed each, on a game whose features predict near the bar
(knightThrough's material, held-out 0.09 to 0.17 by seed) one worker searched with a
heuristic and the other without, and their trees' visits were added up at each move."""

RICH = False
"""Whether `learn` tries the rule features (mobility, partial goal satisfaction)
by default; they are kept only where they earn their place (`RICH_MARGIN`).  Off:
trying them doubles the learning's CPU time on some games (dotsAndBoxes: 2.6 to
5.8 CPU-s), so under load the heuristic came too late for the search in most
self-play matches, and no match showed them winning (docs/per-game-search.md)."""

RICH_MARGIN = 0.01
"""How much the held-out correlation (the roles' mean) of the fit with the rule
features must beat the fit of the fact counts alone for them to be kept."""

MAX_RULE_FEATURES = 4
"""Rule features added at most to the fact counts chosen (the most correlated)."""

MAX_CONJUNCTIONS = 600
"""A goal rule is expanded into at most this many conjunctions of facts (else it
gives no feature): the cost of the feature is a popcount per conjunction."""

MAX_PAIR_FACTS = 2000
"""Features fixing two argument positions are made only for games with at most this
many facts (their number grows with the square of the constants)."""


@dataclass(frozen=True)
class Mobility:
    """A role's number of legal moves in the state (0 in a terminal state)."""

    role: int
    name: str

    def count(self, state: State, bits: int) -> int:
        if state.is_terminal():
            return 0
        return len(state.legal_moves(self.role))


@dataclass(frozen=True)
class GoalNear:
    """Partial satisfaction of a goal: of its conjunctions of facts (each a mask of
    facts that must hold and one of facts that must not), the number with exactly
    `missing` conditions unmet."""

    name: str
    conjunctions: tuple[tuple[int, int], ...]
    missing: int

    def count(self, state: State, bits: int) -> int:
        missing = self.missing
        found = 0
        for must, must_not in self.conjunctions:
            if (must & ~bits).bit_count() + (must_not & bits).bit_count() == missing:
                found += 1
        return found


RuleFeature = Mobility | GoalNear


@dataclass
class Heuristic:
    """A learnt evaluation: per role, a bias plus weighted counts of facts.

    `texts` are the facts the masks are over (bit i: `texts[i]`); `masks` the
    features, `names` their patterns; `extras` the rule features kept (after the
    masks); `weights[r]` is role r's bias then one weight per mask, then per
    extra, a score x worth ``0.5 + 0.5 * x / (1 + |x|)``; `held_out` the
    correlation of each role's fitted goal with its goal on playouts the fit did
    not see, and `held_out_counts` that of the fit of the fact counts alone where
    rule features were tried (None: not tried).
    """

    texts: tuple[str, ...]
    masks: tuple[int, ...]
    names: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]
    held_out: tuple[float, ...]
    game: Game | None = None
    """The compiled game whose state bits are these facts (None: facts by text)."""
    extras: tuple[RuleFeature, ...] = ()
    held_out_counts: tuple[float, ...] | None = None
    material_alone: bool = False
    """Whether the features are the material term alone (no fit predicted the goals, or
    `learn`'s ``material_first``; `held_out` is then the held-out correlation of its
    difference with the goals)."""
    fit_tried: bool = True
    """Whether a fit was tried before the material alone was taken (False: ``material_first``)."""
    progress: float = 0.0
    """With the material alone: the weight of a piece's progress towards its goal
    (`_with_progress`; 0: pieces alike)."""
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _native: Any = field(default=None, repr=False)
    _rows: tuple[tuple[float, tuple[float, ...]], ...] | None = field(
        default=None, repr=False, compare=False
    )
    """Per role, its bias and feature weights apart (made once, by `value_of_bits`)."""

    def bits(self, state: State) -> int:
        """The state's facts as bits over `texts`."""
        if self.game is not None and isinstance(state, CompiledState) and state.game is self.game:
            return state.bits
        if not self._index:
            self._index = {text: i for i, text in enumerate(self.texts)}
        index = self._index
        bits = 0
        for fact in state.facts():
            i = index.get(fact)
            if i is not None:
                bits |= 1 << i
        return bits

    def value_of_bits(self, bits: int, state: State | None = None) -> list[float]:
        """Each role's estimated reward (0..1) for a state with these bits (`state`, the
        state itself, is needed where rule features are kept)."""
        counts = [(bits & mask).bit_count() for mask in self.masks]
        if self.extras:
            if state is None:
                raise GameError("rule features need the state, not only its bits")
            counts.extend(extra.count(state, bits) for extra in self.extras)
        rows = self._rows
        if rows is None:
            rows = self._rows = tuple((row[0], row[1:]) for row in self.weights)
        values = []
        for bias, weights in rows:
            x = bias + sum(map(mul, weights, counts))
            values.append(0.5 + 0.5 * x / (1 + abs(x)))
        return values

    def value(self, state: State) -> list[float]:
        """Each role's estimated reward (0..1) in `state` (its goals / 100 if terminal)."""
        if state.is_terminal():
            return [goal * 0.01 for goal in state.goals()]
        return self.value_of_bits(self.bits(state), state)

    @property
    def counts_only(self) -> bool:
        """Whether every feature is a count of facts (native cut-off playouts need it)."""
        return not self.extras

    def describe(self) -> str:
        """The features and each role's weights, for logs and people."""
        lines = [f"bias {' '.join(f'{row[0]:+.3f}' for row in self.weights)}"]
        names = [*self.names, *(extra.name for extra in self.extras)]
        for f, name in enumerate(names):
            lines.append(f"{name} {' '.join(f'{row[1 + f]:+.4f}' for row in self.weights)}")
        what = "held-out correlation"
        if self.material_alone:
            why = "no fit predicted the goals" if self.fit_tried else "tried first"
            weighed = f", progress {self.progress:g}" if self.progress else ""
            what = f"material alone ({why}{weighed}): held-out correlation"
        lines.append(f"{what} {' '.join(f'{r:.3f}' for r in self.held_out)}")
        if self.held_out_counts is not None:
            kept = "kept" if self.extras else "not kept"
            lines.append(
                f"rule features {kept}: the fact counts alone held-out "
                f"{' '.join(f'{r:.3f}' for r in self.held_out_counts)}"
            )
        return "\n".join(lines)

    def native_tables(self, native: Any) -> tuple[Any, Any]:
        """The masks and weights as C arrays for `native` (made once; counts only)."""
        if not self.counts_only:
            raise GameError("native cut-off playouts count facts only: no rule features")
        if self._native is None or self._native[0] is not native:
            ffi = native.ffi
            words = native.words
            masks = ffi.new("uint64_t[]", max(1, len(self.masks) * words))
            for f, mask in enumerate(self.masks):
                for w in range(words):
                    masks[f * words + w] = (mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
            flat = [w for row in self.weights for w in row]
            weights = ffi.new("double[]", flat)
            self._native = (native, masks, weights)
        return self._native[1], self._native[2]


def split_fact(text: str) -> tuple[str, ...]:
    """A fact's relation and its arguments at the top level (nested terms kept whole)."""
    text = text.strip()
    if not text.startswith("("):
        return (text,)
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text[1:-1]:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char.isspace() and depth == 0:
            if current:
                parts.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return tuple(parts)


def candidate_features(texts: Sequence[str]) -> list[tuple[str, int]]:
    """The candidate features over facts `texts`: (pattern, mask of bits), one per mask."""
    patterns: dict[tuple[str | None, ...], int] = {}
    pairs = len(texts) <= MAX_PAIR_FACTS
    for i, text in enumerate(texts):
        parts = split_fact(text)
        relation, args = parts[0], parts[1:]
        n = len(args)
        keys = [(relation, *([None] * n))]
        for a in range(n):
            keys.append((relation, *(args[k] if k == a else None for k in range(n))))
            if pairs and n >= 3:
                for b in range(a + 1, n):
                    fixed = (a, b)
                    keys.append((relation, *(args[k] if k in fixed else None for k in range(n))))
        for key in keys:
            patterns[key] = patterns.get(key, 0) | 1 << i
    found: dict[int, str] = {}
    for key, mask in patterns.items():
        if mask not in found:
            relation, *args = key
            shown = " ".join("?" if a is None else a for a in args)
            found[mask] = f"({relation} {shown})" if args else str(relation)
    return [(name, mask) for mask, name in found.items()]


def rule_features(game: Game) -> list[RuleFeature]:
    """The rule features of a compiled game (see the module): each role's mobility,
    and for each goal of a positive value whose rule expands to at most
    `MAX_CONJUNCTIONS` conjunctions of facts, with some of two conditions or more,
    the counts of those with one and with two conditions unmet.  None for a game
    on the interpreter."""
    if not isinstance(game, CompiledGame):
        return []
    compiled = game.compiled
    found: list[RuleFeature] = [
        Mobility(r, f"(mobility {name})") for r, name in enumerate(game.roles)
    ]
    network = compiled.network
    memo: dict[int, list[tuple[int, int]] | None] = {}
    for r, name in enumerate(game.roles):
        for (node, _), value in zip(network.goals[r], compiled.goal_values[r], strict=True):
            if not value:
                continue
            expanded = _conjunctions(network, node, memo)
            if expanded is None:
                continue
            wide = tuple(sorted({c for c in expanded if c[0].bit_count() + c[1].bit_count() > 1}))
            for missing in (1, 2):
                if wide:
                    label = f"(goal {name} {value} missing {missing})"
                    found.append(GoalNear(label, wide, missing))
    return found


def _conjunctions(
    network: Network, node: int, memo: dict[int, list[tuple[int, int]] | None]
) -> list[tuple[int, int]] | None:
    """The ground node's formula as conjunctions of facts (a mask of facts that must
    hold, one of facts that must not), or None where there would be more than
    `MAX_CONJUNCTIONS`.  The ways the formula cannot be written so are left out: a
    body with a move or a derived condition's negation, a recursive node."""
    if node in memo:
        return memo[node]
    memo[node] = []  # a node met again below itself (recursion): no conjunctions
    if network.cyclic[network.component_of[node]]:
        return []
    result: list[tuple[int, int]] = []
    for body in network.bodies[node]:
        partial = [(0, 0)]
        for kind, index, positive in body:
            if kind == BASE:
                bit = 1 << index
                partial = [(m | bit, n) if positive else (m, n | bit) for m, n in partial]
            elif kind == NODE and positive:
                below = _conjunctions(network, index, memo)
                if below is None:
                    memo[node] = None
                    return None
                partial = [(m | bm, n | bn) for m, n in partial for bm, bn in below]
            else:  # a move, or a derived condition's negation: this body is left out
                partial = []
            if len(partial) > MAX_CONJUNCTIONS:
                memo[node] = None
                return None
            if not partial:
                break
        result.extend((m, n) for m, n in partial if not m & n)
        if len(result) > MAX_CONJUNCTIONS:
            memo[node] = None
            return None
    memo[node] = result
    return result


@dataclass
class Samples:
    """States sampled from playouts: their bits, their playout, each playout's goals."""

    bits: list[int]
    owner: list[int]
    goals: list[Sequence[int]]


def sample(
    game: Game,
    rng: random.Random,
    playouts: int = PLAYOUTS,
    skip: int = SKIP,
    window: int = WINDOW,
    every: int = EVERY,
    decisive: bool = False,
) -> tuple[tuple[str, ...], Samples]:
    """Random playouts from `game`'s initial state and, of each, the states `skip`,
    `skip` + `every`, ... moves before its end, fewer than `skip` + `window` moves
    before it (`MAX_SAMPLES` in all at most); with the facts the bits are over.
    With `decisive`, on native code, the playouts are decisive ones
    (`playouts.Decisive`, every move); elsewhere they stay random."""
    if skip < 1 or window < 1 or every < 1 or skip + window > 64:
        raise GameError(f"bad sampling window: skip {skip}, window {window}, every {every}")
    state = game.initial_state()
    native = getattr(game, "native_playouts", None)
    if isinstance(state, CompiledState) and native is not None:
        where = (skip, window, every)
        taken = _native_samples(native, state.bits, rng, playouts, where, decisive)
        return game.compiled.base_texts, taken
    index: dict[str, int] = {}
    samples = Samples([], [], [])
    for done in range(playouts):
        current = state
        passed = []
        while not current.is_terminal():
            if isinstance(current, CompiledState):
                bits = current.bits
            else:
                bits = 0
                for fact in current.facts():
                    bits |= 1 << index.setdefault(fact, len(index))
            passed.append(bits)
            joint = [rng.choice(moves) for moves in current.all_legal_moves()]
            current = current.next(joint)
        samples.goals.append(current.goals())
        n = len(passed)
        for d in range(skip, min(skip + window, n + 1), every):
            if len(samples.bits) < MAX_SAMPLES:
                samples.bits.append(passed[n - d])
                samples.owner.append(done)
    if isinstance(state, CompiledState):
        return game.compiled.base_texts, samples
    return tuple(index), samples


def _native_samples(
    native: Any,
    bits: int,
    rng: random.Random,
    playouts: int,
    where: tuple[int, int, int],
    decisive: bool,
) -> Samples:
    ffi, words, roles = native.ffi, native.words, native.roles
    out = ffi.new("uint64_t[]", MAX_SAMPLES * words)
    owner = ffi.new("int[]", MAX_SAMPLES)
    goals = ffi.new("int[]", playouts * roles)
    fail = ffi.new("uint64_t[]", words)
    state = bits.to_bytes(native.state_bytes, "little")
    seed = rng.getrandbits(32)
    lib = native.lib
    sampler = lib.gdl_sample_decisive_playouts if decisive else lib.gdl_sample_playouts
    taken = sampler(state, playouts, seed, *where, MAX_SAMPLES, out, owner, goals, fail)
    if taken < 0:
        raise GameError("a playout reached a state where the rules break")
    raw = ffi.buffer(out, taken * words * 8)
    size = words * 8
    found = [int.from_bytes(raw[i * size : (i + 1) * size], "little") for i in range(taken)]
    flat = ffi.unpack(goals, playouts * roles)
    return Samples(
        found,
        ffi.unpack(owner, taken),
        [tuple(flat[p * roles : (p + 1) * roles]) for p in range(playouts)],
    )


def learn(
    game: Game,
    rng: random.Random,
    playouts: int = PLAYOUTS,
    material: float = MATERIAL,
    decisive: bool = False,
    rich: bool = RICH,
    report: dict[str, Any] | None = None,
    material_first: bool = False,
    progress: float = 0.0,
) -> Heuristic | None:
    """The heuristic of `game` learnt from random playouts (see the module), or None
    where no feature predicts the goals clearly; with `material` above 0, its
    material term added with that weight (`material_term`); with `decisive`,
    from decisive playouts where the rules run on native code (`sample`); with
    `rich`, the rule features tried too (`rule_features`), kept where they earn
    their place.  The same `rng` state gives the same result.  A `report` dict
    gets the held-out figures whatever the verdict: ``counts`` (of the fact
    counts alone) and ``rules`` (with the rule features), per role, and
    ``rule_features``, the names of those tried (absent: not fitted), and with `material`
    ``material``, the material term over all the samples (`material_term`).  With
    `material_first` (and `material`), the material term alone where it predicts the
    goals, and the fit only where it does not; with `progress` above 0, a piece of the
    material alone is worth more the nearer it is to its role's goal (`_with_progress`)."""
    texts, samples = sample(game, rng, playouts, decisive=decisive)
    roles = len(game.roles)
    played = len(samples.goals)
    if len(samples.bits) < 20 or played < 4:
        return None
    targets = [[samples.goals[o][r] * 0.01 for o in samples.owner] for r in range(roles)]
    if report is not None and material > 0:
        report["material"] = material_term(texts, samples, game.roles, targets)
    if material_first:
        alone = _material_alone(game, texts, samples, targets, material, False, progress)
        if alone is not None:
            return alone
    need = FEATURE_Z / sqrt(played)
    strength = []
    for name, mask in candidate_features(texts):
        counts = [(bits & mask).bit_count() for bits in samples.bits]
        best = max(abs(correlation(counts, y)) for y in targets)
        if best >= need:
            strength.append((best, name, mask, counts))
    strength.sort(key=lambda item: -item[0])
    chosen = strength[:MAX_FEATURES]
    tried = _rule_candidates(game, texts, samples, targets, need) if rich else None
    if not chosen and not tried:
        return _material_alone(game, texts, samples, targets, material, progress=progress)
    train, test = _halves(samples)
    columns = [counts for _, _, _, counts in chosen]
    counts_held = _held_out(columns, targets, train, test) if chosen else None
    extras: list[RuleFeature] = []
    held_out = counts_held
    if report is not None and counts_held is not None:
        report["counts"] = counts_held
    if tried:
        extra_columns = [counts for _, _, counts in tried]
        rich_held = _held_out(columns + extra_columns, targets, train, test)
        if report is not None:
            report["rules"] = rich_held
            report["rule_features"] = [feature.name for _, feature, _ in tried]
        if counts_held is None or _mean(rich_held) >= _mean(counts_held) + RICH_MARGIN:
            extras = [feature for _, feature, _ in tried]
            columns = columns + extra_columns
            held_out = rich_held
    assert held_out is not None
    if not columns or max(held_out) < max(MIN_CORRELATION, MIN_Z / sqrt(played // 2)):
        return _material_alone(game, texts, samples, targets, material, progress=progress)
    rows = []
    for y in targets:
        weights = _fit(columns, y)
        fitted = [_predict(weights, columns, i) for i in range(len(y))]
        mean = sum(fitted) / len(fitted)
        spread = sqrt(sum((f - mean) ** 2 for f in fitted) / len(fitted))
        scale = SHARPNESS / spread if spread > 0 else 0.0
        bias = scale * (weights[0] - mean) + _mean_goal_score(y)
        rows.append([bias, *(scale * w for w in weights[1:])])
    masks = [mask for _, _, mask, _ in chosen]
    names = [name for _, name, _, _ in chosen]
    if material > 0:
        term = material_term(texts, samples, game.roles, targets)
        for role, (name, mask) in enumerate(term):
            if mask not in masks:
                masks.append(mask)
                names.append(name)
                for row in rows:
                    row.insert(len(masks), 0.0)  # after the masks, before the rule features
            f = 1 + masks.index(mask)
            for r, row in enumerate(rows):
                row[f] += material if r == role else -material / (len(rows) - 1)
    return Heuristic(
        texts=tuple(texts),
        masks=tuple(masks),
        names=tuple(names),
        weights=tuple(tuple(row) for row in rows),
        held_out=tuple(held_out),
        game=game if isinstance(game, CompiledGame) and texts is game.compiled.base_texts else None,
        extras=tuple(extras),
        held_out_counts=None if tried is None else tuple(counts_held or ()),
    )


def _material_alone(
    game: Game,
    texts: tuple[str, ...],
    samples: Samples,
    targets: Sequence[Sequence[float]],
    material: float,
    fit_tried: bool = True,
    progress: float = 0.0,
) -> Heuristic | None:
    """Where no fit predicts the goals, the material term alone (`material_term`: each
    role `material` per piece of its own, less `material` / (n - 1) per piece of each
    other role's), if it predicts them: found on the even playouts, its difference of
    counts must correlate positively with every role's goal on the odd ones, by at
    least `FEATURE_Z` standard errors (one feature a role, not a fit of several).
    Random playouts rarely win by material, so it predicts weakly (about 0.13 on
    knightThrough, where no fit passes) even where a search between players who
    capture wins by it; the races judge it in play (implicit minimax and the prior
    on or off).  None without `material`, a term, or that correlation.  `fit_tried`
    says whether a fit was tried first (False: `learn`'s ``material_first``); with
    `progress`, the pieces are weighed by their distance to the goal (`_with_progress`)."""
    roles = len(targets)
    if material <= 0 or roles < 2:
        return None
    train, test = _halves(samples)
    half = Samples([samples.bits[i] for i in train], [samples.owner[i] for i in train], [])
    term = material_term(texts, half, game.roles, [[y[i] for i in train] for y in targets])
    if not term:
        return None
    counts = [[(samples.bits[i] & mask).bit_count() for i in test] for _, mask in term]
    held_out = []
    for r, y in enumerate(targets):
        held_out.append(correlation(_lead(counts, r), [y[i] for i in test]))
    if min(held_out) < FEATURE_Z / sqrt(max(1, len({samples.owner[i] for i in test}))):
        return None
    compiled = isinstance(game, CompiledGame) and texts is game.compiled.base_texts
    levels = _with_progress(game, term, progress) if compiled and progress > 0 else None
    if levels is None:
        levels = [(name, mask, r, 1.0) for r, (name, mask) in enumerate(term)]
        progress = 0.0
    rows = []
    for r, y in enumerate(targets):
        row = [_mean_goal_score(y)]
        for _, _, f, worth in levels:
            row.append(material * worth * (1 if f == r else -1 / (roles - 1)))
        rows.append(row)
    return Heuristic(
        texts=tuple(texts),
        masks=tuple(mask for _, mask, _, _ in levels),
        names=tuple(name for name, _, _, _ in levels),
        weights=tuple(tuple(row) for row in rows),
        held_out=tuple(held_out),
        game=game if compiled else None,
        material_alone=True,
        fit_tried=fit_tried,
        progress=progress,
    )


def _with_progress(
    game: Game, term: Sequence[tuple[str, int]], progress: float
) -> list[tuple[str, int, int, float]] | None:
    """The material term split by each piece's distance to its role's best goal
    (`ggp.player.search.goal_distance`): per role and distance d, the feature counting
    the role's pieces at d, worth 1 + `progress` * (D - d) / D a piece (D the farthest a
    piece of the role can be; 1 for a piece no move takes to the goal), as
    (name, mask, role, worth).  None where some role's pieces have no distances (the
    rules place them and never move them): the material counts pieces alike there."""
    by_role = piece_distances(game, term)
    if by_role is None:
        return None
    levels = []
    for r, ((name, mask), distances) in enumerate(zip(term, by_role, strict=True)):
        farthest = max(distances.values())
        by_distance: dict[int, int] = {}
        for bit, d in distances.items():
            by_distance[d] = by_distance.get(d, 0) | 1 << bit
        unreached = mask & ~sum(1 << bit for bit in distances)
        if unreached:
            levels.append((f"{name} not towards the goal", unreached, r, 1.0))
        for d in sorted(by_distance, reverse=True):
            worth = 1 + progress * (farthest - d) / farthest if farthest else 1 + progress
            levels.append((f"{name} {d} from the goal", by_distance[d], r, worth))
    return levels


def piece_distances(game: Game, term: Sequence[tuple[str, int]]) -> list[dict[int, int]] | None:
    """Per role of the material `term` (`material_term`), the distance of each of its
    pieces (a base fact of the compiled rules) that some of the role's moves take to a
    fact its best goal reads, in moves (`ggp.player.search.goal_distance`); None where
    the rules are not compiled or some role's pieces have none."""
    if not isinstance(game, CompiledGame) or len(term) != len(game.roles):
        return None
    compiled = game.compiled
    network = compiled.network
    found = []
    for r, (_, mask) in enumerate(term):
        values = compiled.goal_values[r]
        if not values:
            return None
        best = max(range(len(values)), key=values.__getitem__)
        distances = goal_distances(network, mask, r, network.goals[r][best][0])
        if distances is None:
            return None
        found.append(distances)
    return found


def _halves(samples: Samples) -> tuple[list[int], list[int]]:
    """The samples of the even playouts (to fit on) and of the odd ones (held out)."""
    train = [i for i, o in enumerate(samples.owner) if o % 2 == 0]
    test = [i for i, o in enumerate(samples.owner) if o % 2 == 1]
    return train, test


def _mean_goal_score(goals: Sequence[float]) -> float:
    """The score whose value (0.5 + 0.5 * x / (1 + |x|)) is the mean of `goals` (0..1),
    kept within 0.05..0.95."""
    centre = min(0.9, max(-0.9, 2 * sum(goals) / len(goals) - 1))
    return centre / (1 - abs(centre))


def _lead(counts: Sequence[Sequence[int]], role: int) -> list[float]:
    """Per sample, role `role`'s count less the mean of the other roles' (`counts`: per
    role, per sample)."""
    others = [c for o, c in enumerate(counts) if o != role]
    return [c - sum(o[k] for o in others) / len(others) for k, c in enumerate(counts[role])]


def _rule_candidates(
    game: Game,
    texts: Sequence[str],
    samples: Samples,
    targets: Sequence[Sequence[float]],
    need: float,
) -> list[tuple[float, RuleFeature, list[int]]] | None:
    """The rule features (`rule_features`) whose counts over the samples correlate with
    some role's goal at least `need`, the strongest `MAX_RULE_FEATURES`, each with its
    strength and counts; None where the game has none to try (facts not its bits)."""
    if not isinstance(game, CompiledGame) or texts is not game.compiled.base_texts:
        return None
    features = rule_features(game)
    if not features:
        return None
    states = [CompiledState(game, bits) for bits in samples.bits]
    found = []
    for feature in features:
        counts = [feature.count(state, state.bits) for state in states]
        best = max(abs(correlation(counts, y)) for y in targets)
        if best >= need:
            found.append((best, feature, counts))
    found.sort(key=lambda item: -item[0])
    return found[:MAX_RULE_FEATURES]


def _held_out(
    columns: Sequence[Sequence[float]],
    targets: Sequence[Sequence[float]],
    train: Sequence[int],
    test: Sequence[int],
) -> list[float]:
    """Per role, the correlation with its goal, on the `test` samples, of the fit of
    the columns on the `train` samples."""
    held_out = []
    for y in targets:
        weights = _fit([[column[i] for i in train] for column in columns], [y[i] for i in train])
        predicted = [_predict(weights, columns, i) for i in test]
        held_out.append(correlation(predicted, [y[i] for i in test]))
    return held_out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def material_term(
    texts: Sequence[str],
    samples: Samples,
    roles: Sequence[str],
    targets: Sequence[Sequence[float]],
) -> list[tuple[str, int]]:
    """Each role's material: the feature counting its pieces, one per role (role
    order), or none (an empty list).

    A role's pieces are the facts of one relation with the role's name at one
    argument position (``(cellHolds ? ? white)``), more than one fact per role
    (a single fact such as ``(control white)`` says whose turn it is, not what
    a side holds).  Of the relations and positions where every role has such
    facts, the one whose difference of counts (a role's less the mean of the
    others') correlates best with the goals over the samples, if positively.
    Random playouts rarely lose by material, so the fit itself weighs it little
    (on Breakthrough 0.07 a piece beside 1.1 for a piece one row from the goal):
    the term says what a search between players who capture knows.
    """
    if len(roles) < 2:
        return []
    names = {name: r for r, name in enumerate(roles)}
    groups: dict[tuple[str, int], dict[int, int]] = {}
    for i, text in enumerate(texts):
        parts = split_fact(text)
        for position, arg in enumerate(parts[1:]):
            role = names.get(arg)
            if role is not None:
                masks = groups.setdefault((parts[0], position), {})
                masks[role] = masks.get(role, 0) | 1 << i
    best: tuple[float, list[tuple[str, int]]] | None = None
    for (relation, position), masks in groups.items():
        if len(masks) < len(roles) or min(m.bit_count() for m in masks.values()) < 2:
            continue
        ordered = [masks[r] for r in range(len(roles))]
        counts = [[(bits & mask).bit_count() for bits in samples.bits] for mask in ordered]
        total = 0.0
        for r, y in enumerate(targets):
            total += correlation(_lead(counts, r), y)
        if total > 0 and (best is None or total > best[0]):
            first = (masks[0] & -masks[0]).bit_length() - 1
            arity = len(split_fact(texts[first])) - 1
            term = []
            for r, name in enumerate(roles):
                shown = " ".join(name if k == position else "?" for k in range(arity))
                term.append((f"({relation} {shown})", masks[r]))
            best = (total, term)
    return [] if best is None else best[1]


class Learning:
    """`learn` in a background thread, for a search that cannot wait for it.

    The thread first waits for the game's native code (`CompiledGame.native_build`:
    on the generated Python, 1,500 playouts of a large game take far longer) and
    then learns; `done` is set when it has finished, `result` the heuristic (None:
    the game has none, or learning failed, which is reported on stderr).  Learning
    takes 1.5 s on Breakthrough, 6 s on Hex (which gets none), on an idle core.
    """

    def __init__(
        self,
        game: Game,
        material: float = MATERIAL,
        decisive: bool = False,
        material_first: bool = False,
        progress: float = 0.0,
    ) -> None:
        self.game = game
        self.material = material
        self.decisive = decisive
        self.material_first = material_first
        self.progress = progress
        self.result: Heuristic | None = None
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="learning", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            build = getattr(self.game, "native_build", None)
            if build is not None:
                build.join()
            self.result = learn(
                self.game,
                random.Random(LEARNING_SEED),
                material=self.material,
                decisive=self.decisive,
                material_first=self.material_first,
                progress=self.progress,
            )
        except Exception as error:  # the search goes on without a heuristic
            print(f"learning the heuristic failed: {error!r}", file=sys.stderr)
        finally:
            self.done.set()


def _predict(weights: Sequence[float], columns: Sequence[Sequence[float]], i: int) -> float:
    return weights[0] + sum(w * column[i] for w, column in zip(weights[1:], columns, strict=True))


def correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation of two samples (0 where one does not vary)."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return 0.0
    return sxy / sqrt(sxx * syy)


def _fit(columns: Sequence[Sequence[float]], y: Sequence[float]) -> list[float]:
    """Ridge least squares of `y` on the columns and a bias: [bias, weight...]."""
    n = len(y)
    k = len(columns)
    rows = [[1.0] * n, *columns]
    size = k + 1
    matrix = [
        [sum(a * b for a, b in zip(rows[i], rows[j], strict=True)) for j in range(size)]
        for i in range(size)
    ]
    for i in range(1, size):
        matrix[i][i] += RIDGE * n
    vector = [sum(a * b for a, b in zip(row, y, strict=True)) for row in rows]
    return _solve(matrix, vector)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrix is small and regularised)."""
    size = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for r in range(size):
            if r != col:
                factor = a[r][col] / a[col][col]
                if factor:
                    for c in range(col, size + 1):
                        a[r][c] -= factor * a[col][c]
    return [a[i][size] / a[i][i] if abs(a[i][i]) >= 1e-12 else 0.0 for i in range(size)]


class CutoffPlayout:
    """Evaluates a state by random playouts cut off after `plies` moves (see the module).

    As `ggp.player.search.evaluation.RandomPlayout`: the mean of `Game.playout_batch` playouts.
    `playouts` counts them all.
    """

    playouts = 0

    def __init__(self, heuristic: Heuristic, plies: int) -> None:
        if plies < 0:
            raise GameError(f"the cut-off needs plies >= 0, got {plies}")
        self.heuristic = heuristic
        self.plies = plies
        self._buffers: tuple[int, Any, Any, Any] | None = None
        """The native results' buffers, for this many playouts at least."""

    def evaluate(self, state: State, rng: random.Random) -> list[float]:
        count = state.game.playout_batch
        self.playouts += count
        native = getattr(state.game, "native_playouts", None)
        heuristic = self.heuristic
        if (
            native is not None
            and isinstance(state, CompiledState)
            and heuristic.game is state.game
            and heuristic.counts_only
        ):
            return self._native(native, state.bits, rng, count)
        total = [0.0] * len(state.game.roles)
        for _ in range(count):
            current = state
            for _ in range(self.plies):
                if current.is_terminal():
                    break
                current = current.next([rng.choice(m) for m in current.all_legal_moves()])
            for r, value in enumerate(heuristic.value(current)):
                total[r] += value
        return [value / count for value in total]

    def _native(self, native: Any, bits: int, rng: random.Random, count: int) -> list[float]:
        ffi, roles, words = native.ffi, native.roles, native.words
        masks, weights = self.heuristic.native_tables(native)
        buffers = self._buffers
        if buffers is None or buffers[0] < count:
            buffers = self._buffers = (
                count,
                ffi.new("double[]", count * roles),
                ffi.new("int[]", count),
                ffi.new("uint64_t[]", words),
            )
        _, values, steps, fail = buffers
        seed = rng.getrandbits(32)
        state = bits.to_bytes(native.state_bytes, "little")
        features = len(self.heuristic.masks)
        done = native.lib.gdl_cutoff_playouts(
            state, count, seed, self.plies, features, masks, weights, values, steps, fail
        )
        if done < 0:
            raise GameError("a native playout reached a state where the rules break")
        if count == 1:
            return list(ffi.unpack(values, roles))
        flat = ffi.unpack(values, count * roles)
        return [sum(flat[i * roles + r] for i in range(count)) / count for r in range(roles)]
