/* Pointwise kernels: one inner loop per (op, compute dtype), registered in a
 * table at load time. Floating ops compute in float or double (Go converts
 * float16 and bfloat16 to float first); integer ops in their own type with
 * wrap-around (-fwrapv); bool as bytes that are 0 or 1. */
#include <math.h>
#include <stdint.h>

#include "loops.h" /* first: its pragma applies to fastexp.h and fasterf.h too */
#include "fastexp.h"
#include "fasterf.h"
#include "vsqrt.h"
#define MT_VEXP_LOOPS /* vexp.h's loops, for the table */
#include "vexp.h"

static mt_loop table[MT_NUM_POINTWISE][MT_NUM_DTYPES];

/* Registration runs at load time, before reg_vexp (a higher priority number
 * runs later). */
#define REG(ID, DT, fn) \
  __attribute__((constructor(101))) static void reg_##fn(void) { table[ID][DT] = fn; }

/* Floating ops: the float and double loops share an expression written with
 * the generic math helpers below. */
#define F1(ID, name, EXPR) \
  MT_LOOP1(name##_f32, float, float, 1, EXPR) REG(ID, MT_F32, name##_f32) \
  MT_LOOP1(name##_f64, double, double, 1, EXPR) REG(ID, MT_F64, name##_f64)
#define F2(ID, name, EXPR) \
  MT_LOOP2(name##_f32, float, float, 1, EXPR) REG(ID, MT_F32, name##_f32) \
  MT_LOOP2(name##_f64, double, double, 1, EXPR) REG(ID, MT_F64, name##_f64)
#define F1B(ID, name, EXPR) \
  MT_LOOP1(name##_f32, float, uint8_t, 1, EXPR) REG(ID, MT_F32, name##_f32) \
  MT_LOOP1(name##_f64, double, uint8_t, 1, EXPR) REG(ID, MT_F64, name##_f64)
#define F2B(ID, name, EXPR) \
  MT_LOOP2(name##_f32, float, uint8_t, 1, EXPR) REG(ID, MT_F32, name##_f32) \
  MT_LOOP2(name##_f64, double, uint8_t, 1, EXPR) REG(ID, MT_F64, name##_f64)

/* Integer ops over the five integer types. */
#define I_EACH(M, ID, name, OT_SAME, EXPR) \
  M(name##_u8, uint8_t, OT_SAME(uint8_t), 0, EXPR) REG(ID, MT_U8, name##_u8) \
  M(name##_i8, int8_t, OT_SAME(int8_t), 0, EXPR) REG(ID, MT_I8, name##_i8) \
  M(name##_i16, int16_t, OT_SAME(int16_t), 0, EXPR) REG(ID, MT_I16, name##_i16) \
  M(name##_i32, int32_t, OT_SAME(int32_t), 0, EXPR) REG(ID, MT_I32, name##_i32) \
  M(name##_i64, int64_t, OT_SAME(int64_t), 0, EXPR) REG(ID, MT_I64, name##_i64)
#define SAME(T) T
#define BOOLOUT(T) uint8_t
#define I1(ID, name, EXPR) I_EACH(MT_LOOP1, ID, name, SAME, EXPR)
#define I2(ID, name, EXPR) I_EACH(MT_LOOP2, ID, name, SAME, EXPR)
#define I1B(ID, name, EXPR) I_EACH(MT_LOOP1, ID, name, BOOLOUT, EXPR)
#define I2B(ID, name, EXPR) I_EACH(MT_LOOP2, ID, name, BOOLOUT, EXPR)
/* Bool ops: bytes in, a 0 or 1 byte out. */
#define B1(ID, name, EXPR) MT_LOOP1(name##_b, uint8_t, uint8_t, 0, (EXPR) != 0) REG(ID, MT_BOOL, name##_b)
#define B2(ID, name, EXPR) MT_LOOP2(name##_b, uint8_t, uint8_t, 0, (EXPR) != 0) REG(ID, MT_BOOL, name##_b)
/* Every type. */
#define A2B(ID, name, EXPR) F2B(ID, name, EXPR) I2B(ID, name##_i, EXPR) B2(ID, name, EXPR)
#define A1B(ID, name, EXPR) F1B(ID, name, EXPR) I1B(ID, name##_i, EXPR) B1(ID, name, EXPR)

/* Generic helpers: sizeof picks the float or the double function. */
#define G(fn, x) (sizeof(x) == sizeof(float) ? (__typeof__(x))fn##f((float)(x)) : (__typeof__(x))fn((double)(x)))
#define G2(fn, x, y) \
  (sizeof(x) == sizeof(float) ? (__typeof__(x))fn##f((float)(x), (float)(y)) : (__typeof__(x))fn((double)(x), (double)(y)))
#define ISNAN(x) ((x) != (x))

/* Division and remainder as PyTorch defines them. */
static inline double mt_floordiv(double x, double y) {
  if (y == 0) return x / y;
  double mod = fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1;
  double fl;
  if (div != 0) {
    fl = floor(div);
    if (div - fl > 0.5) fl += 1;
  } else {
    fl = copysign(0.0, x / y);
  }
  return fl;
}
static inline float mt_floordivf(float x, float y) {
  if (y == 0) return x / y;
  float mod = fmodf(x, y);
  float div = (x - mod) / y;
  if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1;
  float fl;
  if (div != 0) {
    fl = floorf(div);
    if (div - fl > 0.5f) fl += 1;
  } else {
    fl = copysignf(0.0f, x / y);
  }
  return fl;
}
static inline double mt_remainder(double x, double y) {
  double r = fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
static inline float mt_remainderf(float x, float y) {
  float r = fmodf(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
static inline double mt_sign(double x) { return (double)((0 < x) - (x < 0)); }
static inline float mt_signf(float x) { return (float)((0 < x) - (x < 0)); }
static inline double mt_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline float mt_sigmoidf(float x) { return 1.0f / (1.0f + mt_expf(-x)); }
/* erf: libm's for double, the vectorisable polynomial of fasterf.h for float. */
static inline double mt_erf(double x) { return erf(x); }
static inline double mt_gelu(double x) { return 0.5 * x * (1.0 + erf(x * M_SQRT1_2)); }
static inline float mt_geluf(float x) { return 0.5f * x * (1.0f + mt_erff(x * (float)M_SQRT1_2)); }
static inline double mt_gelu_tanh(double x) {
  const double k = M_SQRT2 * M_2_SQRTPI * 0.5;
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}
static inline float mt_gelu_tanhf(float x) {
  const float k = (float)(M_SQRT2 * M_2_SQRTPI * 0.5);
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}
/* gelu's derivative times g, as PyTorch's GeluBackwardKernelImpl: exact,
 * Phi(x) + x phi(x); and of the tanh approximation. */
static inline double mt_gelu_backward(double g, double x) {
  const double cdf = 0.5 * (1.0 + erf(x * M_SQRT1_2));
  const double pdf = exp(-0.5 * x * x) * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return g * (cdf + x * pdf);
}
static inline float mt_gelu_backwardf(float g, float x) {
  const float cdf = 0.5f * (1.0f + mt_erff(x * (float)M_SQRT1_2));
  const float pdf = mt_expf(-0.5f * x * x) * (float)(M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return g * (cdf + x * pdf);
}
static inline double mt_gelu_tanh_backward(double g, double x) {
  const double k = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
  const double t = tanh(k * (x + kappa * x * x * x));
  const double dinner = k * (1.0 + 3.0 * kappa * x * x);
  return g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner);
}
static inline float mt_gelu_tanh_backwardf(float g, float x) {
  const float k = (float)(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = 0.044715f;
  const float t = tanhf(k * (x + kappa * x * x * x));
  const float dinner = k * (1.0f + 3.0f * kappa * x * x);
  return g * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dinner);
}
static inline double mt_frac(double x) { return x - trunc(x); }
static inline float mt_fracf(float x) { return x - truncf(x); }
static inline double mt_rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float mt_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double mt_lerp(double a, double b, double w) {
  return fabs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}
static inline float mt_lerpf(float a, float b, float w) {
  return fabsf(w) < 0.5f ? a + w * (b - a) : b - (b - a) * (1 - w);
}
/* Integer power by squaring; negative exponents give 0 except for bases 1 and -1. */
static inline int64_t mt_powi(int64_t b, int64_t e) {
  if (e < 0) {
    if (b == 1) return 1;
    if (b == -1) return (e & 1) ? -1 : 1;
    return 0;
  }
  int64_t r = 1;
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return r;
}

/* erfinv as PyTorch's calc_erfinv: a rational first guess (central and
 * tail ranges), then two Newton steps on erf(x) - y. */
static inline double mt_erfinv(double y) {
  const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  const double d[2] = {3.543889200, 1.637067800};
  double ya = fabs(y), x;
  if (ya > 1) return NAN;
  if (ya == 1) return copysign(INFINITY, y);
  if (ya <= 0.7) {
    double z = y * y;
    double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    double dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;
    x = y * num / dem;
  } else {
    double z = sqrt(-log((1 - ya) / 2));
    double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    double dem = (d[1] * z + d[0]) * z + 1;
    x = copysign(num, y) / dem;
  }
  x = x - (erf(x) - y) / (M_2_SQRTPI * exp(-x * x));
  x = x - (erf(x) - y) / (M_2_SQRTPI * exp(-x * x));
  return x;
}
static inline float mt_erfinvf(float y) {
  const float a[4] = {0.886226899f, -1.645349621f, 0.914624893f, -0.140543331f};
  const float b[4] = {-2.118377725f, 1.442710462f, -0.329097515f, 0.012229801f};
  const float c[4] = {-1.970840454f, -1.624906493f, 3.429567803f, 1.641345311f};
  const float d[2] = {3.543889200f, 1.637067800f};
  float ya = fabsf(y), x;
  if (ya > 1) return NAN;
  if (ya == 1) return copysignf(INFINITY, y);
  if (ya <= 0.7f) {
    float z = y * y;
    float num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    float dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;
    x = y * num / dem;
  } else {
    float z = sqrtf(-logf((1 - ya) / 2));
    float num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    float dem = (d[1] * z + d[0]) * z + 1;
    x = copysignf(num, y) / dem;
  }
  x = x - (erff(x) - y) / ((float)M_2_SQRTPI * expf(-x * x));
  x = x - (erff(x) - y) / ((float)M_2_SQRTPI * expf(-x * x));
  return x;
}
/* sinc(x) = sin(pi x) / (pi x), 1 at 0. */
static inline double mt_sinc(double x) {
  if (x == 0) return 1;
  double p = M_PI * x;
  return sin(p) / p;
}
static inline float mt_sincf(float x) {
  if (x == 0) return 1;
  float p = (float)M_PI * x;
  return sinf(p) / p;
}
/* logit with an optional clamp to [eps, 1 - eps] (eps < 0: none). */
static inline double mt_logit(double x, double eps) {
  if (eps >= 0) x = x < eps ? eps : x > 1 - eps ? 1 - eps : x;
  return log(x / (1 - x));
}
static inline float mt_logitf(float x, float eps) {
  if (eps >= 0) x = x < eps ? eps : x > 1 - eps ? 1 - eps : x;
  return logf(x / (1 - x));
}
/* xlogy: 0 where x is 0 (unless y is NaN), else x * log(y). */
static inline double mt_xlogy(double x, double y) {
  if (isnan(y)) return NAN;
  if (x == 0) return 0;
  return x * log(y);
}
static inline float mt_xlogyf(float x, float y) {
  if (isnan(y)) return NAN;
  if (x == 0) return 0;
  return x * logf(y);
}
/* logaddexp = log(e^x + e^y) without overflow; equal infinities stay. */
static inline double mt_logaddexp(double x, double y) {
  if (isinf(x) && x == y) return x;
  double m = x > y ? x : y;
  return m + log1p(exp(-fabs(x - y)));
}
static inline float mt_logaddexpf(float x, float y) {
  if (isinf(x) && x == y) return x;
  float m = x > y ? x : y;
  return m + log1pf(expf(-fabsf(x - y)));
}
/* log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)). */
static inline double mt_logsigmoid(double x) { return (x < 0 ? x : 0) - log1p(exp(-fabs(x))); }
static inline float mt_logsigmoidf(float x) { return (x < 0 ? x : 0) - log1pf(expf(-fabsf(x))); }
/* mish = x * tanh(softplus(x)). */
static inline double mt_mish(double x) { return x * tanh(log1p(exp(x))); }
static inline float mt_mishf(float x) { return x * tanhf(log1pf(expf(x))); }
/* The constants of SELU (Klambauer et al.), as PyTorch's. */
#define MT_SELU_ALPHA 1.6732632423543772848170429916717
#define MT_SELU_SCALE 1.0507009873554804934193349852946
/* Shifts as PyTorch 2.x defines them for any count: a left shift of the
 * type's width or more, or a negative one, gives 0; a right shift of that
 * much fills with the sign bit. */
#define SHL(x, y) \
  ((y) < 0 || (int64_t)(y) >= (int64_t)(8 * sizeof(x)) ? 0 : (__typeof__(x))((uint64_t)(x) << (y)))
#define SHR_MAX(x) ((int64_t)(8 * sizeof(x)) - ((__typeof__(x))-1 < 0))
#define SHR(x, y) ((y) < 0 || (int64_t)(y) >= SHR_MAX(x) ? (x) >> SHR_MAX(x) : (x) >> (y))

/* NaN-propagating max and min. */
/* NaN wins; of two equal values (0 and -0) the first, as PyTorch. */
#define FMAX(x, y) (ISNAN(x) ? (x) : ISNAN(y) ? (y) : (x) < (y) ? (y) : (x))
#define FMIN(x, y) (ISNAN(x) ? (x) : ISNAN(y) ? (y) : (y) < (x) ? (y) : (x))
#define IMAX(x, y) ((x) > (y) ? (x) : (y))
#define IMIN(x, y) ((x) < (y) ? (x) : (y))

/* Integer division that reports division by zero and wraps INT_MIN / -1. */
#define IDIV0(expr) (y == 0 ? (err = MT_ERR_ZERO_DIV, 0) : (expr))
#define ITRUNC(x, y) ((y) == -1 ? -(x) : (x) / (y))
#define IMOD(x, y) ((y) == -1 ? 0 : (x) % (y))
#define IFLOOR(x, y) (ITRUNC(x, y) - ((IMOD(x, y) != 0) && (((x) < 0) != ((y) < 0))))
#define IREM(x, y) (IMOD(x, y) + ((IMOD(x, y) != 0 && ((IMOD(x, y) < 0) != ((y) < 0))) ? (y) : 0))

/* ---- unary and binary: generated from the op table ---- */
#include "loops_gen.h"

/* ---- sqrt: the vector instruction on contiguous rows (vsqrt.h) ---- */
#define SQRT_LOOP(S, T, VEC, SCALAR)                                              \
  MT_ROW sqrt_##S##_row(int64_t n, char *const *p, const int64_t *s, const mt_attrs *a) { \
    (void)a;                                                                      \
    if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) {               \
      VEC((T *)p[0], (const T *)p[1], n);                                         \
      return 0;                                                                   \
    }                                                                             \
    for (int64_t i = 0; i < n; i++) *(T *)(p[0] + i * s[0]) = SCALAR(*(const T *)(p[1] + i * s[1])); \
    return 0;                                                                     \
  }                                                                               \
  MT_ROWS(sqrt_##S, sqrt_##S##_row) REG(MT_SQRT, MT_##S, sqrt_##S)
SQRT_LOOP(F32, float, vsqrt_f32, sqrtf)
SQRT_LOOP(F64, double, vsqrt_f64, sqrt)

/* ---- ternary ---- */
#define T3_ALL(ID, name, XT, EXPR) \
  MT_LOOP3(name##_f32, XT, float, float, 1, EXPR) REG(ID, MT_F32, name##_f32) \
  MT_LOOP3(name##_f64, XT, double, double, 1, EXPR) REG(ID, MT_F64, name##_f64) \
  MT_LOOP3(name##_u8, XT, uint8_t, uint8_t, 0, EXPR) REG(ID, MT_U8, name##_u8) \
  MT_LOOP3(name##_i8, XT, int8_t, int8_t, 0, EXPR) REG(ID, MT_I8, name##_i8) \
  MT_LOOP3(name##_i16, XT, int16_t, int16_t, 0, EXPR) REG(ID, MT_I16, name##_i16) \
  MT_LOOP3(name##_i32, XT, int32_t, int32_t, 0, EXPR) REG(ID, MT_I32, name##_i32) \
  MT_LOOP3(name##_i64, XT, int64_t, int64_t, 0, EXPR) REG(ID, MT_I64, name##_i64)
/* where: operand 1 is the bool condition. Bool data moves as uint8. */
T3_ALL(MT_WHERE, where, uint8_t, x ? y : z)
MT_LOOP3(where_b, uint8_t, uint8_t, uint8_t, 0, x ? y : z) REG(MT_WHERE, MT_BOOL, where_b)
/* clamp with tensor bounds: x is the input (same type), y the min, z the max. */
MT_LOOP3(clampt_f32, float, float, float, 1, ISNAN(x) ? x : FMIN(FMAX(x, y), z)) REG(MT_CLAMP_TENSOR, MT_F32, clampt_f32)
MT_LOOP3(clampt_f64, double, double, double, 1, ISNAN(x) ? x : FMIN(FMAX(x, y), z)) REG(MT_CLAMP_TENSOR, MT_F64, clampt_f64)
#define CLAMPT_I(sfx, T, DT) \
  MT_LOOP3(clampt_##sfx, T, T, T, 0, IMIN(IMAX(x, y), z)) REG(MT_CLAMP_TENSOR, DT, clampt_##sfx)
CLAMPT_I(u8, uint8_t, MT_U8)
CLAMPT_I(i8, int8_t, MT_I8)
CLAMPT_I(i16, int16_t, MT_I16)
CLAMPT_I(i32, int32_t, MT_I32)
CLAMPT_I(i64, int64_t, MT_I64)
/* lerp: start x, end y, weight z. */
MT_LOOP3(lerp_f32, float, float, float, 1, mt_lerpf(x, y, z)) REG(MT_LERP, MT_F32, lerp_f32)
MT_LOOP3(lerp_f64, double, double, double, 1, mt_lerp(x, y, z)) REG(MT_LERP, MT_F64, lerp_f64)
/* masked_fill: operand 1 is the input, 2 the bool mask; c0 the value. */
/* threshold_backward: operand 1 the gradient, 2 the input; c0 the threshold. */
#define THRB(sfx, T, DT, FL) \
  MT_LOOP2(thrb_##sfx, T, T, FL, y <= c0 ? 0 : x) REG(MT_THRESHOLD_BACKWARD, DT, thrb_##sfx)
THRB(f32, float, MT_F32, 1)
THRB(f64, double, MT_F64, 1)
THRB(u8, uint8_t, MT_U8, 0)
THRB(i8, int8_t, MT_I8, 0)
THRB(i16, int16_t, MT_I16, 0)
THRB(i32, int32_t, MT_I32, 0)
THRB(i64, int64_t, MT_I64, 0)

/* masked_fill reads its mask as bytes: a loop of its own. */
#define MFILL_LOOP(sfx, T, DT, FL)                                                  \
  MT_ROW mfill_##sfx##_row(int64_t n, char *const *p, const int64_t *s,             \
                           const mt_attrs *a) {                                     \
    const T v = MT_ATTR(T, FL, 0);                                                  \
    char *o = p[0]; const char *xp = p[1], *mp = p[2];                              \
    for (int64_t i = 0; i < n; i++) {                                               \
      T x = *(const T *)(xp + i * s[1]);                                            \
      *(T *)(o + i * s[0]) = mp[i * s[2]] ? v : x;                                  \
    }                                                                               \
    return MT_OK;                                                                   \
  }                                                                                 \
  MT_ROWS(mfill_##sfx, mfill_##sfx##_row)                                           \
  REG(MT_MASKED_FILL, DT, mfill_##sfx)
MFILL_LOOP(f32, float, MT_F32, 1)
MFILL_LOOP(f64, double, MT_F64, 1)
MFILL_LOOP(b, uint8_t, MT_BOOL, 0)
MFILL_LOOP(u8, uint8_t, MT_U8, 0)
MFILL_LOOP(i8, int8_t, MT_I8, 0)
MFILL_LOOP(i16, int16_t, MT_I16, 0)
MFILL_LOOP(i32, int32_t, MT_I32, 0)
MFILL_LOOP(i64, int64_t, MT_I64, 0)

int mt_pointwise(int op, int dtype, const mt_plan *plan, void *p0, void *p1, void *p2, void *p3,
                 int64_t begin, int64_t end, mt_attrs attrs) {
  if (op < 0 || op >= MT_NUM_POINTWISE || dtype < 0 || dtype >= MT_NUM_DTYPES || !table[op][dtype])
    return MT_ERR_UNSUPPORTED;
  char *base[MT_MAX_OPS] = {p0, p1, p2, p3};
  return mt_run_plan(table[op][dtype], plan, base, begin, end, &attrs);
}

int mt_pointwise_1d(int op, int dtype, int64_t n, void *p0, void *p1, void *p2, void *p3,
                    int64_t s0, int64_t s1, int64_t s2, int64_t s3, mt_attrs attrs) {
  if (op < 0 || op >= MT_NUM_POINTWISE || dtype < 0 || dtype >= MT_NUM_DTYPES || !table[op][dtype])
    return MT_ERR_UNSUPPORTED;
  char *p[MT_MAX_OPS] = {p0, p1, p2, p3};
  int64_t s[MT_MAX_OPS] = {s0, s1, s2, s3}, os[MT_MAX_OPS] = {0};
  return table[op][dtype](n, 1, p, s, os, &attrs);
}

int mt_pointwise_parallel(int op, int dtype, const mt_plan *plan, void *p0, void *p1, void *p2, void *p3,
                          int64_t n, mt_attrs attrs, int64_t grain) {
  if (op < 0 || op >= MT_NUM_POINTWISE || dtype < 0 || dtype >= MT_NUM_DTYPES || !table[op][dtype])
    return MT_ERR_UNSUPPORTED;
  char *base[MT_MAX_OPS] = {p0, p1, p2, p3};
  return mt_run_plan_parallel(table[op][dtype], plan, base, n, &attrs, grain);
}

#if MT_HAVE_VEXP
/* reg_vexp puts vexp.h's loops in place of the generated float32 exp,
 * sigmoid and silu on a CPU with x86-64-v4. */
static mt_loop generated_f32[MT_NUM_POINTWISE]; /* the loops reg_vexp replaced, for the tests */

__attribute__((constructor(102))) static void reg_vexp(void) {
  if (!mt_cpu_has_v4()) return;
  generated_f32[MT_EXP] = table[MT_EXP][MT_F32];
  generated_f32[MT_SIGMOID] = table[MT_SIGMOID][MT_F32];
  generated_f32[MT_SILU] = table[MT_SILU][MT_F32];
  generated_f32[MT_GELU_BACKWARD] = table[MT_GELU_BACKWARD][MT_F32];
  table[MT_EXP][MT_F32] = mt_vexp_f32;
  table[MT_SIGMOID][MT_F32] = mt_vsigmoid_f32;
  table[MT_SILU][MT_F32] = mt_vsilu_f32;
  table[MT_GELU_BACKWARD][MT_F32] = mt_vgelu_backward_f32;
}
#endif

int mt_vexp_active(void) {
#if MT_HAVE_VEXP
  return table[MT_EXP][MT_F32] == mt_vexp_f32 && table[MT_SIGMOID][MT_F32] == mt_vsigmoid_f32 &&
         table[MT_SILU][MT_F32] == mt_vsilu_f32 && table[MT_GELU_BACKWARD][MT_F32] == mt_vgelu_backward_f32;
#else
  return 0;
#endif
}

int mt_pointwise_generated_1d(int op, int64_t n, void *p0, void *p1, void *p2, int64_t s0, int64_t s1,
                              int64_t s2) {
  mt_loop loop = 0;
#if MT_HAVE_VEXP
  if (op >= 0 && op < MT_NUM_POINTWISE) loop = generated_f32[op];
#endif
  if (!loop && op >= 0 && op < MT_NUM_POINTWISE) loop = table[op][MT_F32];
  if (!loop) return MT_ERR_UNSUPPORTED;
  char *p[MT_MAX_OPS] = {p0, p1, p2, 0};
  int64_t s[MT_MAX_OPS] = {s0, s1, s2, 0}, os[MT_MAX_OPS] = {0};
  mt_attrs a = {0};
  return loop(n, 1, p, s, os, &a);
}

int mt_vexp_expected(void) {
#if MT_HAVE_VEXP
  return mt_cpu_has_v4();
#else
  return 0;
#endif
}

mt_loop mt_pointwise_loop(int op, int dtype) {
  if (op < 0 || op >= MT_NUM_POINTWISE || dtype < 0 || dtype >= MT_NUM_DTYPES) return 0;
  return table[op][dtype];
}
