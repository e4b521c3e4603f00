"""C source for RAVE and GRAVE's AMAF tables, added to every game's native library.

Fixed text (no symbol of a game enters it), appended after `ggp.gdl.native.csource`'s
runtime, whose playouts it runs:

- ``gdl_amaf_playouts(S, count, seed, greedy, goals, steps, fail, depth, tables,
  tree, ntree, played)``: the playouts of ``gdl_playouts`` for the same seed,
  then the simulation added to the AMAF tables of its path (`ggp.games.amaf`):
  ``tables[j]`` (NULL: none) is the table of the path's node j, ``tree`` holds
  ``ntree`` triples (path position, input index, role) of the moves chosen in
  the tree, positions increasing; the table at position j learns every move of
  the tree from position j on and every move of each playout, once per
  playout, each playout weighing 1/count.  ``played`` is scratch space for
  ``count * PLAYED`` ints.  Returns `count`, or ``-1 - playout`` where the rules
  break (the state in ``fail``; nothing is recorded).
"""

from __future__ import annotations

RAVE_DECLARATIONS = """
int gdl_amaf_playouts(const char *S, int count, uint32_t seed, int greedy, int *goals,
                      int *steps, uint64_t *fail, int depth, double **tables, const int *tree,
                      int ntree, int *played);
int gdl_played_size(void);
"""
"""What the library exports for RAVE (cffi's ``cdef``)."""

RAVE_RUNTIME = """
int gdl_played_size(void) { return PLAYED; }

int gdl_amaf_playouts(const char *S, int count, u32 seed, int greedy, int *goals, int *steps,
                      u64 *fail, int depth, double **tables, const int *tree, int ntree,
                      int *played) {
    int mark[NWI * 64], moves[NWI * 64];
    int done, p, j, k, t, n, slot, code;
    const int *list;
    double weight, *table;
    done = playouts(S, count, seed, greedy, 0, 0, goals, steps, fail, played, 0, 0, 0);
    if (done < 0) return done;
    weight = 1.0 / count;
    memset(mark, 0, sizeof(mark));
    for (p = 0; p < count; p++) {
        list = played + p * PLAYED;
        n = 0;
        for (k = 0; k < list[0]; k++) {
            code = list[1 + k];
            mark[code / NR] = p + 1;
            moves[n++] = code;
        }
        t = ntree - 1;
        for (j = depth - 1; j >= 0; j--) {
            for (; t >= 0 && tree[3 * t] >= j; t--) {
                slot = tree[3 * t + 1];
                if (mark[slot] != p + 1) {
                    mark[slot] = p + 1;
                    moves[n++] = slot * NR + tree[3 * t + 2];
                }
            }
            table = tables[j];
            if (!table) continue;
            for (k = 0; k < n; k++) {
                slot = moves[k] / NR;
                table[1 + 2 * slot] += weight;
                table[2 + 2 * slot] += weight * (goals[p * NR + moves[k] % NR] * 0.01);
            }
        }
    }
    for (j = 0; j < depth; j++)
        if (tables[j]) tables[j][0] += 1.0;
    return count;
}
"""
"""The AMAF playouts (`gdl_amaf_playouts`), after the runtime's ``playouts``."""
