/*
 * A test fixture of CANN's rules, not a simulator of the hardware.
 *
 * This source is built once per CANN library name (internal/npuemu does it),
 * each library exporting only its own symbols, as CANN splits them: the
 * runtime (aclInit, aclrt*) in libascendcl.so and libacl_rt.so, the ACLNN
 * objects (aclCreateTensor & co) in libnnopbase.so, the ops of ops-math in
 * libopapi_math.so, those of ops-nn in libopapi_nn.so, and every op in
 * libopapi.so; so a symbol looked up in the wrong library is not found. All
 * of them share one state, held by the core object libmtemu_core.so (this
 * source built with -DMTEMU_CORE), which they link to and which exports
 * nothing but names with the reserved prefix mtemu_ (see SHARED).
 * "Device" memory is host memory. The emulator enforces what real CANN
 * requires, so that code passing here works on hardware:
 *   - a current context per OS thread (aclrtSetDevice or
 *     aclrtSetCurrentContext) before streams, memory or ops are used;
 *   - tensor strides and offsets in elements, non-negative, within a live
 *     allocation, and tensor data 32-byte aligned;
 *   - executors used once: run by the execute call, never twice; one that
 *     will not run is discarded by making it repeatable and destroying it;
 *   - no implicit synchronisation: ops are queued on their stream and run
 *     only at a synchronize, so a host read without a sync sees stale data;
 *     aclrtMemcpy and aclrtFree do not wait;
 *   - streams run concurrently: at a synchronize the queued work of all
 *     streams runs interleaved, so a workspace two streams share, or a read
 *     of another stream's result without an event wait, fails (see
 *     "running queued work");
 *   - events: an unrecorded event is not complete, and one that a stream
 *     still waits on cannot be destroyed;
 *   - libopapi.so never loaded together with the per-repository operator
 *     libraries (every op then fails);
 *   - the documented error codes, with a message for aclGetRecentErrMsg
 *     (thread-local, cleared on read).
 * It counts live allocations, descriptors, executors, streams and events,
 * and the misuses it refused (mtemu_counters).
 * Its arithmetic is plain loops over strides, independent of the project's
 * CPU kernels, exact per dtype as the device's (see "element access"):
 * integer dtypes in wrapping integer arithmetic, floating ones rounded to
 * their dtype, casts by ACL's rules.
 *
 * Each op takes the dtypes its op_api source lists, per chip (acl_dtypes.h,
 * written from pkg/backends/npu's table), and refuses the forms CANN refuses
 * (see "the ops' rules" below); an op's arithmetic follows its doc (aclnnGelu
 * is the tanh approximation, aclnnGeluV2 either form).
 *
 * Knobs (environment): MTEMU_DEVICES (default 1), MTEMU_MEMORY_MB (device
 * memory per device, default 4096), MTEMU_SOC (default "Ascend910B3"; an
 * Atlas training or inference SoC, such as Ascend910A or Ascend310P3, has
 * their rules: no bfloat16, no float32 matmul with cubeMathType 0).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef int aclError;
typedef int32_t aclnnStatus;

enum {
	ACL_ERROR_INVALID_PARAM = 100000,
	ACL_ERROR_UNINITIALIZE = 100001,
	ACL_ERROR_REPEAT_INITIALIZE = 100002,
	ACL_ERROR_BAD_ALLOC = 200000,
	ACL_ERROR_INVALID_DEVICE = 200002,
	ACL_ERROR_RT_PARAM_INVALID = 107000,
	ACL_ERROR_RT_CONTEXT_NULL = 107002,
	ACL_ERROR_RT_STREAM_CONTEXT = 107003,
	ACL_ERROR_RT_MEMORY_ALLOCATION = 207001,
	ACL_ERROR_RT_MEMORY_FREE = 207002,
	ACLNN_ERR_PARAM_NULLPTR = 161001,
	ACLNN_ERR_PARAM_INVALID = 161002,
	ACLNN_ERR_INNER_NULLPTR = 561103,
};

enum { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_INT64 = 9, DT_DOUBLE = 11,
       DT_BOOL = 12, DT_BF16 = 27 };

#define MAXDIM 8

/* Every variable of the state, thread-local ones included, is defined once
 * per process, in the core object: SHARED is empty when this file is built
 * as the core (-DMTEMU_CORE) and extern elsewhere; AS gives the variable the
 * symbol name mtemu_<name> (an asm label), the only names the core exports;
 * INIT is the core's initial value. */
#ifdef MTEMU_CORE
#define SHARED
#define INIT(...) = __VA_ARGS__
#else
#define SHARED extern
#define INIT(...)
#endif
#define AS(name) __asm__("mtemu_" #name)

/* ---- errors ---- */

SHARED __thread char err_msg[1024] AS(err_msg);
SHARED __thread int err_set AS(err_set);

static int fail(int code, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof err_msg, fmt, ap);
	va_end(ap);
	err_set = 1;
	return code;
}

EXPORT const char *aclGetRecentErrMsg(void) {
	static __thread char out[1024];
	if (!err_set) return NULL;
	memcpy(out, err_msg, sizeof out);
	err_set = 0;
	return out;
}

/* ---- state ---- */

SHARED pthread_mutex_t mu AS(mu) INIT(PTHREAD_MUTEX_INITIALIZER);
SHARED int initialized AS(initialized);
SHARED long long live_events AS(live_events);
SHARED long long live_allocs AS(live_allocs), live_bytes AS(live_bytes), live_tensors AS(live_tensors),
	live_scalars AS(live_scalars), live_arrays AS(live_arrays), live_executors AS(live_executors),
	live_streams AS(live_streams), launches AS(launches), mallocs AS(mallocs);
/* misuses is the number of misuses refused: an executor run twice or
 * destroyed unrun without being repeatable, an event destroyed while a
 * stream waits on it, a workspace two running ops share, memory freed under
 * queued work, operator libraries of both kinds loaded. */
SHARED long long misuses AS(misuses);

struct alloc {
	char *p;
	size_t n;
	int device;
	struct alloc *next;
};
SHARED struct alloc *allocs AS(allocs);

struct task;
struct stream {
	int magic;
	int device;
	struct task *head, *tail;
	int err;       /* the first failure of its queued work, for the next synchronize */
	char msg[512]; /* and its message */
	struct stream *next; /* all streams, for aclrtSynchronizeDevice */
};
SHARED struct stream *streams AS(streams);
#define STREAM_MAGIC 0x5743

struct context {
	int magic;
	int device;
	struct stream *stream; /* the default stream */
};
#define CONTEXT_MAGIC 0x4354

SHARED struct context contexts[16] AS(contexts);
SHARED __thread struct context *current AS(current);

/* bump adds d to a live counter. */
static void bump(long long *counter, long long d) {
	pthread_mutex_lock(&mu);
	*counter += d;
	pthread_mutex_unlock(&mu);
}

static int device_count(void) {
	const char *e = getenv("MTEMU_DEVICES");
	int n = e ? atoi(e) : 1;
	return n < 0 ? 0 : (n > 16 ? 16 : n);
}

static size_t device_memory(void) {
	const char *e = getenv("MTEMU_MEMORY_MB");
	return (size_t)(e ? atoll(e) : 4096) << 20;
}

static int need_context(void) {
	if (!initialized) return fail(ACL_ERROR_UNINITIALIZE, "aclInit has not been called");
	if (!current) return fail(ACL_ERROR_RT_CONTEXT_NULL, "no current context on this thread: call aclrtSetDevice or aclrtSetCurrentContext");
	return 0;
}

/* ---- runtime ---- */

EXPORT aclError aclInit(const char *config) {
	(void)config;
	pthread_mutex_lock(&mu);
	int again = initialized;
	initialized = 1;
	pthread_mutex_unlock(&mu);
	return again ? fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: repeated initialisation") : 0;
}

EXPORT aclError aclFinalize(void) {
	initialized = 0;
	return 0;
}

EXPORT aclError aclrtGetVersion(int32_t *major, int32_t *minor, int32_t *patch) {
	*major = 1, *minor = 15, *patch = 0;
	return 0;
}

EXPORT const char *aclrtGetSocName(void) {
	const char *e = getenv("MTEMU_SOC");
	return e ? e : "Ascend910B3";
}

EXPORT aclError aclrtGetDeviceCount(uint32_t *count) {
	if (!count) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
	*count = (uint32_t)device_count();
	return 0;
}

/* new_stream makes a stream; the caller holds mu. */
static struct stream *new_stream(int device) {
	struct stream *s = calloc(1, sizeof *s);
	s->magic = STREAM_MAGIC;
	s->device = device;
	s->next = streams, streams = s;
	return s;
}

EXPORT aclError aclrtSetDevice(int32_t id) {
	if (!initialized) return fail(ACL_ERROR_UNINITIALIZE, "aclrtSetDevice: aclInit has not been called");
	if (id < 0 || id >= device_count()) return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetDevice: invalid device id %d", id);
	pthread_mutex_lock(&mu);
	struct context *c = &contexts[id];
	if (c->magic != CONTEXT_MAGIC) {
		c->magic = CONTEXT_MAGIC;
		c->device = id;
		c->stream = new_stream(id);
	}
	pthread_mutex_unlock(&mu);
	current = c;
	return 0;
}

EXPORT aclError aclrtResetDevice(int32_t id) {
	if (id < 0 || id >= device_count()) return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtResetDevice: invalid device id %d", id);
	if (current && current->device == id) current = NULL;
	return 0;
}

EXPORT aclError aclrtGetDevice(int32_t *id) {
	int e = need_context();
	if (e) return e;
	*id = current->device;
	return 0;
}

EXPORT aclError aclrtGetCurrentContext(void **ctx) {
	int e = need_context();
	if (e) return e;
	*ctx = current;
	return 0;
}

EXPORT aclError aclrtSetCurrentContext(void *ctx) {
	struct context *c = ctx;
	if (!c || c->magic != CONTEXT_MAGIC) return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetCurrentContext: invalid context");
	current = c;
	return 0;
}

EXPORT aclError aclrtCreateContext(void **ctx, int32_t id) {
	aclError e = aclrtSetDevice(id);
	if (e) return e;
	*ctx = current;
	return 0;
}

EXPORT aclError aclrtDestroyContext(void *ctx) {
	(void)ctx;
	return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: the default context must not be destroyed");
}

EXPORT aclError aclrtCreateStream(void **out) {
	int e = need_context();
	if (e) return e;
	pthread_mutex_lock(&mu);
	*out = new_stream(current->device);
	live_streams++;
	pthread_mutex_unlock(&mu);
	return 0;
}

static int check_stream(struct stream *s, const char *fn) {
	int e = need_context();
	if (e) return e;
	if (!s || s->magic != STREAM_MAGIC) return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: invalid stream", fn);
	if (s->device != current->device)
		return fail(ACL_ERROR_RT_STREAM_CONTEXT, "%s: the stream belongs to device %d, the current context to device %d", fn,
			    s->device, current->device);
	return 0;
}

static int sync_stream(struct stream *s, int destroy);
static int sync_device(int device);

EXPORT aclError aclrtSynchronizeStream(void *stream) {
	struct stream *s = stream ? stream : (current ? current->stream : NULL);
	int e = check_stream(s, "aclrtSynchronizeStream");
	return e ? e : sync_stream(s, 0);
}

/* aclrtDestroyStream runs the stream's queued work, then destroys it. */
EXPORT aclError aclrtDestroyStream(void *stream) {
	struct stream *s = stream;
	int e = check_stream(s, "aclrtDestroyStream");
	return e ? e : sync_stream(s, 1);
}

EXPORT aclError aclrtSynchronizeDevice(void) {
	int e = need_context();
	return e ? e : sync_device(current->device);
}

/* ---- memory ---- */

static struct alloc *find_alloc(const void *p, size_t n) {
	for (struct alloc *a = allocs; a; a = a->next)
		if ((const char *)p >= a->p && (const char *)p + n <= a->p + a->n) return a;
	return NULL;
}

EXPORT aclError aclrtMalloc(void **p, size_t n, int policy) {
	(void)policy;
	int e = need_context();
	if (e) return e;
	if (!p || n == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size must not be 0");
	pthread_mutex_lock(&mu);
	if ((size_t)live_bytes + n > device_memory()) {
		pthread_mutex_unlock(&mu);
		return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: out of device memory: %zu bytes asked, %lld in use of %zu",
			    n, live_bytes, device_memory());
	}
	pthread_mutex_unlock(&mu);
	void *m = NULL;
	size_t rounded = (n + 31) / 32 * 32 + 32;
	if (posix_memalign(&m, 64, rounded)) return fail(ACL_ERROR_BAD_ALLOC, "aclrtMalloc: host allocation failed");
	memset(m, 0xA5, rounded); /* uninitialised memory: poison */
	struct alloc *a = malloc(sizeof *a);
	a->p = m, a->n = n, a->device = current->device;
	pthread_mutex_lock(&mu);
	a->next = allocs, allocs = a;
	live_allocs++, live_bytes += (long long)n, mallocs++;
	pthread_mutex_unlock(&mu);
	*p = m;
	return 0;
}

EXPORT aclError aclrtFree(void *p) {
	int e = need_context();
	if (e) return e;
	pthread_mutex_lock(&mu);
	for (struct alloc **pp = &allocs; *pp; pp = &(*pp)->next) {
		struct alloc *a = *pp;
		if (a->p == p) {
			*pp = a->next;
			live_allocs--, live_bytes -= (long long)a->n;
			pthread_mutex_unlock(&mu);
			memset(a->p, 0xDD, a->n); /* freed memory: poison, to catch use after free by queued work */
			free(a->p);
			free(a);
			return 0;
		}
	}
	pthread_mutex_unlock(&mu);
	return fail(ACL_ERROR_RT_MEMORY_FREE, "aclrtFree: %p is not a live device allocation", p);
}

EXPORT aclError aclrtGetMemInfo(int attr, size_t *free_, size_t *total) {
	(void)attr;
	int e = need_context();
	if (e) return e;
	*total = device_memory();
	*free_ = device_memory() - (size_t)live_bytes;
	return 0;
}

static int is_device(const void *p, size_t n) {
	pthread_mutex_lock(&mu);
	int ok = find_alloc(p, n) != NULL;
	pthread_mutex_unlock(&mu);
	return ok;
}

