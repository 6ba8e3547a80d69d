/*
 * Checks that the CANN emulator's creation ops (emu_creation_ops.inc:
 * arange, linspace) refuse what their op_api sources refuse (561103 for a
 * NULL argument, 161002) and compute as their kernels do. Linked as
 * emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

typedef const aclScalar *S;
OP(Arange, S, S, S, aclTensor *)
OP(Linspace, S, S, int64_t, aclTensor *)

enum { I16 = 6, NULLPTR = 561103, INVALID = 161002 };

static aclScalar *scalars[128];
static int nscalars;

/* keep holds s until free_scalars. */
static aclScalar *keep(aclScalar *s) {
	if (nscalars == (int)(sizeof scalars / sizeof scalars[0])) {
		printf("FAIL too many scalars\n");
		exit(1);
	}
	return scalars[nscalars++] = s;
}

/* I and D make INT64 and DOUBLE scalars, freed by free_scalars. */
static aclScalar *I(int64_t v) { return keep(aclCreateScalar(&v, I64)); }
static aclScalar *D(double v) { return keep(aclCreateScalar(&v, F64)); }

static void free_scalars(void) {
	for (int i = 0; i < nscalars; i++) aclDestroyScalar(scalars[i]);
	nscalars = 0;
}

static void arange(void) {
	int64_t got[5] = {0};
	aclTensor *o = T1(I64, 4, NULL);
	RUN(Arange, I(0), I(10), I(3), o);
	read(o, got, 32);
	CHECK(got[0] == 0 && got[1] == 3 && got[2] == 6 && got[3] == 9, "arange 0..10 by 3");
	aclTensor *o3 = T1(I64, 3, NULL);
	RUN(Arange, I(5), I(-6), I(-4), o3);
	read(o3, got, 24);
	CHECK(got[0] == 5 && got[1] == 1 && got[2] == -3, "arange 5..-6 by -4");
	aclTensor *o5 = T1(I64, 5, (int64_t[]){7, 7, 7, 7, 7});
	RUN(Arange, I(0), I(8), I(2), o5);
	read(o5, got, 40);
	CHECK(got[3] == 6 && got[4] == 7, "arange writes the smaller of its count and out's size");
	RUN(Arange, I(INT64_MAX - 5), I(INT64_MAX), I(2), o);
	read(o, got, 24);
	CHECK(got[0] == INT64_MAX - 5 && got[2] == INT64_MAX - 1, "arange near INT64_MAX");
	RUN(Arange, D(0.5), D(5.9), D(2.7), o);
	read(o, got, 24);
	CHECK(got[0] == 0 && got[1] == 2 && got[2] == 4, "DOUBLE scalars into INT64 are truncated");
	int32_t g32[3] = {0};
	aclTensor *o32 = T1(I32, 3, NULL);
	RUN(Arange, I(-7), I(7), I(5), o32);
	read(o32, g32, 12);
	CHECK(g32[0] == -7 && g32[1] == -2 && g32[2] == 3, "arange into INT32");
	REFUSED(INVALID, "arange: INT32 values out of range are not modelled", Arange, I(0), I(1ll << 40), I(1ll << 38), o32);
	REFUSED(INVALID, "arange: step 0", Arange, I(0), I(10), I(0), o);
	REFUSED(INVALID, "arange: step 0.4 reads as 0 for INT64", Arange, D(0), D(1), D(0.4), o);
	REFUSED(INVALID, "arange: step of the wrong sign", Arange, I(0), I(10), I(-1), o);
	REFUSED(INVALID, "arange: NaN step", Arange, D(0), D(1), D(NAN), T1(F32, 2, NULL));
	REFUSED(INVALID, "arange takes no BOOL out", Arange, I(0), I(2), I(1), T1(BOOL, 2, NULL));
	REFUSED(INVALID, "arange takes no INT8 out", Arange, I(0), I(2), I(1), T1(I8, 2, NULL));
	REFUSED(INVALID, "arange: FLOAT outs are not modelled", Arange, I(0), I(2), I(1), T1(F32, 2, NULL));
	REFUSED(INVALID, "arange: an empty out is not modelled", Arange, I(0), I(0), I(1), T1(I64, 0, NULL));
	REFUSED(NULLPTR, "arange: NULL start", Arange, NULL, I(2), I(1), o);
	REFUSED(NULLPTR, "arange: NULL out", Arange, I(0), I(2), I(1), NULL);
	uint16_t bf = 0x3f80;
	aclScalar *b = aclCreateScalar(&bf, BF16);
	RUN(Arange, b, I(3), I(1), o32);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(INVALID, "arange: BF16 scalars on Ascend910A", Arange, b, I(3), I(1), o32);
	unsetenv("MTEMU_SOC");
	aclDestroyScalar(b);
	free_scalars();
	free_all();
}

