"""The search tree: its nodes, each a state with statistics per role per move.

`Node` is the data every part of the search reads and writes: the UCT search
(`mcts`), the solver's proofs (`solver`), RAVE's AMAF tables (`rave`),
implicit minimax (`imm`), MAST's learning from the path (`mast`) and the state
tables (`state_table`).  It imports none of them, so each can import it.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ggp.games.base import State

Rewards = Sequence[float]
"""One reward in [0, 1] per role (goal / 100)."""


class Ucb(NamedTuple):
    """A role's UCB1 terms at a node, kept up to date by the backups so that a choice
    adds one term to another per move (``bases[i] + explore / roots[i]``) instead of
    computing each move's mean and square root: the same sums in the same order, so
    the same values to the last bit."""

    bases: list[float]
    """Each move's value without exploration: its mean (blended with implicit minimax,
    `ggp.player.search.imm.ImplicitMinimax.base`, where `minimax`)."""
    roots: list[float]
    """The square root of each move's visits."""
    minimax: bool
    """Whether `bases` blend in the node's implicit minimax values."""


class Node:
    """A state in the tree and, once expanded, its statistics per role per move.

    `visits` counts the iterations that went through the node (the one that
    created it included); `counts[r][i]` and `sums[r][i]` are the visits and
    summed rewards of role r after its move i (moves in random order, see
    `expand`); `untried[r]` holds the moves of role r not chosen yet.
    `choosers` are the roles with more than one move.  `decisive` is the
    move that ends the game with the full goal for the only chooser, once
    one is found.  `children` maps a joint move, as a tuple of move indices,
    to the node it leads to.

    The solver's proofs (`ggp.player.search.solver`): `lower` and `upper` bound each
    role's reward (None: nothing known, 0 and 1), `allowed[r]` lists the
    moves role r may still choose (None: all), and `proven` is the exact
    rewards once the bounds meet, at terminal nodes from the start.
    `probed` says whether the shallow proof search has looked at the node.
    With RAVE (`rave.py`), `amaf` is the node's AMAF table once it has
    one and `slots` its moves' table positions per role, once needed.
    With implicit minimax (`ggp.player.search.imm`), `imm` is the node's backed-up
    heuristic value per role and `imm_moves` its one chooser's value of each
    move (-1: none yet), once a child has reported one.
    """

    __slots__ = (
        "state",
        "depth",
        "rewards",
        "visits",
        "moves",
        "counts",
        "sums",
        "untried",
        "choosers",
        "joints",
        "decisive",
        "children",
        "lower",
        "upper",
        "allowed",
        "proven",
        "probed",
        "amaf",
        "slots",
        "imm",
        "imm_moves",
        "frozen",
        "stale",
        "ucb",
    )

    def __init__(self, state: State, depth: int) -> None:
        self.state = state
        self.depth = depth
        self.rewards: Rewards | None = (
            [goal * 0.01 for goal in state.goals()] if state.is_terminal() else None
        )
        self.visits = 0
        self.moves: tuple[tuple[str, ...], ...] | None = None
        self.counts: list[list[int]] = []
        self.sums: list[list[float]] = []
        self.untried: list[list[int]] = []
        self.choosers: tuple[int, ...] = ()
        self.joints: list[tuple[int, ...]] = []
        self.children: dict[tuple[int, ...], Node] = {}
        self.decisive: int | None = None
        rewards = self.rewards
        self.lower: tuple[float, ...] | None = None if rewards is None else tuple(rewards)
        self.upper = self.lower
        self.allowed: list[list[int] | None] | None = None
        self.proven = rewards
        self.probed = False
        self.amaf: array | None = None
        self.slots: tuple[tuple[int, ...], ...] | None = None
        self.imm: Rewards | None = None
        self.imm_moves: list[float] | None = None
        self.frozen: dict[int, str] | None = None
        self.stale = False
        """Whether the state was rebased (`MCTS.advance_part`) and the moves kept
        at expansion are to be checked against it (`MCTS._refresh`)."""
        self.ucb: list[Ucb | None] | None = None
        """Per role, once it chooses among tried moves: its moves' UCB terms (`Ucb`)."""

    def expand(self, rng: random.Random, part: frozenset[str] | None = None) -> None:
        """Learn the legal moves (done once, the second time the node is visited).

        Each role's moves are kept in a random order, so that untried moves
        are tried in random order and ties between equal values are broken
        at random, not in favour of the moves the game happens to list first.
        With `part` (`MCTS`'s), a role none of whose moves is in it keeps one
        of them, at random, and `frozen` maps it to another (`_next_state`).
        """
        shuffled = []
        for legal in self.state.all_legal_moves():
            moves = list(legal)
            shuffle(moves, rng)
            if part is not None and len(moves) > 1 and part.isdisjoint(moves):
                if self.frozen is None:
                    self.frozen = {}
                self.frozen[len(shuffled)] = moves[1]
                moves = moves[:1]
            shuffled.append(tuple(moves))
        self.moves = tuple(shuffled)
        self.ucb = None
        self.counts = [[0] * len(moves) for moves in self.moves]
        self.sums = [[0.0] * len(moves) for moves in self.moves]
        self.untried = [list(range(len(moves) - 1, -1, -1)) for moves in self.moves]
        self.choosers = tuple(role for role, moves in enumerate(self.moves) if len(moves) > 1)
        if len(self.choosers) == 1:
            role = self.choosers[0]
            before, after = (0,) * role, (0,) * (len(self.moves) - role - 1)
            self.joints = [(*before, i, *after) for i in range(len(self.moves[role]))]

    def walk(self, max_depth: int) -> Iterator[Node]:
        """This node and its expanded descendants down to `max_depth`."""
        if self.moves is None or self.depth > max_depth:
            return
        yield self
        for child in self.children.values():
            yield from child.walk(max_depth)


def shuffle(items: list, rng: random.Random) -> None:
    """``rng.shuffle(items)``: the same draws from `rng` and the same order, without
    two method calls per item (a node's expansion shuffles every role's moves).
    A subclass of `random.Random`, which may draw otherwise, shuffles itself."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        bits = (i + 1).bit_length()
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def subtree(root: Node) -> Iterator[Node]:
    """Every node under `root`, root included, once each (iteratively: trees can
    be deep; a node shared by transpositions is reached by several paths)."""
    stack = [root]
    seen = {id(root)}
    while stack:
        node = stack.pop()
        yield node
        for child in node.children.values():
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
