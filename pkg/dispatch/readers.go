package dispatch

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/mindtorch/mindtorch/internal/goroutine"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// Captured calls that have not run (queued, or lazy: run without storing
// their outputs) read their inputs later than the program did. Before
// anything writes or releases memory such a call reads, the call runs:
// eager code then never sees a difference. readers maps the alias key of
// an input's memory (kernel.AliasKey) to those calls, held weakly: a lazy
// call that nobody can read any more is collected, and the sweep after
// that collection drops its entries.
// Each key holds a readerSet: a loop of pipelines over the same weights
// leaves thousands of lazy calls reading them until a collection, and each
// call's entry must go in constant time (a list scanned per removal made
// that quadratic: a 4-op chain on 1000 floats took 59 us instead of 7).

var (
	regMu   sync.Mutex
	readers = map[any]*readerSet{}
	regKeys atomic.Int64 // len(readers), read without the lock
)

// register records n as a reader of its inputs' memory.
func register(n *node) {
	n.self = weak.Make(n)
	regMu.Lock()
	for _, k := range n.keys {
		set := readers[k]
		if set == nil {
			set = &readerSet{}
			readers[k] = set
		}
		set.add(n.self)
	}
	regKeys.Store(int64(len(readers)))
	regMu.Unlock()
}

// unregister drops the entries of a call that ran (or failed).
func unregister(n *node) { forget(n.keys, n.self) }

// forget drops w's entries under keys.
func forget(keys []any, w weak.Pointer[node]) {
	regMu.Lock()
	for _, k := range keys {
		if set := readers[k]; set != nil {
			set.remove(w)
			if set.len() == 0 {
				delete(readers, k)
			}
		}
	}
	regKeys.Store(int64(len(readers)))
	regMu.Unlock()
}

// collectable arranges for the entries of a lazy call to go once the
// garbage collector finds the call unreachable: the next sweep after that
// collection drops them. A cleanup per lazy call would cost more than the
// call's capture (each cleanup and weak pointer of an object searches the
// list its memory span keeps of them); one sweep per collection costs a
// pass over the registry, whose entries are those of live calls and of
// calls collected since the last sweep.
func collectable(*node) {
	if sweepArmed.CompareAndSwap(false, true) {
		armSweep()
	}
}

// sweepArmed says that a sweep will run after the next collection.
var sweepArmed atomic.Bool

// sweepToken is an object nothing references: a collection takes it (the
// next, or the one after when it was made while one was marking) and runs
// its cleanup, the sweep. (It holds a pointer so that it is not a tiny
// allocation, which may share memory with live objects and then never be
// collected.)
type sweepToken struct{ _ *byte }

func armSweep() {
	runtime.AddCleanup(&sweepToken{}, func(struct{}) { sweep() }, struct{}{})
}

// sweep drops the entries of collected calls and arms the next sweep if
// entries remain (lazy calls still alive may be collected later).
func sweep() {
	// Disarmed first: a call that turns lazy from here on arms the next
	// sweep itself, and one that turned lazy before was registered before,
	// so this sweep sees its entries and re-arms. (Disarmed after the
	// count, a call turning lazy in between armed nothing, and its entries
	// stayed for good once nothing else armed a sweep.)
	sweepArmed.Store(false)
	regMu.Lock()
	for k, set := range readers {
		if set.prune() == 0 {
			delete(readers, k)
		}
	}
	left := len(readers)
	regKeys.Store(int64(left))
	regMu.Unlock()
	if left > 0 && sweepArmed.CompareAndSwap(false, true) {
		armSweep()
	}
}

