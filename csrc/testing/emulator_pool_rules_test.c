/*
 * Checks that the CANN emulator's pool ops (emu_pool_ops.inc: aclnnAvgPool2d,
 * aclnnAvgPool2dBackward, aclnnAdaptiveAvgPool2d and its backward) refuse
 * what their op_api sources refuse (161001, 161002), take what they take
 * (large kernels, divisorOverride past 255 but in the older chips'
 * backward), and compute PyTorch's windows and divisors in FLOAT32. Linked
 * as emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

OP(AvgPool2d, T, A, A, A, const bool, const bool, const int64_t, const int8_t, aclTensor *)
OP(AvgPool2dBackward, T, T, A, A, A, bool, bool, int64_t, int8_t, aclTensor *)
OP(AdaptiveAvgPool2d, T, A, aclTensor *)
OP(AdaptiveAvgPool2dBackward, T, T, aclTensor *)

enum { NCL = 47 };

#define T4(dt, a, b, c, d, fmt, ...) ten(dt, 4, (int64_t[]){a, b, c, d}, fmt, __VA_ARGS__)
#define T3(dt, a, b, c, fmt, ...) ten(dt, 3, (int64_t[]){a, b, c}, fmt, __VA_ARGS__)

/* The int arrays a check makes, destroyed by free_arrays. */
static aclIntArray *arrays[64];
static int narrays;

static aclIntArray *ia(int n, int64_t a, int64_t b, int64_t c) {
	int64_t v[3] = {a, b, c};
	return arrays[narrays++] = aclCreateIntArray(v, (uint64_t)n);
}
#define IA1(a) ia(1, a, 0, 0)
#define IA2(a, b) ia(2, a, b, 0)

static void free_arrays(void) {
	for (int i = 0; i < narrays; i++) aclDestroyIntArray(arrays[i]);
	narrays = 0;
	free_all();
}

