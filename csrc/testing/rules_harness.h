/*
 * The harness of the emulator's op rule checks (emulator_<family>_rules_test.c:
 * nn, more, norm, pool, creation, svd, random): the ACL prototypes they call, CHECK and the
 * emulator's counters, device tensors made from host values and freed
 * together, and the REFUSED/RUN macros for an op's two phases. Each check
 * file is one program: this header holds its state (static).
 */
#ifndef MTEMU_RULES_HARNESS_H
#define MTEMU_RULES_HARNESS_H

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

static inline long long counter(int which) {
	long long c[NCOUNTERS];
	mtemu_counters(c, NCOUNTERS);
	return c[which];
}

static void *stream;
static void *bufs[256];
static aclTensor *tensors[256];
static int nbufs, ntensors;

static inline size_t size_of(int dt) {
	return dt == I64 || dt == F64 ? 8 : dt == BOOL || dt == I8 || dt == U8 ? 1 : dt == F16 || dt == BF16 ? 2 : 4;
}

/* ten makes a contiguous device tensor of dtype dt, shape (nd dims) and
 * format fmt holding src (or zeros). */
static inline aclTensor *ten(int dt, int nd, const int64_t *shape, int fmt, const void *src) {
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
#define T0(dt, ...) ten(dt, 0, (int64_t[]){1}, ND, __VA_ARGS__)

/* back reads the n bytes of the k-th last tensor made by ten. */
static inline void back(int k, void *dst, size_t n) { aclrtMemcpy(dst, n, bufs[nbufs - 1 - k], n, 2); }

/* read reads the first n bytes of the tensor t made by ten. */
static inline void read(const aclTensor *t, void *dst, size_t n) {
	for (int i = 0; i < ntensors; i++)
		if (tensors[i] == t) aclrtMemcpy(dst, n, bufs[i], n, 2);
}

static inline void free_all(void) {
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

/* rules_begin opens the device and the stream the checks run on. */
static inline void rules_begin(void) {
	CHECK(aclInit(NULL) == 0, "aclInit");
	CHECK(aclrtSetDevice(0) == 0, "aclrtSetDevice(0)");
	CHECK(aclrtCreateStream(&stream) == 0, "aclrtCreateStream");
}

/* rules_end closes the stream, checks that nothing is left live, prints
 * "ok" when no check failed and returns main's exit status. */
static inline int rules_end(void) {
	CHECK(aclrtDestroyStream(stream) == 0, "aclrtDestroyStream");
	long long c[NCOUNTERS];
	mtemu_counters(c, NCOUNTERS);
	CHECK(c[ALLOCS] == 0 && c[TENSORS] == 0 && c[SCALARS] == 0 && c[ARRAYS] == 0 && c[EXECUTORS] == 0,
	      "counters: nothing live at the end");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}

#endif
