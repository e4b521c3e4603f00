"""Races between search configurations (`ggp.player.search.races`), on fake clocks: who is
chosen, who is dropped, at equal time, and how the search worker takes the choice."""

from __future__ import annotations

import dataclasses
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from gdl_texts import KINGMAKER, STEPPED, TICTACTOE
from ggp.games.base import GameDefinitionError, GameError
from ggp.gdl.load import game_from_text
from ggp.player.search import races
from ggp.player.search.mcts import MCTS
from ggp.player.search.races import Race, RaceGame, SearchConfig, move_seconds
from ggp.player.service import search_worker, served_races, served_tactics
from ggp.player.service.search_worker import SearchWorker

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import serve_log  # noqa: E402  (the worker's line is read by the benchmarks)

GOOD_OR_BAD = """
(role left) (role right)
(init (round 0))
(<= (legal ?r good) (role ?r) (true (round 0)))
(<= (legal ?r bad) (role ?r) (true (round 0)))
(<= (next (round 1)) (true (round 0)))
(<= (next (chose ?r ?m)) (does ?r ?m))
(<= terminal (true (round 1)))
(<= (other left right)) (<= (other right left))
(<= (goal ?r 100) (true (chose ?r good)) (other ?r ?o) (true (chose ?o bad)))
(<= (goal ?r 0) (true (chose ?r bad)) (other ?r ?o) (true (chose ?o good)))
(<= (goal ?r 50) (true (chose ?r ?m)) (other ?r ?o) (true (chose ?o ?m)))
"""
"""Both roles choose at once; good beats bad, equal choices draw."""


class Scripted:
    """A fake search tree: a configuration with c >= 1 plays ``good``, else ``bad``."""

    def __init__(self, config: SearchConfig, state) -> None:
        self.move = "good" if config.c >= 1 else "bad"
        self.searched = 0
        self.settled = 0
        """Iterations on proven nodes (`MCTS.settled`): none here."""

    def search(self, iterations: int) -> int:
        self.searched += iterations
        return iterations

    def best_move(self, role: int) -> str:
        return self.move

    def statistics(self, role: int) -> list:
        return []

    def advance(self, joint, state) -> None:
        pass


class Ticks:
    """A clock that moves one second at each look."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


WIDER = (
    GOOD_OR_BAD
    + """
