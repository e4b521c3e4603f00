"""C source for learnt state evaluation, added to every game's native library.

Fixed text (no symbol of a game enters it), appended after `ggp.gdl.native.csource`'s
runtime, whose functions and macros it uses:

- ``gdl_sample_playouts(S, count, seed, skip, window, every, limit, ...)``:
  `count` random playouts (the moves of ``gdl_playouts`` for the same seed)
  that copy into ``samples`` the states `skip`, `skip` + `every`, ... moves
  before their end, fewer than `skip` + `window` (at most ``RING``, 64) moves
  before it, `limit` states at most, noting the playout of each in ``owner``;
  each playout's goals go to ``goals``.  Returns the samples taken, or ``-1 -
  playout`` where the rules break (the state in ``fail``).
- ``gdl_sample_decisive_playouts(...)``: the same from decisive playouts
  (``gdl_playouts`` with `safe` and every move decisive, each playout seeded
  by the next number of `seed`'s generator);
- ``gdl_cutoff_playouts(S, count, seed, plies, features, masks, weights, ...)``:
  random playouts (again ``gdl_playouts``' moves) stopped after `plies` moves;
  a playout that ends in time is valued by its goals / 100, one cut off by
  ``0.5 + 0.5 * x / (1 + |x|)`` (0..1, increasing) of a learnt linear score x
  of feature counts: for role r, ``weights[r * (features + 1)]`` plus, for
  each feature f, its weight ``weights[r * (features + 1) + 1 + f]`` times the
  number of true state bits under its mask (``masks[f * NW .. f * NW + NW - 1]``).
  ``values`` gets ``count * NR`` doubles, ``steps`` the moves each playout made.
"""

from __future__ import annotations

HEURISTIC_DECLARATIONS = """
int gdl_sample_playouts(const char *S, int count, uint32_t seed, int skip, int window,
                        int every, int limit, uint64_t *samples, int *owner, int *goals,
                        uint64_t *fail);
int gdl_sample_decisive_playouts(const char *S, int count, uint32_t seed, int skip,
                                 int window, int every, int limit, uint64_t *samples,
                                 int *owner, int *goals, uint64_t *fail);
int gdl_cutoff_playouts(const char *S, int count, uint32_t seed, int plies, int features,
                        const uint64_t *masks, const double *weights, double *values,
                        int *steps, uint64_t *fail);
"""
"""What the library exports for the heuristic (cffi's ``cdef``)."""

