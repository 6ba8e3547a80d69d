/* Fused chains of pointwise ops: the steps of a chain run block by block,
 * each through the pointwise loop of its op (pointwise.c) and the branch
 * of it the op takes alone, so that memory is walked once, results read
 * only inside the chain live in block buffers, and every element gets the
 * bits it gets when the ops run one by one. */
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "sum_row.h"

/* Elements per block: 2 KB of float, 4 KB of double per buffer, so that a
 * chain's buffers stay in the L1 cache and each step's loads of its inputs
 * come soon after the last (on a 2-core EPYC VM, x*a + b, relu, sigmoid on
 * 1e6 floats took 0.61 ms a pass with blocks of 256, 0.68 with 512, 0.74
 * with 1024, 0.84 with 2048, in C alone). A multiple of sum_row.h's LANES. */
#define MT_FUSED_BLOCK 512
_Static_assert(MT_FUSED_BLOCK % LANES == 0, "a fused sum's blocks start on whole groups of LANES");

typedef struct {
  int64_t esz;
  const mt_fstep *steps;
  int nsteps;
  const mt_fslot *slots;
  int nslots;
  mt_loop loops[MT_FUSED_MAX_STEPS];
} fused_job;

/* run_step runs step st over elements [b0, b0 + len): ptr and str are the
 * slots' addresses at b0 and strides; buf the block buffers. */
static int run_step(const fused_job *j, const mt_fstep *st, mt_loop loop, int64_t b0, int64_t len, char **ptr,
                    const int64_t *str, char **buf) {
  if (!st->plan) {
    char *p[MT_MAX_OPS] = {ptr[st->out]};
    int64_t s[MT_MAX_OPS] = {j->esz}, os[MT_MAX_OPS] = {0};
    for (int k = 0; k < st->nin; k++) {
      p[k + 1] = ptr[st->in[k]];
      s[k + 1] = str[st->in[k]];
    }
    return loop(len, 1, p, s, os, &st->attrs);
  }
  /* Through the plan: operand bases at element 0 of the whole shape (a
   * buffer's is placed so that element b0 lands at its start). */
  char *base[MT_MAX_OPS] = {0};
  for (int k = 0; k <= st->nin; k++) {
    int s = k ? st->in[k - 1] : st->out;
    const mt_fslot *sl = &j->slots[s];
    base[k] = sl->kind == MT_SLOT_BUFFER ? (char *)((uintptr_t)buf[s] - (uintptr_t)(b0 * j->esz))
                                         : (char *)(uintptr_t)sl->data;
  }
  return mt_run_plan(loop, (const mt_plan *)(uintptr_t)st->plan, base, b0, b0 + len, &st->attrs);
}

/* block_buffers gives each buffer slot of j a block in one new arena
 * (returned, to free; NULL with *nomem set when allocation failed). */
static char *block_buffers(const fused_job *j, char **buf, int *nomem) {
  const int64_t block = MT_FUSED_BLOCK * j->esz;
  int nbuf = 0;
  for (int s = 0; s < j->nslots; s++) nbuf += j->slots[s].kind == MT_SLOT_BUFFER;
  *nomem = 0;
  if (nbuf == 0) return NULL;
  char *arena = aligned_alloc(64, (size_t)(nbuf * block));
  if (!arena) {
    *nomem = 1;
    return NULL;
  }
  for (int s = 0, b = 0; s < j->nslots; s++) {
    if (j->slots[s].kind == MT_SLOT_BUFFER) buf[s] = arena + (b++) * block;
  }
  return arena;
}

/* run_block runs every step over elements [b0, b0 + len), len at most a
 * block, and returns the first failure; *at (when not NULL) is set to
 * where the values of slot `slot` for the block are. */
static int run_block(const fused_job *j, int64_t b0, int64_t len, char **buf, int slot, const char **at) {
  const int64_t esz = j->esz;
  char *ptr[MT_FUSED_MAX_SLOTS];
  int64_t str[MT_FUSED_MAX_SLOTS];
  for (int s = 0; s < j->nslots; s++) {
    const mt_fslot *sl = &j->slots[s];
    ptr[s] = buf[s];
    str[s] = esz;
    if (sl->kind == MT_SLOT_DENSE) {
      ptr[s] = (char *)(uintptr_t)sl->data + b0 * esz;
    } else if (sl->kind == MT_SLOT_CONST) {
      ptr[s] = (char *)(uintptr_t)sl->data;
      str[s] = 0;
    }
  }
  int status = MT_OK;
  for (int t = 0; t < j->nsteps; t++) {
    int r = run_step(j, &j->steps[t], j->loops[t], b0, len, ptr, str, buf);
    if (r != MT_OK) status = r;
  }
  if (at) *at = ptr[slot];
  return status;
}