(<= (legal ?r ugly) (role ?r) (true (round 0)))
(<= (next (chose ?r bad)) (does ?r ugly))
"""
)
"""As GOOD_OR_BAD, with a third move as bad as bad: three moves to choose from."""


def race(
    champion: float,
    *changes: tuple[str, float],
    rules: str = GOOD_OR_BAD,
    tree: type = Scripted,
    **options,
) -> Race:
    game = game_from_text(rules, reasoner="interpreter")
    steps = tuple((name, lambda s, c=c: dataclasses.replace(s, c=c)) for name, c in changes)
    return Race(
        SearchConfig(champion),
        tree,
        game.initial_state,
        3.0,
        clock=Ticks(),
        changes=steps,
        **options,
    )


def test_a_challenger_that_wins_clearly_is_chosen_and_the_next_races_it() -> None:
    found = race(0.5, ("stronger", 2.0), ("weaker", 0.25))
    for _ in range(6):
        found.step()
    assert found.champion == SearchConfig(0.5) and found.standing.games == 6  # 6 of 6: not yet
    found.step()
    assert found.champion == SearchConfig(2.0)  # 7 of 7
    assert found.verdicts[0].startswith("chosen: random playouts, c=2 against random")
    assert "7 of 7 games (1.00, 0.65-1.00)" in found.verdicts[0]
    assert found.standing.name == "weaker" and found.standing.champion == SearchConfig(2.0)


def test_a_challenger_that_loses_is_dropped_once_out_of_reach() -> None:
    found = race(1.0, ("weaker", 0.5))
    found.run(until=100.0, now=Ticks())
    # three losses of 16 leave 13 wins at most, where 14 are needed
    assert found.finished and found.champion == SearchConfig(1.0) and found.games == 3
    assert found.verdicts == [
        "out of reach, dropped: random playouts, c=0.5 against random playouts, c=1: "
        "0 of 3 games (0.00, 0.00-0.56), 2 against 2 simulations a move"
    ]


def test_races_end_where_a_race_move_cannot_try_each_move_once() -> None:
    found = race(1.0, ("weaker", 0.5), ("stronger", 2.0), rules=WIDER)
    found.run(until=100.0, now=Ticks())
    # two simulations a move, three moves: the games say nothing, and no race goes on
    assert found.finished and found.champion == SearchConfig(1.0) and found.games == 1
    assert found.verdicts == [
        "races ended, their games too small to judge: weaker in 1 games ran 2 and 2 "
        "simulations a move, fewer than the 3 moves a search chose among"
    ]
    # with two moves, two simulations try each once: the race goes on to its verdict
    narrow = race(1.0, ("weaker", 0.5))
    narrow.run(until=100.0, now=Ticks())
    assert narrow.games == 3 and narrow.verdicts[0].startswith("out of reach, dropped")


class Settled(Scripted):
    """A fake search tree whose every iteration ends on a node already proven."""

    def search(self, iterations: int) -> int:
        self.settled += iterations
        return super().search(iterations)


def test_iterations_on_proven_nodes_are_not_the_simulations_a_race_move_needs() -> None:
    # the race that goes on to its verdict above, but no iteration evaluated a leaf
    found = race(1.0, ("weaker", 0.5), tree=Settled)
    found.run(until=100.0, now=Ticks())
    assert found.finished and found.games == 1
    assert found.verdicts == [
        "races ended, their games too small to judge: weaker in 1 games ran 0 and 0 "
        "simulations a move, fewer than the 2 moves a search chose among"
    ]


def test_a_challenger_that_only_draws_is_dropped_once_it_cannot_be_chosen() -> None:
    found = race(1.0, ("as good", 3.0))
    found.run(until=1000.0, now=Ticks())
    assert found.finished and found.champion == SearchConfig(1.0)
    games = found.games
    assert 3 < games < races.MAX_GAMES
    # one draw fewer and it could still have been chosen by winning every game left
    low = races.wilson_interval
    assert low(games / 2 + races.MAX_GAMES - games, races.MAX_GAMES, 0.99)[0] <= 0.5
    assert low((games - 1) / 2 + races.MAX_GAMES - games + 1, races.MAX_GAMES, 0.99)[0] > 0.5
    assert found.verdicts[0].startswith("out of reach, dropped: ")


def test_a_screen_winner_is_chosen_only_once_confirmed_at_the_match_scale() -> None:
    asked = []

    def scale() -> float:
        asked.append(True)
        return 5.0

    found = race(0.5, ("stronger", 2.0), confirm_seconds=scale, confirm_games=2)
    for _ in range(7):
        found.step()
    assert found.champion == SearchConfig(0.5)  # won the screen: not taken yet
    assert found.verdicts[-1].startswith("won the screen, to be confirmed at scale")
    assert found.game is None and not asked
    found.step()  # a game at the match's scale (one joint move: over at once)
    assert asked and found.standing is not None and found.standing.confirm.games == 1
    found.step()
    assert found.champion == SearchConfig(2.0) and found.finished
    assert found.verdicts[-1].startswith("chosen: ")
    assert "at the match's scale 2 of 2 games" in found.verdicts[-1]


def test_a_screen_winner_that_loses_at_the_match_scale_is_dropped() -> None:
    # The scripted trees play by c alone; at scale the champion's seat is given the
    # better move by making the champion the stronger one after the screen.
    found = race(0.5, ("stronger", 2.0), confirm_seconds=lambda: 5.0, confirm_games=2)
    for _ in range(7):
        found.step()
    standing = found.standing
    assert standing is not None and standing.confirm is not None
    standing.champion = SearchConfig(4.0)  # the champion plays good too: draws
    standing.config = SearchConfig(0.25)  # ...and the challenger now plays bad
    found.step()
    found.step()
    assert found.champion == SearchConfig(0.5) and found.finished
    assert found.verdicts[-1].startswith("not confirmed at scale, dropped: ")


def test_a_confirmation_ends_once_one_half_is_out_of_reach() -> None:
    found = race(0.5, ("stronger", 2.0), confirm_seconds=lambda: 5.0, confirm_games=4)
    for _ in range(7):
        found.step()
    standing = found.standing
    standing.champion = SearchConfig(4.0)  # at scale the champion plays good...
    standing.config = SearchConfig(0.25)  # ...and the challenger bad: it loses
    found.step()
    found.step()
    assert not found.finished  # 0 of 2: two wins in the two games left would make 2 of 4
    found.step()
    assert found.finished and found.champion == SearchConfig(0.5)
    assert found.verdicts[-1].startswith("not confirmed at scale, dropped: ")
    assert "at the match's scale 0 of 3 games" in found.verdicts[-1]


def test_run_stops_at_its_deadline_and_goes_on_from_there() -> None:
    found = race(0.5, ("stronger", 2.0))
    now = Ticks()
    assert not found.run(until=3.0, now=now)  # looks at 1 and 2: two moves
    assert found.games == 2
    assert found.run(until=100.0, now=now) and found.champion == SearchConfig(2.0)


def test_the_challenger_takes_each_seat_in_turn(monkeypatch) -> None:
    seats = []

    class Recorded(RaceGame):
        def __init__(self, state, seat, *rest) -> None:
            seats.append(seat)
            super().__init__(state, seat, *rest)

    monkeypatch.setattr(races, "RaceGame", Recorded)
    found = race(1.0, ("as good", 3.0))
    found.run(until=1000.0, now=Ticks())
    assert len(seats) == found.games >= 4
    assert seats == [game % 2 for game in range(found.games)]


def test_changes_that_make_no_valid_configuration_are_skipped() -> None:
    champion = SearchConfig(0.35, decisive=True)
    found = Race(champion, Scripted, lambda: None, 1.0, heuristic=False)
    names = []
    while found.standing is not None:
        names.append((found.standing.name, found.standing.config))
        found._next_challenger()
    assert [name for name, _ in names] == [
        "tactics on/off",
        "decisive playouts on/off",
        "MAST playouts",
        "RAVE",
        "half the exploration",
        "twice the exploration",
        "transpositions on/off",
    ]  # implicit minimax and the prior need a learnt heuristic
    assert names[0][1] == SearchConfig(0.35, decisive=True, tactics=True)
    assert names[2][1] == SearchConfig(0.35, mast=True)
    assert not SearchConfig(0.35, prior=True).valid(False)
    assert SearchConfig(0.35, imm=True, prior=True).valid(True)
    assert not SearchConfig(0.35, rave=True, prior=True).valid(True)
    assert SearchConfig(0.35).same_tree(SearchConfig(0.35, tactics=True))
    assert not SearchConfig(0.35).same_tree(SearchConfig(0.35, decisive=True, tactics=True))
    assert SearchConfig(0.35, imm=True, prior=True).describe() == (
        "random playouts, implicit minimax, heuristic prior, c=0.35"
    )
    assert all(config.valid(False) for _, config in names)
    assert not SearchConfig(0.35, rave=True, imm=True).valid(True)
    assert not SearchConfig(0.35, decisive=True, mast=True).valid(True)
    assert not SearchConfig(0.35, rave=True, transpose=True).valid(False)
    assert names[-1][1] == SearchConfig(0.35, decisive=True, transpose=True)
    assert names[-1][1].describe() == "decisive playouts, transpositions, c=0.35"


def test_race_moves_give_both_sides_the_same_clock_time() -> None:
    game = game_from_text(TICTACTOE, reasoner="compiled")
    state = game.initial_state()
    rng = random.Random(3)
    trees = [
        MCTS(state, c=c, rng=rng, solver=False, **extra)
        for c, extra in ((0.35, {"rave": True}), (0.35, {}))
    ]
    played = RaceGame(state, 1, trees[0], trees[1], 20.0, Ticks())
    played.move()  # x, the champion's: 20 s from the look at 1 s, a simulation at each look
    assert played.sims == [0, 19] and played.searches == [0, 1]
    played.move()
    assert played.sims == [19, 19] and played.searches == [1, 1]
    while not played.over:
        played.move()
    for sims, searches in zip(played.sims, played.searches, strict=True):
        assert sims <= 19 * searches  # fewer only where the solver proved the root
    assert played.score() in (0.0, 0.5, 1.0)


GOOD_OR_BAD_IN_TURN = """
(role left) (role right)
(init (round 0))
(<= (legal left good) (true (round 0)))
(<= (legal left bad) (true (round 0)))
(<= (legal right noop) (true (round 0)))
(<= (legal left noop) (true (round 1)))
(<= (legal right take) (true (round 1)))
(<= (legal right pass) (true (round 1)))
(<= (next (round 1)) (does left bad))
(<= (next over) (does left good))
(<= (next over) (true (round 1)))
(<= (next taken) (does right take))
(<= (next good) (does left good))
(<= terminal (true over))
(<= (goal left 100) (true good))
(<= (goal right 0) (true good))
(<= (goal left 0) (true taken))
(<= (goal right 100) (true taken))
(<= (goal ?r 50) (role ?r) (not (true good)) (not (true taken)))
"""
"""Left plays good (a win) or bad, after which right may take (a win) or pass."""


class Careless:
    """A fake search tree that plays bad, then take, where it can."""

    def __init__(self, config: SearchConfig, state) -> None:
        self.state = state
        self.settled = 0

    def search(self, iterations: int) -> int:
        return iterations

    def best_move(self, role: int) -> str:
        legal = self.state.legal_moves(role)
        return next((move for move in ("bad", "take") if move in legal), legal[0])

    def statistics(self, role: int) -> list:
        return []

    def advance(self, joint, state) -> None:
        self.state = state


def test_a_challenger_with_the_tactics_wins_where_they_prove_the_way() -> None:
    # The champion plays bad, which right's take punishes; the tactics prove good a win.
    tactics = ("tactics on", lambda s: dataclasses.replace(s, tactics=True))
    game = game_from_text(GOOD_OR_BAD_IN_TURN, reasoner="interpreter")
    found = Race(
        SearchConfig(0.5), Careless, game.initial_state, 3.0, clock=Ticks(), changes=(tactics,)
    )
    found.run(until=100.0, now=Ticks())
    assert found.champion == SearchConfig(0.5, tactics=True) and found.games == 7
    assert found.verdicts[0].startswith("chosen: random playouts, c=0.5, tactics against ")
    assert sorted(found.tacticians) == [0, 1]  # the challenger took each seat


def test_a_race_side_with_the_tactics_plays_a_proven_win_without_searching() -> None:
    game = game_from_text(TICTACTOE, reasoner="compiled")
    state = game.initial_state()
    for move in ("(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"):
        legal = state.all_legal_moves()
        state = state.next([move if move in moves else moves[0] for moves in legal])
    rng = random.Random(3)
    trees = [MCTS(state, c=0.35, rng=rng, solver=False) for _ in range(2)]
    played = RaceGame(state, 0, trees[0], trees[1], 20.0, Ticks(), (True, False))
    played.move()
    assert played.over and played.score() == 1.0  # (mark 1 3): three in the first row
    assert played.sims == [0, 0] and played.searches == [1, 0]


def test_with_more_than_two_roles_a_race_game_scores_against_the_other_seats() -> None:
    game = game_from_text(KINGMAKER, reasoner="interpreter")
    state = game.initial_state()
    for joint in (["left", "noop", "noop"], ["noop", "x", "noop"]):
        state = state.next(joint)
    assert state.goals() == (100, 100, 0)
    scores = [RaceGame(state, seat, None, None, 1.0, Ticks()).score() for seat in range(3)]
    # a: 100 against the others' 50; b the same; c: 0 against 100
    assert scores == [0.75, 0.75, 0.0]
    ended = game_from_text(GOOD_OR_BAD, reasoner="interpreter").initial_state()
    ended = ended.next(["good", "bad"])  # two roles: the challenger's goal / 100, as ever
    assert [RaceGame(ended, seat, None, None, 1.0, Ticks()).score() for seat in (0, 1)] == [1, 0]


def test_a_race_move_lasts_about_a_game_over_its_plies() -> None:
    state = game_from_text(TICTACTOE, reasoner="compiled").initial_state()
    seconds = move_seconds(state, random.Random(1))
    low, high = races.MOVE_SECONDS
    assert low <= seconds <= high
    assert seconds == pytest.approx(min(high, races.GAME_SECONDS / 9), rel=0.5)


class OneVerdict:
    """A race that chooses twice the exploration at its first run."""

    def __init__(
        self, champion: SearchConfig, make_tree, start, seconds, heuristic, **options
    ) -> None:
        self.options = options
        self.champion = champion
        self.move_seconds = seconds
        self.verdicts: list[str] = []
        self.games = 0
        self.finished = False
        self.made = make_tree(dataclasses.replace(champion, c=champion.c * 2), start())

    def run(self, until: float) -> bool:
        self.champion = dataclasses.replace(self.champion, c=self.champion.c * 2)
        self.verdicts.append("chosen: twice the exploration")
        self.games, self.finished = 7, True
        return True

    @property
    def ready(self) -> bool:
        return not self.finished


TWO_COUNTERS = """
(role left) (role right)
(num 1) (num 2) (num 3)
(succ 0 1) (succ 1 2) (succ 2 3)
(init (step 0))
(<= (legal ?r (mark ?n)) (role ?r) (num ?n))
(<= (next (marked ?r ?n)) (does ?r (mark ?n)))
(<= (next (marked ?r ?n)) (true (marked ?r ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 3)))
(<= (goal ?r 100) (role ?r) (true (marked ?r 3)))
(<= (goal ?r 0) (role ?r) (not (true (marked ?r 3))))
"""
"""Both roles choose at every step, each marking numbers of its own: their moves
change separate parts of the state (`ggp.player.search.factored`)."""


def prepared(races_on: bool, tmp_path, rules: str = TICTACTOE, **options) -> SearchWorker:
    """A worker (by default on tic-tac-toe) whose rules are final and whose learning
    has ended (`options`: more of the load command)."""
    worker = SearchWorker()
    load = {"cmd": "load", "rules": rules, "traps": False, "races": races_on, **options}
    worker.handle({**load, "table_dir": str(tmp_path)})
    worker.settle(120)
    build = worker.tree.root.state.game.native_build
    if build is not None:
        build.join()
    if worker.learning is not None:
        assert worker.learning.done.wait(120)
    worker.take_better_search()
    assert not worker.improving
    return worker


def test_the_worker_races_in_its_start_search_and_searches_with_the_choice(
    monkeypatch, capsys, tmp_path
) -> None:
    monkeypatch.setattr(served_races, "Race", OneVerdict)
    worker = prepared(True, tmp_path)
    assert worker.config == SearchConfig(search_worker.SEARCH_C, decisive=True)
    command = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": None}
    answer = worker.handle({**command, "until": time.time() + 0.5, "race": 0.5})
    assert worker.config.c == pytest.approx(2 * search_worker.SEARCH_C)
    assert worker.tree.c == worker.config.c and worker.tree.table is worker.table
    chosen = f"decisive playouts, c={2 * search_worker.SEARCH_C:g}"
    assert answer["config"] == chosen
    assert worker.table is not None and worker.races.race.made.table is None  # a race's trees: none
    err = capsys.readouterr().err
    assert "race after 7 games: chosen: twice the exploration" in err
    assert f"the search plays {chosen}" in err


class TacticsVerdict(OneVerdict):
    """A race that turns the tactics on at its first run."""

    def run(self, until: float) -> bool:
        self.champion = dataclasses.replace(self.champion, tactics=True)
        self.verdicts.append("chosen: tactics on/off")
        self.games, self.finished = 7, True
        return True


def test_the_tactics_are_raced_only_where_the_load_says_and_run_once_chosen(
    monkeypatch, capsys, tmp_path
) -> None:
    worker = prepared(True, tmp_path)
    worker.start_race()
    assert worker.races.race.standing.name == "decisive playouts on/off"  # not the tactics
    raced = prepared(True, tmp_path, tactics_race=True, tactics_workers=2)
    raced.start_race()
    assert raced.races.race.standing.name == "tactics on/off"
    assert raced.races.race.standing.config.tactics and not raced.tactics.on
    assert raced.races.race.tactics_share == pytest.approx(2 * served_tactics.TACTICS_SHARE)
    monkeypatch.setattr(served_races, "Race", TacticsVerdict)
    chosen = prepared(True, tmp_path, tactics_race=True)
    tree = chosen.tree
    command = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": None}
    answer = chosen.handle({**command, "until": time.time() + 0.5, "race": 0.5})
    assert chosen.tactics.on and chosen.config.tactics
    assert chosen.tree is tree  # the tactics run beside the tree: it is kept
    assert answer["config"].endswith(", tactics")
    assert "the search plays decisive playouts, c=0.35, tactics" in capsys.readouterr().err
    answer = chosen.handle({**command, "until": time.time() + 0.5})
    assert chosen.tactics.search is not None  # the tactics searched this move's position

    def broken(*args: object) -> None:
        raise GameDefinitionError("no legal move for white")

    # rules that break in the tactics stop them, and the configuration says so...
    monkeypatch.setattr(chosen.tactics.search, "analyse", broken)
    answer = chosen.handle({**command, "until": time.time() + 0.5})
    assert not chosen.tactics.on and not answer["config"].endswith(", tactics")
    assert "the tactics stop: no legal move for white" in capsys.readouterr().err
    # ...and a later race's choice of them does not turn them on again
    chosen.races.race = None
    answer = chosen.handle({**command, "until": time.time() + 0.5, "race": 0.5})
    assert chosen.races.race.finished and chosen.chosen.tactics
    assert not chosen.tactics.on and not answer["config"].endswith(", tactics")


def test_where_trees_over_parts_play_the_joint_tree_and_the_tactics_are_raced(
    capsys, tmp_path
) -> None:
    worker = prepared(True, tmp_path, TWO_COUNTERS)
    worker.start_race()
    assert worker.races.race.standing.name == "trees over parts on/off"
    assert worker.races.race.standing.config.joint and worker.races.race.pending == []
    assert worker.races.race.part_maker(worker.races.race.standing.champion) is not None
    assert worker.races.race.part_maker(worker.races.race.standing.config) is None
    raced = prepared(True, tmp_path, TWO_COUNTERS, tactics_race=True)
    raced.start_race()
    assert [name for name, _ in raced.races.race.pending] == ["tactics on/off"]
    command = {"cmd": "search", "role": 0, "until": time.time() + 0.3, "iterations": None}
    raced.handle(command)
    assert raced.parts.part is not None  # the move was searched by a tree over our part
    assert "from move 0 our moves are searched by trees over our part" in capsys.readouterr().err
    # No pondering between the moves: the match ends with the race not run, and says so
    for _ in range(3):
        raced.handle({"cmd": "advance", "joint": ["(mark 1)", "(mark 1)"]})
    assert not raced.races.race.finished
    err = capsys.readouterr().err
    assert "the match ended before the race judged trees over parts on/off" in err


def test_once_the_joint_tree_is_chosen_it_searches_where_parts_would(tmp_path) -> None:
    worker = prepared(True, tmp_path, TWO_COUNTERS)
    worker.config = dataclasses.replace(worker.config, joint=True)
    command = {"cmd": "search", "role": 0, "until": time.time() + 0.3, "iterations": None}
    answer = worker.handle(command)
    assert worker.parts.part is None and answer["config"].endswith("joint moves throughout, c=0.35")


class Counted(Careless):
    """A fake joint-move tree that counts its searches and plays the first legal move."""

    def __init__(self, config: SearchConfig, state) -> None:
        super().__init__(config, state)
        self.searched = 0

    def search(self, iterations: int) -> int:
        self.searched += iterations
        return iterations


class Parted:
    """A fake search tree over a part: records the moves it was made over."""

    made: list[frozenset[str]] = []

    def __init__(self, state, legal: frozenset[str]) -> None:
        Parted.made.append(legal)
        self.move = sorted(legal)[-1]
        self.settled = 0
        self.root = SimpleNamespace(proven=None)  # proves nothing

    def search(self, iterations: int) -> int:
        return iterations

    def best_move(self, role: int) -> str:
        return self.move

    def statistics(self, role: int) -> list:
        return []


def test_a_race_side_with_parts_searches_each_role_s_part_where_moves_are_independent() -> None:
    game = game_from_text(TWO_COUNTERS, reasoner="compiled")
    state = game.initial_state()
    Parted.made = []
    joint_tree = Counted(SearchConfig(0.5), state)
    parted = Counted(SearchConfig(0.5), state)  # followed, never searched here
    played = RaceGame(state, 0, parted, joint_tree, 3.0, Ticks(), parts=(Parted, None))
    played.move()
    assert Parted.made == [frozenset({"(mark 1)", "(mark 2)", "(mark 3)"})]
    assert parted.searched == 0 and joint_tree.searched > 0
    assert "(marked left 3)" in played.state.facts()  # the part tree's choice was played
    while not played.over:
        played.move()
    assert played.score() == 1.0 and len(Parted.made) == 3


def test_a_race_side_lets_its_joint_tree_choose_where_a_part_tree_proves_only_even_ends() -> None:
    state = game_from_text(STEPPED, reasoner="compiled").initial_state()
    made = []

    def make_part(state, legal: frozenset[str]) -> MCTS:
        made.append(MCTS(state, rng=random.Random(1), solver=True, part=legal, part_playouts=True))
        return made[-1]

    joint = MCTS(state, rng=random.Random(2), solver=True)
    champion = MCTS(state, rng=random.Random(3), solver=True)
    looks = iter(range(10**9))
    played = RaceGame(
        state, 0, joint, champion, 3.0, lambda: next(looks) / 1000, parts=(make_part, None)
    )
    played.move()
    assert made and made[0].root.proven is not None  # every move an even end there...
    assert "(chose 1 c)" in played.state.facts()  # ...so the joint tree chose


def test_max_n_proofs_are_raced_first_where_more_than_two_roles_play(tmp_path) -> None:
    worker = prepared(True, tmp_path, KINGMAKER)
    worker.start_race()
    standing = worker.races.race.standing
    assert standing.name == "max^n proofs on/off" and standing.config.maxn
    assert standing.config.describe() == "decisive playouts, max^n proofs, c=0.35"
    assert worker.race_tree(standing.config, worker.tree.root_state).maxn
    assert not worker.race_tree(standing.champion, worker.tree.root_state).maxn
    two = prepared(True, tmp_path)
    two.start_race()
    assert not any(name.startswith("max^n") for name in two.races.race.unjudged())


def test_without_races_the_worker_keeps_its_defaults(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(served_races, "Race", OneVerdict)
    worker = prepared(False, tmp_path)
    for _ in range(4):
        worker.ponder()
    assert worker.races.race is None
    assert worker.config == SearchConfig(search_worker.SEARCH_C, decisive=True)


class SlowRace(OneVerdict):
    """A race that never ends, each run lasting five pondering slices."""

    runs = 0
    longest = 0.0

    def run(self, until: float) -> bool:
        began = time.monotonic()
        time.sleep(5 * search_worker.PONDER_SLICE)
        SlowRace.runs += 1
        SlowRace.longest = max(SlowRace.longest, time.monotonic() - began)
        return False

    def unjudged(self) -> list[str]:
        return ["twice the exploration"]


def test_a_race_outlasting_its_slices_gets_no_more_pondering_than_the_search(
    monkeypatch, tmp_path
) -> None:
    monkeypatch.setattr(served_races, "Race", SlowRace)
    worker = prepared(True, tmp_path)
    searched = worker.tree.root.visits
    for _ in range(60):
        worker.ponder()
    assert SlowRace.runs > 1 and worker.tree.root.visits > searched
    assert worker.races.tree_seconds > 0
    # a race slice begins only while races have had no more than the search
    assert worker.races.race_seconds <= worker.races.tree_seconds + 2 * SlowRace.longest + 0.05


def test_the_match_s_end_tells_the_time_the_races_took(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(served_races, "Race", SlowRace)
    worker = prepared(True, tmp_path)
    command = {"cmd": "search", "role": 0, "iterations": None}
    worker.handle({**command, "until": time.time() + 0.5, "race": 0.5})  # the start's search
    assert worker.races.search_seconds > 0
    for _ in range(10):
        worker.ponder()
    assert worker.races.race_seconds > 0 and worker.races.tree_seconds > 0
    capsys.readouterr()
    x, o = "(mark 1 1)", "(mark 2 2)"
    for joint in ([x, "noop"], ["noop", o], ["(mark 1 2)", "noop"], ["noop", "(mark 3 3)"]):
        worker.handle({"cmd": "advance", "joint": joint})
    assert "the races took" not in capsys.readouterr().err  # not before the end
    worker.handle({"cmd": "advance", "joint": ["(mark 1 3)", "noop"]})  # x's row: the end
    found = serve_log.RACE_TIME.search(capsys.readouterr().err)
    assert found is not None
    searched, pondered, tree = map(float, found.groups())
    assert searched == pytest.approx(worker.races.search_seconds, abs=0.05)
    races = worker.races
    assert (pondered, tree) == (round(races.race_seconds, 1), round(races.tree_seconds, 1))


def test_a_configuration_with_transpositions_makes_a_graph(tmp_path) -> None:
    worker = prepared(False, tmp_path)
    assert worker.tree.positions is None  # the default: a tree
    state = worker.tree.root.state
    graph = worker.race_tree(dataclasses.replace(worker.config, transpose=True), state)
    assert graph.search(iterations=200) == 200
    assert graph.positions is not None
    if graph.native:  # the C loop holds the graph; handed over, Python holds each node once
        graph._leave_native()
    assert len(graph.positions) == graph.node_count


def test_a_worker_that_does_not_race_follows_the_racing_workers_choice(
    monkeypatch, capsys, tmp_path
) -> None:
    worker = prepared(False, tmp_path)
    command = {"cmd": "search", "role": 0, "until": time.time() + 30, "iterations": 20}
    assert "chosen" not in worker.handle(command)  # the defaults: nothing to pass on
    twice = dataclasses.replace(worker.config, c=2 * worker.config.c)
    answer = worker.handle({"cmd": "configure", "config": dataclasses.asdict(twice)})
    assert worker.config == twice and answer == {"config": twice.describe()}
    assert worker.tree.c == twice.c and worker.tree.table is worker.table
    assert f"the search plays {twice.describe()}, as the racing worker chose" in (
        capsys.readouterr().err
    )
    assert worker.handle(command)["chosen"] == dataclasses.asdict(twice)
    # implicit minimax needs a heuristic learnt here: without one the worker plays on
    monkeypatch.setattr(worker, "heuristic", None)
    imm = dataclasses.asdict(dataclasses.replace(twice, imm=True))
    assert worker.handle({"cmd": "configure", "config": imm}) == {"config": twice.describe()}
    assert "no heuristic learnt here" in capsys.readouterr().err
    with pytest.raises(GameError, match="not a search configuration"):
        worker.handle({"cmd": "configure", "config": {"c": 1.0, "depth": 3}})
    # only the tactics changed (the racing worker runs them): the tree is kept
    tree = worker.tree
    tactics = dataclasses.asdict(dataclasses.replace(twice, tactics=True))
    assert worker.handle({"cmd": "configure", "config": tactics})["config"].endswith(", tactics")
    assert worker.tree is tree and not worker.tactics.on
    # a worker that races chooses for itself
    racer = prepared(True, tmp_path)
    default = racer.config
    racer.handle({"cmd": "configure", "config": dataclasses.asdict(twice)})
    assert racer.config == default


def test_the_match_scale_is_a_share_of_the_searches_cpu_races_left_out(tmp_path) -> None:
    worker = prepared(False, tmp_path)
    assert worker.races.scale_seconds() == 0.0
    assert "no search of the match yet" in worker.races.match_scale()
    command = {"cmd": "search", "role": 0, "iterations": None}
    answer = worker.handle({**command, "until": time.time() + 0.3})
    (cpu,) = worker.races.moves_cpu
    assert 0 < cpu <= answer["cpu"] + 0.05
    assert worker.races.moves_sims == [answer["sims"] + answer["pondered"]]
    assert worker.races.scale_seconds() == pytest.approx(served_races.RACE_SCALE * cpu)
    assert f"{answer['sims']} simulations a move" in worker.races.match_scale()


def test_a_confirmation_waits_for_the_match_scale() -> None:
    scale = [0.0]
    found = race(0.5, ("stronger", 2.0), confirm_seconds=lambda: scale[0], confirm_games=1)
    assert not found.run(until=float("inf"))  # returns once the screen is won: no scale yet
    assert found.games == 7 and not found.ready and not found.finished
    scale[0] = 5.0
    assert found.ready and found.run(until=float("inf"))
    assert found.champion == SearchConfig(2.0) and found.finished
