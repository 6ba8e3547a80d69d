/* Layer norm and RMS norm over the rows of a contiguous [rows, d] array,
 * one pass per row and direction (mt_layer_norm in cpu_kernels.h).
 *
 * A row's statistics are taken in double, as batchnorm.c's: the mean, then
 * the sum of squared deviations from it (two passes over a row that sits
 * in L1), so that float32 rows of millions of elements lose nothing; the
 * output is then ((x - mean) * rstd) * w + b in the element type, the
 * roundings of the composite of tensor ops that this kernel replaced.
 * The sums run on GCC's vector extensions (eight doubles at a time),
 * which the compiler would not vectorise by itself, since a vectorised
 * sum is summed in another order; MT_CLONES compiles them per
 * instruction set.
 *
 * Group norm is the same kernel over rows of (channels of a group) x
 * (spatial) elements, each channel's s elements sharing a weight and bias.
 *
 * The backward writes each row's input gradient at once and adds the
 * row's g * xhat and g into per-block sums of the weight's and bias's
 * gradients: the rows fall into blocks fixed by the row count
 * alone, each block's sums have their own array (no atomics), and the
 * blocks are summed in order at the end, so the gradients are the same
 * bits whatever the number of threads. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "loops.h"

/* Results are rounded as written (no fused multiply-adds), so that the
 * element-type arithmetic is the composite's. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("-ffp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

typedef double v8d __attribute__((vector_size(64)));
/* unaligned, aliasing loads of eight elements */
typedef float v8f_u __attribute__((vector_size(32), aligned(4), __may_alias__));
typedef double v8d_u __attribute__((vector_size(64), aligned(8), __may_alias__));

#define LD_float(p) __builtin_convertvector(*(const v8f_u *)(p), v8d)
#define LD_double(p) (*(const v8d_u *)(p))

/* hsum8 is the sum of a v8d's lanes (a macro: a function taking a v8d by
 * value draws GCC's note on the 64-byte parameter ABI). */
#define hsum8(v) ({ v8d a_ = (v); ((a_[0] + a_[1]) + (a_[2] + a_[3])) + ((a_[4] + a_[5]) + (a_[6] + a_[7])); })

/* ln_stat_double is the sum of x, or of (x - m)^2 (squares). */
MT_CLONES static double ln_stat_double(const double *x, int64_t d, double m, int squares) {
  /* four accumulators, so that the additions of a long row do not all
   * wait on one another */
  v8d a = {0}, b = {0}, c = {0}, e = {0};
  int64_t j = 0;
  double s = 0;
  if (!squares) {
    for (; j + 32 <= d; j += 32) {
      a += LD_double(x + j);
      b += LD_double(x + j + 8);
      c += LD_double(x + j + 16);
      e += LD_double(x + j + 24);
    }
    for (; j + 8 <= d; j += 8) a += LD_double(x + j);
    s = hsum8((a + b) + (c + e));
    for (; j < d; j++) s += (double)x[j];
    return s;
  }
  for (; j + 32 <= d; j += 32) {
    v8d u = LD_double(x + j) - m, v = LD_double(x + j + 8) - m;
    v8d w = LD_double(x + j + 16) - m, z = LD_double(x + j + 24) - m;
    a += u * u;
    b += v * v;
    c += w * w;
    e += z * z;
  }
  for (; j + 8 <= d; j += 8) {
    v8d u = LD_double(x + j) - m;
    a += u * u;
  }
  s = hsum8((a + b) + (c + e));
  for (; j < d; j++) {
    double u = (double)x[j] - m;
    s += u * u;
  }
  return s;
}

typedef float v16f __attribute__((vector_size(64)));
typedef float v16f_u __attribute__((vector_size(64), aligned(4), __may_alias__));

/* ln_stat_float is ln_stat_double for float32 rows, in blocks of 256: a
 * block is summed in float across 64 lanes (4 elements a lane), then
 * added in double, as PyTorch's cascade sums do: float adds need no
 * conversion per element (the stats of rows that sit in L1 are the
 * kernel's cost), and the error of 4-element float sums is below what a
 * float32 result shows. */