/* Kinds: 0 host->host, 1 host->device, 2 device->host, 3 device->device. */
EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, int kind) {
	int e = need_context();
	if (e) return e;
	if (count > destMax) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count %zu exceeds destMax %zu", count, destMax);
	if (count == 0) return 0;
	if (!dst || !src) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: NULL pointer");
	int dd = kind == 1 || kind == 3, sd = kind == 2 || kind == 3;
	if ((dd && !is_device(dst, count)) || (sd && !is_device(src, count)))
		return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: kind %d but the device range is not inside a live allocation", kind);
	memmove(dst, src, count);
	return 0;
}

EXPORT aclError aclrtMemset(void *dst, size_t destMax, int32_t value, size_t count) {
	int e = need_context();
	if (e) return e;
	if (count > destMax) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count %zu exceeds destMax %zu", count, destMax);
	memset(dst, value, count);
	return 0;
}

/* ---- descriptors ---- */

typedef struct aclTensor {
	int magic;
	int dtype;
	int ndim;
	int64_t dims[MAXDIM], strides[MAXDIM], offset;
	char *data;
	int format; /* ---- nn and indexing ops ---- the aclFormat it was made with (the convolutions check it) */
} aclTensor;
#define TENSOR_MAGIC 0x7E50

typedef struct aclScalar {
	int magic;
	int dtype;
	int64_t i; /* the value of an integer or bool scalar */
	double f;  /* the value of a floating scalar */
} aclScalar;
#define SCALAR_MAGIC 0x5CA1

typedef struct aclIntArray {
	int magic;
	uint64_t n;
	int64_t v[MAXDIM];
} aclIntArray;
#define ARRAY_MAGIC 0xA88A

static int elem_size(int dt) {
	switch (dt) {
	case DT_FLOAT: case DT_INT32: return 4;
	case DT_FLOAT16: case DT_BF16: case DT_INT16: return 2;
	case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
	case DT_INT64: case DT_DOUBLE: return 8;
	}
	return 0;
}

/* The destructors of the descriptors: a live object, freed and uncounted. */
#define DESTROY(Name, Type, Magic, Counter, What)                                                                 \
	EXPORT aclnnStatus Name(const Type *o) {                                                                   \
		if (!o || o->magic != Magic) return fail(ACLNN_ERR_PARAM_NULLPTR, #Name ": not a live " What);     \
		((Type *)o)->magic = 0;                                                                            \
		free((void *)o);                                                                                   \
		bump(&Counter, -1);                                                                                \
		return 0;                                                                                          \
	}

EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t n, int dtype, const int64_t *stride, int64_t offset,
				  int format, const int64_t *storageDims, uint64_t storageN, void *data) {
	if (need_context()) return NULL;
	if (n > MAXDIM || elem_size(dtype) == 0) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: %llu dims or dtype %d not supported", (unsigned long long)n, dtype);
		return NULL;
	}
	if (((uintptr_t)data) % 32 != 0) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: tensor data %p is not 32-byte aligned", data);
		return NULL;
	}
	int64_t storage = 1;
	for (uint64_t i = 0; i < storageN; i++) storage *= storageDims[i];
	int64_t last = offset, numel = 1;
	for (uint64_t i = 0; i < n; i++) {
		if (viewDims[i] < 0 || stride[i] < 0) {
			fail(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: negative size or stride in dim %llu", (unsigned long long)i);
			return NULL;
		}
		numel *= viewDims[i];
		if (viewDims[i] > 0) last += (viewDims[i] - 1) * stride[i];
	}
	if (offset < 0 || (numel > 0 && last >= storage)) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: offset %lld and strides reach element %lld of a storage of %lld elements",
		     (long long)offset, (long long)last, (long long)storage);
		return NULL;
	}
	if (storage > 0 && !is_device(data, (size_t)storage * elem_size(dtype))) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor: storage of %lld elements at %p is not inside a live device allocation",
		     (long long)storage, data);
		return NULL;
	}
	aclTensor *t = calloc(1, sizeof *t);
	t->magic = TENSOR_MAGIC, t->dtype = dtype, t->ndim = (int)n, t->offset = offset, t->data = data, t->format = format;
	for (uint64_t i = 0; i < n; i++) t->dims[i] = viewDims[i], t->strides[i] = stride[i];
	bump(&live_tensors, 1);
	return t;
}

DESTROY(aclDestroyTensor, aclTensor, TENSOR_MAGIC, live_tensors, "tensor")

static int is_float(int dt);
static int64_t load_i(int dt, const char *p);
static double load_f(int dt, const char *p);

EXPORT aclScalar *aclCreateScalar(void *value, int dtype) {
	if (!value || elem_size(dtype) == 0) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: bad value or dtype %d", dtype);
		return NULL;
	}
	aclScalar *s = calloc(1, sizeof *s);
	s->magic = SCALAR_MAGIC, s->dtype = dtype;
	if (is_float(dtype)) s->f = load_f(dtype, value), s->i = 0;
	else s->i = load_i(dtype, value), s->f = (double)s->i;
	bump(&live_scalars, 1);
	return s;
}

DESTROY(aclDestroyScalar, aclScalar, SCALAR_MAGIC, live_scalars, "scalar")

EXPORT aclIntArray *aclCreateIntArray(const int64_t *v, uint64_t n) {
	if (n > MAXDIM || (n > 0 && !v)) {
		fail(ACLNN_ERR_PARAM_INVALID, "aclCreateIntArray: %llu values", (unsigned long long)n);
		return NULL;
	}
	aclIntArray *a = calloc(1, sizeof *a);
	a->magic = ARRAY_MAGIC, a->n = n;
	if (n > 0) memcpy(a->v, v, n * sizeof *v); /* an empty array may come with a null pointer */
	bump(&live_arrays, 1);
	return a;
}

DESTROY(aclDestroyIntArray, aclIntArray, ARRAY_MAGIC, live_arrays, "array")

/* ---- element access ----
 *
 * Values are exact per dtype, as on the device. An op has a compute dtype
 * (compute_type below): integer and bool compute dtypes run in 64-bit
 * integer arithmetic that wraps (two's complement, as the device's integer
 * units), the result wrapped to the compute dtype's width. [?] Wrapping is
 * torch's rule and the goldens' of ops-math; its arch35 integer kernels turn
 * the vector unit's saturation mode off to get it (math/pow/op_kernel/arch35/
 * pow_tensor_scalar_integer.h); that every integer op wraps on every chip is
 * assumed, not checked on hardware. Floating compute
 * dtypes run in double, each input converted to the compute dtype exactly
 * as a cast would and the result rounded to it (round to nearest even) before
 * it is stored. A double holds every float16, bfloat16 and float32 value and
 * rounds a single add, sub, mul, div or sqrt of two of them correctly, so
 * that rounding is the device's for those; transcendental ops differ from
 * the device's approximations in the last bits, and floating sums (summed
 * in double, rounded once) from the device's order of summation.
 *
 * Conversions (aclnnCast, aclnnInplaceCopy, and every store into an output
 * of another dtype):
 *   - integer to integer: two's-complement wrap (keep the low bits). [?] The
 *     aclnnCast doc (hicann/ops-math math/cast/README.md) only guarantees
 *     int32 -> int8 for inputs in (-2048, 1920) (presumably a conversion
 *     through float16); outside that range the device's result is unknown.
 *   - integer to floating: correctly rounded (nearest even); +-inf past the
 *     largest finite value.
 *   - floating to floating: rounded to nearest even, overflow to +-inf, NaN
 *     kept.
 *   - floating to integer: truncated toward zero; NaN becomes 0 (documented
 *     in math/cast/README.md); out of range saturates to the type's limits.
 *     [?] Saturation is the AI Core's conversion in its saturation mode
 *     (cannmirror/asc-devkit docs/api/context/c_api/reg/reg_vector/
 *     asc_int322uint8.md: out of range -> the type's extreme, NaN -> 0);
 *     aclnnCast does not document out-of-range values.
 *   - anything to bool: nonzero (NaN included) is true.
 */

static int is_float(int dt) { return dt == DT_FLOAT || dt == DT_FLOAT16 || dt == DT_BF16 || dt == DT_DOUBLE; }

static float half_to_float(uint16_t h) {
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, bits;
	if (e == 0) {
		if (m == 0) bits = s;
		else {
			e = 1;
			while (!(m & 1024)) m <<= 1, e--;
			m &= 1023;
			bits = s | ((e + 112) << 23) | (m << 13);
		}
	} else if (e == 31) bits = s | 0x7F800000 | (m << 13);
	else bits = s | ((e + 112) << 23) | (m << 13);
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

/* float_to_half converts f to float16 bits, rounding to nearest even (the
 * stores pass values rnd has already rounded, so that it is exact there). */
static uint16_t float_to_half(float f) {
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t s = (x >> 16) & 0x8000, e = (x >> 23) & 255, m = x & 0x7FFFFF;
	if (e == 255) return (uint16_t)(s | 0x7C00 | (m ? 0x200 : 0));
	int ee = (int)e - 112;
	if (ee >= 31) return (uint16_t)(s | 0x7C00);
	if (ee <= 0) {
		if (ee < -10) return (uint16_t)s;
		m |= 0x800000;
		uint32_t shift = (uint32_t)(14 - ee), r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (r & 1))) r++;
		return (uint16_t)(s | r);
	}
	uint32_t r = ((uint32_t)ee << 10) | (m >> 13), rem = m & 0x1FFF;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
	return (uint16_t)(s | r);
}

/* round_bits rounds v to a binary format with p significand bits and
 * normal exponents emin..emax (round to nearest even, subnormals, overflow
 * to +-inf). The result is exact in a double. */
static double round_bits(double v, int p, int emin, int emax) {
	if (v == 0 || isnan(v) || isinf(v)) return v;
	int e;
	frexp(v, &e);
	int lead = e - 1 < emin ? emin : e - 1;
	double q = ldexp(1.0, lead - (p - 1));
	double r = nearbyint(v / q) * q; /* the default rounding mode: nearest even */
	if (fabs(r) > ldexp(2.0 - ldexp(1.0, 1 - p), emax)) return copysign(INFINITY, v);
	return r;
}

/* rnd rounds v to the floating dtype dt. */
static double rnd(int dt, double v) {
	switch (dt) {
	case DT_FLOAT: return (float)v;
	case DT_FLOAT16: return round_bits(v, 11, -14, 15);
	case DT_BF16: return round_bits(v, 8, -126, 127);
	}
	return v;
}

/* i2f converts the integer v to the floating dtype dt, correctly rounded
 * (the rounding is done on the integer, not after a conversion to double). */
static double i2f(int dt, int64_t v) {
	int p = dt == DT_FLOAT ? 24 : dt == DT_FLOAT16 ? 11 : dt == DT_BF16 ? 8 : 53;
	uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int bits = 0;
	while (bits < 64 && (m >> bits) != 0) bits++;
	if (bits > p) { /* drop bits - p low bits, to nearest even */
		int k = bits - p;
		uint64_t low = m & ((1ull << k) - 1), half = 1ull << (k - 1), r = m >> k;
		if (low > half || (low == half && (r & 1))) r++;
		double d = ldexp((double)r, k);
		return rnd(dt, v < 0 ? -d : d); /* exact but for the overflow to +-inf */
	}
	return rnd(dt, v < 0 ? -(double)m : (double)m);
}

/* wrap reduces v to the integer dtype dt (two's complement; bool: nonzero). */
static int64_t wrap(int dt, int64_t v) {
	switch (dt) {
	case DT_INT8: return (int8_t)v;
	case DT_UINT8: return (uint8_t)v;
	case DT_INT16: return (int16_t)v;
	case DT_INT32: return (int32_t)v;
	case DT_BOOL: return v != 0;
	}
	return v;
}

/* f2i converts the floating v to the integer dtype dt (see above). */
static int64_t f2i(int dt, double v) {
	if (isnan(v)) return 0;
	if (dt == DT_BOOL) return v != 0;
	double lo = dt == DT_INT8 ? -128 : dt == DT_UINT8 ? 0 : dt == DT_INT16 ? -32768 : dt == DT_INT32 ? -2147483648.0 : -9223372036854775808.0;
	double hi = dt == DT_INT8 ? 127 : dt == DT_UINT8 ? 255 : dt == DT_INT16 ? 32767 : dt == DT_INT32 ? 2147483647.0 : 9223372036854775807.0;
	v = trunc(v);
	if (v <= lo) return (int64_t)lo;
	if (v >= hi) return dt == DT_INT64 ? INT64_MAX : (int64_t)hi; /* (double)INT64_MAX is 2^63 */
	return (int64_t)v;
}

/* load_i reads an integer or bool element. */
static int64_t load_i(int dt, const char *p) {
	switch (dt) {
	case DT_INT8: return *(const int8_t *)p;
	case DT_UINT8: return *(const uint8_t *)p;
	case DT_BOOL: return *(const uint8_t *)p != 0;
	case DT_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
	case DT_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
	case DT_INT64: { int64_t v; memcpy(&v, p, 8); return v; }
	}
	return 0;
}

/* load_f reads a floating element (exactly). */
static double load_f(int dt, const char *p) {
	switch (dt) {
	case DT_FLOAT: { float v; memcpy(&v, p, 4); return v; }
	case DT_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
	case DT_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return half_to_float(v); }
	case DT_BF16: { uint16_t v; memcpy(&v, p, 2); uint32_t b = (uint32_t)v << 16; float f; memcpy(&f, &b, 4); return f; }
	}
	return 0;
}

/* get_i and get_f read an element of dtype dt as a value of the compute
 * dtype ct: an integer one, or a floating one. */
static int64_t get_i(int ct, int dt, const char *p) { return is_float(dt) ? f2i(ct, load_f(dt, p)) : wrap(ct, load_i(dt, p)); }
static double get_f(int ct, int dt, const char *p) { return is_float(dt) ? rnd(ct, load_f(dt, p)) : i2f(ct, load_i(dt, p)); }

/* store_i stores the integer v into an element of dtype dt, converting. */
static void store_i(int dt, char *p, int64_t v) {
	if (is_float(dt)) {
		double d = i2f(dt, v);
		switch (dt) {
		case DT_FLOAT: { float f = (float)d; memcpy(p, &f, 4); return; }
		case DT_DOUBLE: memcpy(p, &d, 8); return;
		case DT_FLOAT16: { uint16_t h = float_to_half((float)d); memcpy(p, &h, 2); return; }
		case DT_BF16: { float f = (float)d; uint32_t b; memcpy(&b, &f, 4); uint16_t h = (uint16_t)(b >> 16); memcpy(p, &h, 2); return; }
		}
	}
	v = wrap(dt, v);
	switch (dt) {
	case DT_INT8: *(int8_t *)p = (int8_t)v; return;
	case DT_UINT8: case DT_BOOL: *(uint8_t *)p = (uint8_t)v; return;
	case DT_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); return; }
	case DT_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
	case DT_INT64: memcpy(p, &v, 8); return;
	}
}

