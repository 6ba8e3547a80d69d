package dispatch_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestLazyChainsGoInOneCollection checks that the registry entries of the
// lazy calls a fused chain leaves (x*a + c and its relu, computed on the
// way to the sigmoid and not stored) all go after one garbage collection:
// the entries of a lazy call hold the alias keys of its inputs, and the key
// of a pending input must not keep its producer alive, or a chain of k
// calls would take k collections to go, its registry and heap growing in a
// loop of pipelines meanwhile.
func TestLazyChainsGoInOneCollection(t *testing.T) {
	x, a, c := torch.Randn([]int{1000}), torch.Randn([]int{1000}), torch.Randn([]int{1000})
	runtime.GC()
	settle()
	before := dispatch.ReaderEntries()
	for range 300 {
		var y *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { y = x.Mul(a).Add(c).Relu().Sigmoid(); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := y.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if got := dispatch.ReaderEntries(); got < before+300 {
		t.Fatalf("%d registry entries after 300 chains, %d before: the chains left no lazy calls to test with", got, before)
	}
	runtime.GC()
	if got := settle(); got > before {
		t.Errorf("%d registry entries after one collection, %d before the chains", got, before)
	}
}

// settle waits for the cleanups a collection queued to run (they run on
// a goroutine of their own) and returns the registry's size once it stops
// shrinking.
func settle() int {
	n := dispatch.ReaderEntries()
	for range 200 {
		time.Sleep(5 * time.Millisecond)
		m := dispatch.ReaderEntries()
		if m == n && m == 0 {
			break
		}
		n = m
	}
	return n
}
