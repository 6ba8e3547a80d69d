/*
 * Checks that the CANN emulator enforces the rules it claims (see
 * acl_emulator.c), and that its arithmetic is exact per dtype at the integer
 * extremes, by calling its symbols directly. Built and run by
 * internal/npuemu's tests; prints the failed checks and exits non-zero.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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
void mtemu_counters(long long out[10]);

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

enum { F32 = 0, F16 = 1, I32 = 3, U8 = 4, I64 = 9, BOOL = 12 };

static void *stream;
static void *bufs[64];
static aclTensor *tensors[64];
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

int main(void) {
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
	mtemu_counters(c);
	CHECK(c[0] == 1 && c[2] == 0 && c[3] == 0 && c[5] == 0, "counters: one allocation, no live descriptors or executors");
	CHECK(aclrtFree(p) == 0 && aclrtFree(p) == 207002, "a double free is refused");
	stream = s;
	integer_extremes();
	CHECK(aclrtDestroyStream(s) == 0, "aclrtDestroyStream");
	mtemu_counters(c);
	CHECK(c[0] == 0 && c[6] == 0, "counters: nothing live at the end");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}
