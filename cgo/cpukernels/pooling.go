package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_pool2d_u(int op, int dt, mt_pool_params p, uintptr_t x, uintptr_t y, uintptr_t idx,
		int64_t grain) {
	if (grain <= 0) return mt_pool2d(op, dt, &p, (const void *)x, (void *)y, (int64_t *)idx, 0, p.planes);
	return mt_pool2d_parallel(op, dt, p, (const void *)x, (void *)y, (int64_t *)idx, grain);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The pooling ops of Pool2d (the C enum MT_POOLING_*).
const (
	PoolMax                 = C.MT_POOLING_MAX
	PoolMaxBackward         = C.MT_POOLING_MAX_BACKWARD
	PoolAvg                 = C.MT_POOLING_AVG
	PoolAvgBackward         = C.MT_POOLING_AVG_BACKWARD
	PoolAdaptiveAvg         = C.MT_POOLING_ADAPTIVE_AVG
	PoolAdaptiveAvgBackward = C.MT_POOLING_ADAPTIVE_AVG_BACKWARD
	PoolAdaptiveMax         = C.MT_POOLING_ADAPTIVE_MAX
)

// PoolParams are the sizes of a pooling op: planes of ih x iw inputs and
// oh x ow outputs, the kernel, stride, padding and dilation (H then W),
// and average pooling's count_include_pad and divisor (0: none).
type PoolParams struct {
	Planes, IH, IW, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW int
	CountIncludePad                                        bool
	Divisor                                                int
}

// Pool2d runs a pooling op (PoolMax, ...) in dtype dt over contiguous
// [planes, H, W] arrays: x the input (a backward op's output gradient), y
// the output (a backward op's input gradient), idx the int64 indices of
// the max pools (nil otherwise). With grain > 0 the planes are split
// across the pool in shares of at least grain planes; one cgo call either way.
func Pool2d(op, dt int, p *PoolParams, x, y, idx unsafe.Pointer, grain int) error {
	cp := C.mt_pool_params{
		planes: C.int64_t(p.Planes), ih: C.int64_t(p.IH), iw: C.int64_t(p.IW), oh: C.int64_t(p.OH), ow: C.int64_t(p.OW),
		kh: C.int64_t(p.KH), kw: C.int64_t(p.KW), sh: C.int64_t(p.SH), sw: C.int64_t(p.SW),
		ph: C.int64_t(p.PH), pw: C.int64_t(p.PW), dh: C.int64_t(p.DH), dw: C.int64_t(p.DW),
		divisor: C.int64_t(p.Divisor),
	}
	if p.CountIncludePad {
		cp.count_include_pad = 1
	}
	st := C.mt_pool2d_u(C.int(op), C.int(dt), cp, addr(x), addr(y), addr(idx), C.int64_t(grain))
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
	runtime.KeepAlive(idx)
	return status(st)
}
