/*
 * The NPU shim: CANN's ACL runtime and ACLNN operator libraries, loaded with
 * dlopen, behind a small C API that Go calls once per operation.
 *
 * Every entry point takes the device, makes its context current on the
 * calling OS thread (goroutines move between threads), and reports failure
 * as a status: the ACL or ACLNN code and its message (aclGetRecentErrMsg),
 * filled in by the same call that failed. Nothing waits for the device
 * except the copies to the host and mt_npu_synchronize.
 */
#ifndef MINDTORCH_NPU_SHIM_H
#define MINDTORCH_NPU_SHIM_H

#include <stddef.h>
#include <stdint.h>

#define MT_NPU_MAX_DIMS 8
/* The most tensors one op takes (cat's list included), and the length of
 * the attributes' extra integers. */
#define MT_NPU_MAX_TENSORS 16
#define MT_NPU_EXT 24

typedef struct {
	int32_t code;  /* the ACL/ACLNN error code, or a MT_NPU_E* value */
	char msg[768]; /* what failed, with CANN's message */
} mt_npu_status;

/* Shim errors, outside CANN's ranges. */
enum {
	MT_NPU_ENOLIB = -1,    /* a library or required symbol is missing */
	MT_NPU_ENOSYM = -2,    /* the op's symbols are missing */
	MT_NPU_EARG = -3,      /* a bad argument to the shim */
	MT_NPU_ENODEVICE = -4, /* no such device */
};

/* A tensor as ACLNN sees it: the device address of its storage, an ACL
 * dtype, shape and strides and offset in elements, the storage size in
 * elements. An optional tensor an op is called without has ndim -1 (the
 * shim passes NULL). */
typedef struct {
	uint64_t data;
	int32_t dtype;
	int32_t ndim;
	int64_t shape[MT_NPU_MAX_DIMS];
	int64_t strides[MT_NPU_MAX_DIMS];
	int64_t offset;
	int64_t storage;
} mt_npu_tensor;

/* Kinds of the scalar attributes. */
enum { MT_NPU_SCALAR_FLOAT, MT_NPU_SCALAR_INT, MT_NPU_SCALAR_BOOL };

/* Attributes of an op: scalars (alpha, fill value, threshold) with their
 * kinds (a float in f, an integer or bool in si), integers (dims), a flag
 * (keepdim), a dtype. */
typedef struct {
	double f[2];
	int64_t si[2];
	int32_t sk[2];
	int64_t i[MT_NPU_MAX_DIMS];
	int32_t ni;
	int32_t flag;
	int32_t dtype;
	/* ---- nn and indexing ops ---- */
	int64_t ext[MT_NPU_EXT]; /* int arrays and flags of the nn ops (per op below) */
} mt_npu_attrs;

