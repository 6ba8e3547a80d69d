/* Sort and topk along one dim: every row (the elements along the dim at
 * one position of the other dims) is turned into pairs of a key and an
 * index, ordered by sort_algos.h, and written back as values and int64
 * indices. Rows are split across the pool.
 *
 * A key is an unsigned integer that orders as PyTorch orders the values:
 * integers with the sign bit flipped; floats sign-magnitude to unsigned,
 * every NaN on the largest key and -0 on +0's key, so that NaNs (and the
 * two zeros) are ties among themselves, as under PyTorch's comparators. A
 * descending order flips every bit. Values come back from their keys,
 * except for the zero and NaN keys, which stand for several values: those
 * are read from the input. Dtypes of 32 bits and less have 32-bit keys and
 * indices (rows of up to 2^32 - 1 elements), the others 64-bit ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"

#define W 32
#include "sort_algos.h"
#undef W
#define W 64
#include "sort_algos.h"
#undef W

/* fkey32 is the key of float bits b of a format with sign bit sign and
 * infinity inf (binary16, bfloat16, binary32); fkey64 of a double's. */
static inline uint32_t fkey32(uint32_t b, uint32_t sign, uint32_t inf) {
  const uint32_t all = sign | (sign - 1), m = b & (sign - 1);
  uint32_t k = (b & sign) ? ~b & all : b | sign;
  k = m == 0 ? sign : k;
  return m > inf ? all : k;
}
static inline uint64_t fkey64(uint64_t b) {
  const uint64_t sign = (uint64_t)1 << 63, m = b & (sign - 1);
  uint64_t k = (b & sign) ? ~b : b | sign;
  k = m == 0 ? sign : k;
  return m > 0x7ff0000000000000 ? ~(uint64_t)0 : k;
}

/* KEYS defines keys_NAME: elements of C type CT, key KEY (of v). */
#define KEYS(NAME, CT, W, KEY)                                                                      \
  MT_CLONES static void keys_##NAME(const char *x, int64_t xs, int64_t from, int64_t n, uint##W##_t *out, \
                                    uint##W##_t flip) {                                             \
    if (xs == (int64_t)sizeof(CT)) { /* contiguous: vectorised */                                   \
      const char *p = x + from * (int64_t)sizeof(CT);                                               \
      for (int64_t j = 0; j < n; j++) {                                                             \
        CT v;                                                                                       \
        memcpy(&v, p + j * (int64_t)sizeof(CT), sizeof v);                                          \
        out[j] = (uint##W##_t)(KEY) ^ flip;                                                         \
      }                                                                                             \
      return;                                                                                       \
    }                                                                                               \
    for (int64_t j = 0; j < n; j++) {                                                               \
      CT v;                                                                                         \
      memcpy(&v, x + (from + j) * xs, sizeof v);                                                    \
      out[j] = (uint##W##_t)(KEY) ^ flip;                                                           \
    }                                                                                               \
  }

/* STORER defines store_NAME: DECODE sets out (of C type CT) from the key k
 * of the element at index i. */
#define STORER(NAME, CT, W, DECODE)                                                                 \
  static void store_##NAME(const mt_pair##W *q, int64_t n, uint##W##_t flip, const char *x, int64_t xs, \
                           char *v, int64_t vs, char *ix, int64_t is) {                             \
    (void)x;                                                                                        \
    (void)xs;                                                                                       \
    for (int64_t j = 0; j < n; j++) {                                                               \
      const uint##W##_t k = q[j].k ^ flip;                                                          \
      const int64_t i = (int64_t)q[j].i;                                                            \
      CT out;                                                                                       \
      DECODE;                                                                                       \
      memcpy(v + j * vs, &out, sizeof out);                                                         \
      memcpy(ix + j * is, &i, sizeof i);                                                            \
    }                                                                                               \
  }

/* A float's value from its key, or from x for the zero and NaN keys. */
#define FDECODE(SIGN, ALL)                                                                          \
  if (k == (SIGN) || k == (ALL)) memcpy(&out, x + i * xs, sizeof out);                              \
  else out = (k & (SIGN)) ? k & ((SIGN) - 1) : ~k & (ALL)

#define INTS(NAME, CT, UT, W, SIGN)                                                                 \
  KEYS(NAME, CT, W, (UT)v ^ (SIGN))                                                               \
  STORER(NAME, CT, W, out = (CT)(UT)(k ^ (SIGN)))

