package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_pointwise_parallel_u(int op, int dt, uintptr_t plan, uintptr_t p0, uintptr_t p1,
		uintptr_t p2, uintptr_t p3, int64_t n, mt_attrs a, int64_t grain) {
	return mt_pointwise_parallel(op, dt, (const mt_plan *)plan, (void *)p0, (void *)p1, (void *)p2, (void *)p3,
		n, a, grain);
}
static inline int mt_cast_parallel_u(int dst, int src, uintptr_t plan, uintptr_t p0, uintptr_t p1, int64_t n,
		int64_t grain) {
	return mt_cast_parallel(dst, src, (const mt_plan *)plan, (void *)p0, (void *)p1, n, grain);
}
static inline int mt_reduce_parallel_u(int op, int dt, uintptr_t x, uintptr_t g, int64_t outer, int64_t r,
		int64_t inner, uintptr_t out, uintptr_t idx, int64_t positions, mt_attrs a, int64_t grain) {
	return mt_reduce_parallel(op, dt, (const void *)x, (const void *)g, outer, r, inner, (void *)out,
		(int64_t *)idx, positions, a, grain);
}
static inline int mt_reduce_split_u(int part_op, int dt, int part_dt, int combine, uintptr_t x, int64_t r,
		uintptr_t out, mt_attrs a, int64_t grain) {
	return mt_reduce_split(part_op, dt, part_dt, combine, (const void *)x, r, (void *)out, a, grain);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// StartPool starts the C worker pool that the Parallel functions split
// their work across: size threads, the caller's included. Only the first
// call has an effect.
func StartPool(size int) { C.mt_pool_start(C.int(size)) }

// ParallelChunk is the length of the shares a parallel kernel splits n
// elements into with grain (n when it would not split), the pool being
// free.
func ParallelChunk(n, grain int) int { return int(C.mt_parallel_chunk(C.int64_t(n), C.int64_t(grain))) }

// VecElems is the fused chains' vector unit (fused.c's MT_VEC): elements of
// float in an AVX-512 vector, a multiple of every vector width the loops use.
const VecElems = C.MT_VEC

// PointwiseParallel is Pointwise over elements [0, n) of plan, split across
// the pool in shares of at least grain elements: one cgo call for the op.
func PointwiseParallel(op, dt int, plan *Plan, p *[MaxOps]unsafe.Pointer, n int, a *Attrs, grain int) error {
	s := C.mt_pointwise_parallel_u(C.int(op), C.int(dt), addr(unsafe.Pointer(plan)), addr(p[0]), addr(p[1]),
		addr(p[2]), addr(p[3]), C.int64_t(n), cattrs(a), C.int64_t(grain))
	runtime.KeepAlive(plan)
	runtime.KeepAlive(p)
	return status(s)
}

// CastParallel is Cast over elements [0, n) of plan, split across the pool.
func CastParallel(dst, src int, plan *Plan, p0, p1 unsafe.Pointer, n, grain int) error {
	st := C.mt_cast_parallel_u(C.int(dst), C.int(src), addr(unsafe.Pointer(plan)), addr(p0), addr(p1),
		C.int64_t(n), C.int64_t(grain))
	runtime.KeepAlive(plan)
	runtime.KeepAlive(p0)
	runtime.KeepAlive(p1)
	return status(st)
}

// ReduceParallel is Reduce over output positions [0, positions), split
// across the pool in shares of at least grain positions.
func ReduceParallel(op, dt int, x, g unsafe.Pointer, outer, r, inner int, out, idx unsafe.Pointer, positions int,
	a *Attrs, grain int) error {
	st := C.mt_reduce_parallel_u(C.int(op), C.int(dt), addr(x), addr(g), C.int64_t(outer), C.int64_t(r),
		C.int64_t(inner), addr(out), addr(idx), C.int64_t(positions), cattrs(a), C.int64_t(grain))
	runtime.KeepAlive(x)
	runtime.KeepAlive(g)
	runtime.KeepAlive(out)
	runtime.KeepAlive(idx)
	return status(st)
}

// ReduceSplit reduces r contiguous elements of x to one value at out:
// partOp (in dtype dt, with results in partDT) over one chunk of at least
// grain elements per pool thread, then combine over the partial results.
func ReduceSplit(partOp, dt, partDT, combine int, x unsafe.Pointer, r int, out unsafe.Pointer, a *Attrs, grain int) error {
	st := C.mt_reduce_split_u(C.int(partOp), C.int(dt), C.int(partDT), C.int(combine), addr(x), C.int64_t(r),
		addr(out), cattrs(a), C.int64_t(grain))
	runtime.KeepAlive(x)
	runtime.KeepAlive(out)
	return status(st)
}
