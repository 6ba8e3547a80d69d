// Package cpukernels is the cgo binding of the CPU kernels in csrc/cpu: the
// pointwise engine and casts. It is a thin layer: one C call per op (or per
// worker's share of an op), plans passed by pointer, no Go pointers kept by C.
package cpukernels

/*
#cgo CFLAGS: -O3 -I${SRCDIR}/../../include -I${SRCDIR}/../../csrc/cpu
#cgo LDFLAGS: -lm -ldl
#include <stdint.h>
#include <stdlib.h>
#include "mindtorch/cpu_kernels.h"

// The hot entry points take the data addresses as integers: cgo then skips
// its run-time check of each pointer argument (about 70 ns per op, a tenth of
// a small op). The Go side keeps the memory alive across the call.
static inline int mt_pointwise_u(int op, int dt, uintptr_t plan, uintptr_t p0, uintptr_t p1, uintptr_t p2,
		uintptr_t p3, int64_t begin, int64_t end, mt_attrs a) {
	return mt_pointwise(op, dt, (const mt_plan *)plan, (void *)p0, (void *)p1, (void *)p2, (void *)p3, begin, end, a);
}
static inline int mt_pointwise_1d_u(int op, int dt, int64_t n, uintptr_t p0, uintptr_t p1, uintptr_t p2,
		uintptr_t p3, int64_t s0, int64_t s1, int64_t s2, int64_t s3, mt_attrs a) {
	return mt_pointwise_1d(op, dt, n, (void *)p0, (void *)p1, (void *)p2, (void *)p3, s0, s1, s2, s3, a);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// MaxDims is the most dimensions a plan holds; MaxOps the most operands.
const (
	MaxDims = C.MT_MAX_DIMS
	MaxOps  = C.MT_MAX_OPS
)

// Plan is an iteration plan: NDim dimensions, fastest first, and the byte
// strides of each operand (operand 0 is the output). Its layout is C's mt_plan.
type Plan struct {
	NDim    int64
	NOps    int64
	Shape   [MaxDims]int64
	Strides [MaxOps][MaxDims]int64
}

// Attrs are an op's attributes: F for floating compute types, I for integer ones.
type Attrs struct {
	F [4]float64
	I [4]int64
}

// Errors of the kernels.
var (
	ErrUnsupported = errors.New("no CPU kernel for this op and dtype")
	ErrZeroDiv     = errors.New("ZeroDivisionError")
)

func status(s C.int) error {
	switch s {
	case C.MT_OK:
		return nil
	case C.MT_ERR_ZERO_DIV:
		return ErrZeroDiv
	default:
		return ErrUnsupported
	}
}

func cattrs(a *Attrs) C.mt_attrs { return *(*C.mt_attrs)(unsafe.Pointer(a)) }

// Pointwise runs op (a C enum value) in compute dtype dt over elements
// [begin, end) of plan, with operand base addresses p.
func Pointwise(op, dt int, plan *Plan, p *[MaxOps]unsafe.Pointer, begin, end int, a *Attrs) error {
	s := C.mt_pointwise_u(C.int(op), C.int(dt), addr(unsafe.Pointer(plan)), addr(p[0]), addr(p[1]), addr(p[2]),
		addr(p[3]), C.int64_t(begin), C.int64_t(end), cattrs(a))
	runtime.KeepAlive(plan)
	runtime.KeepAlive(p)
	return status(s)
}

func addr(p unsafe.Pointer) C.uintptr_t { return C.uintptr_t(uintptr(p)) }

// Pointwise1D runs op over n elements with byte strides s.
func Pointwise1D(op, dt, n int, p *[MaxOps]unsafe.Pointer, s *[MaxOps]int64, a *Attrs) error {
	st := C.mt_pointwise_1d_u(C.int(op), C.int(dt), C.int64_t(n), addr(p[0]), addr(p[1]), addr(p[2]), addr(p[3]),
		C.int64_t(s[0]), C.int64_t(s[1]), C.int64_t(s[2]), C.int64_t(s[3]), cattrs(a))
	runtime.KeepAlive(p)
	return status(st)
}

// Cast converts operand 1 (dtype src) into operand 0 (dtype dst) over
// elements [begin, end) of a two-operand plan.
func Cast(dst, src int, plan *Plan, p0, p1 unsafe.Pointer, begin, end int) error {
	return status(C.mt_cast(C.int(dst), C.int(src), (*C.mt_plan)(unsafe.Pointer(plan)), p0, p1,
		C.int64_t(begin), C.int64_t(end)))
}

// Cast1D converts n elements with byte strides s0 (destination) and s1.
func Cast1D(dst, src, n int, p0, p1 unsafe.Pointer, s0, s1 int64) error {
	return status(C.mt_cast_1d(C.int(dst), C.int(src), C.int64_t(n), p0, p1, C.int64_t(s0), C.int64_t(s1)))
}

// ISA is the instruction set of the hot loops: "generic", "avx2" or "avx512".
func ISA() string {
	switch C.mt_isa() {
	case 3:
		return "avx512"
	case 2:
		return "avx2"
	}
	return "generic"
}

// Reduce runs a reduction, scan or softmax (op: a C MT_R_* value) in dtype dt
// over output positions [begin, end) of a contiguous [outer, r, inner] array
// x (g: the incoming gradient of the softmax backward ops, else nil). out
// gets the values (nil for argmax/argmin without values), idx the int64
// indices of argmax/argmin.
func Reduce(op, dt int, x, g unsafe.Pointer, outer, r, inner int, out, idx unsafe.Pointer, begin, end int, a *Attrs) error {
	return status(C.mt_reduce(C.int(op), C.int(dt), x, g, C.int64_t(outer), C.int64_t(r), C.int64_t(inner),
		out, (*C.int64_t)(idx), C.int64_t(begin), C.int64_t(end), cattrs(a)))
}

// LoadBLAS opens an OpenBLAS library by path or soname. It returns the
// library's build configuration, or an error saying why it could not.
func LoadBLAS(path string) (string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg [512]C.char
	st := C.mt_blas_load(cpath, &msg[0], C.int(len(msg)))
	text := C.GoString(&msg[0])
	if st != C.MT_OK {
		return "", errors.New(text)
	}
	return text, nil
}

// SetBLASThreads sets the thread count of the loaded OpenBLAS.
func SetBLASThreads(n int) { C.mt_blas_set_threads(C.int(n)) }

// Gemm computes batch products c = alpha*op(a)@op(b) + beta*c (see mt_gemm).
func Gemm(dt int, ta, tb bool, m, n, k int, alpha float64, a unsafe.Pointer, lda, sa int,
	b unsafe.Pointer, ldb, sb int, beta float64, c unsafe.Pointer, ldc, sc, batch int) error {
	return status(C.mt_gemm(C.int(dt), cbool(ta), cbool(tb), C.int64_t(m), C.int64_t(n), C.int64_t(k), C.double(alpha),
		a, C.int64_t(lda), C.int64_t(sa), b, C.int64_t(ldb), C.int64_t(sb), C.double(beta), c, C.int64_t(ldc),
		C.int64_t(sc), C.int64_t(batch)))
}

func cbool(v bool) C.int {
	if v {
		return 1
	}
	return 0
}
