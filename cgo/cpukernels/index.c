/* Index kernels: gather, index_select, scatter and its reductions, and
 * index_add (see mt_index_job in cpu_kernels.h). One call per op: the
 * index is checked first (nothing is written when an index is out of
 * range), then the plan runs, split across the worker pool when large.
 *
 * Gather-like ops write each output element once, so any split of the
 * plan is race-free. Scatter-like ops may write an output element once per
 * position along the indexed dim (duplicate indices); they combine in
 * PyTorch's CPU order, ascending along that dim, and are split only along
 * the other dims: in whole runs of the plan up to the indexed dim, or in
 * columns of the dims below it. */
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "scalar.h"

/* Results are rounded as written: no fused multiply-adds (index_add's
 * alpha * src + out is two roundings, as PyTorch's and the Go code's). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("-ffp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

typedef struct {
  int64_t jump, bound, es, include_self;
  int64_t alpha_i;
  double alpha_f;
  char *out;      /* the output's first element (for the hit counts) */
  int32_t *hits;  /* hit counts by element offset from out - hits_lo, or NULL */
  int64_t hits_lo;
  int *bad;       /* gather: set when an index is out of range (read as 0) */
} ix_ctx;

/* A row function runs rows of n elements: element i of row r of operand k
 * is at p[k] + r*os[k] + i*s[k]. */
typedef void (*ix_row)(int64_t n, int64_t rows, char *const *p, const int64_t *s, const int64_t *os,
                       const ix_ctx *c);

/* An index value, with negative values counting from the end (checked
 * beforehand: only index_add's may be negative). */
#define IXV(IT, q, bound) ({ int64_t j_ = *(const IT *)(q); j_ + ((bound) & (j_ >> 63)); })

/* ---- gather and index_select: out = self at the index (a copy of bytes)
 * The gathers check their indices as they read them, in [0, bound): an
 * index out of range reads element 0 instead and sets *c->bad, and
 * mt_index then finds the first one for the error (a pass of its own
 * over the index cost a tenth of a gather along dim 1). */

/* GIX is index value v checked: ok accumulates whether it is in range. */
#define GIX(v, bound, ok) ({ int64_t v_ = (v); int in_ = (uint64_t)v_ < (uint64_t)(bound); ok &= in_; in_ ? v_ : 0; })

/* prefetch_row asks for the span bytes at x, the next row a gather of n
 * elements jumps in, when it is short and will be read nearly whole (a
 * dim-1 gather of random indices): the hardware prefetchers miss random
 * reads within a row, which then wait on memory one by one (a gather of
 * 256 of 1024 floats per row took 2.3 ms for 4096 rows without, 1.4 ms
 * with). Rows of up to 8 KB go to L1, longer ones to L2 (L1 would thrash:
 * 4096 rows of 4096 floats, 1024 picked, 12.6 ms without, 11.3 to L1, 8.2
 * to L2). */
/* (always inlined: GCC drops a call to a function of prefetches alone.) */
static inline __attribute__((always_inline)) void prefetch_row(const char *x, int64_t span, int64_t n) {
  if (span > 65536 || span / 64 > 2 * n) return;
  if (span <= 8192)
    for (int64_t b = 0; b < span; b += 64) __builtin_prefetch(x + b, 0, 3);
  else
    for (int64_t b = 0; b < span; b += 64) __builtin_prefetch(x + b, 0, 2);
}

