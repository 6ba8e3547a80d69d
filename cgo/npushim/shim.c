/*
 * The NPU shim (API in npu_shim.h): loads CANN with dlopen,
 * owns the per-device contexts, default streams and the workspace arenas
 * (one per stream), and launches ACLNN ops in one call each.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_shim.h"
#include "batch.h"

typedef int aclError;
typedef int32_t aclnnStatus;
typedef void *aclrtStream;
typedef void *aclrtContext;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensorList aclTensorList;
typedef struct aclBoolArray aclBoolArray;

enum { ACL_ERROR_REPEAT_INITIALIZE = 100002, ACL_FORMAT_ND = 2, ACL_MEM_MALLOC_HUGE_FIRST = 0 };
enum { ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2, ACL_HBM_MEM = 1 };
enum { ACL_FLOAT = 0, ACL_FLOAT16 = 1, ACL_INT32 = 3, ACL_INT64 = 9, ACL_DOUBLE = 11, ACL_BOOL = 12, ACL_BF16 = 27 };

/* ---- the symbol table ---- */

static struct {
	aclError (*Init)(const char *);
	const char *(*GetRecentErrMsg)(void);
	aclError (*SetDevice)(int32_t);
	aclError (*GetDeviceCount)(uint32_t *);
	aclError (*GetCurrentContext)(aclrtContext *);
	aclError (*SetCurrentContext)(aclrtContext);
	aclError (*CreateStream)(aclrtStream *);
	aclError (*SynchronizeStream)(aclrtStream);
	aclError (*Malloc)(void **, size_t, int);
	aclError (*Free)(void *);
	aclError (*Memcpy)(void *, size_t, const void *, size_t, int);
	aclError (*GetMemInfo)(int, size_t *, size_t *);
	aclError (*DestroyStream)(aclrtStream);
	aclError (*SynchronizeDevice)(void);
	aclError (*CreateEvent)(void **);
	aclError (*DestroyEvent)(void *);
	aclError (*RecordEvent)(void *, aclrtStream);
	aclError (*SynchronizeEvent)(void *);
	aclError (*StreamWaitEvent)(aclrtStream, void *);
	aclError (*EventElapsedTime)(float *, void *, void *);
	aclError (*QueryEventStatus)(void *, int *);
	aclError (*QueryEventWaitStatus)(void *, int *);       /* optional */
	const char *(*GetSocName)(void);                       /* optional */
	aclError (*GetVersion)(int32_t *, int32_t *, int32_t *); /* optional */
	aclTensor *(*CreateTensor)(const int64_t *, uint64_t, int, const int64_t *, int64_t, int, const int64_t *, uint64_t,
				   void *);
	aclnnStatus (*DestroyTensor)(const aclTensor *);
	aclScalar *(*CreateScalar)(void *, int);
	aclnnStatus (*DestroyScalar)(const aclScalar *);
	aclIntArray *(*CreateIntArray)(const int64_t *, uint64_t);
	aclnnStatus (*DestroyIntArray)(const aclIntArray *);
	aclnnStatus (*SetExecutorRepeatable)(aclOpExecutor *); /* optional */
	aclnnStatus (*DestroyExecutor)(aclOpExecutor *);       /* optional */
	/* ---- nn and indexing ops ---- */
	aclTensorList *(*CreateTensorList)(const aclTensor *const *, uint64_t); /* optional */
	aclnnStatus (*DestroyTensorList)(const aclTensorList *);                /* optional */
	aclBoolArray *(*CreateBoolArray)(const bool *, uint64_t);               /* optional */
	aclnnStatus (*DestroyBoolArray)(const aclBoolArray *);                  /* optional */
} acl;

struct sym {
	const char *name;
	void **slot;
	int lib; /* 0 runtime, 1 nnopbase (then the op libraries) */
	int optional;
};

static struct sym syms[] = {
	{"aclInit", (void **)&acl.Init, 0, 0},
	{"aclGetRecentErrMsg", (void **)&acl.GetRecentErrMsg, 0, 0},
	{"aclrtSetDevice", (void **)&acl.SetDevice, 0, 0},
	{"aclrtGetDeviceCount", (void **)&acl.GetDeviceCount, 0, 0},
	{"aclrtGetCurrentContext", (void **)&acl.GetCurrentContext, 0, 0},
	{"aclrtSetCurrentContext", (void **)&acl.SetCurrentContext, 0, 0},
	{"aclrtCreateStream", (void **)&acl.CreateStream, 0, 0},
	{"aclrtSynchronizeStream", (void **)&acl.SynchronizeStream, 0, 0},
	{"aclrtMalloc", (void **)&acl.Malloc, 0, 0},
	{"aclrtFree", (void **)&acl.Free, 0, 0},
	{"aclrtMemcpy", (void **)&acl.Memcpy, 0, 0},
	{"aclrtGetMemInfo", (void **)&acl.GetMemInfo, 0, 0},
	{"aclrtDestroyStream", (void **)&acl.DestroyStream, 0, 0},
	{"aclrtSynchronizeDevice", (void **)&acl.SynchronizeDevice, 0, 0},
	{"aclrtCreateEvent", (void **)&acl.CreateEvent, 0, 0},
	{"aclrtDestroyEvent", (void **)&acl.DestroyEvent, 0, 0},
	{"aclrtRecordEvent", (void **)&acl.RecordEvent, 0, 0},
	{"aclrtSynchronizeEvent", (void **)&acl.SynchronizeEvent, 0, 0},
	{"aclrtStreamWaitEvent", (void **)&acl.StreamWaitEvent, 0, 0},
	{"aclrtEventElapsedTime", (void **)&acl.EventElapsedTime, 0, 0},
	{"aclrtQueryEventStatus", (void **)&acl.QueryEventStatus, 0, 0},
	/* aclError aclrtQueryEventWaitStatus(aclrtEvent, aclrtEventWaitStatus *):
	 * hicann/runtime include/external/acl/acl_rt.h */
	{"aclrtQueryEventWaitStatus", (void **)&acl.QueryEventWaitStatus, 0, 1},
	{"aclrtGetSocName", (void **)&acl.GetSocName, 0, 1},
	{"aclrtGetVersion", (void **)&acl.GetVersion, 0, 1},
	{"aclCreateTensor", (void **)&acl.CreateTensor, 1, 0},
	{"aclDestroyTensor", (void **)&acl.DestroyTensor, 1, 0},
	{"aclCreateScalar", (void **)&acl.CreateScalar, 1, 0},
	{"aclDestroyScalar", (void **)&acl.DestroyScalar, 1, 0},
	{"aclCreateIntArray", (void **)&acl.CreateIntArray, 1, 0},
	{"aclDestroyIntArray", (void **)&acl.DestroyIntArray, 1, 0},
	/* aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *) and
	 * aclDestroyAclOpExecutor(aclOpExecutor *): hicann/opbase
	 * include/nnopbase/aclnn/acl_meta.h, in libnnopbase */
	{"aclSetAclOpExecutorRepeatable", (void **)&acl.SetExecutorRepeatable, 1, 1},
	{"aclDestroyAclOpExecutor", (void **)&acl.DestroyExecutor, 1, 1},
	/* ---- nn and indexing ops ---- */
	/* aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size),
	 * aclDestroyTensorList (which destroys the tensors it holds), aclBoolArray
	 * *aclCreateBoolArray(const bool *value, uint64_t size), aclDestroyBoolArray:
	 * hicann/opbase include/nnopbase/aclnn/acl_meta.h; optional here, so that a
	 * CANN without them only loses the ops that take them (cat, the backward
	 * ops' output masks) */
	{"aclCreateTensorList", (void **)&acl.CreateTensorList, 1, 1},
	{"aclDestroyTensorList", (void **)&acl.DestroyTensorList, 1, 1},
	{"aclCreateBoolArray", (void **)&acl.CreateBoolArray, 1, 1},
	{"aclDestroyBoolArray", (void **)&acl.DestroyBoolArray, 1, 1},
};

/* The ops: their ACLNN names and how many tensors they take (out first).
 * [?] The comparisons, SWhere, Clamp, Pow, Maximum/Minimum, Sqrt, Abs,
 * Sigmoid, Tanh and Gelu follow torch_npu's use; they are not in the
 * reference notes. */