static int fused_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const fused_job *j = ctx;
  char *buf[MT_FUSED_MAX_SLOTS] = {0};
  int nomem;
  char *arena = block_buffers(j, buf, &nomem);
  if (nomem) return MT_ERR_NOMEM;
  int status = MT_OK;
  for (int64_t b0 = begin; b0 < end; b0 += MT_FUSED_BLOCK) {
    const int64_t len = end - b0 < MT_FUSED_BLOCK ? end - b0 : MT_FUSED_BLOCK;
    int r = run_block(j, b0, len, buf, 0, NULL);
    if (r != MT_OK) status = r;
  }
  free(arena);
  return status;
}

/* ---- a chain that ends in a sum of one of its results ----
 * The sum adds the values in reduce.c's order (sum_row.h), over the same
 * parts as the sum alone (mt_reduce_split's when it splits), so that it
 * gets the bits of the chain run op by op and then summed. A leaf of the
 * pairwise sum is computed block by block, each block starting a whole
 * number of blocks into it: a multiple of LANES, so that its groups are
 * the leaf's own. */
typedef struct {
  const fused_job *j;
  int slot;               /* the slot summed */
  int64_t n, chunk;       /* elements, and elements per part */
  char *parts;            /* one partial sum per part, of esz bytes each */
} sum_job;

#define FUSED_SUM_FUNCS(T, S)                                                                  \
  MT_CLONES static T fsum_leaf_##S(const sum_job *sj, int64_t b, int64_t n, char **buf, int *st) { \
    T acc[LANES] = {0}, t = 0;                                                                 \
    for (int64_t b0 = b; b0 < b + n; b0 += MT_FUSED_BLOCK) {                                   \
      const int64_t len = b + n - b0 < MT_FUSED_BLOCK ? b + n - b0 : MT_FUSED_BLOCK;           \
      const char *at;                                                                          \
      const int r = run_block(sj->j, b0, len, buf, sj->slot, &at);                             \
      if (r != MT_OK) *st = r;                                                                 \
      const T *x = (const T *)at;                                                              \
      sum_groups_##S(acc, x, len / LANES);                                                     \
      for (int64_t i = len / LANES * LANES; i < len; i++) t += x[i]; /* the leaf's last block */ \
    }                                                                                          \
    return sum_leaf_end_##S(acc, t);                                                           \
  }                                                                                            \
  static T fsum_range_##S(const sum_job *sj, int64_t b, int64_t n, char **buf, int *st) {     \
    if (n <= LEAF) return fsum_leaf_##S(sj, b, n, buf, st);                                    \
    const int64_t h = sum_split(n);                                                            \
    return fsum_range_##S(sj, b, h, buf, st) + fsum_range_##S(sj, b + h, n - h, buf, st);       \
  }
FUSED_SUM_FUNCS(float, f32)
FUSED_SUM_FUNCS(double, f64)

/* sum_share sums parts [begin, end) (all of them when the pool was busy). */
static int sum_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const sum_job *sj = ctx;
  char *buf[MT_FUSED_MAX_SLOTS] = {0};
  int nomem;
  char *arena = block_buffers(sj->j, buf, &nomem);
  if (nomem) return MT_ERR_NOMEM;
  int status = MT_OK;
  for (int64_t p = begin; p < end; p++) {
    const int64_t b = p * sj->chunk, n = sj->n - b < sj->chunk ? sj->n - b : sj->chunk;
    if (sj->j->esz == 4)
      ((float *)sj->parts)[p] = fsum_range_f32(sj, b, n, buf, &status);
    else
      ((double *)sj->parts)[p] = fsum_range_f64(sj, b, n, buf, &status);
  }
  free(arena);
  return status;
}

/* ---- the values of a range of elements, for the reductions below ----
 * eval_range writes the values of slot for elements [a, b) of the chain's
 * n to dst. It runs the chain in blocks placed as each op places its loop
 * when it runs alone over the n elements: inside the share of `chunk`
 * elements that holds them (mt_parallel's split, as mt_fused splits), at
 * multiples of MT_VEC elements from the share's start, a block reaching
 * the share's last partial vector ending at the share's end. An element
 * then falls in the vectorised body or in the remainder of every loop as
 * it does alone (the compiler may round the two differently: a NaN's sign,
 * say), and gets the same bits. Blocks of neighbouring ranges overlap;
 * stored results are then written twice, with the same values. */
