"""Shallow proofs: a depth-limited search for forced wins inside MCTS-Solver.

Random playouts are blind to short forced lines: a move that lets the
opponent win at once looks no worse than another until the tree has grown
down to that reply, and a win in three plies is found only when the tree
happens to expand all of the opponent's answers.  Baier and Winands
("Monte-Carlo Tree Search and Minimax Hybrids", 2013) embed shallow minimax
searches over terminal outcomes only in MCTS-Solver and find that they catch
such wins and traps at equal time in Connect Four and Breakthrough.  This is
our version of their hybrid in the selection step: when a node of a
turn-taking game is first reached `threshold` times, every move of its mover
is searched `depth` - 1 plies deep (so `depth` plies from the node) for a
*forced strict win* of some role (goal 100 for it and 0 for every other role
at every end of the line, whatever the others play).  No heuristic: a line
that does not end within the depth is unknown.

A strict win gives exact values to every role's security value (the winner
gets 1, and every other role 0, since the winner alone can hold it to 0), so
each move proven that way becomes a child whose solver bounds meet
(`ggp.player.search.solver`), and the ordinary solver machinery takes over: a proven win
is played, a proven loss avoided while a move that may not lose is left, and
the proofs are backed up.  Terminal children met on the way are stored too
(draws included).  Draws and other outcomes deeper than one ply are not
proven here.  Nodes where more than one role has a choice (simultaneous
moves) are not searched.

Cost: each state looked at is one `State.next`; at depth 2 a node costs about
b + b² of them (b the moves a turn), at depth 3 the searches for a reply that
wins stop at the first refutation, so far fewer than b³.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from ggp.games.base import State

Key = TypeVar("Key")


def strict_winner(goals: Sequence[int]) -> int | None:
    """The role with goal 100 when every other role has 0, else None."""
    winner = None
    for role, goal in enumerate(goals):
        if goal == 100 and winner is None:
            winner = role
        elif goal != 0:
            return None
    return winner


def _mover_and_joints(state: State) -> tuple[int | None, list[list[str]]] | None:
    """The role with a choice (None: nobody has one) and the joint moves of a
    non-terminal state; None when several roles choose at once."""
    legal = state.all_legal_moves()
    choosers = [role for role, moves in enumerate(legal) if len(moves) > 1]
    if len(choosers) > 1:
        return None
    fixed = [moves[0] for moves in legal]
    if not choosers:
        return None, [fixed]
    role = choosers[0]
    joints = []
    for move in legal[role]:
        joint = list(fixed)
        joint[role] = move
        joints.append(joint)
    return role, joints


def wins(state: State, role: int, depth: int) -> bool:
    """Whether `role` can force a strict win within `depth` plies of the
    non-terminal `state` (False also when not known within the depth)."""
    found = _mover_and_joints(state)
    if found is None:
        return False
    mover, joints = found
    deeper: list[State] = []
    if mover == role:  # one winning move will do
        for joint in joints:
            child = state.next_listed(joint)
            if child.is_terminal():
                if strict_winner(child.goals()) == role:
                    return True
            elif depth > 1:
                deeper.append(child)
        return any(wins(child, role, depth - 1) for child in deeper)
    for joint in joints:  # every move of the others must lose
        child = state.next_listed(joint)
        if child.is_terminal():
            if strict_winner(child.goals()) != role:
                return False
        elif depth == 1:
            return False
        else:
            deeper.append(child)
    return all(wins(child, role, depth - 1) for child in deeper)


def winner(state: State, depth: int) -> int | None:
    """The role that can force a strict win within `depth` plies of the
    non-terminal `state`, if one is found (at most one role can)."""
    found = _mover_and_joints(state)
    if found is None:
        return None
    mover, joints = found
    children = [state.next_listed(joint) for joint in joints]
    common: int | None = None
    """The strict winner of every child so far (a role other than the mover)."""
    every = True
    """Whether every child so far is a forced win for `common`."""
    deeper: list[State] = []
    for child in children:
        if child.is_terminal():
            won = strict_winner(child.goals())
            if won is not None and won == mover:
                return mover
            every = every and won is not None and common in (None, won)
            common = won if every else common
        else:
            deeper.append(child)
    if depth == 1:
        return common if every and not deeper else None
    for child in deeper:
        if every:
            won = winner(child, depth - 1)
            if won is not None and won == mover:
                return mover
            every = won is not None and common in (None, won)
            common = won if every else common
        elif mover is not None and wins(child, mover, depth - 1):
            return mover
    return common if every else None


def proven_moves(
    children: Iterable[tuple[Key, State]], roles: int, depth: int
) -> list[tuple[Key, State, list[float] | None]]:
    """Of the states one move away (`children`, each with a key of the caller's),
    those that are terminal or a forced strict win found within `depth` - 1
    plies: (key, state, the exact rewards; None for a terminal state, whose
    goals say it).  `roles` is the number of roles."""
    found: list[tuple[Key, State, list[float] | None]] = []
    for key, child in children:
        if child.is_terminal():
            found.append((key, child, None))
        elif depth > 1:
            won = winner(child, depth - 1)
            if won is not None:
                rewards = [0.0] * roles
                rewards[won] = 1.0
                found.append((key, child, rewards))
    return found