#define GATHER_ROW(T, IT, IN)                                                              \
  static void gather_##T##_##IN(int64_t n, int64_t rows, char *const *p, const int64_t *s, \
                                const int64_t *os, const ix_ctx *c) {                      \
    const int64_t jump = c->jump, bound = c->bound, es = sizeof(T);                        \
    int ok = 1;                                                                            \
    for (int64_t r = 0; r < rows; r++) {                                                   \
      char *o = p[0] + r * os[0];                                                          \
      const char *x = p[1] + r * os[1], *ix = p[2] + r * os[2];                            \
      if (s[2] == 0) { /* one index for the row: a row copy */                             \
        const char *xs = x + GIX(*(const IT *)ix, bound, ok) * jump;                       \
        if (s[0] == es && s[1] == es) {                                                    \
          memcpy(o, xs, (size_t)(n * es));                                                 \
        } else {                                                                           \
          for (int64_t i = 0; i < n; i++) *(T *)(o + i * s[0]) = *(const T *)(xs + i * s[1]); \
        }                                                                                  \
      } else if (s[0] == es && s[1] == 0 && s[2] == (int64_t)sizeof(IT)) {                 \
        /* along the indexed dim, output and index contiguous */                           \
        if (r + 1 < rows) prefetch_row(x + os[1], bound * jump, n);                        \
        T *ot = (T *)o;                                                                    \
        const IT *it = (const IT *)ix;                                                     \
        for (int64_t i = 0; i < n; i++) ot[i] = *(const T *)(x + GIX(it[i], bound, ok) * jump); \
      } else {                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                  \
          int64_t j = GIX(*(const IT *)(ix + i * s[2]), bound, ok);                        \
          *(T *)(o + i * s[0]) = *(const T *)(x + i * s[1] + j * jump);                    \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
    if (!ok) __atomic_store_n(c->bad, 1, __ATOMIC_RELAXED);                                \
  }

#define GATHER_ROWS(T) GATHER_ROW(T, int32_t, 32) GATHER_ROW(T, int64_t, 64)
GATHER_ROWS(uint8_t)
GATHER_ROWS(uint16_t)
GATHER_ROWS(uint32_t)
GATHER_ROWS(uint64_t)

/* by log2 of the element size, then int32 / int64 index */
static const ix_row gather_rows[4][2] = {
    {gather_uint8_t_32, gather_uint8_t_64},
    {gather_uint16_t_32, gather_uint16_t_64},
    {gather_uint32_t_32, gather_uint32_t_64},
    {gather_uint64_t_32, gather_uint64_t_64},
};

/* ---- scatter: out at the index combined with src ---------------------- */

/* CMB_<dtype>_<reduce>(d, s): combine the element at s into the one at d,
 * as the Go kernels did (and PyTorch's CPU kernels do): float16 and
 * bfloat16 in float32 rounded back per element, integers wrapping, bool
 * as or / and. */
#define COPY_ELEM(T) *(T *)d = *(const T *)s

/* float and double */
#define FLOAT_CMB(S, T)                                                                    \
  static inline void cmb_##S##_0(char *d, const char *s, const ix_ctx *c) { (void)c; COPY_ELEM(T); } \
  static inline void cmb_##S##_1(char *d, const char *s, const ix_ctx *c) { (void)c; *(T *)d += *(const T *)s; } \
  static inline void cmb_##S##_2(char *d, const char *s, const ix_ctx *c) { (void)c; *(T *)d *= *(const T *)s; } \
  static inline void cmb_##S##_3(char *d, const char *s, const ix_ctx *c) { (void)c; *(T *)d += *(const T *)s; } \
  static inline void cmb_##S##_4(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; T v = *(const T *)s;                                                          \
    if (v > *(T *)d || v != v) *(T *)d = v;                                                \
  }                                                                                        \
  static inline void cmb_##S##_5(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; T v = *(const T *)s;                                                          \
    if (v < *(T *)d || v != v) *(T *)d = v;                                                \
  }                                                                                        \
  static inline void cmb_##S##_6(char *d, const char *s, const ix_ctx *c) {                \
    T v = (T)(c->alpha_f * (double)*(const T *)s);                                         \
    *(T *)d += v;                                                                          \
  }
FLOAT_CMB(f32, float)
FLOAT_CMB(f64, double)

