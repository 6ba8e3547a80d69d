// Package goroutine keeps values that belong to one goroutine, as thread
// locals belong to one thread in PyTorch: the grad mode, the NPU device and
// stream guards.
//
// Go has no goroutine-local storage, so a Local is a table keyed by the
// goroutine's id, read with github.com/petermattis/goid (a read of the
// runtime's current-goroutine pointer, about 1.5 ns; the tests check it
// against the id the runtime prints in stack traces). Only goroutines that
// set a value have an entry, and With removes it when its function
// returns, so the table stays as small as the number of goroutines inside
// a guard. While it is empty, Get costs one atomic load.
package goroutine

import (
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"
)

// Local is a value of type T per goroutine. The zero Local is empty.
type Local[T any] struct {
	n atomic.Int64 // entries in m
	m sync.Map     // goroutine id -> T
}

// ID is the calling goroutine's id.
func ID() int64 { return goid.Get() }

// Get returns the calling goroutine's value, and whether it has one.
func (l *Local[T]) Get() (T, bool) {
	var zero T
	if l.n.Load() == 0 {
		return zero, false
	}
	v, ok := l.m.Load(goid.Get())
	if !ok {
		return zero, false
	}
	return v.(T), true
}

// Set gives the calling goroutine the value v until Clear (or another Set).
func (l *Local[T]) Set(v T) {
	if _, had := l.m.Swap(goid.Get(), v); !had {
		l.n.Add(1)
	}
}

// Clear removes the calling goroutine's value.
func (l *Local[T]) Clear() {
	if _, had := l.m.LoadAndDelete(goid.Get()); had {
		l.n.Add(-1)
	}
}

// With runs f with v as the calling goroutine's value, then restores what
// the goroutine had before (also when f panics).
func (l *Local[T]) With(v T, f func()) {
	prev, had := l.Get()
	l.Set(v)
	defer func() {
		if had {
			l.Set(prev)
		} else {
			l.Clear()
		}
	}()
	f()
}
