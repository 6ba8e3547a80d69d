package dispatch

import (
	"sync"
	"unsafe"
	"weak"

	"github.com/mindtorch/mindtorch/internal/goroutine"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// The state of captured calls and their outputs. One mutex guards it all
// (short sections only: no kernel runs under it); the long work is
// serialized by each pipeline's flush lock and by lazyMu.
var mu sync.Mutex

// nodeState is where a captured call is in its life.
type nodeState uint8

const (
	queued  nodeState = iota // in its pipeline's queue
	running                  // being run by a flush or a recomputation
	lazy                     // ran without storing its outputs: computed again when they are read
	done                     // its outputs are stored
	failed                   // it failed, or a call it depends on did
)

// node is one captured call.
type node struct {
	call   *kernel.Call // a deep copy, owned by the node
	outs   []*Pending   // its outputs
	pendAt []*Pending   // per input, the Pending it was when captured (nil for other memory, a view of a Pending too); nil when none was
	opKeys []any        // the alias key of each input (see readers.go)
	keys   []any        // the distinct ones, under which it is registered
	pipe   *Pipeline    // the pipeline that captured it; nil once it ran (a recomputation runs it again)
	seq    uint64       // program order
	state  nodeState
	self   weak.Pointer[node] // its registry entry (readers.go): made once, as each weak.Make of a node searches its span's specials

	collectable bool // collectable ran: a sweep after a collection drops its entries once it is unreachable
}

// Pending is the memory of an output of a captured call: its size and
// device are known (from the meta function), its bytes are computed by
// the call when a flush runs it, or when they are read. Reading them
// (HostPtr, or any op that is not captured) computes them first; a call
// that failed leaves its outputs without memory and with its error (Err).
// Tensors keep a Pending as their memory for their whole life; kernels
// never see one (the dispatcher resolves operands to the memory behind).
type Pending struct {
	dev    device.Device
	nbytes int
	key    *aliasKey // its alias key (AliasOf)

	// Guarded by mu.
	node     *node         // the producer until its outputs are stored (or it failed)
	mem      kernel.Memory // the bytes, once bound
	err      error         // the failure of the producer (or of a call it depends on)
	keep     bool          // read later for sure (saved for backward): never elided
	released bool
}

// Device is the device the bytes will live on.
func (p *Pending) Device() device.Device { return p.dev }

// aliasKey is the alias key of a Pending: a separate object, so that the
// registry entries of a lazy call (readers.go), which hold the keys of
// its inputs until the call is collected, do not keep the calls that
// produce those inputs alive too (a chain of k lazy calls would otherwise
// take k collections to go, one link each).
type aliasKey struct{ _ byte } // not empty: every empty object has one address

// AliasOf is p's alias key (kernel.Aliaser).
func (p *Pending) AliasOf() any { return p.key }

// Nbytes is the size of the bytes.
func (p *Pending) Nbytes() int { return p.nbytes }

// HostPtr computes the bytes if they are pending and returns their host
// address (nil when the computation failed: Err tells why, and ops on the
// memory report it).
func (p *Pending) HostPtr() unsafe.Pointer {
	m, err := p.materialize()
	if err != nil || m == nil {
		return nil
	}
	return m.HostPtr()
}

// DevicePtr computes the bytes if they are pending and returns their
// device address (0 for host memory or a failed computation).
func (p *Pending) DevicePtr() uintptr {
	m, err := p.materialize()
	if err != nil || m == nil {
		return 0
	}
	return m.DevicePtr()
}

// Release frees the bytes. Captured calls that read them and have not
// run yet run first, as they would have before the release in eager mode.
func (p *Pending) Release() {
	runReaders(p)
	mu.Lock()
	p.released = true
	m := p.mem
	mu.Unlock()
	if m != nil {
		m.Release()
	}
}

// Released reports whether Release was called.
func (p *Pending) Released() bool {
	mu.Lock()
	defer mu.Unlock()
	return p.released || (p.mem != nil && p.node == nil && p.mem.Released())
}

// Err is the error of the call that made the bytes (or of a call it
// depended on) once it ran; nil before, and for bytes computed.
func (p *Pending) Err() error {
	mu.Lock()
	defer mu.Unlock()
	return p.err
}

// materialize returns the memory behind p, computing it first: a flush of
// the pipeline that holds p's call, or a recomputation of a call whose
// outputs were not stored.
func (p *Pending) materialize() (kernel.Memory, error) {
	for {
		mu.Lock()
		n, m, err := p.node, p.mem, p.err
		var st nodeState
		var pl *Pipeline
		if n != nil {
			st, pl = n.state, n.pipe
		}
		released := p.released
		mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case n == nil && m != nil:
			return m, nil
		case n == nil || (released && m == nil):
			return nil, kernel.Errorf(kernel.ErrArgument, "the tensor was used after its storage was released")
		case (st == queued || st == running) && pl != nil:
			if pl.flusher.Load() == goroutine.ID() {
				return nil, notComputed()
			}
			pl.flush()
		case st == lazy || st == running: // running: another goroutine recomputes it
			if lazyOwner.Load() == goroutine.ID() {
				return nil, notComputed()
			}
			recompute(n)
		default: // done or failed: the fields above changed meanwhile
		}
	}
}

