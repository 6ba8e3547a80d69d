package cpukernels

/*
#include <stdint.h>
#include "loops.h"

static inline int mt_generated_u(int op, int64_t n, uintptr_t p0, uintptr_t p1, uintptr_t p2, int64_t s0,
		int64_t s1, int64_t s2) {
	return mt_pointwise_generated_1d(op, n, (void *)p0, (void *)p1, (void *)p2, s0, s1, s2);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// VexpActive reports whether the float32 exp, sigmoid and silu loops are
// vexp.h's AVX-512 ones, and whether they should be on this CPU (a GCC
// build for x86-64, a CPU with x86-64-v4).
func VexpActive() (active, expected bool) {
	return C.mt_vexp_active() != 0, C.mt_vexp_expected() != 0
}

// PointwiseGenerated1D is Pointwise1D in float32 through the loop the
// compiler generated for op, also where vexp.h's replaced it in the table:
// what the tests compare vexp.h's loops with.
func PointwiseGenerated1D(op, n int, p *[MaxOps]unsafe.Pointer, s *[MaxOps]int64) error {
	st := C.mt_generated_u(C.int(op), C.int64_t(n), addr(p[0]), addr(p[1]), addr(p[2]), C.int64_t(s[0]),
		C.int64_t(s[1]), C.int64_t(s[2]))
	runtime.KeepAlive(p)
	return status(st)
}
