package autograd

// ledger tracks, during one backward pass that may free memory (see
// Options.Memory), which gradients the pass alone holds.
//
// A gradient's memory belongs to the pass when a backward function made it
// during the pass (Options.Memory says so) and nothing outside the pass has
// seen it: a hook, a capture or a leaf that kept it takes it out of the
// pass's hands for good. The ledger counts the places of the pass that
// hold each memory (a node's buffered gradient, the gradients of the node
// running); when the count of memory that belongs to the pass falls to
// zero, nothing can read it again and Options.Free releases it at once,
// as PyTorch's reference counts free an intermediate gradient. A leaf
// receiving a gradient the pass owns and holds once may keep it instead of
// copying it (PyTorch's AccumulateGrad "steals" it the same way).
//
// The keys identify memory, not values: views of one gradient share a key,
// so a view handed to one node keeps alive the gradient another node also
// reads.
type ledger struct {
	memory  func(Value) (key any, fresh bool) // nil when the pass frees nothing
	free    func(Value)
	entries []entry     // of the memory seen, in the order seen
	index   map[any]int // position in entries, once there are more than smallGraph
}

// entry is what the ledger knows of one memory.
type entry struct {
	key   any
	refs  int  // places of the pass that hold it
	owned bool // it belongs to the pass
}

func newLedger(opt Options) ledger {
	if opt.Memory == nil || opt.Free == nil || opt.CreateGraph {
		return ledger{} // gradients that are recorded are saved by the new graph
	}
	return ledger{memory: opt.Memory, free: opt.Free}
}

// entry is the ledger's entry of v's memory, made on first sight; nil when
// the ledger is off or v has no memory.
func (l *ledger) entry(v Value) *entry {
	if l.memory == nil || v == nil {
		return nil
	}
	k, fresh := l.memory(v)
	if k == nil {
		return nil
	}
	if l.index != nil {
		if i, ok := l.index[k]; ok {
			return &l.entries[i]
		}
	} else {
		for i := range l.entries {
			if l.entries[i].key == k {
				return &l.entries[i]
			}
		}
	}
	l.entries = append(l.entries, entry{key: k, owned: fresh})
	if l.index != nil {
		l.index[k] = len(l.entries) - 1
	} else if len(l.entries) > smallGraph {
		l.index = make(map[any]int, 2*len(l.entries))
		for i := range l.entries {
			l.index[l.entries[i].key] = i
		}
	}
	return &l.entries[len(l.entries)-1]
}

// hold counts one more place of the pass holding v.
func (l *ledger) hold(v Value) {
	if e := l.entry(v); e != nil {
		e.refs++
	}
}

// drop counts one place fewer holding v and frees v's memory when the pass
// owns it and holds it nowhere else.
func (l *ledger) drop(v Value) {
	if e := l.entry(v); e != nil {
		if e.refs--; e.refs <= 0 && e.owned {
			e.owned = false // freed once, even if v comes back
			l.free(v)
		}
	}
}

// disown takes v's memory out of the pass's hands: something outside the
// pass (a hook, the caller of a capture, a leaf) may keep it.
func (l *ledger) disown(v Value) {
	if e := l.entry(v); e != nil {
		e.owned = false
	}
}

// sole reports whether the pass owns v's memory and holds it in one place
// only (the leaf about to receive it).
func (l *ledger) sole(v Value) bool {
	e := l.entry(v)
	return e != nil && e.owned && e.refs == 1
}
