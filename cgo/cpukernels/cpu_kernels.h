/*
 * CPU kernels of MindTorch: the pointwise engine, casts and reductions.
 *
 * Go builds an iteration plan (pkg/backends/cpu) and makes one call per op
 * (per worker, when an op is split across cores). The plan holds no pointers:
 * operand base addresses travel as arguments, so Go memory passed here never
 * contains Go pointers. Strides in a plan are in bytes; dimension 0 is the
 * fastest-moving one.
 */
#ifndef MINDTORCH_CPU_KERNELS_H
#define MINDTORCH_CPU_KERNELS_H

#include <stdint.h>

#define MT_MAX_DIMS 25
#define MT_MAX_OPS 4

/* The dtype and pointwise op enums, generated from the op table. */
#include "ops_gen.h"

/* Attributes of an op: floats for floating dtypes, integers for integer
 * ones (both filled by Go from the same scalars). */
typedef struct {
  double f[4];
  int64_t i[4];
} mt_attrs;

/* An iteration plan over ndim dimensions (fastest first) for nops operands. */
typedef struct {
  int64_t ndim;
  int64_t nops;
  int64_t shape[MT_MAX_DIMS];
  int64_t strides[MT_MAX_OPS][MT_MAX_DIMS];
} mt_plan;

/* Status codes. */
enum {
  MT_OK = 0,
  MT_ERR_UNSUPPORTED = 1, /* no loop for this op and dtype */
  MT_ERR_ZERO_DIV = 2,    /* integer division by zero */
  MT_ERR_ISA = 3          /* the CPU lacks the instruction set */
};

/* mt_pointwise runs op over elements [begin, end) of the plan, in the plan's
 * iteration order. dtype is the compute dtype (the dtype of the inputs; the
 * output is bool for comparisons and predicates, else the same). */
int mt_pointwise(int op, int dtype, const mt_plan *plan, void *p0, void *p1, void *p2, void *p3,
                 int64_t begin, int64_t end, mt_attrs attrs);

/* mt_pointwise_1d is mt_pointwise for a one-dimensional plan, without a plan
 * struct: n elements with byte strides s0..s3. */
int mt_pointwise_1d(int op, int dtype, int64_t n, void *p0, void *p1, void *p2, void *p3,
                    int64_t s0, int64_t s1, int64_t s2, int64_t s3, mt_attrs attrs);

/* The worker pool (pool.c). mt_pool_start starts size-1 threads, once;
 * mt_parallel splits [0, n) into at most one share per thread (the
 * caller's included) of at least grain elements and calls fn(ctx, share,
 * begin, end) for each, concurrently. */
#define MT_POOL_MAX 64 /* the most threads the pool starts */
typedef int (*mt_share_fn)(void *ctx, int share, int64_t begin, int64_t end);
int mt_pool_start(int size);
int mt_parallel(int64_t n, int64_t grain, mt_share_fn fn, void *ctx, int *shares);
/* mt_parallel_chunk is the length of mt_parallel's shares of n with grain
 * (n when it would not split), the pool being free. */
int64_t mt_parallel_chunk(int64_t n, int64_t grain);
/* mt_parallel_balanced is mt_parallel whose shares, once their own range
 * is done, take over the back half of the largest range left (balance.c):
 * fn may be called several times per share, on ranges of at least piece
 * elements (the last of a range aside), each range in increasing order. */
int mt_parallel_balanced(int64_t n, int64_t grain, int64_t piece, mt_share_fn fn, void *ctx);
/* mt_balance_probe runs mt_parallel_balanced for its tests (balance.c). */
int mt_balance_probe(int64_t n, int64_t grain, int64_t piece, int slow, int64_t spin, int64_t fail, int32_t *hits,
                     int32_t *owner, int32_t *ready);
/* mt_pool_size is the number of threads the pool runs, the caller's included. */
int mt_pool_size(void);
/* mt_pool_quiet sends polling workers to sleep until the next job. */
void mt_pool_quiet(void);

/* mt_pointwise_parallel and mt_cast_parallel run elements [0, n) of the plan
 * split across the pool in shares of at least grain elements. */
