/* Pooling over the last two dims of contiguous [planes, H, W] arrays: max,
 * average and their adaptive forms, forward and backward, with the window
 * arithmetic, accumulation order and NaN rule of PyTorch 1.13's CPU kernels
 * (aten/src/ATen/native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp,
 * AdaptiveAvgPoolKernel.cpp, AdaptiveMaxPoolKernel.cpp). Planes are
 * independent, so an op is split across the pool by planes. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_kernels.h"

/* PyTorch's adaptive window of output position a of b over c inputs:
 * [floor(a*c/b), ceil((a+1)*c/b)), in integers (AdaptivePooling.h). */
static inline int64_t start_index(int64_t a, int64_t b, int64_t c) { return (a / b) * c + ((a % b) * c) / b; }
static inline int64_t end_index(int64_t a, int64_t b, int64_t c) { return 1 + ((a + 1) * c - 1) / b; }

/* max_pool2d: the largest value of each dilated window, its flat index in
 * the plane; a NaN wins over every number and a later NaN over an earlier
 * one, as `(val > maxval) || isnan(val)` decides in PyTorch. */
#define MAX_FWD(NAME, T)                                                                                   \
  static void NAME(const mt_pool_params *p, const T *x, T *y, int64_t *idx, int64_t b, int64_t e) {         \
    for (int64_t c = b; c < e; c++) {                                                                      \
      const T *in = x + c * p->ih * p->iw;                                                                 \
      T *out = y + c * p->oh * p->ow;                                                                      \
      int64_t *ix = idx + c * p->oh * p->ow;                                                               \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        int64_t ih0 = oh * p->sh - p->ph;                                                                  \
        int64_t ih1 = ih0 + (p->kh - 1) * p->dh + 1;                                                       \
        if (ih1 > p->ih) ih1 = p->ih;                                                                      \
        if (ih0 < 0) ih0 += ((-ih0 + p->dh - 1) / p->dh) * p->dh;                                                                      \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          int64_t iw0 = ow * p->sw - p->pw;                                                                \
          int64_t iw1 = iw0 + (p->kw - 1) * p->dw + 1;                                                     \
          if (iw1 > p->iw) iw1 = p->iw;                                                                    \
          if (iw0 < 0) iw0 += ((-iw0 + p->dw - 1) / p->dw) * p->dw;                                                                    \
          int64_t maxindex = ih0 * p->iw + iw0;                                                            \
          T maxval = -INFINITY;                                                                            \
          for (int64_t h = ih0; h < ih1; h += p->dh) {                                                     \
            for (int64_t w = iw0; w < iw1; w += p->dw) {                                                   \
              int64_t i = h * p->iw + w;                                                                   \
              T v = in[i];                                                                                 \
              if ((v > maxval) || isnan(v)) {                                                              \
                maxval = v;                                                                                \
                maxindex = i;                                                                              \
              }                                                                                            \
            }                                                                                              \
          }                                                                                                \
          out[oh * p->ow + ow] = maxval;                                                                   \
          ix[oh * p->ow + ow] = maxindex;                                                                  \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

/* adaptive_max_pool2d: the same rule over adaptive windows. */
#define ADAPTIVE_MAX_FWD(NAME, T)                                                                          \
  static void NAME(const mt_pool_params *p, const T *x, T *y, int64_t *idx, int64_t b, int64_t e) {         \
    for (int64_t c = b; c < e; c++) {                                                                      \
      const T *in = x + c * p->ih * p->iw;                                                                 \
      T *out = y + c * p->oh * p->ow;                                                                      \
      int64_t *ix = idx + c * p->oh * p->ow;                                                               \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        int64_t ih0 = start_index(oh, p->oh, p->ih), ih1 = end_index(oh, p->oh, p->ih);                    \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          int64_t iw0 = start_index(ow, p->ow, p->iw), iw1 = end_index(ow, p->ow, p->iw);                  \
          int64_t maxindex = ih0 * p->iw + iw0;                                                            \
          T maxval = -INFINITY;                                                                            \
          for (int64_t h = ih0; h < ih1; h++) {                                                            \
            for (int64_t w = iw0; w < iw1; w++) {                                                          \
              int64_t i = h * p->iw + w;                                                                   \
              T v = in[i];                                                                                 \
              if ((v > maxval) || isnan(v)) {                                                              \
                maxval = v;                                                                                \
                maxindex = i;                                                                              \
              }                                                                                            \
            }                                                                                              \
          }                                                                                                \
          out[oh * p->ow + ow] = maxval;                                                                   \
          ix[oh * p->ow + ow] = maxindex;                                                                  \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

/* The backward of both max pools: each output gradient added at its index. */
#define MAX_BWD(NAME, T)                                                                                   \
  static void NAME(const mt_pool_params *p, const T *g, T *gi, const int64_t *idx, int64_t b, int64_t e) {  \
    int64_t plane_in = p->ih * p->iw, plane_out = p->oh * p->ow;                                          \
    for (int64_t c = b; c < e; c++) {                                                                      \
      T *dst = gi + c * plane_in;                                                                          \
      const T *src = g + c * plane_out;                                                                    \
      const int64_t *ix = idx + c * plane_out;                                                             \
      memset(dst, 0, (size_t)plane_in * sizeof(T));                                                        \
      for (int64_t i = 0; i < plane_out; i++) {                                                            \
        int64_t m = ix[i];                                                                                 \
        if (m >= 0 && m < plane_in) dst[m] += src[i];                                                      \
      }                                                                                                    \
    }                                                                                                      \
  }

/* avg_pool2d's window of output (oh, ow): its clipped bounds and divisor,
 * as cpu_avg_pool computes them. */
typedef struct {
  int64_t h0, h1, w0, w1, div;
} avg_window;

static inline avg_window avg_win(const mt_pool_params *p, int64_t oh, int64_t ow) {
  avg_window a;
  a.h0 = oh * p->sh - p->ph;
  a.w0 = ow * p->sw - p->pw;
  a.h1 = a.h0 + p->kh;
  if (a.h1 > p->ih + p->ph) a.h1 = p->ih + p->ph;
  a.w1 = a.w0 + p->kw;
  if (a.w1 > p->iw + p->pw) a.w1 = p->iw + p->pw;
  int64_t pool_size = (a.h1 - a.h0) * (a.w1 - a.w0);
  if (a.h0 < 0) a.h0 = 0;
  if (a.w0 < 0) a.w0 = 0;
  if (a.h1 > p->ih) a.h1 = p->ih;
  if (a.w1 > p->iw) a.w1 = p->iw;
  if (p->divisor != 0) {
    a.div = p->divisor;
  } else if (p->count_include_pad) {
    a.div = pool_size;
  } else {
    a.div = (a.h1 - a.h0) * (a.w1 - a.w0);
  }
  return a;
}

/* A window's sum over its divisor: floats divide; int64 truncates as C++
 * does, with INT64_MIN / -1 wrapping instead of trapping. */
#define FDIV(sum, d) ((sum) / (d))
#define IDIV(sum, d) ((d) == -1 ? (int64_t)(0 - (uint64_t)(sum)) : (sum) / (d))

#define AVG_FWD(NAME, T, DIV)                                                                                  \
  static void NAME(const mt_pool_params *p, const T *x, T *y, int64_t b, int64_t e) {                       \
    for (int64_t c = b; c < e; c++) {                                                                      \
      const T *in = x + c * p->ih * p->iw;                                                                 \
      T *out = y + c * p->oh * p->ow;                                                                      \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          avg_window a = avg_win(p, oh, ow);                                                               \
          if (a.h0 >= a.h1 || a.w0 >= a.w1) {                                                              \
            out[oh * p->ow + ow] = 0;                                                                      \
            continue;                                                                                      \
          }                                                                                                \
          T sum = 0;                                                                                       \
          for (int64_t h = a.h0; h < a.h1; h++)                                                            \
            for (int64_t w = a.w0; w < a.w1; w++) sum += in[h * p->iw + w];                                \
          out[oh * p->ow + ow] = DIV(sum, a.div);                                                           \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

#define AVG_BWD(NAME, T)                                                                                   \
  static void NAME(const mt_pool_params *p, const T *g, T *gi, int64_t b, int64_t e) {                      \
    for (int64_t c = b; c < e; c++) {                                                                      \
      T *dst = gi + c * p->ih * p->iw;                                                                     \
      const T *src = g + c * p->oh * p->ow;                                                                \
      memset(dst, 0, (size_t)(p->ih * p->iw) * sizeof(T));                                                 \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          avg_window a = avg_win(p, oh, ow);                                                               \
          if (a.h0 >= a.h1 || a.w0 >= a.w1) continue;                                                      \
          T delta = src[oh * p->ow + ow] / (T)a.div;                                                       \
          for (int64_t h = a.h0; h < a.h1; h++)                                                            \
            for (int64_t w = a.w0; w < a.w1; w++) dst[h * p->iw + w] += delta;                             \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

#define ADAPTIVE_AVG_FWD(NAME, T)                                                                          \
  static void NAME(const mt_pool_params *p, const T *x, T *y, int64_t b, int64_t e) {                       \
    for (int64_t c = b; c < e; c++) {                                                                      \
      const T *in = x + c * p->ih * p->iw;                                                                 \
      T *out = y + c * p->oh * p->ow;                                                                      \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        int64_t ih0 = start_index(oh, p->oh, p->ih), ih1 = end_index(oh, p->oh, p->ih);                    \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          int64_t iw0 = start_index(ow, p->ow, p->iw), iw1 = end_index(ow, p->ow, p->iw);                  \
          T sum = 0;                                                                                       \
          for (int64_t h = ih0; h < ih1; h++)                                                              \
            for (int64_t w = iw0; w < iw1; w++) sum += in[h * p->iw + w];                                  \
          out[oh * p->ow + ow] = sum / (T)(ih1 - ih0) / (T)(iw1 - iw0);                                    \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

#define ADAPTIVE_AVG_BWD(NAME, T)                                                                          \
  static void NAME(const mt_pool_params *p, const T *g, T *gi, int64_t b, int64_t e) {                      \
    for (int64_t c = b; c < e; c++) {                                                                      \
      T *dst = gi + c * p->ih * p->iw;                                                                     \
      const T *src = g + c * p->oh * p->ow;                                                                \
      memset(dst, 0, (size_t)(p->ih * p->iw) * sizeof(T));                                                 \
      for (int64_t oh = 0; oh < p->oh; oh++) {                                                             \
        int64_t ih0 = start_index(oh, p->oh, p->ih), ih1 = end_index(oh, p->oh, p->ih);                    \
        for (int64_t ow = 0; ow < p->ow; ow++) {                                                           \
          int64_t iw0 = start_index(ow, p->ow, p->iw), iw1 = end_index(ow, p->ow, p->iw);                  \
          T delta = src[oh * p->ow + ow] / (T)(ih1 - ih0) / (T)(iw1 - iw0);                                \
          for (int64_t h = ih0; h < ih1; h++)                                                              \
            for (int64_t w = iw0; w < iw1; w++) dst[h * p->iw + w] += delta;                               \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

MAX_FWD(max_fwd_f32, float)
MAX_FWD(max_fwd_f64, double)
ADAPTIVE_MAX_FWD(amax_fwd_f32, float)
ADAPTIVE_MAX_FWD(amax_fwd_f64, double)
MAX_BWD(max_bwd_f32, float)
MAX_BWD(max_bwd_f64, double)
AVG_FWD(avg_fwd_f32, float, FDIV)
AVG_FWD(avg_fwd_f64, double, FDIV)
AVG_FWD(avg_fwd_i64, int64_t, IDIV)
AVG_BWD(avg_bwd_f32, float)
AVG_BWD(avg_bwd_f64, double)
ADAPTIVE_AVG_FWD(aavg_fwd_f32, float)
ADAPTIVE_AVG_FWD(aavg_fwd_f64, double)
ADAPTIVE_AVG_BWD(aavg_bwd_f32, float)
ADAPTIVE_AVG_BWD(aavg_bwd_f64, double)

int mt_pool2d(int op, int dtype, const mt_pool_params *p, const void *x, void *y, int64_t *idx, int64_t begin,
              int64_t end) {
  if (p->ih < 0 || p->iw < 0 || p->oh < 0 || p->ow < 0) return MT_ERR_UNSUPPORTED;
  if (begin >= end) return MT_OK;
  if (p->oh == 0 || p->ow == 0) { /* no windows: a backward op's gradient is zero */
    int64_t es = dtype == MT_F32 ? 4 : 8;
    if (op == MT_POOLING_MAX_BACKWARD || op == MT_POOLING_AVG_BACKWARD || op == MT_POOLING_ADAPTIVE_AVG_BACKWARD)
      memset((char *)y + begin * p->ih * p->iw * es, 0, (size_t)((end - begin) * p->ih * p->iw * es));
    return MT_OK;
  }
  int f32 = dtype == MT_F32, f64 = dtype == MT_F64;
  switch (op) {
  case MT_POOLING_MAX:
    if (f32) max_fwd_f32(p, x, y, idx, begin, end);
    else if (f64) max_fwd_f64(p, x, y, idx, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_ADAPTIVE_MAX:
    if (f32) amax_fwd_f32(p, x, y, idx, begin, end);
    else if (f64) amax_fwd_f64(p, x, y, idx, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_MAX_BACKWARD:
    if (f32) max_bwd_f32(p, x, y, idx, begin, end);
    else if (f64) max_bwd_f64(p, x, y, idx, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_AVG:
    if (f32) avg_fwd_f32(p, x, y, begin, end);
    else if (f64) avg_fwd_f64(p, x, y, begin, end);
    else if (dtype == MT_I64) avg_fwd_i64(p, x, y, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_AVG_BACKWARD:
    if (f32) avg_bwd_f32(p, x, y, begin, end);
    else if (f64) avg_bwd_f64(p, x, y, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_ADAPTIVE_AVG:
    if (f32) aavg_fwd_f32(p, x, y, begin, end);
    else if (f64) aavg_fwd_f64(p, x, y, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  case MT_POOLING_ADAPTIVE_AVG_BACKWARD:
    if (f32) aavg_bwd_f32(p, x, y, begin, end);
    else if (f64) aavg_bwd_f64(p, x, y, begin, end);
    else return MT_ERR_UNSUPPORTED;
    return MT_OK;
  }
  return MT_ERR_UNSUPPORTED;
}

/* mt_pool2d_parallel: planes [0, p->planes) split across the pool. */
typedef struct {
  int op, dtype;
  mt_pool_params p;
  const void *x;
  void *y;
  int64_t *idx;
} pool2d_job;

static int pool2d_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  pool2d_job *j = ctx;
  return mt_pool2d(j->op, j->dtype, &j->p, j->x, j->y, j->idx, begin, end);
}

int mt_pool2d_parallel(int op, int dtype, mt_pool_params p, const void *x, void *y, int64_t *idx, int64_t grain) {
  pool2d_job j = {op, dtype, p, x, y, idx};
  return mt_parallel(p.planes, grain, pool2d_share, &j, 0);
}
