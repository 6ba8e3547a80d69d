/*
 * Checks that the CANN emulator's nn and indexing ops (emu_nn_ops.inc)
 * refuse what their op_api sources refuse (161001, 161002), compute exactly,
 * and fault on an index out of range at the synchronize; and that the
 * tensor lists and bool arrays of libnnopbase keep the counters. Linked to
 * libascendcl.so, libnnopbase.so, libopapi.so and the core; built and run by
 * internal/npuemu's TestEmulatorNNRules (also under the sanitizers); prints
 * the failed checks and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

OP(IndexSelect, T, int64_t, T, aclTensor *)
OP(Gather, T, int64_t, T, aclTensor *)
OP(Scatter, T, int64_t, T, T, int64_t, aclTensor *)
OP(ScatterAdd, T, int64_t, T, T, aclTensor *)
OP(IndexAdd, T, int64_t, T, T, const aclScalar *, aclTensor *)
OP(InplaceMaskedFillScalar, aclTensor *, T, const aclScalar *)
OP(Cumsum, T, int64_t, int, aclTensor *)
OP(ArgMin, T, int64_t, bool, aclTensor *)
OP(Amin, T, A, bool, aclTensor *)
OP(MaxDim, T, int64_t, bool, aclTensor *, aclTensor *)
OP(ProdDim, T, int64_t, bool, int, aclTensor *)
OP(Sort, T, bool, int64_t, bool, aclTensor *, aclTensor *)
OP(Topk, T, int64_t, int64_t, bool, bool, aclTensor *, aclTensor *)
OP(Cat, const aclTensorList *, int64_t, aclTensor *)
OP(Flip, T, A, aclTensor *)
OP(BatchNorm, T, T, T, aclTensor *, aclTensor *, bool, double, double, aclTensor *, aclTensor *, aclTensor *)
OP(BatchNormBackward, T, T, T, T, T, T, T, bool, double, const aclBoolArray *, aclTensor *, aclTensor *, aclTensor *)
OP(Convolution, T, T, T, A, A, A, bool, A, int64_t, aclTensor *, int8_t)

static void lists_and_arrays(void) {
	long long t0 = counter(TENSORS), a0 = counter(ARRAYS);
	int64_t shape[1] = {2}, stride[1] = {1}, storage = 2;
	void *p = NULL;
	aclrtMalloc(&p, 8, 0);
	const aclTensor *ts[2] = {aclCreateTensor(shape, 1, F32, stride, 0, ND, &storage, 1, p),
				  aclCreateTensor(shape, 1, F32, stride, 0, ND, &storage, 1, p)};
	aclTensorList *l = aclCreateTensorList(ts, 2);
	CHECK(l && counter(TENSORS) == t0 + 2 && counter(ARRAYS) == a0 + 1, "a tensor list keeps its tensors");
	CHECK(aclDestroyTensorList(l) == 0 && counter(TENSORS) == t0 && counter(ARRAYS) == a0,
	      "aclDestroyTensorList destroys the tensors with the list");
	bool m[3] = {true, false, true};
	aclBoolArray *b = aclCreateBoolArray(m, 3);
	CHECK(b && counter(ARRAYS) == a0 + 1 && aclDestroyBoolArray(b) == 0 && counter(ARRAYS) == a0, "bool arrays are counted");
	aclrtFree(p);
}

static void index_ops(void) {
	float x[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, got[12];
	int64_t i2[2] = {2, 0}, bad[2] = {1, 3}, g6[6] = {2, 0, 1, 1, 0, 0};
	float fi[2] = {0, 1};
	aclTensor *self = T2(F32, 3, 4, x), *ix = T1(I64, 2, i2), *out = T2(F32, 3, 2, NULL);
	RUN(IndexSelect, self, 1, ix, out);
	back(0, got, 6 * 4);
	CHECK(got[0] == 2 && got[1] == 0 && got[4] == 10 && got[5] == 8, "index_select picks the columns");
	REFUSED(161002, "index_select takes no FLOAT index", IndexSelect, self, 1, T1(F32, 2, fi), out);
	REFUSED(161002, "index_select takes no 2-D index", IndexSelect, self, 1, T2(I64, 1, 2, i2), out);
	REFUSED(161002, "index_select's dim in range", IndexSelect, self, 2, ix, out);
	REFUSED(161002, "index_select's out of the selected shape", IndexSelect, self, 0, ix, out);

	aclTensor *gix = T2(I64, 2, 3, g6), *gout = T2(F32, 2, 3, NULL);
	RUN(Gather, self, 1, gix, gout);
	back(0, got, 6 * 4);
	CHECK(got[0] == 2 && got[1] == 0 && got[2] == 1 && got[3] == 5 && got[4] == 4 && got[5] == 4, "gather along dim 1");
	REFUSED(161002, "gather needs self and index of one rank", Gather, self, 1, ix, T1(F32, 2, NULL));
	REFUSED(161002, "gather's out has the index's shape", Gather, self, 1, gix, T2(F32, 3, 2, NULL));
	long long m0 = counter(MISUSES);
	aclTensor *oob = T1(I64, 2, bad), *o2 = T1(F32, 2, NULL);
	RUNS(507015, Gather, T1(F32, 3, x), 0, oob, o2);
	CHECK(counter(MISUSES) == m0 + 1, "an index out of range faults the kernel at the synchronize");

	/* scatter with repeated positions: the last in the index's order wins; add adds */
	int64_t si[3] = {1, 1, 0};
	float sv[3] = {5, 6, 7}, zeros[4] = {0};
	aclTensor *sself = T1(F32, 4, zeros), *sidx = T1(I64, 3, si), *ssrc = T1(F32, 3, sv), *sout = T1(F32, 4, NULL);
	RUN(Scatter, sself, 0, sidx, ssrc, 0, sout);
	back(0, got, 16);
	CHECK(got[0] == 7 && got[1] == 6 && got[2] == 0, "scatter: the last write wins");
	RUN(Scatter, sself, 0, sidx, ssrc, 1, sout);
	back(0, got, 16);
	CHECK(got[0] == 7 && got[1] == 11, "scatter with reduce 1 adds");
	RUN(ScatterAdd, sself, 0, sidx, ssrc, sout);
	back(0, got, 16);
	CHECK(got[1] == 11, "scatter_add adds");
	REFUSED(161002, "scatter: index larger than src", Scatter, T1(F32, 8, NULL), 0, T1(I64, 4, NULL), ssrc, 0, T1(F32, 8, NULL));
	REFUSED(161002, "scatter: src of self's dtype", Scatter, sself, 0, sidx, T1(I64, 3, NULL), 0, sout);

	double two = 2;
	aclScalar *alpha = aclCreateScalar(&two, F64);
	RUN(IndexAdd, sself, 0, sidx, ssrc, alpha, sout);
	read(sout, got, 16);
	CHECK(got[0] == 14 && got[1] == 22, "index_add adds alpha times the source");
	REFUSED(161002, "index_add: source's size in dim is the index's", IndexAdd, sself, 0, T1(I64, 2, NULL), ssrc, alpha, sout);
	aclDestroyScalar(alpha);

	bool mk[4] = {true, false, false, true};
	float v = -1;
	aclScalar *val = aclCreateScalar(&v, F32);
	aclTensor *mself = T2(F32, 3, 4, x);
	RUN(InplaceMaskedFillScalar, mself, T1(BOOL, 4, mk), val);
	back(1, got, 12 * 4);
	CHECK(got[0] == -1 && got[1] == 1 && got[3] == -1 && got[8] == -1 && got[11] == -1, "masked_fill broadcasts the mask");
	REFUSED(161002, "masked_fill: the mask must broadcast to self", InplaceMaskedFillScalar, mself, T1(BOOL, 3, mk), val);
	REFUSED(161002, "masked_fill takes no DOUBLE self", InplaceMaskedFillScalar, T1(F64, 4, NULL), T1(BOOL, 4, mk), val);
	aclDestroyScalar(val);
	free_all();
}

