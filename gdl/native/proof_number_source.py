"""C source for a proof-number search of one move's forced loss, added to every game's library.

Fixed text (no symbol of a game enters it), appended after the tactics
(`ggp.gdl.native.tactics_source`), whose sides, clock and joint-move limit it uses.
The tactics deepen one ply at a time over every line, so the plies they prove within
are few where many moves are legal (7 to 9 on Breakthrough in two seconds).  A
forced line is often narrow (the defender has one reply that does not lose at once),
and depth-first proof-number search (df-pn; Nagai 2002, as in Kishimoto, Winands,
Müller and Saito's survey "Game-tree search using proof numbers", ICGA Journal 2012)
follows such lines as deep as they go, guided by how many leaves remain to be proven:

- ``gdl_pn_loss(S, role, only, max_ply, budget, deadline, table, entries, arena,
  arena_words, info)``: whether, at the non-terminal state ``S``, after ``role``'s move at position
  ``only`` in its list (``gdl_legal``'s order) the other roles (together, with their
  moves at the same time) can force ``role``'s goal to 0.  Returns 1 proven, 0 not
  proven (the search ended: disproven, or out of its reach), -1 not known when it
  stopped (``budget`` successor states made, or at ``deadline``, seconds of
  ``CLOCK_MONOTONIC``), -2 where nothing can be searched
  (``S`` terminal, a role without moves, too many joint moves, ``only`` not a move of
  ``role``).  ``info`` gets the states made and, where proven, the plies of the proof
  found (an upper bound of the fewest: df-pn finds a proof, not the shortest).
- ``table``: ``entries`` (a power of two) entries of ``gdl_pn_entry_words()`` words,
  zeroed before first use and kept from call to call by the caller (one role, this
  question): a state, its proof and disproof numbers, the plies of its proof.
- ``arena``: ``arena_words`` words the search keeps the successors of the states on
  its path in.

A state is an OR node for the attacker (the other roles: one good joint move of
theirs is enough) over its options, each an AND node over the defender's (every
move of ``role`` at the same time must lose), as `ggp.player.search.tactics` asks
its loss question; where one side has no choice its level is a single option.
Proof number of a state: the least, over the attacker's options, of the sum of
its successors'; disproof number: the sum, over the options, of the least of its
successors'.  A terminal state is proven where ``role``'s goal is 0, else
disproven (broken goals too).  Every game is finite, so the states reachable form
no cycle; a path longer than ``max_ply`` (at most ``PN_MAX_PLY``: the caller bounds
the recursion's stack, `ggp.gdl.native.tactics.deepest`) or an arena too small counts as
disproven there, which loses proofs but never makes one: whatever is proven is.
"""

from __future__ import annotations

PN_DECLARATIONS = """
int gdl_pn_loss(const uint64_t *S, int role, int only, int max_ply, int64_t budget,
                double deadline, uint64_t *table, int64_t entries, uint64_t *arena,
                int64_t arena_words, int64_t *info);
int gdl_pn_entry_words(void);
"""
"""What the library exports for the proof-number search (cffi's ``cdef``)."""

