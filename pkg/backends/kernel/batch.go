package kernel

import "github.com/mindtorch/mindtorch/pkg/device"

// Batch is a run of calls on one device that the dispatcher flushes from a
// pipeline, in program order: their meta functions ran when they were
// captured, their outputs have no memory yet. A device that registers a
// BatchFunc receives the whole run in one call; it may compute several
// calls together (the CPU fuses chains of pointwise ops) and skip storing
// outputs that only later calls of the run read (see Internal).
type Batch struct {
	Calls []*Call

	// Internal reports whether the outputs of call i are read by no call
	// at or after index end and are wanted by nobody else: a device that
	// computes calls i to end-1 together need not store them. The
	// dispatcher can compute an output that was not stored again when it
	// is read later.
	Internal func(i, end int) bool
	// Drop gives back the memory of the outputs of call i, a call for
	// which Internal holds and whose readers in the batch have run (or,
	// on a device with streams, are queued): the outputs are computed
	// again if they are read later.
	Drop func(i int)
	// Alloc gives the outputs of call i memory (they are bound to it); an
	// output left without memory was not stored.
	Alloc func(i int) error
	// Resolve points input k of call i at memory a kernel can read,
	// computing it first if it is pending (an output of an earlier call
	// of the batch, computed by then, or of an earlier flush).
	Resolve func(i, k int) error
	// Run runs call i alone by the dispatcher's routes (the device's
	// kernel, the op's decomposition, the host fallback), with its inputs
	// resolved and its outputs allocated.
	Run func(i int) error
}

// BatchFunc runs the calls of b in order. It returns how many completed:
// all of them, or, with an error, the index of the call that failed, when
// no later call ran. Calls it did not hand to Batch.Run are its own work.
type BatchFunc func(b *Batch) (done int, err error)

var batchFuncs [device.NumTypes]BatchFunc

// RegisterBatch installs the BatchFunc of a device type (backends call it
// from their init). A device without one gets each call of a batch run by
// Batch.Run in turn. Registering twice is a bug and panics at init.
func RegisterBatch(t device.Type, f BatchFunc) {
	if batchFuncs[t] != nil {
		panic("kernel: batch function registered twice for " + t.String())
	}
	batchFuncs[t] = f
}

// LookupBatch returns the BatchFunc of device type t, or nil.
func LookupBatch(t device.Type) BatchFunc { return batchFuncs[t] }

// Aliaser is memory that is part of other memory (a slice of a storage or
// of a file mapping): AliasOf identifies everything that shares its bytes,
// so that the dispatcher sees a write through one as a write to all.
type Aliaser interface {
	AliasOf() any
}

// AliasKey identifies the bytes of m for the dispatcher's tracking of
// pending reads: what AliasOf returns, else m itself.
func AliasKey(m Memory) any {
	if a, ok := m.(Aliaser); ok {
		return a.AliasOf()
	}
	return m
}

// UnbatchedFunc runs f with the device's launches made at once, not
// recorded into the batch the calling goroutine is running (if any), after
// the launches recorded so far: what runs inside (a decomposition, the
// host fallback) computes with memory that lives only while it runs.
type UnbatchedFunc func(f func())

var unbatchedFuncs [device.NumTypes]UnbatchedFunc

// RegisterUnbatched installs the UnbatchedFunc of a device type (backends
// that record launches in batches call it from their init).
func RegisterUnbatched(t device.Type, f UnbatchedFunc) {
	if unbatchedFuncs[t] != nil {
		panic("kernel: unbatched function registered twice for " + t.String())
	}
	unbatchedFuncs[t] = f
}

// Unbatched runs f as the UnbatchedFunc of device type t says, or simply
// runs it when t has none.
func Unbatched(t device.Type, f func()) {
	if u := unbatchedFuncs[t]; u != nil {
		u(f)
		return
	}
	f()
}
