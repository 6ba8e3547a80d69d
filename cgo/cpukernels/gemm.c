/* Matrix products: OpenBLAS's sgemm and dgemm, loaded with dlopen at first
 * use, and a plain loop for integer matrices (BLAS has none). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu_kernels.h"

/* CBLAS's enum values (cblas.h). */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                         int lda, const float *b, int ldb, float beta, float *c, int ldc);
typedef void (*dgemm_fn)(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                         int lda, const double *b, int ldb, double beta, double *c, int ldc);
typedef void (*set_threads_fn)(int n);
typedef char *(*get_config_fn)(void);

static struct {
  void *lib;
  sgemm_fn sgemm;
  dgemm_fn dgemm;
  set_threads_fn set_threads;
  get_config_fn get_config;
} blas;

int mt_blas_load(const char *path, char *msg, int msglen) {
  if (blas.lib) return MT_OK;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(msg, (size_t)msglen, "%s", e ? e : "dlopen failed");
    return MT_ERR_UNSUPPORTED;
  }
  sgemm_fn s = (sgemm_fn)dlsym(lib, "cblas_sgemm");
  dgemm_fn d = (dgemm_fn)dlsym(lib, "cblas_dgemm");
  if (!s || !d) {
    snprintf(msg, (size_t)msglen, "%s has no cblas_sgemm or cblas_dgemm", path);
    dlclose(lib);
    return MT_ERR_UNSUPPORTED;
  }
  blas.sgemm = s;
  blas.dgemm = d;
  blas.set_threads = (set_threads_fn)dlsym(lib, "openblas_set_num_threads");
  blas.get_config = (get_config_fn)dlsym(lib, "openblas_get_config");
  blas.lib = lib;
  msg[0] = 0;
  if (blas.get_config) snprintf(msg, (size_t)msglen, "%s", blas.get_config());
  return MT_OK;
}

void mt_blas_set_threads(int n) {
  if (blas.set_threads) blas.set_threads(n);
}

/* Integer products in int64 (wrapping), i-k-j order so that the inner loop
 * runs along rows of b and c. */
static void gemm_i64(int ta, int tb, int64_t m, int64_t n, int64_t k, int64_t alpha, const int64_t *a,
                     int64_t lda, const int64_t *b, int64_t ldb, int64_t beta, int64_t *c, int64_t ldc) {
  for (int64_t i = 0; i < m; i++) {
    uint64_t *ci = (uint64_t *)(c + i * ldc);
    for (int64_t j = 0; j < n; j++) ci[j] = beta ? (uint64_t)beta * ci[j] : 0;
    for (int64_t p = 0; p < k; p++) {
      uint64_t av = (uint64_t)alpha * (uint64_t)(ta ? a[p * lda + i] : a[i * lda + p]);
      if (!tb) {
        const int64_t *bp = b + p * ldb;
        for (int64_t j = 0; j < n; j++) ci[j] += av * (uint64_t)bp[j];
      } else {
        for (int64_t j = 0; j < n; j++) ci[j] += av * (uint64_t)b[j * ldb + p];
      }
    }
  }
}

int mt_gemm(int dtype, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
            int64_t sa, const void *b, int64_t ldb, int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
            int64_t batch) {
  const int oa = ta ? CBLAS_TRANS : CBLAS_NO_TRANS, ob = tb ? CBLAS_TRANS : CBLAS_NO_TRANS;
  if (dtype != MT_I64) mt_pool_quiet(); /* OpenBLAS's threads need the cores */
  for (int64_t i = 0; i < batch; i++) {
    switch (dtype) {
    case MT_F32:
      if (!blas.sgemm) return MT_ERR_UNSUPPORTED;
      blas.sgemm(CBLAS_ROW_MAJOR, oa, ob, (int)m, (int)n, (int)k, (float)alpha, (const float *)a + i * sa,
                 (int)lda, (const float *)b + i * sb, (int)ldb, (float)beta, (float *)c + i * sc, (int)ldc);
      break;
    case MT_F64:
      if (!blas.dgemm) return MT_ERR_UNSUPPORTED;
      blas.dgemm(CBLAS_ROW_MAJOR, oa, ob, (int)m, (int)n, (int)k, alpha, (const double *)a + i * sa, (int)lda,
                 (const double *)b + i * sb, (int)ldb, beta, (double *)c + i * sc, (int)ldc);
      break;
    case MT_I64:
      gemm_i64(ta, tb, m, n, k, (int64_t)alpha, (const int64_t *)a + i * sa, lda, (const int64_t *)b + i * sb,
               ldb, (int64_t)beta, (int64_t *)c + i * sc, ldc);
      break;
    default:
      return MT_ERR_UNSUPPORTED;
    }
  }
  return MT_OK;
}
