"""C source generated from a ground `Network`: the game as native code.

The source defines, over a state held as 64-bit words (bit ``b`` of the
state is bit ``b % 64`` of word ``b // 64``, as in the integer states of the
compiled reasoner):

- ``gdl_legal(S, counts, moves)``: per role, how many legal moves and their
  input indexes, in increasing order (the order of the move texts);
- ``gdl_terminal(S)``; ``gdl_goals(S, counts, entries)``: per role, the
  positions of the goal entries (`Network.goals`) that hold;
- ``gdl_next(S, D, out)``: the next state for the joint move whose input bits
  are ``D``;
- ``gdl_sees(S, D, counts, entries)``, where a ``sees`` sentence can hold:
  GDL-II's percepts of the joint move ``D``, per role the positions of the
  ``sees`` entries (`Network.sees`) that hold;
- ``gdl_playouts(S, count, seed, ...)``: `count` random playouts, choosing
  each role's move as ``random.Random(seed).choice`` does (Python's Mersenne
  Twister, seeded as Python seeds it), so that they are exactly the playouts
  the Python reasoners play with ``random.Random(seed)``; with ``greedy`` > 0,
  in the first ``greedy`` moves of each playout a role that alone has a choice
  takes a move that ends the game with goal 100 for it, where there is one
  (`playouts.Greedy`), and with ``safe`` also, when it has none, avoids
  a move after which another role can win at once (`playouts.Decisive`,
  which also says how several roles with a choice take theirs); with ``guide``
  above 1, the best of that many safe moves by the evaluation ``masks``,
  ``weights`` (`playouts.Guide`);
- ``gdl_random_playouts(S, count, seed, missing, results, fail)``: the random playouts
  of ``gdl_playouts``, the goals and steps in one array (one call of few
  arguments: the per-call cost counts where a playout takes a microsecond);
- ``gdl_mast_playouts(S, count, seed, ...)``: `count` MAST playouts
  (`playouts.Mast`), the move averages arrays indexed by input index,
  read and updated in place;
- ``gdl_part_playouts(S, count, seed, part, decisive, ...)``: `count` playouts of
  one part of the state, the roles without a move in the input mask ``part``
  frozen, with decisive and anti-decisive moves in the part for ``decisive``
  moves (`playouts.Part`);
- ``gdl_amaf_playouts``: the random playouts recording their moves in RAVE's
  AMAF tables (`ggp.gdl.native.rave_source`);
- ``gdl_tactics``: the search for forced wins and losses
  (`ggp.gdl.native.tactics_source`).

Each node is a byte of an array ``v`` on the C stack of the call (a
thread-local one costs a function call per access in a shared library),
computed in the order of the network's components; a cyclic component is iterated until nothing
changes (its rules are positive inside it, so that is its least model).  The
statements are cut into functions of at most `CHUNK` characters, so that the C
compiler's time grows with the size of the network, not faster.  In the
next-state function, bodies that read a move are run only when that move is
played (`CGenerator._dispatch`), as the compiled reasoner's functions
specialised for a joint move do.

**Safety**: the source is made of fixed text and integers only (indexes,
masks, counts); no symbol of the game description enters it.  `check_source`
verifies that before the source is compiled.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ggp.gdl.native.heuristic_source import HEURISTIC_DECLARATIONS, HEURISTIC_RUNTIME
from ggp.gdl.native.proof_number_source import PN_DECLARATIONS, PN_RUNTIME
from ggp.gdl.native.rave_source import RAVE_DECLARATIONS, RAVE_RUNTIME
from ggp.gdl.native.tactics_source import TACTICS_DECLARATIONS, TACTICS_RUNTIME
from ggp.gdl.native.tree_source import TREE_DECLARATIONS, TREE_RUNTIME
from ggp.gdl.network.formulas import (
    BASE,
    INPUT,
    NODE,
    Body,
    Folded,
    Literal,
    Network,
    cone,
    fold,
)

TABLE_BODIES = 32
"""Nodes with this many bodies or more, of three literals at most, are read from a
table (`_ROWS`) rather than written as code: the C compiler's time is what counts
there (hex: groups that touch both edges, 6,561 bodies each)."""
BODIES = 64
"""Bodies per C expression (`_Expressions.disjunction`)."""
CHUNK = 20_000
"""Characters of statements per generated C function (the compiler's time grows
faster than the size of a function)."""
GUARD_DEPTH = 2
DISPATCH_GUARDS = 5
"""Nested tests of shared literals in the functions run per move (`CGenerator._dispatch`)."""
"""Nested tests of shared literals over the bodies of one level (`CGenerator._guarded`)."""
GOAL_TABLE_LITERALS = 200_000
"""Goals whose nodes read more literals than this are evaluated from tables, not code."""
ANY_NODES = 16
"""A node or-ing at least this many nodes alone stops at the first that holds
(`CGenerator._grouped`: whether a role has a legal move, in chess thousands)."""
LEGAL_RUN = 2
"""Consecutive legal moves that need one literal, tested under it (`CGenerator._legal_runs`)."""
ZERO_SPAN = 16
ZERO_RUN = 8
"""Consecutive nodes zeroed by one memset rather than a store each (`_zero_runs`)."""
"""Bytes of ``v`` a node that one memset zeroing a range of nodes may cover (`_zero_nodes`)."""

_WORDS = re.compile(r"(?<![0-9A-Za-z_])[A-Za-z_][A-Za-z0-9_]*")
_ALLOWED = frozenset(
    {"include", "stdint", "h", "string", "typedef", "uint64_t", "uint32_t", "u64", "u32"}
    | {"static", "void", "int", "const", "unsigned", "char", "if", "for", "while", "define"}
    | {"memset", "memcpy"}
    | {"S", "D", "o", "v", "c", "k", "i", "w", "x", "ch", "counts", "moves", "do", "ULL"}
    | {"NR", "NW", "NWI", "NN", "MOVES_MAX", "NGE", "TERMINAL", "GOAL_OF", "GOAL_NODE"}
    | {"GOAL_POS", "GOAL_VALUE", "BODY_A", "BODY_B", "BODY_C", "ROW_START", "ROW_NODE"}
    | {"ROW_A", "ROW_B", "PRESET", "INPUT_FN", "nop", "dispatch", "__builtin_ctzll"}
    | {"eval_step", "eval_goals", "eval_next", "eval_early", "eval_goal_entries", "legal_lists"}
    | {"next_state", "any_body", "eval_sinks", "eval_terminal", "eval_sees", "gdl_sees"}
    | {"entries"}
    | {"GT_NODE", "GT_NODE_START", "GT_BODY_START", "GT_LITERAL", "GT_NODES"}
)
"""Every word the generated part of the source may contain, besides `_GENERATED` ones."""
_GENERATED = re.compile(r"(step|terminal|goals|next|early|in|sinks|sees)_[0-9]+")

DECLARATIONS = (
    """
int gdl_sizes(int *sizes);
void gdl_legal(const uint64_t *S, int *counts, int *moves);
int gdl_terminal(const uint64_t *S);
void gdl_goals(const uint64_t *S, int *counts, int *entries);
void gdl_next(const uint64_t *S, const uint64_t *D, uint64_t *o);
void gdl_sees(const uint64_t *S, const uint64_t *D, int *counts, int *entries);
void gdl_count_missing_goals_as(int value);
int gdl_playouts(const char *S, int count, uint32_t seed, int greedy, int safe,
                 const uint64_t *finish, int *goals, int *steps, uint64_t *fail, int guide,
                 int features, const uint64_t *masks, const double *weights);
int gdl_random_playouts(const char *S, int count, uint32_t seed, int missing, int *results,
                        uint64_t *fail);
int gdl_finishing_moves(const char *S, int count, uint32_t seed, uint64_t *last, int *goals,
                        int *steps, uint64_t *fail);
int gdl_mast_playouts(const char *S, int count, uint32_t seed, int plies, double epsilon,
                      int64_t *seen, double *sums, int *goals, int *steps, uint64_t *fail);
int gdl_part_playouts(const char *S, int count, uint32_t seed, const uint64_t *part,
                      int decisive, const uint64_t *cones, int *goals, int *steps,
                      uint64_t *fail);