/* The ops, with their tensors in order (out first). */
enum {
	MT_NPU_ADD,                  /* out, a, b; f[0] alpha */
	MT_NPU_SUB,                  /* out, a, b; f[0] alpha */
	MT_NPU_MUL,                  /* out, a, b */
	MT_NPU_DIV,                  /* out, a, b */
	MT_NPU_MAXIMUM,              /* out, a, b */
	MT_NPU_MINIMUM,              /* out, a, b */
	MT_NPU_ADDS,                 /* out, a; f[0] other, f[1] alpha */
	MT_NPU_MULS,                 /* out, a; f[0] other */
	MT_NPU_NEG,                  /* out, a (and the unary ops below) */
	MT_NPU_EXP,
	MT_NPU_LOG,
	MT_NPU_SQRT,
	MT_NPU_ABS,
	MT_NPU_RELU,
	MT_NPU_SIGMOID,
	MT_NPU_TANH,
	MT_NPU_THRESHOLD_BACKWARD,   /* out, grad, self; f[0] threshold */
	MT_NPU_SOFTMAX,              /* out, a; i[0] dim */
	MT_NPU_LOG_SOFTMAX,          /* out, a; i[0] dim */
	MT_NPU_SOFTMAX_BACKWARD,     /* out, grad, output; i[0] dim */
	MT_NPU_LOG_SOFTMAX_BACKWARD, /* out, grad, output; i[0] dim */
	MT_NPU_REDUCE_SUM,           /* out, a; i[0..ni) dims, flag keepdim, dtype */
	MT_NPU_MEAN,                 /* out, a; i[0..ni) dims, flag keepdim, dtype */
	MT_NPU_AMAX,                 /* out, a; i[0..ni) dims, flag keepdim */
	MT_NPU_MATMUL,               /* out, a, b; i[0] cube math type */
	MT_NPU_CAST,                 /* out, a; dtype */
	MT_NPU_COPY,                 /* self, src */
	MT_NPU_FILL,                 /* self; f[0] value */
	MT_NPU_ZERO,                 /* self */
	MT_NPU_GELU,                 /* out, a: the tanh approximation (aclnnGelu) */
	MT_NPU_ARGMAX,               /* out (int32 or int64), a; i[0] dim, flag keepdim */
	MT_NPU_EQ,                   /* out (bool), a, b (and NE..GE) */
	MT_NPU_NE,
	MT_NPU_LT,
	MT_NPU_LE,
	MT_NPU_GT,
	MT_NPU_GE,
	MT_NPU_EQ_SCALAR,            /* out (bool), a; f[0] other (and NE..GE) */
	MT_NPU_NE_SCALAR,
	MT_NPU_LT_SCALAR,
	MT_NPU_LE_SCALAR,
	MT_NPU_GT_SCALAR,
	MT_NPU_GE_SCALAR,
	MT_NPU_WHERE,                /* out, cond, a, b */
	MT_NPU_CLAMP,                /* out, a; f[0] min, f[1] max */
	MT_NPU_POW,                  /* out, a, exponent */
	MT_NPU_POW_SCALAR,           /* out, a; f[0] exponent */
	MT_NPU_GELU_V2,              /* out, a; i[0] approximate (0 erf, 1 tanh); optional in CANN */
	/* ---- pointwise math ops ---- */
	MT_NPU_SIN,                  /* out, a (and the unary ops down to MT_NPU_SELU) */
	MT_NPU_COS,
	MT_NPU_TAN,
	MT_NPU_ASIN,
	MT_NPU_ACOS,
	MT_NPU_ATAN,
	MT_NPU_ASINH,
	MT_NPU_ACOSH,
	MT_NPU_ATANH,
	MT_NPU_SINH,
	MT_NPU_COSH,
	MT_NPU_ERF,
	MT_NPU_ERFC,
	MT_NPU_ERFINV,
	MT_NPU_EXP2,
	MT_NPU_EXPM1,
	MT_NPU_LOG2,
	MT_NPU_LOG10,
	MT_NPU_LOG1P,
	MT_NPU_RSQRT,
	MT_NPU_RECIPROCAL,
	MT_NPU_SINC,
	MT_NPU_SIGN,
	MT_NPU_FLOOR,
	MT_NPU_CEIL,
	MT_NPU_ROUND,
	MT_NPU_TRUNC,
	MT_NPU_FRAC,
	MT_NPU_IS_INF,
	MT_NPU_IS_FINITE,
	MT_NPU_IS_POS_INF,
	MT_NPU_IS_NEG_INF,
	MT_NPU_SIGNBIT,
	MT_NPU_BITWISE_NOT,
	MT_NPU_LOGICAL_NOT,
	MT_NPU_SILU,
	MT_NPU_LOG_SIGMOID,
	MT_NPU_HARDSWISH,
	MT_NPU_HARDSIGMOID,
	MT_NPU_MISH,
	MT_NPU_SELU,
	MT_NPU_LEAKY_RELU,           /* out, a; scalar 0 the negative slope */
	MT_NPU_CELU,                 /* out, a; scalar 0 alpha */
	MT_NPU_ELU,                  /* out, a; scalar 0 alpha, scalar 1 both scale and input scale */
	MT_NPU_SOFTPLUS,             /* out, a; scalar 0 beta, scalar 1 threshold */
	MT_NPU_HARDTANH,             /* out, a; scalar 0 min, scalar 1 max */
	MT_NPU_LOGIT,                /* out, a; f[0] eps (double, negative: none) */
	MT_NPU_NAN_TO_NUM,           /* out, a; f[0] nan, f[1] posinf, i[0] the bits of the double neginf (passed as floats) */
	MT_NPU_REMAINDER,            /* out, a, b (and the binary ops down to MT_NPU_LOGICAL_XOR) */
	MT_NPU_FMOD,
	MT_NPU_ATAN2,
	MT_NPU_LOGADDEXP,
	MT_NPU_BITWISE_AND,
	MT_NPU_BITWISE_OR,
	MT_NPU_BITWISE_XOR,
	MT_NPU_LOGICAL_AND,
	MT_NPU_LOGICAL_OR,
	MT_NPU_LOGICAL_XOR,
	MT_NPU_CLAMP_TENSOR,         /* out, a, min, max */
	MT_NPU_LERP,                 /* out, start, end, weight */
	MT_NPU_LERPS,                /* out, start, end; scalar 0 weight */
	MT_NPU_ALL,                  /* out, a; i[0..ni) dims, flag keepdim */
	MT_NPU_ANY,                  /* out, a; i[0..ni) dims, flag keepdim */
	MT_NPU_LOGSUMEXP,            /* out, a; i[0..ni) dims, flag keepdim */
	MT_NPU_VAR,                  /* out, a; i[0..ni) dims, flag keepdim, si[0] correction (aclnnVarCorrection) */
	MT_NPU_STD,                  /* out, a; i[0..ni) dims, flag keepdim, si[0] correction */
	/* ---- nn and indexing ops ---- */
	MT_NPU_INDEX_SELECT,         /* out, self, index; i[0] dim */
	MT_NPU_GATHER,               /* out, self, index; i[0] dim */
	MT_NPU_SCATTER,              /* out, self, index, src; i[0] dim, i[1] reduce (0 none, 1 add, 2 mul) */
	MT_NPU_SCATTER_VALUE,        /* out, self, index; i[0] dim, i[1] reduce; scalar 0 the value */
	MT_NPU_SCATTER_ADD,          /* out, self, index, src; i[0] dim */
	MT_NPU_INDEX_ADD,            /* out, self, index, source; i[0] dim; scalar 0 alpha */
	MT_NPU_MASKED_FILL,          /* self (in place), mask; scalar 0 the value */
	MT_NPU_CUMSUM,               /* out, self; i[0] dim, dtype */
	MT_NPU_ARGMIN,               /* out (int32 or int64), self; i[0] dim, flag keepdim */
	MT_NPU_AMIN,                 /* out, self; i[0..ni) dims, flag keepdim */
	MT_NPU_MAX_DIM,              /* values, indices, self; i[0] dim, flag keepdim */
	MT_NPU_MIN_DIM,              /* values, indices, self; i[0] dim, flag keepdim */
	MT_NPU_PROD,                 /* out, self; dtype: every dim */
	MT_NPU_PROD_DIM,             /* out, self; i[0] dim, flag keepdim, dtype */
	MT_NPU_SORT,                 /* values, indices, self; i[0] dim, flag descending, i[1] stable */
	MT_NPU_TOPK,                 /* values, indices, self; i[0] k, i[1] dim, i[2] largest, i[3] sorted */
	MT_NPU_CAT,                  /* out, then 1 to MT_NPU_MAX_TENSORS-1 inputs (a tensor list); i[0] dim */
	MT_NPU_FLIP,                 /* out, self; i[0..ni) dims */
	MT_NPU_BATCH_NORM,           /* output, saveMean, saveInvstd, input, weight, bias, runningMean, runningVar
	                              * (optional: weight, bias, the running stats; saveMean and saveInvstd when not
	                              * training); flag training, f[0] momentum, f[1] eps */
	MT_NPU_BATCH_NORM_BACKWARD,  /* gradInput, gradWeight, gradBias, gradOut, input, weight, runningMean,
	                              * runningVar, saveMean, saveInvstd (optional: weight, the running stats, the
	                              * saved ones); flag training, f[0] eps, ext[0..2] outputMask */
	MT_NPU_CONVOLUTION,          /* output, input, weight, bias (optional); ni spatial dims (1 to 3): ext[0..3)
	                              * stride, ext[3..6) padding, ext[6..9) dilation, ext[9..12) output padding;
	                              * i[0] groups, i[1] cubeMathType, flag transposed */
	MT_NPU_CONVOLUTION_BACKWARD, /* gradInput, gradWeight, gradBias, gradOutput, input, weight (optional: the
	                              * gradients not asked for); the attributes of MT_NPU_CONVOLUTION, and
	                              * ext[12..15) outputMask, ext[15] the bias size (biasSizes, one value) */
	/* ---- more ops ---- */
	MT_NPU_DOT,                  /* out (0-dim), self, tensor (1-D) */
	MT_NPU_CUMPROD,              /* out, self; i[0] dim (passed as an INT32 aclScalar), dtype */
	MT_NPU_SEARCHSORTED,         /* out, sortedSequence, self (no sorter); flag right, i[0] outInt32 */
	MT_NPU_NONZERO,              /* out (int64, [numel, ndim]: the largest output, its first rows written), self */
	MT_NPU_MASKED_SELECT,        /* out (1-D, the broadcast numel: its first elements written), self, mask */
	/* ---- norm ops ---- (pkg/backends/npu/kernels_norm.go; prototypes in docs/npu-ops.md) */
	MT_NPU_LAYER_NORM,           /* out, meanOut, rstdOut, input, weight, bias (optional: weight, bias, mean, rstd);
	                              * i[0..ni) normalizedShape, f[0] eps */
	MT_NPU_LAYER_NORM_BACKWARD,  /* gradInput, gradWeight, gradBias, gradOut, input, mean, rstd, weight, bias (optional:
	                              * the gradients not asked for, weight, bias); i[0..ni) normalizedShape, ext[0..2] outputMask */
	MT_NPU_GROUP_NORM,           /* out, meanOut, rstdOut, self, gamma, beta (optional: gamma, beta); i[0..3] N, C, HxW,
	                              * group; f[0] eps */
	MT_NPU_GROUP_NORM_BACKWARD,  /* gradInput, gradGamma, gradBeta, gradOut, input, mean, rstd, gamma (optional: the
	                              * gradients not asked for, gamma); i[0..3] N, C, HxW, group; ext[0..2] outputMask */
	/* ---- pool ops ---- */
	MT_NPU_AVG_POOL2D,           /* out, self; ext[0..2) kernel, ext[2..4) stride, ext[4..6) padding; flag ceilMode,
	                              * i[0] countIncludePad, i[1] divisorOverride (0: none), i[2] cubeMathType */
	MT_NPU_AVG_POOL2D_BACKWARD,  /* gradInput, gradOutput, self; the attributes of MT_NPU_AVG_POOL2D */
	MT_NPU_ADAPTIVE_AVG_POOL2D,  /* out, self; ext[0..2) outputSize */
	MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD, /* out (self's gradient), gradOutput, self */
	/* ---- creation ops ---- */
	MT_NPU_ARANGE,               /* out; scalar 0 start, scalar 1 step, ext[0] end (an integer when scalar 0 is one,
	                              * else a double's bits) */
	MT_NPU_LINSPACE,             /* out; scalar 0 start, scalar 1 end, i[0] steps */
	/* ---- svd ---- */
	MT_NPU_SVD,                  /* sigma, u, v (V, not V^T), input; flag fullMatrices, i[0] computeUV */
	/* ---- random ops ---- (each: i[0] seed, i[1] offset of the generator's Philox stream) */
	MT_NPU_INPLACE_UNIFORM,      /* selfRef; f[0] from, f[1] to */
	MT_NPU_INPLACE_NORMAL,       /* selfRef; f[0] mean, f[1] std (passed as float) */
	MT_NPU_INPLACE_RANDOM,       /* selfRef; si[0] from, si[1] to (exclusive) */
	MT_NPU_INPLACE_BERNOULLI,    /* selfRef; scalar 0 prob */
	MT_NPU_BERNOULLI_TENSOR,     /* out, self, prob */
	MT_NPU_NUM_OPS
};