/* float16 and bfloat16: load to float, combine, store rounded */
#define HALF_CMB(S, LD, ST)                                                                \
  static inline void cmb_##S##_0(char *d, const char *s, const ix_ctx *c) { (void)c; COPY_ELEM(uint16_t); } \
  static inline void cmb_##S##_1(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; *(uint16_t *)d = ST(LD(*(uint16_t *)d) + LD(*(const uint16_t *)s));           \
  }                                                                                        \
  static inline void cmb_##S##_2(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; *(uint16_t *)d = ST(LD(*(uint16_t *)d) * LD(*(const uint16_t *)s));           \
  }                                                                                        \
  static inline void cmb_##S##_3(char *d, const char *s, const ix_ctx *c) { cmb_##S##_1(d, s, c); } \
  static inline void cmb_##S##_4(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; float a = LD(*(uint16_t *)d), v = LD(*(const uint16_t *)s);                   \
    if (v > a || v != v) a = v;                                                            \
    *(uint16_t *)d = ST(a);                                                                \
  }                                                                                        \
  static inline void cmb_##S##_5(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; float a = LD(*(uint16_t *)d), v = LD(*(const uint16_t *)s);                   \
    if (v < a || v != v) a = v;                                                            \
    *(uint16_t *)d = ST(a);                                                                \
  }                                                                                        \
  static inline void cmb_##S##_6(char *d, const char *s, const ix_ctx *c) {                \
    uint16_t v = ST((float)(c->alpha_f * (double)LD(*(const uint16_t *)s)));               \
    *(uint16_t *)d = ST(LD(*(uint16_t *)d) + LD(v));                                       \
  }
HALF_CMB(f16, mt_h2f, mt_f2h)
HALF_CMB(bf16, mt_bf2f, mt_f2bf)

/* integers: sums and products wrap (computed in uint64_t, then truncated) */
#define WRAP(T, e) ((T)(uint64_t)(e))
#define INT_CMB(S, T)                                                                      \
  static inline void cmb_##S##_0(char *d, const char *s, const ix_ctx *c) { (void)c; COPY_ELEM(T); } \
  static inline void cmb_##S##_1(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; *(T *)d = WRAP(T, (uint64_t)(int64_t)*(T *)d + (uint64_t)(int64_t)*(const T *)s); \
  }                                                                                        \
  static inline void cmb_##S##_2(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; *(T *)d = WRAP(T, (uint64_t)(int64_t)*(T *)d * (uint64_t)(int64_t)*(const T *)s); \
  }                                                                                        \
  static inline void cmb_##S##_3(char *d, const char *s, const ix_ctx *c) { cmb_##S##_1(d, s, c); } \
  static inline void cmb_##S##_4(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; T v = *(const T *)s;                                                          \
    if (v > *(T *)d) *(T *)d = v;                                                          \
  }                                                                                        \
  static inline void cmb_##S##_5(char *d, const char *s, const ix_ctx *c) {                \
    (void)c; T v = *(const T *)s;                                                          \
    if (v < *(T *)d) *(T *)d = v;                                                          \
  }                                                                                        \
  static inline void cmb_##S##_6(char *d, const char *s, const ix_ctx *c) {                \
    T v = WRAP(T, (uint64_t)c->alpha_i * (uint64_t)(int64_t)*(const T *)s);                \
    *(T *)d = WRAP(T, (uint64_t)(int64_t)*(T *)d + (uint64_t)(int64_t)v);                  \
  }
INT_CMB(u8, uint8_t)
INT_CMB(i8, int8_t)
INT_CMB(i16, int16_t)
INT_CMB(i32, int32_t)
INT_CMB(i64, int64_t)

/* bool: sum, mean and amax are or; prod and amin and */
#define B(p) (*(const uint8_t *)(p) != 0)
static inline void cmb_b_0(char *d, const char *s, const ix_ctx *c) { (void)c; COPY_ELEM(uint8_t); }
static inline void cmb_b_1(char *d, const char *s, const ix_ctx *c) { (void)c; *(uint8_t *)d = B(d) || B(s); }
static inline void cmb_b_2(char *d, const char *s, const ix_ctx *c) { (void)c; *(uint8_t *)d = B(d) && B(s); }
static inline void cmb_b_3(char *d, const char *s, const ix_ctx *c) { cmb_b_1(d, s, c); }
static inline void cmb_b_4(char *d, const char *s, const ix_ctx *c) { cmb_b_1(d, s, c); }
static inline void cmb_b_5(char *d, const char *s, const ix_ctx *c) { cmb_b_2(d, s, c); }
static inline void cmb_b_6(char *d, const char *s, const ix_ctx *c) {
  uint8_t v = (uint64_t)c->alpha_i * (uint64_t)*(const uint8_t *)s != 0;
  *(uint8_t *)d = B(d) || v;
}

