/*
 * The direct weight gradient on AVX-512 (see conv_direct.h): for a group
 * of CD_TAPS taps and a block of 16*no output channels, no*CD_TAPS zmm
 * accumulators run over CD_POS positions at a time, the output gradient of
 * those positions transposed to [position][channel] first.
 */
#include "conv_direct.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "conv_avx512.h"

/* kernel adds into d [CD_TAPS][obw] (its first `valid` taps) the products
 * of gt [np][obw] (16*no channels per position) with the input at xp[p] +
 * off[t] of each position p and tap t. no is a constant at every call. */
AVX512_INLINE void kernel(int no, const float *gt, int64_t obw, const float *const *xp, int64_t np,
                          const int64_t *off, int valid, float *d) {
  __m512 acc[4][CD_TAPS];
  for (int t = 0; t < CD_TAPS; t++)
    for (int v = 0; v < no; v++) acc[v][t] = t < valid ? _mm512_loadu_ps(d + t * obw + 16 * v) : _mm512_setzero_ps();
  const int64_t o0 = off[0], o1 = off[1], o2 = off[2], o3 = off[3], o4 = off[4], o5 = off[5];
  for (int64_t p = 0; p < np; p++, gt += obw) {
    const float *x = xp[p];
    __m512 gv[4];
    for (int v = 0; v < no; v++) gv[v] = _mm512_loadu_ps(gt + 16 * v);
    const __m512 x0 = _mm512_set1_ps(x[o0]), x1 = _mm512_set1_ps(x[o1]), x2 = _mm512_set1_ps(x[o2]);
    const __m512 x3 = _mm512_set1_ps(x[o3]), x4 = _mm512_set1_ps(x[o4]), x5 = _mm512_set1_ps(x[o5]);
    for (int v = 0; v < no; v++) {
      acc[v][0] = _mm512_fmadd_ps(gv[v], x0, acc[v][0]);
      acc[v][1] = _mm512_fmadd_ps(gv[v], x1, acc[v][1]);
      acc[v][2] = _mm512_fmadd_ps(gv[v], x2, acc[v][2]);
      acc[v][3] = _mm512_fmadd_ps(gv[v], x3, acc[v][3]);
      acc[v][4] = _mm512_fmadd_ps(gv[v], x4, acc[v][4]);
      acc[v][5] = _mm512_fmadd_ps(gv[v], x5, acc[v][5]);
    }
  }
  for (int t = 0; t < valid; t++)
    for (int v = 0; v < no; v++) _mm512_storeu_ps(d + t * obw + 16 * v, acc[v][t]);
}

#define KERNEL(NO)                                                                                        \
  AVX512 __attribute__((noinline)) static void kernel_##NO(const float *gt, const float *const *xp,      \
                                                           int64_t np, const int64_t *off, int valid,    \
                                                           float *d) {                                   \
    kernel(NO, gt, 16 * NO, xp, np, off, valid, d);                                                      \
  }
KERNEL(4)
KERNEL(3)
KERNEL(2)
KERNEL(1)

/* transpose_block writes into gt [CD_POS][obw] the output gradient of
 * channels ob.. (zero past og) at positions l0.. (np of them) of the
 * image and group whose gradient starts at gy. */
AVX512 static void transpose_block(const cd_job *j, const float *gy, int64_t ob, int64_t obw, int64_t l0,
                                   int64_t np, float *gt) {
  const int64_t L = j->oh * j->ow;
  for (int64_t q = 0; q < np; q += 16) {
    const int64_t left = np - q;
    const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
    for (int64_t v = 0; v < obw; v += 16) {
      __m512 r[16];
      for (int i = 0; i < 16; i++) {
        const int64_t co = ob + v + i;
        r[i] = co < j->og ? _mm512_maskz_loadu_ps(m, gy + co * L + l0 + q) : _mm512_setzero_ps();
      }
      transpose16(r);
      for (int i = 0; i < 16; i++) _mm512_storeu_ps(gt + (q + i) * obw + v, r[i]);
    }
  }
}

AVX512 void cd_wgrad_avx512(const cd_wgrad_job *wj, int share, int64_t g, int64_t b, int64_t t0, int64_t t1) {
  const cd_job *j = &wj->geo;
  const int64_t K = j->cg * j->kh * j->kw, L = j->oh * j->ow;
  const int64_t ob = cd_block_start(b), obw = cd_block_width(j, b);
  float *dw = wj->dw + (g * j->ogp + ob) * K;
  const int64_t k0 = t0 * CD_TAPS, k1 = t1 * CD_TAPS < K ? t1 * CD_TAPS : K;
  for (int64_t k = k0; k < k1; k++)
    for (int64_t v = 0; v < obw; v++) dw[k * obw + v] = 0;
  float gt[CD_POS * CD_BLOCK] __attribute__((aligned(64)));
  const float *xp[CD_POS];
  const int64_t taps = j->kh * j->kw, c0 = k0 / taps, c1 = (k1 - 1) / taps + 1; /* the channels read */
  for (int64_t n = 0; n < wj->n; n++) {
    const float *x = cd_image(j, share, n, g, n == 0, c0, c1);
    const float *gy = wj->gy + (n * j->oc + g * j->og) * L;
    for (int64_t l0 = 0; l0 < L; l0 += CD_POS) {
      const int64_t np = L - l0 < CD_POS ? L - l0 : CD_POS;
      transpose_block(j, gy, ob, obw, l0, np, gt);
      cd_positions(j, x, l0, (int)np, xp);
      for (int64_t k = k0; k < k1; k += CD_TAPS) {
        const int valid = k1 - k < CD_TAPS ? (int)(k1 - k) : CD_TAPS;
        const int64_t *o = wj->off + k;
        switch (obw / 16) {
          case 4: kernel_4(gt, xp, np, o, valid, dw + k * obw); break;
          case 3: kernel_3(gt, xp, np, o, valid, dw + k * obw); break;
          case 2: kernel_2(gt, xp, np, o, valid, dw + k * obw); break;
          default: kernel_1(gt, xp, np, o, valid, dw + k * obw); break;
        }
      }
    }
  }
}

#else

void cd_wgrad_avx512(const cd_wgrad_job *wj, int share, int64_t g, int64_t b, int64_t t0, int64_t t1) {
  (void)wj; (void)share; (void)g; (void)b; (void)t0; (void)t1;
}

#endif
