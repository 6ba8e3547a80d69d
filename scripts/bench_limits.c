/* bench_limits measures what the hardware allows, for docs/BENCHMARKS.md:
 * a memory-bandwidth triad (a[i] = b[i] + s*c[i] on 16M floats, 192 MiB
 * moved per pass, counting the write once) and OpenBLAS's sgemm on 2048x2048
 * called directly, each on THREADS threads (argument 1, default 1). It
 * prints lines in the format of Go's benchmarks:
 *   LimitTriad16M  PASSES  NS ns/op  GBS GB/s
 *   LimitSgemm2048 CALLS   NS ns/op  GF GFLOP/s
 * Build: cc -O2 -march=native -pthread bench_limits.c -ldl */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (16 << 20)

static float *a, *b, *c;
static int threads = 1;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *triad_share(void *arg) {
  long w = (long)arg, lo = N / threads * w, hi = w == threads - 1 ? N : N / threads * (w + 1);
  for (long i = lo; i < hi; i++) a[i] = b[i] + 3.0f * c[i];
  return NULL;
}

static void triad(void) {
  pthread_t t[64];
  for (long w = 1; w < threads; w++) pthread_create(&t[w], NULL, triad_share, (void *)w);
  triad_share((void *)0);
  for (long w = 1; w < threads; w++) pthread_join(t[w], NULL);
}

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);

int main(int argc, char **argv) {
  if (argc > 1) threads = atoi(argv[1]);
  if (threads < 1 || threads > 64) threads = 1;
  a = malloc(sizeof(float) * N), b = malloc(sizeof(float) * N), c = malloc(sizeof(float) * N);
  if (!a || !b || !c) return 1;
  for (long i = 0; i < N; i++) a[i] = 0, b[i] = i % 7, c[i] = i % 5;
  triad();
  double best = 1e9;
  for (int r = 0; r < 10; r++) {
    double t = now();
    triad();
    t = now() - t;
    if (t < best) best = t;
  }
  printf("LimitTriad16M\t10\t%.0f ns/op\t%.2f GB/s\n", best * 1e9, 3.0 * N * sizeof(float) / best / 1e9);
  void *lib = dlopen("libopenblas.so.0", RTLD_NOW);
  sgemm_fn sgemm = lib ? (sgemm_fn)dlsym(lib, "cblas_sgemm") : NULL;
  void (*set_threads)(int) = lib ? (void (*)(int))dlsym(lib, "openblas_set_num_threads") : NULL;
  if (!sgemm) {
    printf("# OpenBLAS not found: no sgemm limit\n");
    return 0;
  }
  if (set_threads) set_threads(threads);
  int n = 2048;
  float *x = malloc(sizeof(float) * n * n), *y = malloc(sizeof(float) * n * n), *z = malloc(sizeof(float) * n * n);
  if (!x || !y || !z) return 1;
  for (long i = 0; i < (long)n * n; i++) x[i] = (i % 13) * 0.1f, y[i] = (i % 11) * 0.1f;
  /* 101 = CblasRowMajor, 111 = CblasNoTrans */
  sgemm(101, 111, 111, n, n, n, 1, x, n, y, n, 0, z, n);
  best = 1e9;
  for (int r = 0; r < 3; r++) {
    double t = now();
    sgemm(101, 111, 111, n, n, n, 1, x, n, y, n, 0, z, n);
    t = now() - t;
    if (t < best) best = t;
  }
  printf("LimitSgemm2048\t3\t%.0f ns/op\t%.1f GFLOP/s\n", best * 1e9, 2.0 * n * n * n / best / 1e9);
  return 0;
}