static const struct {
	const char *name;
	int tensors;
} ops[MT_NPU_NUM_OPS] = {
	[MT_NPU_ADD] = {"aclnnAdd", 3},
	[MT_NPU_SUB] = {"aclnnSub", 3},
	[MT_NPU_MUL] = {"aclnnMul", 3},
	[MT_NPU_DIV] = {"aclnnDiv", 3},
	[MT_NPU_MAXIMUM] = {"aclnnMaximum", 3},
	[MT_NPU_MINIMUM] = {"aclnnMinimum", 3},
	[MT_NPU_ADDS] = {"aclnnAdds", 2},
	[MT_NPU_MULS] = {"aclnnMuls", 2},
	[MT_NPU_NEG] = {"aclnnNeg", 2},
	[MT_NPU_EXP] = {"aclnnExp", 2},
	[MT_NPU_LOG] = {"aclnnLog", 2},
	[MT_NPU_SQRT] = {"aclnnSqrt", 2},
	[MT_NPU_ABS] = {"aclnnAbs", 2},
	[MT_NPU_RELU] = {"aclnnRelu", 2},
	[MT_NPU_SIGMOID] = {"aclnnSigmoid", 2},
	[MT_NPU_TANH] = {"aclnnTanh", 2},
	[MT_NPU_THRESHOLD_BACKWARD] = {"aclnnThresholdBackward", 3},
	[MT_NPU_SOFTMAX] = {"aclnnSoftmax", 2},
	[MT_NPU_LOG_SOFTMAX] = {"aclnnLogSoftmax", 2},
	[MT_NPU_SOFTMAX_BACKWARD] = {"aclnnSoftmaxBackward", 3},
	[MT_NPU_LOG_SOFTMAX_BACKWARD] = {"aclnnLogSoftmaxBackward", 3},
	[MT_NPU_REDUCE_SUM] = {"aclnnReduceSum", 2},
	[MT_NPU_MEAN] = {"aclnnMean", 2},
	[MT_NPU_AMAX] = {"aclnnAmax", 2},
	[MT_NPU_MATMUL] = {"aclnnMatmul", 3},
	[MT_NPU_CAST] = {"aclnnCast", 2},
	[MT_NPU_COPY] = {"aclnnInplaceCopy", 2},
	[MT_NPU_FILL] = {"aclnnInplaceFillScalar", 1},
	[MT_NPU_ZERO] = {"aclnnInplaceZero", 1},
	[MT_NPU_GELU] = {"aclnnGelu", 2},
	[MT_NPU_ARGMAX] = {"aclnnArgMax", 2},
	[MT_NPU_EQ] = {"aclnnEqTensor", 3},
	[MT_NPU_NE] = {"aclnnNeTensor", 3},
	[MT_NPU_LT] = {"aclnnLtTensor", 3},
	[MT_NPU_LE] = {"aclnnLeTensor", 3},
	[MT_NPU_GT] = {"aclnnGtTensor", 3},
	[MT_NPU_GE] = {"aclnnGeTensor", 3},
	[MT_NPU_EQ_SCALAR] = {"aclnnEqScalar", 2},
	[MT_NPU_NE_SCALAR] = {"aclnnNeScalar", 2},
	[MT_NPU_LT_SCALAR] = {"aclnnLtScalar", 2},
	[MT_NPU_LE_SCALAR] = {"aclnnLeScalar", 2},
	[MT_NPU_GT_SCALAR] = {"aclnnGtScalar", 2},
	[MT_NPU_GE_SCALAR] = {"aclnnGeScalar", 2},
	[MT_NPU_WHERE] = {"aclnnSWhere", 4},
	[MT_NPU_CLAMP] = {"aclnnClamp", 2},
	[MT_NPU_POW] = {"aclnnPowTensorTensor", 3},
	[MT_NPU_POW_SCALAR] = {"aclnnPowTensorScalar", 2},
	[MT_NPU_GELU_V2] = {"aclnnGeluV2", 2},
	/* ---- pointwise math ops ---- (prototypes and sources: docs/npu-ops.md) */
	[MT_NPU_SIN] = {"aclnnSin", 2},
	[MT_NPU_COS] = {"aclnnCos", 2},
	[MT_NPU_TAN] = {"aclnnTan", 2},
	[MT_NPU_ASIN] = {"aclnnAsin", 2},
	[MT_NPU_ACOS] = {"aclnnAcos", 2},
	[MT_NPU_ATAN] = {"aclnnAtan", 2},
	[MT_NPU_ASINH] = {"aclnnAsinh", 2},
	[MT_NPU_ACOSH] = {"aclnnAcosh", 2},
	[MT_NPU_ATANH] = {"aclnnAtanh", 2},
	[MT_NPU_SINH] = {"aclnnSinh", 2},
	[MT_NPU_COSH] = {"aclnnCosh", 2},
	[MT_NPU_ERF] = {"aclnnErf", 2},
	[MT_NPU_ERFC] = {"aclnnErfc", 2},
	[MT_NPU_ERFINV] = {"aclnnErfinv", 2},
	[MT_NPU_EXP2] = {"aclnnExp2", 2},
	[MT_NPU_EXPM1] = {"aclnnExpm1", 2},
	[MT_NPU_LOG2] = {"aclnnLog2", 2},
	[MT_NPU_LOG10] = {"aclnnLog10", 2},
	[MT_NPU_LOG1P] = {"aclnnLog1p", 2},
	[MT_NPU_RSQRT] = {"aclnnRsqrt", 2},
	[MT_NPU_RECIPROCAL] = {"aclnnReciprocal", 2},
	[MT_NPU_SINC] = {"aclnnSinc", 2},
	[MT_NPU_SIGN] = {"aclnnSign", 2},
	[MT_NPU_FLOOR] = {"aclnnFloor", 2},
	[MT_NPU_CEIL] = {"aclnnCeil", 2},
	[MT_NPU_ROUND] = {"aclnnRound", 2},
	[MT_NPU_TRUNC] = {"aclnnTrunc", 2},
	[MT_NPU_FRAC] = {"aclnnFrac", 2},
	[MT_NPU_IS_INF] = {"aclnnIsInf", 2},
	[MT_NPU_IS_FINITE] = {"aclnnIsFinite", 2},
	[MT_NPU_IS_POS_INF] = {"aclnnIsPosInf", 2},
	[MT_NPU_IS_NEG_INF] = {"aclnnIsNegInf", 2},
	[MT_NPU_SIGNBIT] = {"aclnnSignbit", 2},
	[MT_NPU_BITWISE_NOT] = {"aclnnBitwiseNot", 2},
	[MT_NPU_LOGICAL_NOT] = {"aclnnLogicalNot", 2},
	[MT_NPU_SILU] = {"aclnnSilu", 2},
	[MT_NPU_LOG_SIGMOID] = {"aclnnLogSigmoid", 2},
	[MT_NPU_HARDSWISH] = {"aclnnHardswish", 2},
	[MT_NPU_HARDSIGMOID] = {"aclnnHardsigmoid", 2},
	[MT_NPU_MISH] = {"aclnnMish", 2},
	[MT_NPU_SELU] = {"aclnnSelu", 2},
	[MT_NPU_LEAKY_RELU] = {"aclnnLeakyRelu", 2},
	[MT_NPU_CELU] = {"aclnnCelu", 2},
	[MT_NPU_ELU] = {"aclnnElu", 2},
	[MT_NPU_SOFTPLUS] = {"aclnnSoftplus", 2},
	[MT_NPU_HARDTANH] = {"aclnnHardtanh", 2},
	[MT_NPU_LOGIT] = {"aclnnLogit", 2},
	[MT_NPU_NAN_TO_NUM] = {"aclnnNanToNum", 2},
	[MT_NPU_REMAINDER] = {"aclnnRemainderTensorTensor", 3},
	[MT_NPU_FMOD] = {"aclnnFmodTensor", 3},
	[MT_NPU_ATAN2] = {"aclnnAtan2", 3},
	[MT_NPU_LOGADDEXP] = {"aclnnLogAddExp", 3},
	[MT_NPU_BITWISE_AND] = {"aclnnBitwiseAndTensor", 3},
	[MT_NPU_BITWISE_OR] = {"aclnnBitwiseOrTensor", 3},
	[MT_NPU_BITWISE_XOR] = {"aclnnBitwiseXorTensor", 3},
	[MT_NPU_LOGICAL_AND] = {"aclnnLogicalAnd", 3},
	[MT_NPU_LOGICAL_OR] = {"aclnnLogicalOr", 3},
	[MT_NPU_LOGICAL_XOR] = {"aclnnLogicalXor", 3},
	[MT_NPU_CLAMP_TENSOR] = {"aclnnClampTensor", 4},
	[MT_NPU_LERP] = {"aclnnLerp", 4},
	[MT_NPU_LERPS] = {"aclnnLerps", 3},
	[MT_NPU_ALL] = {"aclnnAll", 2},
	[MT_NPU_ANY] = {"aclnnAny", 2},
	[MT_NPU_LOGSUMEXP] = {"aclnnLogSumExp", 2},
	[MT_NPU_VAR] = {"aclnnVarCorrection", 2},
	[MT_NPU_STD] = {"aclnnStd", 2},
	/* ---- nn and indexing ops ---- (tensors -1: any number, a tensor list) */
	[MT_NPU_INDEX_SELECT] = {"aclnnIndexSelect", 3},
	[MT_NPU_GATHER] = {"aclnnGather", 3},
	[MT_NPU_SCATTER] = {"aclnnScatter", 4},
	[MT_NPU_SCATTER_VALUE] = {"aclnnScatterValue", 3},
	[MT_NPU_SCATTER_ADD] = {"aclnnScatterAdd", 4},
	[MT_NPU_INDEX_ADD] = {"aclnnIndexAdd", 4},
	[MT_NPU_MASKED_FILL] = {"aclnnInplaceMaskedFillScalar", 2},
	[MT_NPU_CUMSUM] = {"aclnnCumsum", 2},
	[MT_NPU_ARGMIN] = {"aclnnArgMin", 2},
	[MT_NPU_AMIN] = {"aclnnAmin", 2},
	[MT_NPU_MAX_DIM] = {"aclnnMaxDim", 3},
	[MT_NPU_MIN_DIM] = {"aclnnMinDim", 3},
	[MT_NPU_PROD] = {"aclnnProd", 2},
	[MT_NPU_PROD_DIM] = {"aclnnProdDim", 2},
	[MT_NPU_SORT] = {"aclnnSort", 3},
	[MT_NPU_TOPK] = {"aclnnTopk", 3},
	[MT_NPU_CAT] = {"aclnnCat", -1},
	[MT_NPU_FLIP] = {"aclnnFlip", 2},
	[MT_NPU_BATCH_NORM] = {"aclnnBatchNorm", 8},
	[MT_NPU_BATCH_NORM_BACKWARD] = {"aclnnBatchNormBackward", 10},
	[MT_NPU_CONVOLUTION] = {"aclnnConvolution", 4},
	[MT_NPU_CONVOLUTION_BACKWARD] = {"aclnnConvolutionBackward", 6},
	/* ---- more ops ---- (prototypes and sources: docs/npu-ops.md and the cases below) */
	[MT_NPU_DOT] = {"aclnnDot", 3},
	[MT_NPU_CUMPROD] = {"aclnnCumprod", 2},
	[MT_NPU_SEARCHSORTED] = {"aclnnSearchSorted", 3},
	[MT_NPU_NONZERO] = {"aclnnNonzero", 2},
	[MT_NPU_MASKED_SELECT] = {"aclnnMaskedSelect", 3},
	/* ---- norm ops ---- */
	[MT_NPU_LAYER_NORM] = {"aclnnLayerNorm", 6},
	[MT_NPU_LAYER_NORM_BACKWARD] = {"aclnnLayerNormBackward", 9},
	[MT_NPU_GROUP_NORM] = {"aclnnGroupNorm", 6},
	[MT_NPU_GROUP_NORM_BACKWARD] = {"aclnnGroupNormBackward", 8},
	/* ---- pool ops ---- (prototypes and sources: docs/npu-ops.md and the cases below) */
	[MT_NPU_AVG_POOL2D] = {"aclnnAvgPool2d", 2},
	[MT_NPU_AVG_POOL2D_BACKWARD] = {"aclnnAvgPool2dBackward", 3},
	[MT_NPU_ADAPTIVE_AVG_POOL2D] = {"aclnnAdaptiveAvgPool2d", 2},
	[MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD] = {"aclnnAdaptiveAvgPool2dBackward", 3},
	/* ---- creation ops ---- (prototypes and sources: docs/npu-ops.md and the cases below) */
	[MT_NPU_ARANGE] = {"aclnnArange", 1},
	[MT_NPU_LINSPACE] = {"aclnnLinspace", 1},
	/* ---- svd ---- */
	[MT_NPU_SVD] = {"aclnnSvd", 4},
	/* ---- random ops ---- */
	[MT_NPU_INPLACE_UNIFORM] = {"aclnnInplaceUniform", 1},
	[MT_NPU_INPLACE_NORMAL] = {"aclnnInplaceNormal", 1},
	[MT_NPU_INPLACE_RANDOM] = {"aclnnInplaceRandom", 1},
	[MT_NPU_INPLACE_BERNOULLI] = {"aclnnInplaceBernoulli", 1},
	[MT_NPU_BERNOULLI_TENSOR] = {"aclnnBernoulliTensor", 3},
};

