/* A pool of worker threads that split one op across cores inside one C
 * call. The caller runs share 0 and the workers the others; between jobs
 * a worker spins for a while (ops in a loop follow each other closely) and
 * then sleeps on a condition variable. One job runs at a time: a caller
 * that finds the pool busy runs its op alone.
 *
 * Spinning threads yield the CPU every 1024 pauses (about 25 us): on a host
 * with as many busy threads as cores, a thread of the Go runtime that wakes
 * up (to stop the world for a collection, say) otherwise waits for the
 * scheduler to take a core from a spinning thread. Measured here on 2 cores,
 * adds of 1e5 and 1e6 floats whose results are left to the collector took
 * 29-36 and 224-259 us with the yields, 42-66 and 305-413 us without. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "cpu_kernels.h"

#define MT_SPIN_NS 200000 /* how long an idle worker polls before sleeping */

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_flag busy;
  int size; /* threads including the caller */
  atomic_uint gen; /* bumped once per job */
  int sleepers;
  mt_share_fn fn;
  void *ctx;
  int64_t n, chunk;
  atomic_int left;
  atomic_int status;
  atomic_int quiet; /* idle workers should sleep now rather than poll */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, ATOMIC_FLAG_INIT};

static int64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

static void run_share(int w) {
  int64_t b = w * pool.chunk, e = b + pool.chunk;
  if (e > pool.n) e = pool.n;
  if (b < e) {
    int st = pool.fn(pool.ctx, w, b, e);
    if (st != MT_OK) atomic_store(&pool.status, st);
  }
  atomic_fetch_sub_explicit(&pool.left, 1, memory_order_release);
}

static void *worker(void *arg) {
  int w = (int)(intptr_t)arg;
  unsigned seen = 0; /* the pool starts before its first job */
  for (;;) {
    int64_t start = mono_ns();
    for (int i = 0; atomic_load_explicit(&pool.gen, memory_order_acquire) == seen; i++) {
      cpu_relax();
      const int quiet = atomic_load_explicit(&pool.quiet, memory_order_relaxed);
      if (!quiet && (i & 1023) != 1023) continue;
      if (!quiet) sched_yield();
      if (quiet || mono_ns() - start > MT_SPIN_NS) {
        pthread_mutex_lock(&pool.mu);
        pool.sleepers++;
        while (atomic_load(&pool.gen) == seen) pthread_cond_wait(&pool.cv, &pool.mu);
        pool.sleepers--;
        pthread_mutex_unlock(&pool.mu);
        break;
      }
    }
    seen = atomic_load_explicit(&pool.gen, memory_order_acquire);
    if (w < pool.size) run_share(w);
  }
  return 0;
}

int mt_pool_start(int size) {
  if (size > MT_POOL_MAX) size = MT_POOL_MAX;
  if (pool.size) return MT_OK;
  pool.size = size;
  for (int w = 1; w < size; w++) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, worker, (void *)(intptr_t)w) != 0) {
      pool.size = w;
      break;
    }
    pthread_attr_destroy(&at);
  }
  return MT_OK;
}

int mt_pool_size(void) { return pool.size > 1 ? pool.size : 1; }

/* mt_parallel runs fn over [0, n) in shares of at least grain elements,
 * share w on pool thread w (the caller runs share 0), and returns the first
 * error. *shares (when not null) is the number of shares run. */
int mt_parallel(int64_t n, int64_t grain, mt_share_fn fn, void *ctx, int *shares_out) {
  int shares = pool.size;
  if (grain < 1) grain = 1;
  if (shares > 1 && n / grain < shares) shares = (int)(n / grain);
  if (shares <= 1 || atomic_flag_test_and_set(&pool.busy)) {
    if (shares_out) *shares_out = 1;
    return fn(ctx, 0, 0, n);
  }
  pool.fn = fn;
  pool.ctx = ctx;
  pool.n = n;
  pool.chunk = (n + shares - 1) / shares;
  atomic_store(&pool.status, MT_OK);
  atomic_store(&pool.left, pool.size - 1);
  atomic_store_explicit(&pool.quiet, 0, memory_order_relaxed);
  pthread_mutex_lock(&pool.mu);
  atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
  if (pool.sleepers) pthread_cond_broadcast(&pool.cv);
  pthread_mutex_unlock(&pool.mu);
  int st = fn(ctx, 0, 0, pool.chunk);
  for (int i = 1; atomic_load_explicit(&pool.left, memory_order_acquire) > 0; i++) {
    cpu_relax();
    if ((i & 1023) == 0) sched_yield();
  }
  int st2 = atomic_load(&pool.status);
  if (shares_out) *shares_out = (int)((n + pool.chunk - 1) / pool.chunk);
  atomic_flag_clear(&pool.busy);
  return st != MT_OK ? st : st2;
}

int64_t mt_parallel_chunk(int64_t n, int64_t grain) {
  int64_t shares = pool.size;
  if (grain < 1) grain = 1;
  if (shares > 1 && n / grain < shares) shares = n / grain;
  return shares <= 1 ? n : (n + shares - 1) / shares;
}

/* mt_pool_quiet sends polling workers to sleep: called before a matrix
 * product, whose BLAS threads need every core. Workers check it at every
 * turn of their polling loop, not at their yields (every 25 us or so): on
 * 2 cores, a worker still polling delayed OpenBLAS's second thread, and an
 * inference loop of a 512-1024-1024-10 MLP took 1.23 ms a step at the
 * median (p99 1.96 ms, results released) instead of 1.03 (p99 1.40). The
 * next job wakes them. */
void mt_pool_quiet(void) { atomic_store_explicit(&pool.quiet, 1, memory_order_relaxed); }
