package autograd

import "sync/atomic"

// Grad mode is process-wide. Go has no goroutine-local state, and keying a
// mode by goroutine identity costs microseconds per op, so the switch is
// one atomic counter: recording is on unless some NoGrad section is running
// or SetGradEnabled(false) was called.
//
// A program that serves and trains at once should therefore not serve
// inside NoGrad (that would pause recording for the training goroutines
// too). It serves with parameters that do not require gradients (Detach,
// or a copy of the model), which never record, whatever the mode.

//
// The backward pass never changes the mode: gradient formulas compute on
// tensors that do not require gradients (unless create_graph asks for a
// differentiable backward), so they do not record whatever the mode is.

var (
	noGradDepth     atomic.Int32 // running NoGrad sections
	enableGradDepth atomic.Int32 // running EnableGrad sections
	disabled        atomic.Bool  // SetGradEnabled(false)
)

// IsGradEnabled reports whether ops record the graph.
func IsGradEnabled() bool {
	return enableGradDepth.Load() > 0 || (noGradDepth.Load() == 0 && !disabled.Load())
}

// SetGradEnabled turns recording on or off for the whole process.
func SetGradEnabled(on bool) { disabled.Store(!on) }

// NoGrad runs f with recording off (for every goroutine while f runs).
// Sections nest, and one that panics still ends.
func NoGrad(f func()) {
	noGradDepth.Add(1)
	defer noGradDepth.Add(-1)
	f()
}

// EnableGrad runs f with recording on, even inside NoGrad or after
// SetGradEnabled(false): while any EnableGrad section runs, recording is on.
func EnableGrad(f func()) {
	enableGradDepth.Add(1)
	defer enableGradDepth.Add(-1)
	f()
}
