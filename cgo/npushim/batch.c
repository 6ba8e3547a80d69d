/*
 * Batches: the ops of a pipeline's flush launched in one call from Go.
 * Each op is launched exactly as mt_npu_run launches it (descriptors made
 * and destroyed around the launch), its workspace taken from a buffer the
 * caller allocated (the NPU backend's caching allocator): the ops run one
 * after another on one stream, so they can all use the same bytes.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "batch.h"

/* The buffer lent to the ops of the batch running on this thread. */
static _Thread_local struct {
	int on;
	uint64_t ptr, size, need;
} lent;

static atomic_llong batch_calls, batch_ops;

int mt_npu_in_batch(void) { return lent.on; }

int mt_npu_batch_workspace(uint64_t n, void **out, mt_npu_status *st) {
	if (n > lent.size) {
		lent.need = n;
		st->code = MT_NPU_EWORKSPACE;
		snprintf(st->msg, sizeof st->msg, "the batch's workspace has %llu bytes, the op needs %llu",
			 (unsigned long long)lent.size, (unsigned long long)n);
		return MT_NPU_EWORKSPACE;
	}
	*out = (void *)(uintptr_t)lent.ptr;
	return 0;
}

int mt_npu_run_batch(int dev, uint64_t stream, const mt_npu_launch *ls, int n, const mt_npu_tensor *ts,
		     const mt_npu_attrs *as, uint64_t ws, uint64_t ws_size, int *done, uint64_t *ws_need,
		     mt_npu_status *st) {
	atomic_fetch_add(&batch_calls, 1);
	*done = 0;
	*ws_need = 0;
	lent.on = 1, lent.ptr = ws, lent.size = ws_size, lent.need = 0;
	int r = 0, at = 0, k = 0;
	for (; k < n; k++) {
		if (ls[k].nt < 0 || ls[k].nt > MT_NPU_MAX_TENSORS) {
			st->code = MT_NPU_EARG;
			snprintf(st->msg, sizeof st->msg, "mt_npu_run_batch: op %d has %d tensors", k, (int)ls[k].nt);
			r = MT_NPU_EARG;
			break;
		}
		r = mt_npu_run(dev, stream, ls[k].op, ts + at, ls[k].nt, &as[k], 0, st);
		if (r == MT_NPU_EWORKSPACE) {
			*ws_need = lent.need;
			r = 0;
			break;
		}
		if (r) break;
		at += ls[k].nt;
	}
	lent.on = 0, lent.ptr = 0, lent.size = 0;
	atomic_fetch_add(&batch_ops, k);
	*done = k;
	return r;
}

void mt_npu_batch_counters(long long out[2]) {
	out[0] = atomic_load(&batch_calls);
	out[1] = atomic_load(&batch_ops);
}
