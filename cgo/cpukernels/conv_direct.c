/*
 * The direct float32 convolution, any stride, dilation 1: the driver (this
 * file) and what its per-instruction-set jobs share (conv_direct.h).
 *
 * Why: im2col copies every input value kh*kw times into a column matrix
 * (for a 3x3 kernel, nine times the input, far beyond the caches) and
 * hands GEMM a product whose one dimension is only the output channels;
 * reading the input where it lies, with the weights packed once per call,
 * does the same multiply-adds from cache.
 *
 * Layout. Input and output stay NCHW, as the tensors are. The weights are
 * packed per group and per block of up to 64 output channels as
 * [cg][kh][kw][block] (output channel fastest, padded with zero weights
 * to a multiple of 16), so that one vector load is 16 output channels of
 * one tap. An input that is padded (or cropped, or not fully read at its
 * stride) is read through a zero-padded copy of one image group, made by
 * the thread that needs it into its own buffer, so that every output
 * position reads a whole kh x kw window with no bounds test; the padding's
 * zeros are multiplied by the weights, as in im2col and PyTorch's
 * slow_conv2d (0 * inf is NaN at the borders).
 *
 * Blocking. A job is one block of output channels times a chunk of 48
 * output positions (flattened oi*ow + oj, so that narrow images fill a
 * chunk) of one image and group. Its microkernel holds channels x
 * positions sums in vector registers (AVX-512: 64 x 6, 48 x 8, 32 x 12 or
 * 16 x 12 in 24 zmm; AVX2: 16 x 6 in 12 ymm) and runs over input channels
 * and taps: per tap, one weight vector per 16 channels and one broadcast
 * input value per position, all from L1 or L2 (the block's packed weights,
 * the few input rows under the chunk). The sums are then transposed 16 x
 * 16 into the [channel][position] output, the bias added, whole cache
 * lines streamed past the caches. Jobs run image by image, block by
 * block, chunk by chunk, split across the pool in contiguous ranges, so a
 * thread pads each image group once and keeps its block's weights cached;
 * a thread done early takes over the back of another's range (balance.c).
 *
 * The input gradient of a stride-1 convolution is the same kernel: the
 * output gradient, padded by k-1-p, convolved with the weights transposed
 * and flipped (pack_weights reads them so). Its padding's zeros would meet
 * the weights, which PyTorch's col2im never does: with a NaN or an
 * infinity among the weights the caller takes col2im instead
 * (MT_ERR_NONFINITE). The weight gradient (conv_wgrad.c) shares the
 * geometry, the padded copies and the packed layout.
 */
#include <string.h>

#include "conv_direct.h"
#include "cpu_kernels.h"

/* The instruction set of the direct kernels: -1 until first asked. */
static int direct_isa = -1;

int mt_conv_direct_isa(void) {
  int v = __atomic_load_n(&direct_isa, __ATOMIC_RELAXED);
  if (v < 0) {
    v = mt_isa() >= 2 ? mt_isa() : 0;
    __atomic_store_n(&direct_isa, v, __ATOMIC_RELAXED);
  }
  return v;
}

int mt_conv_direct_set_isa(int isa) {
  const int prev = mt_conv_direct_isa(), best = mt_isa() >= 2 ? mt_isa() : 0;
  __atomic_store_n(&direct_isa, isa < 2 ? 0 : isa < best ? isa : best, __ATOMIC_RELAXED);
  return prev;
}

/* The packing of the weights: per group and block of channels
 * (conv_direct.h), [cg][kh][kw][block width] weights, zero for the padding
 * channels, from w [oc][cg][kh][kw], or with transposed [c][og][kh][kw]
 * read flipped; split across the pool by output channel (as large layers
 * hold millions of weights), each share noting whether it met a NaN or an
 * infinity. */
typedef struct {
  const mt_conv_direct_params *p;
  const float *w;
  float *dst;
  int nonfinite;
} pack_run;

