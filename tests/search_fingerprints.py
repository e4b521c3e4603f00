"""Seeded searches whose results a change of the search's speed must not change.

Each case runs `MCTS` (a configuration of its enhancements) on a game from a
fixed seed for a fixed number of iterations, and its fingerprint is what the
search decided: every role's root statistics (moves, visits, mean rewards,
proven bounds), the move it would play and the nodes it holds, after the
search and again after advancing along the chosen moves and searching on.
`tests/data/search_fingerprints.json` holds the fingerprints of the code
before the hot loop was made faster (issue 36); `test_search_fingerprints.py`
compares.  After a change that is meant to alter the search, regenerate them:

    python tests/search_fingerprints.py --write

Native games run with a fixed `Game.playout_batch` (attach measures it by
the clock, so it differs from run to run).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ggp.games.base import Game, State
from ggp.games.registry import GDL_DIR, load_game
from ggp.player.search import native_search
from ggp.player.search.imm import HeuristicPrior, ImplicitMinimax
from ggp.player.search.mcts import MCTS

FINGERPRINTS = Path(__file__).parent / "data" / "search_fingerprints.json"
ITERATIONS = 400
NATIVE_BATCH = 2


class HashEvaluation:
    """A deterministic stand-in for a learnt heuristic: each role's value a hash of
    the state's key (any game, no learning)."""

    def value(self, state: State) -> list[float]:
        if state.is_terminal():
            return [goal * 0.01 for goal in state.goals()]
        code = zlib.crc32(state.key().encode())
        roles = len(state.game.roles)
        return [((code >> (8 * r)) & 255) / 255 for r in range(roles)]


def configurations() -> dict[str, Callable[[], dict[str, Any]]]:
    """MCTS keyword arguments by case name (made fresh: some hold state)."""
    return {
        "plain": lambda: {},
        "served": lambda: {"c": 0.35, "solver": True},
        "decisive": lambda: {"c": 0.35, "solver": True, "decisive": 1000},
        "imm": lambda: {"c": 0.35, "solver": True, "imm": ImplicitMinimax(HashEvaluation(), 0.4)},
        "prior": lambda: {"prior": HeuristicPrior(HashEvaluation(), 3)},
        "transpose": lambda: {"solver": True, "transpose": True},
        "shallow": lambda: {"solver": True, "shallow": 2, "shallow_visits": 20},
        "rave": lambda: {"rave": True},
        "mast": lambda: {"mast": True},
        "greedy": lambda: {"greedy": 4},
        "mean": lambda: {"final": "mean", "stochastic": True},
        "capped": lambda: {"max_nodes": 60, "solver": True},
    }


GAMES = {
    "connect_four": ("connect_four", None),
    "breakthrough": ("breakthrough", None),
    "hex": ("hex:size=5", None),
    "tictactoe-gdl": ("tictactoe", "compiled"),
    "connect_four-native": (str(GDL_DIR / "connect_four.kif"), "native"),
    "breakthrough-native": (str(GDL_DIR / "breakthrough.kif"), "native"),
}
"""Case games: registry spec and reasoner (None: the built-in Python game)."""

CASES = {
    "connect_four": list(configurations()),
    "breakthrough": ["plain", "served", "imm", "transpose", "rave", "capped"],
    "hex": ["plain", "served", "prior", "mast"],
    "tictactoe-gdl": ["plain", "served", "shallow"],
    "connect_four-native": ["served", "decisive", "imm", "rave", "mast"],
    "breakthrough-native": ["served", "imm", "capped"],
}


def load(name: str) -> Game:
    spec, reasoner = GAMES[name]
    if reasoner is None:
        return load_game(spec)
    game = load_game(spec, reasoner=reasoner)
    build = getattr(game, "native_build", None)
    if build is not None:
        build.join()
    if reasoner == "native":
        if getattr(game, "native", None) is None:
            raise RuntimeError(f"{name}: no native code")
        game.playout_batch = NATIVE_BATCH
    return game


def fingerprint(game: Game, config: str, seed: int = 1) -> str:
    """The digest of what a seeded search of `game` with `config` decided.  The native
    tree holds no more nodes than the Python tree here (`NATIVE_NODE_SHARE` 1), so that
    a capped search decides alike on either (tests/test_native_tree.py)."""
    share = native_search.NATIVE_NODE_SHARE
    native_search.NATIVE_NODE_SHARE = 1
    try:
        return _fingerprint(game, config, seed)
    finally:
        native_search.NATIVE_NODE_SHARE = share


def _fingerprint(game: Game, config: str, seed: int) -> str:
    rng = random.Random(seed)
    state = game.initial_state()
    search = MCTS(state, rng=rng, **configurations()[config]())
    seen: list[Any] = []
    for _ in range(2):
        search.search(iterations=ITERATIONS)
        roles = range(len(game.roles))
        stats = [
            [(s.move, s.visits, repr(s.value), s.lower, s.upper) for s in search.statistics(r)]
            for r in roles
        ]
        moves = [search.best_move(r) for r in roles]
        seen.append([stats, moves, search.node_count])
        if search.root.proven is not None:
            break
        state = state.next(moves)
        if state.is_terminal():
            break
        search.advance(moves, state)
    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]


def all_fingerprints(games: Sequence[str] | None = None) -> dict[str, str]:
    found = {}
    for name in games or CASES:
        game = load(name)
        for config in CASES[name]:
            found[f"{name}/{config}"] = fingerprint(game, config)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {FINGERPRINTS.name}")
    args = parser.parse_args()
    found = all_fingerprints()
    if args.write:
        FINGERPRINTS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    known = json.loads(FINGERPRINTS.read_text()) if FINGERPRINTS.exists() else {}
    for case, value in found.items():
        print(f"{case:36} {value} {'' if known.get(case) == value else 'CHANGED'}")


if __name__ == "__main__":
    main()
