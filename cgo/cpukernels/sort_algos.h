/* The ordering algorithms of sort.c, for one key width: sort.c includes
 * this file once with W 32 and once with W 64. They order pairs of a key
 * and an index; sort.c makes keys that order as PyTorch orders the values
 * (NaN largest, -0 equal to +0, reversed for a descending order), so that
 * "a before b" is a plain < of keys and equal keys are ties.
 *
 * radix is a stable sort (torch.sort with stable=True). The rest replay
 * libstdc++'s (GCC 12) std::sort, std::nth_element and std::partial_sort
 * step by step, as pkg/backends/cpu's stl type does, so that ties end
 * where they end in PyTorch 1.13's CPU kernels. */

#define MT_CAT_(a, b) a##b
#define MT_CAT(a, b) MT_CAT_(a, b)
#define K MT_CAT(MT_CAT(uint, W), _t)
#define PAIR MT_CAT(mt_pair, W)
#define F(name) MT_CAT(name, W)
#define LESS(a, b) ((a).k < (b).k)

/* A key and the element's index in its row. */
typedef struct {
  K k;
  K i;
} PAIR;

/* radix sorts q[0, n) stably by key, a byte at a time from the lowest,
 * with tmp (n pairs) as the other buffer; bytes that are the same in every
 * key are skipped. It returns the buffer that holds the result. */
static PAIR *F(radix)(PAIR *q, PAIR *tmp, int64_t n) {
  enum { B = W / 8 };
  int64_t cnt[B][256];
  memset(cnt, 0, sizeof cnt);
  for (int64_t i = 0; i < n; i++)
    for (int b = 0; b < B; b++) cnt[b][(q[i].k >> (8 * b)) & 255]++;
  for (int b = 0; b < B; b++) {
    if (n == 0 || cnt[b][(q[0].k >> (8 * b)) & 255] == n) continue;
    int64_t pos[256], at = 0;
    for (int d = 0; d < 256; d++) {
      pos[d] = at;
      at += cnt[b][d];
    }
    for (int64_t i = 0; i < n; i++) tmp[pos[(q[i].k >> (8 * b)) & 255]++] = q[i];
    PAIR *t = q;
    q = tmp;
    tmp = t;
  }
  return q;
}

/* stable_insertion sorts q[0, n) stably: for short rows. */
static void F(stable_insertion)(PAIR *q, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    PAIR v = q[i];
    int64_t j = i;
    for (; j > 0 && LESS(v, q[j - 1]); j--) q[j] = q[j - 1];
    q[j] = v;
  }
}

/* ---- libstdc++'s heap: std::__adjust_heap and its callers ---- */

/* adjust_heap: the hole at hole sinks to a leaf of the heap q[0, n), then
 * v rises from it (std::__push_heap). */
static void F(adjust_heap)(PAIR *q, int64_t hole, int64_t n, PAIR v) {
  const int64_t top = hole;
  int64_t child = hole;
  while (child < (n - 1) / 2) {
    child = 2 * (child + 1);
    if (LESS(q[child], q[child - 1])) child--;
    q[hole] = q[child];
    hole = child;
  }
  if ((n & 1) == 0 && child == (n - 2) / 2) {
    child = 2 * (child + 1);
    q[hole] = q[child - 1];
    hole = child - 1;
  }
  for (int64_t parent = (hole - 1) / 2; hole > top && LESS(q[parent], v); parent = (hole - 1) / 2) {
    q[hole] = q[parent];
    hole = parent;
  }
  q[hole] = v;
}

static void F(make_heap)(PAIR *q, int64_t n) {
  if (n < 2) return;
  for (int64_t parent = (n - 2) / 2;; parent--) {
    F(adjust_heap)(q, parent, n, q[parent]);
    if (parent == 0) return;
  }
}

/* pop_heap is std::__pop_heap(q, q + n, result): the top to *result, the
 * pair that was there into the heap q[0, n). */
static void F(pop_heap)(PAIR *q, int64_t n, PAIR *result) {
  PAIR v = *result;
  *result = q[0];
  F(adjust_heap)(q, 0, n, v);
}

/* heap_select is std::__heap_select(q, q + mid, q + last). */
static void F(heap_select)(PAIR *q, int64_t mid, int64_t last) {
  F(make_heap)(q, mid);
  for (int64_t i = mid; i < last; i++)
    if (LESS(q[i], q[0])) F(pop_heap)(q, mid, q + i);
}