INTS(u8, uint8_t, uint8_t, 32, 0)
INTS(i8, int8_t, uint8_t, 32, 0x80)
INTS(i16, int16_t, uint16_t, 32, 0x8000)
INTS(i32, int32_t, uint32_t, 32, 0x80000000u)
INTS(i64, int64_t, uint64_t, 64, (uint64_t)1 << 63)
KEYS(f16, uint16_t, 32, fkey32(v, 0x8000, 0x7c00))
STORER(f16, uint16_t, 32, FDECODE(0x8000u, 0xffffu))
KEYS(bf16, uint16_t, 32, fkey32(v, 0x8000, 0x7f80))
STORER(bf16, uint16_t, 32, FDECODE(0x8000u, 0xffffu))
KEYS(f32, uint32_t, 32, fkey32(v, 0x80000000u, 0x7f800000))
STORER(f32, uint32_t, 32, FDECODE(0x80000000u, 0xffffffffu))
KEYS(f64, uint64_t, 64, fkey64(v))
STORER(f64, uint64_t, 64, FDECODE((uint64_t)1 << 63, ~(uint64_t)0))

/* The keys and store functions of each dtype (bool as uint8). */
static const struct {
  int wide; /* 64-bit keys */
  void *keys, *store;
} dtypes[MT_NUM_DTYPES] = {
    [MT_BOOL] = {0, (void *)keys_u8, (void *)store_u8},  [MT_U8] = {0, (void *)keys_u8, (void *)store_u8},
    [MT_I8] = {0, (void *)keys_i8, (void *)store_i8},    [MT_I16] = {0, (void *)keys_i16, (void *)store_i16},
    [MT_I32] = {0, (void *)keys_i32, (void *)store_i32}, [MT_I64] = {1, (void *)keys_i64, (void *)store_i64},
    [MT_F16] = {0, (void *)keys_f16, (void *)store_f16}, [MT_BF16] = {0, (void *)keys_bf16, (void *)store_bf16},
    [MT_F32] = {0, (void *)keys_f32, (void *)store_f32}, [MT_F64] = {1, (void *)keys_f64, (void *)store_f64},
};

/* A job with its operands' addresses. */
typedef struct {
  const mt_sort_job *job;
  const char *x;
  char *values, *indices;
} sort_ctx;

/* sort_share sorts rows [begin, end) with a buffer of its own. */
static int sort_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const sort_ctx *c = ctx;
  const mt_sort_job *j = c->job;
  const int wide = dtypes[j->dtype].wide;
  void *buf = malloc((size_t)(2 * j->n + 64) * (wide ? sizeof(mt_pair64) : sizeof(mt_pair32)));
  if (!buf) return MT_ERR_NOMEM;
  const mt_plan *p = &j->rows;
  for (int64_t r = begin; r < end; r++) {
    int64_t off[3] = {0, 0, 0}, rest = r;
    for (int64_t d = 0; d < p->ndim; d++) {
      const int64_t at = rest % p->shape[d];
      rest /= p->shape[d];
      for (int k = 0; k < 3; k++) off[k] += at * p->strides[k][d];
    }
    const char *x = c->x + off[0];
    char *v = c->values + off[1], *ix = c->indices + off[2];
    if (wide) sort_row64(j, x, v, ix, buf, (keys_fn64)dtypes[j->dtype].keys, (store_fn64)dtypes[j->dtype].store);
    else sort_row32(j, x, v, ix, buf, (keys_fn32)dtypes[j->dtype].keys, (store_fn32)dtypes[j->dtype].store);
  }
  free(buf);
  return MT_OK;
}

int mt_sort(const mt_sort_job *job, const void *x, void *values, int64_t *indices) {
  if (job->dtype < 0 || job->dtype >= MT_NUM_DTYPES || job->n < 0 || job->k < 0 || job->k > job->n ||
      job->rows.ndim < 0 || job->rows.ndim > MT_MAX_DIMS)
    return MT_ERR_UNSUPPORTED;
  if (!dtypes[job->dtype].wide && job->n > (int64_t)UINT32_MAX) return MT_ERR_UNSUPPORTED;
  if (job->nrows == 0 || job->k == 0) return MT_OK;
  sort_ctx c = {job, x, values, (char *)indices};
  if (job->grain <= 0) return sort_share(&c, 0, 0, job->nrows);
  return mt_parallel(job->nrows, job->grain, sort_share, &c, 0);
}
