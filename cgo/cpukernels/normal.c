/* PyTorch's Box-Muller transform for float32 normal_ (normal_fill_16_AVX2 in
 * aten/src/ATen/native/cpu/DistributionKernels.cpp of PyTorch 1.13), bit for
 * bit, with avx_mathfun.h's log256_ps and sincos256_ps (Cephes' logf, sinf
 * and cosf, 8 lanes at a time) written out again here.
 *
 * Bit for bit means: the same operations in the same order, each rounded
 * where PyTorch's binary rounds it. PyTorch's x86 wheels and Debian's build
 * are compiled by GCC with its default -ffp-contract=fast, and GCC's
 * _mm256_mul_ps / _mm256_add_ps are plain vector arithmetic, so it fuses an
 * add (or sub) with a product that has no other use into one vfmadd: every
 * step of the polynomials, the log's y*z + e*q1, y - z*0.5 and x + e*q2,
 * the three steps of sincos's reduction, c*z - z*0.5 and s*x + x. This file
 * writes those fused multiply-adds explicitly and keeps everything else a
 * separate, rounded mul or add, so it is compiled with contraction off:
 * the result then does not depend on this compiler's own choices.
 *
 * The uniforms (mt19937 draws) stay in Go (pkg/backends/cpu/random.go): this
 * file only transforms them, on CPUs with AVX2 and FMA (mt_normal_avx2). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "cpu_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MT_NORMAL_X86 1
#endif

#ifdef MT_NORMAL_X86

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <immintrin.h>

#define MT_AVX2 __attribute__((target("avx2,fma")))
#define MT_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma")))

/* avx_mathfun.h's constants (_ps256_* / _pi32_256_*): double literals rounded
 * to float, as its tables are. */
#define PS(v) _mm256_set1_ps((float)(v))
#define PI32(v) _mm256_set1_epi32((int)(v))

/* log256_ps: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(x) = log(m) + e
 * log(2), log(m) by Cephes' polynomial in m - 1; NaN (all bits set) for
 * x <= 0, and denormals cut off to the smallest normal first. */
MT_AVX2_INLINE __m256 log8(__m256 x) {
  const __m256 one = PS(1.0f);
  const __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
  x = _mm256_max_ps(x, _mm256_castsi256_ps(PI32(0x00800000))); /* min_norm_pos */
  __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  /* keep the mantissa, with the exponent of 0.5 */
  x = _mm256_and_ps(x, _mm256_castsi256_ps(PI32(~0x7f800000)));
  x = _mm256_or_ps(x, PS(0.5f));
  imm0 = _mm256_sub_epi32(imm0, PI32(0x7f));
  __m256 e = _mm256_cvtepi32_ps(imm0);
  e = _mm256_add_ps(e, one);
  /* if (x < SQRTHF) { e -= 1; x = x + x - 1; } else x = x - 1; */
  const __m256 mask = _mm256_cmp_ps(x, PS(0.707106781186547524), _CMP_LT_OS);
  __m256 tmp = _mm256_and_ps(x, mask);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
  x = _mm256_add_ps(x, tmp);
  const __m256 z = _mm256_mul_ps(x, x);
  /* Cephes' p0..p8, each step y*x + p fused */
  __m256 y = PS(7.0376836292E-2);
  y = _mm256_fmadd_ps(y, x, PS(-1.1514610310E-1));
  y = _mm256_fmadd_ps(y, x, PS(1.1676998740E-1));
  y = _mm256_fmadd_ps(y, x, PS(-1.2420140846E-1));
  y = _mm256_fmadd_ps(y, x, PS(+1.4249322787E-1));
  y = _mm256_fmadd_ps(y, x, PS(-1.6668057665E-1));
  y = _mm256_fmadd_ps(y, x, PS(+2.0000714765E-1));
  y = _mm256_fmadd_ps(y, x, PS(-2.4999993993E-1));
  y = _mm256_fmadd_ps(y, x, PS(+3.3333331174E-1));
  y = _mm256_mul_ps(y, x);
  /* y = y*z + e*q1: the product y*z fused, e*q1 rounded */
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, PS(-2.12194440e-4)));
  /* y = y - z*0.5 */
  y = _mm256_fnmadd_ps(z, PS(0.5f), y);
  /* x = (x + y) + e*q2 */
  x = _mm256_fmadd_ps(e, PS(0.693359375), _mm256_add_ps(x, y));
  return _mm256_or_ps(x, invalid);
}