int mt_pointwise_parallel(int op, int dtype, const mt_plan *plan, void *p0, void *p1, void *p2, void *p3,
                          int64_t n, mt_attrs attrs, int64_t grain);
int mt_cast_parallel(int dst, int src, const mt_plan *plan, void *p0, void *p1, int64_t n, int64_t grain);

/* Fused chains of pointwise ops (fused.c): steps run block by block over
 * n elements of one shape (row-major), each step one pointwise loop of
 * pointwise.c, in one dtype (MT_F32 or MT_F64). A step reads and writes
 * slots: a block buffer of the chain (a result no one reads outside it),
 * memory walked contiguously (an input, or a result stored), one element
 * read for every position (a 0-dim tensor, a Go scalar), or an input with
 * other strides (broadcast, transposed). A step that reads the last kind
 * walks its block through its own plan over the chain's shape, the one
 * its op would have alone (operand 0 its result, then its inputs), so
 * that every element goes through the same branch of the loop as it
 * would alone; other steps walk it as one contiguous row. Structs are
 * pointer-free: addresses are integers. */
enum { MT_SLOT_BUFFER = 0, MT_SLOT_DENSE = 1, MT_SLOT_CONST = 2, MT_SLOT_STRIDED = 3 };
#define MT_FUSED_MAX_SLOTS 32
#define MT_VEC 16 /* elements of float per AVX-512 vector: a multiple of every vector width the loops use */
#define MT_FUSED_MAX_STEPS 16
typedef struct {
  int64_t kind; /* MT_SLOT_* */
  uint64_t data; /* DENSE, STRIDED: element 0; CONST: the element */
} mt_fslot;
typedef struct {
  int32_t op;    /* pointwise op (a variant for div's modes, gelu's tanh) */
  int32_t nin;   /* slots read */
  int32_t out;   /* the slot written */
  int32_t in[3]; /* the slots read */
  uint64_t plan; /* an mt_plan over the chain's shape, or 0: one contiguous row */
  mt_attrs attrs;
} mt_fstep;
/* mt_fused runs the steps over [0, n), split across the pool in shares of
 * at least grain elements. */
int mt_fused(int dtype, int64_t n, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots,
             int64_t grain);
/* mt_fused_sum runs the steps over [0, n) and writes the sum of slot's
 * values to *out (of the dtype), with the bits of mt_reduce's sum of them:
 * split as mt_reduce_split splits it with grain split_grain (0: not
 * split, mt_reduce over the whole row). */
int mt_fused_sum(int dtype, int64_t n, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots,
                 int slot, int64_t split_grain, void *out);
/* mt_fused_rows runs the steps over rows*r elements, row by row, and
 * applies reduction op rop (MT_R_*) along each row of slot's values as
 * mt_reduce does along the rows of a contiguous [rows, r] array (inner 1),
 * writing one value per row, or r for scans and softmax, to out: the same
 * kernel on the same values, so the same bits. Rows are split across the
 * pool in shares of at least grain rows (0: on the caller's thread);
 * op_grain is the grain the chain's ops split with alone (0: not split),
 * which places the blocks the chain runs in (see eval_range in fused.c). */
int mt_fused_rows(int dtype, const mt_fstep *steps, int nsteps, const mt_fslot *slots, int nslots, int slot,
                  int rop, int64_t rows, int64_t r, void *out, mt_attrs a, int64_t grain, int64_t op_grain);

/* mt_cast copies operand 1 (of dtype src) into operand 0 (of dtype dst),
 * converting as PyTorch does, over elements [begin, end) of a 2-operand plan. */
int mt_cast(int dst, int src, const mt_plan *plan, void *p0, void *p1, int64_t begin, int64_t end);
int mt_cast_1d(int dst, int src, int64_t n, void *p0, void *p1, int64_t s0, int64_t s1);

/* Reductions, scans and softmax. Each works on x, a contiguous
 * [outer, r, inner] array, along its middle dimension. */