/* store_f stores the floating v into an element of dtype dt, converting. */
static void store_f(int dt, char *p, double v) {
	if (!is_float(dt)) {
		store_i(dt, p, f2i(dt, v));
		return;
	}
	v = rnd(dt, v);
	switch (dt) {
	case DT_FLOAT: { float f = (float)v; memcpy(p, &f, 4); return; }
	case DT_DOUBLE: memcpy(p, &v, 8); return;
	case DT_FLOAT16: { uint16_t h = float_to_half((float)v); memcpy(p, &h, 2); return; }
	case DT_BF16: {
		float f = (float)v;
		uint32_t b;
		memcpy(&b, &f, 4);
		uint16_t h = isnan(f) ? (uint16_t)(((b >> 16) & 0x8000) | 0x7FC0) : (uint16_t)(b >> 16);
		memcpy(p, &h, 2);
		return;
	}
	}
}

/* convert stores the element p of dtype idt into o of dtype odt (a cast). */
static void convert(int odt, char *o, int idt, const char *p) {
	if (is_float(idt)) store_f(odt, o, load_f(idt, p));
	else store_i(odt, o, load_i(idt, p));
}

/* Scalars keep the value they were made with, an integer or a floating one. */
static int64_t sc_i(int ct, const aclScalar *s) { return is_float(s->dtype) ? f2i(ct, s->f) : wrap(ct, s->i); }
static double sc_f(int ct, const aclScalar *s) { return is_float(s->dtype) ? rnd(ct, s->f) : i2f(ct, s->i); }

/* promote is the dtype two tensor operands compute in (PyTorch's promotion,
 * which aclnn's PromoteType follows): bool < integers < floating types, the
 * wider of two; uint8 with int8 is int16, float16 with bfloat16 float32. */
static int promote(int a, int b) {
	static const int rank[32] = {[DT_BOOL] = 0, [DT_UINT8] = 1, [DT_INT8] = 1, [DT_INT16] = 2, [DT_INT32] = 3,
				     [DT_INT64] = 4, [DT_FLOAT16] = 5, [DT_BF16] = 5, [DT_FLOAT] = 6, [DT_DOUBLE] = 7};
	if (a == b) return a;
	if ((a == DT_UINT8 && b == DT_INT8) || (a == DT_INT8 && b == DT_UINT8)) return DT_INT16;
	if ((a == DT_FLOAT16 && b == DT_BF16) || (a == DT_BF16 && b == DT_FLOAT16)) return DT_FLOAT;
	return rank[a] >= rank[b] ? a : b;
}

/* promote_scalar is the dtype a tensor of dtype t and a scalar of dtype s
 * compute in: the tensor's, but FLOAT when the tensor is integral and the
 * scalar floating (aclnn's GetScalarDefaultDtype, hicann/ops-math
 * conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp), INT64 for a bool
 * tensor and an integer scalar. */
static int promote_scalar(int t, int s) {
	if (is_float(t)) return t;
	if (is_float(s)) return DT_FLOAT;
	if (t == DT_BOOL && s != DT_BOOL) return DT_INT64;
	return t;
}

/* float_type is the dtype an op defined only on floating types computes in:
 * integral inputs are cast to FLOAT. */
static int float_type(int dt) { return is_float(dt) ? dt : DT_FLOAT; }

static int64_t numel(const aclTensor *t) {
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++) n *= t->dims[i];
	return n;
}

/* address of the element at row-major position idx of t */
static char *at(const aclTensor *t, int64_t idx) {
	int64_t off = t->offset;
	for (int i = t->ndim - 1; i >= 0; i--) {
		int64_t d = t->dims[i];
		if (d == 0) return t->data;
		off += (idx % d) * t->strides[i];
		idx /= d;
	}
	return t->data + off * elem_size(t->dtype);
}

/* address of the element of t broadcast to out's shape at out position idx */
static char *at_bcast(const aclTensor *t, const aclTensor *out, int64_t idx) {
	int64_t off = t->offset;
	for (int i = out->ndim - 1, j = t->ndim - 1; i >= 0; i--, j--) {
		int64_t d = out->dims[i], k = idx % d;
		idx /= d;
		if (j >= 0 && t->dims[j] != 1) off += k * t->strides[j];
	}
	return t->data + off * elem_size(t->dtype);
}

static int broadcastable(const aclTensor *t, const aclTensor *out) {
	if (t->ndim > out->ndim) return 0;
	for (int i = 1; i <= t->ndim; i++) {
		int64_t a = t->dims[t->ndim - i], b = out->dims[out->ndim - i];
		if (a != b && a != 1) return 0;
	}
	return 1;
}

/* ---- executors and streams ---- */

enum op {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_ADDS, OP_MULS, OP_NEG, OP_EXP, OP_LOG, OP_SQRT, OP_ABS, OP_RELU, OP_SIGMOID,
	OP_TANH, OP_THRESHOLD_BACKWARD, OP_SOFTMAX, OP_LOG_SOFTMAX, OP_SOFTMAX_BACKWARD, OP_LOG_SOFTMAX_BACKWARD,
	OP_REDUCE_SUM, OP_MEAN, OP_AMAX, OP_MATMUL, OP_CAST, OP_COPY, OP_FILL, OP_ZERO, OP_MAXIMUM, OP_MINIMUM, OP_GELU,
	OP_ARGMAX, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_EQS, OP_NES, OP_LTS, OP_LES, OP_GTS, OP_GES, OP_WHERE, OP_CLAMP,
	OP_POW, OP_POWS, OP_GELU_V2,
	/* ---- pointwise math ops ---- (emu_pointwise_ops.inc; OP_PW_FIRST..OP_PW_LAST) */
	OP_PW_SIN, OP_PW_FIRST = OP_PW_SIN, OP_PW_COS, OP_PW_TAN, OP_PW_ASIN, OP_PW_ACOS, OP_PW_ATAN, OP_PW_ASINH,
	OP_PW_ACOSH, OP_PW_ATANH, OP_PW_SINH, OP_PW_COSH, OP_PW_ERF, OP_PW_ERFC, OP_PW_ERFINV, OP_PW_EXP2, OP_PW_EXPM1,
	OP_PW_LOG2, OP_PW_LOG10, OP_PW_LOG1P, OP_PW_RSQRT, OP_PW_RECIPROCAL, OP_PW_SINC, OP_PW_SIGN, OP_PW_FLOOR,
	OP_PW_CEIL, OP_PW_ROUND, OP_PW_TRUNC, OP_PW_FRAC, OP_PW_IS_INF, OP_PW_IS_FINITE, OP_PW_IS_POS_INF, OP_PW_IS_NEG_INF,
	OP_PW_SIGNBIT, OP_PW_BITWISE_NOT, OP_PW_LOGICAL_NOT, OP_PW_SILU, OP_PW_LOG_SIGMOID, OP_PW_HARDSWISH,
	OP_PW_HARDSIGMOID, OP_PW_MISH, OP_PW_SELU, OP_PW_LEAKY_RELU, OP_PW_CELU, OP_PW_ELU, OP_PW_SOFTPLUS, OP_PW_HARDTANH,
	OP_PW_LOGIT, OP_PW_NAN_TO_NUM, OP_PW_REMAINDER, OP_PW_FMOD, OP_PW_ATAN2, OP_PW_LOGADDEXP, OP_PW_BITWISE_AND,
	OP_PW_BITWISE_OR, OP_PW_BITWISE_XOR, OP_PW_LOGICAL_AND, OP_PW_LOGICAL_OR, OP_PW_LOGICAL_XOR, OP_PW_CLAMP_TENSOR,
	OP_PW_LERP, OP_PW_LERPS, OP_PW_ALL, OP_PW_ANY, OP_PW_LOGSUMEXP, OP_PW_VAR, OP_PW_STD,
	OP_PW_LAST = OP_PW_STD,
	/* ---- nn and indexing ops ---- (emu_nn_ops.inc) */
	OP_INDEX_SELECT, OP_GATHER, OP_SCATTER, OP_SCATTER_VALUE, OP_SCATTER_ADD, OP_INDEX_ADD, OP_MASKED_FILL, OP_CUMSUM,
	OP_ARGMIN, OP_AMIN, OP_MAX_DIM, OP_MIN_DIM, OP_PROD, OP_PROD_DIM, OP_SORT, OP_TOPK, OP_CAT, OP_FLIP, OP_BATCH_NORM,
	OP_BATCH_NORM_BACKWARD, OP_CONVOLUTION, OP_CONVOLUTION_BACKWARD,
	/* ---- more ops ---- (emu_more_ops.inc; OP_DOT on) */
	OP_DOT, OP_CUMPROD, OP_SEARCHSORTED, OP_NONZERO, OP_MASKED_SELECT,
	/* ---- norm ops ---- (emu_norm_ops.inc; OP_LAYER_NORM on) */
	OP_LAYER_NORM, OP_LAYER_NORM_BACKWARD, OP_GROUP_NORM, OP_GROUP_NORM_BACKWARD,
	/* ---- pool ops ---- (emu_pool_ops.inc) */
	OP_AVG_POOL2D, OP_AVG_POOL2D_BACKWARD, OP_ADAPTIVE_AVG_POOL2D, OP_ADAPTIVE_AVG_POOL2D_BACKWARD,
	/* ---- creation ops ---- (emu_creation_ops.inc; OP_ARANGE on) */
	OP_ARANGE, OP_LINSPACE,
	/* ---- svd ---- (emu_svd_ops.inc) */
	OP_SVD,
	/* ---- random ops ---- (emu_random_ops.inc) */
	OP_UNIFORM, OP_NORMAL, OP_RANDOM, OP_BERNOULLI, OP_BERNOULLI_TENSOR,
};
#define MAXT 16 /* the most tensors of one op (cat's list and its output) */

typedef struct aclOpExecutor {
	int magic;
	int op;
	aclTensor t[MAXT]; /* snapshots of the descriptors: they may be destroyed once execute returns */
	int nt;
	aclScalar s[2]; /* copies of the scalars (alpha, bounds, ...) */
	int64_t dims[MAXDIM];
	int ndims;
	int64_t dim;
	int keep;
	int queued; /* execute was called: the executor is consumed */
	/* ---- nn and indexing ops ---- */
	int64_t nn_i[24]; /* their int arrays and flags */
	double nn_f[2];   /* momentum, eps */
} aclOpExecutor;
#define EXEC_MAGIC 0xE8EC

/* one is the alpha of ops called without one. */
static const aclScalar one = {SCALAR_MAGIC, DT_INT64, 1, 1.0};

enum { ACL_ERROR_RT_INTERNAL_ERROR = 507000, ACL_ERROR_RT_AICORE_EXCEPTION = 507015, ACLNN_ERR_INNER = 561000 };

struct event {
	int magic;
	unsigned long long recorded;  /* aclrtRecordEvent calls so far (0: never recorded) */
	unsigned long long completed; /* the latest of them whose record has run */
	int waits;                    /* stream waits on it queued and not yet passed */
	struct stream *stream;        /* where it was last recorded */
	double time;                  /* when its latest record ran */
};
#define EVENT_MAGIC 0xE7E7

/* A task is an op (ex, with its workspace and the name of its execute
 * call), the record of an event, or a wait for one. seq is the record a
 * record task makes, or the one a wait waits for; stamp is nonzero once the
 * op has started. */
struct task {
	aclOpExecutor *ex;
	void *ws;
	uint64_t ws_size;
	char name[64];
	unsigned long long stamp;
	int failed;
	struct event *record, *wait;
	unsigned long long seq;
	struct task *next;
};

/* The live executors: made by a GetWorkspaceSize and not yet run, dropped
 * or destroyed. An executor is looked up here before it is used, so that
 * one run twice (freed by its first run, as CANN frees it) or destroyed
 * twice is refused, not read after it was freed. runs counts the queued
 * runs of a repeatable one. */
struct live_exec {
	aclOpExecutor *x;
	int repeatable;
	int runs;
};
SHARED struct live_exec *execs AS(execs);
SHARED size_t nexecs AS(nexecs), capexecs AS(capexecs);

/* find_exec is x's entry in execs, or NULL; the caller holds mu. */
static struct live_exec *find_exec(const aclOpExecutor *x) {
	for (size_t i = nexecs; i > 0; i--)
		if (execs[i - 1].x == x) return &execs[i - 1];
	return NULL;
}

/* forget_exec removes x's entry and frees x; the caller holds mu. */
static void forget_exec(struct live_exec *e) {
	aclOpExecutor *x = e->x;
	*e = execs[--nexecs];
	x->magic = 0;
	free(x);
	live_executors--;
}

static void enqueue(struct stream *s, struct task *t) {
	pthread_mutex_lock(&mu);
	if (s->tail) s->tail->next = t;
	else s->head = t;
	s->tail = t;
	pthread_mutex_unlock(&mu);
}

/* ---- running queued work ----
 *
 * Queued work runs at a synchronize, on the calling thread, and every
 * stream's queue advances at once: in each round each stream with work
 * takes one turn, newest stream first, so that the work of different
 * streams interleaves as on the device, where streams run concurrently. A
 * record takes one turn; a wait holds its stream until the record it waits
 * for has run, then takes one turn. An op takes two: at its start it stamps
 * its workspace with a number of its own; at its end it checks the stamp,
 * and that its tensors' memory is still allocated, then computes. So an op
 * whose workspace another stream's op uses at the same time fails, and work
 * that reads another stream's result without waiting for its event reads
 * it before it is written. A failure is kept on the stream and returned by
 * the next synchronize that covers it, with ACL_ERROR_RT_AICORE_EXCEPTION,
 * as a kernel's fault is on the device.
 */

/* run_mu is held while queued work runs: one thread runs it at a time. */
SHARED pthread_mutex_t run_mu AS(run_mu) INIT(PTHREAD_MUTEX_INITIALIZER);
SHARED unsigned long long stamps AS(stamps);

static void run_op(aclOpExecutor *x);
/* ---- nn and indexing ops ---- */
static __thread char nn_fault[256]; /* set by an nn op whose data makes the kernel fault */

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* op_fail marks t's op failed and keeps the first failure of s's work, a
 * misuse, for s's next synchronize. */
static void op_fail(struct stream *s, struct task *t, const char *fmt, ...) {
	t->failed = 1;
	pthread_mutex_lock(&mu);
	misuses++;
	if (!s->err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->msg, sizeof s->msg, fmt, ap);
		va_end(ap);
		s->err = ACL_ERROR_RT_AICORE_EXCEPTION;
	}
	pthread_mutex_unlock(&mu);
}