/* mt_npu_open loads the runtime, libnnopbase and the operator libraries
 * (the per-repository libopapi_<repo>.so, or libopapi.so only when there is
 * none: never both), trying each directory of the colon-separated dirs in
 * order ("" is the loader's own search), and resolves the symbols. On
 * failure it writes why into why. Safe to call again: later calls report
 * the first result. */
int mt_npu_open(const char *dirs, char *why, int whylen);

/* mt_npu_global_symbol reports whether name resolves in the process's
 * global scope (dlsym(RTLD_DEFAULT)): the runtime's and libnnopbase's
 * symbols do, the operator libraries', opened without RTLD_GLOBAL, do not. */
int mt_npu_global_symbol(const char *name);

/* mt_npu_op_available reports whether op's symbols were found. */
int mt_npu_op_available(int op);

/* mt_npu_missing writes the missing symbols, space-separated. */
void mt_npu_missing(char *out, int len);

/* mt_npu_init calls aclInit once (tolerating "already initialised") and
 * reads the device count. */
int mt_npu_init(int *devices, mt_npu_status *st);

/* mt_npu_info writes the SoC name and the ACL version ("" when absent). */
void mt_npu_info(char *soc, int soclen, int32_t version[3]);

int mt_npu_malloc(int dev, size_t n, uint64_t *ptr, mt_npu_status *st);
int mt_npu_free(int dev, uint64_t ptr, mt_npu_status *st);
/* The copies to and from the host, and mt_npu_synchronize, wait for all of
 * the device's streams. */
