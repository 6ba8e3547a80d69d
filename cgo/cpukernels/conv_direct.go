package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_conv_wgrad_u(mt_conv_direct_params p, uintptr_t x, uintptr_t gy, uintptr_t dw, uintptr_t dwp,
		uintptr_t xpad, int64_t xpad_len) {
	return mt_conv_wgrad(p, (const float *)x, (const float *)gy, (float *)dw, (float *)dwp, (float *)xpad, xpad_len);
}
static inline int mt_conv_direct_u(mt_conv_direct_params p, uintptr_t x, uintptr_t w, uintptr_t bias, uintptr_t out,
		uintptr_t wpack, uintptr_t xpad, int64_t xpad_len) {
	return mt_conv_direct(p, (const float *)x, (const float *)w, (const float *)bias, (float *)out, (float *)wpack,
		(float *)xpad, xpad_len);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// ErrNonFinite is ConvDirect's refusal of an input gradient whose output
// gradient is padded and whose weights hold a NaN or an infinity: the
// kernel would multiply them by the padding's zeros, which PyTorch's input
// gradient never does.
var ErrNonFinite = errors.New("weights with NaN or infinity on a padded output gradient")

// ConvDirectParams are the sizes of a direct convolution
// (mt_conv_direct_params): N images of C channels H x W, OC output
// channels OH x OW, a KH x KW kernel, stride SH x SW (at least 1),
// dilation 1, PT rows and PL columns of zero padding before the input (the
// padding after follows from the output size). Transposed runs the input
// gradient of a stride-1 convolution: the weight is then
// [C][OC/Groups][KH][KW], used transposed and flipped.
type ConvDirectParams struct {
	N, Groups, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL int
	Transposed                                             bool
}

func (p *ConvDirectParams) c() C.mt_conv_direct_params {
	cp := C.mt_conv_direct_params{n: C.int64_t(p.N), groups: C.int64_t(p.Groups), c: C.int64_t(p.C),
		h: C.int64_t(p.H), w: C.int64_t(p.W), oc: C.int64_t(p.OC), oh: C.int64_t(p.OH), ow: C.int64_t(p.OW),
		kh: C.int64_t(p.KH), kw: C.int64_t(p.KW), sh: C.int64_t(p.SH), sw: C.int64_t(p.SW), pt: C.int64_t(p.PT), pl: C.int64_t(p.PL)}
	if p.Transposed {
		cp.transposed = 1
	}
	return cp
}

// ConvDirectAvailable says whether the CPU runs the direct convolution
// (it needs AVX2 and FMA).
func ConvDirectAvailable() bool { return C.mt_conv_direct_isa() != 0 }

// Scratch is the float32 scratch ConvDirect and ConvWeightGrad need for
// the work split across threads: packed weights, and padded copies of
// image groups, one per thread (none when the input needs no padding).
func (p *ConvDirectParams) Scratch(threads int) (wpack, xpad int) {
	g := max(p.Groups, 1)
	og, cg := p.OC/g, p.C/g
	wpack = g*((og+15)/16*16)*cg*p.KH*p.KW + 16 // 16 to align it
	hp, wp := (p.OH-1)*p.SH+p.KH, (p.OW-1)*p.SW+p.KW
	if p.PT != 0 || p.PL != 0 || hp != p.H || wp != p.W {
		xpad = max(threads, 1) * cg * hp * wp
	}
	return wpack, xpad
}

// ConvDirect writes the float32 convolution of x by w plus bias (nil for
// none) into out, all contiguous, using the scratch that Scratch sizes
// (xpad nil when it is 0, else nxpad floats): one cgo call, split across
// the pool.
// ErrNonFinite when Transposed meets the case the C header describes.
func ConvDirect(p *ConvDirectParams, x, w, bias, out, wpack, xpad unsafe.Pointer, nxpad int) error {
	st := C.mt_conv_direct_u(p.c(), addr(x), addr(w), addr(bias), addr(out), addr(wpack), addr(xpad), C.int64_t(nxpad))
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	runtime.KeepAlive(bias)
	runtime.KeepAlive(out)
	runtime.KeepAlive(wpack)
	runtime.KeepAlive(xpad)
	if st == C.MT_ERR_NONFINITE {
		return ErrNonFinite
	}
	return status(st)
}

// SetConvDirectISA makes the direct kernels use instruction set isa (0
// none, 2 AVX2, 3 AVX-512; at most what the CPU has) and returns the
// previous one. It is for tests, which run the AVX2 kernels on an
// AVX-512 CPU so.
func SetConvDirectISA(isa int) int { return int(C.mt_conv_direct_set_isa(C.int(isa))) }

// ConvWeightGradAvailable says whether the CPU runs ConvWeightGrad (it
// needs AVX-512).
func ConvWeightGradAvailable() bool { return C.mt_conv_direct_isa() == 3 }

// ConvWeightGrad writes into dw [OC][C/Groups][KH][KW] the float32 weight
// gradient of the convolution p (not Transposed) from its input x and
// output gradient gy, all contiguous, with the scratch Scratch sizes
// (dwp as wpack): one cgo call, split across the pool.
func ConvWeightGrad(p *ConvDirectParams, x, gy, dw, dwp, xpad unsafe.Pointer, nxpad int) error {
	st := C.mt_conv_wgrad_u(p.c(), addr(x), addr(gy), addr(dw), addr(dwp), addr(xpad), C.int64_t(nxpad))
	runtime.KeepAlive(x)
	runtime.KeepAlive(gy)
	runtime.KeepAlive(dw)
	runtime.KeepAlive(dwp)
	runtime.KeepAlive(xpad)
	return status(st)
}