/* span is the number of bytes tensor t reaches from its data (0 if empty). */
static size_t span(const aclTensor *t) {
	int64_t last = t->offset;
	for (int i = 0; i < t->ndim; i++) {
		if (t->dims[i] == 0) return 0;
		last += (t->dims[i] - 1) * t->strides[i];
	}
	return (size_t)(last + 1) * (size_t)elem_size(t->dtype);
}

static void start_op(struct stream *s, struct task *t) {
	if (t->ws_size == 0) return;
	if (!is_device(t->ws, t->ws_size)) {
		op_fail(s, t, "%s: its workspace was freed before it ran (aclrtFree does not wait for queued work)", t->name);
		return;
	}
	if (t->ws_size >= sizeof t->stamp) memcpy(t->ws, &t->stamp, sizeof t->stamp);
}

static void finish_op(struct stream *s, struct task *t) {
	aclOpExecutor *x = t->ex;
	if (!t->failed && t->ws_size >= sizeof t->stamp) {
		unsigned long long seen = 0;
		if (is_device(t->ws, t->ws_size)) memcpy(&seen, t->ws, sizeof seen);
		if (seen != t->stamp)
			op_fail(s, t, "%s: another op used its workspace while it ran (a workspace shared by two streams, or freed)", t->name);
	}
	for (int i = 0; i < x->nt && !t->failed; i++) {
		size_t n = span(&x->t[i]);
		if (n > 0 && !is_device(x->t[i].data, n))
			op_fail(s, t, "%s: the memory of its tensor %d was freed before it ran (aclrtFree does not wait for queued work)",
				t->name, i);
	}
	if (!t->failed) run_op(x);
	/* ---- nn and indexing ops ---- a kernel fault on the data (an index out of range) */
	if (!t->failed && nn_fault[0]) op_fail(s, t, "%s: %s", t->name, nn_fault);
	nn_fault[0] = 0;
	pthread_mutex_lock(&mu);
	struct live_exec *e = find_exec(x);
	if (e && e->repeatable) e->runs--;
	else if (e) forget_exec(e);
	pthread_mutex_unlock(&mu);
}

/* turn runs the next step of s's queued work; it reports whether there was
 * one that could run. */
static int turn(struct stream *s) {
	pthread_mutex_lock(&mu);
	struct task *t = s->head;
	if (!t || (t->wait && t->wait->completed < t->seq)) {
		pthread_mutex_unlock(&mu);
		return 0;
	}
	int start = t->ex && !t->stamp;
	if (start) t->stamp = ++stamps;
	else { /* the task ends with this turn */
		s->head = t->next;
		if (!s->head) s->tail = NULL;
		if (t->wait) t->wait->waits--;
		if (t->record) {
			if (t->seq > t->record->completed) t->record->completed = t->seq;
			t->record->time = now();
		}
	}
	pthread_mutex_unlock(&mu);
	if (start) start_op(s, t);
	else {
		if (t->ex) finish_op(s, t);
		free(t);
	}
	return 1;
}

/* run runs queued work, a round of turns at a time, until done(arg); the
 * caller holds run_mu. Streams are unlinked only under run_mu, so the list
 * can be walked between turns. */
static int run(int (*done)(const void *), const void *arg) {
	while (!done(arg)) {
		int progress = 0;
		pthread_mutex_lock(&mu);
		struct stream *s = streams;
		pthread_mutex_unlock(&mu);
		while (s) {
			progress |= turn(s);
			pthread_mutex_lock(&mu);
			s = s->next;
			pthread_mutex_unlock(&mu);
		}
		if (!progress)
			return fail(ACL_ERROR_RT_INTERNAL_ERROR, "synchronize: the queued work cannot advance: its streams wait for events no queued work records");
	}
	return 0;
}

static int stream_idle(const void *p) {
	pthread_mutex_lock(&mu);
	int idle = ((const struct stream *)p)->head == NULL;
	pthread_mutex_unlock(&mu);
	return idle;
}

static int device_idle(const void *p) {
	int dev = *(const int *)p, idle = 1;
	pthread_mutex_lock(&mu);
	for (struct stream *s = streams; s && idle; s = s->next)
		if (s->device == dev && s->head) idle = 0;
	pthread_mutex_unlock(&mu);
	return idle;
}

struct event_target {
	struct event *ev;
	unsigned long long seq;
};

static int event_reached(const void *p) {
	const struct event_target *w = p;
	pthread_mutex_lock(&mu);
	int reached = w->ev->completed >= w->seq;
	pthread_mutex_unlock(&mu);
	return reached;
}

/* take_error returns (and clears) the failure kept on s, or on every stream
 * of device dev when s is NULL, the first one with its message. */
static int take_error(struct stream *s, int dev) {
	char msg[sizeof s->msg];
	int e = 0;
	pthread_mutex_lock(&mu);
	for (struct stream *x = s ? s : streams; x; x = s ? NULL : x->next) {
		if ((s || x->device == dev) && x->err && !e) e = x->err, memcpy(msg, x->msg, sizeof msg);
		if (s || x->device == dev) x->err = 0;
	}
	pthread_mutex_unlock(&mu);
	return e ? fail(e, "%s", msg) : 0;
}

/* sync_stream runs s's queued work (and what it waits for), then reports
 * its failures; with destroy it then destroys s. */
static int sync_stream(struct stream *s, int destroy) {
	pthread_mutex_lock(&run_mu);
	int e = run(stream_idle, s);
	if (!e) e = take_error(s, 0);
	if (destroy && stream_idle(s)) {
		pthread_mutex_lock(&mu);
		for (struct stream **pp = &streams; *pp; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		live_streams--;
		s->magic = 0;
		pthread_mutex_unlock(&mu);
		free(s);
	}
	pthread_mutex_unlock(&run_mu);
	return e;
}

static int sync_device(int device) {
	pthread_mutex_lock(&run_mu);
	int e = run(device_idle, &device);
	if (!e) e = take_error(NULL, device);
	pthread_mutex_unlock(&run_mu);
	return e;
}

/* ---- events ---- */

EXPORT aclError aclrtCreateEvent(void **out) {
	int e = need_context();
	if (e) return e;
	struct event *ev = calloc(1, sizeof *ev);
	if (!ev) return fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateEvent: out of host memory");
	ev->magic = EVENT_MAGIC;
	bump(&live_events, 1);
	*out = ev;
	return 0;
}

static int check_event(struct event *ev, const char *fn) {
	int e = need_context();
	if (e) return e;
	if (!ev || ev->magic != EVENT_MAGIC) return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: invalid event", fn);
	return 0;
}

/* complete reports whether ev was recorded and its latest record has run;
 * the caller holds mu. */
static int complete(const struct event *ev) { return ev->recorded > 0 && ev->completed >= ev->recorded; }

/* aclrtDestroyEvent refuses an event whose record is still queued, or that
 * a stream still waits on: acl_rt.h requires the aclrtStreamWaitEvent tasks
 * on it completed before it is destroyed (torch_npu's NPUEventManager
 * checks aclrtQueryEventWaitStatus first). The event stays live. */
EXPORT aclError aclrtDestroyEvent(void *event) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtDestroyEvent");
	if (e) return e;
	pthread_mutex_lock(&mu);
	int waits = ev->waits, queued = ev->recorded > ev->completed;
	if (waits || queued) misuses++;
	pthread_mutex_unlock(&mu);
	if (waits)
		return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyEvent: %d stream wait(s) on the event have not passed yet", waits);
	if (queued) return fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyEvent: the event's record is still queued");
	ev->magic = 0;
	free(ev);
	bump(&live_events, -1);
	return 0;
}

EXPORT aclError aclrtRecordEvent(void *event, void *stream) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtRecordEvent");
	if (e || (e = check_stream(stream, "aclrtRecordEvent"))) return e;
	struct task *t = calloc(1, sizeof *t);
	if (!t) return fail(ACL_ERROR_BAD_ALLOC, "aclrtRecordEvent: out of host memory");
	pthread_mutex_lock(&mu);
	t->record = ev, t->seq = ++ev->recorded, ev->stream = stream;
	pthread_mutex_unlock(&mu);
	enqueue(stream, t);
	return 0;
}

/* aclrtSynchronizeEvent waits for the event's latest record; an event
 * never recorded has nothing to wait for. */
EXPORT aclError aclrtSynchronizeEvent(void *event) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtSynchronizeEvent");
	if (e) return e;
	pthread_mutex_lock(&mu);
	struct event_target w = {ev, ev->recorded};
	struct stream *s = ev->stream;
	pthread_mutex_unlock(&mu);
	if (w.seq == 0) return 0;
	pthread_mutex_lock(&run_mu);
	e = run(event_reached, &w);
	if (!e) e = take_error(s, 0);
	pthread_mutex_unlock(&run_mu);
	return e;
}

/* status: ACL_EVENT_RECORDED_STATUS_COMPLETE (1) when the event was
 * recorded and its latest record has run, else _NOT_READY (0), for an
 * event never recorded too (hicann/runtime include/external/acl/acl_rt.h,
 * aclrtEventRecordedStatus; cann-api.md 13.7). */
EXPORT aclError aclrtQueryEventStatus(void *event, int *status) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtQueryEventStatus");
	if (e) return e;
	if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL");
	pthread_mutex_lock(&mu);
	*status = complete(ev);
	pthread_mutex_unlock(&mu);
	return 0;
}

/* status: ACL_EVENT_WAIT_STATUS_COMPLETE (0) when every stream wait on the
 * event has passed, else _NOT_READY (1) (acl_rt.h, aclrtEventWaitStatus:
 * the opposite encoding of the recorded status). */
EXPORT aclError aclrtQueryEventWaitStatus(void *event, int *status) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtQueryEventWaitStatus");
	if (e) return e;
	if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is NULL");
	pthread_mutex_lock(&mu);
	*status = ev->waits > 0;
	pthread_mutex_unlock(&mu);
	return 0;
}

/* aclrtStreamWaitEvent makes the stream's later work wait for the event's
 * latest record so far; waiting for an event never recorded waits for
 * nothing. */
EXPORT aclError aclrtStreamWaitEvent(void *stream, void *event) {
	struct event *ev = event;
	int e = check_event(ev, "aclrtStreamWaitEvent");
	if (e || (e = check_stream(stream, "aclrtStreamWaitEvent"))) return e;
	struct task *t = calloc(1, sizeof *t);
	if (!t) return fail(ACL_ERROR_BAD_ALLOC, "aclrtStreamWaitEvent: out of host memory");
	pthread_mutex_lock(&mu);
	t->wait = ev, t->seq = ev->recorded;
	ev->waits++;
	pthread_mutex_unlock(&mu);
	enqueue(stream, t);
	return 0;
}

EXPORT aclError aclrtEventElapsedTime(float *ms, void *start, void *end) {
	struct event *a = start, *b = end;
	int e = check_event(a, "aclrtEventElapsedTime");
	if (e || (e = check_event(b, "aclrtEventElapsedTime"))) return e;
	if (!ms) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL");
	pthread_mutex_lock(&mu);
	int done = complete(a) && complete(b);
	double t0 = a->time, t1 = b->time;
	pthread_mutex_unlock(&mu);
	if (!done) return fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: an event has not completed");
	*ms = (float)((t1 - t0) * 1000);
	return 0;
}

/* ws_need is the workspace an op asks for: some do, so that the caller's
 * workspace path is exercised. */
static uint64_t ws_need(int op) {
	return (op == OP_SOFTMAX || op == OP_LOG_SOFTMAX || op == OP_MATMUL || op == OP_REDUCE_SUM) ? 1024 : 0;
}

/* ---- operator libraries ----
 *
 * The per-repository operator libraries (libopapi_math.so, libopapi_nn.so,
 * ...) must not be used together with the aggregate libopapi.so (ops-math
 * and ops-nn docs/zh/op_api_list.md). Each library built from this file
 * notes its kind in oplibs when it is loaded; once both kinds are, every op
 * fails. */
SHARED int oplibs AS(oplibs); /* 1: libopapi.so loaded, 2: a libopapi_<repo>.so loaded */

#ifndef MTEMU_CORE
__attribute__((constructor)) static void note_library(void) {
	Dl_info info;
	if (!dladdr((void *)note_library, &info) || !info.dli_fname) return;
	const char *base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	int kind = strcmp(base, "libopapi.so") == 0 ? 1 : strncmp(base, "libopapi_", 9) == 0 ? 2 : 0;
	pthread_mutex_lock(&mu);
	if ((oplibs | kind) == 3 && oplibs != 3) misuses++;
	oplibs |= kind;
	pthread_mutex_unlock(&mu);
}
#endif

static aclnnStatus new_exec(int op, aclOpExecutor **out, uint64_t *ws, const aclTensor *const *ts, int nt) {
	if (need_context()) return ACL_ERROR_RT_CONTEXT_NULL;
	if (!out || !ws) return fail(ACLNN_ERR_PARAM_NULLPTR, "GetWorkspaceSize: NULL executor or workspace size pointer");
	for (int i = 0; i < nt; i++)
		if (!ts[i] || ts[i]->magic != TENSOR_MAGIC) return fail(ACLNN_ERR_PARAM_NULLPTR, "GetWorkspaceSize: tensor %d is not a live tensor", i);
	aclOpExecutor *x = calloc(1, sizeof *x);
	if (!x) return fail(ACLNN_ERR_INNER, "GetWorkspaceSize: out of host memory");
	x->magic = EXEC_MAGIC, x->op = op, x->nt = nt;
	for (int i = 0; i < nt; i++) x->t[i] = *ts[i];
	pthread_mutex_lock(&mu);
	int mixed = oplibs == 3;
	if (!mixed && nexecs == capexecs) {
		size_t cap = capexecs ? 2 * capexecs : 64;
		struct live_exec *v = realloc(execs, cap * sizeof *v);
		if (v) execs = v, capexecs = cap;
	}
	int room = nexecs < capexecs;
	if (!mixed && room) execs[nexecs++] = (struct live_exec){x, 0, 0}, live_executors++;
	pthread_mutex_unlock(&mu);
	if (mixed || !room) {
		free(x);
		if (mixed)
			return fail(ACLNN_ERR_INNER, "GetWorkspaceSize: libopapi.so is loaded together with a per-repository operator "
						     "library (libopapi_math.so, libopapi_nn.so, ...), which CANN forbids");
		return fail(ACLNN_ERR_INNER, "GetWorkspaceSize: out of host memory");
	}
	*out = x;
	*ws = ws_need(op);
	return 0;
}

