"""GDL-II percepts per CPU-second on each reasoner, and ISMCTS iterations per CPU-second.

    python benchmarks/gdl2_percepts.py [--seconds S] [GAME ...]

For each GDL-II game (the shipped ones by default, `ggp.games.registry.gdl_ii_games`)
and reasoner (interpreter, compiled, native when it can be built): the (state, joint
move) pairs of 100 seeded random playouts on that reasoner are asked their percepts
(`State.percepts`), the states made anew each round (only the asking is timed),
for S CPU seconds; then an information-set search
(`ggp.player.search.hidden`) from the initial state runs for S CPU seconds.  CPU time
is the process's (``time.process_time``); native code is built before the clock starts.
Prints one line per game and reasoner and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from ggp.games.base import Game, State
from ggp.games.registry import gdl_ii_games, load_game
from ggp.gdl.native.build import NativeUnavailable, check_available
from ggp.player.search.hidden import Belief, InformationSetSearch

PLAYOUTS = 100


def reasoners() -> list[str]:
    names = ["interpreter", "compiled"]
    try:
        check_available()
        names.append("native")
    except NativeUnavailable:
        pass
    return names


def loaded(name: str, reasoner: str) -> Game:
    game = load_game(name, reasoner=reasoner)
    build = getattr(game, "native_build", None)
    if build is not None:
        build.join()
    return game


def playouts(game: Game) -> list[list[list[str]]]:
    """The joint moves of `PLAYOUTS` seeded random playouts."""
    found = []
    for seed in range(PLAYOUTS):
        rng = random.Random(seed)
        state = game.initial_state()
        joints = []
        while not state.is_terminal():
            joints.append([rng.choice(legal) for legal in state.all_legal_moves()])
            state = state.next(joints[-1])
        found.append(joints)
    return found


def fresh_pairs(game: Game, joints: list[list[list[str]]]) -> list[tuple[State, list[str]]]:
    """Each (state, joint move) of the playouts, states made anew with their legal moves
    asked (as a search asks them before the percepts): no reasoner answers from a cache."""
    found = []
    for playout in joints:
        state = game.initial_state()
        for joint in playout:
            state.all_legal_moves()
            found.append((state, joint))
            state = state.next(joint)
    return found


def percepts_per_second(game: Game, seconds: float) -> float:
    """Percepts asked per CPU-second, only the asking timed."""
    joints = playouts(game)
    calls = 0
    spent = 0.0
    while spent < seconds:
        asked = fresh_pairs(game, joints)
        start = time.process_time()
        for state, joint in asked:
            state.percepts(joint)
        spent += time.process_time() - start
        calls += len(asked)
    return calls / spent


def iterations_per_second(game: Game, seconds: float) -> float:
    role = next(i for i in range(len(game.roles)) if i != game.random_role)
    search = InformationSetSearch(Belief(game, role, rng=random.Random(1)), rng=random.Random(2))
    start = time.process_time()
    while time.process_time() - start < seconds:
        search.run(50)
    return search.iterations / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="GDL-II games (default: the shipped ones)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds a figure")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for name in args.games or sorted(gdl_ii_games()):
        for reasoner in reasoners():
            game = loaded(name, reasoner)
            percepts = percepts_per_second(game, args.seconds)
            iterations = iterations_per_second(game, args.seconds)
            print(
                f"{name:16} {reasoner:11} {percepts:10,.0f} percepts/CPU-s "
                f"{iterations:8,.0f} ISMCTS iterations/CPU-s"
            )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
