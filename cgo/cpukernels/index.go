package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_index_u(uintptr_t job, uintptr_t out, uintptr_t src, uintptr_t index) {
	return mt_index((mt_index_job *)job, (void *)out, (void *)src, (void *)index);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// Kinds of index job.
const (
	IndexGather  = C.MT_IX_GATHER  // out = self at the index (gather, index_select)
	IndexScatter = C.MT_IX_SCATTER // out at the index combined with src (scatter, index_add)
)

// IndexAddAlpha is the combination of index_add (out += alpha * src); the
// others are numbered as kernel.ReduceNone...ReduceAmin.
const IndexAddAlpha = C.MT_IX_ADD_ALPHA

// Errors of Index.
var (
	ErrIndex = errors.New("index out of range")
	ErrNoMem = errors.New("out of memory")
)

// IndexJob is one index op for the C engine (C's mt_index_job): the plan
// over the iteration shape (operand 0 the output, 1 self or src, 2 the
// index), the index's own plan in logical order for the range check, and
// the op's attributes. It holds no pointers.
type IndexJob struct {
	Plan        Plan
	Check       Plan
	Kind        int64
	DType       int64
	IndexDType  int64
	Reduce      int64
	IncludeSelf int64
	Bound       int64
	Wrap        int64
	Jump        int64
	IxDim       int64
	Numel       int64
	CheckNumel  int64
	Grain       int64
	HitsLo      int64
	HitsSpan    int64
	AlphaI      int64
	AlphaF      float64
	Bad         int64
}

// The layouts of IndexJob and mt_index_job agree (a compile-time check).
var (
	_ [unsafe.Sizeof(IndexJob{}) - C.sizeof_mt_index_job]byte
	_ [C.sizeof_mt_index_job - unsafe.Sizeof(IndexJob{})]byte
)

// Index runs job over the operands at out, src and index in one C call
// (split across the worker pool inside it when job.Grain allows). On
// ErrIndex, job.Bad is the first index out of range, in the index's
// logical order, and nothing was written.
func Index(job *IndexJob, out, src, index unsafe.Pointer) error {
	st := C.mt_index_u(addr(unsafe.Pointer(job)), addr(out), addr(src), addr(index))
	runtime.KeepAlive(job)
	runtime.KeepAlive(out)
	runtime.KeepAlive(src)
	runtime.KeepAlive(index)
	switch st {
	case C.MT_OK:
		return nil
	case C.MT_ERR_INDEX:
		return ErrIndex
	case C.MT_ERR_NOMEM:
		return ErrNoMem
	}
	return ErrUnsupported
}