static int pack_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  pack_run *r = ctx;
  const mt_conv_direct_params *p = r->p;
  const float *w = r->w;
  float inf = 0; /* inf - inf: NaN unless every weight is finite */
  const int64_t cg = p->c / p->groups, og = p->oc / p->groups, ogp = (og + 15) / 16 * 16;
  const int64_t taps = p->kh * p->kw, K = cg * taps;
  for (int64_t i = begin; i < end; i++) {
    const int64_t g = i / ogp, co = i % ogp, ob = co / CD_BLOCK * CD_BLOCK;
    const int64_t obw = ogp - ob < CD_BLOCK ? ogp - ob : CD_BLOCK;
    float *d = r->dst + (g * ogp + ob) * K + (co - ob);
    for (int64_t ci = 0; ci < cg; ci++) {
      for (int64_t t = 0; t < taps; t++) {
        float v = 0;
        if (co < og && p->transposed)
          v = w[((g * cg + ci) * og + co) * taps + (taps - 1 - t)];
        else if (co < og)
          v = w[((g * og + co) * cg + ci) * taps + t];
        d[(ci * taps + t) * obw] = v;
        inf += v - v;
      }
    }
  }
  if (inf != 0) __atomic_store_n(&r->nonfinite, 1, __ATOMIC_RELAXED);
  return MT_OK;
}

/* pack_weights packs w into dst and returns whether they are all finite. */
static int pack_weights(const mt_conv_direct_params *p, const float *w, float *dst) {
  pack_run r = {p, w, dst, 0};
  const int64_t rows = p->groups * ((p->oc / p->groups + 15) / 16 * 16), K = p->c / p->groups * p->kh * p->kw;
  mt_parallel(rows, 1 + (1 << 15) / K, pack_share, &r, NULL);
  return !r.nonfinite;
}

int cd_prepare(const mt_conv_direct_params *p, const float *x, float *xpad, int64_t xpad_len, cd_job *j) {
  if (p->n < 1 || p->groups < 1 || p->c < p->groups || p->oc < p->groups || p->c % p->groups ||
      p->oc % p->groups || p->h < 0 || p->w < 0 || p->oh < 1 || p->ow < 1 || p->kh < 1 || p->kw < 1 ||
      p->sh < 1 || p->sw < 1 || (p->transposed && (p->sh != 1 || p->sw != 1)))
    return MT_ERR_UNSUPPORTED;
  *j = (cd_job){0};
  j->x = x, j->xpad = xpad;
  j->c = p->c, j->oc = p->oc, j->groups = p->groups;
  j->cg = p->c / p->groups, j->og = p->oc / p->groups, j->ogp = (j->og + 15) / 16 * 16;
  j->ih = p->h, j->iw = p->w, j->pt = p->pt, j->pl = p->pl;
  j->kh = p->kh, j->kw = p->kw, j->sh = p->sh, j->sw = p->sw, j->oh = p->oh, j->ow = p->ow;
  j->hp = (p->oh - 1) * p->sh + p->kh, j->wp = (p->ow - 1) * p->sw + p->kw;
  j->blocks = (j->ogp + CD_BLOCK - 1) / CD_BLOCK;
  j->chunks = (p->oh * p->ow + CD_CHUNK - 1) / CD_CHUNK;
  j->padded = p->pt != 0 || p->pl != 0 || j->hp != p->h || j->wp != p->w;
  if (j->padded) {
    j->nbuf = xpad ? xpad_len / (j->cg * j->hp * j->wp) : 0;
    if (j->nbuf < 1) return MT_ERR_UNSUPPORTED;
  }
  return MT_OK;
}

/* Row r, column q of a padded plane is the input's row r - pt, column
 * q - pl, or zero outside the input: the zeros are written when the
 * buffer is fresh, and stay, as later images only overwrite the rest. */