/* sincos256_ps: x reduced by multiples j of pi/4 (j even: the j&1 fix) in
 * three parts (DP1 + DP2 + DP3 = pi/4), then Cephes' cosine polynomial or
 * sine polynomial for each result, chosen by j, and the signs of the octant. */
MT_AVX2_INLINE void sincos8(__m256 x, __m256 *s, __m256 *c) {
  __m256 sign_bit_sin = _mm256_and_ps(x, _mm256_castsi256_ps(PI32(0x80000000)));
  x = _mm256_and_ps(x, _mm256_castsi256_ps(PI32(~0x80000000)));
  /* scale by 4/pi, j = (int(y) + 1) & ~1 */
  __m256 y = _mm256_mul_ps(x, PS(1.27323954473516));
  __m256i imm2 = _mm256_cvttps_epi32(y);
  imm2 = _mm256_add_epi32(imm2, PI32(1));
  imm2 = _mm256_and_si256(imm2, PI32(~1));
  y = _mm256_cvtepi32_ps(imm2);
  __m256i imm4 = imm2;
  /* the swap of the sine's sign, and the polynomial selection */
  const __m256i imm0 = _mm256_slli_epi32(_mm256_and_si256(imm2, PI32(4)), 29);
  imm2 = _mm256_cmpeq_epi32(_mm256_and_si256(imm2, PI32(2)), _mm256_setzero_si256());
  const __m256 swap_sign_bit_sin = _mm256_castsi256_ps(imm0);
  const __m256 poly_mask = _mm256_castsi256_ps(imm2);
  /* x = ((x - y*DP1) - y*DP2) - y*DP3, each step fused */
  x = _mm256_fmadd_ps(y, PS(-0.78515625), x);
  x = _mm256_fmadd_ps(y, PS(-2.4187564849853515625e-4), x);
  x = _mm256_fmadd_ps(y, PS(-3.77489497744594108e-8), x);
  imm4 = _mm256_sub_epi32(imm4, PI32(2));
  imm4 = _mm256_andnot_si256(imm4, PI32(4));
  imm4 = _mm256_slli_epi32(imm4, 29);
  const __m256 sign_bit_cos = _mm256_castsi256_ps(imm4);
  sign_bit_sin = _mm256_xor_ps(sign_bit_sin, swap_sign_bit_sin);
  /* the cosine's polynomial: ((p0 z + p1) z + p2) z z - z/2 + 1 */
  const __m256 z = _mm256_mul_ps(x, x);
  y = PS(2.443315711809948E-005);
  y = _mm256_fmadd_ps(y, z, PS(-1.388731625493765E-003));
  y = _mm256_fmadd_ps(y, z, PS(4.166664568298827E-002));
  y = _mm256_mul_ps(y, z);
  y = _mm256_fmsub_ps(y, z, _mm256_mul_ps(z, PS(0.5f)));
  y = _mm256_add_ps(y, PS(1.0f));
  /* the sine's polynomial: ((p0 z + p1) z + p2) z x + x */
  __m256 y2 = PS(-1.9515295891E-4);
  y2 = _mm256_fmadd_ps(y2, z, PS(8.3321608736E-3));
  y2 = _mm256_fmadd_ps(y2, z, PS(-1.6666654611E-1));
  y2 = _mm256_mul_ps(y2, z);
  y2 = _mm256_fmadd_ps(y2, x, x);
  /* the selection, with its subtractions and additions (which turn -0 into +0) */
  const __m256 ysin2 = _mm256_and_ps(poly_mask, y2);
  const __m256 ysin1 = _mm256_andnot_ps(poly_mask, y);
  y2 = _mm256_sub_ps(y2, ysin2);
  y = _mm256_sub_ps(y, ysin1);
  const __m256 xmm1 = _mm256_add_ps(ysin1, ysin2);
  const __m256 xmm2 = _mm256_add_ps(y, y2);
  *s = _mm256_xor_ps(xmm1, sign_bit_sin);
  *c = _mm256_xor_ps(xmm2, sign_bit_cos);
}

