/*
 * Checks that the CANN emulator enforces the rules it claims (see
 * acl_emulator.c), and that its arithmetic is exact per dtype at the integer
 * extremes, by calling its symbols directly (linked to libascendcl.so,
 * libnnopbase.so, libopapi.so and the core; the other libraries, in the
 * directory given as the argument, are opened with dlopen). Built and run
 * by internal/npuemu's tests, also under AddressSanitizer and UBSan; prints
 * the failed checks and exits non-zero.
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
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
int aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *, const aclScalar *, uint64_t *, aclOpExecutor **);
int aclnnInplaceFillScalar(void *, uint64_t, aclOpExecutor *, void *);
void mtemu_counters(long long *out, int n);
int aclrtCreateEvent(void **);
int aclrtDestroyEvent(void *);
int aclrtRecordEvent(void *, void *);
int aclrtStreamWaitEvent(void *, void *);
int aclrtSynchronizeEvent(void *);
int aclrtQueryEventStatus(void *, int *);
int aclrtQueryEventWaitStatus(void *, int *);
int aclrtSynchronizeDevice(void);
int aclSetAclOpExecutorRepeatable(aclOpExecutor *);
int aclDestroyAclOpExecutor(aclOpExecutor *);

/* The counters of mtemu_counters. */
enum { ALLOCS, BYTES, TENSORS, SCALARS, ARRAYS, EXECUTORS, STREAMS, LAUNCHES, MALLOCS, EVENTS, MISUSES, NCOUNTERS };

static long long counter(int which) {
	long long c[NCOUNTERS];
	mtemu_counters(c, NCOUNTERS);
	return c[which];
}

/* the ops of the integer-extremes checks */
typedef struct aclIntArray aclIntArray;
aclIntArray *aclCreateIntArray(const int64_t *, uint64_t);
int aclDestroyIntArray(const aclIntArray *);
#define OP(Name, ...)                                                                                              \
	int aclnn##Name##GetWorkspaceSize(__VA_ARGS__, uint64_t *, aclOpExecutor **);                               \
	int aclnn##Name(void *, uint64_t, aclOpExecutor *, void *);
OP(Neg, const aclTensor *, aclTensor *)
OP(Abs, const aclTensor *, aclTensor *)
OP(Add, const aclTensor *, const aclTensor *, const aclScalar *, aclTensor *)
OP(Mul, const aclTensor *, const aclTensor *, aclTensor *)
OP(Div, const aclTensor *, const aclTensor *, aclTensor *)
OP(PowTensorScalar, const aclTensor *, const aclScalar *, aclTensor *)
OP(Clamp, const aclTensor *, const aclScalar *, const aclScalar *, aclTensor *)
OP(ReduceSum, const aclTensor *, const aclIntArray *, bool, int, aclTensor *)
OP(Cast, const aclTensor *, int, aclTensor *)
OP(GtScalar, const aclTensor *, const aclScalar *, aclTensor *)
OP(EqTensor, const aclTensor *, const aclTensor *, aclTensor *)
OP(Softmax, const aclTensor *, int64_t, aclTensor *)
OP(Muls, const aclTensor *, const aclScalar *, aclTensor *)
OP(Gelu, const aclTensor *, aclTensor *)
OP(GeluV2, const aclTensor *, int64_t, aclTensor *)
OP(Matmul, const aclTensor *, const aclTensor *, aclTensor *, int8_t)
OP(Mean, const aclTensor *, const aclIntArray *, bool, int, aclTensor *)
OP(Amax, const aclTensor *, const aclIntArray *, bool, aclTensor *)
OP(Relu, const aclTensor *, aclTensor *)

static int failures;
#define CHECK(cond, what)                                                                                          \
	do {                                                                                                       \
		if (!(cond)) {                                                                                     \
			printf("FAIL %s (line %d)\n", what, __LINE__);                                             \
			failures++;                                                                                \
		}                                                                                                  \
	} while (0)

static void *no_context(void *arg) {
	(void)arg;
	void *p = NULL;
	int e = aclrtMalloc(&p, 64, 0);
	CHECK(e == 107002, "a thread without a current context is refused (107002)");
	CHECK(aclGetRecentErrMsg() != NULL, "the refusal has a message");
	CHECK(aclGetRecentErrMsg() == NULL, "the message is cleared on read");
	return NULL;
}

/* ---- integer extremes: the arithmetic is exact per dtype ---- */

enum { F32 = 0, F16 = 1, I32 = 3, U8 = 4, I64 = 9, F64 = 11, BOOL = 12, BF16 = 27 };

static void *stream;
static void *bufs[128];
static aclTensor *tensors[128];
static int nbufs, ntensors;

/* vec makes a 1-D device tensor of n elements of dtype dt (size bytes
 * each), holding src (or poison when src is NULL). */
