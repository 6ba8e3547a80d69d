/*
 * Checks that the emulator's pointwise math ops (emu_pointwise_ops.inc)
 * refuse what their op_api sources refuse and compute per dtype: results
 * rounded once to the compute dtype, integer inputs cast to FLOAT, the
 * A2/A3-only ops refused on an Atlas training SoC, the scalar and promote
 * rules. Built and run by internal/npuemu's tests (also under the
 * sanitizers), linked to libascendcl.so, libnnopbase.so, libopapi.so and the
 * core; prints the failed checks and exits non-zero.
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
void mtemu_counters(long long *out, int n);

#define OP(Name, ...)                                                                                              \
	int aclnn##Name##GetWorkspaceSize(__VA_ARGS__, uint64_t *, aclOpExecutor **);                               \
	int aclnn##Name(void *, uint64_t, aclOpExecutor *, void *);
OP(Sin, const aclTensor *, aclTensor *)
OP(Sinc, const aclTensor *, aclTensor *)
OP(Log10, const aclTensor *, aclTensor *)
OP(Trunc, const aclTensor *, aclTensor *)
OP(Expm1, const aclTensor *, aclTensor *)
OP(Erfinv, const aclTensor *, aclTensor *)
OP(Round, const aclTensor *, aclTensor *)
OP(Sign, const aclTensor *, aclTensor *)
OP(Signbit, const aclTensor *, aclTensor *)
OP(IsPosInf, const aclTensor *, aclTensor *)
OP(BitwiseNot, const aclTensor *, aclTensor *)
OP(Celu, const aclTensor *, const aclScalar *, aclTensor *)
OP(Hardtanh, const aclTensor *, const aclScalar *, const aclScalar *, aclTensor *)
OP(Logit, const aclTensor *, double, aclTensor *)
OP(NanToNum, const aclTensor *, float, float, float, aclTensor *)
OP(RemainderTensorTensor, const aclTensor *, const aclTensor *, aclTensor *)
OP(FmodTensor, const aclTensor *, const aclTensor *, aclTensor *)
OP(Atan2, const aclTensor *, const aclTensor *, aclTensor *)
OP(BitwiseXorTensor, const aclTensor *, const aclTensor *, aclTensor *)
OP(Lerps, const aclTensor *, const aclTensor *, const aclScalar *, aclTensor *)
OP(LogSumExp, const aclTensor *, const aclIntArray *, bool, aclTensor *)
OP(VarCorrection, const aclTensor *, const aclIntArray *, int64_t, bool, aclTensor *)
OP(All, const aclTensor *, const aclIntArray *, bool, aclTensor *)

static int failures;
#define CHECK(cond, what)                                                                                          \
	do {                                                                                                       \
		if (!(cond)) {                                                                                     \
			printf("FAIL %s (line %d)\n", what, __LINE__);                                             \
			failures++;                                                                                \
		}                                                                                                  \
	} while (0)

enum { F32 = 0, F16 = 1, I32 = 3, I64 = 9, F64 = 11, BOOL = 12, BF16 = 27 };

static void *stream;
static void *bufs[128];
static aclTensor *tensors[128];
static int nbufs, ntensors;

/* vec makes a 1-D device tensor of n elements of dtype dt (size bytes each)
 * holding src (or uninitialised when src is NULL). */
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

/* data reads back the first n bytes of tensor t made by vec. */
static void data(const aclTensor *t, void *dst, size_t n) {
	for (int i = 0; i < ntensors; i++)
		if (tensors[i] == t) aclrtMemcpy(dst, n, bufs[i], n, 2);
}

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