enum {
  /* reductions: out is [outer, inner] */
  MT_R_SUM, MT_R_MEAN, MT_R_PROD, MT_R_AMAX, MT_R_AMIN,
  MT_R_ARGMAX, MT_R_ARGMIN, /* out: values (may be NULL), idx: int64 indices */
  MT_R_VAR, MT_R_STD,       /* a.f[0]: the correction */
  MT_R_NORM,                /* a.f[0]: p (0, 1, 2, inf, -inf or any) */
  MT_R_LOGSUMEXP,
  MT_R_ALL, MT_R_ANY,       /* x is bytes (bool); out bytes */
  MT_R_COUNT_NONZERO,       /* x is bytes (bool); out int64 */
  /* along the dimension: out is [outer, r, inner] */
  MT_R_CUMSUM, MT_R_CUMPROD,
  MT_R_SOFTMAX, MT_R_LOG_SOFTMAX,
  MT_R_SOFTMAX_BACKWARD,     /* x: the softmax output, g: its gradient */
  MT_R_LOG_SOFTMAX_BACKWARD, /* x: the log_softmax output, g: its gradient */
  MT_NUM_REDUCTIONS
};

/* mt_reduce runs a reduction, scan or softmax in dtype over the output
 * positions [begin, end) of the flattened [outer, inner] result. Floating
 * sums are pairwise, so float32 sums keep their precision. */
int mt_reduce(int op, int dtype, const void *x, const void *g, int64_t outer, int64_t r, int64_t inner,
              void *out, int64_t *idx, int64_t begin, int64_t end, mt_attrs a);
/* mt_reduce_parallel is mt_reduce over positions [0, positions), split
 * across the pool in shares of at least grain positions. */
int mt_reduce_parallel(int op, int dtype, const void *x, const void *g, int64_t outer, int64_t r, int64_t inner,
                       void *out, int64_t *idx, int64_t positions, mt_attrs a, int64_t grain);
/* mt_reduce_split reduces r contiguous elements of x to one value: part_op
 * (in dtype, results in part_dtype) over one chunk per share, then combine
 * over the partial results. */
int mt_reduce_split(int part_op, int dtype, int part_dtype, int combine, const void *x, int64_t r, void *out,
                    mt_attrs a, int64_t grain);

/* mt_blas_load opens an OpenBLAS library (a path or a soname) and finds
 * cblas_sgemm and cblas_dgemm. On success msg gets the library's build
 * configuration; on failure, why it failed. */
int mt_blas_load(const char *path, char *msg, int msglen);

/* mt_blas_set_threads sets the loaded OpenBLAS's thread count. */
void mt_blas_set_threads(int n);

/* mt_gemm computes batch products c = alpha * op(a) @ op(b) + beta * c of
 * row-major matrices (op: transposed when ta / tb is set); m x k times
 * k x n; ld* are leading dimensions and s* the strides between the
 * matrices of the batch, in elements. float32 and float64 go to OpenBLAS
 * (MT_ERR_UNSUPPORTED when none is loaded), int64 to a plain loop. */
int mt_gemm(int dtype, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
            int64_t sa, const void *b, int64_t ldb, int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
            int64_t batch);

/* mt_normal_fill_f32 is the Box-Muller transform of PyTorch's float32
 * normal_fill_AVX2, bit for bit (normal.c): data holds n uniforms in [0, 1)
 * (24-bit float draws); each whole block of 16 becomes 16 normals * std +
 * mean. tail, when not NULL (n >= 16, n % 16 != 0), holds the 16 uniforms
 * drawn again for the last 16 elements: they are copied to data + n - 16
 * and transformed too. MT_ERR_ISA when the CPU lacks AVX2 or FMA (or is not
 * x86-64); mt_normal_avx2 says beforehand whether it has them. */
int mt_normal_fill_f32(float *data, int64_t n, const float *tail, float mean, float std);
int mt_normal_avx2(void);
/* mt_normal_fill_f64 is PyTorch's float64 normal_fill_16 on n (a multiple
 * of 16) uniforms at data, in place, with the C library's log, cos and sin
 * (normal.c). */
