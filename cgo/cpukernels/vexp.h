/* AVX-512 loops for float32 exp, sigmoid, silu and softmax's exponentials:
 * mt_expf written with
 * intrinsics. The compiler's vectorisation of mt_expf spends about 45
 * instructions on 16 floats, most of them on the clamps and on the scaling
 * by 2^n in two factors; here VSCALEFPS does the scaling (one rounding, as
 * the two factors give: the first is exact) and the rest is the same
 * arithmetic in the same order, fused multiply-adds where the compiler
 * contracts them in the x86-64-v4 clone. So each element gets the bits the
 * scalar formula gives under x86-64-v4; vexp_test.go checks it against the
 * strided branch of the same loops, which runs that formula.
 *
 * pointwise.c includes this after fastexp.h and, when the CPU has
 * x86-64-v4, puts these loops in its table in place of the generated ones;
 * reduce.c calls mt_vexp_sub_f32 then. */
#ifndef MT_VEXP_H
#define MT_VEXP_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(MT_NO_CLONES)
#define MT_HAVE_VEXP 1
#include <immintrin.h>

#define MT_V4 __attribute__((target("arch=x86-64-v4")))

/* mt_exp16 is mt_expf of 16 floats. */
static inline MT_V4 __m512 mt_exp16(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-103.972084f), hi = _mm512_set1_ps(88.7228394f);
  /* x < lo ? lo : x, then > hi ? hi: NaN fails both tests and stays. */
  __m512 xc = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ), x, lo);
  xc = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(xc, hi, _CMP_GT_OQ), xc, hi);
  const __m512 t = _mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269504089f), _mm512_set1_ps(0.5f));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r);
  y = _mm512_add_ps(y, _mm512_set1_ps(1.0f));
  y = _mm512_scalef_ps(y, n);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ), y, _mm512_set1_ps(INFINITY));
}

static inline MT_V4 __m512 mt_neg16(__m512 x) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
}

/* The three ops on 16 floats, as loops_gen.h writes them. */
static inline MT_V4 __m512 mt_vexp_op(__m512 x) { return mt_exp16(x); }
/* A NaN x gives x quieted, its sign kept, as the generated loop does (the
 * compiler folds the negation into a fused multiply-add, which passes a
 * NaN operand through unnegated) and the scalar path below says outright. */
static inline MT_V4 __m512 mt_vsigmoid_op(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 s = _mm512_div_ps(one, _mm512_add_ps(one, mt_exp16(mt_neg16(x))));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), s, _mm512_add_ps(x, x));
}
static inline MT_V4 __m512 mt_vsilu_op(__m512 x) { return _mm512_mul_ps(x, mt_vsigmoid_op(x)); }

/* One scalar element, for strided rows: the formula of loops_gen.h, compiled
 * for x86-64-v4 as the clone it replaces, a NaN's sign and payload kept
 * explicitly (as the vector path keeps them). */
static inline MT_V4 float mt_sexp_op(float x) { return mt_expf(x); }
static inline MT_V4 float mt_ssigmoid_op(float x) { return x != x ? x + x : 1.0f / (1.0f + mt_expf(-x)); }
static inline MT_V4 float mt_ssilu_op(float x) { return x * mt_ssigmoid_op(x); }

/* MT_VLOOP defines an mt_loop over rows: contiguous rows 16 floats at a
 * time (the tail under a mask), strided ones element by element. */
#define MT_VLOOP(name, vop, sop)                                                                  \
  static MT_V4 int name(int64_t n, int64_t rows, char *const *p, const int64_t *s, const int64_t *os, \
                        const mt_attrs *a) {                                                      \
    (void)a;                                                                                      \
    for (int64_t r = 0; r < rows; r++) {                                                          \
      char *o = p[0] + r * os[0];                                                                 \
      const char *xp = p[1] + r * os[1];                                                          \
      if (s[0] == 4 && s[1] == 4) {                                                               \
        float *of = (float *)o;                                                                   \
        const float *xf = (const float *)xp;                                                      \
        int64_t i = 0;                                                                            \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(of + i, vop(_mm512_loadu_ps(xf + i)));      \
        if (i < n) {                                                                              \
          const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                   \
          _mm512_mask_storeu_ps(of + i, m, vop(_mm512_maskz_loadu_ps(m, xf + i)));                \
        }                                                                                         \
      } else {                                                                                    \
        for (int64_t i = 0; i < n; i++) *(float *)(o + i * s[0]) = sop(*(const float *)(xp + i * s[1])); \
      }                                                                                           \
    }                                                                                             \
    return 0;                                                                                     \
  }

MT_VLOOP(mt_vexp_f32, mt_vexp_op, mt_sexp_op)
MT_VLOOP(mt_vsigmoid_f32, mt_vsigmoid_op, mt_ssigmoid_op)
MT_VLOOP(mt_vsilu_f32, mt_vsilu_op, mt_ssilu_op)

/* mt_vexp_sub_f32 writes e^(x[i] - m) to o[i] for n floats: the exp loop
 * of softmax's contiguous rows (reduce.c). */
static MT_V4 void mt_vexp_sub_f32(int64_t n, const float *x, float m, float *o) {
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