typedef aclnnStatus (*exec_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);
static void *op_ws[MT_NPU_NUM_OPS]; /* the GetWorkspaceSize halves */
static exec_fn op_exec[MT_NPU_NUM_OPS];

#define MAX_LIBS 12
static void *libs[MAX_LIBS];
static int nlibs, opened, open_result;
static char open_why[1024], missing[2048];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* try_open opens name with flags from the first directory of dirs that has
 * it. */
static void *try_open(const char *dirs, const char *name, int flags) {
	char path[4096];
	const char *p = dirs;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0) snprintf(path, sizeof path, "%s", name);
		else snprintf(path, sizeof path, "%.*s/%s", (int)n, p, name);
		void *h = dlopen(path, flags);
		if (h) return h;
		if (!end) return NULL;
		p = end + 1;
	}
}

/* where describes the search path for messages: "a, b and the loader's path". */
static const char *where(const char *dirs) {
	static char out[2048];
	out[0] = 0;
	const char *p = dirs;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p), len = strlen(out);
		if (n == 0) snprintf(out + len, sizeof out - len, "%sthe loader's search path (LD_LIBRARY_PATH)", len ? ", " : "");
		else snprintf(out + len, sizeof out - len, "%s%.*s", len ? ", " : "", (int)n, p);
		if (!end) return out;
		p = end + 1;
	}
}

static void add_missing(const char *name) {
	size_t n = strlen(missing);
	snprintf(missing + n, sizeof missing - n, "%s%s", n ? " " : "", name);
}

static void *lookup(int from, int to, const char *name, int *where) {
	for (int i = from; i < to; i++) {
		void *f = libs[i] ? dlsym(libs[i], name) : NULL;
		if (f) {
			if (where) *where = i;
			return f;
		}
	}
	return NULL;
}

int mt_npu_open(const char *dirs, char *why, int whylen) {
	pthread_mutex_lock(&mu);
	if (opened) goto done;
	opened = 1;
	const char *runtime[] = {"libascendcl.so", "libacl_rt.so"};
	for (int i = 0; i < 2 && !libs[0]; i++) libs[0] = try_open(dirs, runtime[i], RTLD_NOW | RTLD_GLOBAL);
	if (!libs[0]) {
		snprintf(open_why, sizeof open_why, "the ACL runtime (libascendcl.so or libacl_rt.so) was not found in %s", where(dirs));
		open_result = MT_NPU_ENOLIB;
		goto done;
	}
	libs[1] = try_open(dirs, "libnnopbase.so", RTLD_NOW | RTLD_GLOBAL);
	if (!libs[1]) {
		snprintf(open_why, sizeof open_why, "libnnopbase.so was not found in %s", where(dirs));
		open_result = MT_NPU_ENOLIB;
		goto done;
	}
	/* The operator libraries: the per-repository ones first (libopapi_math,
	 * _nn, _cv, _transformer, _legacy: the order of CANN's
	 * op_api_pta_common.h loader; cann-api.md 13.4 on op-plugin's
	 * GetOpApiFuncAddr; the stored op_plugin/utils/op_api_common.h is older
	 * and knows only libopapi.so and the feature libraries), and only when none
	 * of them exists the aggregate libopapi.so with the older feature
	 * libraries: libopapi.so must not be used together with the
	 * per-repository libraries (hicann/ops-math and ops-nn
	 * docs/zh/op_api_list.md; cann-api.md 13.4). Opened as op-plugin opens
	 * them (GetOpApiLibHandler: RTLD_LAZY, not RTLD_GLOBAL), so that their
	 * symbols stay behind their handles. */
	nlibs = 2;
	const char *repo[] = {"libopapi_math.so", "libopapi_nn.so", "libopapi_cv.so", "libopapi_transformer.so", "libopapi_legacy.so"};
	const char *aggregate[] = {"libopapi.so", "libaclnn_ops_infer.so", "libaclnn_ops_train.so", "libaclnn_math.so"};
	for (size_t i = 0; i < sizeof repo / sizeof repo[0]; i++) {
		void *h = try_open(dirs, repo[i], RTLD_LAZY);
		if (h) libs[nlibs++] = h;
	}
	int per_repo = nlibs > 2;
	for (size_t i = 0; !per_repo && i < sizeof aggregate / sizeof aggregate[0]; i++) {
		void *h = try_open(dirs, aggregate[i], RTLD_LAZY);
		if (h) libs[nlibs++] = h;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		struct sym *s = &syms[i];
		*s->slot = s->lib == 0 ? lookup(0, 1, s->name, NULL) : lookup(1, nlibs, s->name, NULL);
		if (!*s->slot && !s->optional) {
			add_missing(s->name);
			open_result = MT_NPU_ENOLIB;
		}
	}
	if (open_result) {
		snprintf(open_why, sizeof open_why, "required symbols missing: %s", missing);
		goto done;
	}
	int found = 0;
	for (int op = 0; op < MT_NPU_NUM_OPS; op++) {
		char name[128];
		snprintf(name, sizeof name, "%sGetWorkspaceSize", ops[op].name);
		int where = -1;
		void *ws = lookup(2, nlibs, name, &where); /* from the operator libraries only */
		/* both halves of one op from the same library */
		void *ex = ws ? dlsym(libs[where], ops[op].name) : NULL;
		if (ws && ex) {
			op_ws[op] = ws, op_exec[op] = (exec_fn)ex;
			found++;
		} else add_missing(ops[op].name);
	}
	if (found == 0) {
		snprintf(open_why, sizeof open_why, "no ACLNN operator library (libopapi.so, libopapi_math.so, ...) found in %s", where(dirs));
		open_result = MT_NPU_ENOLIB;
	}
done:
	if (why && whylen > 0) snprintf(why, (size_t)whylen, "%s", open_why);
	int r = open_result;
	pthread_mutex_unlock(&mu);
	return r;
}

int mt_npu_global_symbol(const char *name) { return dlsym(RTLD_DEFAULT, name) != NULL; }

int mt_npu_op_available(int op) { return op >= 0 && op < MT_NPU_NUM_OPS && op_exec[op] != NULL; }

void mt_npu_missing(char *out, int len) { snprintf(out, (size_t)len, "%s", missing); }

/* ---- errors ---- */

static int report(mt_npu_status *st, int code, const char *what) {
	if (!code) return 0;
	const char *m = acl.GetRecentErrMsg ? acl.GetRecentErrMsg() : NULL;
	st->code = code;
	snprintf(st->msg, sizeof st->msg, "%s failed with error %d%s%s", what, code, m ? ": " : "", m ? m : "");
	return code;
}

static int shim_error(mt_npu_status *st, int code, const char *msg) {
	st->code = code;
	snprintf(st->msg, sizeof st->msg, "%s", msg);
	return code;
}

/* ---- devices ---- */

#define MAX_DEVICES 16
/* An arena is the workspace of the ops of one stream: reused by each op
 * of the stream in turn, which the stream's order makes safe, and never by
 * another stream's, which may run at the same time (cann-api.md 13.6). */
struct arena {
	aclrtStream stream;
	void *ptr;
	size_t size;
	struct arena *next;
};

static struct device {
	int ready;
	aclrtContext ctx;
	aclrtStream stream; /* the default stream */
	struct arena *arenas;
} devices[MAX_DEVICES];
static int ndevices = -1;

int mt_npu_init(int *count, mt_npu_status *st) {
	pthread_mutex_lock(&mu);
	int r = 0;
	if (open_result || !opened) r = shim_error(st, MT_NPU_ENOLIB, "the NPU libraries are not loaded");
	else if (ndevices < 0) {
		aclError e = acl.Init(NULL);
		if (e == ACL_ERROR_REPEAT_INITIALIZE) {
			if (acl.GetRecentErrMsg) acl.GetRecentErrMsg(); /* clear it */
			e = 0;
		}
		uint32_t n = 0;
		if (!(r = report(st, e, "aclInit")) && !(r = report(st, acl.GetDeviceCount(&n), "aclrtGetDeviceCount")))
			ndevices = n > MAX_DEVICES ? MAX_DEVICES : (int)n;
	}
	if (!r) *count = ndevices;
	pthread_mutex_unlock(&mu);
	return r;
}

void mt_npu_info(char *soc, int soclen, int32_t version[3]) {
	const char *s = acl.GetSocName ? acl.GetSocName() : NULL;
	snprintf(soc, (size_t)soclen, "%s", s ? s : "");
	version[0] = version[1] = version[2] = 0;
	if (acl.GetVersion) acl.GetVersion(&version[0], &version[1], &version[2]);
}

/* bind makes dev's context current on this thread, setting the device up
 * at first use. Called with mu held. */