const float *cd_image(const cd_job *j, int share, int64_t n, int64_t g, int fresh, int64_t c0, int64_t c1) {
  const float *src = j->x + (n * j->c + g * j->cg) * j->ih * j->iw;
  if (!j->padded) return src;
  const int64_t plane = j->hp * j->wp;
  float *const buf = j->xpad + share * j->cg * plane;
  if (fresh) memset(buf, 0, (size_t)(j->cg * plane) * sizeof(float));
  const int64_t r0 = j->pt > 0 ? j->pt : 0, r1 = j->pt + j->ih < j->hp ? j->pt + j->ih : j->hp;
  const int64_t q0 = j->pl > 0 ? j->pl : 0, q1 = j->pl + j->iw < j->wp ? j->pl + j->iw : j->wp;
  if (q0 >= q1) return buf;
  for (int64_t c = c0; c < c1; c++)
    for (int64_t r = r0; r < r1; r++)
      memcpy(buf + c * plane + r * j->wp + q0, src + (c * j->ih + r - j->pt) * j->iw + (q0 - j->pl),
             (size_t)(q1 - q0) * sizeof(float));
  return buf;
}

/* What a share holds between its calls: the image group in its padding
 * buffer (-1 before the first, whose zeros it writes) and where it is. */
typedef struct {
  _Alignas(64) int64_t ng;
  const float *x;
} conv_held;

typedef struct {
  const cd_job *j;
  int isa;
  conv_held held[MT_POOL_MAX];
} conv_run;

/* conv_share runs jobs [begin, end), numbered (image, group, block, chunk)
 * with the chunk fastest, so that a share keeps its weights in cache and
 * pads each image group once. */
static int conv_share(void *ctx, int share, int64_t begin, int64_t end) {
  conv_run *r = ctx;
  const cd_job *j = r->j;
  conv_held *h = &r->held[share];
  for (int64_t i = begin; i < end; i++) {
    const int64_t ch = i % j->chunks, b = i / j->chunks % j->blocks, ng = i / j->chunks / j->blocks;
    const int64_t g = ng % j->groups, n = ng / j->groups;
    if (ng != h->ng) {
      h->x = cd_image(j, share, n, g, h->ng < 0, 0, j->cg);
      h->ng = ng;
    }
    if (r->isa == 3)
      cd_job_avx512(j, h->x, n, g, b, ch);
    else
      cd_job_avx2(j, h->x, n, g, b, ch);
  }
  return MT_OK;
}

int mt_conv_direct(mt_conv_direct_params p, const float *x, const float *w, const float *bias, float *out,
                   float *wpack, float *xpad, int64_t xpad_len) {
  const int isa = mt_conv_direct_isa();
  if (!isa) return MT_ERR_ISA;
  cd_job j;
  const int st = cd_prepare(&p, x, xpad, xpad_len, &j);
  if (st != MT_OK) return st;
  wpack = cd_align(wpack);
  if (!pack_weights(&p, w, wpack) && p.transposed && j.padded) return MT_ERR_NONFINITE;
  j.w = wpack, j.bias = bias, j.out = out;
  const int64_t jobs = p.n * p.groups * j.blocks * j.chunks;
  const int64_t L = p.oh * p.ow, per = (L < CD_CHUNK ? L : CD_CHUNK) * (j.ogp < CD_BLOCK ? j.ogp : CD_BLOCK) * j.cg * p.kh * p.kw;
  conv_run r = {.j = &j, .isa = isa};
  for (int s = 0; s < MT_POOL_MAX; s++) r.held[s].ng = -1;
  /* Pieces of a few jobs: a job is tens of microseconds at most. */
  return mt_parallel_balanced(jobs, cd_grain(&j, jobs, per), 4, conv_share, &r);
}

void cd_store(const cd_job *j, const float *s, int64_t obw, int64_t ob, int64_t l0, float *out, const float *bias) {
  const int64_t L = j->oh * j->ow;
  const int64_t np = L - l0 < CD_CHUNK ? L - l0 : CD_CHUNK;
  for (int64_t co = ob; co < ob + obw && co < j->og; co++) {
    const float b = bias ? bias[co] : 0;
    float *o = out + co * L + l0;
    if (bias)
      for (int64_t q = 0; q < np; q++) o[q] = s[q * obw + (co - ob)] + b;
    else
      for (int64_t q = 0; q < np; q++) o[q] = s[q * obw + (co - ob)];
  }
}