#define SCATTER_ROW(S, T, M, IT, IN)                                                       \
  static void scatter_##S##_##M##_##IN(int64_t n, int64_t rows, char *const *p, const int64_t *s, \
                                       const int64_t *os, const ix_ctx *c) {               \
    const int64_t jump = c->jump, bound = c->bound;                                        \
    for (int64_t r = 0; r < rows; r++) {                                                   \
      char *o = p[0] + r * os[0];                                                          \
      const char *x = p[1] + r * os[1], *ix = p[2] + r * os[2];                            \
      if (c->hits) { /* scatter_reduce counting its hits */                                \
        for (int64_t i = 0; i < n; i++) {                                                  \
          char *d = o + i * s[0] + IXV(IT, ix + i * s[2], bound) * jump;                   \
          int32_t *h = c->hits + ((d - c->out) / (int64_t)sizeof(T) - c->hits_lo);         \
          if (!c->include_self && *h == 0 && (M == 1 || M == 3)) {                         \
            /* PyTorch starts a sum (mean) without self from 0: 0 + -0 is +0 */            \
            memset(d, 0, sizeof(T));                                                       \
            cmb_##S##_##M(d, x + i * s[1], c);                                             \
          } else if (!c->include_self && *h == 0) {                                        \
            *(T *)d = *(const T *)(x + i * s[1]);                                          \
          } else {                                                                         \
            cmb_##S##_##M(d, x + i * s[1], c);                                             \
          }                                                                                \
          ++*h;                                                                            \
        }                                                                                  \
      } else if (s[2] == 0) { /* one index for the row */                                  \
        char *ob = o + IXV(IT, ix, bound) * jump;                                          \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {                    \
          for (int64_t i = 0; i < n; i++) cmb_##S##_##M(ob + i * sizeof(T), x + i * sizeof(T), c); \
        } else {                                                                           \
          for (int64_t i = 0; i < n; i++) cmb_##S##_##M(ob + i * s[0], x + i * s[1], c);  \
        }                                                                                  \
      } else {                                                                             \
        for (int64_t i = 0; i < n; i++)                                                    \
          cmb_##S##_##M(o + i * s[0] + IXV(IT, ix + i * s[2], bound) * jump, x + i * s[1], c); \
      }                                                                                    \
    }                                                                                      \
  }

#define SCATTER_M(S, T, M) SCATTER_ROW(S, T, M, int32_t, 32) SCATTER_ROW(S, T, M, int64_t, 64)
#define SCATTER_DT(S, T)                                                                   \
  SCATTER_M(S, T, 0) SCATTER_M(S, T, 1) SCATTER_M(S, T, 2) SCATTER_M(S, T, 3)              \
  SCATTER_M(S, T, 4) SCATTER_M(S, T, 5) SCATTER_M(S, T, 6)
SCATTER_DT(b, uint8_t)
SCATTER_DT(u8, uint8_t)
SCATTER_DT(i8, int8_t)
SCATTER_DT(i16, int16_t)
SCATTER_DT(i32, int32_t)
SCATTER_DT(i64, int64_t)
SCATTER_DT(f16, uint16_t)
SCATTER_DT(bf16, uint16_t)
SCATTER_DT(f32, float)
SCATTER_DT(f64, double)

#define SC_M(S, M) {scatter_##S##_##M##_32, scatter_##S##_##M##_64}
#define SC_DT(S) {SC_M(S, 0), SC_M(S, 1), SC_M(S, 2), SC_M(S, 3), SC_M(S, 4), SC_M(S, 5), SC_M(S, 6)}
/* by dtype (MT_BOOL..MT_F64), reduction, then int32 / int64 index */
static const ix_row scatter_rows[MT_NUM_DTYPES][MT_IX_NUM_REDUCE][2] = {
    SC_DT(b), SC_DT(u8), SC_DT(i8), SC_DT(i16), SC_DT(i32),
    SC_DT(i64), SC_DT(f16), SC_DT(bf16), SC_DT(f32), SC_DT(f64),
};

