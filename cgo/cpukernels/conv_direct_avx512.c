/*
 * The direct convolution's job on AVX-512 (see conv_direct.h): a block of
 * 16*no output channels times np positions in no*np zmm accumulators
 * (24 of the 32 registers), the output transposed back 16x16 at a time.
 */
#include "conv_direct.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "conv_avx512.h"

/* kernel adds, for positions xp[0..np) and channels 16*no, the products of
 * nc input channels and kh x kw taps into s [np][obw] (zeroed first when
 * first). w holds obw weights per (channel, tap), cs and rs are the input's
 * channel and row strides. no and np are constants at every call. */
AVX512_INLINE void kernel(int no, int np, const float *w, int64_t obw, const float *const *xp, int64_t nc,
                          int64_t kh, int64_t kw, int64_t cs, int64_t rs, float *s) {
  __m512 acc[4][12];
  for (int v = 0; v < no; v++)
    for (int p = 0; p < np; p++) acc[v][p] = _mm512_setzero_ps();
  for (int64_t c = 0; c < nc; c++) {
    for (int64_t ki = 0; ki < kh; ki++) {
      const int64_t row = c * cs + ki * rs;
      for (int64_t kj = 0; kj < kw; kj++, w += obw) {
        __m512 wv[4];
        for (int v = 0; v < no; v++) wv[v] = _mm512_loadu_ps(w + 16 * v);
        for (int p = 0; p < np; p++) {
          const __m512 xv = _mm512_set1_ps(xp[p][row + kj]);
          for (int v = 0; v < no; v++) acc[v][p] = _mm512_fmadd_ps(wv[v], xv, acc[v][p]);
        }
      }
    }
  }
  for (int p = 0; p < np; p++)
    for (int v = 0; v < no; v++) _mm512_storeu_ps(s + p * obw + 16 * v, acc[v][p]);
}

/* The register blocks: channels 16*no times positions np, over the
 * positions l0.. of a chunk that the image has (the rows of s past them
 * are left as they are: store masks them out). */
#define BLOCK(NO, NP)                                                                              \
  AVX512 __attribute__((noinline)) static void block_##NO(const cd_job *j, const float *x,         \
                                                          const float *w, int64_t l0, float *s) {  \
    const float *xp[NP];                                                                           \
    const int64_t L = j->oh * j->ow;                                                               \
    for (int64_t p0 = 0; p0 < CD_CHUNK && l0 + p0 < L; p0 += NP) {                                 \
      cd_positions(j, x, l0 + p0, NP, xp);                                                         \
      kernel(NO, NP, w, 16 * NO, xp, j->cg, j->kh, j->kw, j->hp * j->wp, j->wp, s + p0 * 16 * NO); \
    }                                                                                              \
  }
BLOCK(4, 6)
BLOCK(3, 8)
BLOCK(2, 12)
BLOCK(1, 12)

/* store_row writes the np values at t (t[-16..np+16) readable) to dst:
 * the whole cache lines by non-temporal stores, which skip reading the
 * lines first (the output is far larger than the caches), the partial
 * lines at either end, shared with the neighbouring chunks, by plain
 * masked stores. */
AVX512_INLINE void store_row(const float *t, int64_t np, float *dst) {
  const int64_t a = (int64_t)((uintptr_t)dst / sizeof(float) % 16); /* floats into its line */
  for (int64_t k = -a; k < np; k += 16) {
    const __m512 y = _mm512_loadu_ps(t + k);
    if (k >= 0 && k + 16 <= np) {
      _mm512_stream_ps(dst + k, y);
    } else {
      const int64_t lo = k < 0 ? -k : 0, hi = np - k < 16 ? np - k : 16;
      const __mmask16 m = (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1));
      _mm512_mask_storeu_ps(dst + k, m, y);
    }
  }
}

/* store writes s [CD_CHUNK][obw] (channels ob.. of the group, positions
 * l0..) into out, the group's first output channel, with the bias: 16
 * channels at a time transposed into rows of t, then written row by row. */
AVX512 static void store(const cd_job *j, const float *s, int64_t obw, int64_t ob, int64_t l0, float *out,
                         const float *bias) {
  const int64_t L = j->oh * j->ow, np = L - l0 < CD_CHUNK ? L - l0 : CD_CHUNK;
  float t[16][CD_CHUNK + 32] __attribute__((aligned(64))); /* 16 lanes either side of the positions */
  for (int64_t v = 0; v < obw && ob + v < j->og; v += 16) {
    for (int64_t q = 0; q < np; q += 16) {
      __m512 r[16];
      for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(s + (q + i) * obw + v);
      transpose16(r);
      for (int i = 0; i < 16; i++) {
        if (bias && ob + v + i < j->og) r[i] = _mm512_add_ps(r[i], _mm512_set1_ps(bias[ob + v + i]));
        _mm512_store_ps(&t[i][16 + q], r[i]);
      }
    }
    for (int64_t i = 0; i < 16 && ob + v + i < j->og; i++) store_row(&t[i][16], np, out + (ob + v + i) * L + l0);
  }
  _mm_sfence(); /* the streamed lines reach memory before the job is done */
}

/* prefetch_next asks for the input row that the next chunk after l0 reads
 * last, of every channel, into the L2 cache: the hardware's prefetchers
 * do not follow that many streams. */
AVX512_INLINE void prefetch_next(const cd_job *j, const float *x, int64_t l0) {
  const int64_t L = j->oh * j->ow, last = l0 + 2 * CD_CHUNK - 1 < L ? l0 + 2 * CD_CHUNK - 1 : L - 1;
  const float *row = x + (last / j->ow * j->sh + j->kh - 1) * j->wp;
  for (int64_t c = 0; c < j->cg; c++, row += j->hp * j->wp)
    for (int64_t q = 0; q < j->wp; q += 16) _mm_prefetch((const char *)(row + q), _MM_HINT_T1);
}

AVX512 void cd_job_avx512(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch) {
  const int64_t K = j->cg * j->kh * j->kw, ob = cd_block_start(b), obw = cd_block_width(j, b);
  const float *w = j->w + (g * j->ogp + ob) * K;
  float *out = j->out + (n * j->oc + g * j->og) * j->oh * j->ow;
  const float *bias = j->bias ? j->bias + g * j->og : 0;
  float s[CD_CHUNK * CD_BLOCK] __attribute__((aligned(64)));
  const int64_t l0 = ch * CD_CHUNK;
  prefetch_next(j, x, l0);
  switch (obw / 16) {
    case 4: block_4(j, x, w, l0, s); break;
    case 3: block_3(j, x, w, l0, s); break;
    case 2: block_2(j, x, w, l0, s); break;
    default: block_1(j, x, w, l0, s); break;
  }
  store(j, s, obw, ob, l0, out, bias);
}

#else

void cd_job_avx512(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch) {
  (void)j; (void)x; (void)n; (void)g; (void)b; (void)ch;
}

#endif
