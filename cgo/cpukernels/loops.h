/* Macros that define the inner loops of the CPU kernels. An inner loop runs
 * one op over n elements of one row of an iteration plan; it has a
 * contiguous branch the compiler vectorises and a strided one. */
#ifndef MINDTORCH_CPU_LOOPS_H
#define MINDTORCH_CPU_LOOPS_H

#include <stdint.h>
#include "cpu_kernels.h"

/* The kernels never read the floating-point exception flags, so the
 * compiler may assume comparisons do not trap: that lets it vectorize
 * loops with float comparisons and selects (clamps, NaN-aware maxima, the
 * range reduction of mt_expf). Results are unchanged: NaN, infinities and
 * signed zeros keep their IEEE meaning. (cgo does not accept the flag on
 * the command line.) */
#if defined(__clang__)
#pragma clang fp exceptions(ignore)
#elif defined(__GNUC__)
#pragma GCC optimize("no-trapping-math")
#endif

/* A loop runs rows of n elements: element i of row r of operand k is at
 * p[k] + r*os[k] + i*s[k] (bytes). One call covers a block of rows, so
 * that short rows (a broadcast bias of 64 elements, say) do not pay a call
 * and the loop's setup each. */
typedef int (*mt_loop)(int64_t n, int64_t rows, char *const *p, const int64_t *s, const int64_t *os,
                       const mt_attrs *a);

/* Every hot loop gets a copy per instruction set, chosen when the program
 * loads (GCC function multiversioning). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(MT_NO_CLONES)
#define MT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MT_CLONES
#endif

/* A row function runs one row of n elements (element i of operand k at
 * p[k] + i*s[k]). It is inlined into the loop that MT_ROWS makes of it, and
 * so compiled for each instruction set of that loop's clones. */
#define MT_ROW static inline __attribute__((always_inline)) int

/* MT_ROWS(name, row) defines the mt_loop name over the row function row. */
#define MT_ROWS(name, row)                                                    \
  MT_CLONES static int name(int64_t n, int64_t rows, char *const *p,          \
                            const int64_t *s, const int64_t *os,              \
                            const mt_attrs *a) {                              \
    int status = 0;                                                           \
    for (int64_t r = 0; r < rows; r++) {                                      \
      char *q[MT_MAX_OPS] = {p[0] + r * os[0], p[1] + r * os[1],              \
                             p[2] + r * os[2], p[3] + r * os[3]};             \
      int st = row(n, q, s, a);                                               \
      if (st) status = st;                                                    \
    }                                                                         \
    return status;                                                            \
  }

/* An attribute in the compute type: FL says whether it is a floating type. */
#define MT_ATTR(T, FL, k) ((FL) ? (T)a->f[k] : (T)a->i[k])

#define MT_CONSTS(T, FL)                                                      \
  const T c0 = MT_ATTR(T, FL, 0), c1 = MT_ATTR(T, FL, 1), c2 = MT_ATTR(T, FL, 2); \
  (void)c0; (void)c1; (void)c2;                                               \
  int err = 0; (void)err