MT_CLONES static double ln_stat_float(const float *x, int64_t d, double m, int squares) {
  v8d acc = {0};
  const float mf = (float)m;
  int64_t j = 0;
  for (; j + 256 <= d; j += 256) {
    v16f a = {0}, b = {0}, c = {0}, e = {0};
    for (int64_t k = j; k < j + 256; k += 64) {
      v16f u = *(const v16f_u *)(x + k), v = *(const v16f_u *)(x + k + 16);
      v16f w = *(const v16f_u *)(x + k + 32), z = *(const v16f_u *)(x + k + 48);
      if (squares) {
        u -= mf, v -= mf, w -= mf, z -= mf;
        u *= u, v *= v, w *= w, z *= z;
      }
      a += u, b += v, c += w, e += z;
    }
    v16f t = (a + b) + (c + e);
    acc += __builtin_convertvector(__builtin_shufflevector(t, t, 0, 1, 2, 3, 4, 5, 6, 7), v8d) +
           __builtin_convertvector(__builtin_shufflevector(t, t, 8, 9, 10, 11, 12, 13, 14, 15), v8d);
  }
  double s = hsum8(acc);
  for (; j < d; j++) {
    double u = squares ? (double)(x[j] - mf) : (double)x[j];
    s += squares ? u * u : u;
  }
  return s;
}

