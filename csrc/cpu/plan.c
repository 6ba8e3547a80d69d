/* The driver shared by every kernel: walk an iteration plan row by row. */
#include "loops.h"

int mt_run_plan(mt_loop loop, const mt_plan *plan, char *const *base, int64_t begin, int64_t end,
                const mt_attrs *a) {
  const int64_t nd = plan->ndim, nops = plan->nops;
  if (begin >= end) return MT_OK;
  if (nd <= 1) {
    char *p[MT_MAX_OPS];
    int64_t s[MT_MAX_OPS];
    for (int64_t k = 0; k < nops; k++) {
      s[k] = nd ? plan->strides[k][0] : 0;
      p[k] = base[k] + begin * s[k];
    }
    return loop(end - begin, p, s, a);
  }
  int64_t idx[MT_MAX_DIMS];
  int64_t rest = begin;
  for (int64_t d = 0; d < nd; d++) {
    idx[d] = rest % plan->shape[d];
    rest /= plan->shape[d];
  }
  int64_t s0[MT_MAX_OPS];
  for (int64_t k = 0; k < nops; k++) s0[k] = plan->strides[k][0];
  int status = MT_OK;
  while (begin < end) {
    int64_t n = plan->shape[0] - idx[0];
    if (n > end - begin) n = end - begin;
    char *p[MT_MAX_OPS];
    for (int64_t k = 0; k < nops; k++) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; d++) off += idx[d] * plan->strides[k][d];
      p[k] = base[k] + off;
    }
    int st = loop(n, p, s0, a);
    if (st != MT_OK) status = st;
    begin += n;
    idx[0] = 0;
    for (int64_t d = 1; d < nd; d++) {
      if (++idx[d] < plan->shape[d]) break;
      idx[d] = 0;
    }
  }
  return status;
}

int mt_isa(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return 3;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 2;
#endif
  return 0;
}

/* mt_run_plan_parallel is mt_run_plan over [0, n) split across the pool. */
typedef struct {
  mt_loop loop;
  const mt_plan *plan;
  char *base[MT_MAX_OPS];
  const mt_attrs *a;
} plan_job;

static int plan_share(void *ctx, int share, int64_t begin, int64_t end) {
  (void)share;
  plan_job *j = ctx;
  return mt_run_plan(j->loop, j->plan, j->base, begin, end, j->a);
}

int mt_run_plan_parallel(mt_loop loop, const mt_plan *plan, char *const *base, int64_t n, const mt_attrs *a,
                         int64_t grain) {
  plan_job j = {loop, plan, {base[0], base[1], base[2], base[3]}, a};
  return mt_parallel(n, grain, plan_share, &j, 0);
}
