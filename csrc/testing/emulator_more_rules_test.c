/*
 * Checks that the CANN emulator's more ops (emu_more_ops.inc: dot, cumprod,
 * searchsorted, nonzero, masked_select) refuse what their op_api sources
 * refuse (161001, 161002) and compute as PyTorch does. Linked as
 * emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The helpers are those of
 * emulator_nn_rules_test.c.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclOpExecutor aclOpExecutor;

int aclInit(const char *);
const char *aclGetRecentErrMsg(void);
int aclrtSetDevice(int);
int aclrtCreateStream(void **);
int aclrtDestroyStream(void *);
int aclrtSynchronizeStream(void *);
int aclrtMalloc(void **, size_t, int);
int aclrtFree(void *);
int aclrtMemcpy(void *, size_t, const void *, size_t, int);
aclTensor *aclCreateTensor(const int64_t *, uint64_t, int, const int64_t *, int64_t, int, const int64_t *, uint64_t, void *);
int aclDestroyTensor(const aclTensor *);
aclScalar *aclCreateScalar(void *, int);
int aclDestroyScalar(const aclScalar *);
aclIntArray *aclCreateIntArray(const int64_t *, uint64_t);
int aclDestroyIntArray(const aclIntArray *);
aclTensorList *aclCreateTensorList(const aclTensor *const *, uint64_t);
int aclDestroyTensorList(const aclTensorList *);
aclBoolArray *aclCreateBoolArray(const bool *, uint64_t);
int aclDestroyBoolArray(const aclBoolArray *);
void mtemu_counters(long long *out, int n);

#define OP(Name, ...)                                                                                              \
	int aclnn##Name##GetWorkspaceSize(__VA_ARGS__, uint64_t *, aclOpExecutor **);                               \
	int aclnn##Name(void *, uint64_t, aclOpExecutor *, void *);
typedef const aclTensor *T;
typedef const aclIntArray *A;
OP(Dot, T, T, aclTensor *)
OP(Cumprod, T, const aclScalar *, int, aclTensor *)
OP(SearchSorted, T, T, bool, bool, T, aclTensor *)
OP(Nonzero, T, aclTensor *)
OP(MaskedSelect, T, T, aclTensor *)

enum { ALLOCS, BYTES, TENSORS, SCALARS, ARRAYS, EXECUTORS, STREAMS, LAUNCHES, MALLOCS, EVENTS, MISUSES, NCOUNTERS };
enum { F32 = 0, F16 = 1, I8 = 2, I32 = 3, U8 = 4, I64 = 9, F64 = 11, BOOL = 12, BF16 = 27 };
enum { ND = 2, NCHW = 0 };

static int failures;
#define CHECK(cond, what)                                                                                          \
	do {                                                                                                       \
		if (!(cond)) {                                                                                     \
			printf("FAIL %s (line %d)\n", what, __LINE__);                                             \
			failures++;                                                                                \
		}                                                                                                  \
	} while (0)

static long long counter(int which) {
	long long c[NCOUNTERS];
	mtemu_counters(c, NCOUNTERS);
	return c[which];
}

static void *stream;
static void *bufs[256];
static aclTensor *tensors[256];
static int nbufs, ntensors;

static size_t size_of(int dt) { return dt == I64 || dt == F64 ? 8 : dt == BOOL || dt == I8 || dt == U8 ? 1 : dt == F16 || dt == BF16 ? 2 : 4; }

/* ten makes a contiguous device tensor of dtype dt, shape (nd dims) and
 * format fmt holding src (or zeros). */
static aclTensor *ten(int dt, int nd, const int64_t *shape, int fmt, const void *src) {
	int64_t n = 1, stride[8];
	for (int i = nd - 1; i >= 0; i--) stride[i] = n, n *= shape[i];
	size_t bytes = (size_t)(n ? n : 1) * size_of(dt);
	void *p = NULL;
	aclrtMalloc(&p, bytes, 0);
	void *z = calloc(1, bytes);
	aclrtMemcpy(p, bytes, src ? src : z, bytes, 1);
	free(z);
	int64_t storage = n ? n : 1;
	aclTensor *t = aclCreateTensor(shape, (uint64_t)nd, dt, stride, 0, fmt, &storage, 1, p);
	bufs[nbufs++] = p;
	tensors[ntensors++] = t;
	return t;
}
#define T1(dt, n, ...) ten(dt, 1, (int64_t[]){n}, ND, __VA_ARGS__)
#define T2(dt, a, b, ...) ten(dt, 2, (int64_t[]){a, b}, ND, __VA_ARGS__)

/* read reads the first n bytes of the tensor t made by ten. */
static void read(const aclTensor *t, void *dst, size_t n) {
	for (int i = 0; i < ntensors; i++)
		if (tensors[i] == t) aclrtMemcpy(dst, n, bufs[i], n, 2);
}

static void free_all(void) {
	for (int i = 0; i < ntensors; i++)
		if (tensors[i]) aclDestroyTensor(tensors[i]);
	for (int i = 0; i < nbufs; i++) aclrtFree(bufs[i]);
	nbufs = ntensors = 0;
}

