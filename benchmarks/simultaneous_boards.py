"""The two boards of a connectFourSimultaneous match, turn by turn (a diagnostic).

    python benchmarks/simultaneous_boards.py MATCH.json [MATCH.json ...]
    python benchmarks/simultaneous_boards.py MATCH.json --solver /tmp/connect4_solver --plies 12-16

The corpus's connectFourSimultaneous is two 8x6 Connect Four boards: every turn
each role drops a disc on the board it controls (red board 1 and black board 2
at turn 0, swapped every turn), so each board is an ordinary turn-taking game,
red first on board 1 and black first on board 2; a line on either ends the
match.  This splits a match log (ggp.org JSON) into the two boards' column
sequences and prints, for every turn, the immediate tactics: a role that had a
winning drop and did not take it, and a drop that leaves the other role a
winning drop on that board (it moves there next turn), with what each other
drop would have left.  With ``--solver`` (benchmarks/connect4_solver.c, built)
it adds the exact value of each board after PLIES discs for the side to move
there (+1 win, 0 draw, -1 loss, ``?`` not solved within ``--timeout``) and,
after ``->``, the value of the drop played where it threw some away.  It knows
the game; nothing in the player uses it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

WIDTH, HEIGHT = 8, 6
ROLES = ("red", "black")

Board = dict[tuple[int, int], str]


def _lines() -> list[list[tuple[int, int]]]:
    found = []
    for x in range(WIDTH):
        for y in range(HEIGHT):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(x + i * dx, y + i * dy) for i in range(4)]
                if all(0 <= a < WIDTH and 0 <= b < HEIGHT for a, b in cells):
                    found.append(cells)
    return found


LINES = _lines()


def height(board: Board, column: int) -> int:
    """Discs in `column` (0-based)."""
    return sum(1 for y in range(HEIGHT) if (column, y) in board)


def dropped(board: Board, column: int, role: str) -> Board:
    """`board` after `role` drops a disc in `column` (1-based)."""
    after = dict(board)
    after[(column - 1, height(board, column - 1))] = role
    return after


def has_line(board: Board, role: str) -> bool:
    return any(all(board.get(cell) == role for cell in line) for line in LINES)


def winning_drops(board: Board, role: str) -> list[int]:
    """The columns (1-based) where `role` completes a line at once."""
    return [
        column
        for column in range(1, WIDTH + 1)
        if height(board, column - 1) < HEIGHT and has_line(dropped(board, column, role), role)
    ]


def parse_move(move: str) -> tuple[int, int]:
    """``(drop X B)`` as (column X, board B)."""
    words = move.strip("() ").split()
    if len(words) != 3 or words[0] != "drop":
        raise SystemExit(f"not a connectFourSimultaneous move: {move!r}")
    return int(words[1]), int(words[2])


def turns(moves: list[list[str]]) -> list[str]:
    """What happened at each turn worth a note (missed wins, wins left, lines)."""
    boards: dict[int, Board] = {1: {}, 2: {}}
    notes = []
    for turn, joint in enumerate(moves):
        said = []
        for role, move in zip(ROLES, joint, strict=True):
            column, number = parse_move(move)
            board = boards[number]
            other = ROLES[1 - ROLES.index(role)]
            wins = winning_drops(board, role)
            if wins and column not in wins:
                said.append(f"{role} missed a win on board {number} ({wins}), dropped {column}")
            left = winning_drops(dropped(board, column, role), other)
            if not wins and left:
                options = {
                    c: winning_drops(dropped(board, c, role), other)
                    for c in range(1, WIDTH + 1)
                    if height(board, c - 1) < HEIGHT
                }
                said.append(
                    f"{role} dropped {column} on board {number}, leaving {other} {left}; "
                    f"each drop would leave {options}"
                )
        for move, role in zip(joint, ROLES, strict=True):
            column, number = parse_move(move)
            boards[number] = dropped(boards[number], column, role)
        for number in (1, 2):
            said += [
                f"{role} has a line on board {number}"
                for role in ROLES
                if has_line(boards[number], role)
            ]
        if said:
            notes.append(f"turn {turn} {joint}: " + "; ".join(said))
    return notes


def board_sequences(moves: list[list[str]]) -> dict[int, tuple[str, list[str]]]:
    """Per board: its columns in order (as connect4_solver takes them) and who dropped each."""
    columns = {1: "", 2: ""}
    movers: dict[int, list[str]] = {1: [], 2: []}
    for joint in moves:
        for role, move in zip(ROLES, joint, strict=True):
            column, number = parse_move(move)
            columns[number] += str(column)
            movers[number].append(role)
    return {number: (columns[number], movers[number]) for number in (1, 2)}


def exact(solver: Path, columns: str, timeout: float) -> dict[int, int] | None:
    """The solver's value of every open column (None: not solved in time)."""
    try:
        out = subprocess.run(
            [str(solver), columns], capture_output=True, text=True, timeout=timeout, check=True
        ).stdout
    except subprocess.TimeoutExpired:
        return None
    return {
        int(line[4]): int(line[7:9])
        for line in out.splitlines()
        if line.startswith("col") and "full" not in line
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", type=Path, nargs="+", help="match logs (ggp.org JSON)")
    parser.add_argument("--solver", type=Path, help="built benchmarks/connect4_solver.c")
    parser.add_argument("--plies", default="12-16", help="discs on a board to solve at, FROM-TO")
    parser.add_argument("--timeout", type=float, default=25.0, help="seconds a position")
    args = parser.parse_args()
    first, _, last = args.plies.partition("-")
    plies = range(int(first), int(last or first) + 1)
    for path in args.logs:
        match = json.loads(path.read_text())
        print(f"{path.name}: goals {match.get('goalValues')}, {len(match['moves'])} turns")
        for note in turns(match["moves"]):
            print(f"  {note}")
        for number, (columns, movers) in board_sequences(match["moves"]).items():
            print(f"  board {number}: {columns}")
            if args.solver is None:
                continue
            cells = []
            for ply in plies:
                if ply >= len(columns):
                    break
                values = exact(args.solver, columns[:ply], args.timeout)
                if values is None:
                    cells.append(f"{ply} {movers[ply]} ?")
                    continue
                best, got = max(values.values()), values[int(columns[ply])]
                thrown = "" if got == best else f"->{got:+d}"
                cells.append(f"{ply} {movers[ply]} {best:+d}{thrown}")
            print(f"    exact: {', '.join(cells)}")


if __name__ == "__main__":
    main()