/* scatter_reduce's mean: each element hit h times becomes its sum divided
 * by its count (h, plus one with include_self), as the Go kernel did:
 * floating values in double rounded to the dtype, integers by floor
 * division. */
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

static void mean_divide(int dt, char *out, const int32_t *hits, int64_t lo, int64_t span, int64_t incl) {
  for (int64_t k = 0; k < span; k++) {
    int64_t cnt = (int64_t)hits[k] + incl;
    if (cnt <= 1) continue;
    int64_t e = k + lo;
    switch (dt) {
#define MEAN_F(D, T) \
  case D: ((T *)out)[e] = (T)((double)((T *)out)[e] / (double)cnt); break;
#define MEAN_H(D, LD, ST) \
  case D: ((uint16_t *)out)[e] = ST((float)((double)LD(((uint16_t *)out)[e]) / (double)cnt)); break;
#define MEAN_I(D, T) \
  case D: ((T *)out)[e] = (T)floor_div((int64_t)((T *)out)[e], cnt); break;
      MEAN_F(MT_F32, float)
      MEAN_F(MT_F64, double)
      MEAN_H(MT_F16, mt_h2f, mt_f2h)
      MEAN_H(MT_BF16, mt_bf2f, mt_f2bf)
      MEAN_I(MT_U8, uint8_t)
      MEAN_I(MT_I8, int8_t)
      MEAN_I(MT_I16, int16_t)
      MEAN_I(MT_I32, int32_t)
      MEAN_I(MT_I64, int64_t)
    case MT_BOOL:
      ((uint8_t *)out)[e] = floor_div((int64_t)((uint8_t *)out)[e], cnt) != 0;
      break;
    }
  }
}

/* ---- the plan walk ----------------------------------------------------- */

/* walk runs row over elements [begin, end) of a three-operand plan, in
 * blocks of whole rows along dims 0 and 1 where it can (as mt_run_plan). */
static void walk(ix_row row, const mt_plan *plan, char *const *base, int64_t begin, int64_t end, const ix_ctx *c) {
  const int64_t nd = plan->ndim;
  if (begin >= end) return;
  int64_t s0[3] = {0}, s1[3] = {0};
  for (int k = 0; k < 3; k++) {
    s0[k] = nd ? plan->strides[k][0] : 0;
    s1[k] = nd > 1 ? plan->strides[k][1] : 0;
  }
  if (nd <= 1) {
    char *p[3];
    for (int k = 0; k < 3; k++) p[k] = base[k] + begin * s0[k];
    row(end - begin, 1, p, s0, s1, c);
    return;
  }
  int64_t idx[MT_MAX_DIMS];
  int64_t rest = begin;
  for (int64_t d = 0; d < nd; d++) {
    idx[d] = rest % plan->shape[d];
    rest /= plan->shape[d];
  }
  const int64_t n0 = plan->shape[0], n1 = plan->shape[1];
  while (begin < end) {
    char *p[3];
    for (int k = 0; k < 3; k++) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; d++) off += idx[d] * plan->strides[k][d];
      p[k] = base[k] + off;
    }
    int64_t n = n0 - idx[0], rows = 1;
    if (n > end - begin) {
      n = end - begin;
    } else if (idx[0] == 0) {
      rows = (end - begin) / n0;
      if (rows > n1 - idx[1]) rows = n1 - idx[1];
    }
    row(n, rows, p, s0, s1, c);
    begin += n * rows;
    if (begin >= end) break;
    idx[0] = 0;
    idx[1] += rows;
    for (int64_t d = 1; d < nd && idx[d] >= plan->shape[d]; d++) {
      idx[d] = 0;
      if (d + 1 < nd) idx[d + 1]++;
    }
  }
}

/* first_bad returns the position of the first index in [begin, end) of the
 * one-operand check plan outside [lo, hi), or -1; *value gets it. */
