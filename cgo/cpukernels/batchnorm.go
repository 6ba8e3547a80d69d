package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_batch_norm_u(int dt, mt_bn_params p, uintptr_t x, uintptr_t w, uintptr_t b, uintptr_t mean,
		uintptr_t invstd, uintptr_t var, uintptr_t y, int64_t grain) {
	if (grain <= 0) return mt_batch_norm(dt, &p, (const void *)x, (const void *)w, (const void *)b, (void *)mean,
		(void *)invstd, (void *)var, (void *)y, 0, p.c);
	return mt_batch_norm_parallel(dt, p, (const void *)x, (const void *)w, (const void *)b, (void *)mean,
		(void *)invstd, (void *)var, (void *)y, grain);
}

static inline int mt_batch_norm_backward_u(int dt, mt_bn_params p, uintptr_t g, uintptr_t x, uintptr_t w,
		uintptr_t mean, uintptr_t invstd, uintptr_t gx, uintptr_t gw, uintptr_t gb, int64_t grain) {
	if (grain <= 0) return mt_batch_norm_backward(dt, &p, (const void *)g, (const void *)x, (const void *)w,
		(const void *)mean, (const void *)invstd, (void *)gx, (void *)gw, (void *)gb, 0, p.c);
	return mt_batch_norm_backward_parallel(dt, p, (const void *)g, (const void *)x, (const void *)w,
		(const void *)mean, (const void *)invstd, (void *)gx, (void *)gw, (void *)gb, grain);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// BatchNormParams are the sizes of a batch norm over a contiguous
// [N, C, S] array (S the product of the dims after the channels), whether
// it computes the batch's stats (training) and eps.
type BatchNormParams struct {
	N, C, S  int
	Training bool
	Eps      float64
}

func (p *BatchNormParams) c() C.mt_bn_params {
	cp := C.mt_bn_params{n: C.int64_t(p.N), c: C.int64_t(p.C), s: C.int64_t(p.S), eps: C.double(p.Eps)}
	if p.Training {
		cp.training = 1
	}
	return cp
}

// BatchNorm normalises x into y per channel in dtype dt (float32 or
// float64; every array of that dtype): training, it writes each channel's
// mean, invstd and biased var; otherwise it reads the running mean from
// mean and the running var from v. w and b may be nil. With grain > 0 the
// channels are split across the pool in shares of at least grain channels.
func BatchNorm(dt int, p *BatchNormParams, x, w, b, mean, invstd, v, y unsafe.Pointer, grain int) error {
	st := C.mt_batch_norm_u(C.int(dt), p.c(), addr(x), addr(w), addr(b), addr(mean), addr(invstd), addr(v), addr(y),
		C.int64_t(grain))
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	runtime.KeepAlive(b)
	runtime.KeepAlive(mean)
	runtime.KeepAlive(invstd)
	runtime.KeepAlive(v)
	runtime.KeepAlive(y)
	return status(st)
}

// BatchNormBackward computes from g, the output's gradient, the gradients
// gx of the input (nil: none), gw of the weight and gb of the bias (each
// may be nil), with the saved mean and invstd of each channel (the running
// mean and 1/sqrt(running var + eps) when not training). w may be nil.
func BatchNormBackward(dt int, p *BatchNormParams, g, x, w, mean, invstd, gx, gw, gb unsafe.Pointer, grain int) error {
	st := C.mt_batch_norm_backward_u(C.int(dt), p.c(), addr(g), addr(x), addr(w), addr(mean), addr(invstd), addr(gx),
		addr(gw), addr(gb), C.int64_t(grain))
	runtime.KeepAlive(g)
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	runtime.KeepAlive(mean)
	runtime.KeepAlive(invstd)
	runtime.KeepAlive(gx)
	runtime.KeepAlive(gw)
	runtime.KeepAlive(gb)
	return status(st)
}
