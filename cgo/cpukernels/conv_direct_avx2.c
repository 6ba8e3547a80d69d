/*
 * The direct convolution's job on AVX2 with FMA (see conv_direct.h): 16
 * output channels (two ymm) times 6 positions in 12 accumulators of the 16
 * registers, a block's channels 16 at a time; the output is written by
 * the portable cd_store.
 */
#include "conv_direct.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define NP 6

/* kernel adds, for positions xp[0..NP) and 16 channels, the products of nc
 * input channels and kh x kw taps into s [NP][obw] (zeroed first). w holds
 * obw weights per (channel, tap), the 16 at hand first; cs and rs are the
 * input's channel and row strides. */
AVX2 static void kernel(const float *w, int64_t obw, const float *const *xp, int64_t nc, int64_t kh, int64_t kw,
                        int64_t cs, int64_t rs, float *s) {
  __m256 acc[2][NP];
  for (int v = 0; v < 2; v++)
    for (int p = 0; p < NP; p++) acc[v][p] = _mm256_setzero_ps();
  for (int64_t c = 0; c < nc; c++) {
    for (int64_t ki = 0; ki < kh; ki++) {
      const int64_t row = c * cs + ki * rs;
      for (int64_t kj = 0; kj < kw; kj++, w += obw) {
        const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
        for (int p = 0; p < NP; p++) {
          const __m256 xv = _mm256_broadcast_ss(xp[p] + row + kj);
          acc[0][p] = _mm256_fmadd_ps(w0, xv, acc[0][p]);
          acc[1][p] = _mm256_fmadd_ps(w1, xv, acc[1][p]);
        }
      }
    }
  }
  for (int p = 0; p < NP; p++) {
    _mm256_storeu_ps(s + p * obw, acc[0][p]);
    _mm256_storeu_ps(s + p * obw + 8, acc[1][p]);
  }
}

void cd_job_avx2(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch) {
  const int64_t K = j->cg * j->kh * j->kw, ob = cd_block_start(b), obw = cd_block_width(j, b);
  const float *w = j->w + (g * j->ogp + ob) * K;
  float *out = j->out + (n * j->oc + g * j->og) * j->oh * j->ow;
  const float *bias = j->bias ? j->bias + g * j->og : 0;
  float s[CD_CHUNK * CD_BLOCK];
  const int64_t l0 = ch * CD_CHUNK;
  const float *xp[NP];
  for (int64_t p0 = 0; p0 < CD_CHUNK && l0 + p0 < j->oh * j->ow; p0 += NP) {
    cd_positions(j, x, l0 + p0, NP, xp);
    for (int64_t v = 0; v < obw; v += 16) kernel(w + v, obw, xp, j->cg, j->kh, j->kw, j->hp * j->wp, j->wp, s + p0 * obw + v);
  }
  cd_store(j, s, obw, ob, l0, out, bias);
}

#else

void cd_job_avx2(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch) {
  (void)j; (void)x; (void)n; (void)g; (void)b; (void)ch;
}

#endif
