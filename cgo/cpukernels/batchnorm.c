/* Batch norm over contiguous [n, c, s] arrays, per channel of dim 1, as
 * PyTorch 1.13's CPU kernels (aten/src/ATen/native/cpu/batch_norm_kernel.cpp):
 * the stats in double (two passes: the mean, then the sum of squared
 * deviations), the output as x * alpha + beta with alpha = invstd * w and
 * beta = b - mean * alpha in the element type, and the backward from the
 * channel's sum of g and of (x - mean) * g. Channels are independent, so
 * an op is split across the pool by channels. */
#include <math.h>
#include <stdint.h>

#include "cpu_kernels.h"

/* bn_sum is the sum over the channel's n rows of s elements, in double
 * with four partial sums. */
#define BN_DEFINE(T, SUF)                                                                                    \
  static double bn_sum_##SUF(const T *x, int64_t n, int64_t stride, int64_t s) {                           \
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                                       \
      const T *r = x + i * stride;                                                                          \
      int64_t j = 0;                                                                                        \
      for (; j + 4 <= s; j += 4) {                                                                          \
        a0 += (double)r[j];                                                                                 \
        a1 += (double)r[j + 1];                                                                             \
        a2 += (double)r[j + 2];                                                                             \
        a3 += (double)r[j + 3];                                                                             \
      }                                                                                                     \
      for (; j < s; j++) a0 += (double)r[j];                                                                \
    }                                                                                                       \
    return (a0 + a1) + (a2 + a3);                                                                           \
  }                                                                                                         \
  static double bn_sqdev_##SUF(const T *x, int64_t n, int64_t stride, int64_t s, double m) {               \
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                                       \
      const T *r = x + i * stride;                                                                          \
      int64_t j = 0;                                                                                        \
      for (; j + 4 <= s; j += 4) {                                                                          \
        double d0 = (double)r[j] - m, d1 = (double)r[j + 1] - m;                                           \
        double d2 = (double)r[j + 2] - m, d3 = (double)r[j + 3] - m;                                       \
        a0 += d0 * d0;                                                                                      \
        a1 += d1 * d1;                                                                                      \
        a2 += d2 * d2;                                                                                      \
        a3 += d3 * d3;                                                                                      \
      }                                                                                                     \
      for (; j < s; j++) {                                                                                  \
        double d = (double)r[j] - m;                                                                        \
        a0 += d * d;                                                                                        \
      }                                                                                                     \
    }                                                                                                       \
    return (a0 + a1) + (a2 + a3);                                                                           \
  }                                                                                                         \
  /* bn_gsums sets *sg to the sum of g and *dot to the sum of (x - m) * g. */                              \
  static void bn_gsums_##SUF(const T *g, const T *x, int64_t n, int64_t stride, int64_t s, double m,        \
                             double *sg, double *dot) {                                                     \
    double s0 = 0, s1 = 0, d0 = 0, d1 = 0;                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                                       \
      const T *gr = g + i * stride, *xr = x + i * stride;                                                   \
      int64_t j = 0;                                                                                        \
      for (; j + 2 <= s; j += 2) {                                                                          \
        double g0 = (double)gr[j], g1 = (double)gr[j + 1];                                                 \
        s0 += g0;                                                                                           \
        s1 += g1;                                                                                           \
        d0 += ((double)xr[j] - m) * g0;                                                                     \
        d1 += ((double)xr[j + 1] - m) * g1;                                                                 \
      }                                                                                                     \
      for (; j < s; j++) {                                                                                  \
        double g0 = (double)gr[j];                                                                          \
        s0 += g0;                                                                                           \
        d0 += ((double)xr[j] - m) * g0;                                                                     \
      }                                                                                                     \
    }                                                                                                       \
    *sg = s0 + s1;                                                                                          \
    *dot = d0 + d1;                                                                                         \
  }                                                                                                         \
  static void bn_fwd_##SUF(const mt_bn_params *p, const T *x, const T *w, const T *b, T *mean, T *invstd,   \
                           T *var, T *y, int64_t begin, int64_t end) {                                      \
    int64_t n = p->n, c = p->c, s = p->s, stride = c * s;                                                   \
    for (int64_t ch = begin; ch < end; ch++) {                                                              \
      const T *xc = x + ch * s;                                                                             \
      T m, is;                                                                                              \
      if (p->training) {                                                                                    \
        double cnt = (double)(n * s);                                                                       \
        double dm = bn_sum_##SUF(xc, n, stride, s) / cnt;                                                   \
        double dv = bn_sqdev_##SUF(xc, n, stride, s, dm) / cnt;                                             \
        m = (T)dm;                                                                                          \
        is = (T)(1.0 / sqrt(dv + p->eps));                                                                  \
        mean[ch] = m;                                                                                       \
        invstd[ch] = is;                                                                                    \
        var[ch] = (T)dv;                                                                                    \
      } else {                                                                                              \
        m = mean[ch];                                                                                       \
        is = (T)1 / (T)sqrt((double)var[ch] + p->eps);                                                      \
      }                                                                                                     \
      T alpha = w ? is * w[ch] : is;                                                                        \
      T beta = (b ? b[ch] : (T)0) - m * alpha;                                                              \
      T *yc = y + ch * s;                                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                                     \
        const T *xr = xc + i * stride;                                                                      \
        T *yr = yc + i * stride;                                                                            \
        for (int64_t j = 0; j < s; j++) yr[j] = xr[j] * alpha + beta;                                       \
      }                                                                                                     \
    }                                                                                                       \
  }                                                                                                         \
  static void bn_bwd_##SUF(const mt_bn_params *p, const T *g, const T *x, const T *w, const T *mean,        \
                           const T *invstd, T *gx, T *gw, T *gb, int64_t begin, int64_t end) {              \
    int64_t n = p->n, c = p->c, s = p->s, stride = c * s;                                                   \
    for (int64_t ch = begin; ch < end; ch++) {                                                              \
      const T *xc = x + ch * s, *gc = g + ch * s;                                                           \
      double m = (double)mean[ch], is = (double)invstd[ch], wv = w ? (double)w[ch] : 1.0;                  \
      double sg, dot;                                                                                       \
      bn_gsums_##SUF(gc, xc, n, stride, s, m, &sg, &dot);                                                   \
      if (gw) gw[ch] = (T)(dot * is);                                                                       \
      if (gb) gb[ch] = (T)sg;                                                                               \
      if (!gx) continue;                                                                                    \
      T c1, c2, c3;                                                                                         \
      if (p->training) {                                                                                    \
        double cnt = (double)(n * s);                                                                       \
        double k = dot * is * is / cnt, gm = sg / cnt;                                                      \
        /* (g - gm - (x - m) * k) * is * wv = g * c1 + x * c2 + c3 */                                      \
        c1 = (T)(is * wv);                                                                                  \
        c2 = (T)(-k * is * wv);                                                                             \
        c3 = (T)((m * k - gm) * is * wv);                                                                   \
      } else {                                                                                              \
        c1 = (T)(is * wv);                                                                                  \
        c2 = 0;                                                                                             \
        c3 = 0;                                                                                             \
      }                                                                                                     \
      T *oc = gx + ch * s;                                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                                     \
        const T *gr = gc + i * stride, *xr = xc + i * stride;                                               \
        T *orow = oc + i * stride;                                                                          \
        if (p->training)                                                                                    \
          for (int64_t j = 0; j < s; j++) orow[j] = gr[j] * c1 + xr[j] * c2 + c3;                           \
        else                                                                                                \
          for (int64_t j = 0; j < s; j++) orow[j] = gr[j] * c1;                                             \
      }                                                                                                     \
    }                                                                                                       \
  }

