/*
 * Checks that the CANN emulator's aclnnSvd (emu_svd_ops.inc) refuses what
 * its op_api source refuses (hicann/ops-math math/svd/op_host/op_api/
 * aclnn_svd.cpp: 161001 for a NULL tensor, 161002 for dtypes, dims and
 * output shapes, and SoCs its doc does not list) and decomposes: sigma
 * descending, U diag(sigma) V^T = input, U and V orthonormal. Linked as
 * emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

OP(Svd, T, bool, bool, aclTensor *, aclTensor *, aclTensor *)

enum { NULLPTR = 161001, INVALID = 161002 };

#define T3(dt, a, b, c, ...) ten(dt, 3, (int64_t[]){a, b, c}, ND, __VA_ARGS__)

/* near reports whether |a - b| <= tol. */
static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* factors checks one m x n matrix a against u (m x uc), s and v (n x vc),
 * all row-major, k = min(m, n). */
static void factors(const char *what, const float *a, const float *u, const float *s, const float *v, int m, int n, int uc, int vc) {
	int k = m < n ? m : n, ok = 1;
	for (int i = 0; i + 1 < k; i++) ok &= s[i] >= s[i + 1] && s[i + 1] >= 0;
	CHECK(ok, what);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double r = 0;
			for (int l = 0; l < k; l++) r += (double)u[i * uc + l] * s[l] * v[j * vc + l];
			ok &= near(r, a[i * n + j], 1e-5);
		}
	CHECK(ok, what);
	for (int p = 0; p < uc; p++)
		for (int q = 0; q < uc; q++) {
			double d = 0;
			for (int i = 0; i < m; i++) d += (double)u[i * uc + p] * u[i * uc + q];
			ok &= near(d, p == q, 1e-5);
		}
	CHECK(ok, what);
	for (int p = 0; p < vc; p++)
		for (int q = 0; q < vc; q++) {
			double d = 0;
			for (int j = 0; j < n; j++) d += (double)v[j * vc + p] * v[j * vc + q];
			ok &= near(d, p == q, 1e-5);
		}
	CHECK(ok, what);
}