/* f32 rounds to float. */
static float f32(double v) {
	volatile float f = (float)v;
	return f;
}

static void linspace(void) {
	float got[8] = {0};
	aclTensor *o = T1(F32, 7, NULL);
	RUN(Linspace, D(-1), D(1), 7, o);
	read(o, got, 28);
	float step = f32(2.0 / 6), w[7];
	for (int i = 0; i < 7; i++) w[i] = i < 3 ? f32(-1 + (double)f32(step * i)) : f32(1 - (double)f32(step * (6 - i)));
	CHECK(memcmp(got, w, sizeof w) == 0, "linspace(-1, 1, 7) in float, from both ends");
	aclTensor *o1 = T1(F32, 1, NULL);
	RUN(Linspace, D(3.7), D(9), 1, o1);
	read(o1, got, 4);
	CHECK(got[0] == 3.7f, "linspace of 1 step fills with start");
	int32_t i1 = 0;
	aclTensor *oi = T1(I32, 1, NULL);
	RUN(Linspace, D(3.7), D(9), 1, oi);
	read(oi, &i1, 4);
	CHECK(i1 == 3, "linspace of 1 step into INT32 truncates start");
	RUN(Linspace, D(0), D(1), 0, T1(F32, 0, NULL));
	double d[4];
	aclTensor *od = T1(F64, 4, NULL);
	RUN(Linspace, D(0), D(1), 4, od);
	read(od, d, 32);
	CHECK(d[0] == 0 && d[1] == 1.0 / 3 && d[2] == (1.0 / 3) * 2 && d[3] == 1, "DOUBLE by the AICPU kernel, from start only");
	RUN(Linspace, I(1), I(2), 1, T1(I16, 1, NULL));
	REFUSED(INVALID, "linspace: steps < 0", Linspace, D(0), D(1), -1, o);
	REFUSED(INVALID, "linspace: out's size is steps", Linspace, D(0), D(1), 6, o);
	REFUSED(INVALID, "linspace takes no INT64", Linspace, D(0), D(1), 2, T1(I64, 2, NULL));
	REFUSED(INVALID, "linspace takes no BOOL", Linspace, D(0), D(1), 2, T1(BOOL, 2, NULL));
	REFUSED(INVALID, "linspace: 9 FLOAT steps are not modelled", Linspace, D(0), D(1), 9, T1(F32, 9, NULL));
	REFUSED(INVALID, "linspace: FLOAT16 of 2 steps is not modelled", Linspace, D(0), D(1), 2, T1(F16, 2, NULL));
	REFUSED(NULLPTR, "linspace: NULL end", Linspace, D(0), NULL, 7, o);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	REFUSED(INVALID, "linspace takes no INT16 on Ascend910A", Linspace, I(1), I(2), 1, T1(I16, 1, NULL));
	REFUSED(INVALID, "linspace takes no BF16 on Ascend910A", Linspace, I(1), I(2), 1, T1(BF16, 1, NULL));
	RUN(Linspace, D(-1), D(1), 7, o);
	setenv("MTEMU_SOC", "Ascend910_9591", 1);
	REFUSED(INVALID, "linspace: the regbase kernels are not modelled", Linspace, D(-1), D(1), 7, o);
	unsetenv("MTEMU_SOC");
	free_scalars();
	free_all();
}

int main(void) {
	rules_begin();
	arange();
	linspace();
	return rules_end();
}
