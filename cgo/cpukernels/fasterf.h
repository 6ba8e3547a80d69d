/* mt_erff: erf for float32 in straight-line arithmetic, so that the loops
 * that call it vectorise (a libm call stops them), as mt_expf in
 * fastexp.h. For |x| < 1, erf(x) = x + x * P(x^2); for 1 <= |x|,
 * erf(|x|) = 1 - e^(-x^2) * R(|x| - 2) with |x| clamped to 4, beyond which
 * erf rounds to 1 (e^(-x^2) by mt_exp_neg16, mt_expf cut to that range). P (degree 6) and R (degree 8) are minimax fits of
 * erf(x)/x - 1 and of erfc(x) e^(x^2) (by absolute error of erfc) on
 * their ranges. Both branches are computed and one is picked, with the
 * sign of x put back. Within 1 ulp of glibc's erff for every float
 * (checked over all 2^32); NaN stays NaN, erf(±Inf) = ±1, erf(-0) = -0. */
#ifndef MT_FASTERF_H
#define MT_FASTERF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* mt_exp_neg16 is e^x for x in [-16, 0], or anything for NaN, with
 * mt_expf's polynomial but none of its care for the ends of the range:
 * n = round(x / ln2) by the 1.5 * 2^23 trick (n in [-24, 0]) and 2^n
 * added to the exponent of the polynomial's value as an integer. */
static inline float mt_exp_neg16(float x) {
  const float shift = 12582912.0f; /* 1.5 * 2^23: rounds to an integer */
  const float m = x * 1.44269504089f + shift;
  const float n = m - shift;
  float r = x - n * 0.693359375f; /* ln2, high part (exact in float) */
  r = r - n * -2.12194440e-4f;    /* ln2, low part */
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  int32_t mb, yb;
  memcpy(&mb, &m, sizeof mb);
  memcpy(&yb, &y, sizeof yb);
  yb += (int32_t)((uint32_t)mb << 23); /* m's low bits hold n */
  float e;
  memcpy(&e, &yb, sizeof e);
  return e;
}

static inline float mt_erff(float x) {
  const float a = fabsf(x);
  /* |x| < 1 */
  const float s = a * a;
  float p = 7.853865100e-05f;
  p = p * s - 8.010197780e-04f;
  p = p * s + 5.188328680e-03f;
  p = p * s - 2.685381286e-02f;
  p = p * s + 1.128358543e-01f;
  p = p * s - 3.761262596e-01f;
  p = p * s + 1.283791661e-01f;
  const float small = a + a * p;
  /* 1 <= |x|: erfc(|x|) = e^(-x^2) R(|x| - 2) */
  const float b = a > 4.0f ? 4.0f : a; /* NaN stays NaN */
  const float t = b - 2.0f;           /* exact */
  float r = 1.068461788e-04f;
  r = r * t - 2.023067937e-04f;
  r = r * t + 5.034981878e-04f;
  r = r * t - 1.857409370e-03f;
  r = r * t + 5.475543905e-03f;
  r = r * t - 1.544300839e-02f;
  r = r * t + 4.180156812e-02f;
  r = r * t - 1.067977846e-01f;
  r = r * t + 2.553955913e-01f;
  const float large = 1.0f - mt_exp_neg16(-b * b) * r;
  return copysignf(a < 1.0f ? small : large, x);
}

#endif
