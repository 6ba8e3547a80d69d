/* The pairwise sum of a contiguous row, in pieces that reduce.c (a row in
 * memory) and fused.c (a row a fused chain computes block by block) share,
 * so that both add the same numbers in the same order and get the same
 * bits.
 *
 * The order: a row of more than LEAF elements is split at the multiple of
 * LANES nearest above its middle, and the halves summed the same way; a
 * leaf adds its elements into LANES accumulators (element i of each group
 * of LANES into accumulator i), the elements after the last whole group
 * into one more, then the accumulators pairwise, then that one. */
#ifndef MT_SUM_ROW_H
#define MT_SUM_ROW_H

#include <stdint.h>

#define LEAF 16384 /* elements summed directly (64 lanes of 256) before pairwise halving */
#define LANES 64 /* independent accumulators: four vector registers of floats */

/* sum_split is where a row of n > LEAF elements is cut in two. */
static inline int64_t sum_split(int64_t n) { return (n / 2 + LANES - 1) / LANES * LANES; }

/* SUM_LEAF_FUNCS(T, S) defines, for element type T:
 * sum_groups_S(acc, x, groups): adds groups whole groups of x into acc;
 * sum_leaf_end_S(acc, tail): the leaf's sum from its accumulators and the
 * sum of its tail (the elements after the whole groups, added in order). */
#define SUM_LEAF_FUNCS(T, S)                                                          \
  static inline __attribute__((always_inline)) void sum_groups_##S(T *acc, const T *x, \
                                                                   int64_t groups) {   \
    for (int64_t i = 0; i < groups * LANES; i += LANES)                               \
      for (int j = 0; j < LANES; j++) acc[j] += x[i + j];                             \
  }                                                                                   \
  static inline __attribute__((always_inline)) T sum_leaf_end_##S(T *acc, T tail) {   \
    for (int w = LANES / 2; w >= 1; w /= 2)                                           \
      for (int j = 0; j < w; j++) acc[j] += acc[j + w];                               \
    return acc[0] + tail;                                                             \
  }

SUM_LEAF_FUNCS(float, f32)
SUM_LEAF_FUNCS(double, f64)

#endif