/* h16 and f16 convert a float16 value that is exact in both (normal numbers). */
static uint16_t h16(float f) {
	uint32_t b;
	memcpy(&b, &f, 4);
	return (uint16_t)(((b >> 16) & 0x8000) | ((((b >> 23) & 255) - 112) << 10) | ((b >> 13) & 1023));
}
static float f16(uint16_t h) {
	uint32_t b = ((uint32_t)(h & 0x8000) << 16) | ((((uint32_t)(h >> 10) & 31) + 112) << 23) | ((uint32_t)(h & 1023) << 13);
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static float x16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void avg_forward(void) {
	float got[9];
	aclTensor *x = T4(F32, 1, 1, 4, 4, NCHW, x16), *o = T4(F32, 1, 1, 2, 2, NCHW, NULL);
	A k2 = IA1(2), k3 = IA1(3), s2 = IA1(2), none = ia(0, 0, 0, 0), p0 = IA1(0), p1 = IA1(1);
	RUN(AvgPool2d, x, k2, none, p0, false, true, 0, 0, o);
	read(o, got, 16);
	CHECK(got[0] == 3.5f && got[1] == 5.5f && got[2] == 11.5f && got[3] == 13.5f, "avg_pool2d 2x2, strides none: the kernel");
	RUN(AvgPool2d, x, k3, s2, p1, false, true, 0, 0, o);
	read(o, got, 16);
	CHECK(got[0] == 14.0f / 9 && got[3] == 11, "count_include_pad divides by the padded window");
	RUN(AvgPool2d, x, k3, s2, p1, false, false, 0, 0, o);
	read(o, got, 16);
	CHECK(got[0] == 3.5f && got[3] == 11, "without count_include_pad the padding is not counted");
	RUN(AvgPool2d, x, k3, s2, p1, false, false, 2, 0, o);
	read(o, got, 16);
	CHECK(got[0] == 7 && got[3] == 49.5f, "divisorOverride divides every window");
	aclTensor *o3 = T4(F32, 1, 1, 3, 3, NCHW, NULL);
	RUN(AvgPool2d, x, k3, s2, p1, true, true, 0, 0, o3);
	read(o3, got, 36);
	CHECK(got[8] == 4, "ceil_mode's last window counts its padding, not what lies past it");
	RUN(AvgPool2d, x, k3, s2, p1, true, false, 0, 0, o3);
	read(o3, got, 36);
	CHECK(got[8] == 16, "ceil_mode's last window without count_include_pad");

	float e[16] = {1, NAN, 3, 4, 5, 6, INFINITY, 8, 9, 10, -INFINITY, 12, 13, 14, 15, INFINITY};
	RUN(AvgPool2d, T4(F32, 1, 1, 4, 4, NCHW, e), k2, none, p0, false, true, 0, 0, o);
	read(o, got, 16);
	CHECK(isnan(got[0]) && got[1] == INFINITY && got[2] == 11.5f && isnan(got[3]), "NaN and infinities propagate (inf - inf: NaN)");

	aclTensor *ou = T3(F32, 1, 2, 2, NCL, NULL);
	RUN(AvgPool2d, T3(F32, 1, 4, 4, NCL, x16), k2, none, p0, false, true, 0, 0, ou);
	read(ou, got, 16);
	CHECK(got[0] == 3.5f && got[3] == 13.5f, "an unbatched (C, H, W) input in NCL");
	RUN(AvgPool2d, T4(F32, 0, 1, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0, T4(F32, 0, 1, 2, 2, NCHW, NULL));

	uint16_t h[4] = {h16(2048), h16(1), h16(1), h16(2)}, hr = 0;
	aclTensor *oh = T4(F16, 1, 1, 1, 1, NCHW, NULL);
	RUN(AvgPool2d, T4(F16, 1, 1, 1, 4, NCHW, h), IA2(1, 4), none, p0, false, true, 0, 0, oh);
	read(oh, &hr, 2);
	CHECK(f16(hr) == 513, "float16 sums in float32 (in float16 2048 + 1 + 1 + 2 would be 2050)");
	uint16_t bx[4] = {0x3F80, 0x4000, 0x4040, 0x4080}, br = 0; /* 1, 2, 3, 4 */
	aclTensor *ob = T4(BF16, 1, 1, 1, 1, NCHW, NULL);
	RUN(AvgPool2d, T4(BF16, 1, 1, 2, 2, NCHW, bx), k2, none, p0, false, true, 0, 0, ob);
	read(ob, &br, 2);
	CHECK(br == 0x4020, "bfloat16 (2.5)");

	/* The other graphs take what the cube graph does not: no refusal. */
	float wide[300];
	for (int i = 0; i < 300; i++) wide[i] = 1;
	aclTensor *ow = T4(F32, 1, 1, 1, 1, NCHW, NULL);
	RUN(AvgPool2d, T4(F32, 1, 1, 1, 300, NCHW, wide), IA2(1, 300), none, p0, false, true, 0, 0, ow);
	read(ow, got, 4);
	CHECK(got[0] == 1, "a kernel of 1x300 (past the cube graph's 255)");
	RUN(AvgPool2d, x, k2, none, p0, false, true, 1000, 0, o);
	read(o, got, 16);
	CHECK(got[0] == 14.0f / 1000, "divisorOverride 1000 (past the cube graph's 255)");

	REFUSED(161002, "avg_pool2d takes no DOUBLE", AvgPool2d, T4(F64, 1, 1, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0,
		T4(F64, 1, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d takes no INT32", AvgPool2d, T4(I32, 1, 1, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0,
		T4(I32, 1, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: out of self's dtype", AvgPool2d, x, k2, none, p0, false, true, 0, 0, T4(F16, 1, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: 4-D in NCHW", AvgPool2d, T4(F32, 1, 1, 4, 4, ND, NULL), k2, none, p0, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: 3-D in NCL", AvgPool2d, T3(F32, 1, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0,
		T3(F32, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: 2-D input", AvgPool2d, T2(F32, 4, 4, NULL), k2, none, p0, false, true, 0, 0, T2(F32, 2, 2, NULL));
	REFUSED(161002, "avg_pool2d: kernel positive", AvgPool2d, x, IA1(0), none, p0, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: kernel not empty", AvgPool2d, x, none, none, p0, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: stride positive", AvgPool2d, x, k2, IA1(-2), p0, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: at most 2 strides", AvgPool2d, x, k2, ia(3, 2, 2, 2), p0, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: padding at most half the kernel", AvgPool2d, x, k2, none, p1, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: padding not negative", AvgPool2d, x, k2, none, IA1(-1), false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: 1 or 2 paddings", AvgPool2d, x, k2, none, none, false, true, 0, 0, o);
	REFUSED(161002, "avg_pool2d: out of the inferred shape", AvgPool2d, x, k2, none, p0, false, true, 0, 0, o3);
	REFUSED(161002, "avg_pool2d: C, H and W not 0", AvgPool2d, T4(F32, 1, 0, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0,
		T4(F32, 1, 0, 2, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: out of the inferred shape (1 row: CANN's division truncates)", AvgPool2d, T4(F32, 1, 1, 1, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0,
		T4(F32, 1, 1, 0, 2, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: cubeMathType 0 to 3", AvgPool2d, x, k2, none, p0, false, true, 0, 4, o);
	REFUSED(161002, "avg_pool2d: FLOAT32 with 1 on the cube graph of A2/A3", AvgPool2d, x, k2, none, p0, false, true, 0, 1, o);
	REFUSED(161001, "avg_pool2d: kernelSize not NULL", AvgPool2d, x, NULL, none, p0, false, true, 0, 0, o);
	REFUSED(161001, "avg_pool2d: out not NULL", AvgPool2d, x, k2, none, p0, false, true, 0, 0, NULL);

	/* cubeMathType's precision: A2/A3's AvgPool3D graph keeps FLOAT32 with 1
	 * (a long strip); 2 on the cube graph computes it in FLOAT16. */
	float strip[8] = {1.0001f, 1, 1, 1, 1, 1, 1, 1};
	aclTensor *os = T4(F32, 1, 1, 1, 8, NCHW, NULL);
	RUN(AvgPool2d, T4(F32, 1, 1, 1, 8, NCHW, strip), IA1(1), none, p0, false, true, 0, 1, os);
	read(os, got, 4);
	CHECK(got[0] == 1.0001f, "FLOAT32 with cubeMathType 1 on the AvgPool3D graph");
	float near1[16] = {1.0001f};
	aclTensor *xn = T4(F32, 1, 1, 4, 4, NCHW, near1), *on = T4(F32, 1, 1, 4, 4, NCHW, NULL);
	RUN(AvgPool2d, xn, IA1(1), none, p0, false, true, 0, 2, on);
	read(on, got, 4);
	CHECK(got[0] == 1, "FLOAT32 with cubeMathType 2 on the cube graph: in FLOAT16");

	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(161002, "avg_pool2d: no BFLOAT16 on Atlas training chips", AvgPool2d, T4(BF16, 1, 1, 2, 2, NCHW, NULL), k2, none, p0, false,
		true, 0, 0, T4(BF16, 1, 1, 1, 1, NCHW, NULL));
	REFUSED(161002, "avg_pool2d: no FLOAT32 with cubeMathType 0 on Atlas training chips", AvgPool2d, x, k2, none, p0, false, true, 0,
		0, o);
	RUN(AvgPool2d, xn, IA1(1), none, p0, false, true, 0, 1, on);
	read(on, got, 4);
	CHECK(got[0] == 1, "FLOAT32 with cubeMathType 1 on Atlas training chips: in FLOAT16");
	unsetenv("MTEMU_SOC");
	free_arrays();
}

static void avg_backward(void) {
	float got[16], ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
	aclTensor *x = T4(F32, 1, 1, 4, 4, NCHW, x16), *g = T4(F32, 1, 1, 2, 2, NCHW, ones), *gi = T4(F32, 1, 1, 4, 4, NCHW, NULL);
	A k2 = IA1(2), k3 = IA1(3), s2 = IA1(2), none = ia(0, 0, 0, 0), p0 = IA1(0), p1 = IA1(1);
	RUN(AvgPool2dBackward, g, x, k2, none, p0, false, true, 0, 0, gi);
	read(gi, got, 64);
	CHECK(got[0] == 0.25f && got[15] == 0.25f, "the gradient of 2x2 windows");
	RUN(AvgPool2dBackward, g, x, k2, NULL, p0, false, true, 0, 0, gi);
	read(gi, got, 64);
	CHECK(got[5] == 0.25f, "a NULL stride is the kernel");
	float ninth = 1.0f / 9, four = ninth + ninth + ninth + ninth;
	RUN(AvgPool2dBackward, g, x, k3, s2, p1, false, true, 0, 0, gi);
	read(gi, got, 64);
	CHECK(got[0] == ninth && got[5] == four, "count_include_pad: each window's gradient over 9, added window by window");
	RUN(AvgPool2dBackward, g, x, k3, s2, p1, false, false, 0, 0, gi);
	read(gi, got, 64);
	CHECK(got[0] == 0.25f, "without count_include_pad the corner window divides by 4");
	RUN(AvgPool2dBackward, g, x, k3, s2, p1, false, true, -2, 0, gi);
	read(gi, got, 64);
	CHECK(got[0] == -0.5f, "divisorOverride -2");
	RUN(AvgPool2dBackward, T4(F32, 1, 1, 3, 3, NCHW, ones), x, k3, s2, p1, true, true, 0, 0, gi);
	read(gi, got, 64);
	float corner = ((ninth + 1.0f / 6) + 1.0f / 6) + 0.25f; /* windows of 3x3, 3x2, 2x3, and 2x2 (with a padding row and column) */
	CHECK(got[15] == corner, "ceil_mode's last windows count their padding, not what lies past it");
	aclTensor *giu = T3(F32, 1, 4, 4, NCL, NULL);
	RUN(AvgPool2dBackward, T3(F32, 1, 2, 2, NCL, ones), T3(F32, 1, 4, 4, NCL, NULL), k2, none, p0, false, true, 0, 0, giu);
	read(giu, got, 64);
	CHECK(got[0] == 0.25f, "an unbatched (C, H, W) gradient in NCL");
	RUN(AvgPool2dBackward, g, x, k2, none, p0, false, true, 1000, 0, gi);
	read(gi, got, 64);
	CHECK(got[0] == 1.0f / 1000, "divisorOverride 1000 on A2/A3");

	REFUSED(161002, "avg_pool2d_backward: gradOutput of gradInput's dtype", AvgPool2dBackward, T4(F16, 1, 1, 2, 2, NCHW, NULL), x, k2,
		none, p0, false, true, 0, 0, gi);
	REFUSED(161002, "avg_pool2d_backward takes no DOUBLE", AvgPool2dBackward, T4(F64, 1, 1, 2, 2, NCHW, NULL),
		T4(F64, 1, 1, 4, 4, NCHW, NULL), k2, none, p0, false, true, 0, 0, T4(F64, 1, 1, 4, 4, NCHW, NULL));
	REFUSED(161002, "avg_pool2d_backward: NCHW or NCL", AvgPool2dBackward, T4(F32, 1, 1, 2, 2, ND, NULL), x, k2, none, p0, false, true, 0,
		0, gi);
	REFUSED(161002, "avg_pool2d_backward: gradInput of self's shape", AvgPool2dBackward, g, x, k2, none, p0, false, true, 0, 0,
		T4(F32, 1, 1, 4, 5, NCHW, NULL));
	REFUSED(161002, "avg_pool2d_backward: at most 2 kernel values", AvgPool2dBackward, g, x, ia(3, 2, 2, 2), none, p0, false, true, 0, 0,
		gi);
	REFUSED(161002, "avg_pool2d_backward: padding at most half the kernel", AvgPool2dBackward, g, x, k2, none, p1, false, true, 0, 0,
		gi);
	REFUSED(161002, "avg_pool2d_backward: cubeMathType 0 to 3", AvgPool2dBackward, g, x, k2, none, p0, false, true, 0, 5, gi);
	REFUSED(161002, "avg_pool2d_backward: gradOutput of the forward's shape", AvgPool2dBackward, T4(F32, 1, 1, 3, 3, NCHW, NULL), x, k2,
		none, p0, false, true, 0, 0, gi);
	REFUSED(161001, "avg_pool2d_backward: padding not NULL", AvgPool2dBackward, g, x, k2, none, NULL, false, true, 0, 0, gi);

	setenv("MTEMU_SOC", "Ascend310P3", 1);
	uint16_t hg[4] = {h16(1), h16(1), h16(1), h16(1)}, hr[16];
	aclTensor *hx = T4(F16, 1, 1, 4, 4, NCHW, NULL), *hgi = T4(F16, 1, 1, 4, 4, NCHW, NULL);
	REFUSED(161002, "avg_pool2d_backward: divisorOverride in [-255, 255] on Atlas inference chips", AvgPool2dBackward,
		T4(F16, 1, 1, 2, 2, NCHW, hg), hx, k2, none, p0, false, true, 300, 0, hgi);
	REFUSED(161002, "avg_pool2d_backward: no cubeMathType 3 on Atlas inference chips", AvgPool2dBackward, T4(F16, 1, 1, 2, 2, NCHW, hg),
		hx, k2, none, p0, false, true, 0, 3, hgi);
	REFUSED(161002, "avg_pool2d_backward: no FLOAT32 with cubeMathType 0 on Atlas inference chips", AvgPool2dBackward, g, x, k2, none,
		p0, false, true, 0, 0, gi);
	RUN(AvgPool2dBackward, T4(F16, 1, 1, 2, 2, NCHW, hg), hx, k2, none, p0, false, true, 255, 0, hgi);
	read(hgi, hr, 32);
	CHECK(f16(hr[0]) > 0.00392f && f16(hr[0]) < 0.003923f, "divisorOverride 255 on Atlas inference chips (1/255 in FLOAT16)");
	unsetenv("MTEMU_SOC");
	free_arrays();
}

static void adaptive(void) {
	float got[16], x25[25], ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
	for (int i = 0; i < 25; i++) x25[i] = (float)(i + 1);
	aclTensor *x = T4(F32, 1, 1, 4, 4, NCHW, x16), *o = T4(F32, 1, 1, 2, 2, NCHW, NULL);
	A s2 = IA2(2, 2), s3 = IA2(3, 3);
	RUN(AdaptiveAvgPool2d, x, s2, o);
	read(o, got, 16);
	CHECK(got[0] == 3.5f && got[3] == 13.5f, "adaptive_avg_pool2d of equal windows");
	aclTensor *o3 = T4(F32, 1, 1, 3, 3, NCHW, NULL);
	RUN(AdaptiveAvgPool2d, T4(F32, 1, 1, 5, 5, NCHW, x25), s3, o3);
	read(o3, got, 36);
	CHECK(got[0] == 4 && got[4] == 13 && got[8] == 22, "adaptive windows [floor(i*5/3), ceil((i+1)*5/3)) overlap");
	aclTensor *ou = T3(F32, 1, 2, 2, NCL, NULL);
	RUN(AdaptiveAvgPool2d, T3(F32, 1, 4, 4, NCL, x16), s2, ou);
	read(ou, got, 16);
	CHECK(got[1] == 5.5f, "an unbatched (C, H, W) input in NCL");

	REFUSED(161002, "adaptive_avg_pool2d: outputSize positive", AdaptiveAvgPool2d, x, IA2(0, 2), T4(F32, 1, 1, 0, 2, NCHW, NULL));
	REFUSED(161002, "adaptive_avg_pool2d: outputSize is out's H and W", AdaptiveAvgPool2d, x, s3, o);
	REFUSED(161002, "adaptive_avg_pool2d: outputSize of 2", AdaptiveAvgPool2d, x, IA1(2), o);
	REFUSED(161002, "adaptive_avg_pool2d: out of self's dims", AdaptiveAvgPool2d, x, s2, T3(F32, 1, 2, 2, NCL, NULL));
	REFUSED(161002, "adaptive_avg_pool2d: out's leading dims self's", AdaptiveAvgPool2d, x, s2, T4(F32, 2, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "adaptive_avg_pool2d: self and out in one format", AdaptiveAvgPool2d, x, s2, T4(F32, 1, 1, 2, 2, ND, NULL));
	REFUSED(161002, "adaptive_avg_pool2d: a 3-D self in NCL", AdaptiveAvgPool2d, T3(F32, 1, 4, 4, NCHW, NULL), s2,
		T3(F32, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "adaptive_avg_pool2d takes no DOUBLE", AdaptiveAvgPool2d, T4(F64, 1, 1, 4, 4, NCHW, NULL), s2,
		T4(F64, 1, 1, 2, 2, NCHW, NULL));
	REFUSED(161002, "adaptive_avg_pool2d: out of self's dtype", AdaptiveAvgPool2d, x, s2, T4(F16, 1, 1, 2, 2, NCHW, NULL));
	REFUSED(161001, "adaptive_avg_pool2d: outputSize not NULL", AdaptiveAvgPool2d, x, NULL, o);

	aclTensor *gi = T4(F32, 1, 1, 4, 4, NCHW, NULL);
	RUN(AdaptiveAvgPool2dBackward, T4(F32, 1, 1, 2, 2, NCHW, ones), x, gi);
	read(gi, got, 64);
	CHECK(got[0] == 0.25f && got[15] == 0.25f, "adaptive_avg_pool2d_backward of equal windows");
	aclTensor *gi5 = T4(F32, 1, 1, 5, 5, NCHW, NULL);
	RUN(AdaptiveAvgPool2dBackward, T4(F32, 1, 1, 3, 3, NCHW, ones), T4(F32, 1, 1, 5, 5, NCHW, x25), gi5);
	read(gi5, got, 64);
	float one = 1, w = ((one / 2 / 2 + one / 2 / 3) + one / 3 / 2) + one / 3 / 3;
	CHECK(got[0] == 0.25f && got[6] == w, "overlapping windows add in row-major order");
	REFUSED(161002, "adaptive_avg_pool2d_backward: gradOutput of self's dims", AdaptiveAvgPool2dBackward, T3(F32, 1, 2, 2, NCL, NULL),
		x, gi);
	REFUSED(161002, "adaptive_avg_pool2d_backward: gradOutput in self's format", AdaptiveAvgPool2dBackward,
		T4(F32, 1, 1, 2, 2, ND, NULL), x, gi);
	REFUSED(161002, "adaptive_avg_pool2d_backward: one dtype", AdaptiveAvgPool2dBackward, T4(F16, 1, 1, 2, 2, NCHW, NULL), x, gi);
	REFUSED(161002, "adaptive_avg_pool2d_backward: out of self's shape", AdaptiveAvgPool2dBackward, T4(F32, 1, 1, 2, 2, NCHW, NULL), x,
		T4(F32, 1, 1, 4, 5, NCHW, NULL));
	REFUSED(161002, "adaptive_avg_pool2d_backward: gradOutput's leading dims self's", AdaptiveAvgPool2dBackward,
		T4(F32, 2, 1, 2, 2, NCHW, NULL), x, gi);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(161002, "adaptive_avg_pool2d: no BFLOAT16 on Atlas training chips", AdaptiveAvgPool2d, T4(BF16, 1, 1, 4, 4, NCHW, NULL), s2,
		T4(BF16, 1, 1, 2, 2, NCHW, NULL));
	unsetenv("MTEMU_SOC");
	free_arrays();
}

int main(void) {
	rules_begin();
	avg_forward();
	avg_backward();
	adaptive();
	return rules_end();
}
