/* The driver shared by every kernel: walk an iteration plan row by row. */
#include "loops.h"

int mt_run_plan(mt_loop loop, const mt_plan *plan, char *const *base, int64_t begin, int64_t end,
                const mt_attrs *a) {
  const int64_t nd = plan->ndim, nops = plan->nops;
  if (begin >= end) return MT_OK;
  int64_t s0[MT_MAX_OPS] = {0}, s1[MT_MAX_OPS] = {0};
  for (int64_t k = 0; k < nops; k++) {
    s0[k] = nd ? plan->strides[k][0] : 0;
    s1[k] = nd > 1 ? plan->strides[k][1] : 0;
  }
  if (nd <= 1) {
    char *p[MT_MAX_OPS] = {0};
    for (int64_t k = 0; k < nops; k++) p[k] = base[k] + begin * s0[k];
    return loop(end - begin, 1, p, s0, s1, a);
  }
  int64_t idx[MT_MAX_DIMS];
  int64_t rest = begin;
  for (int64_t d = 0; d < nd; d++) {
    idx[d] = rest % plan->shape[d];
    rest /= plan->shape[d];
  }
  const int64_t n0 = plan->shape[0], n1 = plan->shape[1];
  int status = MT_OK;
  while (begin < end) {
    char *p[MT_MAX_OPS] = {0};
    for (int64_t k = 0; k < nops; k++) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; d++) off += idx[d] * plan->strides[k][d];
      p[k] = base[k] + off;
    }
    /* A partial row where a share starts or ends inside one, else as many
     * whole rows along dim 1 as remain in it and in the share. */
    int64_t n = n0 - idx[0], rows = 1;
    if (n > end - begin) {
      n = end - begin;
    } else if (idx[0] == 0) {
      rows = (end - begin) / n0;
      if (rows > n1 - idx[1]) rows = n1 - idx[1];
    }
    int st = loop(n, rows, p, s0, s1, a);
    if (st != MT_OK) status = st;
    begin += n * rows;
    if (begin >= end) break;
    idx[0] = 0;
    idx[1] += rows;
    for (int64_t d = 1; d < nd && idx[d] >= plan->shape[d]; d++) {
      idx[d] = 0;
      if (d + 1 < nd) idx[d + 1]++;
    }
  }
  return status;
}

/* isa_of asks the processor which instruction set the kernels can use. */
static int isa_of(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return 3;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 2;
#endif
  return 0;
}

/* mt_isa is isa_of's answer, asked once (loops call it per row). */
int mt_isa(void) {
  static int isa = -1;
  int v = __atomic_load_n(&isa, __ATOMIC_RELAXED);
  if (v < 0) __atomic_store_n(&isa, v = isa_of(), __ATOMIC_RELAXED);
  return v;
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