static int bind(int dev, mt_npu_status *st) {
	if (dev < 0 || dev >= ndevices || dev >= MAX_DEVICES) {
		char m[128];
		snprintf(m, sizeof m, "npu:%d does not exist (%d devices)", dev, ndevices < 0 ? 0 : ndevices);
		return shim_error(st, MT_NPU_ENODEVICE, m);
	}
	struct device *d = &devices[dev];
	if (!d->ready) {
		int r;
		if ((r = report(st, acl.SetDevice(dev), "aclrtSetDevice")) ||
		    (r = report(st, acl.GetCurrentContext(&d->ctx), "aclrtGetCurrentContext")) ||
		    (r = report(st, acl.CreateStream(&d->stream), "aclrtCreateStream")))
			return r;
		d->ready = 1;
		return 0;
	}
	return report(st, acl.SetCurrentContext(d->ctx), "aclrtSetCurrentContext");
}

#define ENTER(dev)                                                                                                 \
	pthread_mutex_lock(&mu);                                                                                   \
	int r_ = bind(dev, st);                                                                                    \
	if (r_) {                                                                                                  \
		pthread_mutex_unlock(&mu);                                                                         \
		return r_;                                                                                         \
	}
#define LEAVE(r)                                                                                                   \
	do {                                                                                                       \
		int rr_ = (r);                                                                                     \
		pthread_mutex_unlock(&mu);                                                                         \
		return rr_;                                                                                        \
	} while (0)

int mt_npu_malloc(int dev, size_t n, uint64_t *ptr, mt_npu_status *st) {
	ENTER(dev);
	void *p = NULL;
	int r = report(st, acl.Malloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
	*ptr = (uint64_t)(uintptr_t)p;
	LEAVE(r);
}

int mt_npu_free(int dev, uint64_t ptr, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.Free((void *)(uintptr_t)ptr), "aclrtFree"));
}

int mt_npu_synchronize(int dev, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.SynchronizeDevice(), "aclrtSynchronizeDevice"));
}

/* ---- streams and events ---- */

static aclrtStream stream_of(int dev, uint64_t s) { return s ? (aclrtStream)(uintptr_t)s : devices[dev].stream; }

int mt_npu_stream_create(int dev, uint64_t *s, mt_npu_status *st) {
	ENTER(dev);
	aclrtStream h = NULL;
	int r = report(st, acl.CreateStream(&h), "aclrtCreateStream");
	*s = (uint64_t)(uintptr_t)h;
	LEAVE(r);
}

static int free_arena(int dev, aclrtStream s, mt_npu_status *st);

/* add_failure adds the failure in next (code rn), if any, to st's message;
 * it returns the code of st's failure (r), else next's. */
static int add_failure(mt_npu_status *st, int r, const mt_npu_status *next, int rn) {
	if (!rn) return r;
	if (!r) {
		*st = *next;
		return rn;
	}
	size_t n = strlen(st->msg);
	snprintf(st->msg + n, sizeof st->msg - n, "; then %s", next->msg);
	return r;
}

/* mt_npu_stream_destroy waits for the stream, frees its workspace and
 * destroys it, each step done even when one before failed; the failures
 * are reported together, the first one's code. The default stream stays. */
int mt_npu_stream_destroy(int dev, uint64_t s, mt_npu_status *st) {
	ENTER(dev);
	if (s == 0) LEAVE(0);
	aclrtStream h = stream_of(dev, s);
	mt_npu_status next;
	int r = report(st, acl.SynchronizeStream(h), "aclrtSynchronizeStream");
	r = add_failure(st, r, &next, free_arena(dev, h, &next));
	r = add_failure(st, r, &next, report(&next, acl.DestroyStream(h), "aclrtDestroyStream"));
	LEAVE(r);
}

int mt_npu_stream_synchronize(int dev, uint64_t s, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.SynchronizeStream(stream_of(dev, s)), "aclrtSynchronizeStream"));
}

int mt_npu_stream_wait_event(int dev, uint64_t s, uint64_t e, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.StreamWaitEvent(stream_of(dev, s), (void *)(uintptr_t)e), "aclrtStreamWaitEvent"));
}

int mt_npu_event_create(int dev, uint64_t *e, mt_npu_status *st) {
	ENTER(dev);
	void *h = NULL;
	int r = report(st, acl.CreateEvent(&h), "aclrtCreateEvent");
	*e = (uint64_t)(uintptr_t)h;
	LEAVE(r);
}

/* mt_npu_event_destroy waits for the event's work, and for every stream
 * that waits on it to pass the wait, then destroys it: acl_rt.h requires
 * the aclrtStreamWaitEvent tasks on an event completed before
 * aclrtDestroyEvent (hicann/runtime include/external/acl/acl_rt.h; torch_npu
 * torch_npu/csrc/core/npu/NPUEventManager.cpp checks
 * aclrtQueryEventWaitStatus first). When a wait is pending, or the status
 * cannot be asked (an older CANN without the symbol), the device is
 * synchronized: the shim does not know which streams wait. */
int mt_npu_event_destroy(int dev, uint64_t e, mt_npu_status *st) {
	ENTER(dev);
	void *ev = (void *)(uintptr_t)e;
	int r = report(st, acl.SynchronizeEvent(ev), "aclrtSynchronizeEvent");
	int waiting = 1; /* ACL_EVENT_WAIT_STATUS_NOT_READY; COMPLETE is 0 */
	if (!r && acl.QueryEventWaitStatus) r = report(st, acl.QueryEventWaitStatus(ev, &waiting), "aclrtQueryEventWaitStatus");
	if (!r && waiting != 0) r = report(st, acl.SynchronizeDevice(), "aclrtSynchronizeDevice");
	if (!r) r = report(st, acl.DestroyEvent(ev), "aclrtDestroyEvent");
	LEAVE(r);
}

int mt_npu_event_record(int dev, uint64_t e, uint64_t s, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.RecordEvent((void *)(uintptr_t)e, stream_of(dev, s)), "aclrtRecordEvent"));
}

int mt_npu_event_synchronize(int dev, uint64_t e, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.SynchronizeEvent((void *)(uintptr_t)e), "aclrtSynchronizeEvent"));
}

/* ACL_EVENT_RECORDED_STATUS_COMPLETE is 1, NOT_READY 0, also for an event
 * never recorded (hicann/runtime include/external/acl/acl_rt.h,
 * aclrtEventRecordedStatus; cann-api.md 13.7). */
int mt_npu_event_done(int dev, uint64_t e, int *done, mt_npu_status *st) {
	ENTER(dev);
	int status = 0;
	int r = report(st, acl.QueryEventStatus((void *)(uintptr_t)e, &status), "aclrtQueryEventStatus");
	*done = status == 1;
	LEAVE(r);
}

int mt_npu_event_elapsed(int dev, uint64_t start, uint64_t end, float *ms, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.EventElapsedTime(ms, (void *)(uintptr_t)start, (void *)(uintptr_t)end), "aclrtEventElapsedTime"));
}