/* drop_exec frees an executor its GetWorkspaceSize refuses. */
static void drop_exec(aclOpExecutor *x) {
	pthread_mutex_lock(&mu);
	struct live_exec *e = find_exec(x);
	if (e) forget_exec(e);
	pthread_mutex_unlock(&mu);
}

static aclnnStatus execute(void *ws, uint64_t wsSize, aclOpExecutor *x, void *stream, const char *name) {
	pthread_mutex_lock(&mu);
	struct live_exec *le = find_exec(x);
	int gone = !le, twice = le && !le->repeatable && x->queued;
	if (gone || twice) misuses++;
	pthread_mutex_unlock(&mu);
	if (gone) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: not a live executor (an executor runs once and is freed by its run)", name);
	if (twice) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: the executor was already launched (executors run once)", name);
	struct stream *s = stream;
	int e = check_stream(s, name);
	if (e) return e;
	uint64_t need = ws_need(x->op);
	if (wsSize < need || (need > 0 && !is_device(ws, need)))
		return fail(ACLNN_ERR_PARAM_INVALID, "%s: a workspace of %llu device bytes is required", name, (unsigned long long)need);
	struct task *t = calloc(1, sizeof *t);
	if (!t) return fail(ACLNN_ERR_INNER, "%s: out of host memory", name);
	t->ex = x, t->ws = ws, t->ws_size = need;
	snprintf(t->name, sizeof t->name, "%s", name);
	pthread_mutex_lock(&mu);
	x->queued = 1;
	le = find_exec(x);
	if (le && le->repeatable) le->runs++;
	launches++;
	pthread_mutex_unlock(&mu);
	enqueue(s, t);
	return 0;
}

/* aclSetAclOpExecutorRepeatable lets x run more than once, until
 * aclDestroyAclOpExecutor; it is how an executor that will not run is
 * discarded (hicann/opbase include/nnopbase/aclnn/acl_meta.h). */
EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *x) {
	pthread_mutex_lock(&mu);
	struct live_exec *e = find_exec(x);
	int ok = e && (e->repeatable || !x->queued);
	if (ok) e->repeatable = 1;
	else misuses++;
	pthread_mutex_unlock(&mu);
	return ok ? 0 : fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: not a live executor, or already launched");
}

/* aclDestroyAclOpExecutor destroys a repeatable executor whose runs are
 * done; any other is refused: a normal executor is freed by its run. */
EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *x) {
	pthread_mutex_lock(&mu);
	struct live_exec *e = find_exec(x);
	const char *why = !e ? "not a live executor" : !e->repeatable ? "only repeatable executors may be destroyed"
				  : e->runs > 0 ? "its runs are still queued" : NULL;
	if (why) misuses++;
	else forget_exec(e);
	pthread_mutex_unlock(&mu);
	return why ? fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: %s", why) : 0;
}

static int check_same(const aclTensor *a, const aclTensor *b, const char *name) {
	if (a->ndim != b->ndim) return fail(ACLNN_ERR_PARAM_INVALID, "%s: ranks %d and %d differ", name, a->ndim, b->ndim);
	for (int i = 0; i < a->ndim; i++)
		if (a->dims[i] != b->dims[i]) return fail(ACLNN_ERR_PARAM_INVALID, "%s: shapes differ in dim %d", name, i);
	return 0;
}

static int check_bcast(const aclTensor *in, const aclTensor *out, const char *name) {
	if (!broadcastable(in, out)) return fail(ACLNN_ERR_PARAM_INVALID, "%s: an input does not broadcast to the output shape", name);
	return 0;
}

/* ---- the ops' rules: dtypes per op and chip ---- */

#include "acl_dtypes.h"

/* The ACLNN name of each op, to find its row of acl_dtypes.h. */
static const char *const op_names[] = {
	[OP_ADD] = "aclnnAdd", [OP_SUB] = "aclnnSub", [OP_MUL] = "aclnnMul", [OP_DIV] = "aclnnDiv", [OP_ADDS] = "aclnnAdds",
	[OP_MULS] = "aclnnMuls", [OP_NEG] = "aclnnNeg", [OP_EXP] = "aclnnExp", [OP_LOG] = "aclnnLog", [OP_SQRT] = "aclnnSqrt",
	[OP_ABS] = "aclnnAbs", [OP_RELU] = "aclnnRelu", [OP_SIGMOID] = "aclnnSigmoid", [OP_TANH] = "aclnnTanh",
	[OP_THRESHOLD_BACKWARD] = "aclnnThresholdBackward", [OP_SOFTMAX] = "aclnnSoftmax", [OP_LOG_SOFTMAX] = "aclnnLogSoftmax",
	[OP_SOFTMAX_BACKWARD] = "aclnnSoftmaxBackward", [OP_LOG_SOFTMAX_BACKWARD] = "aclnnLogSoftmaxBackward",
	[OP_REDUCE_SUM] = "aclnnReduceSum", [OP_MEAN] = "aclnnMean", [OP_AMAX] = "aclnnAmax", [OP_MATMUL] = "aclnnMatmul",
	[OP_CAST] = "aclnnCast", [OP_COPY] = "aclnnInplaceCopy", [OP_FILL] = "aclnnInplaceFillScalar", [OP_ZERO] = "aclnnInplaceZero",
	[OP_MAXIMUM] = "aclnnMaximum", [OP_MINIMUM] = "aclnnMinimum", [OP_GELU] = "aclnnGelu", [OP_ARGMAX] = "aclnnArgMax",
	[OP_EQ] = "aclnnEqTensor", [OP_NE] = "aclnnNeTensor", [OP_LT] = "aclnnLtTensor", [OP_LE] = "aclnnLeTensor",
	[OP_GT] = "aclnnGtTensor", [OP_GE] = "aclnnGeTensor", [OP_EQS] = "aclnnEqScalar", [OP_NES] = "aclnnNeScalar",
	[OP_LTS] = "aclnnLtScalar", [OP_LES] = "aclnnLeScalar", [OP_GTS] = "aclnnGtScalar", [OP_GES] = "aclnnGeScalar",
	[OP_WHERE] = "aclnnSWhere", [OP_CLAMP] = "aclnnClamp", [OP_POW] = "aclnnPowTensorTensor",
	[OP_POWS] = "aclnnPowTensorScalar", [OP_GELU_V2] = "aclnnGeluV2",
	/* ---- pointwise math ops ---- */
	[OP_PW_SIN] = "aclnnSin", [OP_PW_COS] = "aclnnCos", [OP_PW_TAN] = "aclnnTan", [OP_PW_ASIN] = "aclnnAsin",
	[OP_PW_ACOS] = "aclnnAcos", [OP_PW_ATAN] = "aclnnAtan", [OP_PW_ASINH] = "aclnnAsinh", [OP_PW_ACOSH] = "aclnnAcosh",
	[OP_PW_ATANH] = "aclnnAtanh", [OP_PW_SINH] = "aclnnSinh", [OP_PW_COSH] = "aclnnCosh", [OP_PW_ERF] = "aclnnErf",
	[OP_PW_ERFC] = "aclnnErfc", [OP_PW_ERFINV] = "aclnnErfinv", [OP_PW_EXP2] = "aclnnExp2",
	[OP_PW_EXPM1] = "aclnnExpm1", [OP_PW_LOG2] = "aclnnLog2", [OP_PW_LOG10] = "aclnnLog10",
	[OP_PW_LOG1P] = "aclnnLog1p", [OP_PW_RSQRT] = "aclnnRsqrt", [OP_PW_RECIPROCAL] = "aclnnReciprocal",
	[OP_PW_SINC] = "aclnnSinc", [OP_PW_SIGN] = "aclnnSign", [OP_PW_FLOOR] = "aclnnFloor", [OP_PW_CEIL] = "aclnnCeil",
	[OP_PW_ROUND] = "aclnnRound", [OP_PW_TRUNC] = "aclnnTrunc", [OP_PW_FRAC] = "aclnnFrac",
	[OP_PW_IS_INF] = "aclnnIsInf", [OP_PW_IS_FINITE] = "aclnnIsFinite", [OP_PW_IS_POS_INF] = "aclnnIsPosInf",
	[OP_PW_IS_NEG_INF] = "aclnnIsNegInf", [OP_PW_SIGNBIT] = "aclnnSignbit", [OP_PW_BITWISE_NOT] = "aclnnBitwiseNot",
	[OP_PW_LOGICAL_NOT] = "aclnnLogicalNot", [OP_PW_SILU] = "aclnnSilu", [OP_PW_LOG_SIGMOID] = "aclnnLogSigmoid",
	[OP_PW_HARDSWISH] = "aclnnHardswish", [OP_PW_HARDSIGMOID] = "aclnnHardsigmoid", [OP_PW_MISH] = "aclnnMish",
	[OP_PW_SELU] = "aclnnSelu", [OP_PW_LEAKY_RELU] = "aclnnLeakyRelu", [OP_PW_CELU] = "aclnnCelu",
	[OP_PW_ELU] = "aclnnElu", [OP_PW_SOFTPLUS] = "aclnnSoftplus", [OP_PW_HARDTANH] = "aclnnHardtanh",
	[OP_PW_LOGIT] = "aclnnLogit", [OP_PW_NAN_TO_NUM] = "aclnnNanToNum",
	[OP_PW_REMAINDER] = "aclnnRemainderTensorTensor", [OP_PW_FMOD] = "aclnnFmodTensor", [OP_PW_ATAN2] = "aclnnAtan2",
	[OP_PW_LOGADDEXP] = "aclnnLogAddExp", [OP_PW_BITWISE_AND] = "aclnnBitwiseAndTensor",
	[OP_PW_BITWISE_OR] = "aclnnBitwiseOrTensor", [OP_PW_BITWISE_XOR] = "aclnnBitwiseXorTensor",
	[OP_PW_LOGICAL_AND] = "aclnnLogicalAnd", [OP_PW_LOGICAL_OR] = "aclnnLogicalOr",
	[OP_PW_LOGICAL_XOR] = "aclnnLogicalXor", [OP_PW_CLAMP_TENSOR] = "aclnnClampTensor", [OP_PW_LERP] = "aclnnLerp",
	[OP_PW_LERPS] = "aclnnLerps", [OP_PW_ALL] = "aclnnAll", [OP_PW_ANY] = "aclnnAny",
	[OP_PW_LOGSUMEXP] = "aclnnLogSumExp", [OP_PW_VAR] = "aclnnVarCorrection", [OP_PW_STD] = "aclnnStd",
	/* ---- nn and indexing ops ---- */
	[OP_INDEX_SELECT] = "aclnnIndexSelect", [OP_GATHER] = "aclnnGather", [OP_SCATTER] = "aclnnScatter",
	[OP_SCATTER_VALUE] = "aclnnScatterValue", [OP_SCATTER_ADD] = "aclnnScatterAdd", [OP_INDEX_ADD] = "aclnnIndexAdd",
	[OP_MASKED_FILL] = "aclnnInplaceMaskedFillScalar", [OP_CUMSUM] = "aclnnCumsum", [OP_ARGMIN] = "aclnnArgMin",
	[OP_AMIN] = "aclnnAmin", [OP_MAX_DIM] = "aclnnMaxDim", [OP_MIN_DIM] = "aclnnMinDim", [OP_PROD] = "aclnnProd",
	[OP_PROD_DIM] = "aclnnProdDim", [OP_SORT] = "aclnnSort", [OP_TOPK] = "aclnnTopk", [OP_CAT] = "aclnnCat",
	[OP_FLIP] = "aclnnFlip", [OP_BATCH_NORM] = "aclnnBatchNorm", [OP_BATCH_NORM_BACKWARD] = "aclnnBatchNormBackward",
	[OP_CONVOLUTION] = "aclnnConvolution", [OP_CONVOLUTION_BACKWARD] = "aclnnConvolutionBackward",
	/* ---- more ops ---- */
	[OP_DOT] = "aclnnDot", [OP_CUMPROD] = "aclnnCumprod", [OP_SEARCHSORTED] = "aclnnSearchSorted",
	[OP_NONZERO] = "aclnnNonzero", [OP_MASKED_SELECT] = "aclnnMaskedSelect",
	/* ---- norm ops ---- */
	[OP_LAYER_NORM] = "aclnnLayerNorm", [OP_LAYER_NORM_BACKWARD] = "aclnnLayerNormBackward", [OP_GROUP_NORM] = "aclnnGroupNorm",
	[OP_GROUP_NORM_BACKWARD] = "aclnnGroupNormBackward",
	/* ---- pool ops ---- */
	[OP_AVG_POOL2D] = "aclnnAvgPool2d", [OP_AVG_POOL2D_BACKWARD] = "aclnnAvgPool2dBackward",
	[OP_ADAPTIVE_AVG_POOL2D] = "aclnnAdaptiveAvgPool2d", [OP_ADAPTIVE_AVG_POOL2D_BACKWARD] = "aclnnAdaptiveAvgPool2dBackward",
	/* ---- creation ops ---- */
	[OP_ARANGE] = "aclnnArange", [OP_LINSPACE] = "aclnnLinspace",
	/* ---- svd ---- */
	[OP_SVD] = "aclnnSvd",
	/* ---- random ops ---- */
	[OP_UNIFORM] = "aclnnInplaceUniform", [OP_NORMAL] = "aclnnInplaceNormal", [OP_RANDOM] = "aclnnInplaceRandom",
	[OP_BERNOULLI] = "aclnnInplaceBernoulli", [OP_BERNOULLI_TENSOR] = "aclnnBernoulliTensor",
};
/* ---- pointwise math ops ---- */
static void pw_run(aclOpExecutor *x); /* emu_pointwise_ops.inc */

/* soc_a1 reports whether MTEMU_SOC is an Atlas training (the first
 * Ascend910s) or inference (Ascend310P*) chip: the SoCs torch_npu orders
 * before Ascend910B1 (torch_npu/csrc/core/npu/NpuVariables.cpp). The rest are
 * Atlas A2/A3 or later. pkg/backends/npu's chipOf is the same function. */
static int soc_a1(void) {
	static const char *const a1[] = {"Ascend910", "Ascend910A", "Ascend910ProA", "Ascend910PremiumA", "Ascend910ProB", "Ascend910B"};
	const char *s = aclrtGetSocName();
	if (strncmp(s, "Ascend310P", 10) == 0) return 1;
	for (size_t i = 0; i < sizeof a1 / sizeof a1[0]; i++)
		if (strcmp(s, a1[i]) == 0) return 1;
	return 0;
}

