/* AVX-512 loops for float32 exp, sigmoid, silu, gelu's gradient and
 * softmax's exponentials: mt_expf and mt_erff written with intrinsics.
 * The compiler's vectorisation of mt_expf spends about 45 instructions on
 * 16 floats, most of them on the clamps and on the scaling by 2^n in two
 * factors; here VSCALEFPS does the scaling (one rounding, as the two
 * factors give: the first is exact) and the rest is the same arithmetic
 * in the same order, fused multiply-adds where the compiler contracts them
 * in the x86-64-v4 clone. The clamps are single MINPS and MAXPS, and
 * sigmoid folds exp(-x)'s negation into its fused multiply-adds, which
 * spares the NaN fix-up a negation would need. So each element gets the
 * bits of the generated loop it replaces; vexp_test.go checks it, strided
 * rows too. (In C alone on 512 floats in L1: exp 0.27 -> 0.20 ns an
 * element, sigmoid 0.38 -> 0.26, gelu's gradient 1.00 -> 0.88, against
 * the clamps by compare and blend and a negated argument.)
 *
 * pointwise.c includes this after fastexp.h and, when the CPU has
 * x86-64-v4, puts these loops in its table in place of the generated ones;
 * reduce.c calls mt_vexp_sub_f32 then. */
#ifndef MT_VEXP_H
#define MT_VEXP_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(MT_NO_CLONES)
#define MT_HAVE_VEXP 1
#include <immintrin.h>

#include "fastexp.h"
#include "fasterf.h"

#define MT_V4 __attribute__((target("arch=x86-64-v4")))

/* MT_FMA_SIGNED(neg, a, b, c) is a*b + c, or -(a*b) + c when neg. */
#define MT_FMA_SIGNED(neg, a, b, c) ((neg) ? _mm512_fnmadd_ps(a, b, c) : _mm512_fmadd_ps(a, b, c))

/* mt_exp_poly16_signed is e^(x - n ln2) of 16 floats, x - n ln2 within
 * ln2/2 of 0: the range reduction (ln2 in two parts) and polynomial that
 * fastexp.h's mt_expf and fasterf.h's mt_exp_neg16 share. With neg set it
 * is e^(-x - n ln2), the negation folded into the arithmetic: the reduced
 * argument s and the product p*s are the negatives of those without it
 * (round to nearest is symmetric, so the bits are the same; at x = 0, s
 * is +0 where the negative would be -0, which the final + 1 absorbs), and
 * a NaN x passes through unnegated. neg is a constant at every call. */
static inline MT_V4 __m512 mt_exp_poly16_signed(__m512 x, __m512 n, const int neg) {
  __m512 s = MT_FMA_SIGNED(!neg, n, _mm512_set1_ps(0.693359375f), x);
  s = MT_FMA_SIGNED(neg, n, _mm512_set1_ps(2.12194440e-4f), s);
  __m512 p = MT_FMA_SIGNED(neg, _mm512_set1_ps(1.9875691500e-4f), s, _mm512_set1_ps(1.3981999507e-3f));
  p = MT_FMA_SIGNED(neg, p, s, _mm512_set1_ps(8.3334519073e-3f));
  p = MT_FMA_SIGNED(neg, p, s, _mm512_set1_ps(4.1665795894e-2f));
  p = MT_FMA_SIGNED(neg, p, s, _mm512_set1_ps(1.6666665459e-1f));
  p = MT_FMA_SIGNED(neg, p, s, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 ps = _mm512_mul_ps(p, s);
  return _mm512_add_ps(neg ? _mm512_fmsub_ps(ps, s, s) : _mm512_fmadd_ps(ps, s, s), _mm512_set1_ps(1.0f));
}

static inline MT_V4 __m512 mt_exp_poly16(__m512 x, __m512 n) { return mt_exp_poly16_signed(x, n, 0); }

/* mt_exp16_signed is mt_expf of 16 floats, of -x when neg (the clamps
 * mirrored, t and n the same values, the rest as mt_exp_poly16_signed;
 * a NaN x passes through unnegated, as in the generated loop of sigmoid,
 * where GCC folds the negation into a fused multiply-add too). The clamps
 * are MINPS and MAXPS with x second, which return a NaN x unchanged as
 * mt_expf's comparisons do. Above the upper clamp mt_expf returns +Inf
 * outright; here VSCALEFPS overflows to +Inf at the clamp itself
 * (e^88.7228394 > FLT_MAX), so no test is needed: every one of the 2^32
 * inputs gives the bits of the blend-based loop this replaced. */
static inline MT_V4 __m512 mt_exp16_signed(__m512 x, const int neg) {
  const float lo = -103.972084f, hi = 88.7228394f;
  const __m512 xc = _mm512_max_ps(_mm512_set1_ps(neg ? -hi : lo), _mm512_min_ps(_mm512_set1_ps(neg ? -lo : hi), x));
  const __m512 t = MT_FMA_SIGNED(neg, xc, _mm512_set1_ps(1.44269504089f), _mm512_set1_ps(0.5f));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  return _mm512_scalef_ps(mt_exp_poly16_signed(xc, n, neg), n);
}

/* mt_exp16 is mt_expf of 16 floats; mt_exp_minus16 is mt_exp16(-x). */
static inline MT_V4 __m512 mt_exp16(__m512 x) { return mt_exp16_signed(x, 0); }
static inline MT_V4 __m512 mt_exp_minus16(__m512 x) { return mt_exp16_signed(x, 1); }

/* mt_exp_neg16_16 is fasterf.h's mt_exp_neg16 of 16 floats. */
static inline MT_V4 __m512 mt_exp_neg16_16(__m512 x) {
  const __m512 shift = _mm512_set1_ps(12582912.0f);
  const __m512 m = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504089f), shift);
  const __m512 n = _mm512_sub_ps(m, shift);
  const __m512 y = mt_exp_poly16(x, n);
  const __m512i e = _mm512_add_epi32(_mm512_castps_si512(y), _mm512_slli_epi32(_mm512_castps_si512(m), 23));
  return _mm512_castsi512_ps(e);
}

