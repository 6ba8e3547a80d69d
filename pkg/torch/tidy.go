package torch

import "github.com/mindtorch/mindtorch/internal/goroutine"

// Tidy runs f and then releases the memory of every tensor that the calling
// goroutine's ops made inside f, except the tensors passed to Keep (and
// their views). It is for loops that want PyTorch's reuse of memory without
// a Release per value: PyTorch frees a tensor when its last reference goes,
// Go only at a garbage collection, so a loop whose results are left to the
// collector writes into memory that is no longer in the processor's caches
// (docs/BENCHMARKS.md measures the difference). Tidy is TensorFlow.js's
// tf.tidy; PyTorch needs none.
//
// What the library keeps for later is never released: leaves that require
// gradients (parameters, when RequiresGrad_ is called), the gradients that
// backward passes accumulate into leaves, optimizers' state, the buffers
// that this library's modules make or that RegisterBuffer adds, and what
// nn.To and nn.ToDType convert. A gradient that a backward pass made and
// that SetGrad(nil) (an optimizer's ZeroGrad) drops inside f is f's to
// release unless it was passed to Keep, as PyTorch frees it then. Any
// other tensor made inside f and used after it (stored in a struct or a
// map, returned through a variable) must be passed to Keep; using it
// otherwise is an error that names the released memory, never a crash.
// Tensors made by other goroutines, including goroutines that f starts,
// are not f's. Scopes nest: a tensor made in an inner Tidy belongs to it
// alone.
//
// Tidy returns f's error. If f panics, the tensors are released and the
// panic goes on.
func Tidy(f func() error) (err error) {
	s := &scope{}
	defer s.release()
	scopes.With(s, func() { err = f() })
	return err
}

// Keep exempts ts, and every tensor sharing their storage, from release by
// any Tidy scope, now and later; outside a Tidy it does only that. It does
// not keep what their autograd graphs saved: a backward pass through a
// graph recorded inside a Tidy must run inside it. Nil tensors are ignored.
func Keep(ts ...*Tensor) {
	for _, t := range ts {
		if t != nil && t.storage != nil {
			t.storage.mark.Or(keptBit)
		}
	}
}

// scopes is the innermost Tidy scope of each goroutine inside one.
var scopes goroutine.Local[*scope]

// scope is one Tidy call: the storages its goroutine's ops made. Only its
// goroutine touches it.
type scope struct{ made []*UntypedStorage }

// release releases the storages made in the scope that are neither kept
// nor a leaf's gradient.
func (sc *scope) release() {
	for _, s := range sc.made {
		if s.mark.Load()&markBits == 0 {
			s.Release()
		}
	}
	sc.made = nil
}

// madeInScope registers a storage of new memory with the calling
// goroutine's Tidy scope, if it is inside one (one atomic load otherwise).
func madeInScope(s *UntypedStorage) {
	if sc, _ := scopes.Get(); sc != nil {
		sc.made = append(sc.made, s)
	}
}

// dropGrad hands s, a gradient a backward pass made that SetGrad(nil) just
// dropped, to the calling goroutine's Tidy scope, unless it was kept.
func dropGrad(s *UntypedStorage) {
	sc, _ := scopes.Get()
	if sc == nil || s.mark.Load()&keptBit != 0 {
		return
	}
	s.mark.And(^uint64(gradBit))
	sc.made = append(sc.made, s)
}