"""
    + RAVE_DECLARATIONS
    + TREE_DECLARATIONS
    + HEURISTIC_DECLARATIONS
    + TACTICS_DECLARATIONS
    + PN_DECLARATIONS
)
"""What the library exports (cffi's ``cdef``)."""


def _mt_init_table() -> str:
    """``MT_INIT``: the Mersenne Twister's state after init_genrand(19650218), which
    seeding Python's generator with a 32-bit integer starts from."""
    words = [19650218]
    for i in range(1, 624):
        words.append((1812433253 * (words[-1] ^ (words[-1] >> 30)) + i) & 0xFFFFFFFF)
    return f"static const u32 MT_INIT[624] = {{{', '.join(f'{w}u' for w in words)}}};\n"


_ROWS = """
static inline __attribute__((always_inline))
int literal(const u64 *S, const u64 *D, const unsigned char *v, int code) {
    int index = code >> 3, x;
    switch ((code >> 1) & 3) {
    case 0: x = (int)((S[index >> 6] >> (index & 63)) & 1); break;
    case 1: x = (int)((D[index >> 6] >> (index & 63)) & 1); break;
    default: x = v[index];
    }
    return x ^ (code & 1);
}

static int any_body(const u64 *S, const u64 *D, const unsigned char *v, int start, int end) {
    int k;
    for (k = start; k < end; k++)
        if (literal(S, D, v, BODY_A[k]) & literal(S, D, v, BODY_B[k]) & literal(S, D, v, BODY_C[k]))
            return 1;
    return 0;
}
"""
"""Bodies as rows: a literal is its index, kind (base, input, node) and sign in one int."""

_NODE_TABLE = """
/* The goals' nodes in order, each the or of its bodies (GT_NODE_START), each body the
   and of its literals (GT_BODY_START), a literal coded as in _ROWS. */
static void eval_goals(const u64 *S, unsigned char *v) {
    int i, b, l, x;
    for (i = 0; i < GT_NODES; i++) {
        x = 0;
        for (b = GT_NODE_START[i]; !x && b < GT_NODE_START[i + 1]; b++) {
            x = 1;
            for (l = GT_BODY_START[b]; x && l < GT_BODY_START[b + 1]; l++)
                x = literal(S, 0, v, GT_LITERAL[l]);
        }
        v[GT_NODE[i]] = (unsigned char)x;
    }
}
"""
"""The goals evaluated from tables (`CGenerator._goals_evaluator`)."""

_RUNTIME = (
    _mt_init_table()
    + """
/* Python's random.Random(seed) for a 32-bit seed: init_by_array([seed]) over MT_INIT,
   the state init_genrand(19650218) gives (a constant, so not computed per call). */
static void mt_seed(u32 *mt, u32 seed) {
    u32 x = MT_INIT[0];
    int i;
    for (i = 1; i < 624; i++) x = mt[i] = (MT_INIT[i] ^ ((x ^ (x >> 30)) * 1664525u)) + seed;
    mt[0] = x;
    x = mt[1] = (mt[1] ^ ((x ^ (x >> 30)) * 1664525u)) + seed;
    for (i = 2; i < 624; i++) x = mt[i] = (mt[i] ^ ((x ^ (x >> 30)) * 1566083941u)) - (u32)i;
    mt[0] = x;
    mt[1] = (mt[1] ^ ((x ^ (x >> 30)) * 1566083941u)) - 1u;
    mt[0] = 0x80000000u;
    mt[624] = 0;
}

/* The next 32-bit output.  Each word is twisted when it is drawn, in order: the
   words a twist reads are then the ones the whole-array twist would read (the ones
   after it not twisted yet, the ones before it twisted), so the outputs are
   Python's, without twisting 624 words for a playout that draws a few. */
static u32 mt_next(u32 *mt) {
    u32 y, i = mt[624];
    y = (mt[i] & 0x80000000u) | (mt[i == 623 ? 0 : i + 1] & 0x7fffffffu);
    y = mt[i] = mt[i < 227 ? i + 397 : i - 227] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
    mt[624] = i == 623 ? 0 : i + 1;
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static int choose(u32 *mt, int n) {
    int k = 0;
    u32 r;
    while ((n >> k) != 0) k++;
    do r = mt_next(mt) >> (32 - k); while (r >= (u32)n);
    return (int)r;
}

/* The goal of a role the rules give none in a terminal state; -1: the rules break
   there (gdl_count_missing_goals_as).  One for the library: every caller in a
   process that loaded the same rules shares it. */
static int missing_goal = -1;

void gdl_count_missing_goals_as(int value) { missing_goal = value; }

static int check_goals(int *goals, const unsigned char *v) {
    int role, j, c, value;
    for (role = 0; role < NR; role++) {
        c = 0;
        value = -1;
        for (j = 0; j < NGE; j++) {
            if (GOAL_OF[j] == role && v[GOAL_NODE[j]]) {
                c++;
                value = GOAL_VALUE[j];
            }
        }
        if (c == 0 && missing_goal >= 0) {
            goals[role] = missing_goal;
            continue;
        }
        if (c != 1 || value < 0) return 0;
        goals[role] = value;
    }
    return 1;
}

/* The goals of the terminal state T into goals (check_goals); where the rules break
   there, T into fail and 0.  Clobbers v. */
static int end_goals(const u64 *T, unsigned char *v, int *goals, u64 *fail) {
    eval_goal_entries(T, v);
    if (check_goals(goals, v)) return 1;
    memcpy(fail, T, NW * sizeof(u64));
    return 0;
}

/* Whether input pick is in the mask finish of moves looked at for wins (0: all). */
#define MAY_FINISH(finish, pick) (!(finish) || ((finish)[(pick) >> 6] >> ((pick) & 63) & 1))

/* D (NWI words) gets the other roles' first moves; returns the position in moves of
   chooser's first move. */
static int others_first_moves(const int *counts, const int *moves, int chooser, u64 *D) {
    int role, start = 0, first = 0;
    memset(D, 0, NWI * sizeof(u64));
    for (role = 0; role < NR; role++) {
        if (role == chooser) first = start;
        else D[moves[start] >> 6] |= 1ULL << (moves[start] & 63);
        start += counts[role];
    }
    return first;
}

/* The position in moves of chooser's first move that ends the game with goal 100
   for it, the other roles playing their first moves, or -1; only moves in finish
   are looked at (MAY_FINISH).  Clobbers v. */
static int role_winning_move(const u64 *T, const int *counts, const int *moves, int chooser,
                             const u64 *finish, unsigned char *v) {
    u64 D[NWI], o[NW];
    int g[NR];
    int k, pick, first = others_first_moves(counts, moves, chooser, D);
    for (k = first; k < first + counts[chooser]; k++) {
        pick = moves[k];
        if (!MAY_FINISH(finish, pick)) continue;
        D[pick >> 6] |= 1ULL << (pick & 63);
        next_state(T, D, o, v);
        eval_terminal(o, v);  /* the terminal's cone alone: no legal moves needed here */
        if (TERMINAL) {
            eval_goal_entries(o, v);
            if (check_goals(g, v) && g[chooser] == 100) return k;
        }
        D[pick >> 6] &= ~(1ULL << (pick & 63));
    }
    return -1;
}

/* The one role with more than one move; -1 if there are several or none, or a
   role without moves. */
static int sole_chooser(const int *counts) {
    int role, chooser = -1;
    for (role = 0; role < NR; role++) {
        if (counts[role] == 0) return -1;
        if (counts[role] > 1) {
            if (chooser >= 0) return -1;
            chooser = role;
        }
    }
    return chooser;
}

/* The position in moves of a move that ends the game with goal 100 for the one
   role with a choice in T (the others have one move each), or -1.  Clobbers v. */
static int winning_move(const u64 *T, const int *counts, const int *moves, const u64 *finish,
                        unsigned char *v) {
    int chooser = sole_chooser(counts);
    return chooser < 0 ? -1 : role_winning_move(T, counts, moves, chooser, finish, v);
}

/* Whether several roles have a choice in T and every role has a move. */
static int simultaneous(const int *counts) {
    int role, choosers = 0;
    for (role = 0; role < NR; role++) {
        if (counts[role] == 0) return 0;
        choosers += counts[role] > 1;
    }
    return choosers > 1;
}

/* The role whose move is at position k of moves, listed per role as counts says. */
static int role_at(const int *counts, int k) {
    int role = 0;
    while (k >= counts[role]) k -= counts[role++];
    return role;
}

/* A next state looked at by threatened: the state, whether it is terminal and, if
   not, its legal moves; valid says the playout goes there next (so that it need not
   step again). */
typedef struct {
    u64 state[NW];
    int terminal, valid;
    int counts[NR], moves[MOVES_MAX + 1];
} Ahead;

/* Whether after the joint move D in T another role than chooser with a choice can
   win at once (role_winning_move of the next state); *after gets the next state's
   winning_move, its sole chooser's (-1 also when it is terminal or has several
   choosers); a (not valid) gets the next state.  Clobbers v. */
static int threatened(const u64 *T, const u64 *D, int chooser, const u64 *finish,
                      unsigned char *v, int *after, Ahead *a) {
    int role;
    a->valid = 0;
    next_state(T, D, a->state, v);
    eval_step(a->state, v);
    *after = -1;
    a->terminal = TERMINAL;
    if (a->terminal) return 0;
    legal_lists(a->state, a->counts, a->moves, v);
    if (simultaneous(a->counts)) {
        for (role = 0; role < NR; role++)
            if (role != chooser && a->counts[role] > 1
                && role_winning_move(a->state, a->counts, a->moves, role, finish, v) >= 0)
                return 1;
        return 0;
    }
    *after = winning_move(a->state, a->counts, a->moves, finish, v);
    return *after >= 0 && role_at(a->counts, *after) != chooser;
}

/* The anti-decisive draws' start: D (NWI words) gets the other roles' first moves,
   candidates the positions in moves of chooser's moves; returns the first of them. */
static int others_first(const int *counts, const int *moves, int chooser, u64 *D,
                        int *candidates) {
    int i, first = others_first_moves(counts, moves, chooser, D);
    for (i = 0; i < counts[chooser]; i++) candidates[i] = first + i;
    return first;
}

/* A learnt evaluation of fact counts that guides playouts (heuristic.Heuristic):
   the chooser's move is the best by it of k safe moves drawn (k <= 1: none). */
typedef struct { int k, features; const u64 *masks; const double *weights; } Guide;

/* The guide's value of S for role (heuristic.Heuristic.value_of_bits, the same sums
   in the same order). */
static double guide_value(const Guide *g, const u64 *S, int role) {
    const double *row = g->weights + (size_t)role * (g->features + 1);
    double s = 0.0;
    int f, w, count;
    for (f = 0; f < g->features; f++) {
        count = 0;
        for (w = 0; w < NW; w++) count += __builtin_popcountll(S[w] & g->masks[(size_t)f * NW + w]);
        s += row[1 + f] * (double)count;
    }
    s = row[0] + s;
    return 0.5 + 0.5 * s / (1.0 + (s < 0 ? -s : s));
}

/* The position in moves of the chooser's move by the anti-decisive rule of
   playouts.Decisive: drawn among the moves not rejected yet, rejected when
   threatened; any move when all are.  memo (or 0) keeps, per move of the chooser,
   -1 (not looked at yet) or whether it is threatened, and memo_after its *after.
   *after gets the accepted move's (-2: not known); a is valid if it holds the next
   state of the accepted move, the other roles playing their first moves.  With a
   guide (and no memo), the draws go on until guide->k moves are accepted (or none
   is left), and the one whose next state the guide values most for the chooser
   is played (the first drawn of equals).  Clobbers v. */
static int safe_move(const u64 *T, const int *counts, const int *moves, int chooser, u32 *mt,
                     const u64 *finish, unsigned char *v, int *memo, int *memo_after,
                     int *after, Ahead *a, const Guide *guide) {
    u64 D[NWI];
    int candidates[MOVES_MAX + 1];
    int first, c = counts[chooser], i, k, pick, bad, seen, accepted = 0, best = -1;
    int best_after = -2;
    double value, best_value = 0.0;
    Ahead best_ahead;
    first = others_first(counts, moves, chooser, D, candidates);
    if (guide && guide->k <= 1) guide = 0;
    while (c > 0) {
        i = choose(mt, c);
        k = candidates[i];
        if (memo && memo[k - first] >= 0) {
            bad = memo[k - first];
            seen = memo_after[k - first];
            a->valid = 0;
        } else {
            pick = moves[k];
            D[pick >> 6] |= 1ULL << (pick & 63);
            bad = threatened(T, D, chooser, finish, v, &seen, a);
            a->valid = !bad;
            D[pick >> 6] &= ~(1ULL << (pick & 63));
            if (memo) {
                memo[k - first] = bad;
                memo_after[k - first] = seen;
            }
        }
        if (!bad) {
            if (!guide) {
                *after = seen;
                return k;
            }
            value = guide_value(guide, a->state, chooser);
            if (best < 0 || value > best_value) {
                best = k;
                best_value = value;
                best_after = seen;
                best_ahead = *a;
            }
            if (++accepted >= guide->k) break;
        }
        memmove(candidates + i, candidates + i + 1, (size_t)(c - i - 1) * sizeof(int));
        c--;
    }
    if (best >= 0) {
        *after = best_after;
        *a = best_ahead;
        return best;
    }
    *after = -2;
    a->valid = 0;
    return first + choose(mt, counts[chooser]);
}

/* The joint move of playouts.Decisive where several roles have a choice, into D:
   each chooser's winning move, or else a move drawn by the anti-decisive rule against
   every other role (threatened); the roles with one move play it.  Clobbers v. */
static void simultaneous_joint(const u64 *T, const int *counts, const int *moves, u32 *mt,
                               const u64 *finish, unsigned char *v, u64 *D) {
    int wins[NR];
    int role, start = 0, pick, after;
    Ahead a;
    for (role = 0; role < NR; role++)
        wins[role] =
            counts[role] > 1 ? role_winning_move(T, counts, moves, role, finish, v) : -1;
    memset(D, 0, NWI * sizeof(u64));
    for (role = 0; role < NR; role++) {
        if (counts[role] == 1) pick = moves[start];
        else if (wins[role] >= 0) pick = moves[wins[role]];
        else pick = moves[safe_move(T, counts, moves, role, mt, finish, v, 0, 0, &after, &a, 0)];
        D[pick >> 6] |= 1ULL << (pick & 63);
        start += counts[role];
    }
}

/* Random playouts (gdl_playouts); with played, each playout's distinct moves of the
   roles that had a choice, as pick * NR + role, go to played + done * PLAYED (how
   many first).  In the first greedy moves, a role that alone has a choice takes a
   winning move; with safe, when it has none, it avoids a threatened one (safe_move);
   only moves in finish are looked at for wins (MAY_FINISH), and with a guide the
   safe move is the best of several (safe_move).  With last (and greedy
   0), the input bits of the moves of the roles with a choice in each playout's last
   joint move are or-ed into last (gdl_finishing_moves). */
#define PLAYED (NWI * 64 + 1)
#define RING 64  /* states a ring of playout states keeps (the heuristic's sampling) */
static int playouts(const char *S, int count, u32 seed, int greedy, int safe,
                    const u64 *finish, int *goals, int *steps, u64 *fail, int *played,
                    u64 (*ring)[NW], u64 *last, const Guide *guide) {
    u64 T[NW], o[NW], D[NWI], C[NWI];
    u32 mt[625];
    int moves[MOVES_MAX + 1], counts[NR], memo[MOVES_MAX + 1], memo_after[MOVES_MAX + 1];
    unsigned char v[NN], recorded[NWI * 64];
    int done, n, role, start, pick, win, first = -2, known, chooser, k, *list = 0;
    Ahead ahead;  /* the next state, when safe_move has stepped there already */
    mt_seed(mt, seed);
    if (guide && guide->k <= 1) guide = 0;
    for (k = 0; k <= MOVES_MAX; k++) memo[k] = -1;  /* the first state's, for every playout */
    for (done = 0; done < count; done++) {
        memcpy(T, S, sizeof(T));
        n = 0;
        known = -2;  /* winning_move of T when already looked at (by safe_move) */
        ahead.valid = 0;
        if (played) {
            list = played + done * PLAYED;
            list[0] = 0;
            memset(recorded, 0, sizeof(recorded));
        }
        for (;;) {
            if (ahead.valid) {  /* T is ahead.state: its step is known */
                ahead.valid = 0;
                if (ahead.terminal) break;
                memcpy(counts, ahead.counts, sizeof(counts));
                memcpy(moves, ahead.moves, sizeof(int) * (size_t)(MOVES_MAX + 1));
            } else {
                eval_step(T, v);
                if (TERMINAL) break;
                legal_lists(T, counts, moves, v);
            }
            if (ring) memcpy(ring[n % RING], T, sizeof(T));  /* the state before move n */
            if (safe && n < greedy && simultaneous(counts)) {
                /* not recorded in played: RAVE's playouts are not safe ones */
                simultaneous_joint(T, counts, moves, mt, finish, v, D);
                next_state(T, D, o, v);
                memcpy(T, o, sizeof(T));
                known = -2;
                n++;
                continue;
            }
            memset(D, 0, sizeof(D));
            if (last) memset(C, 0, sizeof(C));
            win = -1;
            if (n > 0 && n < greedy)
                win = known != -2 ? known : winning_move(T, counts, moves, finish, v);
            else if (n == 0 && greedy > 0) {  /* every playout's first state: looked at once */
                if (first == -2) first = winning_move(T, counts, moves, finish, v);
                win = first;
            }
            known = -2;
            chooser = safe && win < 0 && n < greedy ? sole_chooser(counts) : -1;
            start = 0;
            for (role = 0; role < NR; role++) {
                if (counts[role] == 0) {
                    memcpy(fail, T, sizeof(T));
                    return -1 - done;
                }
                if (role == chooser)
                    pick = moves[safe_move(T, counts, moves, chooser, mt, finish, v,
                                           n == 0 && !guide ? memo : 0, memo_after, &known,
                                           &ahead, guide)];
                else if (win < 0) pick = moves[start + choose(mt, counts[role])];
                else if (win >= start && win < start + counts[role]) pick = moves[win];
                else pick = moves[start];
                if (list && counts[role] > 1 && !recorded[pick]) {
                    recorded[pick] = 1;
                    list[1 + list[0]++] = pick * NR + role;
                }
                D[pick >> 6] |= 1ULL << (pick & 63);
                if (last && counts[role] > 1) C[pick >> 6] |= 1ULL << (pick & 63);
                start += counts[role];
            }
            if (ahead.valid) memcpy(T, ahead.state, sizeof(T));
            else {
                next_state(T, D, o, v);
                memcpy(T, o, sizeof(T));
            }
            n++;
        }
        if (last && n > 0)
            for (k = 0; k < NWI; k++) last[k] |= C[k];
        if (!end_goals(T, v, goals + done * NR, fail)) return -1 - done;
        steps[done] = n;
    }
    return count;
}

int gdl_playouts(const char *S, int count, u32 seed, int greedy, int safe,
                 const u64 *finish, int *goals, int *steps, u64 *fail, int guide,
                 int features, const u64 *masks, const double *weights) {
    Guide g = {guide, features, masks, weights};
    return playouts(S, count, seed, greedy, safe, finish, goals, steps, fail, 0, 0, 0,
                    guide > 1 ? &g : 0);
}

/* gdl_playouts' random playouts, with fewer arguments to convert a call (a
   one-playout call is a few microseconds): the goals into results (NR a playout),
   then the steps (one a playout); missing sets gdl_count_missing_goals_as first
   (in the same call rather than one more). */
int gdl_random_playouts(const char *S, int count, u32 seed, int missing, int *results,
                        u64 *fail) {
    missing_goal = missing;
    return playouts(S, count, seed, 0, 0, 0, results, results + count * NR, fail, 0, 0, 0, 0);
}

int gdl_finishing_moves(const char *S, int count, u32 seed, u64 *last, int *goals,
                        int *steps, u64 *fail) {
    memset(last, 0, NWI * sizeof(u64));
    return playouts(S, count, seed, 0, 0, 0, goals, steps, fail, 0, 0, last, 0);
}

/* What the frozen roles' moves change in one part's successors (part_next), kept
   for the moves of one chooser from one state T.  cones (NW words an input: the
   next-state bits whose rules read the input; NULL if unknown) say when that is the
   same whichever move the chooser makes: where no move of the chooser can change a
   bit that a frozen role's first or second move can, the bits to undo are those of
   the chooser's first successor computed, and each other successor takes one next
   state instead of one for each frozen role besides.  ready: -1 not shared (compute
   each time), 0 to compute, 1 in undo. */
typedef struct { int ready; u64 undo[NW]; } Undo;

static void undo_start(Undo *u, const u64 *cones, const int *counts, const int *moves,
                       const int *frozen, int chooser) {
    u64 reach[NW];
    int role, start = 0, k, w, first = -1, any = 0;
    u->ready = -1;
    if (cones == 0 || chooser < 0) return;
    memset(reach, 0, sizeof(reach));
    for (role = 0; role < NR; role++) {
        if (role == chooser) first = start;
        if (frozen[role] >= 0) {
            any = 1;
            for (k = frozen[role]; k < frozen[role] + 2; k++)
                for (w = 0; w < NW; w++) reach[w] |= cones[(size_t)moves[k] * NW + w];
        }
        start += counts[role];
    }
    if (!any) return;
    for (k = first; k < first + counts[chooser]; k++)
        for (w = 0; w < NW; w++)
            if (cones[(size_t)moves[k] * NW + w] & reach[w]) return;
    u->ready = 0;
}

/* T's successor by the joint move D in one part (playouts.Part): what each frozen
   role's move changed (frozen[role] >= 0: the position in moves of its first move,
   the one D holds) undone against its second (State.reverted), or what u keeps
   (undo_start; u may be NULL).  D is as it was after.  Clobbers v. */
static void part_next(const u64 *T, u64 *D, const int *frozen, const int *moves, u64 *o,
                      unsigned char *v, Undo *u) {
    u64 a[NW], undo[NW];
    int role, pick, w;
    next_state(T, D, o, v);
    if (u != 0 && u->ready == 1) {
        for (w = 0; w < NW; w++) o[w] = (o[w] & ~u->undo[w]) | (T[w] & u->undo[w]);
        return;
    }
    memset(undo, 0, sizeof(undo));
    for (role = 0; role < NR; role++) {
        if (frozen[role] < 0) continue;
        pick = moves[frozen[role]];
        D[pick >> 6] &= ~(1ULL << (pick & 63));
        pick = moves[frozen[role] + 1];
        D[pick >> 6] |= 1ULL << (pick & 63);
        next_state(T, D, a, v);
        for (w = 0; w < NW; w++) undo[w] |= o[w] ^ a[w];
        D[pick >> 6] &= ~(1ULL << (pick & 63));
        pick = moves[frozen[role]];
        D[pick >> 6] |= 1ULL << (pick & 63);
    }
    for (w = 0; w < NW; w++) o[w] = (o[w] & ~undo[w]) | (T[w] & undo[w]);
    if (u != 0 && u->ready == 0) {
        memcpy(u->undo, undo, sizeof(undo));
        u->ready = 1;
    }
}

/* The frozen roles of a part playout's state into frozen (the position in moves of
   the first move of a role with a choice none of whose moves is in the input mask
   part; -1 for the others); returns the part's one chooser (a role with a choice
   that is not frozen), -1 if there is none or several. */
static int part_roles(const int *counts, const int *moves, const u64 *part, int *frozen) {
    int role, start = 0, k, still, chooser = -1, several = 0;
    for (role = 0; role < NR; role++) {
        still = counts[role] > 1;
        for (k = start; still && k < start + counts[role]; k++)
            if ((part[moves[k] >> 6] >> (moves[k] & 63)) & 1) still = 0;
        frozen[role] = still ? start : -1;
        if (counts[role] > 1 && !still) {
            several |= chooser >= 0;
            chooser = role;
        }
        start += counts[role];
    }
    return several ? -1 : chooser;
}

/* The position in moves of chooser's first move after which, in the part
   (part_next), the game ends with goal 100 for it, the other roles playing their
   first moves; -1 if there is none.  u: the undo of chooser's moves from T
   (undo_start).  Clobbers v. */
static int part_winning_move(const u64 *T, const int *counts, const int *moves,
                             const int *frozen, int chooser, unsigned char *v, Undo *u) {
    u64 D[NWI], o[NW];
    int g[NR];
    int k, pick, first = others_first_moves(counts, moves, chooser, D);
    for (k = first; k < first + counts[chooser]; k++) {
        pick = moves[k];
        D[pick >> 6] |= 1ULL << (pick & 63);
        part_next(T, D, frozen, moves, o, v, u);
        eval_terminal(o, v);
        if (TERMINAL) {
            eval_goal_entries(o, v);
            if (check_goals(g, v) && g[chooser] == 100) return k;
        }
        D[pick >> 6] &= ~(1ULL << (pick & 63));
    }
    return -1;
}

/* Whether after the joint move D in T, in the part, the part's one chooser there is
   another role than chooser and can win at once (part_winning_move).  u: the undo
   of chooser's moves from T.  Clobbers v. */
static int part_threatened(const u64 *T, u64 *D, const int *frozen, const int *moves,
                           int chooser, const u64 *part, const u64 *cones, unsigned char *v,
                           Undo *u) {
    u64 o[NW];
    int counts2[NR], moves2[MOVES_MAX + 1], frozen2[NR], role, other;
    Undo next_undo;
    part_next(T, D, frozen, moves, o, v, u);
    eval_step(o, v);
    if (TERMINAL) return 0;
    legal_lists(o, counts2, moves2, v);
    for (role = 0; role < NR; role++)
        if (counts2[role] == 0) return 0;
    other = part_roles(counts2, moves2, part, frozen2);
    if (other < 0 || other == chooser) return 0;
    undo_start(&next_undo, cones, counts2, moves2, frozen2, other);
    return part_winning_move(o, counts2, moves2, frozen2, other, v, &next_undo) >= 0;
}

/* The position in moves of chooser's move by the anti-decisive rule in the part
   (part_threatened), as safe_move draws it; the other roles play their first
   moves.  u: the undo of chooser's moves from T.  Clobbers v. */
static int part_safe_move(const u64 *T, const int *counts, const int *moves,
                          const int *frozen, int chooser, const u64 *part, const u64 *cones,
                          u32 *mt, unsigned char *v, Undo *u) {
    u64 D[NWI];
    int candidates[MOVES_MAX + 1];
    int first, c = counts[chooser], i, k, pick, bad;
    first = others_first(counts, moves, chooser, D, candidates);
    while (c > 0) {
        i = choose(mt, c);
        k = candidates[i];
        pick = moves[k];
        D[pick >> 6] |= 1ULL << (pick & 63);
        bad = part_threatened(T, D, frozen, moves, chooser, part, cones, v, u);
        D[pick >> 6] &= ~(1ULL << (pick & 63));
        if (!bad) return k;
        memmove(candidates + i, candidates + i + 1, (size_t)(c - i - 1) * sizeof(int));
        c--;
    }
    return first + choose(mt, counts[chooser]);
}

/* Playouts of one part (playouts.Part): a role with a choice none of whose
   moves is in the input mask part plays its first move, undone against its second
   (State.reverted); the others draw theirs.  In the first decisive moves, where
   the part has one chooser, it takes a move that wins at once in the part
   (part_winning_move), or else draws one by the anti-decisive rule
   (part_safe_move).  A role without moves ends the playout even, 50 each.  cones:
   as undo_start reads them, or NULL. */
int gdl_part_playouts(const char *S, int count, u32 seed, const u64 *part, int decisive,
                      const u64 *cones, int *goals, int *steps, u64 *fail) {
    u64 T[NW], o[NW], D[NWI];
    u32 mt[625];
    int moves[MOVES_MAX + 1], counts[NR], frozen[NR];
    unsigned char v[NN];
    int done, n, role, start, pick, win, chooser, stuck;
    Undo undo;
    mt_seed(mt, seed);
    for (done = 0; done < count; done++) {
        memcpy(T, S, sizeof(T));
        n = 0;
        stuck = 0;
        for (;;) {
            eval_step(T, v);
            if (TERMINAL) break;
            legal_lists(T, counts, moves, v);
            for (role = 0; role < NR; role++) stuck |= counts[role] == 0;
            if (stuck) break;
            chooser = part_roles(counts, moves, part, frozen);
            if (n >= decisive) chooser = -1;
            undo_start(&undo, cones, counts, moves, frozen, chooser);
            win = chooser < 0 ? -1
                              : part_winning_move(T, counts, moves, frozen, chooser, v, &undo);
            memset(D, 0, sizeof(D));
            start = 0;
            for (role = 0; role < NR; role++) {
                if (win >= 0) pick = moves[role == chooser ? win : start];
                else if (frozen[role] >= 0) pick = moves[start];
                else if (role == chooser)
                    pick = moves[part_safe_move(T, counts, moves, frozen, chooser, part, cones,
                                                mt, v, &undo)];
                else pick = moves[start + choose(mt, counts[role])];
                D[pick >> 6] |= 1ULL << (pick & 63);
                start += counts[role];
            }
            part_next(T, D, frozen, moves, o, v, &undo);
            memcpy(T, o, sizeof(T));
            n++;
        }
        if (stuck) {
            for (role = 0; role < NR; role++) goals[done * NR + role] = 50;
        } else if (!end_goals(T, v, goals + done * NR, fail)) {
            return -1 - done;
        }
        steps[done] = n;
    }
    return count;
}

/* Python's random.random(): 53 random bits from two draws. */
static double mt_random(u32 *mt) {
    u32 a = mt_next(mt) >> 5, b = mt_next(mt) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

/* MAST playouts, as ggp.games.playouts.Mast plays them: seen[i] and sums[i]
   are the count and summed reward of the move of input index i (an input is one
   role's move), read to choose and updated at the end of each playout. */
int gdl_mast_playouts(const char *S, int count, u32 seed, int plies, double epsilon,
                      int64_t *seen, double *sums, int *goals, int *steps, u64 *fail) {
    u64 T[NW], o[NW], D[NWI];
    u32 mt[625];
    int moves[MOVES_MAX + 1], counts[NR];
    int times[NWI * 64], touched[NWI * 64], owner[NWI * 64];
    unsigned char v[NN];
    int done, n, role, start, pick, c, k, j, ntouched;
    double best, value, reward;
    memset(times, 0, sizeof(times));
    mt_seed(mt, seed);
    for (done = 0; done < count; done++) {
        memcpy(T, S, sizeof(T));
        n = 0;
        ntouched = 0;
        for (;;) {
            eval_step(T, v);
            if (TERMINAL) break;
            legal_lists(T, counts, moves, v);
            memset(D, 0, sizeof(D));
            start = 0;
            for (role = 0; role < NR; role++) {
                c = counts[role];
                if (c == 0) {
                    memcpy(fail, T, sizeof(T));
                    return -1 - done;
                }
                if (plies >= 0 && n >= plies) pick = moves[start + choose(mt, c)];
                else if (c == 1) pick = moves[start];
                else {
                    if (mt_random(mt) < epsilon) pick = moves[start + choose(mt, c)];
                    else {
                        pick = moves[start];
                        best = seen[pick] ? sums[pick] / (double)seen[pick] : 1.0;
                        for (k = start + 1; k < start + c; k++) {
                            j = moves[k];
                            value = seen[j] ? sums[j] / (double)seen[j] : 1.0;
                            if (value > best) { best = value; pick = j; }
                        }
                    }
                    if (times[pick]++ == 0) {
                        touched[ntouched] = pick;
                        owner[ntouched++] = role;
                    }
                }
                D[pick >> 6] |= 1ULL << (pick & 63);
                start += c;
            }
            next_state(T, D, o, v);
            memcpy(T, o, sizeof(T));
            n++;
        }
        if (!end_goals(T, v, goals + done * NR, fail)) return -1 - done;
        for (j = 0; j < ntouched; j++) {
            pick = touched[j];
            reward = goals[done * NR + owner[j]] * 0.01;
            for (k = 0; k < times[pick]; k++) {
                seen[pick]++;
                sums[pick] += reward;
            }
            times[pick] = 0;
        }
        steps[done] = n;
    }
    return count;
}

void gdl_legal(const u64 *S, int *counts, int *moves) {
    unsigned char v[NN];
    eval_step(S, v);
    legal_lists(S, counts, moves, v);
}

int gdl_terminal(const u64 *S) {
    unsigned char v[NN];
    eval_terminal(S, v);  /* the terminal's cone alone, as the playouts' looks read it */
    return TERMINAL;
}

void gdl_goals(const u64 *S, int *counts, int *entries) {
    int role, j, c, start = 0;
    unsigned char v[NN];
    eval_goal_entries(S, v);
    for (role = 0; role < NR; role++) {
        c = 0;
        for (j = 0; j < NGE; j++)
            if (GOAL_OF[j] == role && v[GOAL_NODE[j]]) entries[start + c++] = GOAL_POS[j];
        counts[role] = c;
        start += c;
    }
}

void gdl_next(const u64 *S, const u64 *D, u64 *o) {
    unsigned char v[NN];
    next_state(S, D, o, v);
}

int gdl_sizes(int *sizes) {
    sizes[0] = NW;
    sizes[1] = NWI;
    sizes[2] = NR;
    sizes[3] = MOVES_MAX;
    sizes[4] = NGE;
    return 5;
}
"""
)


class _Expressions:
    """C expressions for literals and bodies: base and input literals as word masks."""

    @staticmethod
    def conjunction(body: Iterable[tuple[int, int, bool]]) -> str:
        """A body as a C expression worth 0 or 1: mask tests first (cheap), then nodes."""
        parts = []
        nodes = []
        masks: dict[tuple[str, int], list[int]] = {}
        for kind, index, positive in sorted(body):
            if kind == NODE:
                nodes.append(f"v[{index}]" if positive else f"!v[{index}]")
                continue
            word = ("S" if kind == BASE else "D", index >> 6)
            masks.setdefault(word, [0, 0])[0 if positive else 1] |= 1 << (index & 63)
        for (array, word), (on, off) in sorted(masks.items()):
            if on and off:
                parts.append(f"({array}[{word}] & {on | off:#x}ULL) == {on:#x}ULL")
            elif on and on & (on - 1) == 0:  # one bit: 0 or 1, as the other tests give
                parts.append(f"({array}[{word}] >> {on.bit_length() - 1} & 1)")
            elif on:
                parts.append(f"({array}[{word}] & {on:#x}ULL) == {on:#x}ULL")
            else:
                parts.append(f"!({array}[{word}] & {off:#x}ULL)")
        parts += nodes
        return " & ".join(parts) if parts else "1"

    def disjunction(self, bodies: Sequence[Sequence[tuple[int, int, bool]]]) -> list[str]:
        """Bodies as C expressions worth 0 or 1 whose or is the node's value.

        Bodies of one positive base literal are tested together, one mask
        per word of the state (a board line, a set of winning cells).  Each
        expression has at most `BODIES` bodies: a node of thousands of bodies
        (hex: a group that touches both edges) becomes that many statements,
        which the C compiler handles in time, where one expression of them
        all takes it minutes.
        """
        if not bodies:
            return ["0"]
        if any(not body for body in bodies):
            return ["1"]
        singles: dict[int, int] = {}
        parts = []
        for body in bodies:
            if len(body) == 1 and body[0][0] == BASE and body[0][2]:
                index = body[0][1]
                singles[index >> 6] = singles.get(index >> 6, 0) | 1 << (index & 63)
            else:
                parts.append(f"({self.conjunction(body)})")
        merged = [f"!!(S[{word}] & {mask:#x}ULL)" for word, mask in sorted(singles.items())]
        parts = merged + parts
        return [" | ".join(parts[i : i + BODIES]) for i in range(0, len(parts), BODIES)]


class CGenerator:
    """Writes the C source of one network (see the module docstring)."""

    def __init__(self, network: Network, goal_values: Sequence[Sequence[int | None]]) -> None:
        self.network = network
        self.goal_values = goal_values
        self.expressions = _Expressions()

    def source(self) -> str:
        network = self.network
        legal_nodes = [node for moves in network.legal for node, _ in moves]
        goal_nodes = [node for entries in network.goals for node, _ in entries]
        terminal = [] if network.terminal is None else [network.terminal]
        next_nodes = [node for node in network.next if node is not None]
        lines = [
            "#include <stdint.h>",
            "#include <string.h>",
            "typedef uint64_t u64;",
            "typedef uint32_t u32;",
        ]
        roles = len(network.legal)
        lines += [
            f"#define NR {roles}",
            f"#define NW {max(1, (len(network.base) + 63) // 64)}",
            f"#define NWI {max(1, (len(network.inputs) + 63) // 64)}",
            f"#define NN {max(1, len(network.nodes))}",
            f"#define MOVES_MAX {sum(len(moves) for moves in network.legal)}",
        ]
        self.rows = []
        code = []
        step_targets = legal_nodes + terminal
        step_folded = demand_guarded(
            network, fold(network, cone(network, step_targets)), step_targets
        )
        state_only = "const u64 *S, unsigned char *v"
        code += self._chunked(
            "step",
            state_only,
            self._grouped(
                step_folded, step_targets, frozenset(), frozenset(step_folded), "S, 0, v"
            ),
        )
        code.append(f"#define TERMINAL ({self._value(step_folded, network.terminal)})")
        # The terminal's cone alone, folded and grouped as in the step (`TERMINAL` reads
        # it): a look for a win tests it after every move looked at, where grouping by
        # shared literals skips most of a board's lines (Connect Four: 64 -> 19 ns).
        code += self._chunked(
            "terminal",
            state_only,
            self._grouped(step_folded, terminal, frozenset(), frozenset(step_folded), "S, 0, v"),
        )
        code += self._legal_lists(step_folded)
        goals_folded = fold(network, cone(network, goal_nodes))
        code += self._goals_evaluator(goals_folded, goal_nodes)
        code += self._goal_tables(goals_folded)
        next_folded = fold(network, cone(network, next_nodes))
        early = self._early(next_folded)
        dispatch, preset = self._dispatch(next_folded, early)
        code += dispatch
        with_moves = "const u64 *S, const u64 *D, unsigned char *v"
        sinks = self._sinks(next_folded)
        code += self._evaluator("early", with_moves, next_folded, next_nodes, only=early - sinks)
        late = frozenset(next_folded) - early - sinks
        code += self._chunked(
            "next", with_moves, self._grouped(next_folded, next_nodes, preset, late)
        )
        code += self._chunked(
            "sinks", with_moves + ", u64 *o", self._sink_statements(next_folded, sinks)
        )
        code += self._next_state(next_folded, preset, sinks)
        if any(network.sees):  # GDL-II (other games' sources, and their cache, unchanged)
            code += self._sees()
        for name, position in (("BODY_A", 0), ("BODY_B", 1), ("BODY_C", 2)):
            lines.append(_array(name, [row[position] for row in self.rows]))
        lines.append(_ROWS)
        runtimes = [
            _RUNTIME,
            RAVE_RUNTIME,
            HEURISTIC_RUNTIME,
            TACTICS_RUNTIME,
            PN_RUNTIME,
            TREE_RUNTIME,
        ]
        return "\n".join(lines + code + runtimes) + "\n"

    def _sees(self) -> list[str]:
        """``gdl_sees``: the cone of the ``sees`` nodes evaluated for the state and the
        joint move, then per role the positions of its entries that hold."""
        network = self.network
        targets = [node for entries in network.sees for node, _ in entries]
        folded = fold(network, cone(network, targets))
        with_moves = "const u64 *S, const u64 *D, unsigned char *v"
        lines = self._evaluator("sees", with_moves, folded, targets)
        lines += [
            "void gdl_sees(const u64 *S, const u64 *D, int *counts, int *entries) {",
            "    unsigned char v[NN];",
            "    int c, k = 0;",
            "    eval_sees(S, D, v);",
        ]
        for role, entries in enumerate(network.sees):
            lines.append("    c = 0;")
            for position, (node, _) in enumerate(entries):
                value = self._value(folded, node)
                if value != "0":
                    test = "" if value == "1" else f"if ({value}) "
                    lines.append(f"    {test}entries[k + c++] = {position};")
            lines.append(f"    counts[{role}] = c; k += c;")
        lines += ["    (void)S; (void)D; (void)v; (void)entries;", "}"]
        return lines

    def _value(self, folded: dict[int, Folded], node: int | None) -> str:
        """A C expression for whether `node` holds, once its evaluator has run."""
        if node is None:
            return "0"
        value = folded[node]
        if type(value) is bool:
            return "1" if value else "0"
        return f"v[{node}]"

    def _written(
        self,
        component: int,
        folded: dict[int, Folded],
        preset: frozenset[int],
        statements: list[list[str]],
    ) -> tuple[int, Folded] | None:
        """The node of an acyclic component and its bodies, if it has code to write.

        A cyclic component's code is written here, to `statements`; a constant
        node has none, nor has a preset node without other bodies.
        """
        members = self.network.components[component]
        if self.network.cyclic[component]:
            statements.append(self._cyclic(members, folded))
            return None
        (node,) = members
        value = folded[node]
        if type(value) is bool or (node in preset and not value):
            return None
        return node, value

    def _evaluator(
        self,
        name: str,
        parameters: str,
        folded: dict[int, Folded],
        targets: list[int],
        preset: frozenset[int] = frozenset(),
        only: frozenset[int] | None = None,
    ) -> list[str]:
        """``eval_<name>``: the nodes of the targets' cone (those in `only` if given),
        in chunks of statements.

        Nodes in `preset` already hold what their dispatched bodies gave
        (`_dispatch`): their other bodies are or-ed in.
        """
        network = self.network
        statements: list[list[str]] = []
        for component in cone(network, targets):
            members = network.components[component]
            if only is not None and members[0] not in only:
                continue
            written = self._written(component, folded, preset, statements)
            if written is None:
                continue
            node, value = written
            if len(value) >= TABLE_BODIES and all(len(body) <= 3 for body in value):
                arguments = "S, D, v" if "*D" in parameters else "S, 0, v"
                statements += self._table_node(node, value, arguments, node in preset)
                continue
            for i, expression in enumerate(self.expressions.disjunction(value)):
                assign = "|=" if i or node in preset else "="
                statements.append([f"    v[{node}] {assign} {expression};"])
        return self._chunked(name, parameters, statements)

    def _goals_evaluator(self, folded: dict[int, Folded], targets: list[int]) -> list[str]:
        """``eval_goals``: as code (`_evaluator`), or, past `GOAL_TABLE_LITERALS` literals
        without a cyclic component, from tables read by a loop (`_NODE_TABLE`).

        The goals are asked once a playout, so a loop over tables costs little
        there, where code takes the C compiler minutes (othello-comp2007 counts the
        discs through 62,000 nodes: 5 MB of C).
        """
        network = self.network
        parameters = "const u64 *S, unsigned char *v"
        nodes = []
        for component in cone(network, targets):
            if network.cyclic[component]:
                return self._evaluator("goals", parameters, folded, targets)
            (node,) = network.components[component]
            if type(folded[node]) is not bool:
                nodes.append(node)
        literals = sum(len(body) for node in nodes for body in folded[node])
        if literals < GOAL_TABLE_LITERALS:
            return self._evaluator("goals", parameters, folded, targets)
        node_start, body_start, codes = [0], [0], []
        for node in nodes:
            for body in folded[node]:
                codes += [index << 3 | kind << 1 | (not positive) for kind, index, positive in body]
                body_start.append(len(codes))
            node_start.append(len(body_start) - 1)
        return [
            _array("GT_NODE", nodes),
            _array("GT_NODE_START", node_start),
            _array("GT_BODY_START", body_start),
            _array("GT_LITERAL", codes),
            f"#define GT_NODES {len(nodes)}",
            _NODE_TABLE,
        ]

    def _grouped(
        self,
        folded: dict[int, Folded],
        targets: list[int],
        preset: frozenset[int],
        only: frozenset[int],
        tables: str | None = None,
    ) -> list[list[str]]:
        """The nodes in `only` by levels, their bodies grouped under shared literals.

        A node's level is one more than the highest level of the nodes it
        reads; the nodes of one level read none of each other, so their
        bodies may run in any order: each body is put under its most common
        positive literal in the level (a base or node one), tested once for
        the whole group, and within a group under the most common of the
        others (`_guarded`).  Hex: which cells get a renumbered group's number
        is 81 groups of 81 cells, of which only the one or two groups touched
        by the move are read; a chess move's legality is under its role's
        turn and the piece on its cell.  Bodies of one positive base literal
        are still one mask test per word (`_Expressions.disjunction`).  With
        `tables` (the arguments of `any_body`), nodes of many short bodies are
        read from rows (`_table_node`), as `_evaluator` reads them.
        """
        network = self.network
        level: dict[int, int] = {}
        levels: dict[int, list[int]] = {}
        for component in cone(network, targets):
            members = network.components[component]
            if members[0] not in only:
                continue
            read = {
                index
                for member in members
                if type(folded[member]) is not bool
                for body in folded[member]
                for kind, index, _ in body
                if kind == NODE and index not in members
            }
            height = 1 + max((level.get(index, 0) for index in read), default=0)
            for member in members:
                level[member] = height
            levels.setdefault(height, []).append(component)
        statements: list[list[str]] = []
        for height in sorted(levels):
            bodies: list[tuple[int, tuple]] = []
            zeros: list[int] = []
            anys: list[str] = []
            for component in levels[height]:
                written = self._written(component, folded, preset, statements)
                if written is None:
                    continue
                node, value = written
                if (
                    tables is not None
                    and len(value) >= TABLE_BODIES
                    and all(len(body) <= 3 for body in value)
                ):
                    statements += self._table_node(node, value, tables, node in preset)
                    continue
                singles = [body for body in value if len(body) == 1 and body[0][:1] == (BASE,)]
                plain = [body for body in value if not (len(body) == 1 and body[0][:1] == (BASE,))]
                nodes = [body[0][1] for body in plain if _positive_node(body)]
                if len(nodes) >= ANY_NODES:  # "some legal move": or the nodes until one holds
                    plain = [body for body in plain if not _positive_node(body)]
                    names = [f"v[{index}]" for index in nodes]
                    anys += [
                        f"if (!v[{node}]) v[{node}] = " + " | ".join(names[i : i + BODIES]) + ";"
                        for i in range(0, len(names), BODIES)
                    ]
                if not singles:
                    if node not in preset:
                        zeros.append(node)
                    bodies += [(node, tuple(body)) for body in plain]
                    continue
                for i, expression in enumerate(self.expressions.disjunction(singles)):
                    assign = "=" if node not in preset and not i else "|="
                    statements.append([f"    v[{node}] {assign} {expression};"])
                bodies += [(node, tuple(body)) for body in plain]
            statements += [[line] for line in _zero_runs(zeros)]
            statements += [[f"    {line}"] for line in anys + self._guarded(bodies, GUARD_DEPTH)]
        return statements

    def _guarded(
        self, bodies: list[tuple[int, tuple]], depth: int, moves: bool = False
    ) -> list[str]:
        """Statements or-ing each body into its node, bodies that share a literal under
        one test of it: the most common positive literal (a move only with `moves`)
        among them, and within each group, `depth` - 1 more times, the most common of
        the rest."""
        conjunction = self.expressions.conjunction

        def guards(body: tuple) -> list:
            return [lit for lit in body if lit[2] and (moves or lit[0] != INPUT)]

        counts = Counter(lit for _, body in bodies for lit in guards(body))
        plain: list[str] = []
        groups: dict[tuple, list[tuple[int, tuple]]] = {}
        for node, body in bodies:
            candidates = guards(body)
            guard = max(candidates, key=lambda lit: (counts[lit], lit)) if candidates else None
            if depth <= 0 or guard is None or counts[guard] < 2:
                plain.append(f"v[{node}] |= {conjunction(body)};")
                continue
            groups.setdefault(guard, []).append((node, tuple(lit for lit in body if lit != guard)))
        lines = plain
        for guard, members in sorted(groups.items()):
            inner = [f"v[{node}] = 1;" for node, rest in members if not rest]
            inner += self._guarded(
                [(node, rest) for node, rest in members if rest], depth - 1, moves
            )
            test = conjunction([guard])
            block: list[str] = []
            size = 0
            for line in inner + [""]:
                if block and (not line or len(block) == BODIES or size + len(line) > CHUNK // 4):
                    lines.append(f"if ({test}) {{ " + " ".join(block) + " }")
                    block, size = [], 0
                block.append(line)
                size += len(line)
        return lines

    @staticmethod
    def _chunked(name: str, parameters: str, statements: list[list[str]]) -> list[str]:
        """``eval_<name>`` calling functions of at most `CHUNK` characters of statements."""
        lines: list[str] = []
        chunks: list[str] = []
        current: list[str] = []
        size = 0
        for block in statements + [[]]:
            block_size = sum(len(line) for line in block)
            if current and (not block or size + block_size > CHUNK):
                chunks.append(f"{name}_{len(chunks)}")
                lines.append(f"static void {chunks[-1]}({parameters}) {{")
                lines += current
                lines.append("}")
                current = []
                size = 0
            current += block
            size += block_size
        names = [part.split("*")[-1].strip() for part in parameters.split(",")]
        lines.append(f"static void eval_{name}({parameters}) {{")
        lines += [f"    {chunk}({', '.join(names)});" for chunk in chunks]
        lines.append("    " + " ".join(f"(void){name};" for name in names))
        lines.append("}")
        return lines

    def _table_node(self, node: int, bodies: list, arguments: str, preset: bool) -> list[list[str]]:
        """A node of many short bodies, grouped by their most common literal.

        Each group is one test of that literal and, when it holds, a scan of
        the group's rows (`any_body`): hex's 6,561 ways for a group to touch
        both edges are 81 tests and a few short scans.
        """
        singles = [body for body in bodies if _positive_base(body)]
        names = [f"v[{body[0][1]}]" for body in bodies if _positive_node(body)]
        bodies = [body for body in bodies if not (_positive_base(body) or _positive_node(body))]
        # bodies of one positive base literal: one mask test a word (knightThrough: a
        # role's pieces anywhere, 64 cells)
        masks = self.expressions.disjunction(singles) if singles else ["0"]
        statements = [
            [f"    v[{node}] {'|=' if preset or i else '='} {expression};"]
            for i, expression in enumerate(masks)
            if not (preset and expression == "0")
        ]
        # bodies of one positive node literal: or-ed until one holds ("a role has a legal
        # move": thousands of nodes in chess)
        statements += [
            [f"    if (!v[{node}]) v[{node}] = " + " | ".join(names[i : i + BODIES]) + ";"]
            for i in range(0, len(names), BODIES)
        ]
        counts = Counter(literal for body in bodies for literal in body)
        groups: dict[tuple[int, int, bool], list[tuple]] = {}
        for body in bodies:
            key = max(body, key=lambda literal: (counts[literal], literal))
            groups.setdefault(key, []).append(tuple(lit for lit in body if lit != key))
        for key, rests in sorted(groups.items()):
            test = self.expressions.conjunction([key])
            if not all(rests):
                statements.append([f"    v[{node}] |= {test};"])
                continue
            start = len(self.rows)
            self.rows += [self._row(rest) for rest in rests]
            call = f"any_body({arguments}, {start}, {len(self.rows)})"
            statements.append([f"    if (!v[{node}] && {test}) v[{node}] = {call};"])
        return statements

    @staticmethod
    def _row(body: Sequence[tuple[int, int, bool]]) -> tuple[int, int, int]:
        """A body of one to three literals as a row of `BODY_A`.. (see `_ROWS`)."""
        codes = [index << 3 | kind << 1 | (not positive) for kind, index, positive in body]
        codes += [codes[0]] * (3 - len(codes))
        return codes[0], codes[1], codes[2]

    def _early(self, folded: dict[int, Folded]) -> frozenset[int]:
        """The nodes of the next state's cone computed before the dispatch (`_dispatch`).

        A body reading a move can be dispatched if the nodes it reads are
        known by then: these are the nodes that depend on no dispatched
        body.  Found by iterating from none (only bodies without node
        literals dispatched); if that does not settle, none.
        """
        network = self.network
        readers: dict[int, set[int]] = {}
        for node, value in folded.items():
            if type(value) is not bool:
                for body in value:
                    for kind, index, _ in body:
                        if kind == NODE:
                            readers.setdefault(index, set()).add(node)

        def late_nodes(early: frozenset[int]) -> set[int]:
            late = {
                node
                for node, value in folded.items()
                if type(value) is not bool
                and not network.cyclic[network.component_of[node]]
                and any(_movable(body, early) for body in value)
            }
            stack = list(late)
            while stack:
                for reader in readers.get(stack.pop(), ()):
                    if reader not in late:
                        late.add(reader)
                        stack.append(reader)
            return late

        early: frozenset[int] = frozenset()
        for _ in range(8):
            found = frozenset(folded) - late_nodes(early)
            if found == early:
                return early
            early = found
        return frozenset()

    def _dispatch(
        self, folded: dict[int, Folded], early: frozenset[int]
    ) -> tuple[list[str], frozenset[int]]:
        """Bodies reading a move, run only when that move is played.

        A body with a positive ``does`` literal whose node literals are all
        `early` (a move's effect, or a frame rule for the cells a move does
        not touch) is run by ``dispatch`` for that input only, and ors its
        value into its node; ``dispatch`` zeroes those nodes first, and runs
        after ``eval_early`` and before ``eval_next``.  Bodies whose other literals are one or two
        positive base literals (hex: 68,000 of them, the frame of its groups)
        are rows of a table read by one loop, which compiles in no time where
        code for them takes minutes; the others are code, in ``in_<i>``.
        Returns the source and the nodes so preset; the bodies left in
        `folded` are the others.
        """
        network = self.network
        per_input: dict[int, list[tuple[int, tuple]]] = {}
        rows: dict[int, list[tuple[int, int, int]]] = {}
        preset: set[int] = set()
        for node, value in folded.items():
            if type(value) is bool or network.cyclic[network.component_of[node]]:
                continue
            kept = []
            for body in value:
                if not _movable(body, early):
                    kept.append(body)
                    continue
                first = next(i for kind, i, positive in body if kind == INPUT and positive)
                preset.add(node)
                rest = sorted(literal for literal in body if literal != (INPUT, first, True))
                if rest and len(rest) <= 2 and all(k == BASE and p for k, _, p in rest):
                    rows.setdefault(first, []).append((node, rest[0][1], rest[-1][1]))
                    continue
                per_input.setdefault(first, []).append((node, tuple(rest)))
            folded[node] = kept
        lines = []
        for index in sorted(per_input):
            lines.append(f"static void in_{index}(const u64 *S, const u64 *D, unsigned char *v) {{")
            bodies = per_input[index]
            lines += [f"    v[{node}] = 1;" for node, rest in bodies if not rest]
            # under shared literals, moves too (chineseCheckers6: a cell stays when the
            # five other roles' noops are played, 188 cells under the same five tests)
            found = [(node, rest) for node, rest in bodies if rest]
            lines += [f"    {line}" for line in self._guarded(found, DISPATCH_GUARDS, moves=True)]
            lines.append("    (void)S; (void)D; (void)v;")
            lines.append("}")
        lines.append(
            "static void nop(const u64 *S, const u64 *D, unsigned char *v) "
            "{ (void)S; (void)D; (void)v; }"
        )
        inputs = len(network.inputs)
        functions = ", ".join(f"in_{i}" if i in per_input else "nop" for i in range(inputs))
        lines.append(
            f"static void (*const INPUT_FN[{max(1, inputs)}])"
            f"(const u64 *S, const u64 *D, unsigned char *v) = {{{functions or 'nop'}}};"
        )
        starts = [0]
        table: list[tuple[int, int, int]] = []
        for index in range(inputs):
            table += rows.get(index, [])
            starts.append(len(table))
        lines += [
            _array("ROW_START", starts),
            _array("ROW_NODE", [row[0] for row in table]),
            _array("ROW_A", [row[1] for row in table]),
            _array("ROW_B", [row[2] for row in table]),
            _array("PRESET", sorted(preset)),
        ]
        lines += [
            "static void dispatch(const u64 *S, const u64 *D, unsigned char *v) {",
            "    int w, i, k;",
            _zero_nodes(sorted(preset), early),
            "    for (w = 0; w < NWI; w++) {",
            "        u64 x = D[w];",
            "        while (x) {",
            "            i = w * 64 + __builtin_ctzll(x);",
            "            INPUT_FN[i](S, D, v);",
            "            for (k = ROW_START[i]; k < ROW_START[i + 1]; k++)",
            "                v[ROW_NODE[k]] |= "
            "(S[ROW_A[k] >> 6] >> (ROW_A[k] & 63)) & (S[ROW_B[k] >> 6] >> (ROW_B[k] & 63)) & 1;",
            "            x &= x - 1;",
            "        }",
            "    }",
            "}",
        ]
        return lines, frozenset(preset)

    def _cyclic(self, members: list[int], folded: dict[int, Folded]) -> list[str]:
        """A cyclic component: all false, then its rules applied until nothing changes."""
        lines = [f"    v[{member}] = {1 if folded[member] is True else 0};" for member in members]
        lines.append("    { int ch; do { ch = 0;")
        for member in members:
            value = folded[member]
            if type(value) is bool or not value:
                continue
            for expression in self.expressions.disjunction(value):
                lines.append(
                    f"        if (!v[{member}] && ({expression})) {{ v[{member}] = 1; ch = 1; }}"
                )
        lines.append("    } while (ch); }")
        return lines

    def _legal_lists(self, folded: dict[int, Folded]) -> list[str]:
        """``legal_lists``: per role, its legal moves' input indexes in increasing order,
        read from the step's nodes; runs of moves that all need one literal are tested
        under it (`_legal_runs`)."""
        lines = [
            "static void legal_lists(const u64 *S, int *counts, int *moves,"
            " const unsigned char *v) {",
            "    int c, k = 0;",
        ]
        memo: dict[int, frozenset] = {}
        for role, entries in enumerate(self.network.legal):
            lines.append("    c = 0;")
            items = []
            for node, move in sorted(entries, key=lambda entry: entry[1]):
                value = self._value(folded, node)
                if value == "0":
                    continue
                needs = frozenset() if value == "1" else _needed(folded, node, memo)
                items.append(
                    (needs, f"{'' if value == '1' else f'if ({value}) '}moves[k + c++] = {move};")
                )
            lines += [f"    {line}" for line in self._legal_runs(items, GUARD_DEPTH)]
            lines.append(f"    counts[{role}] = c; k += c;")
        lines += ["    (void)S; (void)moves;", "}"]
        return lines

    def _legal_runs(self, items: list[tuple[frozenset, str]], depth: int) -> list[str]:
        """The statements of `items` (what each needs, its statement) in their order,
        a run of at least `LEGAL_RUN` consecutive ones that all need one literal under
        one test of it, and so on inside (`depth` levels): moves are numbered in the
        order of their text, so a piece's moves from one cell are consecutive."""
        lines: list[str] = []
        i = 0
        while i < len(items):
            common = items[i][0]
            j = i + 1
            while j < len(items) and common & items[j][0]:
                common &= items[j][0]
                j += 1
            if depth <= 0 or j - i < LEGAL_RUN or not common:
                lines.append(items[i][1])
                i += 1
                continue
            guard = min(common)
            inner = [(needs - {guard}, line) for needs, line in items[i:j]]
            body = " ".join(self._legal_runs(inner, depth - 1))
            lines.append(f"if ({self.expressions.conjunction([guard])}) {{ {body} }}")
            i = j
        return lines

    def _goal_tables(self, folded: dict[int, Folded]) -> list[str]:
        """The goal entries that can hold: role, node, position and value (-1: not 0..100)."""
        of, nodes, positions, values = [], [], [], []
        for role, entries in enumerate(self.network.goals):
            for position, (node, _) in enumerate(entries):
                value = folded[node]
                if value is False or (type(value) is not bool and not value):
                    continue
                of.append(role)
                nodes.append(node)
                positions.append(position)
                known = self.goal_values[role][position]
                values.append(-1 if known is None else known)
        lines = []
        count = len(of)
        lines.append(f"#define NGE {count}")
        for name, table in (
            ("GOAL_OF", of),
            ("GOAL_NODE", nodes),
            ("GOAL_POS", positions),
            ("GOAL_VALUE", values),
        ):
            items = ", ".join(map(str, table)) or "0"
            lines.append(f"static const int {name}[{max(1, count)}] = {{{items}}};")
        lines.append("static void eval_goal_entries(const u64 *S, unsigned char *v) {")
        lines.append("    eval_goals(S, v);")
        # a goal that always holds is a constant, not computed by eval_goals
        lines += [f"    v[{node}] = 1;" for node in nodes if folded[node] is True]
        lines.append("}")
        return lines

    def _sinks(self, folded: dict[int, Folded]) -> frozenset[int]:
        """The ``next`` nodes that no other node reads: written into the next state directly."""
        network = self.network
        read = {
            index
            for value in folded.values()
            if type(value) is not bool
            for body in value
            for kind, index, _ in body
            if kind == NODE
        }
        return frozenset(
            node
            for node in network.next
            if node is not None
            and node not in read
            and not network.cyclic[network.component_of[node]]
            and type(folded[node]) is not bool
        )

    def _sink_statements(self, folded: dict[int, Folded], sinks: frozenset[int]) -> list[list[str]]:
        """The bodies of the `sinks` (`_dispatch`ed ones aside) or-ed into the next state ``o``.

        A sink's bit is set by its bodies, grouped so that most are never
        evaluated: a frame body (its own bit in the state, and a condition)
        joins the other bits of the same condition, copied a word at a time
        under one test (hex: a group's 81 cells keep their number unless the
        group is renumbered); other bodies are grouped under their most
        common positive base literal, tested once (hex: the current step).
        """
        network = self.network
        bit_of = {node: bit for bit, node in enumerate(network.next) if node in sinks}
        frames: dict[tuple, dict[int, int]] = {}
        others: list[tuple[int, tuple]] = []
        counts: Counter = Counter()
        for node in sorted(sinks):
            bit = bit_of[node]
            for body in folded[node]:
                if (BASE, bit, True) in body:
                    rest = tuple(
                        sorted(literal for literal in body if literal != (BASE, bit, True))
                    )
                    words = frames.setdefault(rest, {})
                    words[bit >> 6] = words.get(bit >> 6, 0) | 1 << (bit & 63)
                    continue
                others.append((bit, body))
                counts.update(lit for lit in body if lit[0] == BASE and lit[2])
        statements: list[list[str]] = []
        conjunction = self.expressions.conjunction

        def grouped_statements(groups: dict[tuple, list[str]]) -> list[list[str]]:
            """Each group's lines under its guard, tested once for `BODIES` lines."""
            out: list[list[str]] = []
            for guard, lines in sorted(groups.items()):
                if not guard:
                    out += [[f"    {line}"] for line in lines]
                    continue
                for i in range(0, len(lines), BODIES):
                    part = " ".join(lines[i : i + BODIES])
                    out.append([f"    if ({conjunction(guard)}) {{ {part} }}"])
            return out

        frame_counts = Counter(lit for rest in frames for lit in rest if lit[2])
        framed: dict[tuple, list[str]] = {}
        for rest, words in sorted(frames.items()):
            copies = " ".join(
                f"o[{w}] |= S[{w}] & {mask:#x}ULL;" for w, mask in sorted(words.items())
            )
            positives = [lit for lit in rest if lit[2]]
            guard = max(positives, key=lambda lit: (frame_counts[lit], lit)) if positives else None
            if guard is not None and frame_counts[guard] < 2:
                guard = None
            inner = [lit for lit in rest if lit != guard]
            line = f"if ({conjunction(inner)}) {{ {copies} }}" if inner else copies
            framed.setdefault((guard,) if guard else (), []).append(line)
        statements += grouped_statements(framed)  # e.g. a move's kind, then its cells
        guarded: dict[tuple, list[str]] = {}
        for bit, body in others:
            bases = [lit for lit in body if lit[0] == BASE and lit[2]]
            guard = max(bases, key=lambda lit: (counts[lit], lit)) if bases else None
            if guard is not None and counts[guard] < 2:
                guard = None
            rest = [lit for lit in body if lit != guard]
            value = f"(u64)({conjunction(rest)})" if rest else "1ULL"
            statement = f"o[{bit >> 6}] |= {value} << {bit & 63};"
            guarded.setdefault((guard,) if guard else (), []).append(statement)
        statements += grouped_statements(guarded)
        return statements

    def _next_state(
        self, folded: dict[int, Folded], preset: frozenset[int], sinks: frozenset[int]
    ) -> list[str]:
        network = self.network
        words = max(1, (len(network.base) + 63) // 64)
        fixed = [0] * words
        variable: list[tuple[int, int]] = []
        for bit, node in enumerate(network.next):
            if node is None:
                continue
            value = folded[node]
            if value is True:
                fixed[bit >> 6] |= 1 << (bit & 63)
            elif node in preset or (node not in sinks and type(value) is not bool and value):
                variable.append((bit, node))
        lines = ["static void next_state(const u64 *S, const u64 *D, u64 *o, unsigned char *v) {"]
        lines += [f"    o[{word}] = {fixed[word]:#x}ULL;" for word in range(words)]
        lines.append("    eval_early(S, D, v);")
        lines.append("    dispatch(S, D, v);")
        lines.append("    eval_next(S, D, v);")
        lines.append("    eval_sinks(S, D, v, o);")
        lines += _packed_bits(variable, len(network.nodes))
        lines.append("}")
        return lines


PACK = 0x0102040810204080
"""Multiplying eight bytes each 0 or 1 by this puts byte ``i`` at bit ``56 + i``."""


def _packed_bits(variable: list[tuple[int, int]], nodes: int) -> list[str]:
    """Statements or-ing node values into the next state ``o``, `variable` its
    (bit, node) pairs in increasing bits: runs of consecutive bits of one word
    read from consecutive nodes are eight bytes of ``v`` read at once and packed
    into bits by one multiplication (`PACK`), where the eight bytes are in ``v``;
    the other bits one statement each."""
    lines = []
    i = 0
    while i < len(variable):
        bit, node = variable[i]
        run = 1
        while (
            run < 8
            and i + run < len(variable)
            and variable[i + run] == (bit + run, node + run)
            and (bit + run) >> 6 == bit >> 6
        ):
            run += 1
        if run >= 3 and node + 8 <= nodes:
            mask = f" & {(1 << 8 * run) - 1:#x}ULL" if run < 8 else ""
            lines.append(
                f"    {{ u64 x; memcpy(&x, v + {node}, 8); "
                f"o[{bit >> 6}] |= ((x{mask}) * {PACK:#x}ULL) >> 56 << {bit & 63}; }}"
            )
        else:
            run = 1
            lines.append(f"    o[{bit >> 6}] |= (u64)v[{node}] << {bit & 63};")
        i += run
    return lines


def demand_guarded(
    network: Network, folded: dict[int, Folded], targets: Sequence[int]
) -> dict[int, Folded]:
    """`folded` with each node's bodies of two literals or more also reading a positive
    base literal that every reader of the node reads, or that the reader's own
    guard is: where that literal is false the node's value reaches no target, so
    it need not be computed.  chineseCheckers6: whether a piece of a role can move
    from one cell to another is read only by that role's legal moves, each under
    its turn (``(true (control ?player))``), so five of the six roles' moves are
    skipped (by the group test of `CGenerator._guarded`).

    The targets' values are unchanged: a node with guard ``L`` becomes ``node and
    L`` (or less, for bodies left alone) only where ``L`` is false, and there each
    of its readers has ``L`` in the body that reads it (false anyway) or is itself
    guarded by ``L``; the targets are guarded by nothing.  Bodies of one literal
    are left alone (masks of single bits, nodes or-ed until one holds), and so are
    nodes read from tables and cyclic components.
    """
    components = cone(network, targets)
    cyclic = {
        member
        for component in components
        if network.cyclic[component]
        for member in network.components[component]
    }
    order = [member for component in components for member in network.components[component]]
    readers: dict[int, list[tuple[int, Body]]] = {}
    for node in order:
        value = folded[node]
        if type(value) is bool:
            continue
        for body in value:
            for kind, index, _ in body:
                if kind == NODE:
                    readers.setdefault(index, []).append((node, body))
    fixed = set(targets) | cyclic
    guards: dict[int, frozenset[Literal]] = {}
    for node in reversed(order):  # every reader before the nodes it reads
        if node in fixed or node not in readers:
            continue
        common: frozenset[Literal] | None = None
        for reader, body in readers[node]:
            if reader in cyclic:
                common = frozenset()
                break
            found = frozenset(lit for lit in body if lit[0] == BASE and lit[2])
            found |= guards.get(reader, frozenset())
            common = found if common is None else common & found
            if not common:
                break
        if common:
            guards[node] = common
    counts = Counter(lit for found in guards.values() for lit in found)
    guarded = dict(folded)
    for node, found in guards.items():
        value = folded[node]
        if type(value) is bool or (
            len(value) >= TABLE_BODIES and all(len(body) <= 3 for body in value)
        ):
            continue
        guard = max(found, key=lambda lit: (counts[lit], lit))
        guarded[node] = [
            body if len(body) < 2 or guard in body else tuple(sorted((*body, guard)))
            for body in value
        ]
    return guarded


def _needed(folded: dict[int, Folded], node: int, memo: dict[int, frozenset]) -> frozenset:
    """The positive literals, not moves, without any of which `node` is false: those
    every body of it reads, and what each such node literal needs in turn (a chess
    move is legal if its role's turn and the move's legality, which needs a piece on
    its cell)."""
    if node in memo:
        return memo[node]
    memo[node] = frozenset()  # while it is worked out (a cyclic component)
    bodies = folded.get(node)
    if type(bodies) is bool or not bodies:
        return memo[node]
    common = frozenset(lit for lit in bodies[0] if lit[2] and lit[0] != INPUT)
    for body in bodies[1:]:
        common &= frozenset(body)
    found = set(common)
    for kind, index, _ in common:
        if kind == NODE:
            found |= _needed(folded, index, memo)
    memo[node] = frozenset(found)
    return memo[node]


def _positive_node(body: Sequence[tuple[int, int, bool]]) -> bool:
    """Whether `body` is one positive node literal."""
    return len(body) == 1 and body[0][0] == NODE and body[0][2]


def _positive_base(body: Sequence[tuple[int, int, bool]]) -> bool:
    """Whether `body` is one positive base literal (a bit of the state)."""
    return len(body) == 1 and body[0][0] == BASE and body[0][2]


def _guards(body: Sequence[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """The literals of `body` that may guard a group of bodies: positive base or node ones."""
    return [literal for literal in body if literal[2] and literal[0] != INPUT]


def _movable(body: Sequence[tuple[int, int, bool]], early: frozenset[int]) -> bool:
    """Whether `body` can be dispatched: it reads a move, and only `early` nodes."""
    return any(kind == INPUT and positive for kind, _, positive in body) and all(
        index in early for kind, index, _ in body if kind == NODE
    )


def _zero_runs(nodes: list[int]) -> list[str]:
    """Statements zeroing the nodes `nodes` of ``v``: a memset a run of `ZERO_RUN`
    consecutive ones or more, a store each other one."""
    lines = []
    nodes = sorted(nodes)
    i = 0
    while i < len(nodes):
        j = i + 1
        while j < len(nodes) and nodes[j] == nodes[j - 1] + 1:
            j += 1
        if j - i >= ZERO_RUN:
            lines.append(f"    memset(v + {nodes[i]}, 0, {j - i});")
        else:
            lines += [f"    v[{node}] = 0;" for node in nodes[i:j]]
        i = j
    return lines


ZERO_SEGMENTS = 16
"""Ranges of ``v`` that `_zero_nodes` zeroes with a memset each at most (else a loop)."""


def _zero_nodes(nodes: Sequence[int], keep: frozenset[int]) -> str:
    """A statement zeroing the nodes `nodes` (sorted) of ``v`` and none of `keep`: a
    memset of each range they span between two nodes of `keep` where that is no
    more than `ZERO_SPAN` bytes a node (at most `ZERO_SEGMENTS` of them), else a loop
    over ``PRESET`` (a loop costs some instructions a node, a memset a few a cache
    line).  `keep` are the nodes computed before (``eval_early``): a range across
    one zeroed it, and the bodies dispatched read it as false (reversi's flips)."""
    if not nodes:
        return "    (void)k;"
    kept = sorted(keep)
    segments: list[list[int]] = [[nodes[0]]]
    for node in nodes[1:]:
        if bisect.bisect_left(kept, segments[-1][-1]) != bisect.bisect_left(kept, node):
            segments.append([])
        segments[-1].append(node)
    spans = [(segment[0], segment[-1] - segment[0] + 1) for segment in segments]
    if len(segments) > ZERO_SEGMENTS or sum(span for _, span in spans) > ZERO_SPAN * len(nodes):
        return f"    for (k = 0; k < {len(nodes)}; k++) v[PRESET[k]] = 0;"
    return " ".join(f"    memset(v + {start}, 0, {span});" for start, span in spans) + " (void)k;"


def _array(name: str, values: Sequence[int]) -> str:
    """A constant C array of ints (one element at least: C has no empty arrays)."""
    items = ", ".join(map(str, values)) or "0"
    return f"static const int {name}[{max(1, len(values))}] = {{{items}}};"


def check_source(source: str) -> None:
    """Raise `ValueError` unless every word of `source` is one generated code may contain."""
    # Fixed text (trusted): the rows, the runtime, RAVE's and the heuristic's functions.
    generated = source.replace(_ROWS, "").replace(_RUNTIME, "")
    generated = generated.replace(RAVE_RUNTIME, "").replace(HEURISTIC_RUNTIME, "")
    generated = generated.replace(TACTICS_RUNTIME, "").replace(TREE_RUNTIME, "")
    generated = generated.replace(PN_RUNTIME, "")
    generated = generated.replace(_NODE_TABLE, "")
    for word in _WORDS.findall(generated):
        if word not in _ALLOWED and not _GENERATED.fullmatch(word):
            raise ValueError(f"generated C names {word[:40]!r}, which it must not")
