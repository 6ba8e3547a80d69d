/*
 * Checks that the CANN emulator's random ops (emu_random_ops.inc:
 * aclnnInplaceUniform, aclnnInplaceNormal, aclnnInplaceRandom,
 * aclnnInplaceBernoulli, aclnnBernoulliTensor) refuse what their op_api
 * sources and docs refuse (161001 for a NULL tensor or scalar and a
 * negative std, 561103 for Random's NULL, 161002 else), and draw by the
 * emulator's documented model: Philox4x32-10 in PyTorch's CUDA layout,
 * checked here against this file's own Philox (and the algorithm's
 * published known answers), the offset bookkeeping, ranges and moments.
 * Linked as emulator_nn_rules_test.c is; built and run by internal/npuemu's
 * TestEmulatorNNRules (also under the sanitizers); prints the failed checks
 * and "ok" when none failed. The harness is rules_harness.h.
 */
#include "rules_harness.h"

typedef const aclScalar *S;
OP(InplaceUniform, T, double, double, uint64_t, uint64_t)
OP(InplaceNormal, T, float, float, int64_t, int64_t)
OP(InplaceRandom, T, int64_t, int64_t, int64_t, int64_t)
OP(InplaceBernoulli, T, S, int64_t, int64_t)
OP(BernoulliTensor, T, T, int64_t, int64_t, aclTensor *)

enum { I16 = 6, NULLPTR = 161001, INVALID = 161002, INNER_NULLPTR = 561103 };
enum { BIG = 700000, MID = 200000, DRAWS = 100000 }; /* BIG: two iterations at unroll 4; MID: one, all 624 blocks */

static const int all_dtypes[10] = {F32, F16, I8, I32, U8, I16, I64, F64, BOOL, BF16};

/* ---- this file's own Philox4x32-10 and layout ---- */

/* mulhilo multiplies a and b into their high and low words. */
static void mulhilo(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo) {
	uint64_t p = (uint64_t)a * b;
	*hi = (uint32_t)(p >> 32), *lo = (uint32_t)p;
}

/* philox writes Philox4x32-10 of counter ctr under key into out. */
static void philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
	uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k[2] = {key[0], key[1]};
	for (int r = 0; r < 10; r++) {
		uint32_t hi0, lo0, hi1, lo1;
		mulhilo(0xD2511F53u, c[0], &hi0, &lo0);
		mulhilo(0xCD9E8D57u, c[2], &hi1, &lo1);
		uint32_t n[4] = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
		memcpy(c, n, sizeof c);
		k[0] += 0x9E3779B9u, k[1] += 0xBB67AE85u;
	}
	memcpy(out, c, sizeof c);
}

/* block computes element i's words as the layout of emu_random_ops.inc
 * says, returning its slot. */
static int block(uint64_t seed, uint64_t offset, int64_t n, int u, int64_t i, uint32_t w[4]) {
	int64_t blocks = (n + 255) / 256, T = 256 * (blocks < 624 ? blocks : 624), t = i % T, r = i / T;
	uint64_t ctr = offset / 4 + (uint64_t)(r / u);
	uint32_t c[4] = {(uint32_t)ctr, (uint32_t)(ctr >> 32), (uint32_t)t, 0}, key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
	philox(c, key, w);
	return (int)(r % u);
}

/* want_u is element i's uniform. */
static double want_u(uint64_t seed, uint64_t offset, int64_t n, int u, int64_t i) {
	uint32_t w[4];
	int k = block(seed, offset, n, u, i, w);
	return (double)(w[u == 4 ? k : 2 * k] >> 8) / 16777216.0;
}

/* want_z is element i's standard normal. */
static double want_z(uint64_t seed, uint64_t offset, int64_t n, int64_t i) {
	uint32_t w[4];
	int k = block(seed, offset, n, 4, i, w), a = k & ~1;
	double u1 = (double)((w[a] >> 8) + 1) / 16777216.0, u2 = (double)(w[a + 1] >> 8) / 16777216.0;
	double rho = sqrt(-2 * log(u1)), th = 2 * M_PI * u2;
	return (k & 1) ? rho * sin(th) : rho * cos(th);
}

/* ---- helpers ---- */

static aclScalar *scalars[64];
static int nscalars;