static aclTensor *vec(int dt, size_t size, int64_t n, const void *src) {
	void *p = NULL;
	aclrtMalloc(&p, (size_t)n * size, 0);
	if (src) aclrtMemcpy(p, (size_t)n * size, src, (size_t)n * size, 1);
	int64_t shape[1] = {n}, stride[1] = {1}, storage = n;
	aclTensor *t = aclCreateTensor(shape, 1, dt, stride, 0, 2, &storage, 1, p);
	bufs[nbufs++] = p;
	tensors[ntensors++] = t;
	return t;
}

/* data reads back the n bytes of the last-but-k tensor made by vec. */
static void data(int k, void *dst, size_t n) { aclrtMemcpy(dst, n, bufs[nbufs - 1 - k], n, 2); }

/* RUN runs op Name with the arguments of its first phase and synchronizes. */
#define RUN(Name, ...)                                                                                             \
	do {                                                                                                       \
		uint64_t ws_ = 0;                                                                                  \
		aclOpExecutor *ex_ = NULL;                                                                         \
		void *w_ = NULL;                                                                                   \
		CHECK(aclnn##Name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_) == 0, #Name ": workspace size");      \
		if (ws_) aclrtMalloc(&w_, ws_, 0);                                                                 \
		CHECK(aclnn##Name(w_, ws_, ex_, stream) == 0, #Name ": launch");                                   \
		CHECK(aclrtSynchronizeStream(stream) == 0, #Name ": synchronize");                                 \
		if (w_) aclrtFree(w_);                                                                             \
	} while (0)

static void integer_extremes(void) {
	const int64_t MAX = INT64_MAX, MIN = INT64_MIN;
	int64_t x[4] = {MAX, MIN, -3, 5}, near[4] = {MAX - 1, MIN + 1, -3, 6}, got[4];
	int64_t one = 1, three = 3, big = MAX - 1, minus2 = -2, minus1 = -1;
	aclScalar *s_one = aclCreateScalar(&one, I64), *s_three = aclCreateScalar(&three, I64), *s_big = aclCreateScalar(&big, I64),
		  *s_m2 = aclCreateScalar(&minus2, I64), *s_m1 = aclCreateScalar(&minus1, I64);
	aclTensor *a = vec(I64, 8, 4, x), *b = vec(I64, 8, 4, near), *o;

	o = vec(I64, 8, 4, NULL);
	RUN(Neg, a, o);
	data(0, got, sizeof got);
	CHECK(got[0] == -MAX && got[1] == MIN && got[2] == 3 && got[3] == -5, "int64 neg wraps: -INT64_MIN is INT64_MIN");
	RUN(Abs, a, o);
	data(0, got, sizeof got);
	CHECK(got[0] == MAX && got[1] == MIN && got[2] == 3 && got[3] == 5, "int64 abs wraps: |INT64_MIN| is INT64_MIN");
	RUN(Add, a, a, s_one, o);
	data(0, got, sizeof got);
	CHECK(got[0] == -2 && got[1] == 0 && got[2] == -6 && got[3] == 10, "int64 add wraps");
	RUN(Mul, a, a, o);
	data(0, got, sizeof got);
	CHECK(got[0] == 1 && got[1] == 0 && got[2] == 9 && got[3] == 25, "int64 mul wraps");
	RUN(PowTensorScalar, a, s_three, o);
	data(0, got, sizeof got);
	CHECK(got[0] == MAX && got[1] == 0 && got[2] == -27 && got[3] == 125, "int64 pow is repeated multiplication, wrapping");
	RUN(PowTensorScalar, a, s_m1, o);
	data(0, got, sizeof got);
	CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0, "int64 pow with a negative exponent is 0 (base not +-1)");

	o = vec(I64, 8, 1, NULL);
	int64_t dim = 0;
	aclIntArray *dims = aclCreateIntArray(&dim, 1);
	RUN(ReduceSum, a, dims, true, I64, o);
	aclDestroyIntArray(dims);
	data(0, got, 8);
	CHECK(got[0] == 1, "int64 sum wraps: INT64_MAX + INT64_MIN - 3 + 5 is 1");

	uint8_t flags[4];
	o = vec(BOOL, 1, 4, NULL);
	RUN(GtScalar, a, s_big, o);
	data(0, flags, 4);
	CHECK(flags[0] == 1 && flags[1] == 0 && flags[2] == 0 && flags[3] == 0, "int64 compare with a scalar is exact: INT64_MAX > INT64_MAX-1");
	RUN(EqTensor, a, b, o);
	data(0, flags, 4);
	CHECK(flags[0] == 0 && flags[1] == 0 && flags[2] == 1 && flags[3] == 0, "int64 compare is exact: INT64_MAX != INT64_MAX-1");

	float f[4];
	o = vec(F32, 4, 4, NULL);
	RUN(Div, a, b, o);
	data(0, f, sizeof f);
	CHECK(f[0] == 1 && f[1] == 1 && f[2] == 1 && f[3] == 5.0f / 6.0f, "int64 / int64 is true division in float32");
	int64_t ints[4] = {(1 << 24) + 1, (1 << 24) + 3, MAX, -((int64_t)1 << 53) - 1};
	aclTensor *c = vec(I64, 8, 4, ints);
	o = vec(F32, 4, 4, NULL);
	RUN(Cast, c, F32, o);
	data(0, f, sizeof f);
	CHECK(f[0] == 16777216.0f && f[1] == 16777220.0f && f[2] == 9223372036854775808.0f && f[3] == -9007199254740992.0f,
	      "int64 -> float32 casts round to nearest even");
	int64_t h[4] = {65504, 65519, 65520, -65520};
	uint16_t hb[4];
	c = vec(I64, 8, 4, h);
	o = vec(F16, 2, 4, NULL);
	RUN(Cast, c, F16, o);
	data(0, hb, sizeof hb);
	CHECK(hb[0] == 0x7BFF && hb[1] == 0x7BFF && hb[2] == 0x7C00 && hb[3] == 0xFC00, "int64 -> float16 casts round, +-inf past 65504");
	float fl[4] = {NAN, 3e9f, -3e9f, -2.7f};
	int32_t i32[4];
	c = vec(F32, 4, 4, fl);
	o = vec(I32, 4, 4, NULL);
	RUN(Cast, c, I32, o);
	data(0, i32, sizeof i32);
	CHECK(i32[0] == 0 && i32[1] == INT32_MAX && i32[2] == INT32_MIN && i32[3] == -2,
	      "float32 -> int32 casts truncate, NaN is 0, out of range saturates");
	int64_t wide[4] = {300, -1, 255, 256};
	uint8_t u8[4];
	c = vec(I64, 8, 4, wide);
	o = vec(U8, 1, 4, NULL);
	RUN(Cast, c, U8, o);
	data(0, u8, sizeof u8);
	CHECK(u8[0] == 44 && u8[1] == 255 && u8[2] == 255 && u8[3] == 0, "int64 -> uint8 casts wrap");

	int32_t x32[4] = {INT32_MAX, INT32_MIN, -3, 5}, got32[4];
	aclTensor *a32 = vec(I32, 4, 4, x32);
	o = vec(I32, 4, 4, NULL);
	RUN(Add, a32, a32, s_one, o);
	data(0, got32, sizeof got32);
	CHECK(got32[0] == -2 && got32[1] == 0 && got32[2] == -6 && got32[3] == 10, "int32 add wraps at 32 bits");
	RUN(Mul, a32, a32, o);
	data(0, got32, sizeof got32);
	CHECK(got32[0] == 1 && got32[1] == 0 && got32[2] == 9 && got32[3] == 25, "int32 mul wraps at 32 bits");
	RUN(PowTensorScalar, a32, s_three, o);
	data(0, got32, sizeof got32);
	CHECK(got32[0] == INT32_MAX && got32[1] == 0 && got32[2] == -27 && got32[3] == 125, "int32 pow wraps at 32 bits");

	uint8_t x8[4] = {255, 0, 5, 1}, got8[4];
	aclTensor *a8 = vec(U8, 1, 4, x8);
	o = vec(U8, 1, 4, NULL);
	RUN(Clamp, a8, s_m2, s_three, o);
	data(0, got8, sizeof got8);
	CHECK(got8[0] == 3 && got8[1] == 3 && got8[2] == 3 && got8[3] == 3,
	      "uint8 clamp converts the bounds to uint8 (-2 is 254), then max with min, min with max");

	uint16_t hx[2] = {0x6800, 0x3C00}, hs[1]; /* 2048 and 1 in float16 */
	aclTensor *ha = vec(F16, 2, 2, hx);
	o = vec(F16, 2, 1, NULL);
	dims = aclCreateIntArray(&dim, 1);
	RUN(ReduceSum, ha, dims, true, F16, o);
	aclDestroyIntArray(dims);
	data(0, hs, sizeof hs);
	CHECK(hs[0] == 0x6800, "float16 results are rounded to float16 (2048 + 1 is 2048)");

	aclDestroyScalar(s_one), aclDestroyScalar(s_three), aclDestroyScalar(s_big), aclDestroyScalar(s_m2), aclDestroyScalar(s_m1);
	for (int i = 0; i < ntensors; i++) aclDestroyTensor(tensors[i]);
	for (int i = 0; i < nbufs; i++) aclrtFree(bufs[i]);
}

/* ---- streams run at once; events; executors ---- */

/* message reports whether the last error message holds word. */
static int message(const char *word) {
	const char *m = aclGetRecentErrMsg();
	return m && strstr(m, word);
}

/* free_vecs destroys the tensors and frees the buffers vec made. */
static void free_vecs(void) {
	for (int i = 0; i < ntensors; i++) aclDestroyTensor(tensors[i]);
	for (int i = 0; i < nbufs; i++) aclrtFree(bufs[i]);
	nbufs = ntensors = 0;
}

static void streams_and_events(void) {
	void *a = NULL, *b = NULL, *w1 = NULL, *w2 = NULL, *ev = NULL;
	CHECK(aclrtCreateStream(&a) == 0 && aclrtCreateStream(&b) == 0, "two streams");
	aclrtMalloc(&w1, 1024, 0);
	aclrtMalloc(&w2, 1024, 0);
	float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[8] = {0}, got[8];
	aclTensor *x = vec(F32, 4, 8, ones), *ya = vec(F32, 4, 8, NULL), *yb = vec(F32, 4, 8, NULL);
	uint64_t ws = 0;
	aclOpExecutor *ex = NULL;

	/* Ops of two streams run at once: one workspace for both is caught. */
	long long misuses = counter(MISUSES);
	CHECK(aclnnSoftmaxGetWorkspaceSize(x, 0, ya, &ws, &ex) == 0 && ws > 0 && ws <= 1024 && aclnnSoftmax(w1, ws, ex, a) == 0,
	      "softmax on stream a");
	CHECK(aclnnSoftmaxGetWorkspaceSize(x, 0, yb, &ws, &ex) == 0 && aclnnSoftmax(w1, ws, ex, b) == 0, "softmax on stream b");
	CHECK(aclrtSynchronizeDevice() == 507015 && message("workspace"),
	      "a workspace two streams use at once is caught at the synchronize (507015)");
	CHECK(counter(MISUSES) == misuses + 1 && counter(EXECUTORS) == 0, "it is a misuse, and both executors are gone");
	CHECK(aclrtSynchronizeDevice() == 0, "the failure is reported once");
	CHECK(aclnnSoftmaxGetWorkspaceSize(x, 0, ya, &ws, &ex) == 0 && aclnnSoftmax(w1, ws, ex, a) == 0, "softmax on a, workspace 1");
	CHECK(aclnnSoftmaxGetWorkspaceSize(x, 0, yb, &ws, &ex) == 0 && aclnnSoftmax(w2, ws, ex, b) == 0, "softmax on b, workspace 2");
	CHECK(aclrtSynchronizeDevice() == 0, "a workspace per stream");
	aclrtMemcpy(got, sizeof got, bufs[2], sizeof got, 2);
	CHECK(got[0] == 0.125f && got[7] == 0.125f, "softmax of eight ones");

	/* Stream b reads what stream a writes: without an event wait it reads
	 * it before it is written. */
	float five = 5, two = 2;
	aclScalar *s5 = aclCreateScalar(&five, F32), *s2 = aclCreateScalar(&two, F32);
	aclTensor *z = vec(F32, 4, 8, zeros), *out = vec(F32, 4, 8, NULL);
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(z, s5, &ws, &ex) == 0 && aclnnInplaceFillScalar(NULL, 0, ex, a) == 0, "fill on a");
	CHECK(aclnnMulsGetWorkspaceSize(z, s2, out, &ws, &ex) == 0 && aclnnMuls(NULL, 0, ex, b) == 0, "muls on b");
	CHECK(aclrtSynchronizeDevice() == 0, "synchronize");
	aclrtMemcpy(got, sizeof got, bufs[nbufs - 1], sizeof got, 2);
	CHECK(got[0] == 0, "without an event wait, b read z before a wrote it");

	int st = -1;
	CHECK(aclrtCreateEvent(&ev) == 0, "aclrtCreateEvent");
	CHECK(aclrtQueryEventStatus(ev, &st) == 0 && st == 0, "an event never recorded is not complete (NOT_READY is 0)");
	CHECK(aclrtSynchronizeEvent(ev) == 0, "synchronizing an event never recorded returns at once");
	CHECK(aclrtQueryEventWaitStatus(ev, &st) == 0 && st == 0, "no stream waits on it (the wait status COMPLETE is 0)");
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(z, s2, &ws, &ex) == 0 && aclnnInplaceFillScalar(NULL, 0, ex, a) == 0, "fill on a");
	CHECK(aclrtRecordEvent(ev, a) == 0 && aclrtStreamWaitEvent(b, ev) == 0, "record on a, wait on b");
	CHECK(aclnnMulsGetWorkspaceSize(z, s2, out, &ws, &ex) == 0 && aclnnMuls(NULL, 0, ex, b) == 0, "muls on b");
	CHECK(aclrtSynchronizeStream(a) == 0, "synchronize a");
	CHECK(aclrtQueryEventStatus(ev, &st) == 0 && st == 1, "the recorded event is complete (COMPLETE is 1)");
	CHECK(aclrtQueryEventWaitStatus(ev, &st) == 0 && st == 1, "b has not passed its wait (the wait status NOT_READY is 1)");
	long long events = counter(EVENTS);
	misuses = counter(MISUSES);
	CHECK(aclrtDestroyEvent(ev) == 107000 && message("wait"), "an event a stream still waits on is not destroyed");
	CHECK(counter(EVENTS) == events && counter(MISUSES) == misuses + 1, "it stays live, and the misuse is counted");
	CHECK(aclrtSynchronizeStream(b) == 0, "synchronize b");
	aclrtMemcpy(got, sizeof got, bufs[nbufs - 1], sizeof got, 2);
	CHECK(got[0] == 4 && got[7] == 4, "with the wait, b read what a wrote");
	CHECK(aclrtQueryEventWaitStatus(ev, &st) == 0 && st == 0 && aclrtDestroyEvent(ev) == 0, "destroyed once b passed the wait");
	CHECK(counter(EVENTS) == events - 1, "no event left");

	/* An executor runs once: launched again after its run freed it, it is
	 * refused, not read after it was freed. */
	misuses = counter(MISUSES);
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(z, s5, &ws, &ex) == 0 && aclnnInplaceFillScalar(NULL, 0, ex, a) == 0, "fill");
	CHECK(aclrtSynchronizeStream(a) == 0, "the fill ran");
	CHECK(aclnnInplaceFillScalar(NULL, 0, ex, a) == 561103, "an executor that ran is gone");
	/* One that will not run is discarded: made repeatable, then destroyed. */
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(z, s5, &ws, &ex) == 0 && counter(EXECUTORS) == 1, "an executor");
	CHECK(aclDestroyAclOpExecutor(ex) == 561103, "a normal executor cannot be destroyed");
	CHECK(aclSetAclOpExecutorRepeatable(ex) == 0 && aclDestroyAclOpExecutor(ex) == 0, "a repeatable one can");
	CHECK(aclDestroyAclOpExecutor(ex) == 561103, "not twice");
	CHECK(counter(EXECUTORS) == 0 && counter(MISUSES) == misuses + 3, "no executor left, three misuses refused");

	/* aclrtFree does not wait: memory freed under queued work is caught. */
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(z, s5, &ws, &ex) == 0 && aclnnInplaceFillScalar(NULL, 0, ex, a) == 0, "fill");
	aclDestroyTensor(tensors[--ntensors]), aclDestroyTensor(tensors[--ntensors]); /* out and z */
	CHECK(aclrtFree(bufs[--nbufs]) == 0 && aclrtFree(bufs[--nbufs]) == 0, "free z under the queued fill");
	CHECK(aclrtSynchronizeStream(a) == 507015 && message("freed"), "the fill finds its memory freed (507015)");

	aclDestroyScalar(s5), aclDestroyScalar(s2);
	free_vecs();
	aclrtFree(w1), aclrtFree(w2);
	CHECK(aclrtDestroyStream(a) == 0 && aclrtDestroyStream(b) == 0, "destroy the streams");
	CHECK(counter(EXECUTORS) == 0 && counter(TENSORS) == 0 && counter(EVENTS) == 0, "nothing live");
}

