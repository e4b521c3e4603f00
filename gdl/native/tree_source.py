"""C source for the search's tree loop, added to every game's native library.

Fixed text (no symbol of a game enters it), appended after `ggp.gdl.native.csource`'s
runtime, whose functions it calls (the step, the legal moves, the next state, the
goals and the playouts).  It runs `ggp.player.search.mcts.MCTS`'s iterations (select,
expand, step, evaluate, back up) over a tree held in flat arrays, for the search
`ggp.gdl.native.tree.NativeTree` describes: UCT where at most one role has a choice
at a node, and decoupled UCT where several do (each role chooses its own move by its
own statistics, an edge per joint move: ``t->joint`` of them at most, else such a node
is left to the Python tree), with the solver's proofs, implicit minimax, the heuristic
prior (a learnt evaluation of fact counts; neither at nodes where several choose), a
node cap, random, greedy or decisive playouts, and with ``t->transpose`` the tree a
graph (`MCTS` ``transpose``: a new edge to a state held at the same depth leads to its
node, found in an open-addressing table of every node by depth and state).  It
draws from Python's own Mersenne Twister state (``random.Random.getstate``: 624
words and the index of the next), exactly as the Python search draws, so that a
seed's search is the same on either side.

- ``gdl_tree_new()`` / ``gdl_tree_free(t)``: an empty tree.
- ``gdl_tree_reset(t, S)``: the tree holds the one node of state ``S`` (0; -1 where
  the rules break in its goals).
- ``gdl_tree_expand(t, node, mt)``: the node's legal moves, shuffled as
  `ggp.player.search.tree.Node.expand` shuffles them (0; 1 where several roles have
  a choice and their joint moves are more than ``t->joint``, nothing drawn; 3 where
  the node cap leaves no room for their edges, nothing drawn: the node stays a leaf;
  -1 where a role has no move).
- ``gdl_tree_search(t, mt, iterations, limits, out)``: iterations until
  `iterations` (-1: any) are done or the root is proven, or until a limit (-1:
  none): ``limits[0]`` seconds have passed on the monotonic clock, ``limits[1]``
  on the calling thread's CPU clock, or, with ``limits[2]``, until an iteration as
  slow as the slowest so far (``limits[3]``, seconds, updated) would end after
  ``limits[2]`` seconds.  Returns the iterations done.  ``out``: why it stopped
  (0 done; 1 a node where several roles choose is to be expanded, nothing of that
  iteration done; 2 the rules broke, with ``stop_on_broken``: the state where they
  broke in ``t->fail``), the iterations in which the rules broke, the playouts run,
  the iterations that ended on a node already proven (no leaf evaluated).
- ``gdl_tree_reroot(t, node)``: the subtree of `node` alone is kept, `node` the root
  (0); nodes are renumbered in the order of a depth-first walk (a graph's node reached
  by several paths copied once).
"""

from __future__ import annotations

TREE_STRUCTS = """
typedef struct {
    int visits, slots, edges, chooser, moves, decisive, untried, flags, dims, depth;
} TNode;
typedef struct { int input, count; double sum; } TSlot;
typedef struct { int child, allowed; double imm; } TEdge;
typedef struct {
    int n, cap, nslots, scap, nedges, ecap, depth_cap, ndims, dcap, joint_edges;
    TNode *node;
    uint64_t *word;
    double *val;  /* per node: imm, lower, upper (NR each) */
    TSlot *slot;
    TEdge *edge;
    int *dim;  /* per joint node: each role's moves, its untried, its moves' allowed */
    int *path, *path_move, *goals, *steps, goals_cap;
    unsigned char *v;
    uint64_t *fail;
    double c, alpha;
    int imm, prior, solver, batch, greedy, safe, max_nodes, stop_on_broken, features, guide;
    int joint;  /* at most this many joint moves at a node where several roles choose */
    int bounded;  /* score-bounded (MCTS bounded) */
    int transpose;  /* a graph: a state reached again at the same depth is one node */
    int *table, tcap, tcount;  /* with transpose: every node, hashed by depth and state */
    const uint64_t *masks;
    const double *weights;
    const uint64_t *finish;  /* the input bits looked at for wins, or 0: every move */
} Tree;
"""
"""The tree's layout, the same text for cffi's ``cdef`` and the C runtime."""

TREE_DECLARATIONS = (
    TREE_STRUCTS
    + """
Tree *gdl_tree_new(void);
void gdl_tree_free(Tree *t);
int gdl_tree_reset(Tree *t, const uint64_t *S);
int gdl_tree_expand(Tree *t, int node, uint32_t *mt);
int gdl_tree_search(Tree *t, uint32_t *mt, int iterations, double *limits, int64_t *out);
int gdl_tree_reroot(Tree *t, int node);
"""
)
"""What the library exports for the tree loop (cffi's ``cdef``)."""

