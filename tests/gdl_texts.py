"""Small GDL games written out for the tests of the HTTP player, and the moves of a
logged tic-tac-toe match for the tests of the benchmarks that replay logs."""

from __future__ import annotations

TICTACTOE = """
(role xplayer) (role oplayer)
(index 1) (index 2) (index 3)
(init (cell 1 1 b)) (init (cell 1 2 b)) (init (cell 1 3 b))
(init (cell 2 1 b)) (init (cell 2 2 b)) (init (cell 2 3 b))
(init (cell 3 1 b)) (init (cell 3 2 b)) (init (cell 3 3 b))
(init (control xplayer))
(<= (next (cell ?m ?n x)) (does xplayer (mark ?m ?n)) (true (cell ?m ?n b)))
(<= (next (cell ?m ?n o)) (does oplayer (mark ?m ?n)) (true (cell ?m ?n b)))
(<= (next (cell ?m ?n ?w)) (true (cell ?m ?n ?w)) (distinct ?w b))
(<= (next (cell ?m ?n b)) (does ?w (mark ?j ?k)) (true (cell ?m ?n b))
    (or (distinct ?m ?j) (distinct ?n ?k)))
(<= (next (control xplayer)) (true (control oplayer)))
(<= (next (control oplayer)) (true (control xplayer)))
(<= (row ?m ?x) (true (cell ?m 1 ?x)) (true (cell ?m 2 ?x)) (true (cell ?m 3 ?x)))
(<= (column ?n ?x) (true (cell 1 ?n ?x)) (true (cell 2 ?n ?x)) (true (cell 3 ?n ?x)))
(<= (diagonal ?x) (true (cell 1 1 ?x)) (true (cell 2 2 ?x)) (true (cell 3 3 ?x)))
(<= (diagonal ?x) (true (cell 1 3 ?x)) (true (cell 2 2 ?x)) (true (cell 3 1 ?x)))
(<= (line ?x) (row ?m ?x)) (<= (line ?x) (column ?m ?x)) (<= (line ?x) (diagonal ?x))
(<= open (true (cell ?m ?n b)))
(<= (legal ?w (mark ?x ?y)) (true (cell ?x ?y b)) (true (control ?w)))
(<= (legal xplayer noop) (true (control oplayer)))
(<= (legal oplayer noop) (true (control xplayer)))
(<= (goal xplayer 100) (line x))
(<= (goal xplayer 50) (not (line x)) (not (line o)) (not open))
(<= (goal xplayer 0) (line o))
(<= (goal oplayer 100) (line o))
(<= (goal oplayer 50) (not (line x)) (not (line o)) (not open))
(<= (goal oplayer 0) (line x))
(<= terminal (line x)) (<= terminal (line o)) (<= terminal (not open))
"""
"""Tic-tac-toe as the public GDL games write it: two roles taking turns, noop."""

PENNIES = """
; Matching pennies, two rounds, both roles moving at once.  The moves are
; spelt with capitals, so replies can be checked for their exact spelling.
(role left) (role right)
(init (round 0))
(succ 0 1) (succ 1 2)
(<= (legal ?r Heads) (role ?r))
(<= (legal ?r Tails) (role ?r))
(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
(<= (next (matched ?n)) (true (round ?m)) (succ ?m ?n) (does left ?x) (does right ?x))
(<= (next (matched ?n)) (true (matched ?n)))
(<= terminal (true (round 2)))
(<= (goal left 100) (true (matched 1)) (true (matched 2)))
(<= (goal left 50) (true (matched 1)) (not (true (matched 2))))
(<= (goal left 50) (not (true (matched 1))) (true (matched 2)))
(<= (goal left 0) (not (true (matched 1))) (not (true (matched 2))))
(<= (goal right 0) (true (matched 1)) (true (matched 2)))
(<= (goal right 50) (true (matched 1)) (not (true (matched 2))))
(<= (goal right 50) (not (true (matched 1))) (true (matched 2)))
(<= (goal right 100) (not (true (matched 1))) (not (true (matched 2))))
"""
"""A simultaneous-move game: every state, both roles choose Heads or Tails."""

