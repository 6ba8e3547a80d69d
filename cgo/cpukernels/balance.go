package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"
*/
import "C"

import "unsafe"

// BalanceProbe runs the C pool's self-balancing loop (balance.c) over
// [0, n) for its tests: hits[i] counts how often element i ran and
// owner[i] which share ran it last; share slow spins about spin loop turns
// per element, and element fail (when in range) reports an error. hits
// and owner must hold n elements.
func BalanceProbe(n, grain, piece, slow, spin, fail int, hits, owner []int32) error {
	if len(hits) < n || len(owner) < n {
		return ErrUnsupported
	}
	return status(C.mt_balance_probe(C.int64_t(n), C.int64_t(grain), C.int64_t(piece), C.int(slow),
		C.int64_t(spin), C.int64_t(fail), (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(hits))),
		(*C.int32_t)(unsafe.Pointer(unsafe.SliceData(owner)))))
}