_Static_assert(MT_FUSED_BLOCK % MT_VEC == 0, "blocks are whole vectors");

static int eval_range(const fused_job *j, int slot, int64_t a, int64_t b, int64_t n, int64_t chunk, char **buf,
                      char *dst) {
  const int64_t esz = j->esz;
  int status = MT_OK;
  while (a < b) {
    const int64_t s = a / chunk * chunk, e = s + chunk < n ? s + chunk : n;
    const int64_t from = s + (a - s) / MT_VEC * MT_VEC;
    const int64_t stop = b < from + MT_FUSED_BLOCK ? b : from + MT_FUSED_BLOCK; /* wanted: [a, stop) */
    const int64_t end_ = stop < e ? stop : e;
    int64_t to = s + (end_ - s + MT_VEC - 1) / MT_VEC * MT_VEC;
    if (to > e) to = e;
    const char *at;
    const int st = run_block(j, from, to - from, buf, slot, &at);
    if (st != MT_OK) status = st;
    memcpy(dst, at + (a - from) * esz, (size_t)((end_ - a) * esz));
    dst += (end_ - a) * esz;
    a = end_;
  }
  return status;
}

/* ---- a chain that ends in a reduction along its last dimension ----
 * Each row of the reduced slot's values is gathered by eval_range into a
 * row buffer, and the reduction's own kernel runs over that buffer as
 * mt_reduce runs it over a row in memory. */
typedef struct {
  const fused_job *j;
  int slot;      /* the slot reduced */
  int64_t r;     /* elements per row */
  int64_t n;     /* elements of the chain */
  int64_t chunk; /* eval_range's share length */
  mt_red_fn fn;  /* the reduction's kernel */
  int along;     /* it writes r values per row, else one */
  int64_t os;    /* bytes per output value */
  char *out;
  mt_attrs a;
} rows_job;

/* rows_share reduces rows [begin, end): short rows several at a time (as
 * many as fill a block), each from the buffer eval_range fills. */
static int rows_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const rows_job *rj = ctx;
  const fused_job *j = rj->j;
  const int64_t r = rj->r, esz = j->esz, per = r < MT_FUSED_BLOCK ? MT_FUSED_BLOCK / r : 1;
  char *buf[MT_FUSED_MAX_SLOTS] = {0};
  int nomem;
  char *arena = block_buffers(j, buf, &nomem);
  if (nomem) return MT_ERR_NOMEM;
  char *rows = aligned_alloc(64, (size_t)((per * r * esz + 63) / 64 * 64));
  if (!rows) {
    free(arena);
    return MT_ERR_NOMEM;
  }
  int status = MT_OK;
  for (int64_t o = begin; o < end; o += per) {
    const int64_t q = end - o < per ? end - o : per;
    int st = eval_range(j, rj->slot, o * r, (o + q) * r, rj->n, rj->chunk, buf, rows);
    if (st != MT_OK) status = st;
    for (int64_t i = 0; i < q; i++) {
      char *dst = rj->out + (rj->along ? (o + i) * r : o + i) * rj->os;
      st = rj->fn(rows + i * r * esz, 0, r, 1, 1, dst, 0, &rj->a);
      if (st != MT_OK) status = st;
    }
  }
  free(rows);
  free(arena);
  return status;
}

/* valid checks a chain: known slot kinds, slot indices in range, a step
 * reads a strided slot only through a plan and writes a buffer or memory. */
static int valid(const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots) {
  for (int s = 0; s < nslots; s++) {
    if (slots[s].kind < MT_SLOT_BUFFER || slots[s].kind > MT_SLOT_STRIDED) return 0;
  }
  for (int t = 0; t < nsteps; t++) {
    const mt_fstep *st = &steps[t];
    if (st->nin < 1 || st->nin > MT_MAX_OPS - 1 || st->out < 0 || st->out >= nslots) return 0;
    if (slots[st->out].kind != MT_SLOT_BUFFER && slots[st->out].kind != MT_SLOT_DENSE) return 0;
    if (st->plan && ((const mt_plan *)(uintptr_t)st->plan)->nops != st->nin + 1) return 0;
    for (int k = 0; k < st->nin; k++) {
      if (st->in[k] < 0 || st->in[k] >= nslots || (slots[st->in[k]].kind == MT_SLOT_STRIDED && !st->plan)) return 0;
    }
  }
  return 1;
}

