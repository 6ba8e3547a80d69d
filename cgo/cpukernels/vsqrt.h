/* sqrt of contiguous float and double arrays with the vector instruction.
 *
 * Why by hand: GCC must set errno for the square root of a negative, so
 * under -fmath-errno (its default, which cgo does not let us turn off, and
 * which `#pragma GCC optimize` does not reach for builtins) it never
 * vectorizes sqrt: a loop of vsqrtss and a compare per element, about ten
 * times slower than vsqrtps. The instruction is IEEE's correctly rounded
 * square root, as sqrt and sqrtf are: the results are the same bits,
 * NaN for a negative, -0 for -0. */
#ifndef MT_VSQRT_H
#define MT_VSQRT_H

#include <math.h>
#include <stdint.h>

#include "cpu_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx512f"))) static void vsqrt_f32_avx512(float *y, const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_sqrt_ps(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, _mm512_sqrt_ps(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

__attribute__((target("avx512f"))) static void vsqrt_f64_avx512(double *y, const double *x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(y + i, _mm512_sqrt_pd(_mm512_loadu_pd(x + i)));
  if (i < n) {
    const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
    _mm512_mask_storeu_pd(y + i, m, _mm512_sqrt_pd(_mm512_maskz_loadu_pd(m, x + i)));
  }
}

__attribute__((target("avx"))) static void vsqrt_f32_avx(float *y, const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
  for (; i < n; i++) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}

__attribute__((target("avx"))) static void vsqrt_f64_avx(double *y, const double *x, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(y + i, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
  for (; i < n; i++) y[i] = _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_load_sd(x + i)));
}
#endif

/* vsqrt_f32 and vsqrt_f64 set y[i] = sqrt(x[i]) for i < n (y may be x). */
static inline void vsqrt_f32(float *y, const float *x, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  const int isa = mt_isa();
  if (isa >= 3) return vsqrt_f32_avx512(y, x, n);
  if (isa >= 2) return vsqrt_f32_avx(y, x, n);
#endif
  for (int64_t i = 0; i < n; i++) y[i] = sqrtf(x[i]);
}

static inline void vsqrt_f64(double *y, const double *x, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  const int isa = mt_isa();
  if (isa >= 3) return vsqrt_f64_avx512(y, x, n);
  if (isa >= 2) return vsqrt_f64_avx(y, x, n);
#endif
  for (int64_t i = 0; i < n; i++) y[i] = sqrt(x[i]);
}

#endif