int mt_npu_copy_to_device(int dev, uint64_t dst, const void *src, size_t n, mt_npu_status *st);
int mt_npu_copy_to_host(int dev, void *dst, uint64_t src, size_t n, mt_npu_status *st);
int mt_npu_synchronize(int dev, mt_npu_status *st);
int mt_npu_mem_info(int dev, size_t *free_bytes, size_t *total, mt_npu_status *st);

/* mt_npu_run launches op on a stream of dev (0: the device's default
 * stream): descriptors made and destroyed in this call, the workspace from
 * the stream's own arena, the executor run once (or discarded when its
 * workspace cannot be had). With blocking, it waits for the stream
 * afterwards. */
int mt_npu_run(int dev, uint64_t stream, int op, const mt_npu_tensor *ts, int nt, const mt_npu_attrs *a, int blocking,
	       mt_npu_status *st);

/* Streams (0 is the default stream) and events. */
int mt_npu_stream_create(int dev, uint64_t *s, mt_npu_status *st);
/* mt_npu_stream_destroy waits for s, frees its workspace arena and destroys
 * it; the default stream (0) stays. */
int mt_npu_stream_destroy(int dev, uint64_t s, mt_npu_status *st);
int mt_npu_stream_synchronize(int dev, uint64_t s, mt_npu_status *st);
int mt_npu_stream_wait_event(int dev, uint64_t s, uint64_t e, mt_npu_status *st);
int mt_npu_event_create(int dev, uint64_t *e, mt_npu_status *st);
/* mt_npu_event_destroy waits for the event's work and for the streams that
 * wait on it to pass the wait, then destroys it. */