/* D and F make DOUBLE and FLOAT scalars, freed by free_scalars. */
static aclScalar *D(double v) { return scalars[nscalars++] = aclCreateScalar(&v, F64); }
static aclScalar *F(float v) { return scalars[nscalars++] = aclCreateScalar(&v, F32); }
static aclScalar *scalar_of(int dt, const void *v) { return scalars[nscalars++] = aclCreateScalar((void *)v, dt); }

static void free_scalars(void) {
	for (int i = 0; i < nscalars; i++) aclDestroyScalar(scalars[i]);
	nscalars = 0;
}

/* floats reads the n FLOAT elements of t into a new array. */
static float *floats(const aclTensor *t, int64_t n) {
	float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
	read(t, v, (size_t)n * sizeof *v);
	return v;
}

/* half converts FLOAT16 bits to a float. */
static float half(uint16_t h) {
	int e = (h >> 10) & 31, m = h & 1023;
	float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
	return h >> 15 ? -v : v;
}

/* uniform_f32 runs Uniform [lo, hi) on a new FLOAT tensor of n elements. */
static float *uniform_f32(int64_t n, double lo, double hi, uint64_t seed, uint64_t offset) {
	aclTensor *t = T1(F32, n, NULL);
	RUN(InplaceUniform, t, lo, hi, seed, offset);
	return floats(t, n);
}

/* normal_f32 runs Normal(mean, std) on a new FLOAT tensor of n elements. */
static float *normal_f32(int64_t n, float mean, float std, int64_t seed, int64_t offset) {
	aclTensor *t = T1(F32, n, NULL);
	RUN(InplaceNormal, t, mean, std, seed, offset);
	return floats(t, n);
}

/* ---- the model ---- */

