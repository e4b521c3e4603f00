"""C source for the tactical search (forced wins and losses), added to every game's library.

Fixed text (no symbol of a game enters it), appended after `ggp.gdl.native.csource`'s
runtime, whose functions and macros it uses.  It is the search of
`ggp.player.search.tactics` (see there for what is proven and why it is sound),
run over the native rules in one call:

- ``gdl_tactics(S, role, max_depth, budget, deadline, table, entries, touch, only,
  wins, losses, info)``: for the non-terminal state ``S``, each legal move k of
  ``role`` (in the order of ``gdl_legal``; with ``only`` >= 0, move ``only`` alone, the
  others left at 0) proven to win within ``wins[k]`` plies (0: not proven) against
  every joint move of the others at the same time, or to lose within ``losses[k]``
  after one of them (the move's worst case); iterative deepening one ply at a time
  up to ``max_depth``, stopped after ``budget`` successor states or at ``deadline``
  (seconds of ``CLOCK_MONOTONIC``, Python's ``time.monotonic``).  ``info`` gets
  the states made, the depth searched completely and whether the search ended by
  itself.  Returns the count of ``role``'s moves, or -1 where the state is
  terminal, a role has no legal move, the joint moves are more than
  ``TACTICS_JOINTS``, or ``only`` is not a move (nothing searched).
- ``gdl_tactics_entry_words()``: the 64-bit words of one entry of ``table``, the
  transposition table the caller keeps from call to call (``entries``, a power of
  two, zeroed before its first use): a state and four depths: plies within which a
  win is proven (255: none), plies within which none exists (0: nothing known),
  the same two for a loss.  The caller clears it when the role changes.
- ``touch`` (null: none): per input index, ``NW`` words of the facts its move
  touches (`ggp.gdl.native.locality`).  With it the search is *local*: where the
  side that needs one good move (ours for a win, the others' for a loss) has one
  role with a choice, only its moves that touch a fact changed by the last two
  plies are tried (from the second ply after the root on: the first is not
  restricted).  A local proof is a proof all the same (a good move was found among
  fewer), so what it proves holds; it proves less, and deeper for the same states.
  Its "nothing proven" entries depend on the line that led to a state, so a local
  search keeps a table of its own.

Move ordering is by a history score per input (moves that proved or refuted
something before are tried first), kept per question within a call.
"""

from __future__ import annotations

TACTICS_DECLARATIONS = """
int gdl_tactics(const uint64_t *S, int role, int max_depth, int64_t budget, double deadline,
                uint64_t *table, int64_t entries, const uint64_t *touch, int only,
                int *wins, int *losses, int64_t *info);
int gdl_tactics_entry_words(void);
"""
"""What the library exports for the tactics (cffi's ``cdef``)."""

TACTICS_JOINTS = 400
"""Joint moves a state may have to be searched (``TACTICS_JOINTS`` of the C text; the
search's two orders of them are on its stack at every ply, `ggp.gdl.native.tactics.frame_bytes`)."""

