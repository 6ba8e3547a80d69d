/* Element conversions shared by the CPU kernels: 16-bit floats, and casts
 * from floating to integer values with the results PyTorch gives on x86. */
#ifndef MINDTORCH_CPU_SCALAR_H
#define MINDTORCH_CPU_SCALAR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float mt_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t mt_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* float16 -> float32, exact. */
static inline float mt_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return mt_bits_f32(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return mt_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
  float f = (float)man * (1.0f / 16777216.0f);
  return sign ? -f : f;
}

/* float32 -> float16, round to nearest even; NaN -> quiet NaN with the sign. */
static inline uint16_t mt_f2h(float f) {
  uint32_t b = mt_f32_bits(f);
  uint16_t sign = (uint16_t)((b >> 16) & 0x8000);
  int32_t exp = (int32_t)((b >> 23) & 0xff);
  uint32_t man = b & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | (man ? 0x7e00 : 0x7c00));
  int32_t e = exp - 112;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    uint32_t m = man | 0x800000, s = (uint32_t)(14 - e);
    uint32_t half = 1u << (s - 1), rest = m & ((1u << s) - 1), q = m >> s;
    q += (rest > half || (rest == half && (q & 1)));
    return (uint16_t)(sign | q);
  }
  uint32_t v = ((uint32_t)e << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  v += (rest > 0x1000 || (rest == 0x1000 && (v & 1)));
  return (uint16_t)(sign | v);
}

static inline float mt_bf2f(uint16_t b) { return mt_bits_f32((uint32_t)b << 16); }

/* float32 -> bfloat16, round to nearest even; NaN -> 0x7fc0. */
static inline uint16_t mt_f2bf(float f) {
  if (f != f) return 0x7fc0;
  uint32_t u = mt_f32_bits(f);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

/* Floating -> integer as x86 (and so PyTorch on x86) does: truncation, with
 * NaN and out-of-range values giving the minimum of int32 (narrow types take
 * its low bits) or of int64. */
static inline int32_t mt_d2i32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
  return (int32_t)v;
}
static inline int64_t mt_d2i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)v;
}

#endif