// notComputed is the error of a batch that reads an output it has not
// computed (a device's BatchFunc that runs calls out of order).
func notComputed() error {
	return kernel.Errorf(kernel.ErrRuntime, "internal error: a batch read an output it has not computed")
}

// IsPending reports whether m is the memory of a captured call whose
// bytes are not computed yet (nor failed).
func IsPending(m kernel.Memory) bool {
	p, ok := m.(*Pending)
	if !ok {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	return p.node != nil
}

// PeekHostPtr is m's host address without computing anything: nil for
// pending memory whose bytes are not computed.
func PeekHostPtr(m kernel.Memory) unsafe.Pointer {
	p, ok := m.(*Pending)
	if !ok {
		return m.HostPtr()
	}
	mu.Lock()
	r := p.mem
	ready := p.node == nil
	mu.Unlock()
	if r == nil || !ready {
		return nil
	}
	return r.HostPtr()
}

// Err is the error of the call that made m when m is pending memory: the
// pipeline that holds the call is flushed first (a call whose outputs were
// only computed on the way, not stored, cannot have failed and is not run
// again). nil for other memory.
func Err(m kernel.Memory) error {
	p, ok := m.(*Pending)
	if !ok {
		return nil
	}
	mu.Lock()
	var pl *Pipeline
	if n := p.node; n != nil && (n.state == queued || n.state == running) {
		pl = n.pipe // nil while a recomputation runs it: then it cannot fail
	}
	mu.Unlock()
	if pl != nil && pl.flusher.Load() != goroutine.ID() {
		pl.flush()
	}
	return p.Err()
}

// Keep marks m, when it is pending memory, as read later for sure (a
// tensor saved for the backward pass): its bytes are stored when its call
// runs, never computed only on the way.
func Keep(m kernel.Memory) {
	if p, ok := m.(*Pending); ok {
		mu.Lock()
		p.keep = true
		mu.Unlock()
	}
}

// Settle makes m's bytes final before the caller reads or writes them
// without an op (a data pointer handed out): pending bytes are computed,
// and captured calls that read m run first. It returns the error of the
// call that made m, if it failed.
func Settle(m kernel.Memory) error {
	if p, ok := m.(*Pending); ok {
		if _, err := p.materialize(); err != nil {
			return err
		}
	}
	runReaders(m)
	return nil
}

// BeforeRelease runs the captured calls that read m and have not run yet,
// before the caller releases m (or lets it change by other means).
func BeforeRelease(m kernel.Memory) { runReaders(m) }