int mt_npu_copy_to_device(int dev, uint64_t dst, const void *src, size_t n, mt_npu_status *st) {
	ENTER(dev);
	int r = report(st, acl.SynchronizeDevice(), "aclrtSynchronizeDevice");
	if (!r && n > 0) r = report(st, acl.Memcpy((void *)(uintptr_t)dst, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
	LEAVE(r);
}

int mt_npu_copy_to_host(int dev, void *dst, uint64_t src, size_t n, mt_npu_status *st) {
	ENTER(dev);
	int r = report(st, acl.SynchronizeDevice(), "aclrtSynchronizeDevice");
	if (!r && n > 0) r = report(st, acl.Memcpy(dst, n, (const void *)(uintptr_t)src, n, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
	LEAVE(r);
}

int mt_npu_mem_info(int dev, size_t *free_bytes, size_t *total, mt_npu_status *st) {
	ENTER(dev);
	LEAVE(report(st, acl.GetMemInfo(ACL_HBM_MEM, free_bytes, total), "aclrtGetMemInfo"));
}

size_t mt_npu_workspace_bytes(int dev) {
	size_t n = 0;
	pthread_mutex_lock(&mu);
	if (dev >= 0 && dev < MAX_DEVICES)
		for (struct arena *a = devices[dev].arenas; a; a = a->next) n += a->size;
	pthread_mutex_unlock(&mu);
	return n;
}

/* workspace returns n bytes of the arena of stream s of dev, made at the
 * stream's first op that asks for one and grown, after the stream is done
 * with the old one, when it is smaller: once the largest op of a training
 * step has run, a step allocates nothing. */
static int workspace(int dev, aclrtStream s, uint64_t n, void **out, mt_npu_status *st) {
	if (mt_npu_in_batch()) return mt_npu_batch_workspace(n, out, st); /* the batch's buffer (batch.c) */
	struct device *d = &devices[dev];
	struct arena *a = d->arenas;
	while (a && a->stream != s) a = a->next;
	if (!a) {
		if (!(a = calloc(1, sizeof *a))) return shim_error(st, MT_NPU_EARG, "out of host memory for a workspace arena");
		a->stream = s, a->next = d->arenas, d->arenas = a;
	}
	if (n <= a->size) {
		*out = a->ptr;
		return 0;
	}
	int r;
	if (a->ptr) {
		if ((r = report(st, acl.SynchronizeStream(s), "aclrtSynchronizeStream")) ||
		    (r = report(st, acl.Free(a->ptr), "aclrtFree (workspace)")))
			return r;
		a->ptr = NULL;
		a->size = 0;
	}
	size_t size = 1 << 16;
	while (size < n) size *= 2;
	if ((r = report(st, acl.Malloc(&a->ptr, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc (workspace)"))) return r;
	a->size = size;
	*out = a->ptr;
	return 0;
}

/* free_arena frees the workspace of stream s, whose work is done. */
static int free_arena(int dev, aclrtStream s, mt_npu_status *st) {
	for (struct arena **pp = &devices[dev].arenas; *pp; pp = &(*pp)->next) {
		struct arena *a = *pp;
		if (a->stream != s) continue;
		*pp = a->next;
		int r = a->ptr ? report(st, acl.Free(a->ptr), "aclrtFree (workspace)") : 0;
		free(a);
		return r;
	}
	return 0;
}

/* discard frees an executor that will not run (its workspace could not be
 * allocated): made repeatable, then destroyed, as opbase's
 * aclDestroyAclOpExecutor deletes any executor (cann-api.md 13.8). Without
 * those optional symbols it is left to CANN. A failure is added to st's
 * message, which holds the reason the op did not run. */
static void discard(aclOpExecutor *ex, mt_npu_status *st) {
	if (!ex || !acl.SetExecutorRepeatable || !acl.DestroyExecutor) return;
	const char *what = "aclSetAclOpExecutorRepeatable";
	int e = acl.SetExecutorRepeatable(ex);
	if (!e) what = "aclDestroyAclOpExecutor", e = acl.DestroyExecutor(ex);
	if (e) {
		const char *m = acl.GetRecentErrMsg ? acl.GetRecentErrMsg() : NULL;
		size_t n = strlen(st->msg);
		snprintf(st->msg + n, sizeof st->msg - n, "; discarding the executor: %s failed with error %d%s%s", what, e, m ? ": " : "",
			 m ? m : "");
	}
}

/* ---- launching ops ---- */

/* scalar makes an aclScalar of scalar attribute k in its own type, as
 * op-plugin's ConvertType does (a float as ACL_DOUBLE, an integer as
 * ACL_INT64, a bool as ACL_BOOL), and lets ACLNN promote it with the
 * tensors: converting it to a tensor's dtype first would change the answer
 * (an integer tensor < 2.5). cann-api.md section 13 item 5. */
static aclScalar *scalar(const mt_npu_attrs *a, int k) {
	switch (a->sk[k]) {
	case MT_NPU_SCALAR_INT: {
		int64_t i = a->si[k];
		return acl.CreateScalar(&i, ACL_INT64);
	}
	case MT_NPU_SCALAR_BOOL: {
		bool b = a->si[k] != 0;
		return acl.CreateScalar(&b, ACL_BOOL);
	}
	}
	double v = a->f[k];
	return acl.CreateScalar(&v, ACL_DOUBLE);
}

/* ---- creation ops ---- */
/* arange_end makes aclnnArange's end from ext[0]: an ACL_INT64 when the
 * start (scalar 0) is an integer, else the ACL_DOUBLE whose bits ext[0]
 * holds. */
static aclScalar *arange_end(const mt_npu_attrs *a) {
	if (a->sk[0] != MT_NPU_SCALAR_FLOAT) {
		int64_t i = a->ext[0];
		return acl.CreateScalar(&i, ACL_INT64);
	}
	double v;
	memcpy(&v, &a->ext[0], sizeof v);
	return acl.CreateScalar(&v, ACL_DOUBLE);
}

typedef aclnnStatus (*ws_t_t_s_t)(const aclTensor *, const aclTensor *, const aclScalar *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_t_t)(const aclTensor *, const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_s_s_t)(const aclTensor *, const aclScalar *, const aclScalar *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_s_t)(const aclTensor *, const aclScalar *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_t)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_i_t)(const aclTensor *, int64_t, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_t_i_t)(const aclTensor *, const aclTensor *, int64_t, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_a_b_d_t)(const aclTensor *, const aclIntArray *, bool, int, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_a_b_t)(const aclTensor *, const aclIntArray *, bool, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_t_t_c)(const aclTensor *, const aclTensor *, aclTensor *, int8_t, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_d_t)(const aclTensor *, int, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_self_t)(aclTensor *, const aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_self_s)(aclTensor *, const aclScalar *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_self)(aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_i_b_t)(const aclTensor *, int64_t, bool, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_t_t_t)(const aclTensor *, const aclTensor *, const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
/* ---- pointwise math ops ---- */
typedef aclnnStatus (*ws_t_s_s_s_t)(const aclTensor *, const aclScalar *, const aclScalar *, const aclScalar *, aclTensor *,
				    uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_f64_t)(const aclTensor *, double, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_f_f_f_t)(const aclTensor *, float, float, float, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_t_a_i_b_t)(const aclTensor *, const aclIntArray *, int64_t, bool, aclTensor *, uint64_t *,
				    aclOpExecutor **);
/* ---- nn and indexing ops ---- */
typedef uint64_t *NNW;
typedef aclOpExecutor **NNX;
typedef const aclTensor *NNT;
typedef const aclIntArray *NNA;
typedef aclnnStatus (*ws_t_i_t_t)(NNT, int64_t, NNT, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_t_t_i_t)(NNT, int64_t, NNT, NNT, int64_t, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_t_s_i_t)(NNT, int64_t, NNT, const aclScalar *, int64_t, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_t_t_t)(NNT, int64_t, NNT, NNT, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_t_t_s_t)(NNT, int64_t, NNT, NNT, const aclScalar *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_self_t_s)(aclTensor *, NNT, const aclScalar *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_d_t)(NNT, int64_t, int, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_b_t_t)(NNT, int64_t, bool, aclTensor *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_b_d_t)(NNT, int64_t, bool, int, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_b_i_b_t_t)(NNT, bool, int64_t, bool, aclTensor *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_i_i_b_b_t_t)(NNT, int64_t, int64_t, bool, bool, aclTensor *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_l_i_t)(const aclTensorList *, int64_t, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_a_t)(NNT, NNA, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_bn)(NNT, NNT, NNT, aclTensor *, aclTensor *, bool, double, double, aclTensor *, aclTensor *, aclTensor *,
			     NNW, NNX);
typedef aclnnStatus (*ws_bn_bwd)(NNT, NNT, NNT, NNT, NNT, NNT, NNT, bool, double, const aclBoolArray *, aclTensor *, aclTensor *,
				 aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_conv)(NNT, NNT, NNT, NNA, NNA, NNA, bool, NNA, int64_t, aclTensor *, int8_t, NNW, NNX);
typedef aclnnStatus (*ws_conv_bwd)(NNT, NNT, NNT, NNA, NNA, NNA, NNA, bool, NNA, int, const aclBoolArray *, int8_t, aclTensor *, aclTensor *,
				   aclTensor *, NNW, NNX);
/* ---- more ops ---- */
typedef aclnnStatus (*ws_t_s_d_t)(NNT, const aclScalar *, int, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_t_t_b_b_t_t)(NNT, NNT, bool, bool, NNT, aclTensor *, NNW, NNX);
/* ---- norm ops ---- */
typedef aclnnStatus (*ws_ln)(NNT, NNA, NNT, NNT, double, aclTensor *, aclTensor *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_ln_bwd)(NNT, NNT, NNA, NNT, NNT, NNT, NNT, const aclBoolArray *, aclTensor *, aclTensor *, aclTensor *,
				 NNW, NNX);
typedef aclnnStatus (*ws_gn)(NNT, NNT, NNT, int64_t, int64_t, int64_t, int64_t, double, aclTensor *, aclTensor *, aclTensor *, NNW,
			     NNX);
typedef aclnnStatus (*ws_gn_bwd)(NNT, NNT, NNT, NNT, NNT, int64_t, int64_t, int64_t, int64_t, const aclBoolArray *, aclTensor *,
				 aclTensor *, aclTensor *, NNW, NNX);
/* ---- pool ops ---- */
typedef aclnnStatus (*ws_avg_pool)(NNT, NNA, NNA, NNA, bool, bool, int64_t, int8_t, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_avg_pool_bwd)(NNT, NNT, NNA, NNA, NNA, bool, bool, int64_t, int8_t, aclTensor *, NNW, NNX);
/* ---- creation ops ---- */
typedef aclnnStatus (*ws_s_s_s_t)(const aclScalar *, const aclScalar *, const aclScalar *, aclTensor *, NNW, NNX);
typedef aclnnStatus (*ws_s_s_i_t)(const aclScalar *, const aclScalar *, int64_t, aclTensor *, NNW, NNX);
/* ---- svd ---- */
typedef aclnnStatus (*ws_svd)(NNT, bool, bool, aclTensor *, aclTensor *, aclTensor *, NNW, NNX);
/* ---- random ops ---- */
typedef aclnnStatus (*ws_uniform)(NNT, double, double, uint64_t, uint64_t, NNW, NNX);
typedef aclnnStatus (*ws_normal)(NNT, float, float, int64_t, int64_t, NNW, NNX);
typedef aclnnStatus (*ws_random)(NNT, int64_t, int64_t, int64_t, int64_t, NNW, NNX);
typedef aclnnStatus (*ws_bernoulli)(NNT, const aclScalar *, int64_t, int64_t, NNW, NNX);
typedef aclnnStatus (*ws_bernoulli_tensor)(NNT, NNT, int64_t, int64_t, aclTensor *, NNW, NNX);


/* ---- nn and indexing ops ---- */
/* tensor_format is the aclFormat of a tensor of ndim dims of op: ND, but
 * the convolutions' images and weights, which take NCL, NCHW or NCDHW
 * (hicann/ops-nn conv/convolution_forward/docs/aclnnConvolution.md; the
 * format torch_npu gives 4-D tensors is NCHW). */
static int tensor_format(int op, int ndim) {
	enum { ACL_FORMAT_NCHW = 0, ACL_FORMAT_NCDHW = 30, ACL_FORMAT_NCL = 47 };
	/* ---- pool ops ---- the pools take NCL (3-D, unbatched) and NCHW (4-D) too */
	if (op >= MT_NPU_AVG_POOL2D && op <= MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD && ndim == 4) return ACL_FORMAT_NCHW;
	if (op >= MT_NPU_AVG_POOL2D && op <= MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD && ndim == 3) return ACL_FORMAT_NCL;
	if (op != MT_NPU_CONVOLUTION && op != MT_NPU_CONVOLUTION_BACKWARD) return ACL_FORMAT_ND;
	switch (ndim) {
	case 3: return ACL_FORMAT_NCL;
	case 4: return ACL_FORMAT_NCHW;
	case 5: return ACL_FORMAT_NCDHW;
	}
	return ACL_FORMAT_ND;
}

int mt_npu_run(int dev, uint64_t stream, int op, const mt_npu_tensor *ts, int nt, const mt_npu_attrs *a, int blocking,
	       mt_npu_status *st) {
	if (op < 0 || op >= MT_NPU_NUM_OPS || nt > MT_NPU_MAX_TENSORS || (ops[op].tensors >= 0 ? nt != ops[op].tensors : nt < 2))
		return shim_error(st, MT_NPU_EARG, "mt_npu_run: bad op or number of tensors");
	if (!op_exec[op]) {
		char m[160];
		snprintf(m, sizeof m, "%s is not in the loaded operator libraries", ops[op].name);
		return shim_error(st, MT_NPU_ENOSYM, m);
	}
	ENTER(dev);
	aclTensor *t[MT_NPU_MAX_TENSORS] = {0};
	aclScalar *s[3] = {0}; /* the third: aclnnArange's end */
	aclIntArray *dims = NULL;
	aclIntArray *arr[5] = {0};  /* the nn ops' int arrays */
	aclTensorList *list = NULL; /* cat's inputs, which it owns */
	aclBoolArray *mask = NULL;  /* the backward ops' output masks */
	aclOpExecutor *ex = NULL;
	uint64_t wsn = 0;
	int r = 0;
	char what[160];
	for (int i = 0; i < nt; i++) {
		const mt_npu_tensor *x = &ts[i];
		if (x->ndim < 0) continue; /* an optional tensor left out: NULL */
		int64_t storage = x->storage;
		t[i] = acl.CreateTensor(x->shape, (uint64_t)x->ndim, x->dtype, x->strides, x->offset, tensor_format(op, x->ndim), &storage, 1,
					(void *)(uintptr_t)x->data);
		if (!t[i]) {
			r = report(st, MT_NPU_EARG, "aclCreateTensor");
			goto out;
		}
	}
	snprintf(what, sizeof what, "%sGetWorkspaceSize", ops[op].name);
	void *f = op_ws[op];
	aclnnStatus e = 0;
	switch (op) {
	case MT_NPU_ADD: case MT_NPU_SUB:
		s[0] = scalar(a, 0);
		e = ((ws_t_t_s_t)f)(t[1], t[2], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_MUL: case MT_NPU_DIV: case MT_NPU_MAXIMUM: case MT_NPU_MINIMUM:
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_ADDS:
		s[0] = scalar(a, 0), s[1] = scalar(a, 1);
		e = ((ws_t_s_s_t)f)(t[1], s[0], s[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_MULS:
		s[0] = scalar(a, 0);
		e = ((ws_t_s_t)f)(t[1], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_THRESHOLD_BACKWARD:
		s[0] = scalar(a, 0);
		e = ((ws_t_t_s_t)f)(t[1], t[2], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_SOFTMAX: case MT_NPU_LOG_SOFTMAX:
		e = ((ws_t_i_t)f)(t[1], a->i[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_SOFTMAX_BACKWARD: case MT_NPU_LOG_SOFTMAX_BACKWARD:
		e = ((ws_t_t_i_t)f)(t[1], t[2], a->i[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_REDUCE_SUM: case MT_NPU_MEAN:
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_b_d_t)f)(t[1], dims, a->flag != 0, a->dtype, t[0], &wsn, &ex);
		break;
	case MT_NPU_AMAX:
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_b_t)f)(t[1], dims, a->flag != 0, t[0], &wsn, &ex);
		break;
	case MT_NPU_MATMUL:
		/* aclnnMatmulGetWorkspaceSize(self, mat2, out, int8_t cubeMathType, ...):
		 * hicann/ops-nn matmul/mat_mul_v3/docs/aclnnMatmul.md */
		e = ((ws_t_t_t_c)f)(t[1], t[2], t[0], (int8_t)a->i[0], &wsn, &ex);
		break;
	case MT_NPU_CAST:
		e = ((ws_t_d_t)f)(t[1], a->dtype, t[0], &wsn, &ex);
		break;
	case MT_NPU_COPY:
		e = ((ws_self_t)f)(t[0], t[1], &wsn, &ex);
		break;
	case MT_NPU_FILL:
		s[0] = scalar(a, 0);
		e = ((ws_self_s)f)(t[0], s[0], &wsn, &ex);
		break;
	case MT_NPU_ZERO:
		e = ((ws_self)f)(t[0], &wsn, &ex);
		break;
	case MT_NPU_EQ: case MT_NPU_NE: case MT_NPU_LT: case MT_NPU_LE: case MT_NPU_GT: case MT_NPU_GE:
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_EQ_SCALAR: case MT_NPU_NE_SCALAR: case MT_NPU_LT_SCALAR: case MT_NPU_LE_SCALAR: case MT_NPU_GT_SCALAR:
	case MT_NPU_GE_SCALAR:
		s[0] = scalar(a, 0);
		e = ((ws_t_s_t)f)(t[1], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_POW:
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_POW_SCALAR:
		s[0] = scalar(a, 0);
		e = ((ws_t_s_t)f)(t[1], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_WHERE:
		e = ((ws_t_t_t_t)f)(t[1], t[2], t[3], t[0], &wsn, &ex);
		break;
	case MT_NPU_CLAMP:
		s[0] = scalar(a, 0), s[1] = scalar(a, 1);
		e = ((ws_t_s_s_t)f)(t[1], s[0], s[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_ARGMAX:
		e = ((ws_t_i_b_t)f)(t[1], a->i[0], a->flag != 0, t[0], &wsn, &ex);
		break;
	case MT_NPU_GELU_V2:
		/* aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y, ...):
		 * hicann/ops-nn activation/gelu_v2/docs/aclnnGeluV2.md, op_api/aclnn_gelu_v2.cpp */
		e = ((ws_t_i_t)f)(t[1], a->i[0], t[0], &wsn, &ex);
		break;
	/* ---- pointwise math ops ---- (the unary ones are the default case) */
	case MT_NPU_LEAKY_RELU: case MT_NPU_CELU:
		/* aclnnLeakyReluGetWorkspaceSize(self, negativeSlope, out, ...), aclnnCeluGetWorkspaceSize(self, alpha, out, ...) */
		s[0] = scalar(a, 0);
		e = ((ws_t_s_t)f)(t[1], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_ELU:
		/* aclnnEluGetWorkspaceSize(self, alpha, scale, inputScale, out, ...): one scalar serves as scale and
		 * inputScale (both 1 for torch's elu) */
		s[0] = scalar(a, 0), s[1] = scalar(a, 1);
		e = ((ws_t_s_s_s_t)f)(t[1], s[0], s[1], s[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_SOFTPLUS: case MT_NPU_HARDTANH:
		/* aclnnSoftplusGetWorkspaceSize(self, beta, threshold, out, ...), aclnnHardtanhGetWorkspaceSize(self, min, max, out, ...) */
		s[0] = scalar(a, 0), s[1] = scalar(a, 1);
		e = ((ws_t_s_s_t)f)(t[1], s[0], s[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_LOGIT: /* aclnnLogitGetWorkspaceSize(input, double eps, out, ...) */
		e = ((ws_t_f64_t)f)(t[1], a->f[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_NAN_TO_NUM: { /* aclnnNanToNumGetWorkspaceSize(self, float nan, float posinf, float neginf, out, ...) */
		double neginf;
		memcpy(&neginf, &a->i[0], sizeof neginf);
		e = ((ws_t_f_f_f_t)f)(t[1], (float)a->f[0], (float)a->f[1], (float)neginf, t[0], &wsn, &ex);
		break;
	}
	case MT_NPU_REMAINDER: case MT_NPU_FMOD: case MT_NPU_ATAN2: case MT_NPU_LOGADDEXP: case MT_NPU_BITWISE_AND:
	case MT_NPU_BITWISE_OR: case MT_NPU_BITWISE_XOR: case MT_NPU_LOGICAL_AND: case MT_NPU_LOGICAL_OR: case MT_NPU_LOGICAL_XOR:
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_CLAMP_TENSOR: case MT_NPU_LERP: /* (self, min, max, out), (self, end, weight, out) */
		e = ((ws_t_t_t_t)f)(t[1], t[2], t[3], t[0], &wsn, &ex);
		break;
	case MT_NPU_LERPS: /* aclnnLerpsGetWorkspaceSize(self, end, const aclScalar *weight, out, ...) */
		s[0] = scalar(a, 0);
		e = ((ws_t_t_s_t)f)(t[1], t[2], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_ALL: case MT_NPU_ANY: case MT_NPU_LOGSUMEXP: /* (self, dims, keepdim, out) */
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_b_t)f)(t[1], dims, a->flag != 0, t[0], &wsn, &ex);
		break;
	case MT_NPU_VAR: case MT_NPU_STD: /* (self, dims, int64_t correction, keepdim, out) */
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_i_b_t)f)(t[1], dims, a->si[0], a->flag != 0, t[0], &wsn, &ex);
		break;
	/* ---- nn and indexing ops ---- (each prototype's source is in docs/npu-ops.md) */
	case MT_NPU_INDEX_SELECT: case MT_NPU_GATHER:
		/* aclnnIndexSelectGetWorkspaceSize(self, int64_t dim, index, out, ...): hicann/ops-nn
		 * index/gather_v2/op_host/op_api/aclnn_index_select.h; aclnnGatherGetWorkspaceSize(self,
		 * const int64_t dim, index, out, ...): hicann/ops-nn index/gather_elements_v2/op_host/op_api/aclnn_gather.cpp */
		e = ((ws_t_i_t_t)f)(t[1], a->i[0], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_SCATTER:
		/* aclnnScatterGetWorkspaceSize(self, int64_t dim, index, src, int64_t reduce, out, ...):
		 * hicann/ops-nn index/scatter_elements_v2/op_api/aclnn_scatter.h */
		e = ((ws_t_i_t_t_i_t)f)(t[1], a->i[0], t[2], t[3], a->i[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_SCATTER_VALUE:
		/* aclnnScatterValueGetWorkspaceSize(self, dim, index, const aclScalar *value, reduce, out, ...): same header */
		s[0] = scalar(a, 0);
		e = ((ws_t_i_t_s_i_t)f)(t[1], a->i[0], t[2], s[0], a->i[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_SCATTER_ADD:
		/* aclnnScatterAddGetWorkspaceSize(self, dim, index, src, out, ...): index/scatter_elements_v2/op_api/aclnn_scatter_add.h */
		e = ((ws_t_i_t_t_t)f)(t[1], a->i[0], t[2], t[3], t[0], &wsn, &ex);
		break;
	case MT_NPU_INDEX_ADD:
		/* aclnnIndexAddGetWorkspaceSize(self, const int64_t dim, index, source, const aclScalar *alpha, out, ...):
		 * hicann/ops-nn index/inplace_scatter_add/docs/aclnnIndexAdd.md */
		s[0] = scalar(a, 0);
		e = ((ws_t_i_t_t_s_t)f)(t[1], a->i[0], t[2], t[3], s[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_MASKED_FILL:
		/* aclnnInplaceMaskedFillScalarGetWorkspaceSize(selfRef, mask, const aclScalar *value, ...):
		 * hicann/ops-math conversion/masked_fill/op_api/aclnn_masked_fill_scalar.cpp */
		s[0] = scalar(a, 0);
		e = ((ws_self_t_s)f)(t[0], t[1], s[0], &wsn, &ex);
		break;
	case MT_NPU_CUMSUM:
		/* aclnnCumsumGetWorkspaceSize(self, int64_t dim, aclDataType dtype, out, ...): hicann/ops-math
		 * math/cumsum/op_api/aclnn_cumsum.h */
		e = ((ws_t_i_d_t)f)(t[1], a->i[0], a->dtype, t[0], &wsn, &ex);
		break;
	case MT_NPU_ARGMIN:
		/* aclnnArgMinGetWorkspaceSize(self, int64_t dim, bool keepdim, out, ...): hicann/ops-math
		 * math/arg_min/op_api/aclnn_argmin.cpp */
		e = ((ws_t_i_b_t)f)(t[1], a->i[0], a->flag != 0, t[0], &wsn, &ex);
		break;
	case MT_NPU_AMIN:
		/* aclnnAminGetWorkspaceSize(self, const aclIntArray *dim, bool keepDim, out, ...): hicann/ops-math
		 * math/reduce_min/op_api/aclnn_amin.cpp */
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_b_t)f)(t[1], dims, a->flag != 0, t[0], &wsn, &ex);
		break;
	case MT_NPU_MAX_DIM: case MT_NPU_MIN_DIM:
		/* aclnnMaxDimGetWorkspaceSize(self, int64_t dim, bool keepdim, out, indices, ...): hicann/ops-math
		 * math/arg_max_with_value/op_api/aclnn_max_dim.cpp; MinDim: math/arg_min_with_value/op_api/aclnn_min_dim.cpp */
		e = ((ws_t_i_b_t_t)f)(t[2], a->i[0], a->flag != 0, t[0], t[1], &wsn, &ex);
		break;
	case MT_NPU_PROD:
		/* aclnnProdGetWorkspaceSize(self, const aclDataType dtype, out, ...): hicann/ops-math
		 * math/reduce_prod/op_api/aclnn_prod.cpp */
		e = ((ws_t_d_t)f)(t[1], a->dtype, t[0], &wsn, &ex);
		break;
	case MT_NPU_PROD_DIM:
		/* aclnnProdDimGetWorkspaceSize(self, int64_t dim, bool keepDim, const aclDataType dtype, out, ...): same */
		e = ((ws_t_i_b_d_t)f)(t[1], a->i[0], a->flag != 0, a->dtype, t[0], &wsn, &ex);
		break;
	case MT_NPU_SORT:
		/* aclnnSortGetWorkspaceSize(self, bool stable, int64_t dim, bool descending, valuesOut, indicesOut, ...):
		 * hicann/ops-math math/sort/op_api/aclnn_sort.cpp */
		e = ((ws_t_b_i_b_t_t)f)(t[2], a->i[1] != 0, a->i[0], a->flag != 0, t[0], t[1], &wsn, &ex);
		break;
	case MT_NPU_TOPK:
		/* aclnnTopkGetWorkspaceSize(self, int64_t k, int64_t dim, bool largest, bool sorted, valuesOut,
		 * indicesOut, ...): hicann/ops-nn index/gather_elements/op_api/aclnn_topk.h */
		e = ((ws_t_i_i_b_b_t_t)f)(t[2], a->i[0], a->i[1], a->i[2] != 0, a->i[3] != 0, t[0], t[1], &wsn, &ex);
		break;
	case MT_NPU_CAT:
		/* aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, out, ...): hicann/ops-math
		 * conversion/concat_d/op_api/aclnn_cat.cpp. The list owns its tensors from here on. */
		if (!acl.CreateTensorList || !acl.DestroyTensorList) {
			r = shim_error(st, MT_NPU_ENOSYM, "aclCreateTensorList is not in libnnopbase");
			goto out;
		}
		list = acl.CreateTensorList((const aclTensor *const *)&t[1], (uint64_t)(nt - 1));
		if (!list) {
			r = report(st, MT_NPU_EARG, "aclCreateTensorList");
			goto out;
		}
		for (int i = 1; i < nt; i++) t[i] = NULL;
		e = ((ws_l_i_t)f)(list, a->i[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_FLIP:
		/* aclnnFlipGetWorkspaceSize(self, const aclIntArray *dims, out, ...): hicann/ops-nn
		 * index/reverse_v2/op_host/op_api/aclnn_flip.h */
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_t_a_t)f)(t[1], dims, t[0], &wsn, &ex);
		break;
	case MT_NPU_BATCH_NORM:
		/* aclnnBatchNormGetWorkspaceSize(input, weight, bias, runningMean, runningVar, bool training, double
		 * momentum, double eps, output, saveMean, saveInvstd, ...): hicann/ops-nn
		 * norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.cpp */
		e = ((ws_bn)f)(t[3], t[4], t[5], t[6], t[7], a->flag != 0, a->f[0], a->f[1], t[0], t[1], t[2], &wsn, &ex);
		break;
	case MT_NPU_BATCH_NORM_BACKWARD: {
		/* aclnnBatchNormBackwardGetWorkspaceSize(gradOut, input, weight, runningMean, runningVar, saveMean,
		 * saveInvstd, bool training, double eps, const aclBoolArray *outputMask, gradInput, gradWeight,
		 * gradBias, ...): hicann/ops-nn norm/batch_norm_grad_v3/docs/aclnnBatchNormBackward.md */
		bool m[3] = {a->ext[0] != 0, a->ext[1] != 0, a->ext[2] != 0};
		if (!acl.CreateBoolArray || !acl.DestroyBoolArray) {
			r = shim_error(st, MT_NPU_ENOSYM, "aclCreateBoolArray is not in libnnopbase");
			goto out;
		}
		mask = acl.CreateBoolArray(m, 3);
		e = ((ws_bn_bwd)f)(t[3], t[4], t[5], t[6], t[7], t[8], t[9], a->flag != 0, a->f[0], mask, t[0], t[1], t[2], &wsn,
				   &ex);
		break;
	}
	case MT_NPU_CONVOLUTION: case MT_NPU_CONVOLUTION_BACKWARD: {
		uint64_t n = a->ni > 0 && a->ni <= 3 ? (uint64_t)a->ni : 1;
		for (int k = 0; k < 4; k++) arr[k] = acl.CreateIntArray(&a->ext[3 * k], n);
		if (op == MT_NPU_CONVOLUTION) {
			/* aclnnConvolutionGetWorkspaceSize(input, weight, bias, stride, padding, dilation, bool transposed,
			 * outputPadding, const int64_t groups, output, int8_t cubeMathType, ...): hicann/ops-nn
			 * conv/convolution_forward/docs/aclnnConvolution.md */
			e = ((ws_conv)f)(t[1], t[2], t[3], arr[0], arr[1], arr[2], a->flag != 0, arr[3], a->i[0], t[0],
					 (int8_t)a->i[1], &wsn, &ex);
			break;
		}
		/* aclnnConvolutionBackwardGetWorkspaceSize(gradOutput, input, weight, const aclIntArray *biasSizes,
		 * stride, padding, dilation, bool transposed, outputPadding, int groups, const aclBoolArray
		 * *outputMask, int8_t cubeMathType, gradInput, gradWeight, gradBias, ...): hicann/ops-nn
		 * conv/convolution_backward/docs/aclnnConvolutionBackward.md */
		bool m[3] = {a->ext[12] != 0, a->ext[13] != 0, a->ext[14] != 0};
		if (!acl.CreateBoolArray || !acl.DestroyBoolArray) {
			r = shim_error(st, MT_NPU_ENOSYM, "aclCreateBoolArray is not in libnnopbase");
			goto out;
		}
		mask = acl.CreateBoolArray(m, 3);
		if (a->ext[15] >= 0) arr[4] = acl.CreateIntArray(&a->ext[15], 1);
		e = ((ws_conv_bwd)f)(t[3], t[4], t[5], arr[4], arr[0], arr[1], arr[2], a->flag != 0, arr[3], (int)a->i[0], mask,
				     (int8_t)a->i[1], t[0], t[1], t[2], &wsn, &ex);
		break;
	}
	/* ---- more ops ---- */
	case MT_NPU_DOT: case MT_NPU_MASKED_SELECT:
		/* aclnnDotGetWorkspaceSize(self, tensor, out, ...): hicann/ops-math math/dot/op_api/aclnn_dot.cpp;
		 * aclnnMaskedSelectGetWorkspaceSize(self, mask, out, ...): hicann/ops-math
		 * conversion/masked_select_v3/op_api/aclnn_masked_select.cpp */
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	case MT_NPU_CUMPROD: {
		/* aclnnCumprodGetWorkspaceSize(input, const aclScalar *dim, const aclDataType dtype, out, ...): hicann/ops-math
		 * math/cumprod/op_api/aclnn_cumprod.cpp; dim an INT32 or INT64 scalar (CheckDtypeValid), dtype out's */
		int32_t d = (int32_t)a->i[0];
		s[0] = acl.CreateScalar(&d, ACL_INT32);
		e = ((ws_t_s_d_t)f)(t[1], s[0], a->dtype, t[0], &wsn, &ex);
		break;
	}
	case MT_NPU_SEARCHSORTED:
		/* aclnnSearchSortedGetWorkspaceSize(sortedSequence, self, const bool outInt32, const bool right, sorter, out,
		 * ...): hicann/ops-math math/search_sorted/op_api/aclnn_searchsorted.cpp; no sorter (NULL) */
		e = ((ws_t_t_b_b_t_t)f)(t[1], t[2], a->i[0] != 0, a->flag != 0, NULL, t[0], &wsn, &ex);
		break;
	case MT_NPU_NONZERO:
		/* aclnnNonzeroGetWorkspaceSize(self, out, ...): hicann/ops-nn index/non_zero/docs/aclnnNonzero.md; out is
		 * allocated at the largest size (every element nonzero), as the doc requires */
		e = ((ws_t_t)f)(t[1], t[0], &wsn, &ex);
		break;
	/* ---- norm ops ---- */
	case MT_NPU_LAYER_NORM:
		/* aclnnLayerNormGetWorkspaceSize(input, const aclIntArray *normalizedShape, weightOptional, biasOptional,
		 * double eps, out, meanOutOptional, rstdOutOptional, ...): hicann/ops-nn
		 * norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp */
		dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
		e = ((ws_ln)f)(t[3], dims, t[4], t[5], a->f[0], t[0], t[1], t[2], &wsn, &ex);
		break;
	case MT_NPU_GROUP_NORM:
		/* aclnnGroupNormGetWorkspaceSize(self, gamma, beta, int64_t N, int64_t C, int64_t HxW, int64_t group, double
		 * eps, out, meanOut, rstdOut, ...): hicann/ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.cpp */
		e = ((ws_gn)f)(t[3], t[4], t[5], a->i[0], a->i[1], a->i[2], a->i[3], a->f[0], t[0], t[1], t[2], &wsn, &ex);
		break;
	case MT_NPU_LAYER_NORM_BACKWARD: case MT_NPU_GROUP_NORM_BACKWARD: {
		bool m[3] = {a->ext[0] != 0, a->ext[1] != 0, a->ext[2] != 0};
		if (!acl.CreateBoolArray || !acl.DestroyBoolArray) {
			r = shim_error(st, MT_NPU_ENOSYM, "aclCreateBoolArray is not in libnnopbase");
			goto out;
		}
		mask = acl.CreateBoolArray(m, 3);
		if (op == MT_NPU_LAYER_NORM_BACKWARD) {
			/* aclnnLayerNormBackwardGetWorkspaceSize(gradOut, input, const aclIntArray *normalizedShape, mean, rstd,
			 * weightOptional, biasOptional, const aclBoolArray *outputMask, gradInputOut, gradWeightOut,
			 * gradBiasOut, ...): hicann/ops-nn norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.cpp */
			dims = acl.CreateIntArray(a->i, (uint64_t)a->ni);
			e = ((ws_ln_bwd)f)(t[3], t[4], dims, t[5], t[6], t[7], t[8], mask, t[0], t[1], t[2], &wsn, &ex);
			break;
		}
		/* aclnnGroupNormBackwardGetWorkspaceSize(gradOut, input, mean, rstd, gamma, int64_t N, int64_t C, int64_t HxW,
		 * int64_t group, const aclBoolArray *outputMask, gradInput, gradGammaOut, gradBetaOut, ...): hicann/ops-nn
		 * norm/group_norm_grad/op_host/op_api/aclnn_group_norm_backward.cpp */
		e = ((ws_gn_bwd)f)(t[3], t[4], t[5], t[6], t[7], a->i[0], a->i[1], a->i[2], a->i[3], mask, t[0], t[1], t[2], &wsn, &ex);
		break;
	}
	/* ---- pool ops ---- */
	case MT_NPU_AVG_POOL2D: case MT_NPU_AVG_POOL2D_BACKWARD:
		for (int k = 0; k < 3; k++) arr[k] = acl.CreateIntArray(&a->ext[2 * k], 2);
		if (op == MT_NPU_AVG_POOL2D) {
			/* aclnnAvgPool2dGetWorkspaceSize(self, kernelSize, strides, paddings, const bool ceilMode, const bool
			 * countIncludePad, const int64_t divisorOverride, const int8_t cubeMathType, out, ...): hicann/ops-nn
			 * pooling/avg_pool3_d/docs/aclnnAvgPool2d.md, op_api/aclnn_avgpool2d.cpp */
			e = ((ws_avg_pool)f)(t[1], arr[0], arr[1], arr[2], a->flag != 0, a->i[0] != 0, a->i[1], (int8_t)a->i[2], t[0],
					     &wsn, &ex);
			break;
		}
		/* aclnnAvgPool2dBackwardGetWorkspaceSize(gradOutput, self, kernelSize, stride, padding, bool ceilMode, bool
		 * countIncludePad, int64_t divisorOverride, int8_t cubeMathType, gradInput, ...): hicann/ops-nn
		 * pooling/avg_pool3_d_grad/docs/aclnnAvgPool2dBackward.md, op_api/aclnn_avgpool2d_backward.cpp */
		e = ((ws_avg_pool_bwd)f)(t[1], t[2], arr[0], arr[1], arr[2], a->flag != 0, a->i[0] != 0, a->i[1], (int8_t)a->i[2], t[0],
					 &wsn, &ex);
		break;
	case MT_NPU_ADAPTIVE_AVG_POOL2D:
		/* aclnnAdaptiveAvgPool2dGetWorkspaceSize(self, const aclIntArray *outputSize, out, ...): hicann/ops-nn
		 * pooling/adaptive_avg_pool3d/docs/aclnnAdaptiveAvgPool2d.md */
		arr[0] = acl.CreateIntArray(a->ext, 2);
		e = ((ws_t_a_t)f)(t[1], arr[0], t[0], &wsn, &ex);
		break;
	case MT_NPU_ADAPTIVE_AVG_POOL2D_BACKWARD:
		/* aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(gradOutput, self, out, ...): hicann/ops-nn
		 * pooling/adaptive_avg_pool3d_grad/op_host/op_api/aclnn_adaptive_avg_pool2d_backward.cpp */
		e = ((ws_t_t_t)f)(t[1], t[2], t[0], &wsn, &ex);
		break;
	/* ---- creation ops ---- */
	case MT_NPU_ARANGE:
		/* aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end, const aclScalar *step, out, ...):
		 * hicann/ops-math math/range/op_host/op_api/aclnn_arange.cpp, docs/aclnnArange.md */
		s[0] = scalar(a, 0), s[1] = scalar(a, 1), s[2] = arange_end(a);
		e = ((ws_s_s_s_t)f)(s[0], s[2], s[1], t[0], &wsn, &ex);
		break;
	case MT_NPU_LINSPACE:
		/* aclnnLinspaceGetWorkspaceSize(const aclScalar *start, const aclScalar *end, int64_t steps, out, ...):
		 * hicann/ops-math math/lin_space/op_host/op_api/aclnn_linspace.cpp, docs/aclnnLinspace.md */
		s[0] = scalar(a, 0), s[1] = scalar(a, 1);
		e = ((ws_s_s_i_t)f)(s[0], s[1], a->i[0], t[0], &wsn, &ex);
		break;
	/* ---- svd ---- */
	case MT_NPU_SVD:
		/* aclnnSvdGetWorkspaceSize(input, const bool fullMatrices, const bool computeUV, sigma, u, v, ...):
		 * hicann/ops-math math/svd/op_host/op_api/aclnn_svd.cpp, docs/aclnnSvd.md; v is V (input = U diag(sigma) V^T) */
		e = ((ws_svd)f)(t[3], a->flag != 0, a->i[0] != 0, t[0], t[1], t[2], &wsn, &ex);
		break;
	/* ---- random ops ---- (prototypes: hicann/ops-math random/dsa_random_uniform/op_host/op_api/aclnn_uniform.cpp,
	 * aclnn_random.cpp; random/dsa_random_normal/docs/aclnnInplaceNormal.md; random/stateless_bernoulli/docs/
	 * aclnnBernoulli&aclnnInplaceBernoulli.md, aclnnBernoulliTensor&aclnnInplaceBernoulliTensor.md. The seed and
	 * offset are the generator's, as op-plugin's UniformKernelNpuOpApi.cpp passes them.) */
	case MT_NPU_INPLACE_UNIFORM:
		e = ((ws_uniform)f)(t[0], a->f[0], a->f[1], (uint64_t)a->i[0], (uint64_t)a->i[1], &wsn, &ex);
		break;
	case MT_NPU_INPLACE_NORMAL:
		e = ((ws_normal)f)(t[0], (float)a->f[0], (float)a->f[1], a->i[0], a->i[1], &wsn, &ex);
		break;
	case MT_NPU_INPLACE_RANDOM:
		e = ((ws_random)f)(t[0], a->si[0], a->si[1], a->i[0], a->i[1], &wsn, &ex);
		break;
	case MT_NPU_INPLACE_BERNOULLI:
		s[0] = scalar(a, 0);
		e = ((ws_bernoulli)f)(t[0], s[0], a->i[0], a->i[1], &wsn, &ex);
		break;
	case MT_NPU_BERNOULLI_TENSOR:
		e = ((ws_bernoulli_tensor)f)(t[1], t[2], a->i[0], a->i[1], t[0], &wsn, &ex);
		break;
	default: /* the unary ops */
		e = ((ws_t_t)f)(t[1], t[0], &wsn, &ex);
	}
	if ((r = report(st, e, what))) goto out;
	void *wsp = NULL;
	if (wsn > 0 && (r = workspace(dev, stream_of(dev, stream), wsn, &wsp, st))) {
		discard(ex, st);
		goto out;
	}
	if ((r = report(st, op_exec[op](wsp, wsn, ex, stream_of(dev, stream)), ops[op].name))) goto out;
	if (blocking) r = report(st, acl.SynchronizeStream(stream_of(dev, stream)), "aclrtSynchronizeStream");
out:
	/* Descriptors are host-side: destroyed as soon as the launch returns. */
	for (int i = 0; i < nt; i++)
		if (t[i]) acl.DestroyTensor(t[i]);
	for (int i = 0; i < 3; i++)
		if (s[i]) acl.DestroyScalar(s[i]);
	if (dims) acl.DestroyIntArray(dims);
	/* ---- nn and indexing ops ---- */
	for (int i = 0; i < 5; i++)
		if (arr[i]) acl.DestroyIntArray(arr[i]);
	if (list) acl.DestroyTensorList(list);
	if (mask) acl.DestroyBoolArray(mask);
	LEAVE(r);
}

/* mt_npu_emulator_counters reads n counters of the test emulator (see
 * csrc/testing), found through the runtime's handle (its core object is a
 * dependency); it returns 0 when the loaded runtime is not the emulator. */
int mt_npu_emulator_counters(long long *out, int n) {
	void (*f)(long long *, int) = libs[0] ? (void (*)(long long *, int))dlsym(libs[0], "mtemu_counters") : NULL;
	if (!f) return 0;
	f(out, n);
	return 1;
}
