/*
 * What the AVX-512 kernels of the direct convolution share
 * (conv_direct_avx512.c, conv_wgrad_avx512.c): x86-64 only.
 */
#ifndef MINDTORCH_CONV_AVX512_H
#define MINDTORCH_CONV_AVX512_H

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,fma")))
#define AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,fma")))

/* transpose16 transposes the 16x16 matrix of rows r in place. */
AVX512_INLINE void transpose16(__m512 *r) {
  __m512 a[16], b[16];
  for (int k = 0; k < 16; k += 2) {
    a[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    a[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  /* b[4k+m], 128-bit lane l: rows 4k..4k+3 of column 4l+m */
  for (int k = 0; k < 16; k += 4) {
    const __m512d a0 = _mm512_castps_pd(a[k]), a1 = _mm512_castps_pd(a[k + 1]);
    const __m512d a2 = _mm512_castps_pd(a[k + 2]), a3 = _mm512_castps_pd(a[k + 3]);
    b[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    b[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    b[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    b[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  /* column 4l+m gathers lane l of b[m], b[4+m], b[8+m], b[12+m] */
  for (int m = 0; m < 4; m++) {
    const __m512 c0 = _mm512_shuffle_f32x4(b[m], b[4 + m], 0x88), d0 = _mm512_shuffle_f32x4(b[8 + m], b[12 + m], 0x88);
    const __m512 c1 = _mm512_shuffle_f32x4(b[m], b[4 + m], 0xDD), d1 = _mm512_shuffle_f32x4(b[8 + m], b[12 + m], 0xDD);
    r[m] = _mm512_shuffle_f32x4(c0, d0, 0x88);
    r[4 + m] = _mm512_shuffle_f32x4(c1, d1, 0x88);
    r[8 + m] = _mm512_shuffle_f32x4(c0, d0, 0xDD);
    r[12 + m] = _mm512_shuffle_f32x4(c1, d1, 0xDD);
  }
}

#endif
