package cpukernels

/*
#include <stdint.h>
#include "cpu_kernels.h"
#include "loops.h"

// Addresses as integers, as in cpukernels.go.
#include <stddef.h>
static inline int mt_fstep_plan_offset(void) { return (int)offsetof(mt_fstep, plan); }
static inline int mt_has_loop(int op, int dt) { return mt_pointwise_loop(op, dt) != 0; }
static inline int mt_fused_u(int dt, int64_t n, uintptr_t steps, int nsteps, uintptr_t slots, int nslots,
		int64_t grain) {
	return mt_fused(dt, n, (const mt_fstep *)steps, nsteps, (const mt_fslot *)slots, nslots, grain);
}
static inline int mt_fused_sum_u(int dt, int64_t n, uintptr_t steps, int nsteps, uintptr_t slots, int nslots,
		int slot, int64_t split_grain, uintptr_t out) {
	return mt_fused_sum(dt, n, (const mt_fstep *)steps, nsteps, (const mt_fslot *)slots, nslots, slot,
		split_grain, (void *)out);
}
static inline int mt_fused_rows_u(int dt, uintptr_t steps, int nsteps, uintptr_t slots, int nslots, int slot,
		int rop, int64_t rows, int64_t r, uintptr_t out, mt_attrs a, int64_t grain, int64_t op_grain) {
	return mt_fused_rows(dt, (const mt_fstep *)steps, nsteps, (const mt_fslot *)slots, nslots, slot, rop, rows,
		r, (void *)out, a, grain, op_grain);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The kinds of slot of a fused chain (see FusedSlot).
const (
	SlotBuffer  = C.MT_SLOT_BUFFER  // a block buffer: a result read only inside the chain
	SlotDense   = C.MT_SLOT_DENSE   // memory walked contiguously: an input, or a result stored
	SlotConst   = C.MT_SLOT_CONST   // one element read for every position
	SlotStrided = C.MT_SLOT_STRIDED // an input with other strides, read through a step's plan
)

// The most steps and slots of one fused chain.
const (
	MaxFusedSteps = C.MT_FUSED_MAX_STEPS
	MaxFusedSlots = C.MT_FUSED_MAX_SLOTS
)

// FusedSlot is a value a fused chain reads or writes (C's mt_fslot): Data
// is the address of element 0 (SlotDense, SlotStrided) or of the one
// element (SlotConst).
type FusedSlot struct {
	Kind int64
	Data uint64
}

// FusedStep is one op of a fused chain (C's mt_fstep): Op writes slot Out
// from slots In[:NIn], walking its block as one contiguous row, or, when
// Plan is not 0, through the plan at that address (over the chain's
// shape, operand 0 the result, then the inputs: the op's own plan).
type FusedStep struct {
	Op    int32
	NIn   int32
	Out   int32
	In    [3]int32
	Plan  uint64
	Attrs Attrs
}

// Fused runs steps in dtype dt over n elements block by block, in one C
// call split across the pool in shares of at least grain elements (grain
// 0: on the caller's thread). The caller keeps every address in slots
// valid (and the plans alive) during the call.
func Fused(dt, n int, steps []FusedStep, slots []FusedSlot, grain int) error {
	if len(steps) == 0 || len(slots) == 0 {
		return ErrUnsupported
	}
	st := C.mt_fused_u(C.int(dt), C.int64_t(n), addr(unsafe.Pointer(&steps[0])), C.int(len(steps)),
		addr(unsafe.Pointer(&slots[0])), C.int(len(slots)), C.int64_t(grain))
	runtime.KeepAlive(steps)
	runtime.KeepAlive(slots)
	if st == C.MT_ERR_NOMEM {
		return ErrNoMem
	}
	return status(st)
}

// FusedSum runs steps as Fused does and writes to out (one value of dtype
// dt) the sum of slot's values, with the bits of the sum of those values
// in memory: split into parts as ReduceSplit splits it with grain
// splitGrain, or with splitGrain 0 as Reduce sums one row.
func FusedSum(dt, n int, steps []FusedStep, slots []FusedSlot, slot, splitGrain int, out unsafe.Pointer) error {
	if len(steps) == 0 || len(slots) == 0 {
		return ErrUnsupported
	}
	st := C.mt_fused_sum_u(C.int(dt), C.int64_t(n), addr(unsafe.Pointer(&steps[0])), C.int(len(steps)),
		addr(unsafe.Pointer(&slots[0])), C.int(len(slots)), C.int(slot), C.int64_t(splitGrain), addr(out))
	runtime.KeepAlive(steps)
	runtime.KeepAlive(slots)
	if st == C.MT_ERR_NOMEM {
		return ErrNoMem
	}
	return status(st)
}

// FusedRows runs steps as Fused does over rows*r elements and applies
// reduction rop (an R constant) along each row of r of slot's values, as
// Reduce does over a contiguous [rows, r] array, writing to out one value
// per row (r for scans and softmax) with the bits Reduce gives. Rows are
// split across the pool in shares of at least grain rows (0: not split);
// opGrain is the grain the chain's ops split with when they run alone (0:
// not split), which places the blocks the chain is run in.
func FusedRows(dt int, steps []FusedStep, slots []FusedSlot, slot, rop, rows, r int, out unsafe.Pointer, a *Attrs, grain, opGrain int) error {
	if len(steps) == 0 || len(slots) == 0 {
		return ErrUnsupported
	}
	st := C.mt_fused_rows_u(C.int(dt), addr(unsafe.Pointer(&steps[0])), C.int(len(steps)),
		addr(unsafe.Pointer(&slots[0])), C.int(len(slots)), C.int(slot), C.int(rop), C.int64_t(rows),
		C.int64_t(r), addr(out), cattrs(a), C.int64_t(grain), C.int64_t(opGrain))
	runtime.KeepAlive(steps)
	runtime.KeepAlive(slots)
	if st == C.MT_ERR_NOMEM {
		return ErrNoMem
	}
	return status(st)
}

// HasLoop reports whether pointwise op (a C enum value) has a loop in
// compute dtype dt.
func HasLoop(op, dt int) bool { return C.mt_has_loop(C.int(op), C.int(dt)) != 0 }

// The sizes of C's structs, for the test that pins the Go layouts to them.
var (
	cSizeofFusedStep   = int(C.sizeof_mt_fstep)
	cSizeofFusedSlot   = int(C.sizeof_mt_fslot)
	cOffsetofFusedPlan = int(C.mt_fstep_plan_offset())
)
