/* Reductions, scans and softmax along the middle dimension of a contiguous
 * [outer, r, inner] array.
 *
 * A kernel gets a block of nc neighbouring columns: x points at its first
 * element in row 0, rows are `inner` elements apart. With inner == 1 the
 * block is one contiguous row and the loops run along it (vectorised);
 * otherwise they run across the columns of the block, row after row, so
 * that memory is read in order. Columns go in tiles of TILE so that the
 * accumulators stay on the stack. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "loops.h" /* first: its pragma applies to fastexp.h too */
#include "fastexp.h"
#include "sum_row.h"
#include "vexp.h"

/* e^v in T: the vectorizable float exp for float, libm's for double. */
#define MT_EXP_T(T, v) (sizeof(T) == sizeof(float) ? (T)mt_expf((float)(v)) : (T)exp((double)(v)))

/* exp_sub_row writes e^(x[k] - m) to o[k] for a contiguous row: by
 * vexp.h's AVX-512 loop for float32 where the CPU has x86-64-v4 (the bits
 * of mt_expf there), else by MT_EXP_T. */
#if MT_HAVE_VEXP
static int use_vexp;
__attribute__((constructor)) static void init_vexp(void) { use_vexp = mt_cpu_has_v4(); }
#define EXP_SUB_ROW(T, x, m, o, n)                                                          \
  do {                                                                                      \
    if (sizeof(T) == sizeof(float) && use_vexp) {                                           \
      mt_vexp_sub_f32(n, (const float *)(x), (float)(m), (float *)(o));                     \
    } else {                                                                                \
      for (int64_t k_ = 0; k_ < (n); k_++) (o)[k_] = MT_EXP_T(T, (x)[k_] - (m));            \
    }                                                                                       \
  } while (0)
#else
#define EXP_SUB_ROW(T, x, m, o, n) \
  for (int64_t k_ = 0; k_ < (n); k_++) (o)[k_] = MT_EXP_T(T, (x)[k_] - (m))
#endif

#define TILE 256

typedef int (*mt_red)(const void *x, const void *g, int64_t r, int64_t inner, int64_t nc, void *out,
                      int64_t *idx, const mt_attrs *a);

static mt_red rtable[MT_NUM_REDUCTIONS][MT_NUM_DTYPES];

#define RREG(ID, DT, fn) \
  __attribute__((constructor)) static void rreg_##fn(void) { rtable[ID][DT] = (mt_red)fn; }

#ifndef ISNAN
#define ISNAN(x) ((x) != (x))
#endif

/* ---- sums: pairwise for floating types ---- */

