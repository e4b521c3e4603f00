/* Exact solver for the corpus's connectFour (8 columns, 6 rows), to check what
   the search plays in logged positions (benchmarks/root_diagnosis.py --values).
   A diagnostic tool that knows Connect Four; nothing in the player uses it.

     cc -O2 -o /tmp/connect4_solver benchmarks/connect4_solver.c
     /tmp/connect4_solver 5455544452        # value of every column for the side to move
     /tmp/connect4_solver 545554445227 25   # shortest forced win within 25 plies, if any

   MOVES are the columns (1..8) dropped so far, first player first.  The first
   form prints, per column, +1 (the side to move wins by dropping there), 0
   (draw) or -1 (loss) under perfect play, with the nodes searched.  Negamax
   with alpha-beta on win/draw/loss, a transposition table, bitboards (7 bits a
   column), moves that lose at once pruned and moves that make the most threats
   tried first.  Checked against a plain negamax on late positions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 8
#define H 6
#define H1 (H + 1)
#define TT_BITS 24

typedef uint64_t u64;
typedef struct {
    u64 key;
    int8_t low, high;
} Entry;

static u64 bottom, board;
static u64 pos, mask; /* the side to move's discs; every disc */
static int played;
static u64 nodes;
static Entry *table;
static const int order[W] = {3, 4, 2, 5, 1, 6, 0, 7};

static u64 column(int c) { return ((1ULL << H) - 1) << (c * H1); }

/* the empty cells that would complete a line of p's discs */
static u64 winning_cells(u64 p, u64 m) {
    u64 r = (p << 1) & (p << 2) & (p << 3), q;
    const int steps[3] = {H1, H, H + 2};
    for (int i = 0; i < 3; i++) {
        int s = steps[i];
        q = (p << s) & (p << 2 * s);
        r |= q & (p << 3 * s);
        r |= q & (p >> s);
        q = (p >> s) & (p >> 2 * s);
        r |= q & (p << s);
        r |= q & (p >> 3 * s);
    }
    return r & (board ^ m);
}

static u64 playable(void) { return (mask + bottom) & board; }

static void drop(u64 cell) { /* the other side is then to move */
    u64 mine = pos | cell;
    mask |= cell;
    pos = mask ^ mine;
    played++;
}

/* the value for the side to move, who has no winning move yet checked: -1, 0, 1 */
static int solve(int alpha, int beta) {
    nodes++;
    u64 moves = playable();
    if (winning_cells(pos, mask) & moves) return 1;
    if (played >= W * H - 1) return 0;
    u64 threats = winning_cells(pos ^ mask, mask);
    u64 forced = moves & threats;
    if (forced) {
        if (forced & (forced - 1)) return -1;
        moves = forced;
    }
    moves &= ~(threats >> 1); /* not under a cell that wins for the other side */
    if (!moves) return -1;
    u64 key = pos + mask;
    Entry *e = &table[(key * 0x9E3779B97F4A7C15ULL) >> (64 - TT_BITS)];
    int low = -1, high = 1;
    if (e->key == key) {
        low = e->low, high = e->high;
        if (low == high || low >= beta) return low;
        if (high <= alpha) return high;
        if (low > alpha) alpha = low;
        if (high < beta) beta = high;
    }
    int a0 = alpha, b0 = beta, n = 0, score[W];
    u64 cells[W];
    for (int i = 0; i < W; i++) {
        u64 cell = moves & column(order[i]);
        if (!cell) continue;
        int s = __builtin_popcountll(winning_cells(pos | cell, mask | cell));
        int j = n++;
        for (; j > 0 && score[j - 1] < s; j--) cells[j] = cells[j - 1], score[j] = score[j - 1];
        cells[j] = cell, score[j] = s;
    }
    int best = -1;
    for (int i = 0; i < n; i++) {
        u64 p0 = pos, m0 = mask;
        drop(cells[i]);
        int v = -solve(-beta, -alpha);
        pos = p0, mask = m0, played--;
        if (v > best) best = v;
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
    e->key = key;
    e->low = best >= b0 || best > a0 ? best : low;
    e->high = best <= a0 || best < b0 ? best : high;
    return best;
}

/* whether the side to move can force a win within d plies (its winning drop included) */
static int win_within(int d) {
    nodes++;
    u64 moves = playable();
    if (winning_cells(pos, mask) & moves) return 1;
    if (d < 3 || played >= W * H - 1) return 0;
    u64 threats = winning_cells(pos ^ mask, mask);
    u64 forced = moves & threats;
    if (forced) {
        if (forced & (forced - 1)) return 0;
        moves = forced;
    }
    moves &= ~(threats >> 1);
    for (int i = 0; i < W; i++) {
        u64 cell = moves & column(order[i]);
        if (!cell) continue;
        u64 p0 = pos, m0 = mask;
        drop(cell);
        u64 replies = playable();
        int all = !(winning_cells(pos, mask) & replies) && played < W * H;
        for (int j = 0; j < W && all; j++) {
            u64 reply = replies & column(j);
            if (!reply) continue;
            u64 p1 = pos, m1 = mask;
            drop(reply);
            all = win_within(d - 2);
            pos = p1, mask = m1, played--;
        }
        pos = p0, mask = m0, played--;
        if (all) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    for (int c = 0; c < W; c++) bottom |= 1ULL << (c * H1);
    board = bottom * ((1ULL << H) - 1);
    table = calloc(1ULL << TT_BITS, sizeof(Entry));
    if (!table) return 2;
    for (const char *s = argc > 1 ? argv[1] : ""; *s; s++) {
        int c = *s - '1';
        if (c < 0 || c >= W || (mask & column(c)) == column(c)) {
            fprintf(stderr, "bad move '%c': columns are 1..%d and a full one takes none\n", *s, W);
            return 2;
        }
        drop((mask + (1ULL << (c * H1))) & column(c));
    }
    if (argc > 2) {
        int limit = atoi(argv[2]);
        for (int d = 1; d <= limit; d += 2) {
            nodes = 0;
            if (win_within(d)) {
                printf("forced win in %d plies (%llu nodes)\n", d, (unsigned long long)nodes);
                return 0;
            }
        }
        printf("no forced win within %d plies\n", limit);
        return 0;
    }
    for (int c = 0; c < W; c++) {
        u64 cell = playable() & column(c);
        if (!cell) {
            printf("col %d: full\n", c + 1);
            continue;
        }
        clock_t began = clock();
        nodes = 0;
        int v;
        if (winning_cells(pos, mask) & cell) {
            v = 1;
        } else {
            u64 p0 = pos, m0 = mask;
            drop(cell);
            v = -solve(-1, 1);
            pos = p0, mask = m0, played--;
        }
        printf("col %d: %+d  (%llu nodes, %.1f s)\n", c + 1, v, (unsigned long long)nodes,
               (double)(clock() - began) / CLOCKS_PER_SEC);
        fflush(stdout);
    }
    return 0;
}
