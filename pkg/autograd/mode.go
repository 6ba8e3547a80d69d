package autograd

import (
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"
)

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
// Go has no goroutine-local storage, so the mode is kept in a table keyed
// by the goroutine's id, read with github.com/petermattis/goid (a load of
// the runtime's current-goroutine pointer, about 1.5 ns; the package's
// tests check it against the id the runtime prints in stack traces). Only
// goroutines whose recording is off have an entry. Cost per recording op:
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

var (
	offCount atomic.Int64 // goroutines with an entry in off
	off      sync.Map     // goroutine id -> struct{}: recording is off there
)

// IsGradEnabled reports whether ops called by this goroutine record the
// graph.
func IsGradEnabled() bool {
	if offCount.Load() == 0 {
		return true
	}
	_, isOff := off.Load(goid.Get())
	return !isOff
}

// SetGradEnabled turns recording on or off for the calling goroutine.
func SetGradEnabled(on bool) { setEnabled(goid.Get(), on) }

func setEnabled(id int64, on bool) {
	if on {
		if _, was := off.LoadAndDelete(id); was {
			offCount.Add(-1)
		}
		return
	}
	if _, was := off.LoadOrStore(id, struct{}{}); !was {
		offCount.Add(1)
	}
}

// NoGrad runs f with recording off in the calling goroutine, then restores
// the goroutine's mode (also when f panics).
func NoGrad(f func()) { withMode(false, f) }

// EnableGrad runs f with recording on in the calling goroutine, even inside
// NoGrad, then restores the goroutine's mode.
func EnableGrad(f func()) { withMode(true, f) }

func withMode(on bool, f func()) {
	id := goid.Get()
	_, wasOff := off.Load(id)
	setEnabled(id, on)
	defer setEnabled(id, !wasOff)
	f()
}
