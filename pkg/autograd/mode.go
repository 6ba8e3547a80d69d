package autograd

import "github.com/mindtorch/mindtorch/internal/goroutine"

// Grad mode belongs to the goroutine, as PyTorch's belongs to the thread
// (see the package doc for the design and its cost).
//
// Every goroutine starts with recording on. NoGrad, EnableGrad and
// SetGradEnabled change the mode of the goroutine that calls them and of
// no other: a server that answers requests under NoGrad in some goroutines
// and trains in others gets the same graphs in the training goroutines as
// if it did not serve. A goroutine started inside NoGrad starts with
// recording on, as a thread started inside torch.no_grad() does.
//
// Go has no goroutine-local storage, so the mode is an
// internal/goroutine.Local: a table keyed by the goroutine's id, in which
// only goroutines whose recording is off have an entry. Cost per recording op:
// while no goroutine has recording off, one atomic load; otherwise one
// goid read and one sync.Map lookup (tens of nanoseconds). Ops whose
// inputs do not require gradients never ask.
//
// A goroutine that calls SetGradEnabled(false) keeps its entry until it
// calls SetGradEnabled(true); NoGrad and InferenceMode remove theirs when
// f returns (or panics). Prefer them.
//
// The backward pass does not change the mode: gradient formulas compute on
// tensors that do not require gradients (unless create_graph asks for a
// differentiable backward), so they record nothing whatever the mode is.

// off holds a value for the goroutines whose recording is off.
var off goroutine.Local[struct{}]

// IsGradEnabled reports whether ops called by this goroutine record the
// graph.
func IsGradEnabled() bool {
	_, isOff := off.Get()
	return !isOff
}

// SetGradEnabled turns recording on or off for the calling goroutine.
func SetGradEnabled(on bool) {
	if on {
		off.Clear()
	} else {
		off.Set(struct{}{})
	}
}

// NoGrad runs f with recording off in the calling goroutine, then restores
// the goroutine's mode (also when f panics).
func NoGrad(f func()) { off.With(struct{}{}, f) }

// EnableGrad runs f with recording on in the calling goroutine, even inside
// NoGrad, then restores the goroutine's mode.
func EnableGrad(f func()) {
	if IsGradEnabled() {
		f()
		return
	}
	off.Clear()
	defer off.Set(struct{}{})
	f()
}