/* sort_heap is std::__sort_heap(q, q + n). */
static void F(sort_heap)(PAIR *q, int64_t n) {
  while (n > 1) {
    n--;
    F(pop_heap)(q, n, q + n);
  }
}

/* ---- libstdc++'s introsort and introselect ---- */

enum { F(threshold) = 16 }; /* _S_threshold */

static int64_t F(lg)(int64_t n) { return 63 - __builtin_clzll((unsigned long long)n); }

static void F(swap)(PAIR *q, int64_t a, int64_t b) {
  PAIR t = q[a];
  q[a] = q[b];
  q[b] = t;
}

/* partition_pivot is std::__unguarded_partition_pivot: the median of
 * first+1, mid and last-1 moved to first, then a partition around it. */
static int64_t F(partition_pivot)(PAIR *q, int64_t first, int64_t last) {
  const int64_t a = first + 1, b = first + (last - first) / 2, c = last - 1;
  if (LESS(q[a], q[b])) {
    if (LESS(q[b], q[c])) F(swap)(q, first, b);
    else if (LESS(q[a], q[c])) F(swap)(q, first, c);
    else F(swap)(q, first, a);
  } else if (LESS(q[a], q[c])) {
    F(swap)(q, first, a);
  } else if (LESS(q[b], q[c])) {
    F(swap)(q, first, c);
  } else {
    F(swap)(q, first, b);
  }
  /* std::__unguarded_partition(first + 1, last, first); the bounds
   * checks never fail for keys, a strict weak order. */
  int64_t lo = first + 1, hi = last;
  for (;;) {
    while (lo < last && LESS(q[lo], q[first])) lo++;
    hi--;
    while (hi > first && LESS(q[first], q[hi])) hi--;
    if (lo >= hi) return lo;
    F(swap)(q, lo, hi);
    lo++;
  }
}

/* linear_insert is std::__unguarded_linear_insert of position i. */
static void F(linear_insert)(PAIR *q, int64_t first, int64_t i) {
  PAIR v = q[i];
  for (; i > first && LESS(v, q[i - 1]); i--) q[i] = q[i - 1];
  q[i] = v;
}

/* insertion is std::__insertion_sort of [first, last). */
static void F(insertion)(PAIR *q, int64_t first, int64_t last) {
  for (int64_t i = first + 1; i < last; i++) {
    if (LESS(q[i], q[first])) {
      PAIR v = q[i];
      memmove(q + first + 1, q + first, (size_t)(i - first) * sizeof(PAIR));
      q[first] = v;
    } else {
      F(linear_insert)(q, first, i);
    }
  }
}

static void F(introsort_loop)(PAIR *q, int64_t first, int64_t last, int64_t depth) {
  while (last - first > F(threshold)) {
    if (depth == 0) { /* std::__partial_sort(first, last, last) */
      F(heap_select)(q + first, last - first, last - first);
      F(sort_heap)(q + first, last - first);
      return;
    }
    depth--;
    int64_t cut = F(partition_pivot)(q, first, last);
    F(introsort_loop)(q, cut, last, depth);
    last = cut;
  }
}

/* std_sort is std::sort of q[0, n): introsort, then insertion sort. */
static void F(std_sort)(PAIR *q, int64_t n) {
  if (n == 0) return;
  F(introsort_loop)(q, 0, n, 2 * F(lg)(n));
  if (n <= F(threshold)) {
    F(insertion)(q, 0, n);
    return;
  }
  F(insertion)(q, 0, F(threshold));
  for (int64_t i = F(threshold); i < n; i++) F(linear_insert)(q, 0, i);
}

/* nth_element is std::nth_element(q, q + nth, q + n): introselect. */
static void F(nth_element)(PAIR *q, int64_t nth, int64_t n) {
  int64_t first = 0, last = n;
  if (first == last || nth == last) return;
  int64_t depth = 2 * F(lg)(last - first);
  while (last - first > 3) {
    if (depth == 0) {
      F(heap_select)(q + first, nth + 1 - first, last - first);
      F(swap)(q, first, nth); /* the nth element to its place */
      return;
    }
    depth--;
    int64_t cut = F(partition_pivot)(q, first, last);
    if (cut <= nth) first = cut;
    else last = cut;
  }
  F(insertion)(q, first, last);
}