// runReaders makes every captured call that reads m and has not run
// independent of m's bytes: queued ones run (a flush of their pipeline);
// lazy ones get a copy of the bytes they read (one copy of m for all of
// them, however many there are; a lazy call nobody can read any more may
// not have been collected yet, and computing it would be wasted).
func runReaders(m kernel.Memory) {
	if regKeys.Load() == 0 {
		return
	}
	key := kernel.AliasKey(m)
	me := goroutine.ID()
	for { // a flush may leave readers lazy, or queue none
		flushed := false
		for _, n := range readersOf(key) {
			mu.Lock()
			st, pl := n.state, n.pipe
			mu.Unlock()
			if (st == queued || st == running) && pl != nil && pl.flusher.Load() != me {
				pl.flush()
				flushed = true
			}
		}
		if !flushed {
			break
		}
	}
	if lazyOwner.Load() == me {
		return
	}
	var lazies []*node
	for _, n := range readersOf(key) {
		mu.Lock()
		st, pl := n.state, n.pipe
		mu.Unlock()
		if st == lazy || (st == running && pl == nil) { // running: being recomputed
			lazies = append(lazies, n)
		}
	}
	if len(lazies) > 0 {
		detach(key, lazies)
	}
}

// readersOf lists the live calls registered as readers of key.
func readersOf(key any) []*node {
	regMu.Lock()
	defer regMu.Unlock()
	var live []*node
	if set := readers[key]; set != nil {
		live = set.live(nil)
	}
	slices.SortFunc(live, func(a, b *node) int { return cmp.Compare(a.seq, b.seq) }) // program order
	return live
}

// detach points the inputs of lazy calls that read key at copies of the
// bytes (a call whose input cannot be copied is computed instead).
func detach(key any, nodes []*node) {
	lockLazy()
	defer unlockLazy()
	copies := map[kernel.Memory]kernel.Memory{}
	for _, n := range nodes {
		mu.Lock()
		st := n.state
		mu.Unlock()
		if st != lazy {
			continue
		}
		all, ok := n.detach(key, copies)
		if !ok {
			recomputeLocked(n)
		} else if all {
			forget([]any{key}, n.self)
		}
	}
}

// detach points n's inputs under key at copies of their bytes, made once
// per memory (copies); ok is false when a copy cannot be made. An input
// that is pending and not computed keeps its own recipe (and n stays a
// reader of it: all is false).
func (n *node) detach(key any, copies map[kernel.Memory]kernel.Memory) (all, ok bool) {
	all = true
	for k := range n.call.In {
		if n.opKeys[k] != key {
			continue
		}
		o := &n.call.In[k]
		src := o.Mem
		if p, ok := src.(*Pending); ok {
			mu.Lock()
			m, ready := p.mem, p.node == nil
			mu.Unlock()
			if !ready || m == nil {
				all = false
				continue
			}
			src = m
		}
		dst, done := copies[src]
		if !done {
			var err error
			if dst, err = snapshot(src); err != nil {
				return false, false
			}
			copies[src] = dst
		}
		o.Bind(dst)
		n.opKeys[k] = dst // private: nothing else writes it
	}
	return all, true
}

// snapshot copies host memory.
func snapshot(src kernel.Memory) (kernel.Memory, error) {
	p := src.HostPtr()
	if p == nil || src.Released() {
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "only host memory is copied")
	}
	dst, err := kernel.Allocate(src.Device(), src.Nbytes())
	if err != nil {
		return nil, err
	}
	n := src.Nbytes()
	if n > 0 {
		copy(unsafe.Slice((*byte)(dst.HostPtr()), n), unsafe.Slice((*byte)(p), n))
	}
	return dst, nil
}

// inputKeys returns the alias key of each of c's inputs and the distinct
// ones.
func inputKeys(c *kernel.Call) (each, distinct []any) {
	buf := make([]any, 2*len(c.In)) // one allocation for both
	each, distinct = buf[:len(c.In):len(c.In)], buf[len(c.In):len(c.In)]
	for i := range c.In {
		each[i] = kernel.AliasKey(c.In[i].Mem)
		if !slices.Contains(distinct, each[i]) {
			distinct = append(distinct, each[i])
		}
	}
	return each, distinct
}