/* libraries checks that each library exports its own symbols only, then
 * that loading a per-repository operator library next to libopapi.so
 * makes every op fail. */
static void libraries(const char *dir) {
	static const struct {
		const char *lib, *sym;
		int found;
	} cases[] = {
		{"libascendcl.so", "aclrtMalloc", 1},		{"libascendcl.so", "aclCreateTensor", 0},
		{"libascendcl.so", "aclnnAdd", 0},		{"libacl_rt.so", "aclrtQueryEventWaitStatus", 1},
		{"libnnopbase.so", "aclCreateTensor", 1},	{"libnnopbase.so", "aclDestroyAclOpExecutor", 1},
		{"libnnopbase.so", "aclrtMalloc", 0},		{"libnnopbase.so", "aclnnAdd", 0},
		{"libopapi_math.so", "aclnnAdd", 1},		{"libopapi_math.so", "aclnnAddGetWorkspaceSize", 1},
		{"libopapi_math.so", "aclnnSoftmax", 0},	{"libopapi_math.so", "aclCreateTensor", 0},
		{"libopapi_nn.so", "aclnnSoftmax", 1},		{"libopapi_nn.so", "aclnnAdd", 0},
		{"libopapi_nn.so", "aclrtMalloc", 0},		{"libopapi.so", "aclnnAdd", 1},
		{"libopapi.so", "aclnnSoftmax", 1},		{"libopapi.so", "aclInit", 0},
		{"libmtemu_core.so", "mtemu_counters", 1},	{"libmtemu_core.so", "aclInit", 0},
	};
	char path[4096], what[256];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].lib);
		void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		snprintf(what, sizeof what, "%s %s %s", cases[i].lib, cases[i].found ? "exports" : "does not export", cases[i].sym);
		CHECK(h && (dlsym(h, cases[i].sym) != NULL) == cases[i].found, what);
		if (h) dlclose(h);
	}
	/* libopapi.so is linked: the per-repository libraries were loaded above */
	float v = 1;
	aclTensor *x = vec(F32, 4, 1, &v), *o = vec(F32, 4, 1, NULL);
	uint64_t ws = 0;
	aclOpExecutor *ex = NULL;
	CHECK(aclnnNegGetWorkspaceSize(x, o, &ws, &ex) == 561000 && message("libopapi.so"),
	      "with libopapi.so and libopapi_math.so loaded together every op fails");
	free_vecs();
}