/* mt_erf16 is fasterf.h's mt_erff of 16 floats. */
static inline MT_V4 __m512 mt_erf16(__m512 x) {
  const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
  const __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(x)));
  const __m512 s = _mm512_mul_ps(a, a);
  __m512 p = _mm512_fmsub_ps(_mm512_set1_ps(7.853865100e-05f), s, _mm512_set1_ps(8.010197780e-04f));
  p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(5.188328680e-03f));
  p = _mm512_fmsub_ps(p, s, _mm512_set1_ps(2.685381286e-02f));
  p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(1.128358543e-01f));
  p = _mm512_fmsub_ps(p, s, _mm512_set1_ps(3.761262596e-01f));
  p = _mm512_fmadd_ps(p, s, _mm512_set1_ps(1.283791661e-01f));
  const __m512 small = _mm512_fmadd_ps(a, p, a);
  const __m512 four = _mm512_set1_ps(4.0f);
  const __m512 b = _mm512_min_ps(four, a); /* a NaN a stays */
  const __m512 t = _mm512_sub_ps(b, _mm512_set1_ps(2.0f));
  __m512 r = _mm512_fmsub_ps(_mm512_set1_ps(1.068461788e-04f), t, _mm512_set1_ps(2.023067937e-04f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(5.034981878e-04f));
  r = _mm512_fmsub_ps(r, t, _mm512_set1_ps(1.857409370e-03f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(5.475543905e-03f));
  r = _mm512_fmsub_ps(r, t, _mm512_set1_ps(1.544300839e-02f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(4.180156812e-02f));
  r = _mm512_fmsub_ps(r, t, _mm512_set1_ps(1.067977846e-01f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(2.553955913e-01f));
  /* -(b*b) as fnmadd(b, b, 0): +0 where the negation gave -0 (b = 0, whose
   * exponential is 1 either way, and a = 0 takes the small branch) and a
   * NaN's sign kept, which the final copysign overwrites. */
  const __m512 large = _mm512_fnmadd_ps(mt_exp_neg16_16(_mm512_fnmadd_ps(b, b, _mm512_setzero_ps())), r, _mm512_set1_ps(1.0f));
  const __m512 v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(1.0f), _CMP_LT_OQ), large, small);
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_andnot_si512(sign, _mm512_castps_si512(v)),
                                             _mm512_and_si512(sign, _mm512_castps_si512(x))));
}

/* mt_vgelu_backward_op is pointwise.c's mt_gelu_backwardf of 16 floats:
 * g times Phi(x) + x phi(x). */
static inline MT_V4 __m512 mt_vgelu_backward_op(__m512 g, __m512 x) {
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512 cdf =
      _mm512_mul_ps(half, _mm512_add_ps(_mm512_set1_ps(1.0f), mt_erf16(_mm512_mul_ps(x, _mm512_set1_ps((float)M_SQRT1_2)))));
  const __m512 q = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), x), x);
  const __m512 pdf = _mm512_mul_ps(mt_exp16(q), _mm512_set1_ps((float)(M_2_SQRTPI * M_SQRT1_2 * 0.5)));
  /* The generated loop fuses the exact 0.5 * (1 + erf) into the addition
   * rather than x * pdf: the sum of cdf and the rounded product. */
  return _mm512_mul_ps(g, _mm512_add_ps(cdf, _mm512_mul_ps(x, pdf)));
}
/* Sigmoid and silu of 16 floats, as loops_gen.h writes them. A NaN x
 * gives x quieted, its sign kept, as the generated loop does. */