/* REFUSED checks that the first phase of Name answers code and leaves no
 * executor. */
#define REFUSED(code, what, Name, ...)                                                                             \
	do {                                                                                                       \
		uint64_t ws_ = 0;                                                                                  \
		aclOpExecutor *ex_ = NULL;                                                                         \
		long long e0_ = counter(EXECUTORS);                                                                \
		CHECK(aclnn##Name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_) == (code), what);                     \
		CHECK(counter(EXECUTORS) == e0_, what ": no executor left");                                       \
		aclGetRecentErrMsg();                                                                              \
	} while (0)

/* RUN runs Name and synchronizes, expecting sync from the synchronize. */
#define RUNS(sync, Name, ...)                                                                                      \
	do {                                                                                                       \
		uint64_t ws_ = 0;                                                                                  \
		aclOpExecutor *ex_ = NULL;                                                                         \
		void *w_ = NULL;                                                                                   \
		CHECK(aclnn##Name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_) == 0, #Name ": workspace size");      \
		if (ws_) aclrtMalloc(&w_, ws_, 0);                                                                 \
		CHECK(aclnn##Name(w_, ws_, ex_, stream) == 0, #Name ": launch");                                   \
		CHECK(aclrtSynchronizeStream(stream) == (sync), #Name ": synchronize");                            \
		aclGetRecentErrMsg();                                                                              \
		if (w_) aclrtFree(w_);                                                                             \
	} while (0)
#define RUN(Name, ...) RUNS(0, Name, __VA_ARGS__)

#define T0(dt, ...) ten(dt, 0, (int64_t[]){1}, ND, __VA_ARGS__)

static void dot(void) {
	float r = 0;
	aclTensor *o = T0(F32, NULL);
	RUN(Dot, T1(F32, 3, (float[]){1, 2, 3}), T1(F32, 3, (float[]){4, -5, 0.5f}), o);
	read(o, &r, 4);
	CHECK(r == -4.5f, "dot of float32");
	RUN(Dot, T1(F32, 0, NULL), T1(F32, 0, NULL), o);
	read(o, &r, 4);
	CHECK(r == 0, "dot of empty tensors is 0");
	int8_t i8 = 0;
	aclTensor *oi = T0(I8, NULL);
	RUN(Dot, T1(I8, 2, (int8_t[]){100, 100}), T1(I8, 2, (int8_t[]){1, 1}), oi);
	read(oi, &i8, 1);
	CHECK(i8 == (int8_t)200, "dot of int8 wraps");
	REFUSED(161002, "dot takes no DOUBLE", Dot, T1(F64, 2, NULL), T1(F64, 2, NULL), T0(F64, NULL));
	REFUSED(161002, "dot needs one dtype", Dot, T1(F32, 2, NULL), T1(I32, 2, NULL), o);
	REFUSED(161002, "dot takes 1-D inputs", Dot, T2(F32, 1, 2, NULL), T1(F32, 2, NULL), o);
	REFUSED(161002, "dot takes inputs of one length", Dot, T1(F32, 2, NULL), T1(F32, 3, NULL), o);
	REFUSED(161002, "dot's out is 0-dim", Dot, T1(F32, 2, NULL), T1(F32, 2, NULL), T1(F32, 1, NULL));
	free_all();
}

static void cumprod(void) {
	int32_t d1 = 1, d2 = 2;
	double dd = 1;
	aclScalar *dim = aclCreateScalar(&d1, I32), *bad = aclCreateScalar(&d2, I32), *fdim = aclCreateScalar(&dd, F64);
	float got[6];
	aclTensor *in = T2(F32, 2, 3, (float[]){1, 2, 3, -1, NAN, 2}), *o = T2(F32, 2, 3, NULL);
	RUN(Cumprod, in, dim, F32, o);
	read(o, got, 24);
	CHECK(got[1] == 2 && got[2] == 6 && got[3] == -1 && isnan(got[4]) && isnan(got[5]), "cumprod along dim 1, NaN on");
	int64_t ig[3];
	aclTensor *oi = T1(I64, 3, NULL);
	int32_t d0 = 0;
	aclScalar *dim0 = aclCreateScalar(&d0, I32);
	RUN(Cumprod, T1(I8, 3, (int8_t[]){16, 16, 2}), dim0, I64, oi);
	read(oi, ig, 24);
	CHECK(ig[1] == 256 && ig[2] == 512, "cumprod casts to dtype first");
	REFUSED(161002, "cumprod: dim out of range", Cumprod, in, bad, F32, o);
	REFUSED(161002, "cumprod: dim is an integer scalar", Cumprod, in, fdim, F32, o);
	REFUSED(161002, "cumprod: dtype is out's", Cumprod, in, dim, F64, o);
	REFUSED(161002, "cumprod: out has input's shape", Cumprod, in, dim, F32, T2(F32, 3, 2, NULL));
	REFUSED(161002, "cumprod takes no BOOL", Cumprod, T1(BOOL, 2, NULL), dim, BOOL, T1(BOOL, 2, NULL));
	REFUSED(161001, "cumprod: dim must not be NULL", Cumprod, in, NULL, F32, o);
	aclDestroyScalar(dim), aclDestroyScalar(bad), aclDestroyScalar(fdim), aclDestroyScalar(dim0);
	free_all();
}

static void searchsorted(void) {
	int64_t got[4];
	aclTensor *seq = T1(F32, 4, (float[]){1, 2, 2, NAN}), *v = T1(F32, 4, (float[]){2, 0, 3, NAN}), *o = T1(I64, 4, NULL);
	RUN(SearchSorted, seq, v, false, false, NULL, o);
	read(o, got, 32);
	CHECK(got[0] == 1 && got[1] == 0 && got[2] == 4 && got[3] == 4, "searchsorted, left (NaN is passed, as PyTorch's !(a >= v))");
	RUN(SearchSorted, seq, v, false, true, NULL, o);
	read(o, got, 32);
	CHECK(got[0] == 4 && got[1] == 0 && got[2] == 4 && got[3] == 4, "searchsorted, right");
	int32_t g32[4];
	aclTensor *seq2 = T2(I32, 2, 2, (int32_t[]){0, 5, 10, 20}), *v2 = T2(I32, 2, 2, (int32_t[]){5, 6, 5, 30}), *o32 = T2(I32, 2, 2, NULL);
	RUN(SearchSorted, seq2, v2, true, false, NULL, o32);
	read(o32, g32, 16);
	CHECK(g32[0] == 1 && g32[1] == 2 && g32[2] == 0 && g32[3] == 2, "searchsorted row by row, INT32 out");
	REFUSED(161002, "searchsorted: out's dtype is outInt32's", SearchSorted, seq, v, true, false, NULL, o);
	REFUSED(161002, "searchsorted: out has self's shape", SearchSorted, seq, v, false, false, NULL, T1(I64, 3, NULL));
	REFUSED(161002, "searchsorted: leading dims match", SearchSorted, seq2, T2(I32, 3, 2, NULL), true, false, NULL, T2(I32, 3, 2, NULL));
	REFUSED(161002, "searchsorted takes no BOOL", SearchSorted, T1(BOOL, 2, NULL), T1(BOOL, 2, NULL), false, false, NULL, T1(I64, 2, NULL));
	REFUSED(161002, "searchsorted: a [1] self needs a 1-D sequence", SearchSorted, seq2, T1(I32, 1, NULL), true, false, NULL, T1(I32, 1, NULL));
	free_all();
}

static void nonzero_and_masked_select(void) {
	int64_t got[8] = {0};
	aclTensor *x = T2(F32, 2, 2, (float[]){0, -0.0f, NAN, 3}), *o = T2(I64, 4, 2, NULL);
	RUN(Nonzero, x, o);
	read(o, got, 64);
	CHECK(got[0] == 1 && got[1] == 0 && got[2] == 1 && got[3] == 1, "nonzero: NaN is nonzero, -0.0 is not");
	REFUSED(161002, "nonzero's out is the largest output", Nonzero, x, T2(I64, 2, 2, NULL));
	REFUSED(161002, "nonzero's out is INT64", Nonzero, x, T2(I32, 4, 2, NULL));
	float sel[4] = {0};
	aclTensor *m = T1(BOOL, 2, (bool[]){false, true}), *os = T1(F32, 4, NULL);
	RUN(MaskedSelect, T2(F32, 2, 2, (float[]){1, 2, 3, 4}), m, os);
	read(os, sel, 16);
	CHECK(sel[0] == 2 && sel[1] == 4, "masked_select broadcasts the mask");
	REFUSED(161002, "masked_select's out has the broadcast size", MaskedSelect, x, m, T1(F32, 3, NULL));
	REFUSED(161002, "masked_select's mask is BOOL or UINT8", MaskedSelect, x, T1(F32, 2, NULL), os);
	REFUSED(161002, "masked_select: shapes broadcast", MaskedSelect, x, T1(BOOL, 3, NULL), T1(F32, 6, NULL));
	free_all();
}

int main(void) {
	CHECK(aclInit(NULL) == 0, "aclInit");
	CHECK(aclrtSetDevice(0) == 0, "aclrtSetDevice(0)");
	CHECK(aclrtCreateStream(&stream) == 0, "aclrtCreateStream");
	dot();
	cumprod();
	searchsorted();
	nonzero_and_masked_select();
	CHECK(aclrtDestroyStream(stream) == 0, "aclrtDestroyStream");
	long long c[NCOUNTERS];
	mtemu_counters(c, NCOUNTERS);
	CHECK(c[ALLOCS] == 0 && c[TENSORS] == 0 && c[SCALARS] == 0 && c[ARRAYS] == 0 && c[EXECUTORS] == 0,
	      "counters: nothing live at the end");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}