/* normal_fill_16_AVX2: with u1 = 1 - d[j] and u2 = d[j+8] (j < 8),
 * d[j] = sqrt(-2 log u1) cos(2 pi u2) * std + mean and d[j+8] the same with
 * sin, the last step an explicit _mm256_fmadd_ps in PyTorch's source. */
MT_AVX2_INLINE void fill16(float *d, __m256 mean, __m256 std) {
  const __m256 two_pi = PS(2.0f * 3.14159265358979323846); /* 2.0f * c10::pi<double>, rounded to float */
  const __m256 u1 = _mm256_sub_ps(PS(1.0f), _mm256_loadu_ps(d));
  const __m256 u2 = _mm256_loadu_ps(d + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(PS(-2.0f), log8(u1)));
  const __m256 theta = _mm256_mul_ps(two_pi, u2);
  __m256 sintheta, costheta;
  sincos8(theta, &sintheta, &costheta);
  const __m256 n1 = _mm256_mul_ps(radius, costheta);
  const __m256 n2 = _mm256_mul_ps(radius, sintheta);
  _mm256_storeu_ps(d, _mm256_fmadd_ps(n1, std, mean));
  _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(n2, std, mean));
}

MT_AVX2 static void fill_avx2(float *data, int64_t n, const float *tail, float mean, float std) {
  const __m256 mean_v = _mm256_set1_ps(mean), std_v = _mm256_set1_ps(std);
  for (int64_t i = 0; i + 16 <= n; i += 16) fill16(data + i, mean_v, std_v);
  if (tail != NULL && n >= 16) {
    float *last = data + n - 16;
    memcpy(last, tail, 16 * sizeof(float));
    fill16(last, mean_v, std_v);
  }
}

#endif /* MT_NORMAL_X86 */

int mt_normal_avx2(void) {
#ifdef MT_NORMAL_X86
  static int cached = -1;
  int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (v < 0) {
    __builtin_cpu_init();
    v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
  }
  return v;
#else
  return 0;
#endif
}

int mt_normal_fill_f32(float *data, int64_t n, const float *tail, float mean, float std) {
#ifdef MT_NORMAL_X86
  if (!mt_normal_avx2()) return MT_ERR_ISA;
  if (n < 0 || (tail != NULL && n < 16)) return MT_ERR_UNSUPPORTED;
  fill_avx2(data, n, tail, mean, std);
  return MT_OK;
#else
  (void)data; (void)n; (void)tail; (void)mean; (void)std;
  return MT_ERR_ISA;
#endif
}

/* mt_normal_fill_f64 is PyTorch's normal_fill_16<double> on the n (a
 * multiple of 16) float64 uniforms at data: with u1 = 1 - d[j] and
 * u2 = d[j+8] in each block of 16, d[j] = sqrt(-2 log u1) cos(2 pi u2) * std
 * + mean and d[j+8] the same with sin, with the C library's log, cos and sin
 * and the last step fused (GCC contracts it in PyTorch's build). No other
 * product meets an add here, so nothing else can be contracted. */
int mt_normal_fill_f64(double *data, int64_t n, double mean, double std) {
  if (n < 0 || n % 16 != 0) return MT_ERR_UNSUPPORTED;
  for (int64_t b = 0; b < n; b += 16) {
    double *d = data + b;
    for (int j = 0; j < 8; j++) {
      const double radius = sqrt(-2 * log(1 - d[j]));
      const double theta = 2.0 * M_PI * d[j + 8];
      const double c = radius * cos(theta), s = radius * sin(theta);
      d[j] = fma(c, std, mean);
      d[j + 8] = fma(s, std, mean);
    }
  }
  return MT_OK;
}