BROKEN = """
(role a)
(<= (legal a (go ?x)) (true (at ?y)))
"""
"""Rules that are not valid GDL (an unsafe variable, no init, goal or terminal)."""

NIM = """
; Take one or two from a pile of five in turn; whoever takes the last wins.
(role a) (role b)
(init (pile 5)) (init (control a))
(minus1 5 4) (minus1 4 3) (minus1 3 2) (minus1 2 1) (minus1 1 0)
(minus2 5 3) (minus2 4 2) (minus2 3 1) (minus2 2 0)
(<= (legal ?p (take 1)) (true (control ?p)) (true (pile ?n)) (minus1 ?n ?m))
(<= (legal ?p (take 2)) (true (control ?p)) (true (pile ?n)) (minus2 ?n ?m))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (pile ?m)) (does ?p (take 1)) (true (pile ?n)) (minus1 ?n ?m))
(<= (next (pile ?m)) (does ?p (take 2)) (true (pile ?n)) (minus2 ?n ?m))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (last ?p)) (does ?p (take ?k)))
(<= terminal (true (pile 0)))
(<= (goal ?p 100) (true (last ?p)))
(<= (goal ?p 0) (role ?p) (not (true (last ?p))))
"""
"""A small valid game for `ggp check`'s warnings: tests break it one typo at a time."""

KINGMAKER = """
(role a) (role b) (role c)
(init (control a))
(<= (legal a left) (true (control a)))
(<= (legal a right) (true (control a)))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (legal b x) (true (control b)))
(<= (legal b y) (true (control b)))
(<= (legal c noop) (role c))
(<= (next (control b)) (does a left))
(<= (next (end right)) (does a right))
(<= (next (end x)) (does b x))
(<= (next (end y)) (does b y))
(<= terminal (true (end ?e)))
(<= (goal a 100) (true (end x)))
(<= (goal a 50) (true (end right)))
(<= (goal a 0) (true (end y)))
(<= (goal b 100) (true (end x)))
(<= (goal b 50) (true (end right)))
(<= (goal b 0) (true (end y)))
(<= (goal c 0) (role c))
"""
"""After a's ``left``, b's own best move ``x`` gives a 100 too; ``right`` gives a 50.
Security values take b and c to play against a (b's ``y``: a gets 0)."""


STEPPED = """
; Both roles choose at once, each on its own facts.  Blue's piece moves: every move of
; blue's removes where it stands.  Red wins by choosing c at the first step.
(role red) (role blue)
(init (step 1)) (init (at 0)) (succ 1 2) (succ 2 3)
(opt a) (opt b) (opt c) (opt d) (opt e) (opt f) (opt g) (opt h)
(<= (legal red (red ?o)) (opt ?o))
(<= (legal blue (blue ?o)) (true (at ?x)) (opt ?o))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (chose ?n ?o)) (does red (red ?o)) (true (step ?n)))
(<= (next (chose ?n ?o)) (true (chose ?n ?o)))
(<= (next (at ?o)) (does blue (blue ?o)))
(<= terminal (true (step 3)))
(<= (goal ?r 100) (role ?r) (true (chose 1 c)))
(<= (goal ?r 0) (role ?r) (not (true (chose 1 c))))
"""
"""In a tree over red's part blue makes no move, its move's changes undone against
another of its moves: that takes blue's piece off the board (both moves removed where
it stood), so blue has no move after the first step and the part tree proves every
red move an even end; the tree of joint moves sees that c wins."""


TICTACTOE_MOVES = [
    ["(mark 1 1)", "noop"],
    ["noop", "(mark 2 1)"],
    ["(mark 1 2)", "noop"],
    ["noop", "(mark 2 2)"],
    ["(mark 3 3)", "noop"],
]
"""A tic-tac-toe log's joint moves: at step 4 xplayer, on move, could win at once with
(mark 1 3); it played (mark 3 3), after which oplayer completes its row with (mark 2 3)."""