#define FIRST_BAD(IT, IN)                                                                  \
  static int64_t first_bad_##IN(const mt_plan *plan, const char *base, int64_t begin, int64_t end, \
                                int64_t lo, int64_t hi, int64_t *value) {                  \
    const int64_t nd = plan->ndim;                                                         \
    int64_t idx[MT_MAX_DIMS] = {0}, rest = begin;                                          \
    for (int64_t d = 0; d < nd; d++) {                                                     \
      idx[d] = rest % plan->shape[d];                                                      \
      rest /= plan->shape[d];                                                              \
    }                                                                                      \
    const int64_t n0 = nd ? plan->shape[0] : 1, s0 = nd ? plan->strides[0][0] : 0;         \
    while (begin < end) {                                                                  \
      int64_t off = 0;                                                                     \
      for (int64_t d = 0; d < nd; d++) off += idx[d] * plan->strides[0][d];                \
      const char *q = base + off;                                                          \
      int64_t n = n0 - (nd ? idx[0] : 0);                                                  \
      if (n > end - begin) n = end - begin;                                                \
      if (s0 == (int64_t)sizeof(IT)) {                                                     \
        const IT *v = (const IT *)q;                                                       \
        int ok = 1;                                                                        \
        for (int64_t i = 0; i < n; i++) ok &= (v[i] >= lo) & (v[i] < hi);                  \
        if (!ok)                                                                           \
          for (int64_t i = 0; i < n; i++)                                                  \
            if (v[i] < lo || v[i] >= hi) { *value = v[i]; return begin + i; }              \
      } else {                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                  \
          int64_t v = *(const IT *)(q + i * s0);                                           \
          if (v < lo || v >= hi) { *value = v; return begin + i; }                         \
        }                                                                                  \
      }                                                                                    \
      begin += n;                                                                          \
      if (nd == 0) break;                                                                  \
      idx[0] = 0;                                                                          \
      for (int64_t d = 1; d < nd; d++) {                                                   \
        if (++idx[d] < plan->shape[d]) break;                                              \
        idx[d] = 0;                                                                        \
      }                                                                                    \
    }                                                                                      \
    return -1;                                                                             \
  }
FIRST_BAD(int32_t, 32)
FIRST_BAD(int64_t, 64)

/* ---- the job ----------------------------------------------------------- */

typedef struct {
  mt_index_job *job;
  ix_row row;
  char *base[3];
  ix_ctx ctx;
  int64_t unit;  /* elements per unit of a split */
  int64_t inner; /* column split: elements of the dims below the indexed one (0: no column split) */
  /* the check */
  const char *index;
  int64_t lo, hi;
  int64_t bad_at[MT_POOL_MAX], bad_value[MT_POOL_MAX];
} ix_run;

static int check_share(void *ctx, int share, int64_t begin, int64_t end) {
  ix_run *r = ctx;
  int64_t v = 0, at;
  if (r->job->index_dtype == MT_I32)
    at = first_bad_32(&r->job->check, r->index, begin, end, r->lo, r->hi, &v);
  else
    at = first_bad_64(&r->job->check, r->index, begin, end, r->lo, r->hi, &v);
  r->bad_at[share] = at;
  r->bad_value[share] = v;
  return MT_OK;
}

/* units [begin, end) of unit elements each */
static int unit_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  ix_run *r = ctx;
  walk(r->row, &r->job->plan, r->base, begin * r->unit, end * r->unit, &r->ctx);
  return MT_OK;
}

/* columns [begin, end) of the inner dims, for every outer position */
static int column_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  ix_run *r = ctx;
  const int64_t inner = r->inner, outer = r->job->numel / inner;
  for (int64_t o = 0; o < outer; o++) walk(r->row, &r->job->plan, r->base, o * inner + begin, o * inner + end, &r->ctx);
  return MT_OK;
}

/* check_index finds the first index out of range, in the index's logical
 * order: MT_ERR_INDEX with job->bad set to it, or MT_OK. */
