"""Small GDL rule sets that are hostile to a player (issue 17), for tests and benchmarks.

Each is valid GDL (or, for `PARENTHESES`, a message body) that costs the
reasoner far more than its size suggests.
"""

from __future__ import annotations

from gdl_texts import TICTACTOE

_CONSTANTS = " ".join(f"(k c{i})" for i in range(30))

BIG_RELATION = (
    TICTACTOE
    + _CONSTANTS
    + "\n(<= (big ?a ?b ?c ?d ?e ?f) (k ?a) (k ?b) (k ?c) (k ?d) (k ?e) (k ?f))"
    + "\n(<= terminal (big ?a ?b ?c ?d ?e c0))\n"
)
"""Case 1: tic-tac-toe whose `terminal` needs a relation of 30^6 tuples: memory without end."""

_CELLS = [f"(cell {1 + i % 3} {1 + i // 3 % 3}" for i in range(16)]
_ORS = " ".join(f"(or (true {cell} x)) (true {cell} o)))" for cell in _CELLS)

MANY_ORS = TICTACTOE + f"(<= (won ?w) (role ?w) {_ORS})\n(<= terminal (won xplayer))\n"
"""Case 2: one rule body of 16 ``(or ...)`` literals: building the game does not end."""

_XS = " ".join(f"(init (x {i}))" for i in range(1, 21))

COSTLY_STEP = f"""
(role a) (role b) {_XS} (init (step 0))
(<= (legal a (go ?n)) (true (x ?n))) (legal b noop)
(<= (next (x ?n)) (true (x ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
(<= (next (seen ?a ?b ?c ?d ?e ?f)) (true (step ?s)) (distinct ?s 0) (does a (go ?a))
    (true (x ?b)) (true (x ?c)) (true (x ?d)) (true (x ?e)) (true (x ?f)))
(<= terminal (true (step 7)))
(goal a 50) (goal b 50)
"""
"""Case 4: from the second step on, a state relation joining five ``(true (x ?))``
over 20 facts: a minute a step (the first step and the initial state are cheap)."""

PARENTHESES = "(" * 990_000
"""Case 3: a 990 KB message of ``(``."""
