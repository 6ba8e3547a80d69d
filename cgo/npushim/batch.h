/*
 * Private to the shim: how mt_npu_run takes its workspace while
 * mt_npu_run_batch (batch.c) runs it. The batch's thread lends a buffer of
 * the caller's; an op that needs more stops the batch.
 */
#ifndef MINDTORCH_NPU_BATCH_H
#define MINDTORCH_NPU_BATCH_H

#include <stdint.h>

#include "npu_shim.h"

/* The status code of an op whose workspace is larger than the batch's
 * buffer (it did not run; its executor was discarded). */
#define MT_NPU_EWORKSPACE (-5)

/* mt_npu_in_batch reports whether the calling thread is inside
 * mt_npu_run_batch. */
int mt_npu_in_batch(void);

/* mt_npu_batch_workspace gives the op being launched n bytes of the
 * batch's buffer, or fails with MT_NPU_EWORKSPACE when it is smaller. */
int mt_npu_batch_workspace(uint64_t n, void **out, mt_npu_status *st);

#endif