#define REFUSED(what, Name, ...)                                                                                   \
	do {                                                                                                       \
		uint64_t ws_ = 0;                                                                                  \
		aclOpExecutor *ex_ = NULL;                                                                         \
		CHECK(aclnn##Name##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_) == 161002, what);                    \
		CHECK(aclGetRecentErrMsg() != NULL, what ": with a message");                                      \
	} while (0)

static void values(void) {
	float x[4] = {0.5f, -1.25f, 3.0f, 1e-3f}, got[4];
	aclTensor *a = vec(F32, 4, 4, x), *o = vec(F32, 4, 4, NULL);
	RUN(Sin, a, o);
	data(o, got, sizeof got);
	int ok = 1;
	for (int i = 0; i < 4; i++) ok &= got[i] == (float)sin((double)x[i]);
	CHECK(ok, "float32 sin is libm's sin rounded once to float32");

	int64_t ix[3] = {1, -2, 0};
	aclTensor *ia = vec(I64, 8, 3, ix), *io = vec(F32, 4, 3, NULL);
	RUN(Sin, ia, io);
	data(io, got, 12);
	CHECK(got[0] == (float)sin(1.0) && got[1] == (float)sin(-2.0) && got[2] == 0, "int64 sin gives float32");
	REFUSED("sin of int64 into int64 is refused", Sin, ia, vec(I64, 8, 3, NULL));
	RUN(Sinc, ia, io);
	data(io, got, 12);
	CHECK(got[2] == 1 && fabsf(got[0]) < 1e-6f, "sinc(0) is 1, sinc(1) is about 0");

	REFUSED("log10 of float16 gives float16, not float32", Log10, vec(F16, 2, 3, NULL), vec(F32, 4, 3, NULL));
	int32_t i32[3] = {1, 10, 1000};
	RUN(Log10, vec(I32, 4, 3, i32), io);
	data(io, got, 12);
	CHECK(got[0] == 0 && got[1] == 1 && got[2] == 3, "log10 of int32 gives float32");

	float h[5] = {0.5f, 1.5f, 2.5f, -0.5f, -2.7f};
	aclTensor *ha = vec(F32, 4, 5, h), *ho = vec(F32, 4, 5, NULL);
	RUN(Round, ha, ho);
	data(ho, got, 16);
	CHECK(got[0] == 0 && got[1] == 2 && got[2] == 2 && got[3] == 0, "round is half to even");
	RUN(Sign, ha, ho);
	float s[5];
	data(ho, s, sizeof s);
	CHECK(s[0] == 1 && s[3] == -1 && s[4] == -1, "sign");

	float z[2] = {-0.0f, -1.0f};
	uint8_t b[2];
	aclTensor *zo = vec(BOOL, 1, 2, NULL);
	RUN(Signbit, vec(F32, 4, 2, z), zo);
	data(zo, b, 2);
	CHECK(b[0] == 0 && b[1] == 1, "Atlas A2/A3 signbit is self < 0: -0.0 is false");

	int32_t r1[4] = {-7, 7, -7, 7}, r2[4] = {2, -2, -2, 2}, ri[4];
	aclTensor *ra = vec(I32, 4, 4, r1), *rb = vec(I32, 4, 4, r2), *ro = vec(I32, 4, 4, NULL);
	RUN(RemainderTensorTensor, ra, rb, ro);
	data(ro, ri, sizeof ri);
	CHECK(ri[0] == 1 && ri[1] == -1 && ri[2] == -1 && ri[3] == 1, "int32 remainder takes the divisor's sign");
	RUN(FmodTensor, ra, rb, ro);
	data(ro, ri, sizeof ri);
	CHECK(ri[0] == -1 && ri[1] == 1 && ri[2] == -1 && ri[3] == 1, "int32 fmod takes the dividend's sign");
	RUN(BitwiseXorTensor, ra, rb, ro);
	data(ro, ri, sizeof ri);
	CHECK(ri[0] == (-7 ^ 2) && ri[1] == (7 ^ -2), "int32 bitwise xor");
	uint8_t t2[2] = {1, 0};
	REFUSED("remainder of bool and bool is refused (BOOL not in the list)", RemainderTensorTensor, vec(BOOL, 1, 2, t2),
		vec(BOOL, 1, 2, t2), vec(BOOL, 1, 2, NULL));
	aclTensor *at2 = vec(F32, 4, 4, NULL);
	RUN(Atan2, ra, rb, at2);
	data(at2, got, 16);
	CHECK(got[0] == (float)atan2(-7.0, 2.0), "int32 atan2 gives float32");

	aclTensor *fa = vec(F32, 4, 2, NULL);
	float half = 0.5f, zero = 0, two = 2, one = 1;
	aclScalar *s_half = aclCreateScalar(&half, F32), *s_zero = aclCreateScalar(&zero, F32), *s_two = aclCreateScalar(&two, F32),
		  *s_one = aclCreateScalar(&one, F32);
	REFUSED("lerps: end must have self's dtype", Lerps, fa, vec(F16, 2, 2, NULL), s_half, vec(F32, 4, 2, NULL));
	REFUSED("celu: alpha 0 is refused", Celu, fa, s_zero, vec(F32, 4, 2, NULL));
	REFUSED("hardtanh: min > max is refused", Hardtanh, fa, s_two, s_one, vec(F32, 4, 2, NULL));
	float th[3] = {-3, 0.5f, NAN};
	RUN(Hardtanh, vec(F32, 4, 3, th), s_half, s_two, io);
	data(io, got, 12);
	CHECK(got[0] == 0.5f && got[1] == 0.5f && isnan(got[2]), "hardtanh clamps, NaN stays NaN");
	aclDestroyScalar(s_half), aclDestroyScalar(s_zero), aclDestroyScalar(s_two), aclDestroyScalar(s_one);

	/* the dtype tables */
	REFUSED("trunc takes no DOUBLE", Trunc, vec(F64, 8, 2, NULL), vec(F64, 8, 2, NULL));
	REFUSED("expm1 takes no INT32", Expm1, vec(I32, 4, 2, NULL), vec(F32, 4, 2, NULL));
	REFUSED("erfinv takes no DOUBLE", Erfinv, vec(F64, 8, 2, NULL), vec(F64, 8, 2, NULL));
	REFUSED("bitwise_not takes no float", BitwiseNot, vec(F32, 4, 2, NULL), vec(F32, 4, 2, NULL));
	float e[3] = {0, 0.5f, -0.5f};
	RUN(Erfinv, vec(F32, 4, 3, e), io);
	data(io, got, 12);
	CHECK(got[0] == 0 && fabsf(erff(got[1]) - 0.5f) < 1e-6f && got[2] == -got[1], "erfinv inverts erf");

	/* reductions */
	float m[6] = {1, 2, 3, 4, 5, 6};
	int64_t d0 = 0, d1 = 1, d5 = 5;
	aclIntArray *dim0 = aclCreateIntArray(&d0, 1), *dim1 = aclCreateIntArray(&d1, 1), *dim5 = aclCreateIntArray(&d5, 1);
	aclTensor *mv = vec(F32, 4, 6, m), *one_out = vec(F32, 4, 1, NULL);
	RUN(VarCorrection, mv, dim0, 1, true, one_out);
	data(one_out, got, 4);
	CHECK(got[0] == 3.5f, "var with correction 1");
	RUN(LogSumExp, mv, dim0, true, one_out);
	data(one_out, got, 4);
	CHECK(fabsf(got[0] - (float)(6 + log1p(exp(-1) + exp(-2) + exp(-3) + exp(-4) + exp(-5)))) < 1e-6f, "logsumexp");
	REFUSED("logsumexp takes no DOUBLE", LogSumExp, vec(F64, 8, 6, NULL), dim0, true, vec(F64, 8, 1, NULL));
	REFUSED("a dim out of range is refused", LogSumExp, mv, dim5, true, one_out);
	REFUSED("a dim of a 1-D self out of range is refused", All, mv, dim1, true, vec(BOOL, 1, 1, NULL));
	REFUSED("out's shape must be the reduction's", VarCorrection, mv, dim0, 1, true, vec(F32, 4, 2, NULL));
	aclDestroyIntArray(dim0), aclDestroyIntArray(dim1), aclDestroyIntArray(dim5);
}

/* On an Atlas training SoC the ops only Atlas A2/A3 have are refused, and
 * no op takes BFLOAT16. */
static void atlas_training(void) {
	setenv("MTEMU_SOC", "Ascend910A", 1);
	aclTensor *a = vec(F32, 4, 2, NULL), *o = vec(F32, 4, 2, NULL);
	REFUSED("Ascend910A: no aclnnNanToNum", NanToNum, a, 0, 1, -1, o);
	REFUSED("Ascend910A: no aclnnLogit", Logit, a, -1.0, o);
	REFUSED("Ascend910A: no aclnnIsPosInf", IsPosInf, a, vec(BOOL, 1, 2, NULL));
	REFUSED("Ascend910A: no BFLOAT16", Sin, vec(BF16, 2, 2, NULL), vec(BF16, 2, 2, NULL));
	float x[2] = {0.25f, -1}, got[2];
	aclTensor *in = vec(F32, 4, 2, x), *out = vec(F32, 4, 2, NULL);
	RUN(Sin, in, out);
	data(out, got, sizeof got);
	CHECK(got[0] == (float)sin(0.25), "Ascend910A: float32 sin runs");
	unsetenv("MTEMU_SOC");
	float y[3] = {NAN, INFINITY, -INFINITY}, r[3];
	aclTensor *ya = vec(F32, 4, 3, y), *yo = vec(F32, 4, 3, NULL);
	RUN(NanToNum, ya, 0, 7, -7, yo);
	data(yo, r, sizeof r);
	CHECK(r[0] == 0 && r[1] == 7 && r[2] == -7, "Ascend910B3: nan_to_num");
}

int main(void) {
	CHECK(aclInit(NULL) == 0, "aclInit");
	CHECK(aclrtSetDevice(0) == 0 && aclrtCreateStream(&stream) == 0, "a device and a stream");
	values();
	atlas_training();
	for (int i = 0; i < ntensors; i++) aclDestroyTensor(tensors[i]);
	for (int i = 0; i < nbufs; i++) aclrtFree(bufs[i]);
	CHECK(aclrtDestroyStream(stream) == 0, "aclrtDestroyStream");
	long long c[10];
	mtemu_counters(c, 10);
	CHECK(c[0] == 0 && c[2] == 0 && c[3] == 0 && c[5] == 0 && c[6] == 0, "nothing live at the end");
	if (failures == 0) printf("ok\n");
	return failures != 0;
}
