/*
 * Checks that the CANN emulator enforces the rules it claims (see
 * acl_emulator.c), by calling its symbols directly. Built and run by
 * internal/npuemu's tests; prints the failed checks and exits non-zero.
 */
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
	CHECK(aclrtDestroyStream(s) == 0, "aclrtDestroyStream");
	mtemu_counters(c);
	CHECK(c[0] == 0 && c[6] == 0, "counters: nothing live at the end");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}
