"""Random playouts of a GDL game kept whole (every state's facts and legal moves), for
`ggp check`'s warnings and the rules analysis (`ggp.gdl.analysis`), and the rules that
never held in their states.

A `Playout` holds what the playout saw, in the game's own text (facts and moves as
`State.facts` and `State.legal_moves` give them), so any reasoner can record one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ggp.games.base import GameDefinitionError, State
from ggp.gdl.interpreter.game import GdlGame, RulesTooExpensive
from ggp.gdl.syntax.terms import Rule, relation

MAX_STATES_ASKED = 200
"""States in which `rules_never_held` asks the interpreter at most (evenly spread, the
last one among them): the interpreter takes up to a second a state on large games."""


@dataclass
class Playout:
    """One random playout: its states in order, the legal moves in each non-terminal one
    and the goals at the end (None if it did not end: cut, or the rules broke)."""

    states: list[tuple[str, ...]] = field(default_factory=list)
    legal: list[tuple[tuple[str, ...], ...]] = field(default_factory=list)
    """Per non-terminal state (the first ``len(legal)`` of `states`), per role."""
    goals: tuple[int, ...] | None = None
    fault: str = ""
    """Why the rules broke, if they did."""

    @property
    def terminal(self) -> bool:
        return self.goals is not None

    @property
    def length(self) -> int:
        """Joint moves played."""
        return len(self.states) - 1


def record_playout(
    state: State, rng: random.Random, max_steps: int, playout: Playout | None = None
) -> Playout:
    """A random playout from `state` of at most `max_steps` joint moves, recorded into
    `playout` (a new one if None; give one to see how far a playout got when it raises).

    The rules breaking (`GameDefinitionError`) ends it with its `fault`, except
    `RulesTooExpensive` (a state past the work limit), which is raised.
    """
    playout = Playout() if playout is None else playout
    playout.states.append(state.facts())
    try:
        while not state.is_terminal():
            if playout.length >= max_steps:
                return playout
            moves = state.all_legal_moves()
            playout.legal.append(moves)
            state = state.next([rng.choice(m) for m in moves])
            playout.states.append(state.facts())
        playout.goals = tuple(state.goals())
    except RulesTooExpensive:
        raise
    except GameDefinitionError as error:
        playout.fault = str(error)
    return playout


HELD = "ggp_rule_held"
"""The relation `rules_never_held` adds (renamed if the rules use it)."""


def rules_never_held(
    game: GdlGame, rules: Sequence[Rule], states: Iterable[tuple[str, ...]], work: int
) -> tuple[list[Rule], int]:
    """Those of `rules` (rules of `game`, whose heads depend on no move) whose body held
    in none of `states` (at most `MAX_STATES_ASKED` of them are asked, evenly spread),
    and how many states were asked.

    The interpreter answers, on a copy of the rules with one more rule per rule asked
    about: ``(<= (ggp_rule_held i) body...)``.  Each state may cost `work` join
    bindings (`GdlGame.limit_work`); a state past that is left out.
    """
    names = {relation(rule.head) for rule in game.rules}
    held = HELD
    while held in names:
        held += "_"
    extra = [Rule((held, str(i)), rule.body, rule.line) for i, rule in enumerate(rules)]
    copy = GdlGame([*game.rules, *extra], game.name, game.name)
    copy.limit_work(work)
    chosen = _spread(list(states), MAX_STATES_ASKED)
    seen: set[str] = set()
    asked = 0
    for facts in chosen:
        try:
            seen.update(args[0] for args in copy.state_from_facts(facts).derived(held))
        except RulesTooExpensive:
            continue
        asked += 1
    return [rule for i, rule in enumerate(rules) if str(i) not in seen], asked


def _spread(items: list, count: int) -> list:
    """At most `count` of `items`, evenly spread, the last one always among them."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[min(len(items) - 1, round((i + 1) * step) - 1)] for i in range(count)]