PN_RUNTIME = """
#define PN_INF 0x3fffffffU  /* a proof or disproof number that is never reached */
/* Words of a state with its numbers and the plies of its proof: a table entry, or a
   successor in the arena. */
#define PN_WORDS (NW + 2)
#define PN_USED (1ULL << 63)
#define PN_PROBES 4
#define PN_MAX_PLY 250

typedef struct {
    u64 *table;
    u64 mask;
    int role;
    int64_t nodes, budget;
    double deadline;
    int stopped, max_ply;
    unsigned char *v;
    u64 *arena;
    int64_t arena_words, arena_used;
} Pn;

static u32 pn_add(u32 a, u32 b) {
    u64 s = (u64)a + b;
    return s >= PN_INF ? PN_INF : (u32)s;
}

/* The threshold a child gets against its best sibling's number x: x + 1, or x and a
   quarter where that is more (Pawlewicz and Lew's 1 + epsilon trick, which saves most
   of df-pn's returns to the parent and new expansions of it). */
static u32 pn_beyond(u32 x) { return pn_add(x, x / 4 > 1 ? x / 4 : 1); }

/* The entry of state S, or 0; with create, a new one holding proof and disproof
   numbers 1 (the first probed slot replaced when all are taken). */
static u64 *pn_find(Pn *t, const u64 *S, int create) {
    u64 h = tt_hash(S), *e;
    int p;
    for (p = 0; p < PN_PROBES; p++) {
        e = t->table + ((h + p) & t->mask) * PN_WORDS;
        if (!(e[NW + 1] & PN_USED)) break;
        if (memcmp(e, S, NW * sizeof(u64)) == 0) return e;
    }
    if (!create) return 0;
    if (p == PN_PROBES) e = t->table + (h & t->mask) * PN_WORDS;
    memcpy(e, S, NW * sizeof(u64));
    e[NW] = (1ULL << 32) | 1ULL;
    e[NW + 1] = PN_USED;
    return e;
}

/* A successor's numbers and plies (K: its arena words, after its state), and the
   table's entry for it. */
#define KID_PN(K) ((u32)((K)[NW] >> 32))
#define KID_DN(K) ((u32)(K)[NW])
static void pn_set(Pn *t, u64 *K, u32 pn, u32 dn, int plies, int store) {
    u64 *e;
    K[NW] = ((u64)pn << 32) | dn;
    K[NW + 1] = (u64)(plies > 255 ? 255 : plies);
    if (!store) return;
    e = pn_find(t, K, 1);
    e[NW] = K[NW];
    e[NW + 1] = PN_USED | K[NW + 1];
}

/* The numbers of the successor K just made: the table's, else a new leaf's: a
   terminal one's by its goals; else 1 to prove and, to disprove, the attacker's
   options, where the attacker chooses, or the defender's options to prove and 1 to
   disprove where the defender does (df-pn+'s mobility: each option is a child to
   refute). */
static void pn_leaf(Pn *t, u64 *K) {
    int g[NR], counts[NR], moves[MOVES_MAX + 1];
    Side attack, defend;
    unsigned char *v = t->v;  /* TERMINAL reads v */
    u64 *e = pn_find(t, K, 0);
    if (e) {
        K[NW] = e[NW];
        K[NW + 1] = e[NW + 1] & 0xff;
        return;
    }
    eval_step(K, v);
    if (TERMINAL) {
        eval_goal_entries(K, v);
        if (check_goals(g, v) && g[t->role] == 0) pn_set(t, K, 0, PN_INF, 0, 1);
        else pn_set(t, K, PN_INF, 0, 0, 1);  /* broken goals: nothing proven there */
        return;
    }
    legal_lists(K, counts, moves, v);
    if (!tactics_sides(t->role, counts, 1, &attack, &defend)) pn_set(t, K, 1, 1, 0, 1);
    else if (attack.options > 1) pn_set(t, K, 1, (u32)attack.options, 0, 1);
    else pn_set(t, K, (u32)defend.options, 1, 0, 1);
}

/* x joined to a total by weak numbers (Ueda, Hashimoto, Hashimoto and Iida, "Weak
   proof-number search", CG 2008): the most of them, plus one for every other one not
   0, where summing counts the subtrees that transpositions share again and again
   (Breakthrough's moves reach one state in many orders); open counts the nonzero. */
static u32 pn_weak(u32 total, u32 x, int *open) {
    if (x == 0) return total;
    if (x >= PN_INF || total >= PN_INF) return PN_INF;
    (*open)++;
    if (*open == 1) return x;
    return x > total - (u32)(*open - 2) ? pn_add(x, (u32)(*open - 1))
                                        : pn_add(total, 1);
}

/* The numbers of the attacker's option a at a node (kids, its successors' arena words,
   defenders of the defender's options): its proof number (weak, over the defender's
   options: `pn_weak`; unsolved gets how many are not proven), its disproof number
   (the least of theirs; at best_d, the next least at dn2), and the most plies of their
   proofs. */
static u32 pn_and(const u64 *kids, int a, int defenders, int *unsolved, u32 *delta,
                  int *best_d, u32 *dn2, int *most) {
    const u64 *kid;
    u32 phi = 0;
    int d;
    *unsolved = 0, *delta = PN_INF, *dn2 = PN_INF, *best_d = 0, *most = 0;
    for (d = 0; d < defenders; d++) {
        kid = kids + (long)(a * defenders + d) * PN_WORDS;
        phi = pn_weak(phi, KID_PN(kid), unsolved);
        if (KID_DN(kid) < *delta) *dn2 = *delta, *delta = KID_DN(kid), *best_d = d;
        else if (KID_DN(kid) < *dn2) *dn2 = KID_DN(kid);
        if ((int)kid[NW + 1] > *most) *most = (int)kid[NW + 1];
    }
    return phi;
}

/* Searches the non-terminal state in the arena words K (a successor: its numbers
   there too, and in the table, unless only >= 0: then K is the root, where role plays
   the move of position only in its list alone) at ply plies from the root, until its
   proof number reaches thpn or its disproof number thdn, it is proven or disproven, or
   the search stops. */
static void pn_mid(Pn *t, u64 *K, u32 thpn, u32 thdn, int ply, int only) {
    int counts[NR], first[NR], moves[MOVES_MAX + 1];
    u64 D[NWI], *kids, *kid;
    Side attack, defend;
    int role, a, d, i, n, best, best_d, plies, most, unsolved, open, store = only < 0;
    u32 pn, dn, phi, delta, second, dn2, th_a_pn, th_a_dn;
    eval_step(K, t->v);
    legal_lists(K, counts, moves, t->v);
    if (only >= 0) {  /* the root: role's move only, alone */
        for (role = 0, i = 0; role < t->role; role++) i += counts[role];
        moves[i] = moves[i + only];
        memmove(moves + i + 1, moves + i + counts[t->role],
                sizeof(int) * (size_t)(MOVES_MAX + 1 - i - counts[t->role]));
        counts[t->role] = 1;
    }
    if (ply >= t->max_ply || !tactics_sides(t->role, counts, 1, &attack, &defend) ||
        t->arena_words - t->arena_used < (int64_t)attack.options * defend.options * PN_WORDS) {
        pn_set(t, K, PN_INF, 0, 0, store);  /* out of reach: disproven here, never proven */
        return;
    }
    first[0] = 0;
    for (role = 1; role < NR; role++) first[role] = first[role - 1] + counts[role - 1];
    n = attack.options * defend.options;
    kids = t->arena + t->arena_used;
    t->arena_used += (int64_t)n * PN_WORDS;
    for (i = 0; i < n; i++) {
        memset(D, 0, sizeof(D));
        side_moves(&attack, i / defend.options, counts, first, moves, D);
        side_moves(&defend, i % defend.options, counts, first, moves, D);
        if (t->nodes >= t->budget ||
            (++t->nodes % TACTICS_CLOCK == 0 && monotonic_now() >= t->deadline)) {
            t->stopped = 1;
            t->arena_used -= (int64_t)n * PN_WORDS;
            return;
        }
        kid = kids + (long)i * PN_WORDS;
        next_state(K, D, kid, t->v);
        pn_leaf(t, kid);
    }
    for (;;) {
        /* the numbers of K, and the attacker's option of the least proof number */
        pn = PN_INF, second = PN_INF, best = 0, plies = 0, dn = 0, open = 0;
        for (a = 0; a < attack.options; a++) {
            phi = pn_and(kids, a, defend.options, &unsolved, &delta, &d, &dn2, &most);
            dn = pn_weak(dn, delta, &open);
            if (phi < pn) {
                second = pn, pn = phi, best = a;
                if (phi == 0) plies = most + 1;
            } else if (phi < second) {
                second = phi;
            }
        }
        if (pn == 0 || dn == 0 || pn >= thpn || dn >= thdn || t->stopped) break;
        /* into option best, an AND node over the defender's options, with thresholds
           past which K's numbers reach thpn or thdn (weak numbers: `pn_weak`) */
        th_a_pn = thpn < pn_beyond(second) ? thpn : pn_beyond(second);
        th_a_dn = thdn - (u32)(open - 1);
        for (;;) {
            phi = pn_and(kids, best, defend.options, &unsolved, &delta, &best_d, &dn2, &most);
            if (phi == 0 || delta == 0 || phi >= th_a_pn || delta >= th_a_dn || t->stopped)
                break;
            kid = kids + (long)(best * defend.options + best_d) * PN_WORDS;
            pn_mid(t, kid, th_a_pn - (u32)(unsolved - 1),
                   th_a_dn < pn_beyond(dn2) ? th_a_dn : pn_beyond(dn2), ply + 1, -1);
        }
    }
    t->arena_used -= (int64_t)n * PN_WORDS;
    if (t->stopped) return;  /* K keeps its numbers from before */
    pn_set(t, K, pn, dn, pn == 0 ? plies : 0, store);
}

int gdl_pn_entry_words(void) { return PN_WORDS; }

int gdl_pn_loss(const u64 *S, int role, int only, int max_ply, int64_t budget,
                double deadline, u64 *table, int64_t entries, u64 *arena,
                int64_t arena_words, int64_t *info) {
    static __thread Pn t;
    unsigned char v[NN];
    int counts[NR], moves[MOVES_MAX + 1];
    u64 *root;
    Side attack, defend;
    memset(&t, 0, sizeof(t));
    info[0] = info[1] = 0;
    if (role < 0 || role >= NR || entries < 1 || (entries & (entries - 1))) return -2;
    if (arena_words < PN_WORDS || max_ply < 1) return -2;
    t.max_ply = max_ply < PN_MAX_PLY ? max_ply : PN_MAX_PLY;
    t.table = table;
    t.mask = (u64)entries - 1;
    t.role = role;
    t.budget = budget;
    t.deadline = deadline;
    t.v = v;
    t.arena = arena;
    t.arena_words = arena_words;
    eval_step(S, v);
    if (TERMINAL) return -2;
    legal_lists(S, counts, moves, v);
    if (!tactics_sides(role, counts, 1, &attack, &defend)) return -2;
    if (only < 0 || only >= counts[role]) return -2;
    root = arena;
    memcpy(root, S, NW * sizeof(u64));
    pn_set(&t, root, 1, 1, 0, 0);
    t.arena_used = PN_WORDS;
    pn_mid(&t, root, PN_INF, PN_INF, 0, only);
    info[0] = t.nodes;
    if (KID_PN(root) == 0) {
        info[1] = (int64_t)root[NW + 1];
        return 1;
    }
    if (t.stopped) return -1;
    return KID_DN(root) == 0 ? 0 : -1;
}
"""
"""The proof-number search (`gdl_pn_loss`), after `ggp.gdl.native.tactics_source`'s."""
