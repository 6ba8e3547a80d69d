/* Casts between every pair of dtypes, as PyTorch converts on x86: floating to
 * integer truncates (NaN and out-of-range values as the hardware gives them),
 * anything to bool is "not zero", float16 and bfloat16 round to nearest even
 * from float. Copies and fills are casts (a fill reads a zero-stride source). */
#include <string.h>

#include "loops.h"
#include "scalar.h"

/* Load an element of each dtype as a C value; SF says it is floating. */
#define LD_b(p) (*(const uint8_t *)(p))
#define LD_u8(p) (*(const uint8_t *)(p))
#define LD_i8(p) (*(const int8_t *)(p))
#define LD_i16(p) (*(const int16_t *)(p))
#define LD_i32(p) (*(const int32_t *)(p))
#define LD_i64(p) (*(const int64_t *)(p))
#define LD_f16(p) mt_h2f(*(const uint16_t *)(p))
#define LD_bf16(p) mt_bf2f(*(const uint16_t *)(p))
#define LD_f32(p) (*(const float *)(p))
#define LD_f64(p) (*(const double *)(p))
#define SF_b 0
#define SF_u8 0
#define SF_i8 0
#define SF_i16 0
#define SF_i32 0
#define SF_i64 0
#define SF_f16 1
#define SF_bf16 1
#define SF_f32 1
#define SF_f64 1

/* Store value v (floating when SF) into an element of each dtype. */
#define ST_b(p, v, SF) (*(uint8_t *)(p) = (uint8_t)((v) != 0))
#define ST_u8(p, v, SF) (*(uint8_t *)(p) = (SF) ? (uint8_t)mt_d2i32((double)(v)) : (uint8_t)(v))
#define ST_i8(p, v, SF) (*(int8_t *)(p) = (SF) ? (int8_t)mt_d2i32((double)(v)) : (int8_t)(v))
#define ST_i16(p, v, SF) (*(int16_t *)(p) = (SF) ? (int16_t)mt_d2i32((double)(v)) : (int16_t)(v))
#define ST_i32(p, v, SF) (*(int32_t *)(p) = (SF) ? mt_d2i32((double)(v)) : (int32_t)(v))
#define ST_i64(p, v, SF) (*(int64_t *)(p) = (SF) ? mt_d2i64((double)(v)) : (int64_t)(v))
#define ST_f16(p, v, SF) (*(uint16_t *)(p) = mt_f2h((float)(v)))
#define ST_bf16(p, v, SF) (*(uint16_t *)(p) = mt_f2bf((float)(v)))
#define ST_f32(p, v, SF) (*(float *)(p) = (float)(v))
#define ST_f64(p, v, SF) (*(double *)(p) = (double)(v))

static const int64_t item_size[MT_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};

#define CAST_LOOP(D, S)                                                              \
  MT_ROW cast_##D##_##S##_row(int64_t n, char *const *p, const int64_t *s,           \
                              const mt_attrs *a) {                                   \
    (void)a;                                                                         \
    char *o = p[0];                                                                  \
    const char *x = p[1];                                                            \
    const int64_t so = s[0], sx = s[1];                                              \
    for (int64_t i = 0; i < n; i++) ST_##D(o + i * so, LD_##S(x + i * sx), SF_##S);  \
    return MT_OK;                                                                    \
  }                                                                                  \
  MT_ROWS(cast_##D##_##S, cast_##D##_##S##_row)

#define CAST_FROM(D)                                                                 \
  CAST_LOOP(D, b) CAST_LOOP(D, u8) CAST_LOOP(D, i8) CAST_LOOP(D, i16) CAST_LOOP(D, i32) \
  CAST_LOOP(D, i64) CAST_LOOP(D, f16) CAST_LOOP(D, bf16) CAST_LOOP(D, f32) CAST_LOOP(D, f64)
CAST_FROM(b)
CAST_FROM(u8)
CAST_FROM(i8)
CAST_FROM(i16)
CAST_FROM(i32)
CAST_FROM(i64)
CAST_FROM(f16)
CAST_FROM(bf16)
CAST_FROM(f32)
CAST_FROM(f64)

#define ROW(D)                                                                       \
  {cast_##D##_b, cast_##D##_u8, cast_##D##_i8, cast_##D##_i16, cast_##D##_i32,       \
   cast_##D##_i64, cast_##D##_f16, cast_##D##_bf16, cast_##D##_f32, cast_##D##_f64}
static const mt_loop casts[MT_NUM_DTYPES][MT_NUM_DTYPES] = {
    ROW(b), ROW(u8), ROW(i8), ROW(i16), ROW(i32), ROW(i64), ROW(f16), ROW(bf16), ROW(f32), ROW(f64)};

/* Same-dtype copies move bytes: contiguous rows with memcpy, fills by
 * repeating one element. */
#define COPY_LOOP(name, T)                                                           \
  MT_ROW name##_row(int64_t n, char *const *p, const int64_t *s,                     \
                    const mt_attrs *a) {                                             \
    (void)a;                                                                         \
    const int64_t w = sizeof(T);                                                     \
    if (s[0] == w && s[1] == w) {                                                    \
      memmove(p[0], p[1], (size_t)(n * w));                                          \
    } else if (s[0] == w && s[1] == 0) {                                             \
      T v = *(const T *)p[1], *o = (T *)p[0];                                        \
      for (int64_t i = 0; i < n; i++) o[i] = v;                                      \
    } else {                                                                         \
      for (int64_t i = 0; i < n; i++) *(T *)(p[0] + i * s[0]) = *(const T *)(p[1] + i * s[1]); \
    }                                                                                \
    return MT_OK;                                                                    \
  }                                                                                  \
  MT_ROWS(name, name##_row)
COPY_LOOP(copy1, uint8_t)
COPY_LOOP(copy2, uint16_t)
COPY_LOOP(copy4, uint32_t)
COPY_LOOP(copy8, uint64_t)

static mt_loop cast_loop(int dst, int src) {
  if (dst < 0 || dst >= MT_NUM_DTYPES || src < 0 || src >= MT_NUM_DTYPES) return 0;
  if (dst == src) {
    switch (item_size[dst]) {
      case 1: return copy1;
      case 2: return copy2;
      case 4: return copy4;
      default: return copy8;
    }
  }
  return casts[dst][src];
}

int mt_cast(int dst, int src, const mt_plan *plan, void *p0, void *p1, int64_t begin, int64_t end) {
  mt_loop loop = cast_loop(dst, src);
  if (!loop) return MT_ERR_UNSUPPORTED;
  char *base[MT_MAX_OPS] = {p0, p1, 0, 0};
  return mt_run_plan(loop, plan, base, begin, end, 0);
}

int mt_cast_1d(int dst, int src, int64_t n, void *p0, void *p1, int64_t s0, int64_t s1) {
  mt_loop loop = cast_loop(dst, src);
  if (!loop) return MT_ERR_UNSUPPORTED;
  char *p[MT_MAX_OPS] = {p0, p1, 0, 0};
  int64_t s[MT_MAX_OPS] = {s0, s1, 0, 0}, os[MT_MAX_OPS] = {0};
  return loop(n, 1, p, s, os, 0);
}

int mt_cast_parallel(int dst, int src, const mt_plan *plan, void *p0, void *p1, int64_t n, int64_t grain) {
  mt_loop loop = cast_loop(dst, src);
  if (!loop) return MT_ERR_UNSUPPORTED;
  char *base[MT_MAX_OPS] = {p0, p1, 0, 0};
  return mt_run_plan_parallel(loop, plan, base, n, 0, grain);
}
