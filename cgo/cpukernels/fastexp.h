/* mt_expf: exp for float32 in straight-line arithmetic, so that the
 * compiler vectorizes the loops that call it (a libm call stops it).
 * Range reduction x = n ln2 + r with ln2 split in two, a degree-6
 * polynomial for e^r on [-ln2/2, ln2/2] (the Cephes coefficients), and the
 * scaling by 2^n done in two factors so that results down to the smallest
 * denormal round once. Within 2 ulp of the exact value; NaN stays NaN,
 * -inf gives 0, +inf and overflow give +inf. */
#ifndef MT_FASTEXP_H
#define MT_FASTEXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float mt_bits_to_float(int32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static inline float mt_expf(float x) {
  const float lo = -103.972084f, hi = 88.7228394f;
  float xc = x < lo ? lo : x;                 /* NaN fails both tests and stays */
  xc = xc > hi ? hi : xc;
  float n = floorf(xc * 1.44269504089f + 0.5f);
  float r = xc - n * 0.693359375f;            /* ln2, high part (exact in float) */
  r = r - n * -2.12194440e-4f;                /* ln2, low part */
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.0f;
  int32_t ni = (int32_t)n;
  ni = xc != xc ? 0 : ni;                     /* keep the conversion defined for NaN */
  int32_t n1 = ni >> 1, n2 = ni - n1;         /* each in [-75, 64]: normal scale factors */
  y = y * mt_bits_to_float((n1 + 127) << 23) * mt_bits_to_float((n2 + 127) << 23);
  return x > hi ? INFINITY : y;
}

#endif