/* out = EXPR(x) */
#define MT_LOOP1(name, T, OT, FL, EXPR)                                       \
  MT_ROW name##_row(int64_t n, char *const *p, const int64_t *s,              \
                   const mt_attrs *a) {                                       \
    MT_CONSTS(T, FL);                                                         \
    if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T)) {          \
      OT *o = (OT *)p[0]; const T *xp = (const T *)p[1];                      \
      for (int64_t i = 0; i < n; i++) { T x = xp[i]; o[i] = (OT)(EXPR); }     \
    } else {                                                                  \
      char *o = p[0]; const char *xp = p[1];                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        T x = *(const T *)(xp + i * s[1]);                                    \
        *(OT *)(o + i * s[0]) = (OT)(EXPR);                                   \
      }                                                                       \
    }                                                                         \
    return err;                                                               \
  }                                                                           \
  MT_ROWS(name, name##_row)

/* out = EXPR(x, y) */
#define MT_LOOP2(name, T, OT, FL, EXPR)                                       \
  MT_ROW name##_row(int64_t n, char *const *p, const int64_t *s,              \
                   const mt_attrs *a) {                                       \
    MT_CONSTS(T, FL);                                                         \
    const int64_t so = sizeof(OT), st = sizeof(T);                            \
    if (s[0] == so && s[1] == st && s[2] == st) {                             \
      OT *o = (OT *)p[0]; const T *xp = (const T *)p[1], *yp = (const T *)p[2]; \
      for (int64_t i = 0; i < n; i++) { T x = xp[i], y = yp[i]; o[i] = (OT)(EXPR); } \
    } else if (s[0] == so && s[1] == st && s[2] == 0) {                       \
      OT *o = (OT *)p[0]; const T *xp = (const T *)p[1]; const T y = *(const T *)p[2]; \
      for (int64_t i = 0; i < n; i++) { T x = xp[i]; o[i] = (OT)(EXPR); }     \
    } else if (s[0] == so && s[1] == 0 && s[2] == st) {                       \
      OT *o = (OT *)p[0]; const T x = *(const T *)p[1]; const T *yp = (const T *)p[2]; \
      for (int64_t i = 0; i < n; i++) { T y = yp[i]; o[i] = (OT)(EXPR); }     \
    } else {                                                                  \
      char *o = p[0]; const char *xp = p[1], *yp = p[2];                      \
      for (int64_t i = 0; i < n; i++) {                                       \
        T x = *(const T *)(xp + i * s[1]), y = *(const T *)(yp + i * s[2]);   \
        *(OT *)(o + i * s[0]) = (OT)(EXPR);                                   \
      }                                                                       \
    }                                                                         \
    return err;                                                               \
  }                                                                           \
  MT_ROWS(name, name##_row)

/* out = EXPR(x, y, z) with x of type XT (the condition of where is bool). */
#define MT_LOOP3(name, XT, T, OT, FL, EXPR)                                   \
  MT_ROW name##_row(int64_t n, char *const *p, const int64_t *s,              \
                   const mt_attrs *a) {                                       \
    MT_CONSTS(T, FL);                                                         \
    const int64_t so = sizeof(OT), st = sizeof(T);                            \
    if (s[0] == so && s[1] == (int64_t)sizeof(XT) && s[2] == st && s[3] == st) { \
      OT *o = (OT *)p[0]; const XT *xp = (const XT *)p[1];                    \
      const T *yp = (const T *)p[2], *zp = (const T *)p[3];                   \
      for (int64_t i = 0; i < n; i++) {                                       \
        XT x = xp[i]; T y = yp[i], z = zp[i]; o[i] = (OT)(EXPR);              \
      }                                                                       \
    } else {                                                                  \
      char *o = p[0]; const char *xp = p[1], *yp = p[2], *zp = p[3];          \
      for (int64_t i = 0; i < n; i++) {                                       \
        XT x = *(const XT *)(xp + i * s[1]);                                  \
        T y = *(const T *)(yp + i * s[2]), z = *(const T *)(zp + i * s[3]);   \
        *(OT *)(o + i * s[0]) = (OT)(EXPR);                                   \
      }                                                                       \
    }                                                                         \
    return err;                                                               \
  }                                                                           \
  MT_ROWS(name, name##_row)

/* A reduction kernel (reduce.c) over x, a contiguous [r, inner] block,
 * columns [0, nc): see mt_reduce. */
typedef int (*mt_red_fn)(const void *x, const void *g, int64_t r, int64_t inner, int64_t nc, void *out,
                         int64_t *idx, const mt_attrs *a);

/* mt_reduction_fn is the kernel of reduction op in dtype (NULL when there
 * is none); *along is set when it writes r values per row (scans, softmax)
 * rather than one, *os to the bytes of an output value. */
mt_red_fn mt_reduction_fn(int op, int dtype, int *along, int64_t *os);

/* mt_vexp_active says whether the table holds vexp.h's float32 exp,
 * sigmoid and silu loops; mt_vexp_expected whether it should (a GCC build
 * for x86-64 on a CPU with x86-64-v4). For the tests. */
int mt_vexp_active(void);
int mt_vexp_expected(void);
/* mt_pointwise_generated_1d runs the generated float32 loop of op (the one
 * vexp.h's replaced, if any) over n elements with byte strides. */
int mt_pointwise_generated_1d(int op, int64_t n, void *p0, void *p1, void *p2, int64_t s0, int64_t s1,
                              int64_t s2);

/* mt_pointwise_loop is the loop of a pointwise op in a compute dtype (NULL
 * when there is none). */
mt_loop mt_pointwise_loop(int op, int dtype);

/* mt_run_plan runs loop over elements [begin, end) of plan. */
int mt_run_plan(mt_loop loop, const mt_plan *plan, char *const *base, int64_t begin, int64_t end,
                const mt_attrs *a);
/* mt_run_plan_parallel runs loop over elements [0, n) of plan, split across
 * the worker pool in shares of at least grain elements. */
int mt_run_plan_parallel(mt_loop loop, const mt_plan *plan, char *const *base, int64_t n, const mt_attrs *a,
                         int64_t grain);

#endif