/* prepare checks a chain and fills j. */
static int prepare(fused_job *j, int dtype, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots) {
  if ((dtype != MT_F32 && dtype != MT_F64) || nsteps < 1 || nsteps > MT_FUSED_MAX_STEPS || nslots < 1 ||
      nslots > MT_FUSED_MAX_SLOTS || !valid(steps, nsteps, slots, nslots))
    return MT_ERR_UNSUPPORTED;
  *j = (fused_job){dtype == MT_F32 ? 4 : 8, steps, nsteps, slots, nslots, {0}};
  for (int t = 0; t < nsteps; t++) {
    if (!(j->loops[t] = mt_pointwise_loop(steps[t].op, dtype))) return MT_ERR_UNSUPPORTED;
  }
  return MT_OK;
}

int mt_fused(int dtype, int64_t n, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots,
             int64_t grain) {
  fused_job j;
  const int st = prepare(&j, dtype, steps, nsteps, slots, nslots);
  if (st != MT_OK) return st;
  if (grain < 1 || n < 2 * grain) return fused_share(&j, 0, 0, n);
  return mt_parallel(n, grain, fused_share, &j, 0);
}

int mt_fused_sum(int dtype, int64_t n, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots,
                 int slot, int64_t split_grain, void *out) {
  fused_job j;
  const int st = prepare(&j, dtype, steps, nsteps, slots, nslots);
  if (st != MT_OK) return st;
  if (slot < 0 || slot >= nslots || n < 0) return MT_ERR_UNSUPPORTED;
  /* The parts of mt_reduce_split (mt_parallel's shares), or one. */
  int64_t parts = 1;
  if (split_grain > 0) {
    parts = mt_pool_size();
    if (n / split_grain < parts) parts = n / split_grain;
    if (parts < 1) parts = 1;
  }
  const int64_t chunk = parts > 1 ? (n + parts - 1) / parts : n;
  if (parts > 1) parts = (n + chunk - 1) / chunk;
  double partial[MT_POOL_MAX];
  sum_job sj = {&j, slot, n, chunk, (char *)partial};
  int r = parts > 1 ? mt_parallel(parts, 1, sum_share, &sj, 0) : sum_share(&sj, 0, 0, 1);
  if (r != MT_OK) return r;
  if (split_grain <= 0) {
    memcpy(out, partial, (size_t)j.esz);
    return MT_OK;
  }
  /* The parts summed as mt_reduce_split sums them (one part too). */
  return mt_reduce(MT_R_SUM, dtype, partial, 0, 1, parts, 1, out, 0, 0, 1, (mt_attrs){0});
}

int mt_fused_rows(int dtype, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots, int slot,
                  int rop, int64_t rows, int64_t r, void *out, mt_attrs a, int64_t grain, int64_t op_grain) {
  fused_job j;
  const int st = prepare(&j, dtype, steps, nsteps, slots, nslots);
  if (st != MT_OK) return st;
  if (slot < 0 || slot >= nslots || rows < 1 || r < 1 || !out || r > (INT64_MAX - 63) / j.esz ||
      rows > INT64_MAX / r)
    return MT_ERR_UNSUPPORTED;
  if (slots[slot].kind != MT_SLOT_BUFFER && slots[slot].kind != MT_SLOT_DENSE) return MT_ERR_UNSUPPORTED;
  int written = 0; /* some step writes the slot reduced */
  for (int t = 0; t < nsteps; t++) written |= steps[t].out == slot;
  if (!written && slots[slot].kind == MT_SLOT_BUFFER) return MT_ERR_UNSUPPORTED;
  /* The reductions of one value or one row per row that read neither an
   * index nor a gradient. */
  switch (rop) {
  case MT_R_SUM: case MT_R_MEAN: case MT_R_PROD: case MT_R_AMAX: case MT_R_AMIN: case MT_R_VAR: case MT_R_STD:
  case MT_R_NORM: case MT_R_LOGSUMEXP: case MT_R_CUMSUM: case MT_R_CUMPROD: case MT_R_SOFTMAX:
  case MT_R_LOG_SOFTMAX:
    break;
  default:
    return MT_ERR_UNSUPPORTED;
  }
  const int64_t n = rows * r;
  rows_job rj = {&j, slot, r, n, op_grain > 0 ? mt_parallel_chunk(n, op_grain) : n, 0, 0, 0, out, a};
  rj.fn = mt_reduction_fn(rop, dtype, &rj.along, &rj.os);
  if (!rj.fn) return MT_ERR_UNSUPPORTED;
  if (grain < 1 || rows < 2 * grain) return rows_share(&rj, 0, 0, rows);
  return mt_parallel(rows, grain, rows_share, &rj, 0);
}

