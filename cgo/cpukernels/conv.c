/*
 * Convolution helpers (conv.c): im2col and col2im over a batch of
 * contiguous [C, H, W] images, split across the worker pool by (image,
 * channel) planes. The matrix products run in Go's gemm (OpenBLAS or
 * gonum); these loops only move data.
 */
#include <string.h>

#include "cpu_kernels.h"

typedef struct {
  int dtype;
  const void *src;
  void *dst;
  mt_conv_geom g;
} conv_job;

/* One plane of im2col: channel c of image n into rows c*kh*kw.. of the
 * image's column matrix [C*kh*kw, oh*ow]. */
#define IM2COL_PLANE(T)                                                                          \
  static void im2col_plane_##T(const T *x, T *col, const mt_conv_geom *g) {                    \
    const int64_t L = g->oh * g->ow;                                                           \
    for (int64_t ki = 0; ki < g->kh; ki++) {                                                   \
      for (int64_t kj = 0; kj < g->kw; kj++) {                                                 \
        T *row = col + (ki * g->kw + kj) * L;                                                  \
        for (int64_t oi = 0; oi < g->oh; oi++) {                                               \
          const int64_t hi = oi * g->sh - g->pt + ki * g->dh;                                  \
          T *r = row + oi * g->ow;                                                             \
          if (hi < 0 || hi >= g->h) {                                                          \
            memset(r, 0, (size_t)g->ow * sizeof(T));                                           \
            continue;                                                                          \
          }                                                                                    \
          const T *xr = x + hi * g->w;                                                         \
          const int64_t w0 = kj * g->dw - g->pl;                                               \
          if (g->sw == 1 && w0 >= 0 && w0 + g->ow <= g->w) {                                   \
            memcpy(r, xr + w0, (size_t)g->ow * sizeof(T));                                     \
            continue;                                                                          \
          }                                                                                    \
          for (int64_t oj = 0; oj < g->ow; oj++) {                                             \
            const int64_t wi = w0 + oj * g->sw;                                                \
            r[oj] = (wi >= 0 && wi < g->w) ? xr[wi] : (T)0;                                    \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
  }

/* One plane of col2im: the rows of channel c accumulated into the zeroed
 * plane x. */
#define COL2IM_PLANE(T)                                                                          \
  static void col2im_plane_##T(const T *col, T *x, const mt_conv_geom *g) {                    \
    const int64_t L = g->oh * g->ow;                                                           \
    memset(x, 0, (size_t)(g->h * g->w) * sizeof(T));                                           \
    for (int64_t ki = 0; ki < g->kh; ki++) {                                                   \
      for (int64_t kj = 0; kj < g->kw; kj++) {                                                 \
        const T *row = col + (ki * g->kw + kj) * L;                                            \
        for (int64_t oi = 0; oi < g->oh; oi++) {                                               \
          const int64_t hi = oi * g->sh - g->pt + ki * g->dh;                                  \
          if (hi < 0 || hi >= g->h) continue;                                                  \
          const T *r = row + oi * g->ow;                                                       \
          T *xr = x + hi * g->w;                                                               \
          const int64_t w0 = kj * g->dw - g->pl;                                               \
          if (g->sw == 1 && w0 >= 0 && w0 + g->ow <= g->w) {                                   \
            T *d = xr + w0;                                                                    \
            for (int64_t oj = 0; oj < g->ow; oj++) d[oj] += r[oj];                             \
            continue;                                                                          \
          }                                                                                    \
          for (int64_t oj = 0; oj < g->ow; oj++) {                                             \
            const int64_t wi = w0 + oj * g->sw;                                                \
            if (wi >= 0 && wi < g->w) xr[wi] += r[oj];                                         \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
  }

IM2COL_PLANE(float)
IM2COL_PLANE(double)
IM2COL_PLANE(int64_t)
COL2IM_PLANE(float)
COL2IM_PLANE(double)
COL2IM_PLANE(int64_t)

/* Plane p = n*C + c: the image plane is p*h*w elements in, its rows of the
 * column matrix p*kh*kw*oh*ow elements in. */
static int im2col_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const conv_job *j = ctx;
  const mt_conv_geom *g = &j->g;
  const int64_t plane = g->h * g->w, rows = g->kh * g->kw * g->oh * g->ow;
  for (int64_t p = begin; p < end; p++) {
    switch (j->dtype) {
      case MT_F32:
        im2col_plane_float((const float *)j->src + p * plane, (float *)j->dst + p * rows, g);
        break;
      case MT_F64:
        im2col_plane_double((const double *)j->src + p * plane, (double *)j->dst + p * rows, g);
        break;
      case MT_I64:
        im2col_plane_int64_t((const int64_t *)j->src + p * plane, (int64_t *)j->dst + p * rows, g);
        break;
      default:
        return MT_ERR_UNSUPPORTED;
    }
  }
  return MT_OK;
}

static int col2im_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const conv_job *j = ctx;
  const mt_conv_geom *g = &j->g;
  const int64_t plane = g->h * g->w, rows = g->kh * g->kw * g->oh * g->ow;
  for (int64_t p = begin; p < end; p++) {
    switch (j->dtype) {
      case MT_F32:
        col2im_plane_float((const float *)j->src + p * rows, (float *)j->dst + p * plane, g);
        break;
      case MT_F64:
        col2im_plane_double((const double *)j->src + p * rows, (double *)j->dst + p * plane, g);
        break;
      case MT_I64:
        col2im_plane_int64_t((const int64_t *)j->src + p * rows, (int64_t *)j->dst + p * plane, g);
        break;
      default:
        return MT_ERR_UNSUPPORTED;
    }
  }
  return MT_OK;
}

/* A share of planes does about 32768 element moves at least. */
static int64_t conv_grain(const mt_conv_geom *g) {
  int64_t per = g->kh * g->kw * g->oh * g->ow + g->h * g->w;
  if (per < 1) per = 1;
  int64_t grain = 32768 / per;
  return grain < 1 ? 1 : grain;
}

int mt_im2col(int dtype, const void *x, void *col, int64_t planes, mt_conv_geom g) {
  conv_job j = {dtype, x, col, g};
  return mt_parallel(planes, conv_grain(&g), im2col_share, &j, NULL);
}

int mt_col2im(int dtype, const void *col, void *x, int64_t planes, mt_conv_geom g) {
  conv_job j = {dtype, col, x, g};
  return mt_parallel(planes, conv_grain(&g), col2im_share, &j, NULL);
}