static int check_index(ix_run *r) {
  mt_index_job *job = r->job;
  r->lo = job->wrap ? -job->bound : 0;
  r->hi = job->bound;
  for (int w = 0; w < MT_POOL_MAX; w++) r->bad_at[w] = -1;
  if (job->grain > 0 && job->check_numel >= 2 * job->grain)
    mt_parallel(job->check_numel, job->grain, check_share, r, 0);
  else
    check_share(r, 0, 0, job->check_numel);
  int64_t at = -1;
  for (int w = 0; w < MT_POOL_MAX; w++)
    if (r->bad_at[w] >= 0 && (at < 0 || r->bad_at[w] < at)) {
      at = r->bad_at[w];
      job->bad = r->bad_value[w];
    }
  return at >= 0 ? MT_ERR_INDEX : MT_OK;
}

int mt_index(mt_index_job *job, void *out, void *src, void *index) {
  if (job->dtype < 0 || job->dtype >= MT_NUM_DTYPES || job->reduce < 0 || job->reduce >= MT_IX_NUM_REDUCE ||
      (job->index_dtype != MT_I32 && job->index_dtype != MT_I64) || job->plan.ndim < 0 ||
      job->plan.ndim > MT_MAX_DIMS || job->check.ndim < 0 || job->check.ndim > MT_MAX_DIMS)
    return MT_ERR_UNSUPPORTED;
  ix_run run;
  ix_run *r = &run;
  memset(r, 0, sizeof run);
  r->job = job;
  r->index = index;
  const int i64 = job->index_dtype == MT_I64;
  const int64_t grain = job->grain;

  /* The check: before anything is written, or for a gather (which reads
   * in range whatever the index) as it runs, then again when it failed. */
  int bad = 0;
  const int fused = job->kind == MT_IX_GATHER && !job->wrap && job->numel > 0 && job->bound > 0;
  if (job->check_numel > 0 && !fused) {
    int st = check_index(r);
    if (st != MT_OK) return st;
  }
  if (job->numel <= 0) return MT_OK;

  static const int log2size[MT_NUM_DTYPES] = {0, 0, 0, 1, 2, 3, 1, 1, 2, 3};
  r->base[0] = out;
  r->base[1] = src;
  r->base[2] = index;
  ix_ctx *c = &r->ctx;
  c->jump = job->jump;
  c->bound = job->bound;
  c->es = (int64_t)1 << log2size[job->dtype];
  c->include_self = job->include_self;
  c->alpha_i = job->alpha_i;
  c->alpha_f = job->alpha_f;
  c->out = out;
  c->hits_lo = job->hits_lo;
  c->bad = &bad;
  if (job->kind == MT_IX_GATHER) {
    r->row = gather_rows[log2size[job->dtype]][i64];
  } else {
    r->row = scatter_rows[job->dtype][job->reduce][i64];
    if (job->hits_span > 0) {
      c->hits = calloc((size_t)job->hits_span, sizeof(int32_t));
      if (!c->hits) return MT_ERR_NOMEM;
    }
  }

  /* How to split: gather anywhere; scatter in whole runs up to the
   * indexed dim, or in columns below it when there are few such runs. */
  const mt_plan *p = &job->plan;
  int64_t unit = 1, inner = 1;
  if (job->kind == MT_IX_SCATTER && job->ixdim >= 0) {
    for (int64_t d = 0; d < job->ixdim; d++) inner *= p->shape[d];
    unit = inner * p->shape[job->ixdim];
  }
  r->unit = unit;
  const int64_t units = job->numel / unit;
  if (grain <= 0 || job->numel < 2 * grain) {
    walk(r->row, p, r->base, 0, job->numel, c);
  } else if (units >= 8 || inner < 2) {
    mt_parallel(units, grain / unit > 0 ? grain / unit : 1, unit_share, r, 0);
  } else {
    r->inner = inner;
    const int64_t per_column = job->numel / inner;
    mt_parallel(inner, grain / per_column > 0 ? grain / per_column : 1, column_share, r, 0);
  }

  if (bad && job->check_numel > 0) return check_index(r);
  if (c->hits) {
    if (job->reduce == MT_IX_MEAN)
      mean_divide((int)job->dtype, out, c->hits, job->hits_lo, job->hits_span, job->include_self ? 1 : 0);
    free(c->hits);
  }
  return MT_OK;
}