int mt_normal_fill_f64(double *data, int64_t n, double mean, double std);

/* The instruction set the hot loops run with (chosen when the program
 * loads): 0 generic, 2 AVX2+FMA (x86-64-v3), 3 AVX-512 (x86-64-v4). */
int mt_isa(void);

/* Index kernels (index.c): gather and index_select (out = self at the
 * index), scatter, scatter_add, scatter_reduce and index_add (out at the
 * index combined with src). The plan walks the iteration shape (the
 * output's for gather and index_select, the index's for scatter, the
 * source's for index_add) with operand 0 the output, 1 self or src and 2
 * the index; the operand the index jumps in (self for gather, the output
 * for scatter) has stride 0 along the indexed dim, and each element adds
 * index * jump bytes to it. A job is pointer-free, filled by Go. */
enum { MT_IX_GATHER = 0, MT_IX_SCATTER = 1 };
/* Combinations of a scatter, numbered as kernel.ReduceNone.. (index_add's
 * alpha * src then sum last). */
enum { MT_IX_NONE, MT_IX_SUM, MT_IX_PROD, MT_IX_MEAN, MT_IX_AMAX, MT_IX_AMIN, MT_IX_ADD_ALPHA, MT_IX_NUM_REDUCE };
#define MT_ERR_INDEX 4 /* an index out of range: job->bad is the first, in the index's logical order */
#define MT_ERR_NOMEM 5 /* no memory for the hit counts */
typedef struct {
  mt_plan plan;        /* the op's plan, three operands */
  mt_plan check;       /* the index alone, in logical (row-major) order */
  int64_t kind;        /* MT_IX_GATHER or MT_IX_SCATTER */
  int64_t dtype;       /* the element dtype of operands 0 and 1 */
  int64_t index_dtype; /* MT_I32 or MT_I64 */
  int64_t reduce;      /* MT_IX_* (scatter) */
  int64_t include_self;
  int64_t bound;       /* the size of the indexed dim */
  int64_t wrap;        /* negative indices count from the end (index_add) */
  int64_t jump;        /* bytes per index step in the jumped operand */
  int64_t ixdim;       /* the plan dim holding the indexed dim, -1 if dropped */
  int64_t numel;       /* elements of the plan */
  int64_t check_numel; /* elements of the check plan (0: no check) */
  int64_t grain;       /* elements per share at least; 0: one thread */
  int64_t hits_lo;     /* scatter_reduce's hit counts: the output's lowest element offset */
  int64_t hits_span;   /* and its span in elements (0: no counts) */
  int64_t alpha_i;     /* index_add's alpha for integer and bool dtypes */
  double alpha_f;      /* and for floating ones */
  int64_t bad;         /* set on MT_ERR_INDEX */
} mt_index_job;
int mt_index(mt_index_job *job, void *out, void *src, void *index);

/* Sort and topk (sort.c) along one dim. Each row is the n elements along
 * the dim at one position of the other dims: rows is a plan over those
 * dims (operands x, values, indices; byte strides), nrows positions, and
 * stride the byte strides along the dim. A row's first k elements in the
 * order are written (values in dtype, int64 indices): all n for a stable
 * sort (equal values in index order) and for PyTorch 1.13's unstable sort
 * (libstdc++'s std::sort of value-index pairs, replayed); k for topk
 * (PyTorch's partial_sort, or nth_element and sort). NaN is the largest
 * value. Rows are split across the pool in shares of at least grain rows
 * (0: one thread). MT_ERR_NOMEM without memory for a share's buffer;
 * MT_ERR_UNSUPPORTED for a row of 2^32 elements or more of a dtype of 32
 * bits or less. */
enum { MT_SORT_STABLE, MT_SORT_STD, MT_SORT_TOPK };
typedef struct {
  mt_plan rows;
  int64_t nrows;
  int64_t dtype;
  int64_t kind;       /* MT_SORT_* */
  int64_t descending; /* sort: descending; topk: largest */
  int64_t n, k;
  int64_t stride[3];
  int64_t grain;
} mt_sort_job;
int mt_sort(const mt_sort_job *job, const void *x, void *values, int64_t *indices);