static const char *dt_name(int dt) {
	switch (dt) {
	case DT_FLOAT: return "FLOAT";
	case DT_FLOAT16: return "FLOAT16";
	case DT_INT8: return "INT8";
	case DT_INT32: return "INT32";
	case DT_UINT8: return "UINT8";
	case DT_INT16: return "INT16";
	case DT_INT64: return "INT64";
	case DT_DOUBLE: return "DOUBLE";
	case DT_BOOL: return "BOOL";
	case DT_BF16: return "BFLOAT16";
	}
	return "an unknown dtype";
}

/* find_rule is op name's row of acl_dtypes.h, or NULL. */
static const struct dtype_rule *find_rule(const char *name) {
	for (size_t i = 0; i < sizeof dtype_rules / sizeof dtype_rules[0]; i++)
		if (strcmp(dtype_rules[i].name, name) == 0) return &dtype_rules[i];
	return NULL;
}

/* dtype_rules_mask is the dtypes tensor i of the op name takes on this chip. */
static unsigned long long dtype_rules_mask(const char *name, int i) {
	const struct dtype_rule *r = find_rule(name);
	return r && i < r->tensors ? r->dtypes[i] & (soc_a1() ? ~(1ull << DT_BF16) : ~0ull) : 0;
}

/* check_dtypes refuses a tensor whose dtype op does not take on this chip
 * (161002, as the op_api sources' OP_CHECK_DTYPE_NOT_SUPPORT), of another
 * dtype than the others' when the op needs one (OP_CHECK_DTYPE_NOT_MATCH),
 * or with more dims than op takes. */
static int check_dtypes(int op, const aclTensor *const *ts, int nt) {
	const struct dtype_rule *r = find_rule(op_names[op]);
	if (!r) return fail(ACLNN_ERR_PARAM_INVALID, "%s: no row in acl_dtypes.h (a bug of the emulator)", op_names[op]);
	for (int i = 0; i < nt && i < r->tensors; i++) {
		unsigned long long ok = dtype_rules_mask(r->name, i);
		int dt = ts[i]->dtype;
		if (dt < 0 || dt >= 64 || !((ok >> dt) & 1))
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor %d has dtype %s, which %s does not support", op_names[op], i,
				    dt_name(dt), aclrtGetSocName());
		if (r->same && dt != ts[0]->dtype)
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor %d has dtype %s, tensor 0 %s: they must be the same", op_names[op],
				    i, dt_name(dt), dt_name(ts[0]->dtype));
		if (ts[i]->ndim > r->max_dims)
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor %d has %d dims, more than %d", op_names[op], i, ts[i]->ndim,
				    r->max_dims);
	}
	return 0;
}

/* checked_exec is new_exec for an op whose tensors' dtypes pass check_dtypes. */
static aclnnStatus checked_exec(int op, aclOpExecutor **out, uint64_t *ws, const aclTensor *const *ts, int nt) {
	aclnnStatus e = new_exec(op, out, ws, ts, nt);
	if (e) return e;
	if (check_dtypes(op, ts, nt)) {
		drop_exec(*out);
		return ACLNN_ERR_PARAM_INVALID;
	}
	return 0;
}

/* can_cast is PyTorch's canCast, which aclnn's OP_CHECK_RESULT_DTYPE_CAST_FAILED
 * applies: no floating to integer or bool, no integer to bool. */
static int can_cast(int from, int to) {
	if (is_float(from)) return is_float(to);
	if (from != DT_BOOL) return to != DT_BOOL;
	return 1;
}

#define TWO_PHASE(Name)                                                                                            \
	EXPORT aclnnStatus aclnn##Name(void *ws, uint64_t wsSize, aclOpExecutor *x, void *stream) {                    \
		return execute(ws, wsSize, x, stream, "aclnn" #Name);                                                      \
	}

/* binary: out = self op (alpha *) other */
static aclnnStatus binary_ws(int op, const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out,
			     uint64_t *ws, aclOpExecutor **x, const char *name) {
	const aclTensor *ts[3] = {out, self, other};
	if (alpha && alpha->magic != SCALAR_MAGIC) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: alpha is not a live scalar", name);
	aclnnStatus e = checked_exec(op, x, ws, ts, 3);
	if (e) return e;
	if (check_bcast(self, out, name) || check_bcast(other, out, name)) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	(*x)->s[0] = alpha ? *alpha : one;
	return 0;
}

EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
					    aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	if (!alpha) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclnnAdd: alpha must not be NULL");
	return binary_ws(OP_ADD, self, other, alpha, out, ws, x, "aclnnAdd");
}
TWO_PHASE(Add)

EXPORT aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
					    aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	if (!alpha) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclnnSub: alpha must not be NULL");
	return binary_ws(OP_SUB, self, other, alpha, out, ws, x, "aclnnSub");
}
TWO_PHASE(Sub)

/* The ops (self, other, out): out = self op other, broadcasting. */
#define BINARY(Name, OP)                                                                                           \
	EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,  \
							  uint64_t *ws, aclOpExecutor **x) {                           \
		return binary_ws(OP, self, other, NULL, out, ws, x, "aclnn" #Name);                                    \
	}                                                                                                          \
	TWO_PHASE(Name)

BINARY(Mul, OP_MUL)
BINARY(Div, OP_DIV)
BINARY(Maximum, OP_MAXIMUM)
BINARY(Minimum, OP_MINIMUM)
BINARY(PowTensorTensor, OP_POW)

#define COMPARE(Name, OP, OPS)                                                                                     \
	EXPORT aclnnStatus aclnn##Name##TensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out, \
							       uint64_t *ws, aclOpExecutor **x) {                      \
		return binary_ws(OP, self, other, NULL, out, ws, x, "aclnn" #Name "Tensor");                           \
	}                                                                                                          \
	TWO_PHASE(Name##Tensor)                                                                                    \
	EXPORT aclnnStatus aclnn##Name##ScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, \
							       uint64_t *ws, aclOpExecutor **x) {                      \
		return scalar_ws(OPS, self, other, NULL, out, ws, x, "aclnn" #Name "Scalar");                          \
	}                                                                                                          \
	TWO_PHASE(Name##Scalar)

static aclnnStatus scalar_ws(int op, const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out,
			     uint64_t *ws, aclOpExecutor **x, const char *name);

COMPARE(Eq, OP_EQ, OP_EQS)
COMPARE(Ne, OP_NE, OP_NES)
COMPARE(Lt, OP_LT, OP_LTS)
COMPARE(Le, OP_LE, OP_LES)
COMPARE(Gt, OP_GT, OP_GTS)
COMPARE(Ge, OP_GE, OP_GES)

EXPORT aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent, aclTensor *out,
							uint64_t *ws, aclOpExecutor **x) {
	return scalar_ws(OP_POWS, self, exponent, NULL, out, ws, x, "aclnnPowTensorScalar");
}
TWO_PHASE(PowTensorScalar)

EXPORT aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *cond, const aclTensor *self, const aclTensor *other, aclTensor *out,
					       uint64_t *ws, aclOpExecutor **x) {
	const aclTensor *ts[4] = {out, cond, self, other};
	aclnnStatus e = checked_exec(OP_WHERE, x, ws, ts, 4);
	if (e) return e;
	if (check_bcast(cond, out, "aclnnSWhere") || check_bcast(self, out, "aclnnSWhere") || check_bcast(other, out, "aclnnSWhere")) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	return 0;
}
TWO_PHASE(SWhere)

EXPORT aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *lo, const aclScalar *hi, aclTensor *out,
					      uint64_t *ws, aclOpExecutor **x) {
	if (!lo || lo->magic != SCALAR_MAGIC || !hi || hi->magic != SCALAR_MAGIC)
		return fail(ACLNN_ERR_PARAM_NULLPTR, "aclnnClamp: a bound is not a live scalar");
	const aclTensor *ts[2] = {out, self};
	aclnnStatus e = checked_exec(OP_CLAMP, x, ws, ts, 2);
	if (e) return e;
	if (check_same(self, out, "aclnnClamp")) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	(*x)->s[0] = *lo, (*x)->s[1] = *hi;
	return 0;
}
TWO_PHASE(Clamp)

static aclnnStatus scalar_ws(int op, const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out,
			     uint64_t *ws, aclOpExecutor **x, const char *name) {
	if (!other || other->magic != SCALAR_MAGIC || (alpha && alpha->magic != SCALAR_MAGIC))
		return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: a scalar is not live", name);
	const aclTensor *ts[2] = {out, self};
	aclnnStatus e = checked_exec(op, x, ws, ts, 2);
	if (e) return e;
	if (check_same(self, out, name)) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	(*x)->s[0] = *other, (*x)->s[1] = alpha ? *alpha : one;
	return 0;
}

EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
					     aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	return scalar_ws(OP_ADDS, self, other, alpha, out, ws, x, "aclnnAdds");
}
TWO_PHASE(Adds)

EXPORT aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *ws,
					     aclOpExecutor **x) {
	return scalar_ws(OP_MULS, self, other, NULL, out, ws, x, "aclnnMuls");
}
TWO_PHASE(Muls)

static aclnnStatus unary_ws(int op, const aclTensor *self, const aclTensor *out, uint64_t *ws, aclOpExecutor **x,
			    const char *name) {
	const aclTensor *ts[2] = {out, self};
	aclnnStatus e = checked_exec(op, x, ws, ts, 2);
	if (e) return e;
	if (check_same(self, out, name)) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	return 0;
}

#define UNARY(Name, OP)                                                                                            \
	EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *ws,           \
							  aclOpExecutor **x) {                                         \
		return unary_ws(OP, self, out, ws, x, "aclnn" #Name);                                                  \
	}                                                                                                          \
	TWO_PHASE(Name)

UNARY(Neg, OP_NEG)
UNARY(Exp, OP_EXP)
UNARY(Log, OP_LOG)
UNARY(Sqrt, OP_SQRT)
UNARY(Abs, OP_ABS)
UNARY(Relu, OP_RELU)
UNARY(Sigmoid, OP_SIGMOID)
UNARY(Tanh, OP_TANH)
UNARY(Gelu, OP_GELU) /* the tanh approximation (hicann/ops-nn activation/gelu/docs/aclnnGelu.md) */

#ifndef MTEMU_OMIT_GELU_V2 /* tests build a library without it: older CANN lacks it */
/* aclnnGeluV2(x, approximate, y): 0 is the exact (erf) form, 1 the tanh one
 * (hicann/ops-nn activation/gelu_v2/docs/aclnnGeluV2.md). */
EXPORT aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *self, int64_t approximate, aclTensor *out, uint64_t *ws,
					       aclOpExecutor **x) {
	aclnnStatus e = unary_ws(OP_GELU_V2, self, out, ws, x, "aclnnGeluV2");
	if (e) return e;
	if (approximate != 0 && approximate != 1) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "aclnnGeluV2: approximate is %lld, not 0 (none) or 1 (tanh)", (long long)approximate);
	}
	(*x)->dim = approximate;
	return 0;
}
TWO_PHASE(GeluV2)
#endif

EXPORT aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keep, aclTensor *out, uint64_t *ws,
					       aclOpExecutor **x) {
	const aclTensor *ts[2] = {out, self};
	aclnnStatus e = checked_exec(OP_ARGMAX, x, ws, ts, 2);
	if (e) return e;
	int n = self->ndim;
	if (dim < -n || dim >= (n > 0 ? n : 1)) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "aclnnArgMax: dim %lld out of range", (long long)dim);
	}
	(*x)->dim = dim < 0 ? dim + n : dim;
	(*x)->keep = keep;
	return 0;
}
TWO_PHASE(ArgMax)

EXPORT aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const int dtype, aclTensor *out, uint64_t *ws,
					     aclOpExecutor **x) {
	if (out && out->magic == TENSOR_MAGIC && out->dtype != dtype)
		return fail(ACLNN_ERR_PARAM_INVALID, "aclnnCast: dtype %d differs from out's %d", dtype, out->dtype);
	return unary_ws(OP_CAST, self, out, ws, x, "aclnnCast");
}
TWO_PHASE(Cast)

EXPORT aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *self,
							  const aclScalar *threshold, aclTensor *out, uint64_t *ws,
							  aclOpExecutor **x) {
	if (!threshold || threshold->magic != SCALAR_MAGIC)
		return fail(ACLNN_ERR_PARAM_NULLPTR, "aclnnThresholdBackward: threshold is not a live scalar");
	const aclTensor *ts[3] = {out, grad, self};
	aclnnStatus e = checked_exec(OP_THRESHOLD_BACKWARD, x, ws, ts, 3);
	if (e) return e;
	if (check_same(grad, out, "aclnnThresholdBackward") || check_same(self, out, "aclnnThresholdBackward")) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	(*x)->s[0] = *threshold;
	return 0;
}
TWO_PHASE(ThresholdBackward)

static aclnnStatus along_ws(int op, const aclTensor *a, const aclTensor *b, int64_t dim, aclTensor *out, uint64_t *ws,
			    aclOpExecutor **x, const char *name) {
	const aclTensor *ts[3] = {out, a, b};
	aclnnStatus e = checked_exec(op, x, ws, ts, b ? 3 : 2);
	if (e) return e;
	int n = a->ndim;
	if (check_same(a, out, name) || (b && check_same(b, out, name)) || dim < -n || dim >= (n > 0 ? n : 1)) {
		drop_exec(*x);
		return err_set ? ACLNN_ERR_PARAM_INVALID : fail(ACLNN_ERR_PARAM_INVALID, "%s: dim %lld out of range", name, (long long)dim);
	}
	(*x)->dim = dim < 0 ? dim + n : dim;
	return 0;
}

#ifndef MTEMU_OMIT_SOFTMAX /* tests build a library without it, to check a missing symbol */
EXPORT aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *ws,
						aclOpExecutor **x) {
	return along_ws(OP_SOFTMAX, self, NULL, dim, out, ws, x, "aclnnSoftmax");
}
TWO_PHASE(Softmax)
#endif

EXPORT aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *ws,
						   aclOpExecutor **x) {
	return along_ws(OP_LOG_SOFTMAX, self, NULL, dim, out, ws, x, "aclnnLogSoftmax");
}
TWO_PHASE(LogSoftmax)

EXPORT aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *output, int64_t dim,
							aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	return along_ws(OP_SOFTMAX_BACKWARD, grad, output, dim, out, ws, x, "aclnnSoftmaxBackward");
}
TWO_PHASE(SoftmaxBackward)

EXPORT aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *output, int64_t dim,
							   aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	return along_ws(OP_LOG_SOFTMAX_BACKWARD, grad, output, dim, out, ws, x, "aclnnLogSoftmaxBackward");
}
TWO_PHASE(LogSoftmaxBackward)

