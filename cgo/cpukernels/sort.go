package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"

// Addresses as integers, as in cpukernels.go.
static inline int mt_sort_u(uintptr_t job, uintptr_t x, uintptr_t values, uintptr_t indices) {
	return mt_sort((const mt_sort_job *)job, (const void *)x, (void *)values, (int64_t *)indices);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Kinds of sort job.
const (
	SortStable = C.MT_SORT_STABLE // equal values in index order
	SortStd    = C.MT_SORT_STD    // PyTorch 1.13's unstable CPU sort (libstdc++'s std::sort)
	SortTopk   = C.MT_SORT_TOPK   // the first K of each row, as PyTorch's topk
)

// SortJob is one sort or topk for the C engine (C's mt_sort_job): Rows
// plans the positions of the rows (operands x, values, indices; byte
// strides), NRows of them, each of N elements with byte strides Stride
// along it; K elements of each are written (N for the sorts). It holds no
// pointers.
type SortJob struct {
	Rows       Plan
	NRows      int64
	DType      int64
	Kind       int64
	Descending int64 // sort: descending; topk: the largest
	N, K       int64
	Stride     [3]int64
	Grain      int64 // rows per share at least; 0: one thread
}

// The layouts of SortJob and mt_sort_job agree (a compile-time check).
var (
	_ [unsafe.Sizeof(SortJob{}) - C.sizeof_mt_sort_job]byte
	_ [C.sizeof_mt_sort_job - unsafe.Sizeof(SortJob{})]byte
)

// Sort runs job over x, writing values and int64 indices, in one C call.
// It fails with ErrNoMem when a buffer cannot be allocated and with
// ErrUnsupported for a row of 2^32 elements or more of a dtype of 32 bits
// or less.
func Sort(job *SortJob, x, values, indices unsafe.Pointer) error {
	st := C.mt_sort_u(addr(unsafe.Pointer(job)), addr(x), addr(values), addr(indices))
	runtime.KeepAlive(job)
	runtime.KeepAlive(x)
	runtime.KeepAlive(values)
	runtime.KeepAlive(indices)
	if st == C.MT_ERR_NOMEM {
		return ErrNoMem
	}
	return status(st)
}