TACTICS_RUNTIME = (
    """
#include <time.h>

#define TACTICS_JOINTS """
    + str(TACTICS_JOINTS)
    + """  /* joint moves a state may have to be searched */
#define TACTICS_CLOCK 256  /* states made between two looks at the clock (chess: 0.2 ms each) */
#define TT_WORDS (NW + 1)
#define TT_USED (1ULL << 32)
#define TT_PROBES 4
#define TT_EXACT 250  /* plies within which none exists: at any depth (the most searched) */

typedef struct {
    u64 *table;
    u64 mask;
    int role;
    int64_t nodes, budget;
    double deadline;
    unsigned char *v;
    const u64 *touch;
    int cut;  /* a "not proven" met since it was cleared may be proven deeper */
    int64_t history[2][NWI * 64];
} Tactics;

/* The roles of one side of a question: the attacker, who needs one good option,
   and the defender, every option of whom must fail.  An option is one move of each
   of the side's roles (a joint move of the side), numbered in mixed radix. */
typedef struct {
    int roles[NR], count, options;
} Side;

static u64 tt_hash(const u64 *S) {
    u64 h = 0x9e3779b97f4a7c15ULL;
    int w;
    for (w = 0; w < NW; w++) {
        h = (h ^ S[w]) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return h;
}

/* The entry of state S, or 0; with create, a new one (the first probed slot
   replaced when all are taken). */
static u64 *tt_find(Tactics *t, const u64 *S, int create) {
    u64 h = tt_hash(S), *e;
    int p;
    for (p = 0; p < TT_PROBES; p++) {
        e = t->table + ((h + p) & t->mask) * TT_WORDS;
        if (!(e[NW] & TT_USED)) break;
        if (memcmp(e, S, NW * sizeof(u64)) == 0) return e;
    }
    if (!create) return 0;
    if (p == TT_PROBES) e = t->table + (h & t->mask) * TT_WORDS;
    memcpy(e, S, NW * sizeof(u64));
    e[NW] = TT_USED | 0x00ff00ffULL;  /* proven within: never; refuted within: 0 */
    return e;
}

#define TT_GET(e, i) ((int)((e)[NW] >> (8 * (i)) & 0xff))
#define TT_SET(e, i, x) \\
    ((e)[NW] = ((e)[NW] & ~(0xffULL << (8 * (i)))) | ((u64)(x) << (8 * (i))))

static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Fills the sides of question q (0: a win of role us, 1: its loss) at a state whose
   moves are listed by counts: 0 if some role has no move or the joint moves are too
   many. */
static int tactics_sides(int us, const int *counts, int q, Side *attack, Side *defend) {
    int role, total = 1;
    attack->count = defend->count = 0;
    attack->options = defend->options = 1;
    for (role = 0; role < NR; role++) {
        Side *side = (role == us) == (q == 0) ? attack : defend;
        if (counts[role] == 0) return 0;
        side->roles[side->count++] = role;
        side->options *= counts[role];
        total *= counts[role];
        if (total > TACTICS_JOINTS) return 0;
    }
    return 1;
}

/* Adds the moves of option k of side to D (first: each role's first move in moves). */
static void side_moves(const Side *side, int k, const int *counts, const int *first,
                       const int *moves, u64 *D) {
    int i, role, pick;
    for (i = 0; i < side->count; i++) {
        role = side->roles[i];
        pick = moves[first[role] + k % counts[role]];
        k /= counts[role];
        D[pick >> 6] |= 1ULL << (pick & 63);
    }
}

/* The options of side into order, the highest history score (of question q) first. */
static void side_order(const Tactics *t, const Side *side, int q, const int *counts,
                       const int *first, const int *moves, int *order) {
    int64_t score[TACTICS_JOINTS], s;
    int i, j, k, role, pick, o;
    for (o = 0; o < side->options; o++) {
        k = o;
        s = 0;
        for (i = 0; i < side->count; i++) {
            role = side->roles[i];
            pick = moves[first[role] + k % counts[role]];
            k /= counts[role];
            s += t->history[q][pick];
        }
        for (j = o; j > 0 && score[j - 1] < s; j--) {
            score[j] = score[j - 1];
            order[j] = order[j - 1];
        }
        score[j] = s;
        order[j] = o;
    }
}

static void side_credit(Tactics *t, const Side *side, int k, int q, const int *counts,
                        const int *first, const int *moves, int depth) {
    int i, role;
    for (i = 0; i < side->count; i++) {
        role = side->roles[i];
        t->history[q][moves[first[role] + k % counts[role]]] += (int64_t)depth * depth;
        k /= counts[role];
    }
}

/* Whether option k of side may be searched: with touch masks, where one role of the
   side has a choice, its move must touch a fact changed by the last two plies (near,
   null: any move may). */
static int side_near(const Tactics *t, const Side *side, int k, const int *counts,
                     const int *first, const int *moves, const u64 *near) {
    int i, role, choosers = 0, pick = -1, w;
    const u64 *mask;
    if (!t->touch || !near) return 1;
    for (i = 0; i < side->count; i++) {
        role = side->roles[i];
        if (counts[role] > 1) {
            choosers++;
            pick = moves[first[role] + k % counts[role]];
        }
        k /= counts[role];
    }
    if (choosers != 1) return 1;
    mask = t->touch + (long)pick * NW;
    for (w = 0; w < NW; w++)
        if (mask[w] & near[w]) return 1;
    return 0;
}

static int tactics_node(Tactics *t, const u64 *S, int depth, int q, const u64 *last,
                        const u64 *before);

/* Whether question q is proven at the state S (just made) within depth plies: 1, 0,
   or -1 where the search stopped.  last: the facts the ply into S changed; before:
   those the ply before changed (null: not known). */
static int tactics_child(Tactics *t, const u64 *S, int depth, int q, const u64 *last,
                         const u64 *before) {
    unsigned char *v = t->v;  /* TERMINAL reads v */
    int g[NR];
    u64 *e;
    if (depth == 0) eval_terminal(S, v);
    else {
        e = tt_find(t, S, 0);
        if (e) {
            if (TT_GET(e, 2 * q) <= depth) return 1;
            if (TT_GET(e, 2 * q + 1) >= depth) {
                if (TT_GET(e, 2 * q + 1) != TT_EXACT) t->cut = 1;
                return 0;
            }
        }
        eval_step(S, v);
    }
    if (TERMINAL) {
        eval_goal_entries(S, v);
        if (!check_goals(g, v)) {
            t->cut = 1;
            return 0;
        }
        return q == 0 ? g[t->role] == 100 : g[t->role] == 0;
    }
    if (depth == 0) {
        t->cut = 1;
        return 0;
    }
    return tactics_node(t, S, depth, q, last, before);
}

/* Question q at the non-terminal state S within depth >= 1 plies, t->v holding
   eval_step's values for S: 1, 0, or -1 where the search stopped.  A 0 is exact
   (none at any depth) when no refutation under it met a depth limit, a "not proven"
   entry that is not exact, a move left out or a broken rule (t->cut). */
static int tactics_node(Tactics *t, const u64 *S, int depth, int q, const u64 *last,
                        const u64 *before) {
    int counts[NR], first[NR], moves[MOVES_MAX + 1];
    int attack_order[TACTICS_JOINTS], defend_order[TACTICS_JOINTS];
    u64 D[NWI], child[NW], changed[NW], near[NW], *e;
    Side attack, defend;
    int role, a, d, r, w, all, found = 0, outer = t->cut;
    legal_lists(S, counts, moves, t->v);
    if (!tactics_sides(t->role, counts, q, &attack, &defend)) {
        t->cut = 1;
        return 0;
    }
    t->cut = 0;
    first[0] = 0;
    for (role = 1; role < NR; role++) first[role] = first[role - 1] + counts[role - 1];
    side_order(t, &attack, q, counts, first, moves, attack_order);
    side_order(t, &defend, q, counts, first, moves, defend_order);
    if (before)
        for (w = 0; w < NW; w++) near[w] = last[w] | before[w];
    for (a = 0; a < attack.options && !found; a++) {
        if (!side_near(t, &attack, attack_order[a], counts, first, moves, before ? near : 0)) {
            t->cut = 1;
            continue;
        }
        all = 1;
        for (d = 0; d < defend.options; d++) {
            memset(D, 0, sizeof(D));
            side_moves(&attack, attack_order[a], counts, first, moves, D);
            side_moves(&defend, defend_order[d], counts, first, moves, D);
            if (t->nodes >= t->budget) return -1;
            if (++t->nodes % TACTICS_CLOCK == 0 && monotonic_now() >= t->deadline) return -1;
            next_state(S, D, child, t->v);
            for (w = 0; w < NW; w++) changed[w] = child[w] ^ S[w];
            r = tactics_child(t, child, depth - 1, q, changed, last);
            if (r < 0) return -1;
            if (!r) {
                all = 0;
                side_credit(t, &defend, defend_order[d], q, counts, first, moves, depth);
                break;
            }
        }
        if (all) {
            found = 1;
            side_credit(t, &attack, attack_order[a], q, counts, first, moves, depth);
        }
    }
    e = tt_find(t, S, 1);
    if (found) {
        if (TT_GET(e, 2 * q) > depth) TT_SET(e, 2 * q, depth);
        t->cut = outer;  /* a proof is exact, whatever the options refuted before it */
    } else {
        if (!t->cut) TT_SET(e, 2 * q + 1, TT_EXACT);
        else if (TT_GET(e, 2 * q + 1) < depth) TT_SET(e, 2 * q + 1, depth);
        t->cut |= outer;
    }
    return found;
}

int gdl_tactics_entry_words(void) { return TT_WORDS; }

int gdl_tactics(const u64 *S, int role, int max_depth, int64_t budget, double deadline,
                u64 *table, int64_t entries, const u64 *touch, int only, int *wins,
                int *losses, int64_t *info) {
    static __thread Tactics t;
    unsigned char v[NN];
    int counts[NR], first[NR], moves[MOVES_MAX + 1];
    u64 D[NWI], child[NW], changed[NW];
    Side us, others;
    int ours, r, k, d, q, w, depth, done = 0, finished = 0, won, lost, proven, outer;
    memset(&t, 0, sizeof(t));
    t.table = table;
    t.mask = (u64)entries - 1;
    t.role = role;
    t.budget = budget;
    t.deadline = deadline;
    t.v = v;
    t.touch = touch;
    info[0] = info[1] = info[2] = 0;
    if (role < 0 || role >= NR || entries < 1 || (entries & (entries - 1))) return -1;
    if (max_depth > 250) max_depth = 250;
    eval_step(S, v);
    if (TERMINAL) return -1;
    legal_lists(S, counts, moves, v);
    if (!tactics_sides(role, counts, 0, &us, &others)) return -1;
    first[0] = 0;
    for (k = 1; k < NR; k++) first[k] = first[k - 1] + counts[k - 1];
    ours = counts[role];
    if (only >= ours) return -1;
    for (k = 0; k < ours; k++) wins[k] = losses[k] = 0;
    for (depth = 1; depth <= max_depth; depth++) {
        t.cut = 0;
        for (k = 0; k < ours; k++) {
            if (wins[k] || losses[k] || (only >= 0 && k != only)) continue;
            for (q = 0; q < 2; q++) {
                outer = t.cut;
                t.cut = 0;
                proven = !q;  /* a win against every joint move of the others, a loss by one */
                for (d = 0; d < others.options; d++) {
                    memset(D, 0, sizeof(D));
                    D[moves[first[role] + k] >> 6] |= 1ULL << (moves[first[role] + k] & 63);
                    side_moves(&others, d, counts, first, moves, D);
                    if (t.nodes >= t.budget) goto stopped;
                    if (++t.nodes % TACTICS_CLOCK == 0 && monotonic_now() >= t.deadline)
                        goto stopped;
                    next_state(S, D, child, v);
                    for (w = 0; w < NW; w++) changed[w] = child[w] ^ S[w];
                    r = tactics_child(&t, child, depth - 1, q, changed, 0);
                    if (r < 0) goto stopped;
                    if (r != q) continue;  /* a win, go on; not a loss, try another */
                    proven = q;
                    break;
                }
                if (proven) {
                    if (q == 0) wins[k] = depth;
                    else losses[k] = depth;
                    t.cut = outer;
                    break;
                }
                t.cut |= outer;
            }
        }
        done = depth;
        if (!t.cut) break;  /* every line ended within depth: deeper proves nothing more */
        won = lost = 0;
        for (k = 0; k < ours; k++) {
            won += wins[k] > 0;
            lost += losses[k] > 0;
        }
        if (won || lost == (only >= 0 ? 1 : ours)) break;
    }
    finished = 1;
stopped:
    info[0] = t.nodes;
    info[1] = done;
    info[2] = finished;
    return ours;
}
"""
)
"""The tactical search (`gdl_tactics`), after the runtime of `ggp.gdl.native.csource`."""