BN_DEFINE(float, f32)
BN_DEFINE(double, f64)

int mt_batch_norm(int dtype, const mt_bn_params *p, const void *x, const void *w, const void *b, void *mean,
                  void *invstd, void *var, void *y, int64_t begin, int64_t end) {
  if (dtype == MT_F32)
    bn_fwd_f32(p, x, w, b, mean, invstd, var, y, begin, end);
  else if (dtype == MT_F64)
    bn_fwd_f64(p, x, w, b, mean, invstd, var, y, begin, end);
  else
    return MT_ERR_UNSUPPORTED;
  return MT_OK;
}

int mt_batch_norm_backward(int dtype, const mt_bn_params *p, const void *g, const void *x, const void *w,
                           const void *mean, const void *invstd, void *gx, void *gw, void *gb, int64_t begin,
                           int64_t end) {
  if (dtype == MT_F32)
    bn_bwd_f32(p, g, x, w, mean, invstd, gx, gw, gb, begin, end);
  else if (dtype == MT_F64)
    bn_bwd_f64(p, g, x, w, mean, invstd, gx, gw, gb, begin, end);
  else
    return MT_ERR_UNSUPPORTED;
  return MT_OK;
}

/* The _parallel forms: channels [0, p.c) split across the pool. */
typedef struct {
  int dtype;
  mt_bn_params p;
  const void *g, *x, *w, *b;
  void *mean, *invstd, *var, *y, *gw, *gb;
} bn_job;

static int bn_fwd_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  bn_job *j = ctx;
  return mt_batch_norm(j->dtype, &j->p, j->x, j->w, j->b, j->mean, j->invstd, j->var, j->y, begin, end);
}

int mt_batch_norm_parallel(int dtype, mt_bn_params p, const void *x, const void *w, const void *b, void *mean,
                           void *invstd, void *var, void *y, int64_t grain) {
  bn_job j = {dtype, p, 0, x, w, b, mean, invstd, var, y, 0, 0};
  return mt_parallel(p.c, grain, bn_fwd_share, &j, 0);
}

static int bn_bwd_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  bn_job *j = ctx;
  return mt_batch_norm_backward(j->dtype, &j->p, j->g, j->x, j->w, j->mean, j->invstd, j->y, j->gw, j->gb, begin,
                                end);
}

int mt_batch_norm_backward_parallel(int dtype, mt_bn_params p, const void *g, const void *x, const void *w,
                                    const void *mean, const void *invstd, void *gx, void *gw, void *gb,
                                    int64_t grain) {
  bn_job j = {dtype, p, g, x, w, 0, (void *)mean, (void *)invstd, 0, gx, gw, gb};
  return mt_parallel(p.c, grain, bn_bwd_share, &j, 0);
}
