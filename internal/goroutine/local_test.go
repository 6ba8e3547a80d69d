package goroutine

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// stackID is the goroutine id as the runtime prints it in a stack trace.
func stackID(t *testing.T) int64 {
	var b [64]byte
	f := bytes.Fields(b[:runtime.Stack(b[:], false)])
	id, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		t.Fatalf("cannot read the goroutine id from %q", b)
	}
	return id
}

// ID reads the runtime's goroutine struct at offsets that depend on the Go
// version: check it against the runtime's own answer, in many goroutines.
func TestIDMatchesTheRuntime(t *testing.T) {
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			if got, want := ID(), stackID(t); got != want {
				t.Errorf("ID() = %d, the runtime says %d", got, want)
			}
		})
	}
	wg.Wait()
}

func TestLocalBelongsToOneGoroutine(t *testing.T) {
	var l Local[int]
	inside, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		l.With(7, func() {
			if v, ok := l.Get(); v != 7 || !ok {
				t.Errorf("inside With: %v %v", v, ok)
			}
			close(inside)
			<-done
		})
	})
	<-inside
	if v, ok := l.Get(); ok {
		t.Errorf("another goroutine's value is visible here: %v", v)
	}
	close(done)
	wg.Wait()
	if l.n.Load() != 0 {
		t.Errorf("%d entries left after With returned", l.n.Load())
	}
}

func TestWithNestsAndRestores(t *testing.T) {
	var l Local[string]
	l.With("a", func() {
		l.With("b", func() {
			if v, _ := l.Get(); v != "b" {
				t.Errorf("inner: %q", v)
			}
		})
		if v, _ := l.Get(); v != "a" {
			t.Errorf("after the inner With: %q", v)
		}
		func() {
			defer func() { _ = recover() }()
			l.With("c", func() { panic("boom") })
		}()
		if v, _ := l.Get(); v != "a" {
			t.Errorf("after a panicking With: %q", v)
		}
	})
	if _, ok := l.Get(); ok || l.n.Load() != 0 {
		t.Errorf("after With: a value is left (%d entries)", l.n.Load())
	}
	l.Set("x")
	l.Set("y")
	if v, _ := l.Get(); v != "y" || l.n.Load() != 1 {
		t.Errorf("Set twice: %q, %d entries", v, l.n.Load())
	}
	l.Clear()
	if l.n.Load() != 0 {
		t.Errorf("Clear left %d entries", l.n.Load())
	}
}

func BenchmarkGet(b *testing.B) {
	var l Local[bool]
	b.Run("empty", func(b *testing.B) {
		for b.Loop() {
			l.Get()
		}
	})
	b.Run("another-goroutine-set", func(b *testing.B) {
		stop, started := make(chan struct{}), make(chan struct{})
		go l.With(true, func() { close(started); <-stop })
		<-started
		for b.Loop() {
			l.Get()
		}
		close(stop)
	})
}
