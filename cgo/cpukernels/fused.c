/* Fused chains of pointwise ops: the steps of a chain run block by block,
 * each through the pointwise loop of its op (pointwise.c) and the branch
 * of it the op takes alone, so that memory is walked once, results read
 * only inside the chain live in block buffers, and every element gets the
 * bits it gets when the ops run one by one. */
#include <stdlib.h>

#include "loops.h"

/* Elements per block: 8 KB of float, 16 KB of double per buffer, so that
 * a chain's buffers stay in the L2 cache. */
#define MT_FUSED_BLOCK 2048

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

static int fused_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  const fused_job *j = ctx;
  const int64_t esz = j->esz, block = MT_FUSED_BLOCK * esz;
  int nbuf = 0;
  for (int s = 0; s < j->nslots; s++) nbuf += j->slots[s].kind == MT_SLOT_BUFFER;
  char *arena = NULL;
  if (nbuf > 0 && !(arena = aligned_alloc(64, (size_t)(nbuf * block)))) return MT_ERR_NOMEM;
  char *buf[MT_FUSED_MAX_SLOTS] = {0};
  for (int s = 0, b = 0; s < j->nslots; s++) {
    if (j->slots[s].kind == MT_SLOT_BUFFER) buf[s] = arena + (b++) * block;
  }
  int status = MT_OK;
  for (int64_t b0 = begin; b0 < end; b0 += MT_FUSED_BLOCK) {
    const int64_t len = end - b0 < MT_FUSED_BLOCK ? end - b0 : MT_FUSED_BLOCK;
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
    for (int t = 0; t < j->nsteps; t++) {
      int r = run_step(j, &j->steps[t], j->loops[t], b0, len, ptr, str, buf);
      if (r != MT_OK) status = r;
    }
  }
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

int mt_fused(int dtype, int64_t n, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots,
             int64_t grain) {
  if ((dtype != MT_F32 && dtype != MT_F64) || nsteps < 1 || nsteps > MT_FUSED_MAX_STEPS || nslots < 1 ||
      nslots > MT_FUSED_MAX_SLOTS || !valid(steps, nsteps, slots, nslots))
    return MT_ERR_UNSUPPORTED;
  fused_job j = {dtype == MT_F32 ? 4 : 8, steps, nsteps, slots, nslots, {0}};
  for (int t = 0; t < nsteps; t++) {
    if (!(j.loops[t] = mt_pointwise_loop(steps[t].op, dtype))) return MT_ERR_UNSUPPORTED;
  }
  if (grain < 1 || n < 2 * grain) return fused_share(&j, 0, 0, n);
  return mt_parallel(n, grain, fused_share, &j, 0);
}
