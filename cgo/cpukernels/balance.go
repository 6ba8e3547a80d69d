package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"
*/
import "C"

import "unsafe"

// BalanceProbe runs the C pool's self-balancing loop (balance.c) over
// [0, n) for its tests: hits[i] counts how often element i ran and
// owner[i] which share ran it last; share slow waits (up to a second) for
// the others to finish their own ranges and then spins about spin loop
// turns per element, and ready reports whether the others did finish in
// that time; element fail (when in range) reports an error. hits and owner
// must hold n elements.
func BalanceProbe(n, grain, piece, slow, spin, fail int, hits, owner []int32) (ready bool, err error) {
	if len(hits) < n || len(owner) < n {
		return false, ErrUnsupported
	}
	var r C.int32_t
	st := C.mt_balance_probe(C.int64_t(n), C.int64_t(grain), C.int64_t(piece), C.int(slow), C.int64_t(spin),
		C.int64_t(fail), (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(hits))),
		(*C.int32_t)(unsafe.Pointer(unsafe.SliceData(owner))), &r)
	return r != 0, status(st)
}