int mt_npu_event_destroy(int dev, uint64_t e, mt_npu_status *st);
int mt_npu_event_record(int dev, uint64_t e, uint64_t s, mt_npu_status *st);
int mt_npu_event_synchronize(int dev, uint64_t e, mt_npu_status *st);
int mt_npu_event_done(int dev, uint64_t e, int *done, mt_npu_status *st);
int mt_npu_event_elapsed(int dev, uint64_t start, uint64_t end, float *ms, mt_npu_status *st);

/* mt_npu_workspace_bytes is the size of dev's workspace arenas, one per
 * stream that ran an op asking for a workspace. */
size_t mt_npu_workspace_bytes(int dev);

/* mt_npu_emulator_counters reads n counters of the test emulator
 * (csrc/testing) into out; 0 when the runtime is real CANN. */
int mt_npu_emulator_counters(long long *out, int n);

/* ---- batches (pipelines: batch.c) ---- */

/* One op of a batch: its mt_npu_run op and its number of tensors. */
typedef struct {
	int32_t op;
	int32_t nt;
} mt_npu_launch;

/* mt_npu_run_batch launches n ops on a stream of dev in order, each as
 * mt_npu_run launches it (not blocking): op k takes the next ls[k].nt
 * tensors of ts and the attributes as[k]. Their workspaces are the ws_size
 * bytes at device address ws, which the ops share (the stream runs them
 * one after another). An op whose workspace is larger stops the batch
 * before it runs: *ws_need is its size and the call returns 0. *done is
 * the number of ops launched (on failure, the index of the failing op). */
int mt_npu_run_batch(int dev, uint64_t stream, const mt_npu_launch *ls, int n, const mt_npu_tensor *ts,
		     const mt_npu_attrs *as, uint64_t ws, uint64_t ws_size, int *done, uint64_t *ws_need,
		     mt_npu_status *st);

/* mt_npu_batch_counters writes the number of mt_npu_run_batch calls and
 * of the ops they launched since the process started. */
void mt_npu_batch_counters(long long out[2]);

#endif