/* REFUSED checks that the first phase of op Name refuses its arguments with 161002. */
#define REFUSED(what, Name, ...)                                                                                   \
	do {                                                                                                       \
		uint64_t ws_ = 0;                                                                                  \
		aclOpExecutor *ex_ = NULL;                                                                         \
		CHECK(aclnn##Name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_) == 161002, what);                    \
		CHECK(aclGetRecentErrMsg() != NULL, what ": with a message");                                      \
	} while (0)

/* mat makes a 2-D tensor of rows x cols of dtype dt from float32 values. */
static aclTensor *mat(int dt, int64_t rows, int64_t cols, const float *v) {
	aclTensor *t = vec(dt, dt == F32 || dt == I32 ? 4 : dt == F64 ? 8 : 2, rows * cols, NULL);
	if (v) {
		aclTensor *src = vec(F32, 4, rows * cols, v);
		RUN(Cast, src, dt, t);
	}
	/* the same memory as a rows x cols view */
	int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1}, storage = rows * cols;
	aclTensor *m = aclCreateTensor(shape, 2, dt, stride, 0, 2, &storage, 1, bufs[nbufs - (v ? 2 : 1)]);
	tensors[ntensors++] = m;
	return m;
}

/* The ops' rules: GELU's forms, aclnnMatmul's dtypes and cubeMathType per
 * chip, its float32 accumulation, the reductions' dtype and dims rules, the
 * dtype tables. */