/* Convolutions (conv.c): the geometry of one image plane and its column
 * matrix. mt_im2col writes, for planes (image, channel) of contiguous
 * [h, w] planes at x, their rows of the column matrix [kh*kw, oh*ow] per
 * plane at col (zeros where the kernel reads padding); mt_col2im adds such
 * rows back into the planes at x, which it zeroes first. Split across the
 * pool by planes. dtype MT_F32, MT_F64 or MT_I64. */
typedef struct {
  int64_t h, w, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw;
} mt_conv_geom;
int mt_im2col(int dtype, const void *x, void *col, int64_t planes, mt_conv_geom g);
int mt_col2im(int dtype, const void *col, void *x, int64_t planes, mt_conv_geom g);

/* The direct float32 convolution, dilation 1 (conv_direct.c), for CPUs
 * with AVX2 and FMA or AVX-512 (mt_conv_direct_isa: 2 or 3, else 0 and
 * mt_conv_direct returns MT_ERR_ISA). out [n][oc][oh][ow] is x
 * [n][c][h][w], padded by pt rows and pl columns of zeros before (negative:
 * cropped) and cut or padded after to hp = (oh-1)*sh + kh rows and wp =
 * (ow-1)*sw + kw columns, convolved at stride sh, sw with w
 * [oc][c/groups][kh][kw] (with transposed, stride 1 only: w is
 * [c][oc/groups][kh][kw], used transposed and flipped, which makes the
 * input gradient of a stride-1 convolution) plus bias [oc] (or NULL).
 * wpack holds groups * ceil16(oc/groups) * (c/groups)*kh*kw + 16 floats of
 * scratch; xpad, xpad_len floats, holds padded copies of image groups of
 * (c/groups)*hp*wp floats, one per thread (the work is split
 * across at most as many threads as it holds copies), unless the input
 * needs no padding (xpad may then be NULL). A transposed convolution whose
 * input is padded and whose weights hold a NaN or an infinity returns
 * MT_ERR_NONFINITE, writing nothing: the kernel would multiply them by the
 * padding's zeros, which PyTorch's input gradient never does. */
#define MT_ERR_NONFINITE 6
typedef struct {
  int64_t n, groups, c, h, w, oc, oh, ow, kh, kw, sh, sw, pt, pl, transposed;
} mt_conv_direct_params;
int mt_conv_direct_isa(void);
/* mt_conv_direct_set_isa makes the direct kernels use instruction set isa
 * (0 none, 2 AVX2, 3 AVX-512; at most what the CPU has) and returns the
 * previous one: for tests. */
int mt_conv_direct_set_isa(int isa);
int mt_conv_direct(mt_conv_direct_params p, const float *x, const float *w, const float *bias, float *out,
                   float *wpack, float *xpad, int64_t xpad_len);
/* mt_conv_wgrad writes into dw [oc][c/groups][kh][kw] the weight gradient
 * of the convolution mt_conv_direct computes (not transposed), from its
 * input x and output gradient gy [n][oc][oh][ow], with the same scratch
 * (dwp as wpack). AVX-512 only (mt_conv_direct_isa 3), else MT_ERR_ISA;
 * MT_ERR_NOMEM when it cannot allocate its table of tap offsets. */
int mt_conv_wgrad(mt_conv_direct_params p, const float *x, const float *gy, float *dw, float *dwp, float *xpad,
                  int64_t xpad_len);

/* Pooling (pooling.c) over the last two dims of contiguous [planes, ih, iw]
 * inputs and [planes, oh, ow] outputs. Forward ops read x (the input) and
 * write y (the output) and, for the max pools, idx (int64 flat indices in
 * the plane); backward ops read x (the output's gradient) and idx (the max
 * pools' indices) and write y (the input's gradient, zeroed first). */
