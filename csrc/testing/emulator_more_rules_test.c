/*
 * Checks that the CANN emulator's more ops (emu_more_ops.inc: dot, cumprod,
 * searchsorted, nonzero, masked_select) refuse what their op_api sources
 * refuse (161001, 161002) and compute as PyTorch does. Linked as
 * emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

OP(Dot, T, T, aclTensor *)
OP(Cumprod, T, const aclScalar *, int, aclTensor *)
OP(SearchSorted, T, T, bool, bool, T, aclTensor *)
OP(Nonzero, T, aclTensor *)
OP(MaskedSelect, T, T, aclTensor *)

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
	rules_begin();
	dot();
	cumprod();
	searchsorted();
	nonzero_and_masked_select();
	return rules_end();
}
