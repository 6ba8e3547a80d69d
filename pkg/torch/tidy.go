package torch

import (
	"sync"

	"github.com/mindtorch/mindtorch/internal/goroutine"
)

// Tidy runs f and then releases the memory of every tensor that the calling
// goroutine's ops made inside f, except the tensors passed to Keep (and
// their views). It is for loops that want PyTorch's reuse of memory without
// a Release per value: PyTorch frees a tensor when its last reference goes,
// Go only at a garbage collection, so a loop whose results are left to the
// collector writes into memory that is no longer in the processor's caches
// (docs/BENCHMARKS.md measures the difference). Tidy is TensorFlow.js's
// tf.tidy; PyTorch needs none.
//
// What the library keeps for later is never released: tensors that require
// gradients (parameters), the gradients that backward passes accumulate
// into leaves, optimizers' state and modules' buffers. A gradient that a
// backward pass made and that SetGrad(nil) (an optimizer's ZeroGrad)
// drops inside f is f's to release, as PyTorch frees it then. Any other tensor
// made inside f and used after it (stored in a struct or a map, returned
// through a variable) must be passed to Keep; using it otherwise is an
// error that names the released memory, never a crash. Tensors made by
// other goroutines, including goroutines that f starts, are not f's.
// Scopes nest: a tensor made in an inner Tidy belongs to it alone.
//
// Tidy returns f's error. If f panics, the tensors are released and the
// panic goes on.
func Tidy(f func() error) (err error) {
	parent, _ := scopes.Get()
	s := &scope{parent: parent}
	defer s.release()
	scopes.With(s, func() { err = f() })
	return err
}

// Keep exempts ts, and every view of their memory, from release by the
// Tidy scopes of the calling goroutine. Outside a Tidy it does nothing.
// Nil tensors are ignored.
func Keep(ts ...*Tensor) {
	s, _ := scopes.Get()
	if s == nil {
		return
	}
	for _, t := range ts {
		if t != nil && t.storage != nil {
			s.keep(t.storage)
		}
	}
}

// scopes is the innermost Tidy scope of each goroutine inside one.
var scopes goroutine.Local[*scope]

// scope is one Tidy call: the storages its goroutine's ops made.
type scope struct {
	parent *scope
	mu     sync.Mutex // release may run on a panic while a Keep is under way
	made   []*UntypedStorage
	kept   map[*UntypedStorage]bool
}

// keep marks s as kept by this scope and the ones around it.
func (sc *scope) keep(s *UntypedStorage) {
	for ; sc != nil; sc = sc.parent {
		sc.mu.Lock()
		if sc.kept == nil {
			sc.kept = map[*UntypedStorage]bool{}
		}
		sc.kept[s] = true
		sc.mu.Unlock()
	}
}

// release releases the storages made in the scope and not kept.
func (sc *scope) release() {
	sc.mu.Lock()
	made, kept := sc.made, sc.kept
	sc.made, sc.kept = nil, nil
	sc.mu.Unlock()
	for _, s := range made {
		if !kept[s] {
			s.Release()
		}
	}
}

// madeInScope registers a storage of new memory with the calling
// goroutine's Tidy scope, if it is inside one (one atomic load otherwise).
func madeInScope(s *UntypedStorage) {
	if sc, _ := scopes.Get(); sc != nil {
		sc.mu.Lock()
		sc.made = append(sc.made, s)
		sc.mu.Unlock()
	}
}