static void svd(void) {
	float a[6] = {1, 2, 3, 4, 5, 6}, u[4], s[2], v[9];
	aclTensor *in = T2(F32, 2, 3, a);
	aclTensor *ts = T1(F32, 2, NULL), *tu = T2(F32, 2, 2, NULL), *tv = T2(F32, 3, 3, NULL);
	RUN(Svd, in, true, true, ts, tu, tv);
	read(ts, s, sizeof s), read(tu, u, sizeof u), read(tv, v, sizeof v);
	factors("svd 2x3 full: the doc's example", a, u, s, v, 2, 3, 2, 3);
	CHECK(near(s[0], 9.508032, 1e-5) && near(s[1], 0.7728696, 1e-5), "svd 2x3: the singular values");
	aclTensor *rv = T2(F32, 3, 2, NULL);
	RUN(Svd, in, false, true, ts, tu, rv);
	float v2[6];
	read(ts, s, sizeof s), read(tu, u, sizeof u), read(rv, v2, sizeof v2);
	factors("svd 2x3 reduced: v is n x k", a, u, s, v2, 2, 3, 2, 2);
	/* tall, batched, with a zero matrix: full U completed */
	float b[2 * 3 * 2] = {1, 0, 0, 2, 3, 4, 0, 0, 0, 0, 0, 0}, bu[2 * 9], bs[4], bv[2 * 4];
	aclTensor *bt = T3(F32, 2, 3, 2, b), *bst = T2(F32, 2, 2, NULL), *but = T3(F32, 2, 3, 3, NULL), *bvt = T3(F32, 2, 2, 2, NULL);
	RUN(Svd, bt, true, true, bst, but, bvt);
	read(bst, bs, sizeof bs), read(but, bu, sizeof bu), read(bvt, bv, sizeof bv);
	factors("svd batch 0 (3x2, full)", b, bu, bs, bv, 3, 2, 3, 2);
	factors("svd batch 1 (zeros, full)", b + 6, bu + 9, bs + 2, bv + 4, 3, 2, 3, 2);
	CHECK(bs[2] == 0 && bs[3] == 0, "svd of zeros: zero values");
	/* computeUV false: sigma alone, u and v still checked and left alone */
	float keep[4] = {7, 7, 7, 7}, got[4];
	aclTensor *ku = T2(F32, 2, 2, keep);
	RUN(Svd, in, false, false, ts, ku, rv);
	read(ts, s, sizeof s), read(ku, got, sizeof got);
	CHECK(near(s[0], 9.508032, 1e-5) && got[0] == 7 && got[3] == 7, "svd computeUV false: sigma alone");
	REFUSED(INVALID, "svd computeUV false: u still checked", Svd, in, false, false, ts, T2(F32, 2, 3, NULL), rv);
	/* DOUBLE */
	double da[4] = {2, 0, 0, -3}, ds[2], du[4], dv[4];
	aclTensor *dts = T1(F64, 2, NULL), *dtu = T2(F64, 2, 2, NULL), *dtv = T2(F64, 2, 2, NULL);
	RUN(Svd, T2(F64, 2, 2, da), true, true, dts, dtu, dtv);
	read(dts, ds, sizeof ds), read(dtu, du, sizeof du), read(dtv, dv, sizeof dv);
	CHECK(ds[0] == 3 && ds[1] == 2, "svd DOUBLE: exact values");
	CHECK(du[2] * ds[0] * dv[2] == -3 && du[1] * ds[1] * dv[1] == 2, "svd DOUBLE: vectors (input = U diag(sigma) V^T)");
	/* empty input: passes, writes nothing */
	RUN(Svd, T2(F32, 0, 3, NULL), true, true, T1(F32, 0, NULL), T2(F32, 0, 0, NULL), T2(F32, 3, 3, NULL));
	/* refusals */
	REFUSED(NULLPTR, "svd: NULL input", Svd, NULL, true, true, ts, tu, tv);
	REFUSED(NULLPTR, "svd: NULL v", Svd, in, true, true, ts, tu, NULL);
	REFUSED(INVALID, "svd takes no FLOAT16", Svd, T2(F16, 2, 3, NULL), true, true, T1(F16, 2, NULL), T2(F16, 2, 2, NULL),
		T2(F16, 3, 3, NULL));
	REFUSED(INVALID, "svd takes no INT32", Svd, T2(I32, 2, 3, NULL), true, true, T1(I32, 2, NULL), T2(I32, 2, 2, NULL),
		T2(I32, 3, 3, NULL));
	REFUSED(INVALID, "svd: one dtype", Svd, in, true, true, T1(F64, 2, NULL), tu, tv);
	REFUSED(INVALID, "svd: input of 1 dim", Svd, T1(F32, 3, NULL), true, true, T1(F32, 1, NULL), tu, tv);
	/* more than 8 dims (refused too): the emulator makes no such tensor */
	REFUSED(INVALID, "svd: full u is m x m", Svd, in, true, true, ts, T2(F32, 2, 3, NULL), tv);
	REFUSED(INVALID, "svd: full v is n x n", Svd, in, true, true, ts, tu, rv);
	REFUSED(INVALID, "svd: reduced v is n x k, not k x n", Svd, in, false, true, ts, tu, T2(F32, 2, 3, NULL));
	REFUSED(INVALID, "svd: sigma is k", Svd, in, true, true, T1(F32, 3, NULL), tu, tv);
	REFUSED(INVALID, "svd: batch dims", Svd, bt, true, true, T2(F32, 1, 2, NULL), but, bvt);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(INVALID, "svd is not on Ascend910A", Svd, in, true, true, ts, tu, tv);
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	REFUSED(INVALID, "svd is not on Ascend310P3", Svd, in, true, true, ts, tu, tv);
	setenv("MTEMU_SOC", "Ascend950PR_9599", 1);
	REFUSED(INVALID, "svd is not on Ascend950", Svd, in, true, true, ts, tu, tv);
	setenv("MTEMU_SOC", "Ascend910_9391", 1);
	RUN(Svd, in, true, true, ts, tu, tv);
	unsetenv("MTEMU_SOC");
	free_all();
}

int main(void) {
	rules_begin();
	svd();
	return rules_end();
}