static inline MT_V4 __m512 mt_vsigmoid_op(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, mt_exp_minus16(x)));
}
static inline MT_V4 __m512 mt_vsilu_op(__m512 x) { return _mm512_mul_ps(x, mt_vsigmoid_op(x)); }

/* MT_VLOOP defines an mt_loop over rows of an op of one operand (NIN 1)
 * or two: contiguous rows 16 floats at a time (the tail under a mask),
 * strided ones gathered 16 at a time into a vector and scattered back, so
 * that every element gets the vector op's bits whatever the layout (the
 * scalar formula compiled for x86-64-v4 may contract otherwise). */
#define MT_VLOOP(name, NIN, VOP)                                                                  \
  static MT_V4 int name(int64_t n, int64_t rows, char *const *p, const int64_t *s, const int64_t *os, \
                        const mt_attrs *a) {                                                      \
    (void)a;                                                                                      \
    for (int64_t r = 0; r < rows; r++) {                                                          \
      char *o = p[0] + r * os[0];                                                                 \
      const char *xp = p[1] + r * os[1], *yp = NIN > 1 ? p[2] + r * os[2] : xp;                   \
      const int64_t sy = NIN > 1 ? s[2] : s[1];                                                   \
      if (s[0] == 4 && s[1] == 4 && sy == 4) {                                                    \
        float *of = (float *)o;                                                                   \
        const float *xf = (const float *)xp, *yf = (const float *)yp;                             \
        int64_t i = 0;                                                                            \
        for (; i + 16 <= n; i += 16) {                                                            \
          const __m512 x = _mm512_loadu_ps(xf + i), y = _mm512_loadu_ps(yf + i);                  \
          (void)y;                                                                                \
          _mm512_storeu_ps(of + i, VOP);                                                          \
        }                                                                                         \
        if (i < n) {                                                                              \
          const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                   \
          const __m512 x = _mm512_maskz_loadu_ps(m, xf + i), y = _mm512_maskz_loadu_ps(m, yf + i); \
          (void)y;                                                                                \
          _mm512_mask_storeu_ps(of + i, m, VOP);                                                  \
        }                                                                                         \
        continue;                                                                                 \
      }                                                                                           \
      for (int64_t i = 0; i < n; i += 16) {                                                       \
        const int64_t k = n - i < 16 ? n - i : 16;                                                \
        float xb[16] = {0}, yb[16] = {0}, ob[16];                                                 \
        for (int64_t q = 0; q < k; q++) {                                                         \
          xb[q] = *(const float *)(xp + (i + q) * s[1]);                                          \
          yb[q] = *(const float *)(yp + (i + q) * sy);                                            \
        }                                                                                         \
        const __m512 x = _mm512_loadu_ps(xb), y = _mm512_loadu_ps(yb);                            \
        (void)y;                                                                                  \
        _mm512_storeu_ps(ob, VOP);                                                                \
        for (int64_t q = 0; q < k; q++) *(float *)(o + (i + q) * s[0]) = ob[q];                   \
      }                                                                                           \
    }                                                                                             \
    return 0;                                                                                     \
  }

#ifdef MT_VEXP_LOOPS /* pointwise.c's table takes them; reduce.c needs only mt_vexp_sub_f32 */
MT_VLOOP(mt_vexp_f32, 1, mt_exp16(x))
MT_VLOOP(mt_vsigmoid_f32, 1, mt_vsigmoid_op(x))
MT_VLOOP(mt_vsilu_f32, 1, mt_vsilu_op(x))
MT_VLOOP(mt_vgelu_backward_f32, 2, mt_vgelu_backward_op(x, y)) /* x the gradient, y the input */
#endif

/* mt_vexp_sub_f32 writes e^(x[i] - m) to o[i] for n floats: the exp loop
 * of softmax's contiguous rows (reduce.c). */
static inline MT_V4 void mt_vexp_sub_f32(int64_t n, const float *x, float m, float *o) {
  const __m512 mv = _mm512_set1_ps(m);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, mt_exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv)));
  if (i < n) {
    const __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(o + i, k, mt_exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv)));
  }
}

/* mt_cpu_has_v4 says whether the CPU runs x86-64-v4 code. */
static inline int mt_cpu_has_v4(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("x86-64-v4");
}

#else
#define MT_HAVE_VEXP 0
#endif

#endif