/* reduce_ws checks a reduction as hicann/ops-math's aclnn_reduce_sum.cpp,
 * aclnn_mean.cpp and aclnn_amax.cpp do: dims in range (a 0-dim self takes
 * [-1, 0]) and not repeated, empty dims meaning every dim; ReduceSum's dtype
 * must be out's; Mean's must be castable from self's and to out's (its
 * dtypes exclude BOOL, acl_dtypes.h); Amax's out must have self's dtype
 * (acl_dtypes.h) and it reduces no dim of size 0. The executor keeps the
 * dtype in dim. */
static aclnnStatus reduce_ws(int op, const aclTensor *self, const aclIntArray *dims, bool keep, int dtype, aclTensor *out,
			     uint64_t *ws, aclOpExecutor **x, const char *name) {
	if (!dims || dims->magic != ARRAY_MAGIC) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: dims is not a live array", name);
	const aclTensor *ts[2] = {out, self};
	aclnnStatus e = checked_exec(op, x, ws, ts, 2);
	if (e) return e;
	int n = self->ndim, range = n > 0 ? n : 1, seen[MAXDIM] = {0};
	for (uint64_t i = 0; i < dims->n; i++) {
		int64_t d = dims->v[i] < 0 ? dims->v[i] + range : dims->v[i];
		if (d < 0 || d >= range || seen[d]) {
			drop_exec(*x);
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: dim %lld out of range [%d, %d] or repeated", name, (long long)dims->v[i],
				    -range, range - 1);
		}
		if (op == OP_AMAX && n > 0 && self->dims[d] == 0) {
			drop_exec(*x);
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: Expected reduction dim %lld to have non-zero size", name, (long long)d);
		}
		seen[d] = 1;
	}
	for (int i = 0; i < n; i++) {
		if (dims->n == 0) seen[i] = 1; /* empty dims: every dim */
		if (seen[i]) (*x)->dims[(*x)->ndims++] = i;
	}
	const char *why = NULL;
	if (op == OP_REDUCE_SUM && dtype != out->dtype) why = "its dtype argument differs from out's dtype";
	if (op == OP_MEAN && (!can_cast(self->dtype, dtype) || !can_cast(dtype, out->dtype)))
		why = "self's dtype cannot be cast to its dtype argument, or that to out's";
	if (op == OP_MEAN && (dtype < 0 || dtype >= 64 || !((dtype_rules_mask("aclnnMean", 1) >> dtype) & 1))) why = "its dtype argument is not supported";
	if (why) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (self %s, dtype %d, out %s)", name, why, dt_name(self->dtype), dtype,
			    dt_name(out->dtype));
	}
	/* out: self's shape with the reduced dims dropped (or 1 with keep) */
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (seen[i] && !keep) continue;
		int64_t want = seen[i] ? 1 : self->dims[i];
		if (k >= out->ndim || out->dims[k] != want) {
			drop_exec(*x);
			return fail(ACLNN_ERR_PARAM_INVALID, "%s: out's shape does not match the reduction", name);
		}
		k++;
	}
	if (k != out->ndim) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "%s: out's rank does not match the reduction", name);
	}
	(*x)->keep = keep;
	(*x)->dim = dtype;
	return 0;
}

EXPORT aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keep, int dtype,
						  aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	return reduce_ws(OP_REDUCE_SUM, self, dims, keep, dtype, out, ws, x, "aclnnReduceSum");
}
TWO_PHASE(ReduceSum)

EXPORT aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keep, int dtype,
					     aclTensor *out, uint64_t *ws, aclOpExecutor **x) {
	return reduce_ws(OP_MEAN, self, dims, keep, dtype, out, ws, x, "aclnnMean");
}
TWO_PHASE(Mean)

EXPORT aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keep, aclTensor *out,
					     uint64_t *ws, aclOpExecutor **x) {
	return reduce_ws(OP_AMAX, self, dims, keep, self && self->magic == TENSOR_MAGIC ? self->dtype : -1, out, ws, x, "aclnnAmax");
}
TWO_PHASE(Amax)

/* cube_rule says why aclnnMatmul refuses cubeMathType cube for inputs of
 * dtypes a and b on this chip (NULL when it takes it): hicann/ops-nn
 * matmul/mat_mul_v3/docs/aclnnMatmul.md. */
static const char *cube_rule(int a, int b, int cube) {
	int bf = a == DT_BF16 || b == DT_BF16, f32 = promote(a, b) == DT_FLOAT;
	if (cube < 0 || cube > 4) return "cubeMathType is not 0 to 4";
	if (bf && a != b) return "BFLOAT16 with FLOAT16 or FLOAT32 cannot be deduced";
	if (soc_a1()) {
		if (f32 && cube == 0) return "FLOAT32 with cubeMathType 0 (KEEP_DTYPE) is not supported on Atlas training and inference chips";
		if (cube == 3) return "cubeMathType 3 (USE_HF32) is not supported on Atlas training and inference chips";
	} else {
		if (bf && cube == 2) return "cubeMathType 2 (USE_FP16) is not supported with BFLOAT16";
		if (!f32 && cube == 3) return "cubeMathType 3 (USE_HF32) takes only FLOAT32";
	}
	return NULL;
}

EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cube,
					       uint64_t *ws, aclOpExecutor **x) {
	const aclTensor *ts[3] = {out, self, mat2};
	aclnnStatus e = checked_exec(OP_MATMUL, x, ws, ts, 3);
	if (e) return e;
	const char *why = cube_rule(self->dtype, mat2->dtype, cube);
	if (why) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "aclnnMatmul: %s (%s, %s, cubeMathType %d, %s)", why, dt_name(self->dtype),
			    dt_name(mat2->dtype), cube, aclrtGetSocName());
	}
	(*x)->dim = cube;
	/* 2-D and batched (3-D and more, batch dims broadcast) */
	if (self->ndim < 2 || mat2->ndim < 2 || out->ndim < 2 || self->dims[self->ndim - 1] != mat2->dims[mat2->ndim - 2] ||
	    out->dims[out->ndim - 2] != self->dims[self->ndim - 2] || out->dims[out->ndim - 1] != mat2->dims[mat2->ndim - 1]) {
		drop_exec(*x);
		return fail(ACLNN_ERR_PARAM_INVALID, "aclnnMatmul: shapes do not match");
	}
	return 0;
}
TWO_PHASE(Matmul)

EXPORT aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *self, const aclTensor *src, uint64_t *ws, aclOpExecutor **x) {
	const aclTensor *ts[2] = {self, src};
	aclnnStatus e = checked_exec(OP_COPY, x, ws, ts, 2);
	if (e) return e;
	if (check_bcast(src, self, "aclnnInplaceCopy")) {
		drop_exec(*x);
		return ACLNN_ERR_PARAM_INVALID;
	}
	return 0;
}
TWO_PHASE(InplaceCopy)

EXPORT aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *self, const aclScalar *value, uint64_t *ws,
							  aclOpExecutor **x) {
	if (!value || value->magic != SCALAR_MAGIC) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclnnInplaceFillScalar: value is not live");
	const aclTensor *ts[1] = {self};
	aclnnStatus e = checked_exec(OP_FILL, x, ws, ts, 1);
	if (e) return e;
	(*x)->s[0] = *value;
	return 0;
}
TWO_PHASE(InplaceFillScalar)

EXPORT aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *self, uint64_t *ws, aclOpExecutor **x) {
	const aclTensor *ts[1] = {self};
	return checked_exec(OP_ZERO, x, ws, ts, 1);
}
TWO_PHASE(InplaceZero)

/* ---- arithmetic, run at synchronize ---- */

/* Integer arithmetic wraps: it is done on uint64_t, where C defines it. */
static int64_t iadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t imul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t ineg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }

/* ipow is integer pow by repeated multiplication (wrapping). A negative
 * exponent gives 0, but 1 for base 1 and +-1 for base -1: torch.pow's rule,
 * which is the golden of ops-math's Pow (hicann/ops-math
 * math/pow/tests/assets/golden.py); its integer kernels multiply with
 * saturation off (math/pow/op_kernel/arch35/pow_tensor_scalar_integer.h). */
static int64_t ipow(int64_t b, int64_t e) {
	if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
	uint64_t r = 1, x = (uint64_t)b;
	for (; e; e >>= 1) {
		if (e & 1) r *= x;
		x *= x;
	}
	return (int64_t)r;
}

/* fmax_nan and fmin_nan propagate NaN (np.maximum, the golden of ops-math's
 * ClipByValueV2 and the rule of Maximum and Minimum). */
static double fmax_nan(double a, double b) { return isnan(a) || a > b ? a : b; }
static double fmin_nan(double a, double b) { return isnan(a) || a < b ? a : b; }

static int is_compare(int op) { return op >= OP_EQ && op <= OP_GES; }

/* compute_type is the dtype an elementwise op computes in, from its
 * operands (the output's dtype only converts the result). */
static int compute_type(const aclOpExecutor *x) {
	const aclTensor *t = x->t;
	switch (x->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAXIMUM: case OP_MINIMUM: case OP_POW:
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		return promote(t[1].dtype, t[2].dtype);
	case OP_DIV: return float_type(promote(t[1].dtype, t[2].dtype)); /* true division */
	case OP_ADDS: case OP_MULS: case OP_POWS: case OP_EQS: case OP_NES: case OP_LTS: case OP_LES: case OP_GTS: case OP_GES:
		return promote_scalar(t[1].dtype, x->s[0].dtype);
	/* aclnnClamp on 910B/910_93 (not 910_95): self and both bounds are cast
	 * to out's dtype (hicann/ops-math aclnn_clamp.cpp, aclnnClampCommon). */
	case OP_CLAMP: return t[0].dtype;
	case OP_THRESHOLD_BACKWARD: return promote_scalar(t[2].dtype, x->s[0].dtype);
	case OP_WHERE: return promote(t[2].dtype, t[3].dtype);
	case OP_NEG: case OP_ABS: case OP_RELU: return t[1].dtype;
	}
	return float_type(t[1].dtype); /* exp, log, sqrt, sigmoid, tanh, gelu */
}

/* int_elem computes an integer op on the elements p1 and p2 (compute dtype ct). */
static int64_t int_elem(const aclOpExecutor *x, int ct, const char *p1, const char *p2) {
	int64_t a = get_i(ct, x->t[1].dtype, p1);
	switch (x->op) {
	case OP_ADD: return iadd(a, imul(sc_i(ct, &x->s[0]), get_i(ct, x->t[2].dtype, p2)));
	case OP_SUB: return iadd(a, ineg(imul(sc_i(ct, &x->s[0]), get_i(ct, x->t[2].dtype, p2))));
	case OP_MUL: return imul(a, get_i(ct, x->t[2].dtype, p2));
	case OP_MAXIMUM: { int64_t b = get_i(ct, x->t[2].dtype, p2); return a > b ? a : b; }
	case OP_MINIMUM: { int64_t b = get_i(ct, x->t[2].dtype, p2); return a < b ? a : b; }
	case OP_POW: return ipow(a, get_i(ct, x->t[2].dtype, p2));
	case OP_POWS: return ipow(a, sc_i(DT_INT64, &x->s[0])); /* the exponent as it is (the kernel reads it as int64) */
	case OP_ADDS: return iadd(a, imul(sc_i(ct, &x->s[1]), sc_i(ct, &x->s[0])));
	case OP_MULS: return imul(a, sc_i(ct, &x->s[0]));
	case OP_CLAMP: { /* max with min, then min with max (ClipByValueV2's order) */
		int64_t lo = sc_i(ct, &x->s[0]), hi = sc_i(ct, &x->s[1]);
		a = a > lo ? a : lo;
		return a < hi ? a : hi;
	}
	case OP_NEG: return ineg(a);
	case OP_ABS: return a < 0 ? ineg(a) : a;
	case OP_RELU: return a > 0 ? a : 0;
	}
	return a;
}

/* gelu_tanh is GELU's tanh approximation, aclnnGelu's formula. */
static double gelu_tanh(double a) { return 0.5 * a * (1 + tanh(sqrt(2 / M_PI) * (a + 0.044715 * a * a * a))); }

/* float_elem computes a floating op on the elements p1 and p2 (compute dtype ct). */
static double float_elem(const aclOpExecutor *x, int ct, const char *p1, const char *p2) {
	double a = get_f(ct, x->t[1].dtype, p1), b = x->nt > 2 && p2 ? get_f(ct, x->t[2].dtype, p2) : 0;
	switch (x->op) {
	case OP_ADD: return a + sc_f(ct, &x->s[0]) * b;
	case OP_SUB: return a - sc_f(ct, &x->s[0]) * b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	case OP_MAXIMUM: return fmax_nan(a, b);
	case OP_MINIMUM: return fmin_nan(a, b);
	case OP_POW: return pow(a, b);
	case OP_POWS: return pow(a, sc_f(ct, &x->s[0]));
	case OP_ADDS: return a + sc_f(ct, &x->s[1]) * sc_f(ct, &x->s[0]);
	case OP_MULS: return a * sc_f(ct, &x->s[0]);
	case OP_CLAMP: return fmin_nan(fmax_nan(a, sc_f(ct, &x->s[0])), sc_f(ct, &x->s[1]));
	case OP_NEG: return -a;
	case OP_EXP: return exp(a);
	case OP_LOG: return log(a);
	case OP_SQRT: return sqrt(a);
	case OP_ABS: return fabs(a);
	case OP_RELU: return a > 0 ? a : (isnan(a) ? a : 0);
	case OP_SIGMOID: return 1 / (1 + exp(-a));
	case OP_TANH: return tanh(a);
	case OP_GELU: return gelu_tanh(a);
	case OP_GELU_V2: return x->dim ? gelu_tanh(a) : 0.5 * a * (1 + erf(a / sqrt(2.0)));
	}
	return a;
}

/* compare compares a and b (-1, 0, 1; 2 when unordered, a NaN) for op. */
static int compare_result(int op, int c) {
	switch (op) {
	case OP_EQ: case OP_EQS: return c == 0;
	case OP_NE: case OP_NES: return c != 0;
	case OP_LT: case OP_LTS: return c == -1;
	case OP_LE: case OP_LES: return c == -1 || c == 0;
	case OP_GT: case OP_GTS: return c == 1;
	}
	return c == 1 || c == 0; /* GE */
}