enum {
  MT_POOLING_MAX,                /* kh, kw, sh, sw, ph, pw, dh, dw */
  MT_POOLING_MAX_BACKWARD,       /* also adaptive max pooling's backward */
  MT_POOLING_AVG,                /* kh, kw, sh, sw, ph, pw, count_include_pad, divisor (0: none) */
  MT_POOLING_AVG_BACKWARD,
  MT_POOLING_ADAPTIVE_AVG,       /* PyTorch's adaptive windows of oh x ow outputs */
  MT_POOLING_ADAPTIVE_AVG_BACKWARD,
  MT_POOLING_ADAPTIVE_MAX
};
typedef struct {
  int64_t planes, ih, iw, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, count_include_pad, divisor;
} mt_pool_params;
/* mt_pool2d runs op in dtype (float32, float64; int64 for MT_POOLING_AVG) over
 * planes [begin, end); mt_pool2d_parallel over every plane, split across
 * the pool in shares of at least grain planes. */
int mt_pool2d(int op, int dtype, const mt_pool_params *p, const void *x, void *y, int64_t *idx, int64_t begin,
              int64_t end);
int mt_pool2d_parallel(int op, int dtype, mt_pool_params p, const void *x, void *y, int64_t *idx, int64_t grain);

/* Batch norm (batchnorm.c) over x, a contiguous [n, c, s] array, per
 * channel of dim 1. mt_batch_norm: training (mean, invstd and the biased
 * var of each channel written, stats in double) or, with mean and var
 * given (running stats), eval; y = (x - mean) * invstd * w + b (w, b may
 * be NULL). mt_batch_norm_backward: from g (the output's gradient), the
 * input's gradient gx (may be NULL) and gw, gb (may be NULL). Channels
 * [begin, end); the _parallel forms over every channel split across the
 * pool in shares of at least grain channels. dtype MT_F32 or MT_F64; the
 * per-channel arrays are of dtype too. */
typedef struct {
  int64_t n, c, s;
  int training;
  double eps;
} mt_bn_params;
int mt_batch_norm(int dtype, const mt_bn_params *p, const void *x, const void *w, const void *b, void *mean,
                  void *invstd, void *var, void *y, int64_t begin, int64_t end);
int mt_batch_norm_parallel(int dtype, mt_bn_params p, const void *x, const void *w, const void *b, void *mean,
                           void *invstd, void *var, void *y, int64_t grain);
int mt_batch_norm_backward(int dtype, const mt_bn_params *p, const void *g, const void *x, const void *w,
                           const void *mean, const void *invstd, void *gx, void *gw, void *gb, int64_t begin,
                           int64_t end);
int mt_batch_norm_backward_parallel(int dtype, mt_bn_params p, const void *g, const void *x, const void *w,
                                    const void *mean, const void *invstd, void *gx, void *gw, void *gb,
                                    int64_t grain);

/* Layer norm and RMS norm (layernorm.c) over the rows of a contiguous
 * [rows, d] array of dtype MT_F32 or MT_F64 (w, b and the per-row arrays
 * of that dtype too), and group norm as its rows of s elements per
 * channel weight and bias, groups rows apart. mt_layer_norm: y = ((x - mean) * rstd) * w + b per
 * row, or for RMS norm (rms) y = (x * rstd) * w with a zero mean; the
 * stats in double, mean and rstd written per row. mt_layer_norm_backward:
 * from g, the input's gradient gx (may be NULL) and the column sums gw
 * of g * xhat and gb of g (both or neither NULL). Rows split across the
 * pool in shares of at least grain rows (0: one share). MT_ERR_NOMEM
 * without memory for the backward's column sums. */
typedef struct {
  int64_t rows, d;
  double eps;
  int64_t rms;
  int64_t s, groups; /* elements per parameter (d a multiple), and the groups: row r reads
                        the d/s parameters from (r % groups) * d/s; layer norm 1 and 1 */
} mt_ln_params;
int mt_layer_norm(int dtype, mt_ln_params p, const void *x, const void *w, const void *b, void *y, void *mean,
                  void *rstd, int64_t grain);
int mt_layer_norm_backward(int dtype, mt_ln_params p, const void *g, const void *x, const void *mean,
                           const void *rstd, const void *w, void *gx, void *gw, void *gb, int64_t grain);

#endif
