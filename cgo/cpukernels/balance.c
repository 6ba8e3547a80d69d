/* A parallel loop that balances itself: mt_parallel_balanced starts with
 * mt_parallel's static split, one contiguous range per share, and a share
 * that finishes early takes the back half of the largest range left.
 *
 * Why: a static split is only as fast as its slowest share, and on a
 * virtual machine two cores rarely run at the same speed for long (another
 * thread, the hypervisor, memory that one half of an operand has in huge
 * pages and the other not). Measured on the 3x3 convolution of 32 images
 * at 2 threads, the two halves took 32.2 and 33.9 ms, always the same half
 * the slower one; with stealing both end within a piece of each other.
 *
 * Each share's range [lo, hi) is one 64-bit word (lo in the low half), so
 * the owner taking a piece from the front and a thief taking the back are
 * both a compare-and-swap on it, and no job runs twice. A share runs its
 * own range front to back, piece by piece, so it keeps the locality of a
 * static split (a convolution pads each image once per share). */
#include <stdatomic.h>

#include "cpu_kernels.h"

typedef struct {
  _Alignas(64) _Atomic uint64_t range; /* lo | hi << 32 */
} slot;

typedef struct {
  slot slots[MT_POOL_MAX];
  int shares;
  int64_t piece;
  mt_share_fn fn;
  void *ctx;
  atomic_int status;
} balance;

static inline uint64_t pack(int64_t lo, int64_t hi) { return (uint64_t)lo | (uint64_t)hi << 32; }
static inline int64_t lo_of(uint64_t r) { return (int64_t)(r & 0xffffffffu); }
static inline int64_t hi_of(uint64_t r) { return (int64_t)(r >> 32); }

/* take_own takes the next piece of share w's range into [*b, *e). */
static int take_own(balance *bl, int w, int64_t *b, int64_t *e) {
  uint64_t r = atomic_load(&bl->slots[w].range);
  for (;;) {
    const int64_t lo = lo_of(r), hi = hi_of(r);
    if (lo >= hi) return 0;
    const int64_t nlo = hi - lo > bl->piece ? lo + bl->piece : hi;
    if (atomic_compare_exchange_weak(&bl->slots[w].range, &r, pack(nlo, hi))) {
      *b = lo, *e = nlo;
      return 1;
    }
  }
}

/* steal moves the back half of the largest range left (all of it when it
 * is one piece or less) into share w's own, empty, range. */
static int steal(balance *bl, int w) {
  for (;;) {
    int v = -1;
    int64_t most = 0;
    uint64_t r = 0;
    for (int s = 0; s < bl->shares; s++) {
      const uint64_t rs = atomic_load(&bl->slots[s].range);
      if (s != w && hi_of(rs) - lo_of(rs) > most) v = s, most = hi_of(rs) - lo_of(rs), r = rs;
    }
    if (v < 0) return 0;
    const int64_t lo = lo_of(r), hi = hi_of(r);
    const int64_t mid = hi - lo > bl->piece ? hi - (hi - lo) / 2 : lo;
    if (atomic_compare_exchange_strong(&bl->slots[v].range, &r, pack(lo, mid))) {
      /* Only share w writes an empty range of its own. */
      atomic_store(&bl->slots[w].range, pack(mid, hi));
      return 1;
    }
  }
}

static int balance_share(void *ctx, int share, int64_t begin, int64_t end) {
  balance *bl = ctx;
  (void)begin, (void)end; /* one slot per share; alone, it steals the rest */
  int64_t b, e;
  do {
    while (take_own(bl, share, &b, &e)) {
      const int st = bl->fn(bl->ctx, share, b, e);
      if (st != MT_OK) atomic_store(&bl->status, st);
    }
  } while (steal(bl, share));
  return MT_OK;
}

int mt_parallel_balanced(int64_t n, int64_t grain, int64_t piece, mt_share_fn fn, void *ctx) {
  int shares = mt_pool_size();
  if (grain < 1) grain = 1;
  if (n / grain < shares) shares = (int)(n / grain);
  if (shares <= 1 || n > INT32_MAX) return mt_parallel(n, grain, fn, ctx, 0);
  balance bl = {.shares = shares, .piece = piece < 1 ? 1 : piece, .fn = fn, .ctx = ctx};
  for (int s = 0; s < shares; s++) atomic_init(&bl.slots[s].range, pack(n * s / shares, n * (s + 1) / shares));
  atomic_init(&bl.status, MT_OK);
  mt_parallel(shares, 1, balance_share, &bl, 0);
  return atomic_load(&bl.status);
}

/* The probe of mt_parallel_balanced that its tests run: element i counts
 * its runs in hits[i] and notes its share in owner[i]; element fail (if in
 * range) fails with MT_ERR_UNSUPPORTED. Share slow, before its first
 * element, waits (up to a second) for the other shares to finish their
 * own ranges, and then spins about spin loop turns per element, so that
 * the others must take work from it; *ready tells whether they finished
 * in time (a loaded machine may not have run them). */
#include <time.h>

typedef struct {
  int32_t *hits, *owner;
  int slow;
  int64_t spin, fail, n, others; /* others: elements outside the slow share's first range */
  atomic_llong done_others;
  atomic_int waited, ready;
  int64_t lo, hi; /* the slow share's first range */
} probe;

static int64_t probe_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int probe_share(void *ctx, int share, int64_t begin, int64_t end) {
  probe *p = ctx;
  int st = MT_OK;
  if (share == p->slow && !atomic_exchange(&p->waited, 1)) {
    const int64_t until = probe_now_ns() + 1000000000;
    while (atomic_load(&p->done_others) < p->others && probe_now_ns() < until) {
    }
    atomic_store(&p->ready, atomic_load(&p->done_others) == p->others);
  }
  for (int64_t i = begin; i < end; i++) {
    __atomic_add_fetch(&p->hits[i], 1, __ATOMIC_RELAXED);
    __atomic_store_n(&p->owner[i], share, __ATOMIC_RELAXED);
    if (i < p->lo || i >= p->hi) atomic_fetch_add(&p->done_others, 1);
    if (i == p->fail) st = MT_ERR_UNSUPPORTED;
    if (share == p->slow)
      for (volatile int64_t k = 0; k < p->spin; k++) {
      }
  }
  return st;
}

int mt_balance_probe(int64_t n, int64_t grain, int64_t piece, int slow, int64_t spin, int64_t fail, int32_t *hits,
                     int32_t *owner, int32_t *ready) {
  /* The shares and first ranges mt_parallel_balanced makes. */
  int64_t shares = mt_pool_size();
  if (grain < 1) grain = 1;
  if (n / grain < shares) shares = n / grain;
  if (shares < 1) shares = 1;
  probe p = {.hits = hits, .owner = owner, .slow = slow, .spin = spin, .fail = fail, .n = n};
  p.lo = slow >= 0 && slow < shares ? n * slow / shares : 0;
  p.hi = slow >= 0 && slow < shares ? n * (slow + 1) / shares : 0;
  p.others = n - (p.hi - p.lo);
  if (shares < 2 || slow < 0 || slow >= shares) p.slow = -1; /* no one to wait for */
  const int st = mt_parallel_balanced(n, grain, piece, probe_share, &p);
  *ready = atomic_load(&p.ready);
  return st;
}