TREE_RUNTIME = (
    """
#include <stdlib.h>
#include <math.h>
#include <time.h>
#ifdef __clang__
#pragma clang fp contract(off)
#endif

"""
    + TREE_STRUCTS
    + """
#define T_TERMINAL 1
#define T_BOUNDS 2
#define T_PROVEN 4
#define T_ALLOWED 8
#define T_IMM_MOVES 16
#define T_EXPANDED 32
#define T_JOINT 64
#define T_FULL 3
#define JOINT_MOVES 4096  /* at most, at a joint node */
#define JOINT_EDGES 8  /* a node cap of n holds the edges of joint nodes up to 8 n */
#define T_BROKEN (-1)
#define T_SEVERAL 1
#define IMM(t, n) ((t)->val + (size_t)(n) * 3 * NR)
#define LOWER(t, n) ((t)->val + (size_t)(n) * 3 * NR + NR)
#define UPPER(t, n) ((t)->val + (size_t)(n) * 3 * NR + 2 * NR)

/* Python's genrand_uint32 on its own layout (the words, then the index of the next). */
static u32 py_next(u32 *mt) {
    u32 y;
    int i;
    if (mt[624] >= 624) {
        for (i = 0; i < 624; i++) {
            y = (mt[i] & 0x80000000u) | (mt[i == 623 ? 0 : i + 1] & 0x7fffffffu);
            mt[i] = mt[i < 227 ? i + 397 : i - 227] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
        }
        mt[624] = 0;
    }
    y = mt[mt[624]++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* random.Random._randbelow(n) by getrandbits, as tree.shuffle draws. */
static int py_below(u32 *mt, int n) {
    int k = 0;
    u32 r;
    while ((n >> k) != 0) k++;
    do r = py_next(mt) >> (32 - k); while (r >= (u32)n);
    return (int)r;
}

static int tree_grow(void **p, int *cap, int need, size_t size) {
    void *q;
    int c = *cap;
    if (need <= c) return 1;
    while (c < need) c = c ? 2 * c : 1024;
    q = realloc(*p, (size_t)c * size);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

Tree *gdl_tree_new(void) {
    Tree *t = calloc(1, sizeof(Tree));
    if (!t) return 0;
    t->v = malloc(NN);
    t->fail = malloc(sizeof(u64) * NW);
    if (!t->v || !t->fail) {
        free(t->v);
        free(t->fail);
        free(t);
        return 0;
    }
    return t;
}

void gdl_tree_free(Tree *t) {
    if (!t) return;
    free(t->node);
    free(t->word);
    free(t->val);
    free(t->slot);
    free(t->edge);
    free(t->dim);
    free(t->path);
    free(t->path_move);
    free(t->goals);
    free(t->steps);
    free(t->v);
    free(t->fail);
    free(t->table);
    free(t);
}

/* Room for one more node (the word and value arrays follow the node array's size). */
static int room_for_node(Tree *t) {
    int cap = t->cap, wcap = t->cap, vcap = t->cap;
    if (t->n < t->cap) return 1;
    if (!tree_grow((void **)&t->node, &cap, t->n + 1, sizeof(TNode))) return 0;
    if (!tree_grow((void **)&t->word, &wcap, t->n + 1, sizeof(u64) * NW)) return 0;
    if (!tree_grow((void **)&t->val, &vcap, t->n + 1, sizeof(double) * 3 * NR)) return 0;
    t->cap = cap;
    return 1;
}

/* The learnt evaluation of S (heuristic.Heuristic.value_of_bits, the same sums in
   the same order) into out. */
static void tree_evaluate(const Tree *t, const u64 *S, double *out) {
    Guide g = {0, t->features, t->masks, t->weights};
    int r;
    for (r = 0; r < NR; r++) out[r] = guide_value(&g, S, r);
}

/* The hash of depth and state S (splitmix64's finalizer over the words). */
static u64 state_hash(const u64 *S, int depth) {
    u64 h = 0x9e3779b97f4a7c15ULL * (u64)(unsigned)(depth + 1);
    int i;
    for (i = 0; i < NW; i++) {
        h ^= S[i];
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebULL;
        h ^= h >> 31;
    }
    return h;
}

/* The node of state S at depth, or -1 (with transpose). */
static int table_find(const Tree *t, const u64 *S, int depth) {
    u64 i;
    int node;
    if (t->tcap == 0) return -1;
    for (i = state_hash(S, depth) & (u64)(t->tcap - 1);; i = (i + 1) & (u64)(t->tcap - 1)) {
        node = t->table[i];
        if (node < 0) return -1;
        if (t->node[node].depth == depth &&
            memcmp(t->word + (size_t)node * NW, S, sizeof(u64) * NW) == 0)
            return node;
    }
}

static void table_put(Tree *t, int node) {
    u64 i = state_hash(t->word + (size_t)node * NW, t->node[node].depth) & (u64)(t->tcap - 1);
    while (t->table[i] >= 0) i = (i + 1) & (u64)(t->tcap - 1);
    t->table[i] = node;
    t->tcount++;
}

/* The table of every node the tree holds, at least twice their number in slots (0;
   -2 without memory). */
static int table_rebuild(Tree *t) {
    int cap = 1024, i;
    int *table;
    while (cap < 2 * (t->n + 1)) cap *= 2;
    if (cap != t->tcap) {
        table = realloc(t->table, sizeof(int) * (size_t)cap);
        if (!table) return -2;
        t->table = table;
        t->tcap = cap;
    }
    for (i = 0; i < cap; i++) t->table[i] = -1;
    t->tcount = 0;
    for (i = 0; i < t->n; i++) table_put(t, i);
    return 0;
}

/* Node n, just made, into the table (0; -2 without memory). */
static int table_add(Tree *t, int n) {
    if (2 * (t->tcount + 1) > t->tcap) return table_rebuild(t);
    table_put(t, n);
    return 0;
}

/* A new node of state S at depth (its goals and value): its index, or -1 where the
   rules break in its goals, -2 without memory. */
static int new_node(Tree *t, const u64 *S, int depth) {
    int n = t->n, g[NR], r;
    TNode *x;
    double *lower;
    unsigned char *v = t->v;  /* TERMINAL reads v */
    if (!room_for_node(t)) return -2;
    x = &t->node[n];
    memset(x, 0, sizeof(TNode));
    x->slots = x->edges = x->dims = -1;
    x->chooser = -1;
    x->decisive = -1;
    x->depth = depth;
    memcpy(t->word + (size_t)n * NW, S, sizeof(u64) * NW);
    eval_terminal(S, t->v);
    lower = LOWER(t, n);
    if (TERMINAL) {
        eval_goal_entries(S, t->v);
        if (!check_goals(g, t->v)) {
            memcpy(t->fail, S, sizeof(u64) * NW);
            return -1;
        }
        for (r = 0; r < NR; r++) lower[r] = UPPER(t, n)[r] = IMM(t, n)[r] = g[r] * 0.01;
        x->flags = T_TERMINAL | T_BOUNDS | T_PROVEN;
    } else if (t->imm) tree_evaluate(t, S, IMM(t, n));
    t->n = n + 1;
    if (t->transpose && table_add(t, n) < 0) return -2;
    return n;
}

int gdl_tree_reset(Tree *t, const u64 *S) {
    int i;
    t->n = t->nslots = t->nedges = t->ndims = t->joint_edges = 0;
    t->tcount = 0;
    for (i = 0; i < t->tcap; i++) t->table[i] = -1;
    return new_node(t, S, 0) == 0 ? 0 : -1;
}

/* A joint node's block in t->dim: each role's moves (NR), the next untried move of
   each (NR), then per role per move whether the solver allows it. */
#define DIMS(t, x) ((t)->dim + (x)->dims)

/* The slot of role r's move i at node x (one slot a role without a choice). */
static TSlot *slot_of(Tree *t, const TNode *x, int r, int i) {
    if (x->flags & T_JOINT) {
        const int *d = DIMS(t, x);
        int s = x->slots + i, q;
        for (q = 0; q < r; q++) s += d[q];
        return &t->slot[s];
    }
    if (r < x->chooser) return &t->slot[x->slots + r];
    if (r == x->chooser) return &t->slot[x->slots + r + i];
    return &t->slot[x->slots + r + x->moves - 1];
}

int gdl_tree_expand(Tree *t, int node, u32 *mt) {
    int counts[NR], moves[MOVES_MAX + 1];
    int r, start = 0, chooser = -1, several = 0, joints = 1, k = 1, i, j, swap, s, e, *d;
    TNode *x;
    eval_step(t->word + (size_t)node * NW, t->v);
    legal_lists(t->word + (size_t)node * NW, counts, moves, t->v);
    for (r = 0; r < NR; r++) {
        if (counts[r] == 0) return T_BROKEN;
        if (counts[r] > 1) {
            if (chooser >= 0) several = 1;
            else chooser = r;
        }
    }
    if (several) {  /* decoupled UCT: an edge per joint move, each role its own slots */
        for (r = 0; r < NR; r++) {
            if (joints > t->joint / counts[r] || joints > JOINT_MOVES / counts[r]) return T_SEVERAL;
            joints *= counts[r];
        }
        if (t->max_nodes > 0 && t->joint_edges + joints > JOINT_EDGES * (double)t->max_nodes)
            return T_FULL;
        if (!tree_grow((void **)&t->dim, &t->dcap, t->ndims + 2 * NR + MOVES_MAX, sizeof(int)))
            return -2;
        chooser = -1;
    }
    if (!tree_grow((void **)&t->slot, &t->scap, t->nslots + NR + MOVES_MAX, sizeof(TSlot)))
        return -2;
    if (!tree_grow((void **)&t->edge, &t->ecap, t->nedges + MOVES_MAX + joints, sizeof(TEdge)))
        return -2;
    x = &t->node[node];
    x->chooser = chooser;
    s = x->slots = t->nslots;
    e = x->edges = t->nedges;
    if (several) {
        x->dims = t->ndims;
        x->flags |= T_JOINT;
        d = DIMS(t, x);
        for (r = 0; r < NR; r++) {
            d[r] = counts[r];
            d[NR + r] = 0;
        }
        t->ndims += 2 * NR;
        for (r = 0; r < NR; r++)
            for (i = 0; i < counts[r]; i++) t->dim[t->ndims++] = 1;
        k = joints;
        t->joint_edges += joints;
    }
    for (r = 0; r < NR; r++) {
        if (several || r == chooser) {
            if (!several) k = counts[r];
            for (i = counts[r] - 1; i > 0; i--) {  /* tree.shuffle */
                j = py_below(mt, i + 1);
                swap = moves[start + i];
                moves[start + i] = moves[start + j];
                moves[start + j] = swap;
            }
        }
        for (i = 0; i < counts[r]; i++) {
            t->slot[s].input = moves[start + i];
            t->slot[s].count = 0;
            t->slot[s++].sum = 0.0;
        }
        start += counts[r];
    }
    x->moves = k;
    for (i = 0; i < k; i++) {
        t->edge[e + i].child = -1;
        t->edge[e + i].allowed = 1;
        t->edge[e + i].imm = -1.0;
    }
    t->nslots = s;
    t->nedges = e + k;
    x->untried = 0;
    x->flags |= T_EXPANDED;
    return 0;
}

/* Role r's move at the joint node x (MCTS._choose): untried first, then UCB1. */
static int tree_choose_role(const Tree *t, TNode *x, int r) {
    int *d = DIMS(t, x), k = d[r], i, best = -1, n, q;
    int *untried = d + NR + r, *allowed = d + 2 * NR;
    const TSlot *slot = t->slot + x->slots;
    double explore, value, top = 0.0;
    for (q = 0; q < r; q++) {
        allowed += d[q];
        slot += d[q];
    }
    if (x->flags & T_ALLOWED)
        while (*untried < k && !allowed[*untried]) (*untried)++;
    if (*untried < k) return (*untried)++;
    explore = t->c * sqrt(log((double)x->visits));
    for (i = 0; i < k; i++) {
        if ((x->flags & T_ALLOWED) && !allowed[i]) continue;
        n = slot[i].count;
        value = (n ? slot[i].sum / (double)n : 0.0) + explore / sqrt((double)n);
        if (best < 0 || value > top) {
            best = i;
            top = value;
        }
    }
    return best;
}

/* Role r's move in edge i of node x: at a joint node the roles' moves in mixed radix,
   the last role's fastest (the order of itertools.product). */
static int move_of(const Tree *t, const TNode *x, int i, int r) {
    const int *d;
    int q;
    if (!(x->flags & T_JOINT)) return r == x->chooser ? i : 0;
    d = DIMS(t, x);
    for (q = NR - 1; q > r; q--) i /= d[q];
    return i % d[r];
}

/* MCTS._choose for the node's one chooser (0 where no role has a choice); at a joint
   node (MCTS._choose_joint) each role with a choice chooses its own: the joint edge. */
static int tree_choose(const Tree *t, TNode *x) {
    int k = x->moves, i, best = -1, n, r, code = 0, open;
    const TEdge *edge = t->edge + x->edges;
    const TSlot *slot;
    double explore, base, mean, value, top = 0.0, v;
    if (x->flags & T_JOINT) {
        for (r = 0; r < NR; r++) {
            k = DIMS(t, x)[r];
            code = code * k + (k > 1 ? tree_choose_role(t, x, r) : 0);
        }
        return code;
    }
    if (x->chooser < 0) return 0;
    if (x->decisive >= 0) return x->decisive;
    if (x->flags & T_ALLOWED)
        while (x->untried < k && !edge[x->untried].allowed) x->untried++;
    if (x->untried < k) return x->untried++;
    explore = t->c * sqrt(log((double)x->visits));
    slot = t->slot + x->slots + x->chooser;
    open = 0;
    if (t->bounded && (x->flags & T_BOUNDS))  /* mcts._open_moves */
        for (i = 0; i < k && !open; i++)
            open = (!(x->flags & T_ALLOWED) || edge[i].allowed) &&
                   (edge[i].child < 0 || !(t->node[edge[i].child].flags & T_PROVEN));
    for (i = 0; i < k; i++) {
        if ((x->flags & T_ALLOWED) && !edge[i].allowed) continue;
        if (open && edge[i].child >= 0 && (t->node[edge[i].child].flags & T_PROVEN)) continue;
        n = slot[i].count;
        if (x->flags & T_IMM_MOVES) {
            if (n == 0) base = 0.0;
            else {
                mean = slot[i].sum / (double)n;
                v = edge[i].imm;
                base = (1.0 - t->alpha) * mean + t->alpha * (v >= 0 ? v : mean);
            }
        } else base = n ? slot[i].sum / (double)n : 0.0;
        value = base + explore / sqrt((double)n);
        if (best < 0 || value > top) {
            best = i;
            top = value;
        }
    }
    return best;
}

/* solver.prove at a joint node (every joint move's child known, or no bounds): per
   role, the best of its moves' worst cases and the least of the others' joint moves'
   best cases; a role's moves that can only do worse than another are not allowed. */
static void joint_bounds(Tree *t, TNode *x, double *lower, double *upper) {
    int *d = DIMS(t, x), *allowed = d + 2 * NR, k = x->moves, r, q, i, o, j, child, count;
    int stride, others;
    double lows[MOVES_MAX + 1], highs[MOVES_MAX + 1], columns[JOINT_MOVES], lo, up, best;
    const TEdge *edge = t->edge + x->edges;
    for (r = 0; r < NR; r++) {
        lower[r] = 0.0;
        upper[r] = 1.0;
    }
    for (i = 0; i < k; i++)
        if (edge[i].child < 0) return;
    for (r = 0; r < NR; r++) {
        stride = 1;  /* between two moves of r in the edges' order */
        for (q = r + 1; q < NR; q++) stride *= d[q];
        others = k / d[r];
        for (i = 0; i < d[r]; i++) lows[i] = 1.0, highs[i] = 0.0;
        for (o = 0; o < others; o++) columns[o] = 0.0;
        for (j = 0; j < k; j++) {
            child = edge[j].child;
            if (!(t->node[child].flags & T_BOUNDS)) lo = 0.0, up = 1.0;
            else lo = LOWER(t, child)[r], up = UPPER(t, child)[r];
            i = move_of(t, x, j, r);
            if (lo < lows[i]) lows[i] = lo;
            if (up > highs[i]) highs[i] = up;
            o = j / (stride * d[r]) * stride + j % stride;  /* the others' joint move */
            if (up >= columns[o]) columns[o] = up;
        }
        best = lows[0];
        for (i = 1; i < d[r]; i++)
            if (lows[i] > best) best = lows[i];
        lower[r] = best;
        upper[r] = columns[0];
        for (o = 1; o < others; o++)
            if (columns[o] < upper[r]) upper[r] = columns[o];
        if (d[r] > 1) {  /* solver.allowed_moves */
            count = 0;
            for (i = 0; i < d[r]; i++) {
                allowed[i] = highs[i] > best || (lows[i] == best && best > 0.0);
                count += allowed[i];
            }
            if (count > 0 && count < d[r]) x->flags |= T_ALLOWED;
            else for (i = 0; i < d[r]; i++) allowed[i] = 1;
        }
        allowed += d[r];
    }
}

/* solver.maxn_bounds where several roles choose, or none: the vector every child is
   proven with, if all are, into lower and upper. */
static void maxn_joint(Tree *t, TNode *x, double *lower, double *upper) {
    const TEdge *edge = t->edge + x->edges;
    int i, child, first = -1;
    for (i = 0; i < x->moves; i++) {
        child = edge[i].child;
        if (child < 0 || !(t->node[child].flags & T_PROVEN)) return;
        if (first < 0) first = child;
        else if (memcmp(LOWER(t, child), LOWER(t, first), sizeof(double) * NR) != 0) return;
    }
    if (first < 0) return;
    memcpy(lower, LOWER(t, first), sizeof(double) * NR);
    memcpy(upper, LOWER(t, first), sizeof(double) * NR);
}

/* solver.maxn_bounds where role c chooses, once its bounds are in lower[c] and
   upper[c] and meet: the vector of the child it takes, into lower and upper. */
static void maxn_vector(Tree *t, TNode *x, double *lower, double *upper) {
    const TEdge *edge = t->edge + x->edges;
    int i, child, c = x->chooser, first = -1;
    double value = lower[c], high;
    for (i = 0; i < x->moves; i++) {
        child = edge[i].child;
        high = child >= 0 && (t->node[child].flags & T_BOUNDS) ? UPPER(t, child)[c] : 1.0;
        if (high < value) continue;  /* cannot reach the chooser's value: not taken */
        if (child < 0 || !(t->node[child].flags & T_PROVEN)) {
            if (value < 1.0) return;
            continue;
        }
        if (value == 1.0 && LOWER(t, child)[c] == 1.0) {
            first = child;
            break;
        }
        if (first < 0) first = child;
        else if (memcmp(LOWER(t, child), LOWER(t, first), sizeof(double) * NR) != 0) return;
    }
    if (first < 0) return;
    memcpy(lower, LOWER(t, first), sizeof(double) * NR);
    memcpy(upper, LOWER(t, first), sizeof(double) * NR);
}

/* solver.prove for a node (with t->solver 2, maxn proofs): whether its bounds
   changed. */
static int tree_prove(Tree *t, int node) {
    TNode *x = &t->node[node];
    int k = x->moves, c = x->chooser, r, i, child, count, trivial = 1, same;
    int maxn = t->solver == 2;
    double lower[NR], upper[NR], lo, up, best;
    double *old_lower = LOWER(t, node), *old_upper = UPPER(t, node);
    TEdge *edge = t->edge + x->edges;
    x->flags &= ~T_ALLOWED;
    for (r = 0; r < NR; r++) {
        lower[r] = r == c ? 0.0 : maxn ? 0.0 : 1.0;
        upper[r] = r == c ? 0.0 : 1.0;
    }
    if (maxn && ((x->flags & T_JOINT) || c < 0))  /* no chooser: 0 and 1 above */
        maxn_joint(t, x, lower, upper);
    else if (x->flags & T_JOINT) joint_bounds(t, x, lower, upper);
    else if (c < 0 && edge[0].child < 0) {  /* no joint move known: no bounds */
        for (r = 0; r < NR; r++) lower[r] = 0.0;
    } else {
        for (i = 0; i < k; i++) {
            child = edge[i].child;
            for (r = 0; r < NR; r++) {
                if (child < 0 || !(t->node[child].flags & T_BOUNDS)) lo = 0.0, up = 1.0;
                else lo = LOWER(t, child)[r], up = UPPER(t, child)[r];
                if (r == c) {
                    if (lo > lower[r]) lower[r] = lo;
                    if (up > upper[r]) upper[r] = up;
                } else if (!maxn) {
                    if (lo < lower[r]) lower[r] = lo;
                    if (up < upper[r]) upper[r] = up;
                }
            }
        }
        if (c >= 0) {  /* solver.allowed_moves for the chooser */
            best = lower[c];
            count = 0;
            for (i = 0; i < k; i++) {
                child = edge[i].child;
                if (child < 0 || !(t->node[child].flags & T_BOUNDS)) lo = 0.0, up = 1.0;
                else lo = LOWER(t, child)[c], up = UPPER(t, child)[c];
                edge[i].allowed = up > best || (lo == best && best > 0.0);
                count += edge[i].allowed;
            }
            if (count > 0 && count < k) x->flags |= T_ALLOWED;
            else for (i = 0; i < k; i++) edge[i].allowed = 1;
            if (maxn && lower[c] == upper[c]) maxn_vector(t, x, lower, upper);
            if (NR == 2 && t->bounded && !maxn && count > 0 && count < k) {
                /* two roles: the other's bounds over the moves the chooser may take */
                r = 1 - c;
                lower[r] = upper[r] = 1.0;
                for (i = 0; i < k; i++) {
                    if (!edge[i].allowed) continue;
                    child = edge[i].child;
                    if (child < 0 || !(t->node[child].flags & T_BOUNDS)) lo = 0.0, up = 1.0;
                    else lo = LOWER(t, child)[r], up = UPPER(t, child)[r];
                    if (lo < lower[r]) lower[r] = lo;
                    if (up < upper[r]) upper[r] = up;
                }
            }
        }
    }
    for (r = 0; r < NR; r++)
        if (lower[r] != 0.0 || upper[r] != 1.0) trivial = 0;
    if (trivial) {
        if (!(x->flags & T_BOUNDS)) return 0;
        x->flags &= ~T_BOUNDS;
        return 1;
    }
    same = (x->flags & T_BOUNDS) != 0;
    for (r = 0; r < NR && same; r++)
        if (lower[r] != old_lower[r] || upper[r] != old_upper[r]) same = 0;
    if (same) return 0;
    x->flags |= T_BOUNDS;
    memcpy(old_lower, lower, sizeof(lower));
    memcpy(old_upper, upper, sizeof(upper));
    for (r = 0; r < NR; r++)
        if (lower[r] != upper[r]) return 1;
    x->flags |= T_PROVEN;
    return 1;
}

/* A node's value as its parent sees it (imm._value). */
static const double *seen_value(const Tree *t, int node) {
    return (t->node[node].flags & T_PROVEN) ? LOWER(t, node) : IMM(t, node);
}

/* ImplicitMinimax.back_up: whether the node's value changed. */
static int imm_back_up(Tree *t, int node, int i) {
    TNode *x = &t->node[node];
    TEdge *edge = t->edge + x->edges;
    const double *value;
    double *imm = IMM(t, node);
    int child, k = x->moves, j, best, r, same = 1;
    if (x->flags & T_PROVEN) value = LOWER(t, node);
    else if (x->flags & T_JOINT) return 0;  /* several choose: no minimax value */
    else {
        child = edge[i].child;
        if (child < 0) return 0;
        if (x->chooser < 0) value = seen_value(t, child);
        else {
            x->flags |= T_IMM_MOVES;
            edge[i].imm = seen_value(t, child)[x->chooser];
            best = 0;
            for (j = 1; j < k; j++)
                if (edge[j].imm > edge[best].imm) best = j;
            value = seen_value(t, edge[best].child);
        }
    }
    for (r = 0; r < NR; r++)
        if (value[r] != imm[r]) same = 0;
    if (same) return 0;
    memmove(imm, value, sizeof(double) * NR);
    return 1;
}

/* The heuristic prior's virtual visits for move i at node, its child valued value. */
static void seed_prior(Tree *t, int node, int i, const double *value) {
    TNode *x = &t->node[node];
    TSlot *s;
    int r;
    if (x->flags & T_JOINT) return;  /* as implicit minimax, the prior stays out */
    for (r = 0; r < NR; r++) {
        s = slot_of(t, x, r, r == x->chooser ? i : 0);
        s->count += t->prior;
        s->sum += (double)t->prior * value[r];
    }
}

/* _note_decisive: move i at node gives its only chooser the full goal. */
static void note_decisive(Tree *t, int node, int i, const double *rewards) {
    TNode *x = &t->node[node];
    if (x->chooser >= 0 && rewards[x->chooser] == 1.0) x->decisive = i;
}

/* The leaf evaluation: the mean of batch playouts from S (RandomPlayout.evaluate);
   0 where the rules break. */
static int tree_play_out(Tree *t, const u64 *S, u32 *mt, double *rewards, int64_t *out) {
    int r, p, sum;
    u32 seed = py_next(mt);
    double scale;
    Guide guide = {t->guide, t->features, t->masks, t->weights};  /* playouts.Guide */
    if (!tree_grow((void **)&t->goals, &t->goals_cap, t->batch * NR + t->batch, sizeof(int)))
        return 0;
    out[2] += t->batch;
    if (playouts((const char *)S, t->batch, seed, t->greedy, t->safe, t->finish, t->goals,
                 t->goals + t->batch * NR, t->fail, 0, 0, 0,
                 t->guide > 1 && t->features > 0 ? &guide : 0) < 0)
        return 0;
    if (t->batch == 1) {
        for (r = 0; r < NR; r++) rewards[r] = t->goals[r] * 0.01;
        return 1;
    }
    scale = 0.01 / t->batch;
    for (r = 0; r < NR; r++) {
        sum = 0;
        for (p = 0; p < t->batch; p++) sum += t->goals[p * NR + r];
        rewards[r] = (double)sum * scale;
    }
    return 1;
}

/* MCTS._back_up along the path's depth nodes. */
static void back_up(Tree *t, int depth, double *rewards, int proof) {
    int j, node, i, r, changed = t->imm;
    TNode *x;
    TSlot *s;
    for (j = depth - 1; j >= 0; j--) {
        node = t->path[j];
        i = t->path_move[j];
        x = &t->node[node];
        x->visits++;
        for (r = 0; r < NR; r++) {
            s = slot_of(t, x, r, move_of(t, x, i, r));
            s->count++;
            s->sum += rewards[r];
        }
        if (proof) proof = tree_prove(t, node);
        if (t->imm && (changed || proof || t->transpose)) changed = imm_back_up(t, node, i);
        if (t->bounded && (x->flags & T_BOUNDS))  /* rewards within the node's bounds */
            for (r = 0; r < NR; r++) {
                if (rewards[r] < LOWER(t, node)[r]) rewards[r] = LOWER(t, node)[r];
                if (rewards[r] > UPPER(t, node)[r]) rewards[r] = UPPER(t, node)[r];
            }
    }
}

/* One iteration (MCTS._iterate): 0, T_SEVERAL (nothing done), or 2 where the rules
   broke (a loss for every role backed up), -2 without memory. */
static int tree_iterate(Tree *t, u32 *mt, int64_t *out) {
    u64 D[NWI], o[NW];
    double rewards[NR];
    int node = 0, depth = 0, i, r, child, proof = 0, status, g[NR];
    TNode *x;
    const double *value = rewards;
    unsigned char *v = t->v;  /* TERMINAL reads v */
    for (;;) {
        x = &t->node[node];
        if (x->flags & T_PROVEN) {
            memcpy(rewards, LOWER(t, node), sizeof(rewards));
            x->visits++;
            out[3]++;
            proof = t->solver && t->transpose;  /* in a graph, a parent may not know it */
            break;
        }
        if (!(x->flags & T_EXPANDED)) {
            status = gdl_tree_expand(t, node, mt);
            if (status == T_SEVERAL || status == -2) return status;
            if (status == T_BROKEN) {
                memcpy(t->fail, t->word + (size_t)node * NW, sizeof(u64) * NW);
                goto broken;
            }
            x = &t->node[node];
            if (status == T_FULL) {  /* no room for its joint moves' edges: a leaf */
                x->visits++;
                if (!tree_play_out(t, t->word + (size_t)node * NW, mt, rewards, out)) goto broken;
                break;
            }
        }
        i = tree_choose(t, x);
        if (depth >= t->depth_cap) {
            int cap = t->depth_cap;
            if (!tree_grow((void **)&t->path, &cap, depth + 1, sizeof(int))) return -2;
            cap = t->depth_cap;
            if (!tree_grow((void **)&t->path_move, &cap, depth + 1, sizeof(int))) return -2;
            t->depth_cap = cap;
        }
        t->path[depth] = node;
        t->path_move[depth++] = i;
        child = t->edge[x->edges + i].child;
        if (child >= 0) {
            node = child;
            continue;
        }
        memset(D, 0, sizeof(D));
        for (r = 0; r < NR; r++) {
            int pick = slot_of(t, x, r, move_of(t, x, i, r))->input;
            D[pick >> 6] |= 1ULL << (pick & 63);
        }
        next_state(t->word + (size_t)node * NW, D, o, t->v);
        child = t->transpose ? table_find(t, o, t->node[node].depth + 1) : -1;
        if (child < 0 && t->max_nodes > 0 && t->n >= t->max_nodes) {  /* _evaluate_unstored */
            eval_terminal(o, t->v);
            if (TERMINAL) {
                eval_goal_entries(o, t->v);
                if (!check_goals(g, t->v)) {
                    memcpy(t->fail, o, sizeof(u64) * NW);
                    goto broken;
                }
                for (r = 0; r < NR; r++) rewards[r] = g[r] * 0.01;
                note_decisive(t, node, i, rewards);
            } else if (!tree_play_out(t, o, mt, rewards, out)) goto broken;
            break;
        }
        if (child < 0) {  /* a new node; else the graph's node of that state */
            child = new_node(t, o, t->node[node].depth + 1);
            if (child == -2) return -2;
            if (child < 0) goto broken;
        }
        t->edge[t->node[node].edges + i].child = child;
        if (t->prior && t->node[child].flags & T_TERMINAL) value = LOWER(t, child);
        else if (t->prior && t->imm) value = IMM(t, child);
        else if (t->prior) {
            tree_evaluate(t, o, rewards);
            value = rewards;
        }
        if (t->prior) seed_prior(t, node, i, value);
        if (t->node[child].flags & T_TERMINAL) note_decisive(t, node, i, LOWER(t, child));
        node = child;
        t->node[node].visits++;
        if (t->node[node].flags & T_PROVEN) memcpy(rewards, LOWER(t, node), sizeof(rewards));
        else if (!tree_play_out(t, o, mt, rewards, out)) goto broken;
        proof = t->solver && (t->node[node].flags & T_BOUNDS);
        break;
    }
    back_up(t, depth, rewards, proof);
    return 0;
broken:
    for (r = 0; r < NR; r++) rewards[r] = 0.0;
    back_up(t, depth, rewards, 0);
    out[1]++;
    return 2;
}

static double clock_seconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

int gdl_tree_search(Tree *t, u32 *mt, int iterations, double *limits, int64_t *out) {
    int done = 0, status;
    double start = clock_seconds(CLOCK_MONOTONIC), now = start, began;
    double cpu = limits[1] >= 0 ? clock_seconds(CLOCK_THREAD_CPUTIME_ID) : 0.0;
    out[0] = 0;
    if (t->transpose && t->tcount != t->n && table_rebuild(t) < 0) {  /* switched on */
        out[0] = -2;
        return 0;
    }
    while (iterations < 0 || done < iterations) {
        if (t->node[0].flags & T_PROVEN) break;
        if (limits[0] >= 0 && now - start >= limits[0]) break;
        if (limits[1] >= 0 && clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu >= limits[1]) break;
        if (limits[2] >= 0 && now - start + limits[3] >= limits[2]) break;
        began = now;
        status = tree_iterate(t, mt, out);
        if (status == T_SEVERAL || status == -2) {
            out[0] = status;
            break;
        }
        done++;
        if (status == 2 && t->stop_on_broken) {
            out[0] = 2;
            break;
        }
        if (limits[0] >= 0 || limits[2] >= 0) now = clock_seconds(CLOCK_MONOTONIC);
        if (limits[2] >= 0 && now - began > limits[3]) limits[3] = now - began;
    }
    return done;
}

/* Copies node (of the old arrays) and what it reaches into t as node t->n, depth
   first; a node reached by several paths (a graph's) once. */
static int copy_subtree(Tree *t, const Tree *old, int root) {
    int *stack = 0, cap = 0, top = 0, node, copy, i, k, parent, slot, dims, r;
    int *copies = malloc(sizeof(int) * (size_t)old->n);  /* each old node's copy, or -1 */
    const TNode *x;
    if (!copies || !tree_grow((void **)&stack, &cap, 2, sizeof(int))) {
        free(copies);
        return -2;
    }
    for (i = 0; i < old->n; i++) copies[i] = -1;
    stack[top++] = root;
    stack[top++] = -1;  /* the edge (in the copy) that points at it */
    while (top > 0) {
        parent = stack[--top];
        node = stack[--top];
        if (copies[node] >= 0) {
            t->edge[parent].child = copies[node];
            continue;
        }
        x = &old->node[node];
        if (!room_for_node(t)) break;
        copy = copies[node] = t->n++;
        t->node[copy] = *x;
        memcpy(t->word + (size_t)copy * NW, old->word + (size_t)node * NW, sizeof(u64) * NW);
        memcpy(t->val + (size_t)copy * 3 * NR, old->val + (size_t)node * 3 * NR,
               sizeof(double) * 3 * NR);
        if (parent >= 0) t->edge[parent].child = copy;
        if (!(x->flags & T_EXPANDED)) continue;
        k = x->moves;
        slot = k + NR - 1;
        if (x->flags & T_JOINT) {
            const int *d = old->dim + x->dims;
            for (slot = 0, r = 0; r < NR; r++) slot += d[r];
            dims = 2 * NR + slot;
            if (!tree_grow((void **)&t->dim, &t->dcap, t->ndims + dims, sizeof(int))) break;
            memcpy(t->dim + t->ndims, d, sizeof(int) * (size_t)dims);
            t->node[copy].dims = t->ndims;
            t->ndims += dims;
            t->joint_edges += k;
        }
        if (!tree_grow((void **)&t->slot, &t->scap, t->nslots + slot, sizeof(TSlot))) break;
        if (!tree_grow((void **)&t->edge, &t->ecap, t->nedges + k, sizeof(TEdge))) break;
        memcpy(t->slot + t->nslots, old->slot + x->slots, sizeof(TSlot) * (size_t)slot);
        memcpy(t->edge + t->nedges, old->edge + x->edges, sizeof(TEdge) * (size_t)k);
        t->node[copy].slots = t->nslots;
        t->node[copy].edges = t->nedges;
        t->nslots += slot;
        t->nedges += k;
        for (i = k - 1; i >= 0; i--) {
            if (old->edge[x->edges + i].child < 0) continue;
            if (!tree_grow((void **)&stack, &cap, top + 2, sizeof(int))) break;
            stack[top++] = old->edge[x->edges + i].child;
            stack[top++] = t->node[copy].edges + i;
        }
    }
    free(stack);
    free(copies);
    return top > 0 ? -2 : 0;
}

int gdl_tree_reroot(Tree *t, int node) {
    Tree old = *t;
    int status;
    t->node = 0;
    t->word = 0;
    t->val = 0;
    t->slot = 0;
    t->edge = 0;
    t->dim = 0;
    t->n = t->cap = t->nslots = t->scap = t->nedges = t->ecap = 0;
    t->ndims = t->dcap = t->joint_edges = 0;
    status = copy_subtree(t, &old, node);
    if (status == 0 && t->transpose) status = table_rebuild(t);
    free(old.node);
    free(old.word);
    free(old.val);
    free(old.slot);
    free(old.edge);
    free(old.dim);
    return status;
}
"""
)
"""The tree loop (`gdl_tree_search` and the rest), after the runtime's functions."""
