package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go: no cgo pointer check; the Go
// side keeps the memory alive (and pinned) across the call.
static inline int mt_normal_fill_f64_u(uintptr_t data, int64_t n, double mean, double std) {
	return mt_normal_fill_f64((double *)data, n, mean, std);
}
static inline int mt_normal_fill_f32_u(uintptr_t data, int64_t n, uintptr_t tail, float mean, float std) {
	return mt_normal_fill_f32((float *)data, n, (const float *)tail, mean, std);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// ErrISA is returned by a kernel that needs an instruction set the CPU
// lacks.
var ErrISA = errors.New("the CPU lacks the instruction set of this kernel")

// normalAVX2 is decided once: the CPU does not change under the process.
var normalAVX2 = C.mt_normal_avx2() != 0

// NormalAVX2 reports whether NormalFillFloat32 runs here: an x86-64 CPU
// with AVX2 and FMA, as GCC's __builtin_cpu_supports sees it (libgcc reads
// CPUID, and counts AVX2 only when the OS saves the YMM registers).
func NormalAVX2() bool { return normalAVX2 }

// NormalFillFloat32 is the Box-Muller transform of PyTorch's float32
// normal_fill_AVX2, in C with AVX2 and FMA (normal.c), bit for bit: the n
// float32 uniforms at data become normals * std + mean, 16 at a time; when
// tail is not nil (n >= 16 and n % 16 != 0) its 16 uniforms, drawn after
// the others, replace the last 16 elements and are transformed too. One C
// call for the whole fill. The caller keeps data reachable, and pinned if
// it is Go memory; tail is pinned here. ErrISA when NormalAVX2 is false.
func NormalFillFloat32(data unsafe.Pointer, n int, tail *[16]float32, mean, std float32) error {
	if !normalAVX2 {
		return ErrISA
	}
	var t C.uintptr_t
	if tail != nil {
		var pin runtime.Pinner
		pin.Pin(tail)
		defer pin.Unpin()
		t = addr(unsafe.Pointer(tail))
	}
	st := C.mt_normal_fill_f32_u(addr(data), C.int64_t(n), t, C.float(mean), C.float(std))
	runtime.KeepAlive(data)
	runtime.KeepAlive(tail)
	switch st {
	case C.MT_OK:
		return nil
	case C.MT_ERR_ISA:
		return ErrISA
	}
	return ErrUnsupported
}

// NormalFillFloat64 is the Box-Muller transform of PyTorch's float64
// normal_fill_16, in C with the C library's log, cos and sin (normal.c):
// the n float64 uniforms at data (n a multiple of 16) become normals * std
// + mean, 16 at a time, in one C call. The caller keeps data reachable,
// and pinned if it is Go memory.
func NormalFillFloat64(data unsafe.Pointer, n int, mean, std float64) error {
	st := C.mt_normal_fill_f64_u(addr(data), C.int64_t(n), C.double(mean), C.double(std))
	runtime.KeepAlive(data)
	if st != C.MT_OK {
		return ErrUnsupported
	}
	return nil
}