static void reductions_and_movement(void) {
	float x[6] = {3, NAN, -1, 4, 4, 0}, got[6];
	int64_t ig[6];
	aclTensor *a = T2(F32, 2, 3, x);
	aclTensor *cs = T2(F32, 2, 3, NULL);
	RUN(Cumsum, T2(F32, 2, 3, (float[]){1, 2, 3, 4, 5, 6}), 1, F32, cs);
	back(1, got, 24);
	CHECK(got[2] == 6 && got[5] == 15, "cumsum along dim 1");
	REFUSED(161002, "cumsum's dtype is out's", Cumsum, a, 1, F64, cs);

	aclTensor *vals = T1(F32, 2, NULL), *idx = T1(I64, 2, NULL);
	RUN(MaxDim, a, 1, false, vals, idx);
	back(0, ig, 16);
	back(1, got, 8);
	CHECK(isnan(got[0]) && ig[0] == 1 && got[1] == 4 && ig[1] == 0, "max along a dim: NaN first, then the first largest");
	REFUSED(161002, "aclnnMaxDim takes no INT32", MaxDim, T2(I32, 2, 3, NULL), 1, false, T1(I32, 2, NULL), idx);
	aclTensor *am = T1(I64, 3, NULL);
	RUN(ArgMin, T2(F32, 2, 3, (float[]){3, 1, -1, 0, 1, -1}), 0, false, am);
	back(1, ig, 24);
	CHECK(ig[0] == 1 && ig[1] == 0 && ig[2] == 0, "argmin: the first smallest");
	int64_t d1 = 1, d01[2] = {0, 0};
	aclIntArray *dim1 = aclCreateIntArray(&d1, 1), *rep = aclCreateIntArray(d01, 2);
	aclTensor *mn = T1(F32, 2, NULL);
	RUN(Amin, T2(F32, 2, 3, (float[]){3, 1, -1, 0, 1, -2}), dim1, false, mn);
	back(1, got, 8);
	CHECK(got[0] == -1 && got[1] == -2, "amin");
	REFUSED(161002, "amin: repeated dims", Amin, a, rep, false, mn);
	aclTensor *pr = T1(I64, 2, NULL);
	RUN(ProdDim, T2(I64, 2, 2, (int64_t[]){INT64_MAX, 2, 3, 4}), 1, false, I64, pr);
	back(1, ig, 16);
	CHECK(ig[0] == -2 && ig[1] == 12, "prod of int64 wraps");

	aclTensor *sv = T2(F32, 2, 3, NULL), *si = T2(I64, 2, 3, NULL);
	RUN(Sort, a, false, 1, false, sv, si);
	back(0, ig, 48);
	back(1, got, 24);
	CHECK(got[0] == -1 && got[1] == 3 && isnan(got[2]) && ig[2] == 1 && got[3] == 0 && ig[3] == 2 && ig[4] == 0 && ig[5] == 1,
	      "sort: NaN last, ties in order");
	REFUSED(161002, "sort takes no DOUBLE self", Sort, T2(F64, 2, 3, NULL), false, 1, false, T2(F64, 2, 3, NULL), si);
	REFUSED(161002, "sort's dim in range", Sort, a, false, 2, false, sv, si);
	REFUSED(161002, "topk's k at most the dim's size", Topk, a, 4, 1, true, true, T2(F32, 2, 4, NULL), T2(I64, 2, 4, NULL));
	aclTensor *tv = T2(F32, 2, 2, NULL), *ti = T2(I64, 2, 2, NULL);
	RUN(Topk, a, 2, 1, true, true, tv, ti);
	back(0, ig, 32);
	back(1, got, 16);
	CHECK(isnan(got[0]) && got[1] == 3 && got[2] == 4 && ig[2] == 0 && ig[3] == 1, "topk: NaN largest, ties in order");

	aclTensor *c = T2(F32, 2, 5, NULL);
	void *cbuf = bufs[nbufs - 1];
	const aclTensor *parts[2] = {T2(F32, 2, 3, x), T2(I32, 2, 2, (int32_t[]){7, 8, 9, 10})};
	tensors[ntensors - 1] = tensors[ntensors - 2] = NULL; /* the list owns them */
	aclTensorList *l = aclCreateTensorList(parts, 2);
	RUN(Cat, l, 1, c);
	aclDestroyTensorList(l);
	float cg[10];
	aclrtMemcpy(cg, 40, cbuf, 40, 2);
	CHECK(cg[0] == 3 && cg[3] == 7 && cg[4] == 8 && cg[8] == 9 && cg[9] == 10, "cat along dim 1, int32 cast to float32");
	const aclTensor *bad[2] = {T2(F32, 2, 3, NULL), T1(F32, 3, NULL)};
	tensors[ntensors - 1] = tensors[ntensors - 2] = NULL;
	l = aclCreateTensorList(bad, 2);
	REFUSED(161002, "cat: tensors of one rank", Cat, l, 0, c);
	aclDestroyTensorList(l);

	int64_t fd[2] = {1, -1};
	aclIntArray *flip_rep = aclCreateIntArray(fd, 2);
	aclTensor *f = T2(F32, 2, 3, NULL);
	RUN(Flip, T2(F32, 2, 3, (float[]){1, 2, 3, 4, 5, 6}), dim1, f);
	back(1, got, 24);
	CHECK(got[0] == 3 && got[2] == 1 && got[3] == 6, "flip along dim 1");
	REFUSED(161002, "flip: a dim repeated", Flip, a, flip_rep, f);
	aclDestroyIntArray(dim1);
	aclDestroyIntArray(rep);
	aclDestroyIntArray(flip_rep);
	free_all();
}

