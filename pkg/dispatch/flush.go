package dispatch

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mindtorch/mindtorch/internal/goroutine"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// runNodes runs captured calls (all in state running) in program order,
// one Batch per run of calls on one device. keep, when not nil, is a call
// whose outputs must be stored (a recomputation's target). A call that
// fails marks its outputs and those of every later call that depends on
// it as failed; the others still run. It returns the first failure.
func runNodes(nodes []*node, keep *node) error {
	var first error
	bad := map[*Pending]bool{}
	for len(nodes) > 0 {
		end := 1
		for end < len(nodes) && nodes[end].call.Device == nodes[0].call.Device {
			end++
		}
		run := nodes[:end]
		ok, err := runBatch(run, keep)
		if err == nil {
			nodes = nodes[end:]
			continue
		}
		if first == nil {
			first = err
		}
		fail(run[ok], err, bad)
		var rest []*node
		for _, n := range nodes[ok+1:] {
			if slices.ContainsFunc(n.pendAt, func(p *Pending) bool { return bad[p] }) {
				fail(n, err, bad)
			} else {
				unbind(n)
				rest = append(rest, n)
			}
		}
		nodes = rest
	}
	return first
}

// fail records err as the outcome of n, whose outputs lose any memory
// they were bound to.
func fail(n *node, err error, bad map[*Pending]bool) {
	mu.Lock()
	n.state = failed
	var mems []kernel.Memory
	for _, p := range n.outs {
		if p.mem != nil {
			mems = append(mems, p.mem)
		}
		p.node, p.mem, p.err = nil, nil, err
		bad[p] = true
	}
	n.call = nil
	mu.Unlock()
	for _, m := range mems {
		m.Release()
	}
	unregister(n)
}

// finish records the outcome of a call that ran: done when its outputs
// are stored, lazy when the device computed them on the way only. It
// reports whether they were stored: then nothing runs n again, and the
// caller owns n's call.
func finish(n *node, alone bool) (stored bool) {
	if !alone {
		count(n.call, Native)
	}
	mu.Lock()
	stored = true
	for _, p := range n.outs {
		stored = stored && p.mem != nil
	}
	var drop []kernel.Memory
	if stored {
		n.state = done
		for _, p := range n.outs {
			p.node = nil
			if p.released {
				drop = append(drop, p.mem)
			}
		}
		n.call = nil
	} else {
		n.state, n.pipe = lazy, nil
		unbind(n)
	}
	first := !stored && !n.collectable
	n.collectable = n.collectable || first
	mu.Unlock()
	for _, m := range drop {
		m.Release()
	}
	if stored {
		unregister(n)
	} else if first {
		collectable(n)
	}
	return stored
}

