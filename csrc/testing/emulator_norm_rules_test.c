/*
 * Checks that the CANN emulator's norm ops (emu_norm_ops.inc: aclnnLayerNorm,
 * aclnnLayerNormBackward, aclnnGroupNorm, aclnnGroupNormBackward) refuse
 * what their op_api sources and docs refuse (161001, 161002), per chip, and
 * compute what the docs write: mean, rstd = 1/sqrt(var + eps) of the biased
 * variance, the output in FLOAT for FLOAT16 and BFLOAT16 inputs, PyTorch's
 * gradients. Linked as emulator_nn_rules_test.c is; built and run by
 * internal/npuemu's TestEmulatorNNRules (also under the sanitizers); prints
 * the failed checks and "ok" when none failed. The harness is
 * rules_harness.h.
 */
#include "rules_harness.h"

OP(LayerNorm, T, A, T, T, double, aclTensor *, aclTensor *, aclTensor *)
OP(LayerNormBackward, T, T, A, T, T, T, T, const aclBoolArray *, aclTensor *, aclTensor *, aclTensor *)
OP(GroupNorm, T, T, T, int64_t, int64_t, int64_t, int64_t, double, aclTensor *, aclTensor *, aclTensor *)
OP(GroupNormBackward, T, T, T, T, T, int64_t, int64_t, int64_t, int64_t, const aclBoolArray *, aclTensor *, aclTensor *,
   aclTensor *)

#define T3(dt, a, b, c, ...) ten(dt, 3, (int64_t[]){a, b, c}, ND, __VA_ARGS__)

/* near reports whether got is want to within a relative tolerance tol. */
static int near(double got, double want, double tol) { return fabs(got - want) <= tol * (1 + fabs(want)); }