static void batch_norm_and_conv(void) {
	/* [N=2, C=1, 2]: mean 2.5, biased variance 1.25 */
	float x[4] = {1, 2, 3, 4}, got[4];
	aclTensor *in = ten(F32, 3, (int64_t[]){2, 1, 2}, ND, x), *out = ten(F32, 3, (int64_t[]){2, 1, 2}, ND, NULL);
	aclTensor *mean = T1(F32, 1, NULL), *var = T1(F32, 1, NULL);
	REFUSED(161001, "batch norm: training needs saveMean", BatchNorm, in, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, out, NULL, var);
	RUN(BatchNorm, in, NULL, NULL, NULL, NULL, true, 0.1, 0.0, out, mean, var);
	back(0, got, 4);
	CHECK(got[0] == 1.25f, "batch norm: saveInvstd holds the biased variance on Atlas A2/A3");
	back(1, got, 4);
	CHECK(got[0] == 2.5f, "batch norm: saveMean");
	back(2, got, 16);
	CHECK(fabsf(got[0] + 1.5f / sqrtf(1.25f)) < 1e-6f && fabsf(got[3] - 1.5f / sqrtf(1.25f)) < 1e-6f, "batch norm: the output");
	REFUSED(161002, "batch norm: a 5-D input needs format NCDHW", BatchNorm, ten(F32, 5, (int64_t[]){1, 1, 1, 1, 2}, ND, NULL), NULL,
		NULL, NULL, NULL, false, 0.1, 1e-5, ten(F32, 5, (int64_t[]){1, 1, 1, 1, 2}, ND, NULL), NULL, NULL);
	bool m3[3] = {true, true, true}, m2[2] = {true, true};
	aclBoolArray *mask = aclCreateBoolArray(m3, 3), *short_mask = aclCreateBoolArray(m2, 2);
	aclTensor *gi = ten(F32, 3, (int64_t[]){2, 1, 2}, ND, NULL), *gw = T1(F32, 1, NULL), *gb = T1(F32, 1, NULL);
	REFUSED(161002, "batch norm backward: outputMask of 3", BatchNormBackward, out, in, NULL, NULL, NULL, mean, var, true, 0.0,
		short_mask, gi, gw, gb);
	REFUSED(161001, "batch norm backward: an asked gradient is not NULL", BatchNormBackward, out, in, NULL, NULL, NULL, mean, var, true,
		0.0, mask, gi, NULL, gb);
	RUN(BatchNormBackward, out, in, NULL, NULL, NULL, mean, var, true, 0.0, mask, gi, gw, gb);
	back(1, got, 4);
	CHECK(fabsf(got[0] - 4) < 1e-5f, "batch norm backward: gradWeight = sum(g * xhat) = sum(xhat^2) = 4");
	aclDestroyBoolArray(mask);
	aclDestroyBoolArray(short_mask);

	/* conv2d 1x1x3x3 (*) 1x1x2x2 of ones: each output is 4 */
	float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, co[4];
	int64_t one2[2] = {1, 1}, zero2[2] = {0, 0};
	aclIntArray *s = aclCreateIntArray(one2, 2), *p = aclCreateIntArray(zero2, 2), *d = aclCreateIntArray(one2, 2),
		    *op = aclCreateIntArray(zero2, 2);
	aclTensor *ci = ten(F32, 4, (int64_t[]){1, 1, 3, 3}, NCHW, ones), *cw = ten(F32, 4, (int64_t[]){1, 1, 2, 2}, NCHW, ones);
	aclTensor *cout = ten(F32, 4, (int64_t[]){1, 1, 2, 2}, NCHW, NULL);
	REFUSED(161002, "convolution: FLOAT with cubeMathType 0 is not supported", Convolution, ci, cw, NULL, s, p, d, false, op, 1, cout, 0);
	REFUSED(161002, "convolution: BFLOAT16 with cubeMathType 2 is not supported", Convolution,
		ten(27, 4, (int64_t[]){1, 1, 3, 3}, NCHW, NULL), ten(27, 4, (int64_t[]){1, 1, 2, 2}, NCHW, NULL), NULL, s, p, d, false, op,
		1, ten(27, 4, (int64_t[]){1, 1, 2, 2}, NCHW, NULL), 2);
	REFUSED(161002, "convolution: the images in format NCHW", Convolution, ten(F32, 4, (int64_t[]){1, 1, 3, 3}, ND, ones), cw, NULL,
		s, p, d, false, op, 1, cout, 1);
	REFUSED(161002, "convolution: groups divide the channels", Convolution, ci, cw, NULL, s, p, d, false, op, 2, cout, 1);
	REFUSED(161002, "convolution: out of the inferred shape", Convolution, ci, cw, NULL, s, p, d, false, op, 1,
		ten(F32, 4, (int64_t[]){1, 1, 3, 3}, NCHW, NULL), 1);
	RUN(Convolution, ci, cw, NULL, s, p, d, false, op, 1, cout, 1);
	read(cout, co, 16);
	CHECK(co[0] == 4 && co[3] == 4, "convolution in HF32 of ones");
	aclDestroyIntArray(s);
	aclDestroyIntArray(p);
	aclDestroyIntArray(d);
	aclDestroyIntArray(op);
	free_all();
}

int main(void) {
	rules_begin();
	lists_and_arrays();
	index_ops();
	reductions_and_movement();
	batch_norm_and_conv();
	return rules_end();
}