// runBatch runs calls of one device through the device's BatchFunc (or
// one by one). It returns how many completed and, on failure, the error
// of the next.
func runBatch(nodes []*node, keep *node) (int, error) {
	calls := make([]*kernel.Call, len(nodes))
	index := make(map[*Pending]int, len(nodes))
	for i, n := range nodes {
		calls[i] = n.call
		for _, p := range n.outs {
			index[p] = i
		}
	}
	lastReader := make([]int, len(nodes)) // the last call of the batch that reads call i's outputs
	for i := range lastReader {
		lastReader[i] = -1
	}
	for i, n := range nodes {
		for _, p := range n.pendAt {
			if j, ok := index[p]; ok { // nil entries are in neither map
				lastReader[j] = i
			}
		}
	}
	alone := make([]bool, len(nodes))
	b := &kernel.Batch{Calls: calls}
	b.Internal = func(i, end int) bool {
		if nodes[i] == keep || lastReader[i] < 0 || lastReader[i] >= end {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range nodes[i].outs {
			if p.keep {
				return false
			}
		}
		return true
	}
	// An input made by an earlier call of the batch is in the memory that
	// call was given (the batch runs in order); others are resolved.
	b.Resolve = func(i, k int) error {
		o := &calls[i].In[k]
		p, ok := o.Mem.(*Pending)
		if !ok {
			return nil
		}
		j, ours := index[p]
		if !ours {
			return resolve(o)
		}
		mu.Lock()
		m := p.mem
		mu.Unlock()
		if j >= i || m == nil {
			return notComputed()
		}
		o.Bind(m)
		return nil
	}
	b.Alloc = func(i int) error { return alloc(nodes[i]) }
	b.Drop = func(i int) { drop(nodes[i]) }
	b.Run = func(i int) error {
		for k := range calls[i].In {
			if err := b.Resolve(i, k); err != nil {
				return err
			}
		}
		if err := alloc(nodes[i]); err != nil {
			return err
		}
		alone[i] = true
		return execute(calls[i])
	}
	f := kernel.LookupBatch(calls[0].Device.Type)
	if f == nil {
		f = oneByOne
	}
	completed, err := f(b)
	for i := range completed {
		// The copy of a call whose outputs this batch stored goes back to
		// the pool: nothing reaches it any more (finish dropped the node's
		// reference), unlike that of a lazy call, which runs again. (By
		// finish's answer, not the node's state later: another goroutine
		// may have recomputed a lazy call since, and freed its copy itself.)
		if finish(nodes[i], alone[i]) {
			Free(calls[i])
		}
	}
	if err != nil {
		err = decorate(calls[completed], err)
	}
	return completed, err
}

// oneByOne is the BatchFunc of devices without one.
func oneByOne(b *kernel.Batch) (int, error) {
	for i := range b.Calls {
		if err := b.Run(i); err != nil {
			return i, err
		}
	}
	return len(b.Calls), nil
}

// alloc gives the outputs of n's call memory (keeping memory given
// before: a batch that failed is run again from the failure on).
func alloc(n *node) error {
	c := n.call
	for i, p := range n.outs {
		mu.Lock()
		m := p.mem
		mu.Unlock()
		if m == nil {
			var err error
			if m, err = kernel.Allocate(c.Device, p.nbytes); err != nil {
				return err
			}
			mu.Lock()
			p.mem = m
			mu.Unlock()
		}
		c.Out[i].Bind(m)
	}
	return nil
}

// unbind points the inputs of n's call that were pending when it was
// captured at their Pending again, so that a later run resolves them
// anew: the memory they were bound to may have been given back (Drop).
// An input that a copy replaced since (detach) stays on the copy, and one
// that was a view of a Pending (a slice of its storage) was never bound
// here: it resolves itself, its offset kept.
func unbind(n *node) {
	for k, p := range n.pendAt {
		if p != nil && n.opKeys[k] == p.key {
			n.call.In[k].Mem, n.call.In[k].Ptr = p, nil
		}
	}
}

// drop gives back the memory of n's outputs, which the batch running n
// computed and no longer needs: n ends lazy (see finish).
func drop(n *node) {
	var mems []kernel.Memory
	mu.Lock()
	for _, p := range n.outs {
		if p.keep {
			mu.Unlock()
			return
		}
	}
	for _, p := range n.outs {
		if p.mem != nil {
			mems = append(mems, p.mem)
			p.mem = nil
		}
	}
	mu.Unlock()
	for _, m := range mems {
		m.Release()
	}
}

// resolve points an operand over pending memory at the memory behind it,
// computing it first.
func resolve(o *kernel.Operand) error {
	p, ok := o.Mem.(*Pending)
	if !ok {
		return nil
	}
	m, err := p.materialize()
	if err != nil {
		return err
	}
	o.Bind(m)
	return nil
}

// lazyMu serializes recomputations; lazyOwner is the goroutine running one.
var (
	lazyMu    sync.Mutex
	lazyOwner atomic.Int64
)

func lockLazy() {
	lazyMu.Lock()
	lazyOwner.Store(goroutine.ID())
}

func unlockLazy() {
	lazyOwner.Store(0)
	lazyMu.Unlock()
}

// recompute computes and stores the outputs of a lazy call, with the lazy
// calls it reads (whose outputs are again not stored).
func recompute(n *node) {
	lockLazy()
	defer unlockLazy()
	recomputeLocked(n)
}

// recomputeLocked is recompute with lazyMu held.
func recomputeLocked(n *node) {
	mu.Lock()
	if n.state != lazy {
		mu.Unlock()
		return
	}
	var batch []*node
	seen := map[*node]bool{}
	var walk func(m *node)
	walk = func(m *node) {
		if seen[m] {
			return
		}
		seen[m] = true
		m.state = running
		batch = append(batch, m)
		for _, p := range m.pendAt {
			if p == nil {
				continue
			}
			if q := p.node; q != nil && q.state == lazy {
				walk(q)
			}
		}
	}
	walk(n)
	mu.Unlock()
	slices.SortFunc(batch, func(a, b *node) int { return cmp.Compare(a.seq, b.seq) })
	Eager(func() { _ = runNodes(batch, n) }) // failures are in the outputs
}
