package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_im2col_u(int dt, uintptr_t x, uintptr_t col, int64_t planes, mt_conv_geom g) {
	return mt_im2col(dt, (const void *)x, (void *)col, planes, g);
}
static inline int mt_col2im_u(int dt, uintptr_t col, uintptr_t x, int64_t planes, mt_conv_geom g) {
	return mt_col2im(dt, (const void *)col, (void *)x, planes, g);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// ConvGeom is the geometry of a convolution's image plane and its column
// matrix (mt_conv_geom): plane H x W, kernel KH x KW, output OH x OW,
// stride, padding before (top, left) and dilation.
type ConvGeom struct {
	H, W, KH, KW, OH, OW, SH, SW, PT, PL, DH, DW int
}

func (g *ConvGeom) c() C.mt_conv_geom {
	return C.mt_conv_geom{h: C.int64_t(g.H), w: C.int64_t(g.W), kh: C.int64_t(g.KH), kw: C.int64_t(g.KW),
		oh: C.int64_t(g.OH), ow: C.int64_t(g.OW), sh: C.int64_t(g.SH), sw: C.int64_t(g.SW),
		pt: C.int64_t(g.PT), pl: C.int64_t(g.PL), dh: C.int64_t(g.DH), dw: C.int64_t(g.DW)}
}

// Im2col writes the column matrices [KH*KW, OH*OW] of planes contiguous
// H x W planes at x into col (dtype dt: float32, float64 or int64), split
// across the pool: one cgo call.
func Im2col(dt int, x, col unsafe.Pointer, planes int, g *ConvGeom) error {
	st := C.mt_im2col_u(C.int(dt), addr(x), addr(col), C.int64_t(planes), g.c())
	runtime.KeepAlive(x)
	runtime.KeepAlive(col)
	return status(st)
}

// Col2im zeroes planes H x W planes at x and adds their column matrices
// at col into them (the adjoint of Im2col).
func Col2im(dt int, col, x unsafe.Pointer, planes int, g *ConvGeom) error {
	st := C.mt_col2im_u(C.int(dt), addr(col), addr(x), C.int64_t(planes), g.c())
	runtime.KeepAlive(x)
	runtime.KeepAlive(col)
	return status(st)
}