HEURISTIC_RUNTIME = """
/* One random move of every role in T (as gdl_playouts draws it) into D; 0 if a
   role has no legal move.  v holds eval_step's values for T. */
static int random_joint(const u64 *T, u32 *mt, u64 *D, unsigned char *v) {
    int moves[MOVES_MAX + 1], counts[NR];
    int role, start = 0, pick;
    legal_lists(T, counts, moves, v);
    memset(D, 0, sizeof(u64) * NWI);
    for (role = 0; role < NR; role++) {
        if (counts[role] == 0) return 0;
        pick = moves[start + choose(mt, counts[role])];
        D[pick >> 6] |= 1ULL << (pick & 63);
        start += counts[role];
    }
    return 1;
}

/* Copies into samples the states of playout done (n moves) skip, skip + every, ...
   moves before its end, fewer than skip + window moves before it, from ring (the
   state before move k at k % RING), while fewer than limit are taken in all; returns
   the count taken in all, given taken before. */
static int take_samples(u64 (*ring)[NW], int n, int done, int skip, int window, int every,
                        int limit, int taken, u64 *samples, int *owner) {
    int d;
    for (d = skip; d < skip + window && d <= n && taken < limit; d += every) {
        memcpy(samples + (long)taken * NW, ring[(n - d) % RING], NW * sizeof(u64));
        owner[taken++] = done;
    }
    return taken;
}

int gdl_sample_playouts(const char *S, int count, u32 seed, int skip, int window, int every,
                        int limit, u64 *samples, int *owner, int *goals, u64 *fail) {
    u64 T[NW], o[NW], D[NWI];
    static __thread u64 ring[RING][NW];
    u32 mt[625];
    unsigned char v[NN];
    int done, n, taken = 0;
    if (skip < 1 || window < 1 || every < 1 || skip + window > RING) return -1 - count;
    mt_seed(mt, seed);
    for (done = 0; done < count; done++) {
        memcpy(T, S, sizeof(T));
        n = 0;
        for (;;) {
            eval_step(T, v);
            if (TERMINAL) break;
            memcpy(ring[n % RING], T, sizeof(T));
            if (!random_joint(T, mt, D, v)) {
                memcpy(fail, T, sizeof(T));
                return -1 - done;
            }
            next_state(T, D, o, v);
            memcpy(T, o, sizeof(T));
            n++;
        }
        if (!end_goals(T, v, goals + done * NR, fail)) return -1 - done;
        taken = take_samples(ring, n, done, skip, window, every, limit, taken, samples, owner);
    }
    return taken;
}

/* As gdl_sample_playouts, from decisive playouts (gdl_playouts with safe, every move
   decisive), each seeded by the next number of seed's generator. */
int gdl_sample_decisive_playouts(const char *S, int count, u32 seed, int skip, int window,
                                 int every, int limit, u64 *samples, int *owner, int *goals,
                                 u64 *fail) {
    static __thread u64 ring[RING][NW];
    u32 mt[625];
    int done, n, taken = 0;
    if (skip < 1 || window < 1 || every < 1 || skip + window > RING) return -1 - count;
    mt_seed(mt, seed);
    for (done = 0; done < count; done++) {
        if (playouts(S, 1, mt_next(mt), 1 << 30, 1, 0, goals + done * NR, &n, fail, 0, ring,
                     0, 0) < 0)
            return -1 - done;
        taken = take_samples(ring, n, done, skip, window, every, limit, taken, samples, owner);
    }
    return taken;
}

int gdl_cutoff_playouts(const char *S, int count, u32 seed, int plies, int features,
                        const u64 *masks, const double *weights, double *values,
                        int *steps, u64 *fail) {
    u64 T[NW], o[NW], D[NWI];
    u32 mt[625];
    unsigned char v[NN];
    int g[NR];
    int done, n, role, f, w, bits, cut;
    double x;
    mt_seed(mt, seed);
    for (done = 0; done < count; done++) {
        memcpy(T, S, sizeof(T));
        n = 0;
        cut = 0;
        for (;;) {
            eval_step(T, v);
            if (TERMINAL) break;
            if (n >= plies) { cut = 1; break; }
            if (!random_joint(T, mt, D, v)) {
                memcpy(fail, T, sizeof(T));
                return -1 - done;
            }
            next_state(T, D, o, v);
            memcpy(T, o, sizeof(T));
            n++;
        }
        steps[done] = n;
        if (cut) {
            for (role = 0; role < NR; role++)
                values[done * NR + role] = weights[role * (features + 1)];
            for (f = 0; f < features; f++) {
                bits = 0;
                for (w = 0; w < NW; w++) bits += __builtin_popcountll(T[w] & masks[f * NW + w]);
                if (bits == 0) continue;
                for (role = 0; role < NR; role++)
                    values[done * NR + role] += weights[role * (features + 1) + 1 + f] * bits;
            }
            for (role = 0; role < NR; role++) {
                x = values[done * NR + role];
                values[done * NR + role] = 0.5 + 0.5 * x / (1.0 + (x < 0.0 ? -x : x));
            }
            continue;
        }
        if (!end_goals(T, v, g, fail)) return -1 - done;
        for (role = 0; role < NR; role++) values[done * NR + role] = g[role] * 0.01;
    }
    return count;
}
"""
"""The heuristic's functions, after the runtime of `ggp.gdl.native.csource`."""