#define SUM_FUNCS(T, S)                                                        \
  /* sum_row: the pairwise sum of a contiguous row (sum_row.h). */             \
  MT_CLONES static T sum_row_##S(const T *x, int64_t n) {                      \
    if (n <= LEAF) {                                                           \
      T acc[LANES] = {0};                                                      \
      sum_groups_##S(acc, x, n / LANES);                                       \
      T t = 0;                                                                 \
      for (int64_t i = n / LANES * LANES; i < n; i++) t += x[i];               \
      return sum_leaf_end_##S(acc, t);                                         \
    }                                                                          \
    const int64_t h = sum_split(n);                                            \
    return sum_row_##S(x, h) + sum_row_##S(x + h, n - h);                      \
  }                                                                            \
  /* sum_cols: the pairwise sums over r rows of nc <= TILE columns. */         \
  MT_CLONES static void sum_cols_##S(const T *x, int64_t r, int64_t inner,     \
                                     int64_t nc, T *out) {                     \
    if (r <= 16) {                                                             \
      for (int64_t j = 0; j < nc; j++) out[j] = 0;                             \
      for (int64_t k = 0; k < r; k++) {                                        \
        const T *row = x + k * inner;                                          \
        for (int64_t j = 0; j < nc; j++) out[j] += row[j];                     \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    T tmp[TILE];                                                               \
    int64_t h = r / 2;                                                         \
    sum_cols_##S(x, h, inner, nc, out);                                        \
    sum_cols_##S(x + h * inner, r - h, inner, nc, tmp);                        \
    for (int64_t j = 0; j < nc; j++) out[j] += tmp[j];                         \
  }

SUM_FUNCS(float, f32)
SUM_FUNCS(double, f64)

/* ---- the maximum of a contiguous row, and whether it holds a NaN ----
 * Compared as integers: flipping the magnitude bits of negative floats
 * makes the integer order of the bits the order of the values, and an
 * integer maximum vectorizes where a NaN-aware float one does not (a row
 * of 1024 floats: 62 ns against 1.7 µs). Only the value of the maximum
 * matters to the callers, so a NaN is reported apart. */
#define ROW_MAX(T, S, I, BITS)                                                 \
  MT_CLONES static T row_max_##S(const T *x, int64_t n, int *nan) {           \
    const I mag = (I)(((uint##BITS##_t)1 << (BITS - 1)) - 1);                  \
    const I inf = (I)(sizeof(T) == 4 ? 0x7f800000 : 0x7ff0000000000000);       \
    I mk = (I)((uint##BITS##_t)1 << (BITS - 1)); /* the smallest key */          \
    int anynan = 0;                                                            \
    for (int64_t k = 0; k < n; k++) {                                          \
      I b;                                                                     \
      memcpy(&b, x + k, sizeof b);                                             \
      anynan |= (b & mag) > inf;                                               \
      I key = b ^ ((b >> (BITS - 1)) & mag);                                   \
      mk = key > mk ? key : mk;                                                \
    }                                                                          \
    I b = mk ^ ((mk >> (BITS - 1)) & mag);                                     \
    T m;                                                                       \
    memcpy(&m, &b, sizeof m);                                                  \
    *nan = anynan;                                                             \
    return m;                                                                  \
  }

ROW_MAX(float, f32, int32_t, 32)
ROW_MAX(double, f64, int64_t, 64)

/* ---- the extremes of a contiguous row ----
 * ext_row_max and ext_row_min are the maximum (CMP >) and the minimum (<)
 * of x[0, n), n > 0, and NaN when the row holds one, as PyTorch's amax and
 * amin (which of -0 and +0 comes out of a row holding both is unspecified
 * there too). For floating types FL is 1 and I is the integer type of T's
 * bits: NaNs are found as the absolute values' bits above infinity's, by
 * an integer maximum beside the float one (a NaN-propagating compare and
 * blend costs a third more). EXT_LANES accumulators side by side let the
 * compiler vectorise. ext_at is the index of the first element equal to
 * the extreme, or of the first NaN: PyTorch's max(dim), whose value is the
 * element at that index; its search checks a block of EXT_LANES elements
 * at a time, vectorised, and looks inside the one that holds the answer. */
#define EXT_LANES 32
#define ROW_EXTREME(T, S, I, FL, NAME, CMP)                                    \
  MT_CLONES static T ext_row_##NAME##_##S(const T *x, int64_t n) {            \
    const I mag = (I)(~(uint64_t)0 >> (65 - 8 * sizeof(T)));                  \
    const I inf = (I)(sizeof(T) == 4 ? 0x7f800000 : 0x7ff0000000000000);      \
    T acc[EXT_LANES];                                                         \
    I big[EXT_LANES]; /* the largest absolute value's bits */                 \
    for (int j = 0; j < EXT_LANES; j++) { acc[j] = x[0]; big[j] = 0; }        \
    int64_t i = 0;                                                            \
    for (; i + EXT_LANES <= n; i += EXT_LANES)                                \
      for (int j = 0; j < EXT_LANES; j++) {                                   \
        T v = x[i + j];                                                       \
        acc[j] = v CMP acc[j] ? v : acc[j];                                   \
        if (FL) {                                                             \
          I b;                                                                \
          memcpy(&b, x + i + j, sizeof b);                                    \
          b &= mag;                                                           \
          big[j] = b > big[j] ? b : big[j];                                   \
        }                                                                     \
      }                                                                       \
    _Pragma("GCC unroll 8") /* else the halving goes through the stack */     \
    for (int w = EXT_LANES / 2; w >= 1; w /= 2)                               \
      for (int j = 0; j < w; j++) {                                           \
        acc[j] = acc[j + w] CMP acc[j] ? acc[j + w] : acc[j];                 \
        big[j] = big[j + w] > big[j] ? big[j + w] : big[j];                   \
      }                                                                       \
    T m = acc[0];                                                             \
    int nan = FL && big[0] > inf;                                             \
    for (; i < n; i++) {                                                      \
      m = x[i] CMP m ? x[i] : m;                                              \
      nan |= ISNAN(x[i]);                                                     \
    }                                                                         \
    return nan ? (T)NAN : m;                                                  \
  }                                                                           \
  MT_CLONES static int64_t ext_at_##NAME##_##S(const T *x, int64_t n) {       \
    const T m = ext_row_##NAME##_##S(x, n);                                   \
    const int nan = ISNAN(m);                                                 \
    int64_t i = 0;                                                            \
    for (; i + EXT_LANES <= n; i += EXT_LANES) {                              \
      int hit = 0;                                                            \
      for (int j = 0; j < EXT_LANES; j++) hit |= nan ? ISNAN(x[i + j]) : x[i + j] == m; \
      if (hit) break;                                                         \
    }                                                                         \
    for (; i < n; i++)                                                        \
      if (nan ? ISNAN(x[i]) : x[i] == m) return i;                            \
    return 0;                                                                 \
  }

ROW_EXTREME(float, f32, int32_t, 1, max, >)
ROW_EXTREME(float, f32, int32_t, 1, min, <)
ROW_EXTREME(double, f64, int64_t, 1, max, >)
ROW_EXTREME(double, f64, int64_t, 1, min, <)
ROW_EXTREME(int64_t, i64, int64_t, 0, max, >)
ROW_EXTREME(int64_t, i64, int64_t, 0, min, <)

/* Integer sums wrap around, as PyTorch's do. */
static int64_t sum_row_i64(const int64_t *x, int64_t n) {
  uint64_t s = 0;
  for (int64_t i = 0; i < n; i++) s += (uint64_t)x[i];
  return (int64_t)s;
}
static void sum_cols_i64(const int64_t *x, int64_t r, int64_t inner, int64_t nc, int64_t *out) {
  uint64_t *o = (uint64_t *)out;
  for (int64_t j = 0; j < nc; j++) o[j] = 0;
  for (int64_t k = 0; k < r; k++)
    for (int64_t j = 0; j < nc; j++) o[j] += (uint64_t)x[k * inner + j];
}

/* Tiles: call BODY for each tile of at most TILE columns, with x, g, out,
 * idx advanced and nc set to the tile's width. */
#define TILES(...)                                                             \
  for (int64_t c0 = 0; c0 < nc_all; c0 += TILE) {                              \
    const int64_t nc = nc_all - c0 < TILE ? nc_all - c0 : TILE;                \
    __typeof__(x_all) x = x_all + c0;                                          \
    __typeof__(x_all) g = g_all ? g_all + c0 : 0;                              \
    (void)g;                                                                   \
    __VA_ARGS__                                                                \
  }

#define KERNEL(name, T, OT)                                                    \
  static int name(const T *x_all, const T *g_all, int64_t r, int64_t inner,    \
                  int64_t nc_all, OT *out_all, int64_t *idx_all, const mt_attrs *a)

/* The extremes along r, CMP being > (max) or <: NAME the values (a NaN
 * wins and stays), ARG the index of the first extreme (the first NaN). */
#define EXTREME(NAME, ARG, ROW, T, CMP)                                        \
  MT_CLONES KERNEL(NAME, T, T) {                                               \
    (void)g_all; (void)idx_all; (void)a;                                       \
    if (inner == 1) { out_all[0] = ext_row_##ROW(x_all, r); return 0; }           \
    TILES(                                                                     \
      T *out = out_all + c0;                                                   \
      for (int64_t j = 0; j < nc; j++) out[j] = x[j];                          \
      for (int64_t k = 1; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          T v = x[k * inner + j];                                              \
          out[j] = (v CMP out[j] || ISNAN(v)) ? v : out[j];                    \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  KERNEL(ARG, T, T) {                                                          \
    (void)g_all; (void)a;                                                      \
    if (inner == 1) {                                                          \
      idx_all[0] = ext_at_##ROW(x_all, r);                                         \
      if (out_all) out_all[0] = x_all[idx_all[0]];                             \
      return 0;                                                                \
    }                                                                          \
    TILES(                                                                     \
      T best[TILE]; int64_t *bi = idx_all + c0;                                \
      for (int64_t j = 0; j < nc; j++) { best[j] = x[j]; bi[j] = 0; }          \
      for (int64_t k = 1; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          T v = x[k * inner + j];                                              \
          if (!ISNAN(best[j]) && (v CMP best[j] || ISNAN(v))) { best[j] = v; bi[j] = k; } \
        }                                                                      \
      if (out_all) memcpy(out_all + c0, best, nc * sizeof(T));)                \
    return 0;                                                                  \
  }

/* The reductions of one floating or integer type T; ACC is the type of
 * accumulations other than the pairwise sum. */
#define REDUCE_TYPE(T, S, DT, ACC, FLOAT)                                      \
  KERNEL(sum_##S, T, T) {                                                      \
    (void)g_all; (void)idx_all; (void)a;                                       \
    if (inner == 1) { out_all[0] = sum_row_##S(x_all, r); return 0; }          \
    TILES(sum_cols_##S(x, r, inner, nc, out_all + c0);)                        \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_SUM, DT, sum_##S)                                                  \
  KERNEL(prod_##S, T, T) {                                                     \
    (void)g_all; (void)idx_all; (void)a;                                       \
    TILES(                                                                     \
      T *out = out_all + c0;                                                   \
      for (int64_t j = 0; j < nc; j++) out[j] = 1;                             \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) out[j] = (T)(out[j] * x[k * inner + j]);) \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_PROD, DT, prod_##S)                                                \
  EXTREME(amax_##S, argmax_##S, max_##S, T, >)                                          \
  RREG(MT_R_AMAX, DT, amax_##S)                                                \
  RREG(MT_R_ARGMAX, DT, argmax_##S)                                            \
  EXTREME(amin_##S, argmin_##S, min_##S, T, <)                                          \
  RREG(MT_R_AMIN, DT, amin_##S)                                                \
  RREG(MT_R_ARGMIN, DT, argmin_##S)                                            \
  KERNEL(cumsum_##S, T, T) {                                                   \
    (void)g_all; (void)idx_all; (void)a;                                       \
    TILES(                                                                     \
      T *out = out_all + c0; ACC acc[TILE];                                    \
      for (int64_t j = 0; j < nc; j++) acc[j] = 0;                             \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          acc[j] = FLOAT ? acc[j] + x[k * inner + j]                           \
                         : (ACC)((uint64_t)acc[j] + (uint64_t)x[k * inner + j]); \
          out[k * inner + j] = (T)acc[j];                                      \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_CUMSUM, DT, cumsum_##S)                                            \
  KERNEL(cumprod_##S, T, T) {                                                  \
    (void)g_all; (void)idx_all; (void)a;                                       \
    TILES(                                                                     \
      T *out = out_all + c0; ACC acc[TILE];                                    \
      for (int64_t j = 0; j < nc; j++) acc[j] = 1;                             \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          acc[j] = FLOAT ? acc[j] * x[k * inner + j]                           \
                         : (ACC)((uint64_t)acc[j] * (uint64_t)x[k * inner + j]); \
          out[k * inner + j] = (T)acc[j];                                      \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_CUMPROD, DT, cumprod_##S)

REDUCE_TYPE(float, f32, MT_F32, double, 1)
REDUCE_TYPE(double, f64, MT_F64, double, 1)
REDUCE_TYPE(int64_t, i64, MT_I64, int64_t, 0)

/* The reductions of floating types only: they accumulate in double. */
#define FLOAT_TYPE(T, S, DT)                                                   \
  KERNEL(mean_##S, T, T) {                                                     \
    int st = sum_##S(x_all, g_all, r, inner, nc_all, out_all, idx_all, a);     \
    for (int64_t j = 0; j < nc_all; j++) out_all[j] = out_all[j] / (T)r;       \
    return st;                                                                 \
  }                                                                            \
  RREG(MT_R_MEAN, DT, mean_##S)                                                \
  /* var and std: two passes, the mean and then the squared deviations. */     \
  static int moments_##S(const T *x_all, int64_t r, int64_t inner,             \
                         int64_t nc_all, T *out_all, double correction, int std) { \
    const T *g_all = 0;                                                        \
    TILES(                                                                     \
      double mean[TILE], ss[TILE];                                             \
      for (int64_t j = 0; j < nc; j++) mean[j] = ss[j] = 0;                    \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) mean[j] += x[k * inner + j];          \
      for (int64_t j = 0; j < nc; j++) mean[j] /= (double)r;                   \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          double d = x[k * inner + j] - mean[j];                               \
          ss[j] += d * d;                                                      \
        }                                                                      \
      double div = (double)r - correction;                                     \
      if (div < 0) div = 0;                                                    \
      for (int64_t j = 0; j < nc; j++) {                                       \
        double v = ss[j] / div;                                                \
        out_all[c0 + j] = (T)(std ? sqrt(v) : v);                              \
      })                                                                       \
    return 0;                                                                  \
  }                                                                            \
  KERNEL(var_##S, T, T) {                                                      \
    (void)g_all; (void)idx_all;                                                \
    return moments_##S(x_all, r, inner, nc_all, out_all, a->f[0], 0);          \
  }                                                                            \
  RREG(MT_R_VAR, DT, var_##S)                                                  \
  KERNEL(std_##S, T, T) {                                                      \
    (void)g_all; (void)idx_all;                                                \
    return moments_##S(x_all, r, inner, nc_all, out_all, a->f[0], 1);          \
  }                                                                            \
  RREG(MT_R_STD, DT, std_##S)                                                  \
  /* norm: p = inf and -inf are the extreme magnitudes, p = 0 the count of    \
   * non-zeros, any other p the p-th root of the sum of |x|^p. */             \
  KERNEL(norm_##S, T, T) {                                                     \
    (void)idx_all;                                                             \
    const double p = a->f[0];                                                  \
    TILES(                                                                     \
      double acc[TILE];                                                        \
      const int ext = isinf(p);                                                \
      for (int64_t j = 0; j < nc; j++) acc[j] = ext ? fabs((double)x[j]) : 0;  \
      for (int64_t k = ext ? 1 : 0; k < r; k++)                                \
        for (int64_t j = 0; j < nc; j++) {                                     \
          double v = fabs((double)x[k * inner + j]);                           \
          if (p == 2) acc[j] += v * v;                                         \
          else if (p == 1) acc[j] += v;                                        \
          else if (p == 0) acc[j] += v != 0;                                   \
          else if (ext && p > 0) acc[j] = (v > acc[j] || ISNAN(v)) ? v : acc[j]; \
          else if (ext) acc[j] = (v < acc[j] || ISNAN(v)) ? v : acc[j];        \
          else acc[j] += pow(v, p);                                            \
        }                                                                      \
      for (int64_t j = 0; j < nc; j++) {                                       \
        double v = acc[j];                                                     \
        if (p == 2) v = sqrt(v);                                               \
        else if (p != 1 && p != 0 && !ext) v = pow(v, 1 / p);                  \
        out_all[c0 + j] = (T)v;                                                \
      })                                                                       \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_NORM, DT, norm_##S)                                                \
  /* logsumexp: max + log(sum(exp(x - max))), with an infinite max taken as 0. */ \
  KERNEL(logsumexp_##S, T, T) {                                                \
    (void)idx_all;                                                             \
    TILES(                                                                     \
      double m[TILE], s[TILE];                                                 \
      for (int64_t j = 0; j < nc; j++) { m[j] = r ? x[j] : 0; s[j] = 0; }      \
      for (int64_t k = 1; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          double v = x[k * inner + j];                                         \
          m[j] = (v > m[j] || ISNAN(v)) ? v : m[j];                            \
        }                                                                      \
      for (int64_t j = 0; j < nc; j++) if (isinf(m[j])) m[j] = 0;              \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) s[j] += exp(x[k * inner + j] - m[j]); \
      for (int64_t j = 0; j < nc; j++) out_all[c0 + j] = (T)(log(s[j]) + m[j]);) \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_LOGSUMEXP, DT, logsumexp_##S)                                      \
  /* softmax and log_softmax: subtract the max, exponentiate, normalise. */     \
  MT_CLONES static int softmax_any_##S(const T *x_all, int64_t r, int64_t inner, \
                             int64_t nc_all, T *out_all, int logs) {           \
    const T *g_all = 0;                                                        \
    if (inner == 1 && nc_all == 1) { /* one contiguous row: vectorized */      \
      int nan;                                                                 \
      T m = row_max_##S(x_all, r, &nan);                                       \
      if (nan) m = (T)NAN; /* a NaN in the row makes the row NaN */            \
      EXP_SUB_ROW(T, x_all, m, out_all, r);                                    \
      double p[8] = {0};                                                       \
      int64_t k = 0;                                                           \
      for (; k + 8 <= r; k += 8)                                               \
        for (int q = 0; q < 8; q++) p[q] += out_all[k + q];                    \
      double s = 0;                                                            \
      for (; k < r; k++) s += out_all[k];                                      \
      for (int q = 0; q < 8; q++) s += p[q];                                   \
      if (logs) {                                                              \
        double ls = log(s);                                                    \
        for (int64_t q = 0; q < r; q++)                                        \
          out_all[q] = (T)((T)(x_all[q] - m) - ls);                            \
      } else {                                                                 \
        T inv = (T)(1 / s);                                                    \
        for (int64_t q = 0; q < r; q++) out_all[q] *= inv;                     \
      }                                                                        \
      return 0;                                                                \
    }                                                                          \
    TILES(                                                                     \
      T *out = out_all + c0; T m[TILE]; double s[TILE];                        \
      for (int64_t j = 0; j < nc; j++) { m[j] = x[j]; s[j] = 0; }              \
      for (int64_t k = 1; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          T v = x[k * inner + j];                                              \
          m[j] = (v > m[j] || ISNAN(v)) ? v : m[j];                            \
        }                                                                      \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          T e = MT_EXP_T(T, x[k * inner + j] - m[j]);                          \
          s[j] += e;                                                           \
          if (!logs) out[k * inner + j] = e;                                   \
        }                                                                      \
      for (int64_t j = 0; j < nc; j++) s[j] = logs ? log(s[j]) : 1 / s[j];     \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          T *o = &out[k * inner + j];                                          \
          *o = logs ? (T)(x[k * inner + j] - m[j] - s[j]) : (T)(*o * s[j]);    \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  KERNEL(softmax_##S, T, T) {                                                  \
    (void)g_all; (void)idx_all; (void)a;                                       \
    return softmax_any_##S(x_all, r, inner, nc_all, out_all, 0);               \
  }                                                                            \
  RREG(MT_R_SOFTMAX, DT, softmax_##S)                                          \
  KERNEL(log_softmax_##S, T, T) {                                              \
    (void)g_all; (void)idx_all; (void)a;                                       \
    return softmax_any_##S(x_all, r, inner, nc_all, out_all, 1);               \
  }                                                                            \
  RREG(MT_R_LOG_SOFTMAX, DT, log_softmax_##S)                                  \
  /* The gradients: softmax gx = y * (g - sum(g * y)); log_softmax             \
   * gx = g - exp(y) * sum(g). x is the forward output y. */                    \
  KERNEL(softmax_backward_##S, T, T) {                                         \
    (void)idx_all; (void)a;                                                    \
    TILES(                                                                     \
      T *out = out_all + c0; double s[TILE];                                   \
      for (int64_t j = 0; j < nc; j++) s[j] = 0;                               \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) s[j] += (double)g[k * inner + j] * x[k * inner + j]; \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          int64_t e = k * inner + j;                                           \
          out[e] = (T)(x[e] * (g[e] - s[j]));                                  \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_SOFTMAX_BACKWARD, DT, softmax_backward_##S)                        \
  KERNEL(log_softmax_backward_##S, T, T) {                                     \
    (void)idx_all; (void)a;                                                    \
    TILES(                                                                     \
      T *out = out_all + c0; double s[TILE];                                   \
      for (int64_t j = 0; j < nc; j++) s[j] = 0;                               \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) s[j] += g[k * inner + j];             \
      for (int64_t k = 0; k < r; k++)                                          \
        for (int64_t j = 0; j < nc; j++) {                                     \
          int64_t e = k * inner + j;                                           \
          out[e] = (T)(g[e] - exp((double)x[e]) * s[j]);                       \
        })                                                                     \
    return 0;                                                                  \
  }                                                                            \
  RREG(MT_R_LOG_SOFTMAX_BACKWARD, DT, log_softmax_backward_##S)

FLOAT_TYPE(float, f32, MT_F32)
FLOAT_TYPE(double, f64, MT_F64)

/* ---- bool reductions over bytes that are 0 or 1 ---- */

static int all_b(const uint8_t *x_all, const uint8_t *g_all, int64_t r, int64_t inner, int64_t nc_all,
                 uint8_t *out_all, int64_t *idx_all, const mt_attrs *a) {
  (void)g_all; (void)idx_all; (void)a;
  for (int64_t j = 0; j < nc_all; j++) out_all[j] = 1;
  for (int64_t k = 0; k < r; k++)
    for (int64_t j = 0; j < nc_all; j++) out_all[j] &= x_all[k * inner + j] != 0;
  return 0;
}
RREG(MT_R_ALL, MT_BOOL, all_b)

static int any_b(const uint8_t *x_all, const uint8_t *g_all, int64_t r, int64_t inner, int64_t nc_all,
                 uint8_t *out_all, int64_t *idx_all, const mt_attrs *a) {
  (void)g_all; (void)idx_all; (void)a;
  for (int64_t j = 0; j < nc_all; j++) out_all[j] = 0;
  for (int64_t k = 0; k < r; k++)
    for (int64_t j = 0; j < nc_all; j++) out_all[j] |= x_all[k * inner + j] != 0;
  return 0;
}
RREG(MT_R_ANY, MT_BOOL, any_b)

static int count_b(const uint8_t *x_all, const uint8_t *g_all, int64_t r, int64_t inner, int64_t nc_all,
                   int64_t *out_all, int64_t *idx_all, const mt_attrs *a) {
  (void)g_all; (void)idx_all; (void)a;
  for (int64_t j = 0; j < nc_all; j++) out_all[j] = 0;
  for (int64_t k = 0; k < r; k++)
    for (int64_t j = 0; j < nc_all; j++) out_all[j] += x_all[k * inner + j] != 0;
  return 0;
}
RREG(MT_R_COUNT_NONZERO, MT_BOOL, count_b)

/* ---- the entry point ---- */

static int is_along(int op) { return op >= MT_R_CUMSUM; }

static int out_size(int op, int dtype) {
  static const int sizes[MT_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  if (op == MT_R_COUNT_NONZERO) return 8;
  return sizes[dtype];
}

int mt_reduce(int op, int dtype, const void *x, const void *g, int64_t outer, int64_t r, int64_t inner,
              void *out, int64_t *idx, int64_t begin, int64_t end, mt_attrs a) {
  (void)outer;
  if (op < 0 || op >= MT_NUM_REDUCTIONS || dtype < 0 || dtype >= MT_NUM_DTYPES) return MT_ERR_UNSUPPORTED;
  mt_red fn = rtable[op][dtype];
  if (!fn) return MT_ERR_UNSUPPORTED;
  const int64_t es = out_size(MT_R_SUM, dtype), os = out_size(op, dtype);
  /* Walk the positions row of [outer, inner] by row, a block of columns at a time. */
  while (begin < end) {
    const int64_t o = begin / inner, c0 = begin % inner;
    int64_t c1 = inner;
    if (o == (end - 1) / inner) c1 = (end - 1) % inner + 1;
    const int64_t base = o * r * inner + c0; /* element of x at row 0, column c0 */
    const char *xp = (const char *)x + base * es;
    const char *gp = g ? (const char *)g + base * es : 0;
    char *op_out = 0;
    if (out) op_out = (char *)out + (is_along(op) ? base : o * inner + c0) * os;
    int64_t *ip = idx ? idx + o * inner + c0 : 0;
    int st = fn(xp, gp, r, inner, c1 - c0, op_out, ip, &a);
    if (st != MT_OK) return st;
    begin += c1 - c0;
  }
  return MT_OK;
}

mt_red_fn mt_reduction_fn(int op, int dtype, int *along, int64_t *os) {
  if (op < 0 || op >= MT_NUM_REDUCTIONS || dtype < 0 || dtype >= MT_NUM_DTYPES) return 0;
  *along = is_along(op);
  *os = out_size(op, dtype);
  return (mt_red_fn)rtable[op][dtype];
}

/* mt_reduce_parallel is mt_reduce over output positions [0, positions),
 * split across the pool. */
typedef struct {
  int op, dtype;
  const void *x, *g;
  int64_t outer, r, inner;
  void *out;
  int64_t *idx;
  mt_attrs a;
} reduce_job;

static int reduce_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  reduce_job *j = ctx;
  return mt_reduce(j->op, j->dtype, j->x, j->g, j->outer, j->r, j->inner, j->out, j->idx, begin, end, j->a);
}

int mt_reduce_parallel(int op, int dtype, const void *x, const void *g, int64_t outer, int64_t r, int64_t inner,
                       void *out, int64_t *idx, int64_t positions, mt_attrs a, int64_t grain) {
  reduce_job j = {op, dtype, x, g, outer, r, inner, out, idx, a};
  return mt_parallel(positions, grain, reduce_share, &j, 0);
}

/* mt_reduce_split: one partial result per share (room for 8 bytes each),
 * then the combining reduction over them. */
typedef struct {
  int op, dtype, part_size;
  const char *x;
  int64_t es;
  mt_attrs a;
  int64_t parts[MT_POOL_MAX];
} split_job;

static int split_share(void *ctx, int share, int64_t begin, int64_t end) {
  split_job *j = ctx;
  char *dst = (char *)j->parts + share * j->part_size; /* packed: the combining pass reads them as an array */
  return mt_reduce(j->op, j->dtype, j->x + begin * j->es, 0, 1, end - begin, 1, dst, 0, 0, 1, j->a);
}

int mt_reduce_split(int part_op, int dtype, int part_dtype, int combine, const void *x, int64_t r, void *out,
                    mt_attrs a, int64_t grain) {
  split_job j = {part_op, dtype, out_size(part_op, dtype), x, out_size(MT_R_SUM, dtype), a, {0}};
  int shares = 1;
  int st = mt_parallel(r, grain, split_share, &j, &shares);
  if (st != MT_OK) return st;
  return mt_reduce(combine, part_dtype, j.parts, 0, 1, shares, 1, out, 0, 0, 1, a);
}