/* ---- one row ---- */

/* A keys function writes the keys of elements [from, from + n) of a row
 * (x, byte stride xs), xor flip, to out; a store function writes the
 * values and int64 indices of q[0, n) to a row of values (byte stride vs)
 * and one of indices (is), reading the value of a key that stands for
 * several (zero, NaN) from x. */
typedef void (*F(keys_fn))(const char *x, int64_t xs, int64_t from, int64_t n, K *out, K flip);
typedef void (*F(store_fn))(const PAIR *q, int64_t n, K flip, const char *x, int64_t xs, char *v, int64_t vs,
                            char *ix, int64_t is);

/* load fills q[0, n) with the keys of a row's first n elements and their
 * indices, by way of tmp (n keys). */
static void F(load)(const char *x, int64_t xs, int64_t n, K flip, F(keys_fn) keys, PAIR *q, K *tmp) {
  keys(x, xs, 0, n, tmp, flip);
  for (int64_t j = 0; j < n; j++) {
    q[j].k = tmp[j];
    q[j].i = (K)j;
  }
}

/* topk_stream is std::partial_sort(q, q + k, q + n), 64k <= n, without
 * the whole row in memory: elements past the heap are read in blocks of
 * 64, and a block none of whose keys beats the heap's top is skipped (for
 * the others, pop_heap puts the top where the element was, a slot that
 * is never read again). heap holds k pairs. */
MT_CLONES static void F(topk_stream)(const char *x, int64_t xs, int64_t n, int64_t k, K flip, F(keys_fn) keys,
                                     PAIR *heap) {
  K kb[64];
  for (int64_t i = 0; i < k; i += 64) {
    const int64_t m = k - i < 64 ? k - i : 64;
    keys(x, xs, i, m, kb, flip);
    for (int64_t j = 0; j < m; j++) {
      heap[i + j].k = kb[j];
      heap[i + j].i = (K)(i + j);
    }
  }
  F(make_heap)(heap, k);
  for (int64_t i = k; i < n; i += 64) {
    const int64_t m = n - i < 64 ? n - i : 64;
    keys(x, xs, i, m, kb, flip);
    K lo = kb[0];
    for (int64_t j = 1; j < m; j++) lo = kb[j] < lo ? kb[j] : lo;
    if (!(lo < heap[0].k)) continue;
    for (int64_t j = 0; j < m; j++)
      if (kb[j] < heap[0].k) {
        PAIR p = {kb[j], (K)(i + j)};
        F(pop_heap)(heap, k, &p);
      }
  }
  F(sort_heap)(heap, k);
}

/* sort_row sorts (or selects the first k of) one row as the job says; buf
 * holds 2n + 64 pairs. */
static void F(sort_row)(const mt_sort_job *j, const char *x, char *v, char *ix, PAIR *buf, F(keys_fn) keys,
                        F(store_fn) store) {
  const int64_t n = j->n, k = j->k, xs = j->stride[0];
  const K flip = j->descending ? (K)~(K)0 : 0;
  PAIR *q = buf;
  K *tmp = (K *)(buf + n); /* the second half is free until the radix sort */
  if (j->kind == MT_SORT_TOPK) {
    if (k == 0) return;
    if (64 * k <= n) { /* PyTorch's topk: std::partial_sort */
      F(topk_stream)(x, xs, n, k, flip, keys, q);
    } else { /* std::nth_element, then std::sort of the k - 1 first */
      F(load)(x, xs, n, flip, keys, q, tmp);
      F(nth_element)(q, k - 1, n);
      F(std_sort)(q, k - 1);
    }
    store(q, k, flip, x, xs, v, j->stride[1], ix, j->stride[2]);
    return;
  }
  F(load)(x, xs, n, flip, keys, q, tmp);
  if (j->kind == MT_SORT_STD) F(std_sort)(q, n);
  else if (n <= 32) F(stable_insertion)(q, n);
  else q = F(radix)(q, buf + n, n);
  store(q, n, flip, x, xs, v, j->stride[1], ix, j->stride[2]);
}

#undef LESS
#undef F
#undef PAIR
#undef K
