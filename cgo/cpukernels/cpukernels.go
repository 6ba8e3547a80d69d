// Package cpukernels is the CPU kernels, in C, and their cgo binding: the
// pointwise engine (plan.c, pointwise.c, loops.h), casts (cast.c),
// reductions, scans and softmax (reduce.c), matrix products (gemm.c), the
// fused chains of a pipeline with the reductions that join them (fused.c),
// AVX-512 loops for float32 exp, sigmoid, silu and gelu's gradient
// (vexp.h) and the worker pool (pool.c), with their API in cpu_kernels.h.
// cgo compiles each
// .c file as its own translation unit with -O3, the hot loops once per
// instruction set (MT_CLONES in loops.h). The Go side is a thin layer: one C
// call per op (a large op is split across C's worker pool inside that call),
// plans passed by pointer, no Go pointers kept by C.
//
// Every C file and header the package compiles is in this directory, the
// one Go's build cache looks at, so that an edit to any of them rebuilds the
// package (layout_test.go checks it, for every cgo package of the module).
package cpukernels

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lm -ldl
#include <stdint.h>
#include <stdlib.h>
#include "cpu_kernels.h"

// Every entry point takes data addresses as integers. cgo then skips its
// run-time check of pointer arguments, which costs about 70 ns per op (a
// tenth of a small op) and is conservative: it rejects the data of a small
// tensor, which lives in a field of the same allocation as its Memory
// (cgo's rules allow passing a field whose own bytes hold no Go pointers,
// which tensor data never does). The Go side keeps the memory alive across
// the call; C keeps no address after it returns.
static inline int mt_pointwise_u(int op, int dt, uintptr_t plan, uintptr_t p0, uintptr_t p1, uintptr_t p2,
		uintptr_t p3, int64_t begin, int64_t end, mt_attrs a) {
	return mt_pointwise(op, dt, (const mt_plan *)plan, (void *)p0, (void *)p1, (void *)p2, (void *)p3, begin, end, a);
}
static inline int mt_pointwise_1d_u(int op, int dt, int64_t n, uintptr_t p0, uintptr_t p1, uintptr_t p2,
		uintptr_t p3, int64_t s0, int64_t s1, int64_t s2, int64_t s3, mt_attrs a) {
	return mt_pointwise_1d(op, dt, n, (void *)p0, (void *)p1, (void *)p2, (void *)p3, s0, s1, s2, s3, a);
}
static inline int mt_cast_u(int dst, int src, uintptr_t plan, uintptr_t p0, uintptr_t p1, int64_t begin, int64_t end) {
	return mt_cast(dst, src, (const mt_plan *)plan, (void *)p0, (void *)p1, begin, end);
}
static inline int mt_cast_1d_u(int dst, int src, int64_t n, uintptr_t p0, uintptr_t p1, int64_t s0, int64_t s1) {
	return mt_cast_1d(dst, src, n, (void *)p0, (void *)p1, s0, s1);
}
static inline int mt_reduce_u(int op, int dt, uintptr_t x, uintptr_t g, int64_t outer, int64_t r, int64_t inner,
		uintptr_t out, uintptr_t idx, int64_t begin, int64_t end, mt_attrs a) {
	return mt_reduce(op, dt, (const void *)x, (const void *)g, outer, r, inner, (void *)out, (int64_t *)idx, begin, end, a);
}
static inline int mt_gemm_u(int dt, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, uintptr_t a,
		int64_t lda, int64_t sa, uintptr_t b, int64_t ldb, int64_t sb, double beta, uintptr_t c, int64_t ldc,
		int64_t sc, int64_t batch) {
	return mt_gemm(dt, ta, tb, m, n, k, alpha, (const void *)a, lda, sa, (const void *)b, ldb, sb, beta, (void *)c,
		ldc, sc, batch);
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
	st := C.mt_cast_u(C.int(dst), C.int(src), addr(unsafe.Pointer(plan)), addr(p0), addr(p1),
		C.int64_t(begin), C.int64_t(end))
	runtime.KeepAlive(plan)
	runtime.KeepAlive(p0)
	runtime.KeepAlive(p1)
	return status(st)
}

// Cast1D converts n elements with byte strides s0 (destination) and s1.
func Cast1D(dst, src, n int, p0, p1 unsafe.Pointer, s0, s1 int64) error {
	st := C.mt_cast_1d_u(C.int(dst), C.int(src), C.int64_t(n), addr(p0), addr(p1), C.int64_t(s0), C.int64_t(s1))
	runtime.KeepAlive(p0)
	runtime.KeepAlive(p1)
	return status(st)
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
	st := C.mt_reduce_u(C.int(op), C.int(dt), addr(x), addr(g), C.int64_t(outer), C.int64_t(r), C.int64_t(inner),
		addr(out), addr(idx), C.int64_t(begin), C.int64_t(end), cattrs(a))
	runtime.KeepAlive(x)
	runtime.KeepAlive(g)
	runtime.KeepAlive(out)
	runtime.KeepAlive(idx)
	return status(st)
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
	st := C.mt_gemm_u(C.int(dt), cbool(ta), cbool(tb), C.int64_t(m), C.int64_t(n), C.int64_t(k), C.double(alpha),
		addr(a), C.int64_t(lda), C.int64_t(sa), addr(b), C.int64_t(ldb), C.int64_t(sb), C.double(beta), addr(c),
		C.int64_t(ldc), C.int64_t(sc), C.int64_t(batch))
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	return status(st)
}

func cbool(v bool) C.int {
	if v {
		return 1
	}
	return 0
}