/* h2f and bf2f read FLOAT16 and BFLOAT16 bits. */
static float h2f(uint16_t h) {
	int e = (h >> 10) & 31, m = h & 1023;
	float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
	return (h & 0x8000) ? -v : v;
}
static float bf2f(uint16_t b) {
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}
/* f2h and f2bf write FLOAT16 and BFLOAT16 bits of values they hold exactly. */
static uint16_t f2h(float f) {
	uint16_t s = f < 0 ? 0x8000 : 0;
	f = fabsf(f);
	if (f == 0) return s;
	int e;
	float m = frexpf(f, &e); /* f = m * 2^e, m in [0.5, 1) */
	return (uint16_t)(s | (uint16_t)((e + 14) << 10) | (uint16_t)((int)ldexpf(m, 11) & 1023));
}
static uint16_t f2bf(float f) {
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

/* ref_rows computes the mean and rstd of each of the rows of d elements of
 * x (in double) and the normalised x times w plus b (w, b per element of a
 * row, or NULL). */
static void ref_rows(const float *x, int rows, int d, double eps, const float *w, const float *b, double *mean, double *rstd,
		     double *y) {
	for (int r = 0; r < rows; r++) {
		double s = 0, q = 0;
		for (int k = 0; k < d; k++) s += x[r * d + k];
		mean[r] = s / d;
		for (int k = 0; k < d; k++) q += (x[r * d + k] - mean[r]) * (x[r * d + k] - mean[r]);
		rstd[r] = 1 / sqrt(q / d + eps);
		for (int k = 0; k < d; k++) y[r * d + k] = (x[r * d + k] - mean[r]) * rstd[r] * (w ? w[k] : 1) + (b ? b[k] : 0);
	}
}

static void layer_norm(void) {
	/* [2, 2, 3] over the last two dims: 2 rows of 6 */
	float x[12] = {1, -2, 3.5f, 0.25f, 4, -1, 2, 2, 2, 2, 2, 3}, w[6] = {1, 2, -1, 0.5f, 1, 3}, b[6] = {0, 1, 0, -1, 2, 0.5f};
	float got[12], gm[2], gr[2];
	double mean[4], rstd[4], y[12];
	int64_t ns2[2] = {2, 3}, ns1[1] = {3}, ns4[1] = {4}, zero[1] = {0};
	aclIntArray *n2 = aclCreateIntArray(ns2, 2), *n1 = aclCreateIntArray(ns1, 1), *n4 = aclCreateIntArray(ns4, 1),
		    *none = aclCreateIntArray(NULL, 0), *n0 = aclCreateIntArray(zero, 1);
	aclTensor *in = T3(F32, 2, 2, 3, x), *wt = T2(F32, 2, 3, w), *bt = T2(F32, 2, 3, b);
	aclTensor *out = T3(F32, 2, 2, 3, NULL), *m = T3(F32, 2, 1, 1, NULL), *r = T3(F32, 2, 1, 1, NULL);
	RUN(LayerNorm, in, n2, wt, bt, 1e-5, out, m, r);
	read(out, got, sizeof got), read(m, gm, sizeof gm), read(r, gr, sizeof gr);
	ref_rows(x, 2, 6, 1e-5, w, b, mean, rstd, y);
	int ok = near(gm[0], mean[0], 1e-6) && near(gm[1], mean[1], 1e-6) && near(gr[0], rstd[0], 1e-6) && near(gr[1], rstd[1], 1e-6);
	CHECK(ok, "layer norm: mean and rstd = 1/sqrt(biased var + eps) per row");
	ok = 1;
	for (int i = 0; i < 12; i++) ok &= near(got[i], y[i], 1e-5);
	CHECK(ok, "layer norm over 2 dims with weight and bias");
	RUN(LayerNorm, in, n1, NULL, NULL, 1e-3, out, NULL, NULL);
	read(out, got, sizeof got);
	ref_rows(x, 4, 3, 1e-3, NULL, NULL, mean, rstd, y);
	ok = 1;
	for (int i = 0; i < 12; i++) ok &= near(got[i], y[i], 1e-5);
	CHECK(ok, "layer norm over 1 dim, no weight, bias, mean or rstd");

	/* FLOAT16 with a FLOAT weight and bias, computed in FLOAT and rounded once to FLOAT16 */
	uint16_t hx[3] = {f2h(1), f2h(2), f2h(4)}, hy[3], hm[1], bx[3] = {f2bf(1), f2bf(2), f2bf(4)}, by[3];
	float one3[3] = {1, 1, 1}, zero3[3] = {0, 0, 0};
	ref_rows((float[]){1, 2, 4}, 1, 3, 1e-5, NULL, NULL, mean, rstd, y);
	aclTensor *ho = T2(F16, 1, 3, NULL), *hmean = T2(F16, 1, 1, NULL);
	RUN(LayerNorm, T2(F16, 1, 3, hx), n1, T1(F32, 3, one3), T1(F32, 3, zero3), 1e-5, ho, hmean, NULL);
	read(ho, hy, sizeof hy), read(hmean, hm, sizeof hm);
	CHECK(near(h2f(hy[0]), y[0], 1e-3) && near(h2f(hy[2]), y[2], 1e-3) && near(h2f(hm[0]), 7.0 / 3, 1e-3),
	      "layer norm of FLOAT16 with a FLOAT weight");
	aclTensor *bo = T2(BF16, 1, 3, NULL);
	RUN(LayerNorm, T2(BF16, 1, 3, bx), n1, NULL, NULL, 1e-5, bo, NULL, NULL);
	read(bo, by, sizeof by);
	CHECK(near(bf2f(by[0]), y[0], 8e-3) && near(bf2f(by[2]), y[2], 8e-3), "layer norm of BFLOAT16 on Atlas A2/A3");

	/* empty: no rows (nothing written); rows of 0 elements (mean 0, rstd NaN) */
	RUN(LayerNorm, T2(F32, 0, 3, NULL), n1, NULL, NULL, 1e-5, T2(F32, 0, 3, NULL), T2(F32, 0, 1, NULL), T2(F32, 0, 1, NULL));
	aclTensor *em = T2(F32, 2, 1, (float[]){5, 5}), *er = T2(F32, 2, 1, NULL);
	RUN(LayerNorm, T2(F32, 2, 0, NULL), n0, NULL, NULL, 1e-5, T2(F32, 2, 0, NULL), em, er);
	read(em, gm, sizeof gm), read(er, gr, sizeof gr);
	CHECK(gm[0] == 0 && gm[1] == 0 && isnan(gr[0]) && isnan(gr[1]), "layer norm of rows of 0 elements: mean 0, rstd NaN");

	REFUSED(161001, "layer norm: input not NULL", LayerNorm, NULL, n2, NULL, NULL, 1e-5, out, m, r);
	REFUSED(161001, "layer norm: normalizedShape not NULL", LayerNorm, in, NULL, NULL, NULL, 1e-5, out, m, r);
	REFUSED(161001, "layer norm: out not NULL", LayerNorm, in, n2, NULL, NULL, 1e-5, NULL, m, r);
	REFUSED(161002, "layer norm takes no DOUBLE", LayerNorm, T3(F64, 2, 2, 3, NULL), n2, NULL, NULL, 1e-5, T3(F64, 2, 2, 3, NULL), NULL,
		NULL);
	REFUSED(161002, "layer norm: normalizedShape not empty", LayerNorm, in, none, NULL, NULL, 1e-5, out, NULL, NULL);
	REFUSED(161002, "layer norm: normalizedShape the trailing dims", LayerNorm, in, n4, NULL, NULL, 1e-5, out, NULL, NULL);
	REFUSED(161002, "layer norm: weight of normalizedShape", LayerNorm, in, n2, T1(F32, 6, NULL), NULL, 1e-5, out, NULL, NULL);
	REFUSED(161002, "layer norm: out of input's shape", LayerNorm, in, n2, NULL, NULL, 1e-5, T2(F32, 4, 3, NULL), NULL, NULL);
	REFUSED(161002, "layer norm: a FLOAT16 weight of a FLOAT input", LayerNorm, in, n2, T2(F16, 2, 3, NULL), NULL, 1e-5, out, NULL,
		NULL);
	REFUSED(161002, "layer norm: weight and bias of one dtype", LayerNorm, T2(F16, 1, 3, NULL), n1, T1(F32, 3, NULL),
		T1(F16, 3, NULL), 1e-5, T2(F16, 1, 3, NULL), NULL, NULL);
	REFUSED(161002, "layer norm: mean of shape [A1,...,Ai,1,...,1]", LayerNorm, in, n2, NULL, NULL, 1e-5, out, T1(F32, 2, NULL), NULL);

	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(161002, "Ascend910A: layer norm takes no BFLOAT16", LayerNorm, T2(BF16, 1, 3, bx), n1, NULL, NULL, 1e-5,
		T2(BF16, 1, 3, NULL), NULL, NULL);
	RUN(LayerNorm, in, n2, wt, bt, 1e-5, out, m, r);
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	REFUSED(161002, "Ascend310P3: no layer norm (its doc)", LayerNorm, in, n2, wt, bt, 1e-5, out, m, r);
	unsetenv("MTEMU_SOC");
	aclDestroyIntArray(n2), aclDestroyIntArray(n1), aclDestroyIntArray(n4), aclDestroyIntArray(none), aclDestroyIntArray(n0);
	free_all();
}

static void layer_norm_backward(void) {
	/* [2, 3] over the last dim, with a weight */
	float x[6] = {1, -2, 3.5f, 0.25f, 4, -1}, w[3] = {1, 2, -0.5f}, g[6] = {0.5f, -1, 2, 1, 1, -3}, got[6], gw[3], gb[3];
	double mean[2], rstd[2], y[6];
	ref_rows(x, 2, 3, 1e-5, NULL, NULL, mean, rstd, y);
	float fm[2] = {(float)mean[0], (float)mean[1]}, fr[2] = {(float)rstd[0], (float)rstd[1]};
	int64_t ns1[1] = {3}, ns2[1] = {2};
	aclIntArray *n1 = aclCreateIntArray(ns1, 1), *n2 = aclCreateIntArray(ns2, 1);
	bool all[3] = {true, true, true}, params[3] = {false, true, true}, two[2] = {true, true};
	aclBoolArray *mask = aclCreateBoolArray(all, 3), *pmask = aclCreateBoolArray(params, 3), *short_mask = aclCreateBoolArray(two, 2);
	aclTensor *gt = T2(F32, 2, 3, g), *in = T2(F32, 2, 3, x), *m = T2(F32, 2, 1, fm), *r = T2(F32, 2, 1, fr), *wt = T1(F32, 3, w);
	aclTensor *gi = T2(F32, 2, 3, NULL), *gwt = T1(F32, 3, NULL), *gbt = T1(F32, 3, NULL);
	RUN(LayerNormBackward, gt, in, n1, m, r, wt, NULL, mask, gi, gwt, gbt);
	read(gi, got, sizeof got), read(gwt, gw, sizeof gw), read(gbt, gb, sizeof gb);
	int ok = 1;
	for (int row = 0; row < 2; row++) {
		double s1 = 0, s2 = 0, xh[3];
		for (int k = 0; k < 3; k++) {
			xh[k] = (x[row * 3 + k] - fm[row]) * fr[row];
			s1 += g[row * 3 + k] * w[k], s2 += g[row * 3 + k] * w[k] * xh[k];
		}
		for (int k = 0; k < 3; k++) ok &= near(got[row * 3 + k], (g[row * 3 + k] * w[k] - s1 / 3 - xh[k] * s2 / 3) * fr[row], 1e-5);
	}
	CHECK(ok, "layer norm backward: the input's gradient from the mean and rstd given");
	ok = 1;
	for (int k = 0; k < 3; k++) {
		double sw = 0;
		for (int row = 0; row < 2; row++) sw += g[row * 3 + k] * (x[row * 3 + k] - fm[row]) * fr[row];
		ok &= near(gw[k], sw, 1e-5) && near(gb[k], g[k] + g[3 + k], 1e-6);
	}
	CHECK(ok, "layer norm backward: gradWeight = sum(g * xhat), gradBias = sum(g)");
	RUN(LayerNormBackward, gt, in, n1, m, r, NULL, NULL, pmask, NULL, gwt, gbt);

	/* no rows: gradWeight and gradBias are zeros */
	aclTensor *zw = T1(F32, 3, (float[]){7, 7, 7}), *zb = T1(F32, 3, (float[]){7, 7, 7});
	RUN(LayerNormBackward, T2(F32, 0, 3, NULL), T2(F32, 0, 3, NULL), n1, T2(F32, 0, 1, NULL), T2(F32, 0, 1, NULL), NULL, NULL, mask,
	    T2(F32, 0, 3, NULL), zw, zb);
	read(zw, gw, sizeof gw), read(zb, gb, sizeof gb);
	CHECK(gw[0] == 0 && gw[2] == 0 && gb[1] == 0, "layer norm backward of no rows: zero gradients of the weight and bias");

	REFUSED(161001, "layer norm backward: mean not NULL", LayerNormBackward, gt, in, n1, NULL, r, wt, NULL, mask, gi, gwt, gbt);
	REFUSED(161001, "layer norm backward: outputMask not NULL", LayerNormBackward, gt, in, n1, m, r, wt, NULL, NULL, gi, gwt, gbt);
	REFUSED(161002, "layer norm backward: outputMask of 3", LayerNormBackward, gt, in, n1, m, r, wt, NULL, short_mask, gi, gwt, gbt);
	REFUSED(161001, "layer norm backward: a gradient asked for not NULL", LayerNormBackward, gt, in, n1, m, r, wt, NULL, mask, NULL,
		gwt, gbt);
	REFUSED(161002, "layer norm backward: gradOut of input's dtype", LayerNormBackward, T2(F16, 2, 3, NULL), in, n1, m, r, wt, NULL,
		mask, gi, gwt, gbt);
	REFUSED(161002, "layer norm backward takes no DOUBLE", LayerNormBackward, T2(F64, 2, 3, NULL), T2(F64, 2, 3, NULL), n1,
		T2(F64, 2, 1, NULL), T2(F64, 2, 1, NULL), NULL, NULL, pmask, NULL, T1(F64, 3, NULL), T1(F64, 3, NULL));
	REFUSED(161002, "layer norm backward: mean of rstd's shape", LayerNormBackward, gt, in, n1, T1(F32, 2, fm), r, wt, NULL, mask, gi,
		gwt, gbt);
	REFUSED(161002, "layer norm backward: mean of M elements", LayerNormBackward, gt, in, n1, T2(F32, 3, 1, NULL),
		T2(F32, 3, 1, NULL), wt, NULL, mask, gi, gwt, gbt);
	REFUSED(161002, "layer norm backward: normalizedShape the trailing dims", LayerNormBackward, gt, in, n2, m, r, NULL, NULL, mask,
		gi, gwt, gbt);
	REFUSED(161002, "layer norm backward: gradWeight of N elements", LayerNormBackward, gt, in, n1, m, r, wt, NULL, mask, gi,
		T1(F32, 2, NULL), gbt);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(161002, "Ascend910A: layer norm backward takes no BFLOAT16", LayerNormBackward, T2(BF16, 2, 3, NULL),
		T2(BF16, 2, 3, NULL), n1, T2(BF16, 2, 1, NULL), T2(BF16, 2, 1, NULL), NULL, NULL, pmask, NULL, T1(BF16, 3, NULL),
		T1(BF16, 3, NULL));
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	RUN(LayerNormBackward, gt, in, n1, m, r, wt, NULL, mask, gi, gwt, gbt);
	unsetenv("MTEMU_SOC");
	aclDestroyIntArray(n1), aclDestroyIntArray(n2);
	aclDestroyBoolArray(mask), aclDestroyBoolArray(pmask), aclDestroyBoolArray(short_mask);
	free_all();
}

static void group_norm(void) {
	/* [N=2, C=4, HxW=2] in 2 groups: rows of 2 channels x 2 */
	float x[16] = {1, 2, -3, 4, 0.5f, 0.5f, 2, -1, 3, 3, 3, 3, 1, 2, 3, 4}, gam[4] = {1, -2, 0.5f, 3}, bet[4] = {0, 1, -1, 2};
	float got[16], gm[4], gr[4];
	double mean[4], rstd[4], y[16];
	aclTensor *in = T3(F32, 2, 4, 2, x), *gt = T1(F32, 4, gam), *bt = T1(F32, 4, bet);
	aclTensor *out = T3(F32, 2, 4, 2, NULL), *m = T2(F32, 2, 2, NULL), *r = T2(F32, 2, 2, NULL);
	RUN(GroupNorm, in, gt, bt, 2, 4, 2, 2, 1e-5, out, m, r);
	read(out, got, sizeof got), read(m, gm, sizeof gm), read(r, gr, sizeof gr);
	ref_rows(x, 4, 4, 1e-5, NULL, NULL, mean, rstd, y);
	int ok = 1;
	for (int i = 0; i < 4; i++) ok &= near(gm[i], mean[i], 1e-6) && near(gr[i], rstd[i], 1e-6);
	CHECK(ok, "group norm: mean and rstd [N, group]");
	ok = 1;
	for (int i = 0; i < 16; i++) {
		int ch = (i / 2) % 4;
		ok &= near(got[i], y[i] * gam[ch] + bet[ch], 1e-5);
	}
	CHECK(ok, "group norm: each channel scaled by gamma and shifted by beta");
	RUN(GroupNorm, in, NULL, NULL, 2, 4, 2, 1, 1e-5, out, T2(F32, 2, 1, NULL), T2(F32, 2, 1, NULL));
	read(out, got, sizeof got);
	ref_rows(x, 2, 8, 1e-5, NULL, NULL, mean, rstd, y);
	ok = 1;
	for (int i = 0; i < 16; i++) ok &= near(got[i], y[i], 1e-5);
	CHECK(ok, "group norm in 1 group without gamma and beta");
	uint16_t hx[4] = {f2h(1), f2h(2), f2h(3), f2h(5)}, hy[4];
	aclTensor *ho = T2(F16, 1, 4, NULL);
	RUN(GroupNorm, T2(F16, 1, 4, hx), NULL, NULL, 1, 4, 1, 1, 1e-5, ho, T2(F16, 1, 1, NULL), T2(F16, 1, 1, NULL));
	read(ho, hy, sizeof hy);
	ref_rows((float[]){1, 2, 3, 5}, 1, 4, 1e-5, NULL, NULL, mean, rstd, y);
	CHECK(near(h2f(hy[0]), y[0], 1e-3) && near(h2f(hy[3]), y[3], 1e-3), "group norm of a 2-D FLOAT16 input");

	/* empty: mean 0, rstd NaN */
	aclTensor *em = T2(F32, 2, 2, (float[]){5, 5, 5, 5}), *er = T2(F32, 2, 2, NULL);
	RUN(GroupNorm, T3(F32, 2, 4, 0, NULL), NULL, NULL, 2, 4, 0, 2, 1e-5, T3(F32, 2, 4, 0, NULL), em, er);
	read(em, gm, sizeof gm), read(er, gr, sizeof gr);
	CHECK(gm[0] == 0 && gm[3] == 0 && isnan(gr[0]) && isnan(gr[3]), "group norm of an empty input: mean 0, rstd NaN");

	REFUSED(161001, "group norm: meanOut not NULL", GroupNorm, in, gt, bt, 2, 4, 2, 2, 1e-5, out, NULL, r);
	REFUSED(161002, "group norm: group divides C", GroupNorm, in, gt, bt, 2, 4, 2, 3, 1e-5, out, m, r);
	REFUSED(161002, "group norm: eps > 0", GroupNorm, in, gt, bt, 2, 4, 2, 2, 0.0, out, m, r);
	REFUSED(161002, "group norm: meanOut [N, group]", GroupNorm, in, gt, bt, 2, 4, 2, 2, 1e-5, out, T2(F32, 2, 1, NULL), r);
	REFUSED(161002, "group norm: gamma of C", GroupNorm, in, T1(F32, 3, NULL), bt, 2, 4, 2, 2, 1e-5, out, m, r);
	REFUSED(161002, "group norm: self of 2 dims or more", GroupNorm, T1(F32, 4, NULL), NULL, NULL, 1, 4, 1, 1, 1e-5, T1(F32, 4, NULL),
		T2(F32, 1, 1, NULL), T2(F32, 1, 1, NULL));
	REFUSED(161002, "group norm: HxW the elements per channel", GroupNorm, in, gt, bt, 2, 4, 1, 2, 1e-5, out, m, r);
	REFUSED(161002, "group norm: gamma of self's dtype", GroupNorm, in, T1(F16, 4, NULL), bt, 2, 4, 2, 2, 1e-5, out, m, r);
	REFUSED(161002, "group norm takes no DOUBLE", GroupNorm, T3(F64, 2, 4, 2, NULL), NULL, NULL, 2, 4, 2, 2, 1e-5,
		T3(F64, 2, 4, 2, NULL), T2(F64, 2, 2, NULL), T2(F64, 2, 2, NULL));
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(161002, "Ascend910A: group norm takes no BFLOAT16", GroupNorm, T2(BF16, 1, 4, NULL), NULL, NULL, 1, 4, 1, 1, 1e-5,
		T2(BF16, 1, 4, NULL), T2(BF16, 1, 1, NULL), T2(BF16, 1, 1, NULL));
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	RUN(GroupNorm, in, gt, bt, 2, 4, 2, 2, 1e-5, out, m, r);
	unsetenv("MTEMU_SOC");
	free_all();
}

static void group_norm_backward(void) {
	/* [N=1, C=4, HxW=2] in 2 groups */
	float x[8] = {1, 2, -3, 4, 0.5f, 0.5f, 2, -1}, gam[4] = {1, -2, 0.5f, 3}, g[8] = {1, -1, 0.5f, 2, 0, 3, -2, 1};
	float got[8], gg[4], gb[4];
	double mean[2], rstd[2], y[8];
	ref_rows(x, 2, 4, 1e-5, NULL, NULL, mean, rstd, y);
	float fm[2] = {(float)mean[0], (float)mean[1]}, fr[2] = {(float)rstd[0], (float)rstd[1]};
	bool all[3] = {true, true, true}, two[2] = {true, true};
	aclBoolArray *mask = aclCreateBoolArray(all, 3), *short_mask = aclCreateBoolArray(two, 2);
	aclTensor *gt = T3(F32, 1, 4, 2, g), *in = T3(F32, 1, 4, 2, x), *m = T2(F32, 1, 2, fm), *r = T2(F32, 1, 2, fr), *wt = T1(F32, 4, gam);
	aclTensor *gi = T3(F32, 1, 4, 2, NULL), *ggt = T1(F32, 4, NULL), *gbt = T1(F32, 4, NULL);
	RUN(GroupNormBackward, gt, in, m, r, wt, 1, 4, 2, 2, mask, gi, ggt, gbt);
	read(gi, got, sizeof got), read(ggt, gg, sizeof gg), read(gbt, gb, sizeof gb);
	int ok = 1;
	for (int row = 0; row < 2; row++) {
		double s1 = 0, s2 = 0, xh[4];
		for (int k = 0; k < 4; k++) {
			int i = row * 4 + k, ch = i / 2;
			xh[k] = (x[i] - fm[row]) * fr[row];
			s1 += g[i] * gam[ch], s2 += g[i] * gam[ch] * xh[k];
		}
		for (int k = 0; k < 4; k++) {
			int i = row * 4 + k, ch = i / 2;
			ok &= near(got[i], fr[row] * (g[i] * gam[ch] - s1 / 4 - xh[k] * s2 / 4), 1e-5);
		}
	}
	CHECK(ok, "group norm backward: the input's gradient, PyTorch's");
	ok = 1;
	for (int ch = 0; ch < 4; ch++) {
		int row = ch / 2;
		double sg = 0;
		for (int k = 0; k < 2; k++) sg += g[ch * 2 + k] * (x[ch * 2 + k] - fm[row]) * fr[row];
		ok &= near(gg[ch], sg, 1e-5) && near(gb[ch], g[ch * 2] + g[ch * 2 + 1], 1e-6);
	}
	CHECK(ok, "group norm backward: gradGamma = sum(g * xhat), gradBeta = sum(g) per channel");

	/* an empty input: nothing is written */
	aclTensor *kw = T1(F32, 4, (float[]){7, 7, 7, 7});
	RUN(GroupNormBackward, T3(F32, 0, 4, 2, NULL), T3(F32, 0, 4, 2, NULL), T2(F32, 0, 2, NULL), T2(F32, 0, 2, NULL), NULL, 0, 4, 2, 2,
	    mask, T3(F32, 0, 4, 2, NULL), kw, T1(F32, 4, NULL));
	read(kw, gg, sizeof gg);
	CHECK(gg[0] == 7 && gg[3] == 7, "group norm backward of an empty input writes nothing");

	REFUSED(161001, "group norm backward: rstd not NULL", GroupNormBackward, gt, in, m, NULL, wt, 1, 4, 2, 2, mask, gi, ggt, gbt);
	REFUSED(161002, "group norm backward: outputMask of 3", GroupNormBackward, gt, in, m, r, wt, 1, 4, 2, 2, short_mask, gi, ggt, gbt);
	REFUSED(161002, "group norm backward: a gradient asked for not NULL (PARAM_INVALID)", GroupNormBackward, gt, in, m, r, wt, 1, 4,
		2, 2, mask, gi, NULL, gbt);
	REFUSED(161002, "group norm backward: mean of gradOut's dtype", GroupNormBackward, gt, in, T2(F16, 1, 2, NULL), r, wt, 1, 4, 2, 2,
		mask, gi, ggt, gbt);
	REFUSED(161002, "group norm backward: group divides C", GroupNormBackward, gt, in, m, r, wt, 1, 4, 2, 3, mask, gi, ggt, gbt);
	REFUSED(161002, "group norm backward: mean of N*group", GroupNormBackward, gt, in, T2(F32, 1, 3, NULL), r, wt, 1, 4, 2, 2, mask, gi,
		ggt, gbt);
	REFUSED(161002, "group norm backward: input of N*C*HxW", GroupNormBackward, gt, in, m, r, wt, 1, 4, 3, 2, mask, gi, ggt, gbt);
	REFUSED(161002, "group norm backward: gradGamma of gamma's shape", GroupNormBackward, gt, in, m, r, wt, 1, 4, 2, 2, mask, gi,
		T2(F32, 2, 2, NULL), gbt);
	aclTensor *wide = T2(F32, 1, 8002, NULL), *wm = T2(F32, 1, 1, NULL), *wr = T2(F32, 1, 1, (float[]){1});
	REFUSED(161002, "Ascend910B3: group norm backward takes at most 8000 channels per group", GroupNormBackward, wide, wide, wm, wr,
		NULL, 1, 8002, 1, 1, mask, T2(F32, 1, 8002, NULL), T1(F32, 8002, NULL), T1(F32, 8002, NULL));
	setenv("MTEMU_SOC", "Ascend910A", 1);
	RUN(GroupNormBackward, wide, wide, wm, wr, NULL, 1, 8002, 1, 1, mask, T2(F32, 1, 8002, NULL), T1(F32, 8002, NULL),
	    T1(F32, 8002, NULL));
	REFUSED(161002, "Ascend910A: group norm backward takes no BFLOAT16", GroupNormBackward, T2(BF16, 1, 4, NULL), T2(BF16, 1, 4, NULL),
		T2(BF16, 1, 1, NULL), T2(BF16, 1, 1, NULL), NULL, 1, 4, 1, 1, mask, T2(BF16, 1, 4, NULL), T1(BF16, 4, NULL),
		T1(BF16, 4, NULL));
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	REFUSED(161002, "Ascend310P3: no group norm backward (its doc)", GroupNormBackward, gt, in, m, r, wt, 1, 4, 2, 2, mask, gi, ggt, gbt);
	unsetenv("MTEMU_SOC");
	aclDestroyBoolArray(mask), aclDestroyBoolArray(short_mask);
	free_all();
}

int main(void) {
	rules_begin();
	layer_norm();
	layer_norm_backward();
	group_norm();
	group_norm_backward();
	return rules_end();
}