static void op_rules(void) {
	nbufs = ntensors = 0; /* integer_extremes freed its own */
	float x[2] = {-2.7f, 1.0f}, got[2];
	aclTensor *a = vec(F32, 4, 2, x), *o = vec(F32, 4, 2, NULL);
	RUN(Gelu, a, o);
	data(0, got, sizeof got);
	double t0 = 0.5 * -2.7 * (1 + tanh(sqrt(2 / M_PI) * (-2.7 + 0.044715 * -2.7 * -2.7 * -2.7)));
	double e0 = 0.5 * -2.7 * (1 + erf(-2.7 / sqrt(2.0)));
	CHECK(fabs(got[0] - t0) < 1e-6 && fabs(got[0] - e0) > 1e-4, "aclnnGelu is the tanh approximation");
	RUN(GeluV2, a, 0, o);
	data(0, got, sizeof got);
	CHECK(fabs(got[0] - e0) < 1e-6, "aclnnGeluV2 with approximate 0 is exact (erf)");
	RUN(GeluV2, a, 1, o);
	data(0, got, sizeof got);
	CHECK(fabs(got[0] - t0) < 1e-6, "aclnnGeluV2 with approximate 1 is the tanh form");
	REFUSED("aclnnGeluV2 takes approximate 0 or 1", GeluV2, a, 2, o);
	aclTensor *d = vec(F64, 8, 2, NULL), *od = vec(F64, 8, 2, NULL);
	REFUSED("aclnnGelu takes no DOUBLE", Gelu, d, od);
	REFUSED("aclnnRelu takes no DOUBLE", Relu, d, od);

	/* matmul: [1 + 2^-12] @ [1]: float16 has no such value */
	float one_eps[1] = {1.0f + 1.0f / 4096}, one[1] = {1}, big[2] = {1e38f, 1e38f}, pm[2] = {10, -10}, r[1];
	aclTensor *ma = mat(F32, 1, 1, one_eps), *mb = mat(F32, 1, 1, one), *mo = mat(F32, 1, 1, NULL);
	void *mo_data = bufs[nbufs - 1];
	RUN(Matmul, ma, mb, mo, 0);
	data(0, r, sizeof r);
	CHECK(r[0] == one_eps[0], "Ascend910B3: float32 matmul with cubeMathType 0 keeps float32");
	REFUSED("Ascend910B3: cubeMathType 3 takes only FLOAT32", Matmul, mat(F16, 1, 1, NULL), mat(F16, 1, 1, NULL), mat(F16, 1, 1, NULL), 3);
	REFUSED("Ascend910B3: cubeMathType 2 takes no BFLOAT16", Matmul, mat(BF16, 1, 1, NULL), mat(BF16, 1, 1, NULL),
		mat(BF16, 1, 1, NULL), 2);
	REFUSED("aclnnMatmul takes no DOUBLE", Matmul, mat(F64, 1, 1, NULL), mat(F64, 1, 1, NULL), mat(F64, 1, 1, NULL), 0);
	REFUSED("aclnnMatmul takes no INT32", Matmul, mat(I32, 1, 1, NULL), mat(I32, 1, 1, NULL), mat(I32, 1, 1, NULL), 0);
	aclTensor *wa = mat(F32, 1, 2, big), *wb = mat(F32, 2, 1, pm), *wo = mat(F32, 1, 1, NULL);
	RUN(Matmul, wa, wb, wo, 0);
	data(0, r, sizeof r);
	CHECK(isinf(r[0]) && r[0] > 0, "float32 matmul accumulates in float32 by fused multiply-adds: [1e38 1e38] @ [10 -10] is +inf");
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED("Ascend910A: FLOAT32 with cubeMathType 0 is refused", Matmul, ma, mb, mo, 0);
	REFUSED("Ascend910A: cubeMathType 3 is refused", Matmul, ma, mb, mo, 3);
	REFUSED("Ascend910A: no BFLOAT16", Relu, vec(BF16, 2, 2, NULL), vec(BF16, 2, 2, NULL));
	RUN(Matmul, ma, mb, mo, 2);
	aclrtMemcpy(r, sizeof r, mo_data, sizeof r, 2);
	CHECK(r[0] == 1.0f, "Ascend910A: float32 matmul with cubeMathType 2 computes in float16");
	unsetenv("MTEMU_SOC");

	/* reductions */
	int64_t xs[4] = {1, 2, 3, 4}, sum, three = 3, zero = 0, minus1 = -1, one_elem = 1, no_dims[1] = {0}, st[1] = {1};
	aclTensor *v4 = vec(I64, 8, 4, xs);
	vec(I64, 8, 1, NULL);
	void *isum = bufs[nbufs - 1];
	aclTensor *scalar = aclCreateTensor(no_dims, 0, I64, st, 0, 2, &one_elem, 1, isum); /* 0-dim int64 out */
	tensors[ntensors++] = scalar;
	vec(F32, 4, 1, NULL);
	void *fsum = bufs[nbufs - 1];
	aclTensor *fscalar = aclCreateTensor(no_dims, 0, F32, st, 0, 2, &one_elem, 1, fsum); /* 0-dim float32 out */
	tensors[ntensors++] = fscalar;
	vec(I64, 8, 1, &three);
	aclTensor *zd = aclCreateTensor(no_dims, 0, I64, st, 0, 2, &one_elem, 1, bufs[nbufs - 1]); /* 0-dim self: 3 */
	tensors[ntensors++] = zd;
	aclIntArray *empty = aclCreateIntArray(NULL, 0), *d0 = aclCreateIntArray(&zero, 1), *dm1 = aclCreateIntArray(&minus1, 1),
		    *d3 = aclCreateIntArray(&three, 1);

	RUN(ReduceSum, v4, empty, false, I64, scalar);
	aclrtMemcpy(&sum, 8, isum, 8, 2);
	CHECK(sum == 10, "aclnnReduceSum with empty dims reduces every dim");
	RUN(ReduceSum, zd, d0, false, I64, scalar);
	aclrtMemcpy(&sum, 8, isum, 8, 2);
	CHECK(sum == 3, "a 0-dim self takes dim 0");
	RUN(Amax, zd, dm1, false, scalar);
	REFUSED("a 0-dim self takes dims -1 and 0 only", ReduceSum, zd, d3, false, I64, scalar);
	REFUSED("aclnnReduceSum's dtype must be out's", ReduceSum, v4, empty, false, F32, scalar);
	REFUSED("aclnnAmax's out must have self's dtype", Amax, v4, empty, false, fscalar);
	uint8_t flags[4] = {1, 0, 1, 1};
	REFUSED("aclnnMean takes no BOOL", Mean, vec(BOOL, 1, 4, flags), empty, false, F32, fscalar);
	REFUSED("aclnnMean's dtype must be castable to out's", Mean, vec(F32, 4, 4, NULL), empty, false, F32, scalar);
	float mean = 0;
	RUN(Mean, v4, empty, false, F32, fscalar);
	aclrtMemcpy(&mean, 4, fsum, 4, 2);
	CHECK(mean == 2.5f, "aclnnMean casts self to its dtype first");
	aclDestroyIntArray(d3);
	aclDestroyIntArray(empty), aclDestroyIntArray(d0), aclDestroyIntArray(dm1);
	for (int i = 0; i < ntensors; i++) aclDestroyTensor(tensors[i]);
	for (int i = 0; i < nbufs; i++) aclrtFree(bufs[i]);
	ntensors = nbufs = 0;
}

