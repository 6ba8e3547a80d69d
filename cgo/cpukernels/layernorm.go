package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_layer_norm_u(int dt, mt_ln_params p, uintptr_t x, uintptr_t w, uintptr_t b, uintptr_t y,
		uintptr_t mean, uintptr_t rstd, int64_t grain) {
	return mt_layer_norm(dt, p, (const void *)x, (const void *)w, (const void *)b, (void *)y, (void *)mean,
		(void *)rstd, grain);
}

static inline int mt_layer_norm_backward_u(int dt, mt_ln_params p, uintptr_t g, uintptr_t x, uintptr_t mean,
		uintptr_t rstd, uintptr_t w, uintptr_t gx, uintptr_t gw, uintptr_t gb, int64_t grain) {
	return mt_layer_norm_backward(dt, p, (const void *)g, (const void *)x, (const void *)mean, (const void *)rstd,
		(const void *)w, (void *)gx, (void *)gw, (void *)gb, grain);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// LayerNormParams are the sizes of a layer norm over the rows of a
// contiguous [Rows, D] array, its eps, and whether it is an RMS norm (no
// mean subtracted, no bias). A group norm sets S, the elements of a row
// per weight (a channel's spatial size), and Groups: row r reads the D/S
// weights from (r % Groups) * D/S. Zero S and Groups mean 1 (layer norm).
type LayerNormParams struct {
	Rows, D   int
	Eps       float64
	RMS       bool
	S, Groups int
}

func (p *LayerNormParams) c() C.mt_ln_params {
	cp := C.mt_ln_params{rows: C.int64_t(p.Rows), d: C.int64_t(p.D), eps: C.double(p.Eps), s: 1, groups: 1}
	if p.S > 0 {
		cp.s = C.int64_t(p.S)
	}
	if p.Groups > 0 {
		cp.groups = C.int64_t(p.Groups)
	}
	if p.RMS {
		cp.rms = 1
	}
	return cp
}

// LayerNorm normalises each row of x into y in dtype dt (float32 or
// float64; every array of that dtype), scaled by w and shifted by b (D
// elements each; b unread for an RMS norm), and writes each row's mean and
// rstd. With grain > 0 the rows are split across the pool in shares of at
// least grain rows.
func LayerNorm(dt int, p *LayerNormParams, x, w, b, y, mean, rstd unsafe.Pointer, grain int) error {
	st := C.mt_layer_norm_u(C.int(dt), p.c(), addr(x), addr(w), addr(b), addr(y), addr(mean), addr(rstd),
		C.int64_t(grain))
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	runtime.KeepAlive(b)
	runtime.KeepAlive(y)
	runtime.KeepAlive(mean)
	runtime.KeepAlive(rstd)
	return status(st)
}

// LayerNormBackward computes from g, the output's gradient, the input's
// gradient gx (nil: none) and the weight's gw and bias's gb (both nil:
// neither), with the forward's mean and rstd per row and the weight w.
// The weight's and bias's gradients are the same bits whatever the grain.
func LayerNormBackward(dt int, p *LayerNormParams, g, x, mean, rstd, w, gx, gw, gb unsafe.Pointer, grain int) error {
	st := C.mt_layer_norm_backward_u(C.int(dt), p.c(), addr(g), addr(x), addr(mean), addr(rstd), addr(w), addr(gx),
		addr(gw), addr(gb), C.int64_t(grain))
	runtime.KeepAlive(g)
	runtime.KeepAlive(x)
	runtime.KeepAlive(mean)
	runtime.KeepAlive(rstd)
	runtime.KeepAlive(w)
	runtime.KeepAlive(gx)
	runtime.KeepAlive(gw)
	runtime.KeepAlive(gb)
	if st == C.MT_ERR_NOMEM {
		return ErrNoMem
	}
	return status(st)
}
