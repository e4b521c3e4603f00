"""benchmarks/loss_proofs.py as documented (docs/tactics.md): the check's searches of a
move alone on a tic-tac-toe match we lost, and on positions graded by perfect play."""

from __future__ import annotations

import json
import subprocess
import sys

from gdl_texts import TICTACTOE
from perfect_play import value
from test_gdl_native import native_game, needs_native
from test_tactics_blunders_benchmark import LOST, ROOT, lost_log


@needs_native
def test_every_search_proves_the_moves_of_a_lost_match_lost(tmp_path) -> None:
    """Our three moves in the match lost by the edge reply (O) all lose by force: each
    search of the check proves them, within 6, 4 and 2 plies."""
    path = lost_log(tmp_path)
    command = [sys.executable, "benchmarks/loss_proofs.py", "logs", str(path)]
    command += ["--opponent", "9311", "--budget", "100000"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith("3 moves asked of; load ")
    assert lines[1].endswith("@1 (mark 2 1): depth 100000: 6, numbers 100000: 6, both 100000: 6")
    assert lines[3].endswith("@5 (mark 1 3): depth 100000: 2, numbers 100000: 2, both 100000: 2")
    for name in ("depth", "numbers", "both"):
        assert any(
            line.startswith(f"{name} at 100000 states: 3 of 3 proven lost (0 false)")
            for line in lines
        ), lines


@needs_native
def test_graded_positions_count_the_lost_moves_proven_and_no_false_proof(tmp_path) -> None:
    """After X's corner and O's edge reply, X to move: the positions file holds every
    move's value by perfect play (+1, 0, -1 for X); with ``--all`` every move is asked
    of, and no search proves lost a move that does not lose."""
    log = {"x-rules": TICTACTOE, "moves": LOST}
    (tmp_path / "match.json").write_text(json.dumps(log))
    state = native_game(TICTACTOE, "ticTacToe")[1].initial_state()
    for joint in LOST[:2]:
        state = state.next(joint)
    values = {}
    for move in state.legal_moves(0):
        goal = value(state.next([move, "noop"]))[0]
        values[move] = (goal > 50) - (goal < 50)
    position = {"log": str(tmp_path / "match.json"), "step": 2, "role": 0, "game": "ticTacToe"}
    (tmp_path / "positions.json").write_text(json.dumps([{**position, "values": values}]))
    command = [sys.executable, "benchmarks/loss_proofs.py", "positions"]
    command += [str(tmp_path / "positions.json"), "--all", "--budget", "100000"]
    done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=600)
    lines = done.stdout.decode().splitlines()
    lost = sum(v < 0 for v in values.values())
    assert lines[0].startswith(f"{len(values)} moves asked of")
    for name in ("depth", "numbers", "both"):
        assert any(
            line.startswith(f"{name} at 100000 states: {lost} of {len(values)} proven")
            and "(0 false)" in line
            for line in lines
        ), lines