int main(int argc, char **argv) {
	CHECK(aclInit(NULL) == 0, "aclInit");
	CHECK(aclInit(NULL) == 100002, "a second aclInit answers ACL_ERROR_REPEAT_INITIALIZE");
	pthread_t th;
	pthread_create(&th, NULL, no_context, NULL);
	pthread_join(th, NULL);

	CHECK(aclrtSetDevice(0) == 0, "aclrtSetDevice(0)");
	CHECK(aclrtSetDevice(5) == 107000, "a device that does not exist");
	void *s = NULL, *p = NULL;
	CHECK(aclrtCreateStream(&s) == 0, "aclrtCreateStream");
	CHECK(aclrtMalloc(&p, 0, 0) == 100000, "aclrtMalloc of 0 bytes is refused");
	CHECK(aclrtMalloc(&p, 4 * 16, 0) == 0 && (uintptr_t)p % 64 == 0, "aclrtMalloc is 64-byte aligned");

	int64_t shape[1] = {16}, stride[1] = {1}, storage = 16, bad_stride[1] = {2};
	CHECK(aclCreateTensor(shape, 1, 0, stride, 0, 2, &storage, 1, (char *)p + 4) == NULL, "unaligned tensor data is refused");
	CHECK(aclCreateTensor(shape, 1, 0, bad_stride, 0, 2, &storage, 1, p) == NULL, "strides in elements past the storage are refused");
	CHECK(aclCreateTensor(shape, 1, 0, stride, 1, 2, &storage, 1, p) == NULL, "an offset past the storage is refused");
	int64_t big = 1 << 20;
	CHECK(aclCreateTensor(shape, 1, 0, stride, 0, 2, &big, 1, p) == NULL, "a storage beyond the allocation is refused");

	aclTensor *t = aclCreateTensor(shape, 1, 0, stride, 0, 2, &storage, 1, p);
	float zero[16] = {0}, got[16];
	aclrtMemcpy(p, sizeof zero, zero, sizeof zero, 1);
	float v = 3;
	aclScalar *sc = aclCreateScalar(&v, 0);
	uint64_t ws = 0;
	aclOpExecutor *ex = NULL;
	CHECK(aclnnInplaceFillScalarGetWorkspaceSize(t, sc, &ws, &ex) == 0, "fill: workspace size");
	CHECK(aclnnInplaceFillScalar(NULL, 0, ex, s) == 0, "fill: launch");
	CHECK(aclnnInplaceFillScalar(NULL, 0, ex, s) == 561103, "an executor runs once");
	aclDestroyTensor(t);
	aclDestroyScalar(sc);

	aclrtMemcpy(got, sizeof got, p, sizeof got, 2);
	CHECK(got[0] == 0, "without a synchronize the host reads the old data (no implicit sync)");
	CHECK(aclrtSynchronizeStream(s) == 0, "synchronize");
	aclrtMemcpy(got, sizeof got, p, sizeof got, 2);
	CHECK(got[0] == 3 && got[15] == 3, "after the synchronize the host reads the op's result");
	CHECK(aclrtMemcpy(got, 8, p, 64, 2) == 100000, "a copy larger than destMax is refused");
	CHECK(aclrtMemcpy(got, sizeof got, zero, 64, 2) == 100000, "a device-to-host copy from host memory is refused");

	long long c[10];
	mtemu_counters(c, 10);
	CHECK(c[0] == 1 && c[2] == 0 && c[3] == 0 && c[5] == 0, "counters: one allocation, no live descriptors or executors");
	CHECK(aclrtFree(p) == 0 && aclrtFree(p) == 207002, "a double free is refused");
	stream = s;
	integer_extremes();
	nbufs = ntensors = 0;
	streams_and_events();
	nbufs = ntensors = 0;
	op_rules();
	CHECK(aclrtDestroyStream(s) == 0, "aclrtDestroyStream");
	mtemu_counters(c, 10);
	CHECK(c[0] == 0 && c[6] == 0, "counters: nothing live at the end");
	if (argc > 1) libraries(argv[1]);
	else CHECK(0, "the directory of the libraries is the argument");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}