static void known_answers(void) {
	static const uint32_t cases[3][10] = {
		{0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
		{~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
		{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
	};
	for (int c = 0; c < 3; c++) {
		uint32_t out[4];
		philox(cases[c], cases[c] + 4, out);
		CHECK(memcmp(out, cases[c] + 6, sizeof out) == 0, "Philox4x32-10: the published known answers");
	}
	/* the emulator's first draw of seed 0, offset 0 is the top of the first word */
	float *v = uniform_f32(1, 0, 1, 0, 0);
	CHECK(v[0] == (float)(0x6627e8d5u >> 8) / 16777216.0f, "uniform: seed 0, offset 0 draws the known answer's first word");
	free(v);
	free_all();
}

/* exact compares the emulator's uniform and normal FLOAT draws with this
 * file's model for sizes across the layout's cases. */
static void exact(void) {
	static const int64_t sizes[] = {1, 5, 256, 257, 1000, MID, BIG};
	static const uint64_t seeds[] = {42, 0x123456789abcdef0ull};
	static const uint64_t offsets[] = {0, 8, (5ull << 32) * 4 + 12};
	for (int s = 0; s < 7; s++)
		for (int k = 0; k < 2; k++) {
			int64_t n = sizes[s];
			uint64_t seed = seeds[k], off = offsets[(s + k) % 3];
			float *u = uniform_f32(n, 0, 1, seed, off), *z = normal_f32(n, 0, 1, (int64_t)seed, (int64_t)off);
			int64_t bad_u = 0, bad_z = 0;
			for (int64_t i = 0; i < n; i++) {
				bad_u += u[i] != (float)want_u(seed, off, n, 4, i);
				bad_z += z[i] != (float)want_z(seed, off, n, i);
			}
			CHECK(bad_u == 0, "uniform FLOAT [0, 1): the model's value at every element");
			CHECK(bad_z == 0, "normal FLOAT (0, 1): the model's value at every element");
			free(u), free(z);
			free_all();
		}
	/* unroll 2 (INT64): word 2k of each block */
	aclTensor *t = T1(I64, BIG, NULL);
	RUN(InplaceUniform, t, 0, 1099511627776.0, 7, 4);
	int64_t *v = malloc(BIG * sizeof *v), bad = 0;
	read(t, v, BIG * sizeof *v);
	for (int64_t i = 0; i < BIG; i++) bad += v[i] != (int64_t)((float)want_u(7, 4, BIG, 2, i) * 1099511627776.0f);
	CHECK(bad == 0, "uniform INT64: unroll 2, word 2k");
	free(v);
	free_all();
}

static void determinism(void) {
	float *a = normal_f32(1000, 1, 2, 5, 16), *b = normal_f32(1000, 1, 2, 5, 16), *c = normal_f32(1000, 1, 2, 6, 16);
	CHECK(memcmp(a, b, 1000 * sizeof *a) == 0, "normal: the same seed and offset give the same bits");
	int same = 0;
	for (int i = 0; i < 1000; i++) same += a[i] == c[i];
	CHECK(same < 5, "normal: another seed gives other values");
	free(a), free(b), free(c);
	float *d = uniform_f32(1000, 0, 1, 5, 16), *e = uniform_f32(1000, 0, 1, 5, 19);
	CHECK(memcmp(d, e, 1000 * sizeof *d) == 0, "uniform: the offset counts in units of 4 (16 and 19 draw alike)");
	free(d), free(e);
	free_all();
}

/* layout checks the offset bookkeeping the Go side relies on: a call at
 * o + 4 reproduces iteration 1 of a call at o (element i + T*u), and a call
 * at o + 4*ceil(n / (T*u)) shares no block with one at o. */
static void layout(void) {
	const int64_t Tu = 256 * 624 * 4;
	float *a = uniform_f32(BIG, 0, 1, 9, 40), *b = uniform_f32(MID, 0, 1, 9, 44), *c = uniform_f32(BIG, 0, 1, 9, 48);
	int64_t bad = 0, hit = 0, hit1 = 0;
	for (int64_t i = 0; i < BIG - Tu; i++) bad += b[i] != a[i + Tu];
	CHECK(bad == 0, "uniform: offset o + 4 draws iteration 1 of offset o");
	for (int64_t i = 0; i < BIG; i++) hit += c[i] == a[i];
	for (int64_t i = 0; i < BIG - Tu; i++) hit1 += c[i] == a[i + Tu];
	CHECK(hit < 5 && hit1 < 5, "uniform: a call at o + 4*ceil(n/(T*u)) shares no block with one at o");
	free(a), free(b), free(c);
	float *za = normal_f32(BIG, 0, 1, 3, 0), *zb = normal_f32(MID, 0, 1, 3, 4);
	bad = 0;
	for (int64_t i = 0; i < BIG - Tu; i++) bad += zb[i] != za[i + Tu];
	CHECK(bad == 0, "normal: offset o + 4 draws iteration 1 of offset o");
	free(za), free(zb);
	free_all();
	/* unroll 2: Random over a range of 2^28 and more */
	const int64_t Tu2 = 256 * 624 * 2, n2 = 400000;
	aclTensor *ra = T1(F32, n2, NULL), *rb = T1(F32, MID, NULL);
	RUN(InplaceRandom, ra, 0, 1ll << 30, 11, 0);
	RUN(InplaceRandom, rb, 0, 1ll << 30, 11, 4);
	float *x = floats(ra, n2), *y = floats(rb, MID);
	bad = 0;
	for (int64_t i = 0; i < n2 - Tu2; i++) bad += y[i] != x[i + Tu2];
	CHECK(bad == 0, "random over 2^30: unroll 2, offset o + 4 draws iteration 1 of offset o");
	free(x), free(y);
	free_all();
}

static void ranges(void) {
	float *u = uniform_f32(DRAWS, -2, 3, 1, 0);
	int ok = 1;
	for (int i = 0; i < DRAWS; i++) ok &= u[i] >= -2 && u[i] < 3;
	CHECK(ok, "uniform FLOAT in [from, to)");
	free(u);
	static int32_t v[DRAWS];
	aclTensor *t = T1(I32, DRAWS, NULL);
	RUN(InplaceRandom, t, 5, 17, 1, 0);
	read(t, v, sizeof v);
	int seen[12] = {0};
	ok = 1;
	for (int i = 0; i < DRAWS; i++) {
		ok &= v[i] >= 5 && v[i] <= 16;
		if (v[i] >= 5 && v[i] <= 16) seen[v[i] - 5] = 1;
	}
	for (int k = 0; k < 12; k++) ok &= seen[k];
	CHECK(ok, "random INT32 [5, 17): every value of 5..16 and no other");
	int8_t b8[1000];
	aclTensor *t8 = T1(I8, 1000, NULL);
	RUN(InplaceRandom, t8, 0, 128, 2, 0);
	read(t8, b8, sizeof b8);
	ok = 1;
	for (int i = 0; i < 1000; i++) ok &= b8[i] >= 0;
	CHECK(ok, "random INT8 [0, 128): no wrap");
	uint8_t bl[1000];
	aclTensor *tb = T1(BOOL, 1000, NULL);
	RUN(InplaceRandom, tb, 0, 2, 3, 0);
	read(tb, bl, sizeof bl);
	int ones = 0;
	ok = 1;
	for (int i = 0; i < 1000; i++) ok &= bl[i] <= 1, ones += bl[i];
	CHECK(ok && ones > 400 && ones < 600, "random BOOL [0, 2): false and true");
	/* FLOAT16: updateTo moves to = 2052 down to 2050 (2051 would round to 2052, 2049 rounds to 2048), updateFrom
	 * moves from = 4097 up to 4100 (4097 would round to 4096) */
	uint16_t h[5000];
	aclTensor *th = T1(F16, 5000, NULL);
	RUN(InplaceRandom, th, 2040, 2052, 4, 0);
	read(th, h, sizeof h);
	float top = 0;
	for (int i = 0; i < 5000; i++) top = half(h[i]) > top ? half(h[i]) : top;
	CHECK(top == 2048, "random FLOAT16 [2040, 2052): updateTo keeps 2052 out");
	RUN(InplaceRandom, th, 4097, 4120, 4, 0);
	read(th, h, sizeof h);
	float low = 1e9f;
	for (int i = 0; i < 5000; i++) low = half(h[i]) < low ? half(h[i]) : low;
	CHECK(low == 4100, "random FLOAT16 [4097, 4120): updateFrom moves from to 4100");
	/* from == to: every value is from */
	float *eq = uniform_f32(100, 2.5, 2.5, 1, 0);
	ok = 1;
	for (int i = 0; i < 100; i++) ok &= eq[i] == 2.5f;
	CHECK(ok, "uniform from == to: from");
	free(eq);
	free_all();
}

static void moments(void) {
	float *u = uniform_f32(DRAWS, 0, 1, 21, 0);
	double s = 0;
	for (int i = 0; i < DRAWS; i++) s += u[i];
	CHECK(fabs(s / DRAWS - 0.5) < 0.01, "uniform: mean 0.5");
	free(u);
	static const int64_t sizes[2] = {DRAWS, BIG}; /* BIG draws every slot, sines and cosines */
	for (int k = 0; k < 2; k++) {
		int64_t n = sizes[k];
		float *z = normal_f32(n, 0, 1, 22, 0);
		double m = 0, q = 0;
		for (int64_t i = 0; i < n; i++) m += z[i], q += (double)z[i] * z[i];
		m /= n;
		CHECK(fabs(m) < 0.02 && fabs(sqrt(q / n - m * m) - 1) < 0.02, "normal: mean 0 and std 1");
		free(z);
	}
	float *z = normal_f32(DRAWS, 3, 2, 23, 0);
	double m = 0, q = 0;
	for (int i = 0; i < DRAWS; i++) m += z[i], q += (double)z[i] * z[i];
	m /= DRAWS;
	CHECK(fabs(m - 3) < 0.04 && fabs(sqrt(q / DRAWS - m * m) - 2) < 0.04, "normal: mean 3 and std 2");
	free(z);
	aclTensor *b = T1(F32, DRAWS, NULL);
	RUN(InplaceBernoulli, b, D(0.3), 24, 0);
	float *v = floats(b, DRAWS);
	double f = 0;
	int ok = 1;
	for (int i = 0; i < DRAWS; i++) f += v[i], ok &= v[i] == 0 || v[i] == 1;
	CHECK(ok && fabs(f / DRAWS - 0.3) < 0.01, "bernoulli 0.3: zeros and ones, frequency 0.3");
	int64_t bad = 0;
	for (int i = 0; i < DRAWS; i++) bad += v[i] != (want_u(24, 0, DRAWS, 4, i) < 0.3);
	CHECK(bad == 0, "bernoulli: 1 where the uniform is below prob");
	free(v);
	/* the truncation trap of Random with from < 0: 0 twice as frequent as 1, -3 (almost) never */
	static int32_t r[DRAWS];
	aclTensor *t = T1(I32, DRAWS, NULL);
	RUN(InplaceRandom, t, -3, 3, 25, 0);
	read(t, r, sizeof r);
	int count[7] = {0};
	ok = 1;
	for (int i = 0; i < DRAWS; i++) {
		ok &= r[i] >= -3 && r[i] <= 2;
		if (r[i] >= -3 && r[i] <= 3) count[r[i] + 3]++;
	}
	double ratio = (double)count[3] / count[4];
	CHECK(ok && ratio > 1.8 && ratio < 2.2 && count[0] == 0, "random [-3, 3): truncation toward zero doubles 0, never -3");
	free_scalars();
	free_all();
}

static void bernoulli_tensor(void) {
	float p[8] = {0, 1, 0.5f, NAN, -0.1f, 1.1f, 0, 1}, sentinel[16];
	for (int i = 0; i < 16; i++) sentinel[i] = 7;
	aclTensor *self = T2(F32, 4, 4, NULL), *out = T2(F32, 4, 4, sentinel), *prob = T2(F32, 2, 4, p);
	RUN(BernoulliTensor, self, prob, 13, 8, out);
	float o[16];
	read(out, o, sizeof o);
	CHECK(o[0] == 0 && o[1] == 1 && o[6] == 0 && o[7] == 1, "bernoulli tensor: prob 0 and 1");
	CHECK(o[2] == (want_u(13, 8, 16, 4, 2) < 0.5), "bernoulli tensor: 1 where the uniform is below prob[i]");
	CHECK(isnan(o[3]) && isnan(o[4]) && isnan(o[5]), "bernoulli tensor: NaN where prob is NaN or out of [0, 1]");
	int ok = 1;
	for (int i = 8; i < 16; i++) ok &= isnan(o[i]);
	CHECK(ok, "bernoulli tensor: NaN past prob's elements");
	/* prob read at row-major position i of its own shape, DOUBLE */
	double pd[12] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1};
	aclTensor *o2 = T2(F64, 2, 4, NULL);
	RUN(BernoulliTensor, T2(F64, 2, 4, NULL), T2(F64, 3, 4, pd), 1, 0, o2);
	double g[8];
	read(o2, g, sizeof g);
	ok = 1;
	for (int i = 0; i < 8; i++) ok &= g[i] == pd[i];
	CHECK(ok, "bernoulli tensor: a larger prob is read row-major");
	/* an empty prob passes and writes nothing */
	float keep[16];
	aclTensor *none = T1(F16, 0, NULL), *kept = T2(F32, 4, 4, sentinel);
	RUN(BernoulliTensor, self, none, 1, 0, kept);
	read(kept, keep, sizeof keep);
	CHECK(keep[0] == 7 && keep[15] == 7, "bernoulli tensor: an empty prob writes nothing");
	free_all();
}

/* strided makes a FLOAT (3, 4) view with strides (1, 6) and offset 1 over
 * a new buffer of 24 sevens: the transposed slice of a (4, 6) array. */
static aclTensor *strided(void) {
	float init[24];
	for (int i = 0; i < 24; i++) init[i] = 7;
	void *p = NULL;
	aclrtMalloc(&p, sizeof init, 0);
	aclrtMemcpy(p, sizeof init, init, sizeof init, 1);
	int64_t storage = 24;
	aclTensor *t = aclCreateTensor((int64_t[]){3, 4}, 2, F32, (int64_t[]){1, 6}, 1, ND, &storage, 1, p);
	bufs[nbufs++] = p;
	tensors[ntensors++] = t;
	return t;
}

/* check_strided compares the view v with the contiguous result c and
 * checks that the rest of v's buffer still holds sevens. */
static void check_strided(const char *what, const aclTensor *v, const aclTensor *c) {
	float s[24], w[12];
	read(v, s, sizeof s), read(c, w, sizeof w);
	int ok = 1, hit[24] = {0};
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 4; b++) {
			int at = 1 + a + 6 * b;
			hit[at] = 1;
			ok &= memcmp(&s[at], &w[a * 4 + b], 4) == 0;
		}
	for (int i = 0; i < 24; i++) ok &= hit[i] || s[i] == 7;
	CHECK(ok, what);
}

static void non_contiguous(void) {
	aclTensor *v = strided(), *c = T2(F32, 3, 4, NULL);
	RUN(InplaceUniform, v, -1, 1, 3, 4);
	RUN(InplaceUniform, c, -1, 1, 3, 4);
	check_strided("uniform: a strided selfRef is written through its strides only", v, c);
	v = strided(), c = T2(F32, 3, 4, NULL);
	RUN(InplaceNormal, v, 1, 2, 3, 4);
	RUN(InplaceNormal, c, 1, 2, 3, 4);
	check_strided("normal: a strided selfRef", v, c);
	v = strided(), c = T2(F32, 3, 4, NULL);
	RUN(InplaceRandom, v, 0, 100, 3, 4);
	RUN(InplaceRandom, c, 0, 100, 3, 4);
	check_strided("random: a strided selfRef", v, c);
	v = strided(), c = T2(F32, 3, 4, NULL);
	RUN(InplaceBernoulli, v, D(0.5), 3, 4);
	RUN(InplaceBernoulli, c, D(0.5), 3, 4);
	check_strided("bernoulli: a strided selfRef", v, c);
	float half_p[12];
	for (int i = 0; i < 12; i++) half_p[i] = 0.5f;
	aclTensor *p = T2(F32, 3, 4, half_p);
	v = strided(), c = T2(F32, 3, 4, NULL);
	RUN(BernoulliTensor, T2(F32, 3, 4, NULL), p, 3, 4, v);
	RUN(BernoulliTensor, T2(F32, 3, 4, NULL), p, 3, 4, c);
	check_strided("bernoulli tensor: a strided out", v, c);
	free_scalars();
	free_all();
}

/* ---- dtypes and refusals ---- */

static void dtypes(void) {
	for (int k = 0; k < 10; k++) {
		int dt = all_dtypes[k], fl = dt == F32 || dt == F16 || dt == F64 || dt == BF16;
		if (dt == BOOL) REFUSED(INVALID, "uniform takes no BOOL", InplaceUniform, T1(dt, 5, NULL), 0, 1, 1, 0);
		else RUN(InplaceUniform, T1(dt, 5, NULL), 0, 1, 1, 0);
		if (fl) RUN(InplaceNormal, T1(dt, 5, NULL), 0, 1, 1, 0);
		else REFUSED(INVALID, "normal takes floating dtypes alone", InplaceNormal, T1(dt, 5, NULL), 0, 1, 1, 0);
		RUN(InplaceRandom, T1(dt, 5, NULL), 0, 2, 1, 0);
		RUN(InplaceBernoulli, T1(dt, 5, NULL), D(0.5), 1, 0);
		if (fl) RUN(BernoulliTensor, T1(dt, 5, NULL), T1(F32, 5, NULL), 1, 0, T1(dt, 5, NULL));
		else
			REFUSED(INVALID, "bernoulli tensor takes floating outputs alone", BernoulliTensor, T1(dt, 5, NULL), T1(F32, 5, NULL),
				1, 0, T1(dt, 5, NULL));
		free_all();
	}
	/* values per dtype: a few exact ones */
	int32_t i32[5];
	aclTensor *t = T1(I32, 5, NULL);
	RUN(InplaceUniform, t, -5, 5, 1, 0);
	read(t, i32, sizeof i32);
	int ok = 1;
	for (int i = 0; i < 5; i++) ok &= i32[i] == (int32_t)(-5.0f + (float)want_u(1, 0, 5, 4, i) * 10.0f);
	CHECK(ok, "uniform INT32: the FLOAT value truncated");
	double f64[5];
	aclTensor *d = T1(F64, 5, NULL);
	RUN(InplaceUniform, d, 0, 1, 1, 0);
	read(d, f64, sizeof f64);
	ok = 1;
	for (int i = 0; i < 5; i++) ok &= f64[i] == (float)want_u(1, 0, 5, 4, i);
	CHECK(ok, "uniform DOUBLE: computed in FLOAT");
	uint16_t h[5];
	aclTensor *th = T1(F16, 5, NULL);
	RUN(InplaceUniform, th, 0, 1, 1, 0);
	read(th, h, sizeof h);
	ok = 1;
	for (int i = 0; i < 5; i++) ok &= fabsf(half(h[i]) - (float)want_u(1, 0, 5, 4, i)) <= 0.0005f;
	CHECK(ok, "uniform FLOAT16: the FLOAT value rounded");
	int64_t i64[5];
	aclTensor *t64 = T1(I64, 5, NULL);
	RUN(InplaceBernoulli, t64, F(1), 1, 0);
	read(t64, i64, sizeof i64);
	CHECK(i64[0] == 1 && i64[4] == 1, "bernoulli INT64 prob 1: ones");
	RUN(InplaceBernoulli, t64, D(0), 1, 0);
	read(t64, i64, sizeof i64);
	CHECK(i64[0] == 0 && i64[4] == 0, "bernoulli INT64 prob 0: zeros");
	/* edge values: std 0 gives mean, a NaN mean NaN */
	float *z = normal_f32(5, -0.5f, 0, 1, 0), *zn = normal_f32(5, NAN, 1, 1, 0);
	CHECK(z[0] == -0.5f && z[4] == -0.5f && isnan(zn[0]) && isnan(zn[4]), "normal: std 0 gives mean, a NaN mean NaN");
	free(z), free(zn);
	float *un = uniform_f32(5, NAN, 1, 1, 0);
	CHECK(isnan(un[0]), "uniform: a NaN from passes (from > to is false) and gives NaN");
	free(un);
	free_scalars();
	free_all();
}

static void refusals(void) {
	aclTensor *f = T1(F32, 5, NULL);
	/* NULLs */
	REFUSED(NULLPTR, "uniform: NULL selfRef", InplaceUniform, NULL, 0, 1, 1, 0);
	REFUSED(NULLPTR, "normal: NULL selfRef", InplaceNormal, NULL, 0, 1, 1, 0);
	REFUSED(NULLPTR, "normal: std < 0 is 161001", InplaceNormal, f, 0, -1, 1, 0);
	REFUSED(INNER_NULLPTR, "random: NULL selfRef is 561103 (the code)", InplaceRandom, NULL, 0, 2, 1, 0);
	REFUSED(NULLPTR, "bernoulli: NULL selfRef", InplaceBernoulli, NULL, D(0.5), 1, 0);
	REFUSED(NULLPTR, "bernoulli: NULL prob", InplaceBernoulli, f, NULL, 1, 0);
	REFUSED(NULLPTR, "bernoulli tensor: NULL self", BernoulliTensor, NULL, f, 1, 0, f);
	REFUSED(NULLPTR, "bernoulli tensor: NULL prob", BernoulliTensor, f, NULL, 1, 0, f);
	REFUSED(NULLPTR, "bernoulli tensor: NULL out", BernoulliTensor, f, f, 1, 0, NULL);
	/* from and to */
	REFUSED(INVALID, "uniform: from > to", InplaceUniform, f, 2, 1, 1, 0);
	REFUSED(INVALID, "random: from == to", InplaceRandom, f, 3, 3, 1, 0);
	REFUSED(INVALID, "random: from > to", InplaceRandom, f, 4, 3, 1, 0);
	/* prob */
	REFUSED(INVALID, "bernoulli: prob NaN", InplaceBernoulli, f, D(NAN), 1, 0);
	REFUSED(INVALID, "bernoulli: prob < 0", InplaceBernoulli, f, D(-0.1), 1, 0);
	REFUSED(INVALID, "bernoulli: prob > 1", InplaceBernoulli, f, D(1.5), 1, 0);
	int64_t one = 1;
	uint16_t bf_half = 0x3F00; /* 0.5 */
	REFUSED(INVALID, "bernoulli: an INT64 prob", InplaceBernoulli, f, scalar_of(I64, &one), 1, 0);
	RUN(InplaceBernoulli, f, scalar_of(BF16, &bf_half), 1, 0);
	RUN(InplaceBernoulli, f, scalar_of(F16, &(uint16_t){0x3800}), 1, 0);
	/* BernoulliTensor: dtypes and shapes */
	REFUSED(INVALID, "bernoulli tensor: self and out of one dtype", BernoulliTensor, T1(F16, 5, NULL), f, 1, 0, f);
	REFUSED(INVALID, "bernoulli tensor: prob takes no BFLOAT16", BernoulliTensor, f, T1(BF16, 5, NULL), 1, 0, f);
	REFUSED(INVALID, "bernoulli tensor: prob takes no INT32", BernoulliTensor, f, T1(I32, 5, NULL), 1, 0, f);
	REFUSED(INVALID, "bernoulli tensor: self and out of one shape", BernoulliTensor, T2(F32, 2, 3, NULL), f, 1, 0,
		T2(F32, 3, 2, NULL));
	/* more than 8 dims (refused too): the emulator makes no such tensor */
	/* offsets: a multiple of 4 for the Bernoulli ops everywhere, for the others on Ascend 950 */
	REFUSED(INVALID, "bernoulli: offset 2", InplaceBernoulli, f, D(0.5), 1, 2);
	REFUSED(INVALID, "bernoulli tensor: offset 6", BernoulliTensor, f, f, 1, 6, f);
	RUN(InplaceUniform, f, 0, 1, 1, 2);
	RUN(InplaceNormal, f, 0, 1, 1, 2);
	RUN(InplaceRandom, f, 0, 9, 1, 2);
	setenv("MTEMU_SOC", "Ascend950PR_9599", 1);
	REFUSED(INVALID, "uniform: offset 2 on Ascend 950", InplaceUniform, f, 0, 1, 1, 2);
	REFUSED(INVALID, "normal: offset 2 on Ascend 950", InplaceNormal, f, 0, 1, 1, 2);
	REFUSED(INVALID, "random: offset 2 on Ascend 950", InplaceRandom, f, 0, 9, 1, 2);
	RUN(InplaceUniform, f, 0, 1, 1, 8);
	/* chips */
	setenv("MTEMU_SOC", "Ascend310P3", 1);
	RUN(InplaceUniform, f, 0, 1, 1, 0);
	REFUSED(INVALID, "normal is not on Ascend310P3", InplaceNormal, f, 0, 1, 1, 0);
	REFUSED(INVALID, "random is not on Ascend310P3", InplaceRandom, f, 0, 2, 1, 0);
	REFUSED(INVALID, "bernoulli is not on Ascend310P3", InplaceBernoulli, f, D(0.5), 1, 0);
	REFUSED(INVALID, "bernoulli tensor is not on Ascend310P3", BernoulliTensor, f, f, 1, 0, f);
	setenv("MTEMU_SOC", "Ascend910A", 1);
	aclTensor *bf = T1(BF16, 5, NULL);
	REFUSED(INVALID, "uniform takes no BFLOAT16 on Ascend910A", InplaceUniform, bf, 0, 1, 1, 0);
	REFUSED(INVALID, "normal takes no BFLOAT16 on Ascend910A", InplaceNormal, bf, 0, 1, 1, 0);
	REFUSED(INVALID, "random takes no BFLOAT16 on Ascend910A", InplaceRandom, bf, 0, 2, 1, 0);
	REFUSED(INVALID, "bernoulli takes no BFLOAT16 on Ascend910A", InplaceBernoulli, bf, D(0.5), 1, 0);
	REFUSED(INVALID, "bernoulli: no BFLOAT16 prob on Ascend910A", InplaceBernoulli, f, scalar_of(BF16, &bf_half), 1, 0);
	RUN(InplaceNormal, f, 0, 1, 1, 0);
	RUN(InplaceBernoulli, f, D(0.5), 1, 0);
	unsetenv("MTEMU_SOC");
	/* empty tensors pass and write nothing */
	RUN(InplaceUniform, T2(F32, 0, 3, NULL), 0, 1, 1, 0);
	RUN(InplaceNormal, T2(F32, 3, 0, NULL), 0, 1, 1, 0);
	RUN(InplaceRandom, T1(I64, 0, NULL), 0, 2, 1, 0);
	RUN(InplaceBernoulli, T1(BOOL, 0, NULL), D(0.5), 1, 0);
	RUN(BernoulliTensor, T1(F32, 0, NULL), f, 1, 0, T1(F32, 0, NULL));
	/* 0-dim */
	float s = 9;
	aclTensor *z = T0(F32, &s);
	RUN(InplaceUniform, z, 0, 1, 1, 0);
	read(z, &s, sizeof s);
	CHECK(s == (float)want_u(1, 0, 1, 4, 0), "uniform: a 0-dim selfRef");
	free_scalars();
	free_all();
}

int main(void) {
	rules_begin();
	known_answers();
	exact();
	determinism();
	layout();
	ranges();
	moments();
	bernoulli_tensor();
	non_contiguous();
	dtypes();
	refusals();
	return rules_end();
}