#define LN_DEFINE(T)                                                                                                   \
  /* ln_fwd_##T normalises rows [begin, end). */                                                                       \
  MT_CLONES static void ln_fwd_##T(const mt_ln_params *p, const T *x, const T *w, const T *b, T *y,                    \
                                 T *mean, T *rstd, int64_t begin, int64_t end) {                                       \
    const int64_t d = p->d, s = p->s, per = d / s;                                                                     \
    for (int64_t r = begin; r < end; r++) {                                                                            \
      const T *xr = x + r * d, *wr = w + (r % p->groups) * per, *br = b + (r % p->groups) * per;                       \
      T *yr = y + r * d;                                                                                               \
      double m = 0, v;                                                                                                 \
      if (p->rms) {                                                                                                    \
        v = ln_stat_##T(xr, d, 0, 1) / (double)d;                                                                      \
      } else {                                                                                                         \
        m = d > 0 ? ln_stat_##T(xr, d, 0, 0) / (double)d : 0; /* an empty row: PyTorch's mean 0, rstd NaN */           \
        v = ln_stat_##T(xr, d, m, 1) / (double)d;                                                                      \
      }                                                                                                                \
      const T mt = (T)m, rt = (T)(1.0 / sqrt(v + p->eps));                                                             \
      mean[r] = mt;                                                                                                    \
      rstd[r] = rt;                                                                                                    \
      if (s == 1 && p->rms) {                                                                                          \
        for (int64_t j = 0; j < d; j++) yr[j] = (xr[j] * rt) * wr[j];                                                  \
      } else if (s == 1) {                                                                                             \
        for (int64_t j = 0; j < d; j++) yr[j] = ((xr[j] - mt) * rt) * wr[j] + br[j];                                   \
      } else {                                                                                                         \
        for (int64_t c = 0; c < per; c++) {                                                                            \
          const T wv = wr[c], bv = br[c], *xs = xr + c * s;                                                            \
          T *ys = yr + c * s;                                                                                          \
          for (int64_t k = 0; k < s; k++) ys[k] = ((xs[k] - mt) * rt) * wv + bv;                                       \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
  }                                                                                                                    \
                                                                                                                       \
  /* ln_gsums_##T sets *sg to the sum of the n elements of g and *sgx to the                                           \
   * sum of g * (x - md) * rd, in double (the block sums of a group norm). */                                          \
  MT_CLONES static void ln_gsums_##T(const T *g, const T *x, int64_t n, double md, double rd, double *sg,              \
                                     double *sgx) {                                                                    \
    v8d va = {0}, vb = {0};                                                                                            \
    int64_t j = 0;                                                                                                     \
    for (; j + 8 <= n; j += 8) {                                                                                       \
      v8d gv = LD_##T(g + j);                                                                                          \
      va += gv;                                                                                                        \
      vb += gv * ((LD_##T(x + j) - md) * rd);                                                                          \
    }                                                                                                                  \
    double a = hsum8(va), c = hsum8(vb);                                                                               \
    for (; j < n; j++) {                                                                                               \
      a += (double)g[j];                                                                                               \
      c += (double)g[j] * (((double)x[j] - md) * rd);                                                                  \
    }                                                                                                                  \
    *sg = a;                                                                                                           \
    *sgx = c;                                                                                                          \
  }                                                                                                                    \
                                                                                                                       \
  /* ln_bwd_##T writes the input gradient of rows [begin, end) and adds their                                          \
   * g * xhat and g into the parameter sums aw and ab (NULL: none). */                                                 \
  MT_CLONES static void ln_bwd_##T(const mt_ln_params *p, const T *g, const T *x, const T *mean,                       \
                                 const T *rstd, const T *w, T *gx, double *aw, double *ab,                             \
                                 int64_t begin, int64_t end) {                                                         \
    const int64_t d = p->d, s = p->s, per = d / s;                                                                     \
    for (int64_t r = begin; r < end; r++) {                                                                            \
      const int64_t off = (r % p->groups) * per;                                                                       \
      const T *gr = g + r * d, *xr = x + r * d, *wr = w + off;                                                         \
      const T mt = p->rms ? (T)0 : mean[r], rt = rstd[r];                                                              \
      const double md = (double)mt, rd = (double)rt;                                                                   \
      double sg = 0, sgx = 0;                                                                                          \
      if (s == 1) {                                                                                                    \
        if (aw) {                                                                                                      \
          for (int64_t j = 0; j < d; j++) {                                                                            \
            aw[off + j] += (double)(gr[j] * ((xr[j] - mt) * rt));                                                      \
            ab[off + j] += (double)gr[j];                                                                              \
          }                                                                                                            \
        }                                                                                                              \
        if (!gx) continue;                                                                                             \
        v8d va = {0}, vb = {0};                                                                                        \
        int64_t j = 0;                                                                                                 \
        for (; j + 8 <= d; j += 8) {                                                                                   \
          v8d gw = LD_##T(gr + j) * LD_##T(wr + j);                                                                    \
          va += gw;                                                                                                    \
          vb += gw * ((LD_##T(xr + j) - md) * rd);                                                                     \
        }                                                                                                              \
        sg = hsum8(va);                                                                                                \
        sgx = hsum8(vb);                                                                                               \
        for (; j < d; j++) {                                                                                           \
          double gw = (double)gr[j] * (double)wr[j];                                                                   \
          sg += gw;                                                                                                    \
          sgx += gw * (((double)xr[j] - md) * rd);                                                                     \
        }                                                                                                              \
      } else {                                                                                                         \
        for (int64_t c = 0; c < per; c++) {                                                                            \
          double a, bx;                                                                                                \
          ln_gsums_##T(gr + c * s, xr + c * s, s, md, rd, &a, &bx);                                                    \
          if (aw) {                                                                                                    \
            aw[off + c] += bx;                                                                                         \
            ab[off + c] += a;                                                                                          \
          }                                                                                                            \
          sg += a * (double)wr[c];                                                                                     \
          sgx += bx * (double)wr[c];                                                                                   \
        }                                                                                                              \
        if (!gx) continue;                                                                                             \
      }                                                                                                                \
      const T c1 = p->rms ? (T)0 : (T)(sg / (double)d), c2 = (T)(sgx / (double)d);                                     \
      T *o = gx + r * d;                                                                                               \
      if (s == 1) {                                                                                                    \
        for (int64_t j = 0; j < d; j++) o[j] = rt * ((gr[j] * wr[j] - c1) - ((xr[j] - mt) * rt) * c2);                 \
      } else {                                                                                                         \
        for (int64_t c = 0; c < per; c++) {                                                                            \
          const T wv = wr[c], *gs = gr + c * s, *xs = xr + c * s;                                                      \
          T *os = o + c * s;                                                                                           \
          for (int64_t k = 0; k < s; k++) os[k] = rt * ((gs[k] * wv - c1) - ((xs[k] - mt) * rt) * c2);                 \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
  }

LN_DEFINE(float)
LN_DEFINE(double)

/* ---- the forward, split by rows ---------------------------------------- */

/* ln_bad says whether p is no valid geometry. */
static int ln_bad(int dtype, const mt_ln_params *p) {
  return (dtype != MT_F32 && dtype != MT_F64) || p->rows < 0 || p->d < 0 || p->s < 1 || p->groups < 1 ||
         p->d % p->s != 0;
}

typedef struct {
  int dtype;
  const mt_ln_params *p;
  const void *x, *w, *b, *g, *mean, *rstd;
  void *y, *gx;
  double *acc;    /* backward: per block, np sums of g * xhat then np of g */
  int64_t np;     /* backward: the number of parameters */
  int64_t blocks; /* backward: the number of blocks of rows */
} ln_run;

static int ln_fwd_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const ln_run *r = ctx;
  if (r->dtype == MT_F32)
    ln_fwd_float(r->p, r->x, r->w, r->b, r->y, (float *)r->mean, (float *)r->rstd, begin, end);
  else
    ln_fwd_double(r->p, r->x, r->w, r->b, r->y, (double *)r->mean, (double *)r->rstd, begin, end);
  return MT_OK;
}

int mt_layer_norm(int dtype, mt_ln_params p, const void *x, const void *w, const void *b, void *y, void *mean,
                  void *rstd, int64_t grain) {
  if (ln_bad(dtype, &p)) return MT_ERR_UNSUPPORTED;
  ln_run r = {.dtype = dtype, .p = &p, .x = x, .w = w, .b = b, .y = y, .mean = mean, .rstd = rstd};
  if (grain > 0 && p.rows >= 2 * grain)
    mt_parallel(p.rows, grain, ln_fwd_share, &r, 0);
  else
    ln_fwd_share(&r, 0, 0, p.rows);
  return MT_OK;
}

/* ---- the backward, split by blocks of rows ------------------------------ */

/* ln_block_rows is the rows of block k of blocks over rows. */
static void ln_block_rows(int64_t rows, int64_t blocks, int64_t k, int64_t *begin, int64_t *end) {
  *begin = rows * k / blocks;
  *end = rows * (k + 1) / blocks;
}

static int ln_bwd_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const ln_run *r = ctx;
  const int64_t np = r->np;
  for (int64_t k = begin; k < end; k++) {
    int64_t rb, re;
    ln_block_rows(r->p->rows, r->blocks, k, &rb, &re);
    double *aw = r->acc ? r->acc + k * 2 * np : NULL, *ab = aw ? aw + np : NULL;
    if (r->dtype == MT_F32)
      ln_bwd_float(r->p, r->g, r->x, r->mean, r->rstd, r->w, r->gx, aw, ab, rb, re);
    else
      ln_bwd_double(r->p, r->g, r->x, r->mean, r->rstd, r->w, r->gx, aw, ab, rb, re);
  }
  return MT_OK;
}

int mt_layer_norm_backward(int dtype, mt_ln_params p, const void *g, const void *x, const void *mean,
                           const void *rstd, const void *w, void *gx, void *gw, void *gb, int64_t grain) {
  if (ln_bad(dtype, &p)) return MT_ERR_UNSUPPORTED;
  ln_run r = {.dtype = dtype, .p = &p, .g = g, .x = x, .mean = mean, .rstd = rstd, .w = w, .gx = gx};
  /* Blocks of rows: up to 32, fewer when their sums would take more than
   * 32 MB; one per row when the rows are fewer. */
  int64_t blocks = p.rows < 32 ? p.rows : 32;
  const int64_t np = p.groups * (p.d / p.s);
  r.np = np;
  const int64_t cap = np > 0 ? ((int64_t)1 << 21) / np : blocks;
  if (blocks > cap) blocks = cap > 0 ? cap : 1;
  r.blocks = blocks;
  const int want = gw != NULL && gb != NULL;
  if (want && blocks > 0 && np > 0) {
    r.acc = calloc((size_t)(blocks * 2 * np), sizeof(double));
    if (!r.acc) return MT_ERR_NOMEM;
  }
  if (blocks > 0) {
    /* grain is in rows: as many blocks as make a share of that many */
    int64_t per = p.rows / blocks, bg = per > 0 ? (grain + per - 1) / per : 1;
    if (grain > 0 && blocks >= 2 && p.rows >= 2 * grain)
      mt_parallel(blocks, bg > 0 ? bg : 1, ln_bwd_share, &r, 0);
    else
      ln_bwd_share(&r, 0, 0, blocks);
  }
  if (want) {
    for (int64_t j = 0; j < np; j++) {
      double sw = 0, sb = 0;
      for (int64_t k = 0; k < blocks; k++) {
        sw += r.acc[k * 2 * np + j];
        sb += r.acc[k * 2 * np + np + j];
      }
      if (dtype == MT_F32) {
        ((float *)gw)[j] = (float)sw;
        ((float *)gb)[j] = (float)sb;
      } else {
        ((double *)gw)[j] = sw;
        ((double *)gb)[j] = sb;
      }
    }
  }
  free(r.acc);
  return MT_OK;
}
