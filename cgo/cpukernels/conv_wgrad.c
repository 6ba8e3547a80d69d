/*
 * The direct float32 weight gradient, any stride, dilation 1, on AVX-512
 * (conv_direct.h says how the work is cut): the sum over images and
 * positions of the output gradient times the input under each tap, without
 * a column matrix. Jobs split the taps, so each gradient element is summed
 * by one thread in one order, whatever the thread count.
 */
#include <stdlib.h>

#include "conv_direct.h"
#include "cpu_kernels.h"

/* wgrad_share runs jobs [begin, end), numbered (group, block, tap group)
 * with the tap group fastest, one run of tap groups per block. */
static int wgrad_share(void *ctx, int share, int64_t begin, int64_t end) {
  const cd_wgrad_job *j = ctx;
  const int64_t ntg = j->tap_groups;
  for (int64_t i = begin; i < end;) {
    const int64_t t0 = i % ntg, gb = i / ntg;
    const int64_t t1 = end - i < ntg - t0 ? t0 + (end - i) : ntg;
    cd_wgrad_avx512(j, share, gb / j->geo.blocks, gb % j->geo.blocks, t0, t1);
    i += t1 - t0;
  }
  return MT_OK;
}

/* unpack_share writes output channels [begin, end) (of all groups) of the
 * packed gradient into dw [oc][cg][kh][kw]. */
typedef struct {
  const cd_job *j;
  const float *dwp;
  float *dw;
} unpack_run;

static int unpack_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const unpack_run *r = ctx;
  const cd_job *j = r->j;
  const int64_t K = j->cg * j->kh * j->kw;
  for (int64_t i = begin; i < end; i++) {
    const int64_t g = i / j->og, co = i % j->og;
    const int64_t ob = co / CD_BLOCK * CD_BLOCK, obw = cd_block_width(j, co / CD_BLOCK);
    const float *s = r->dwp + (g * j->ogp + ob) * K + (co - ob);
    float *d = r->dw + i * K;
    for (int64_t k = 0; k < K; k++) d[k] = s[k * obw];
  }
  return MT_OK;
}

int mt_conv_wgrad(mt_conv_direct_params p, const float *x, const float *gy, float *dw, float *dwp, float *xpad,
                  int64_t xpad_len) {
  if (mt_conv_direct_isa() != 3) return MT_ERR_ISA;
  cd_wgrad_job j = {0};
  int st = cd_prepare(&p, x, xpad, xpad_len, &j.geo);
  if (st != MT_OK) return st;
  const cd_job *g = &j.geo;
  const int64_t taps = p.kh * p.kw, K = g->cg * taps;
  dwp = cd_align(dwp);
  j.gy = gy, j.dw = dwp, j.n = p.n;
  j.tap_groups = (K + CD_TAPS - 1) / CD_TAPS;
  int64_t *off = malloc((size_t)(j.tap_groups * CD_TAPS) * sizeof(int64_t));
  if (!off) return MT_ERR_NOMEM;
  for (int64_t k = 0; k < j.tap_groups * CD_TAPS; k++) {
    const int64_t t = k < K ? k : K - 1;
    off[k] = t / taps * g->hp * g->wp + t % taps / p.kw * g->wp + t % p.kw;
  }
  j.off = off;
  /* a job is a tap group over every position of every image */
  const int64_t per = CD_TAPS * (g->ogp < CD_BLOCK ? g->ogp : CD_BLOCK) * p.n * p.oh * p.ow;
  const int64_t jobs = p.groups * g->blocks * j.tap_groups;
  st = mt_parallel(jobs, cd_grain(g, jobs, per), wgrad_share, &j, NULL);
  free(off);
  if (st != MT_OK) return st;
  unpack_run u = {g, dwp, dw};
  return mt_parallel(p.oc, 1 + (1 << 15) / K, unpack_share, &u, NULL);
}