/* cmp_elem compares element p1 with p2 (or the scalar) in dtype ct, exactly. */
static int cmp_elem(const aclOpExecutor *x, int ct, const char *p1, const char *p2) {
	int scalar = x->op >= OP_EQS;
	if (!is_float(ct)) {
		int64_t a = get_i(ct, x->t[1].dtype, p1), b = scalar ? sc_i(ct, &x->s[0]) : get_i(ct, x->t[2].dtype, p2);
		return compare_result(x->op, a < b ? -1 : a > b);
	}
	double a = get_f(ct, x->t[1].dtype, p1), b = scalar ? sc_f(ct, &x->s[0]) : get_f(ct, x->t[2].dtype, p2);
	return compare_result(x->op, isnan(a) || isnan(b) ? 2 : a < b ? -1 : a > b);
}

static void run_along(aclOpExecutor *x) {
	aclTensor *out = &x->t[0], *a = &x->t[1], *b = &x->t[2];
	int ct = float_type(a->dtype);
	int d = (int)x->dim;
	int64_t n = a->ndim ? a->dims[d] : 1, total = numel(out), outer = n ? total / n : 0;
	int64_t inner = 1;
	for (int i = d + 1; i < a->ndim; i++) inner *= a->dims[i];
#define A(k) get_f(ct, a->dtype, at(a, base + (k) * inner))
#define B(k) get_f(ct, b->dtype, at(b, base + (k) * inner))
	for (int64_t o = 0; o < outer; o++) {
		int64_t base = (o / inner) * n * inner + o % inner;
		double m = -INFINITY, s = 0;
		if (x->op == OP_SOFTMAX || x->op == OP_LOG_SOFTMAX) {
			for (int64_t k = 0; k < n; k++) m = fmax(m, A(k));
			for (int64_t k = 0; k < n; k++) s += exp(A(k) - m);
			for (int64_t k = 0; k < n; k++) {
				double v = A(k) - m;
				store_f(out->dtype, at(out, base + k * inner), rnd(ct, x->op == OP_SOFTMAX ? exp(v) / s : v - log(s)));
			}
		} else { /* backward: a = grad, b = forward output */
			for (int64_t k = 0; k < n; k++) s += x->op == OP_SOFTMAX_BACKWARD ? A(k) * B(k) : A(k);
			for (int64_t k = 0; k < n; k++) {
				double g = A(k), y = B(k);
				store_f(out->dtype, at(out, base + k * inner), rnd(ct, x->op == OP_SOFTMAX_BACKWARD ? y * (g - s) : g - exp(y) * s));
			}
		}
	}
#undef A
#undef B
}

/* run_reduce: ReduceSum computes in its dtype (out's), Amax in self's, Mean
 * in its dtype (a floating one); integer sums wrap. */
static void run_reduce(aclOpExecutor *x) {
	aclTensor *out = &x->t[0], *a = &x->t[1];
	/* Amax in self's dtype; ReduceSum and Mean cast self to their dtype argument first */
	int ct = x->op == OP_AMAX ? a->dtype : x->op == OP_MEAN ? float_type((int)x->dim) : (int)x->dim, isint = !is_float(ct);
	int reduced[MAXDIM] = {0};
	for (int i = 0; i < x->ndims; i++) reduced[x->dims[i]] = 1;
	int64_t on = numel(out), an = numel(a);
	double *acc = malloc(sizeof(double) * (size_t)(on ? on : 1));
	int64_t *iacc = malloc(sizeof(int64_t) * (size_t)(on ? on : 1));
	int64_t *cnt = calloc((size_t)(on ? on : 1), sizeof(int64_t));
	for (int64_t i = 0; i < on; i++) acc[i] = x->op == OP_AMAX ? -INFINITY : 0, iacc[i] = x->op == OP_AMAX ? INT64_MIN : 0;
	for (int64_t i = 0; i < an; i++) {
		/* the output position of input element i */
		int64_t idx = i, pos = 0, mul = 1;
		for (int k = a->ndim - 1; k >= 0; k--) {
			int64_t c = idx % a->dims[k];
			idx /= a->dims[k];
			if (!reduced[k]) pos += c * mul, mul *= a->dims[k];
		}
		if (isint) {
			int64_t v = get_i(ct, a->dtype, at(a, i));
			iacc[pos] = x->op == OP_AMAX ? (v > iacc[pos] ? v : iacc[pos]) : iadd(iacc[pos], v);
		} else {
			double v = get_f(ct, a->dtype, at(a, i));
			if (x->op == OP_AMAX) acc[pos] = (isnan(v) || v > acc[pos]) && !isnan(acc[pos]) ? v : acc[pos];
			else acc[pos] += v;
		}
		cnt[pos]++;
	}
	for (int64_t i = 0; i < on; i++) {
		if (isint) store_i(out->dtype, at(out, i), wrap(ct, iacc[i]));
		else store_f(out->dtype, at(out, i), rnd(ct, x->op == OP_MEAN ? acc[i] / (double)cnt[i] : acc[i]));
	}
	free(acc);
	free(iacc);
	free(cnt);
}

/* run_matmul: the cube unit multiplies in the inputs' promoted dtype, or in
 * float16 for float32 inputs with cubeMathType 1 or 2 on Atlas training and
 * inference chips (aclnnMatmul.md), or in HF32 for float32 with 1 or 3 on
 * A2/A3 ([?] modelled as 11 stored significand bits), and accumulates in
 * float32 (its L0C buffer) by fused multiply-adds, so that float32 overflow
 * is +-inf as BLAS's; the result is rounded to out's dtype. [?] The order of
 * accumulation is the row's, not the device's blocks'. */
static void run_matmul(aclOpExecutor *x) {
	aclTensor *out = &x->t[0], *a = &x->t[1], *b = &x->t[2];
	int ct = promote(a->dtype, b->dtype), cube = (int)x->dim;
	int mt = ct == DT_FLOAT && soc_a1() && (cube == 1 || cube == 2) ? DT_FLOAT16 : ct;
	int hf32 = ct == DT_FLOAT && !soc_a1() && (cube == 1 || cube == 3);
	int64_t m = a->dims[a->ndim - 2], k = a->dims[a->ndim - 1], n = b->dims[b->ndim - 1];
	int64_t batches = m * n != 0 ? numel(out) / (m * n) : 0;
	for (int64_t bi = 0; bi < batches; bi++) {
		/* batch offsets of each operand, broadcast from the output's batch index */
		int64_t oa = a->offset, ob = b->offset, oo = out->offset, idx = bi;
		for (int i = out->ndim - 3, ia = a->ndim - 3, ib = b->ndim - 3; i >= 0; i--, ia--, ib--) {
			int64_t c = idx % out->dims[i];
			idx /= out->dims[i];
			oo += c * out->strides[i];
			if (ia >= 0 && a->dims[ia] != 1) oa += c * a->strides[ia];
			if (ib >= 0 && b->dims[ib] != 1) ob += c * b->strides[ib];
		}
		int sa = elem_size(a->dtype), sb = elem_size(b->dtype), so = elem_size(out->dtype);
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				float acc = 0;
				for (int64_t p = 0; p < k; p++) {
					const char *pa = a->data + (oa + i * a->strides[a->ndim - 2] + p * a->strides[a->ndim - 1]) * sa;
					const char *pb = b->data + (ob + p * b->strides[b->ndim - 2] + j * b->strides[b->ndim - 1]) * sb;
					double va = get_f(mt, a->dtype, pa), vb = get_f(mt, b->dtype, pb);
					if (hf32) va = round_bits(va, 12, -126, 127), vb = round_bits(vb, 12, -126, 127);
					acc = (float)fma(va, vb, acc);
				}
				store_f(out->dtype, out->data + (oo + i * out->strides[out->ndim - 2] + j * out->strides[out->ndim - 1]) * so, acc);
			}
	}
}

/* argmax along x->dim: the first largest (the first NaN), as int64 */
static void run_argmax(aclOpExecutor *x) {
	aclTensor *out = &x->t[0], *a = &x->t[1];
	int d = (int)x->dim, fl = is_float(a->dtype);
	int64_t n = a->ndim ? a->dims[d] : 1, inner = 1, total = numel(a);
	for (int i = d + 1; i < a->ndim; i++) inner *= a->dims[i];
	int64_t outer = n ? total / n : 0;
	for (int64_t o = 0; o < outer; o++) {
		int64_t base = (o / inner) * n * inner + o % inner, best = 0;
		if (fl) {
			double m = load_f(a->dtype, at(a, base));
			for (int64_t k = 1; k < n && !isnan(m); k++) {
				double v = load_f(a->dtype, at(a, base + k * inner));
				if (isnan(v) || v > m) m = v, best = k;
			}
		} else {
			int64_t m = load_i(a->dtype, at(a, base));
			for (int64_t k = 1; k < n; k++) {
				int64_t v = load_i(a->dtype, at(a, base + k * inner));
				if (v > m) m = v, best = k;
			}
		}
		store_i(out->dtype, at(out, o), best);
	}
}

static void run_nn(aclOpExecutor *x); /* emu_nn_ops.inc */
static void run_more(aclOpExecutor *x); /* emu_more_ops.inc */
static void run_norm(aclOpExecutor *x); /* emu_norm_ops.inc */
static void run_pool(aclOpExecutor *x); /* emu_pool_ops.inc */
static void run_creation(aclOpExecutor *x); /* emu_creation_ops.inc */
static void run_svd(aclOpExecutor *x); /* emu_svd_ops.inc */
static void run_random(aclOpExecutor *x); /* emu_random_ops.inc */

static void run_op(aclOpExecutor *x) {
	aclTensor *out = &x->t[0];
	int64_t n = numel(out);
	switch (x->op) {
	case OP_SOFTMAX: case OP_LOG_SOFTMAX: case OP_SOFTMAX_BACKWARD: case OP_LOG_SOFTMAX_BACKWARD: run_along(x); return;
	case OP_REDUCE_SUM: case OP_MEAN: case OP_AMAX: run_reduce(x); return;
	case OP_MATMUL: run_matmul(x); return;
	case OP_ARGMAX: run_argmax(x); return;
	case OP_SVD: run_svd(x); return; /* ---- svd ---- */
	/* ---- random ops ---- */
	case OP_UNIFORM: case OP_NORMAL: case OP_RANDOM: case OP_BERNOULLI: case OP_BERNOULLI_TENSOR: run_random(x); return;
	/* ---- pool ops ---- */
	case OP_AVG_POOL2D: case OP_AVG_POOL2D_BACKWARD: case OP_ADAPTIVE_AVG_POOL2D: case OP_ADAPTIVE_AVG_POOL2D_BACKWARD: run_pool(x); return;
	/* ---- pointwise math ops ---- */
	/* ---- nn and indexing ops ---- */
	default:
		if (x->op >= OP_PW_FIRST && x->op <= OP_PW_LAST) {
			pw_run(x);
			return;
		}
		if (x->op >= OP_LAYER_NORM && x->op <= OP_GROUP_NORM_BACKWARD) {
			run_norm(x);
			return;
		}
		if (x->op >= OP_ARANGE) {
			run_creation(x);
			return;
		}
		if (x->op >= OP_DOT) {
			run_more(x);
			return;
		}
		if (x->op >= OP_INDEX_SELECT) {
			run_nn(x);
			return;
		}
	}
	int ct = x->op == OP_CAST || x->op == OP_COPY || x->op == OP_FILL || x->op == OP_ZERO ? out->dtype : compute_type(x);
	for (int64_t i = 0; i < n; i++) {
		char *o = at(out, i);
		const char *p1 = x->nt > 1 ? at_bcast(&x->t[1], out, i) : NULL, *p2 = x->nt > 2 ? at_bcast(&x->t[2], out, i) : NULL;
		switch (x->op) {
		case OP_CAST: case OP_COPY: convert(out->dtype, o, x->t[1].dtype, p1); continue;
		case OP_FILL: /* the scalar converted to self's dtype */
			if (is_float(x->s[0].dtype)) store_f(out->dtype, o, x->s[0].f);
			else store_i(out->dtype, o, x->s[0].i);
			continue;
		case OP_ZERO: store_i(out->dtype, o, 0); continue;
		case OP_WHERE: { /* t[1] the condition, t[2] and t[3] the choices */
			int c = x->t[1].dtype, k = (is_float(c) ? load_f(c, p1) != 0 : load_i(c, p1) != 0) ? 2 : 3;
			const char *p = at_bcast(&x->t[k], out, i);
			if (is_float(ct)) store_f(out->dtype, o, get_f(ct, x->t[k].dtype, p));
			else store_i(out->dtype, o, get_i(ct, x->t[k].dtype, p));
			continue;
		}
		case OP_THRESHOLD_BACKWARD: { /* out = self > threshold ? grad : 0; t[1] grad, t[2] self */
			int gt = is_float(ct) ? get_f(ct, x->t[2].dtype, p2) > sc_f(ct, &x->s[0])
					      : get_i(ct, x->t[2].dtype, p2) > sc_i(ct, &x->s[0]);
			if (gt) convert(out->dtype, o, x->t[1].dtype, p1);
			else store_i(out->dtype, o, 0);
			continue;
		}
		}
		if (is_compare(x->op)) store_i(out->dtype, o, cmp_elem(x, ct, p1, p2));
		else if (is_float(ct)) store_f(out->dtype, o, rnd(ct, float_elem(x, ct, p1, p2)));
		else store_i(out->dtype, o, wrap(ct, int_elem(x, ct, p1, p2)));
	}
}

/* ---- for tests only ---- */

/* mtemu_counters writes up to n counters into out: live allocations, their
 * bytes, live tensor, scalar and int-array descriptors, live executors (made
 * and not yet run, dropped or destroyed), user streams, the totals of
 * launches and mallocs, live events, and the misuses refused. It is
 * exported by the core object only. */
EXPORT void mtemu_counters(long long *out, int n) {
	pthread_mutex_lock(&mu);
	long long v[] = {live_allocs, live_bytes, live_tensors, live_scalars, live_arrays, live_executors, live_streams, launches,
			 mallocs, live_events, misuses};
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n && i < (int)(sizeof v / sizeof v[0]); i++) out[i] = v[i];
}

/* ---- pointwise math ops ---- */
#include "emu_pointwise_ops.inc"
/* ---- nn and indexing ops ---- */
#include "emu_nn_ops.inc"
/* ---- more ops ---- */
#include "emu_more_ops.inc"
/* ---- norm ops ---- */
#include "emu_norm_ops.inc"
/* ---- pool ops ---- */
#include "emu_pool_ops.inc"
/* ---- creation ops ---- */
#include "emu_creation_ops.inc"
/* ---- svd ---- */
#include "emu_svd_ops.inc"
/* ---- random ops ---- */
#include "emu_random_ops.inc"
