package dispatch_test

import (
	"math"
	"runtime"
	"runtime/debug"
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
	settle(0)
	before := dispatch.ReaderEntries()
	// No collection may run before the one below: it would take some of
	// the chains' entries away early.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
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
	if got := settle(before); got > before {
		t.Errorf("%d registry entries after one collection, %d before the chains", got, before)
	}
}

// settle waits for the cleanups a collection queued to run (they run on
// a goroutine of their own) until the registry holds at most want
// entries, for a second at most, and returns its size.
func settle(want int) int {
	n := dispatch.ReaderEntries()
	for i := 0; n > want && i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
		n = dispatch.ReaderEntries()
	}
	return n
}

// TestLazyCallsKeptAcrossACollectionGoLater checks that the sweep after a
// collection comes again: the lazy calls behind an intermediate the program
// still holds survive the first collection, and their entries go after
// the collection that follows the program dropping it.
func TestLazyCallsKeptAcrossACollectionGoLater(t *testing.T) {
	x, a, c := torch.Randn([]int{1000}), torch.Randn([]int{1000}), torch.Randn([]int{1000})
	runtime.GC()
	before := settle(0)
	// Only the collections below: one running meanwhile could leave the
	// sweep's token for the collection after it.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var mid, y *torch.Tensor
	if err := torch.Pipeline(func(*torch.Pipe) error {
		mid = x.Mul(a).Add(c)
		y = mid.Relu().Sigmoid()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	held := settle(before + 4) // the entries of x*a and of its sum with c
	if held <= before {
		t.Fatalf("%d registry entries while an intermediate is held, %d before: no lazy call to test with", held, before)
	}
	runtime.KeepAlive(mid)
	mid = nil
	runtime.GC()
	if got := settle(before); got > before {
		t.Errorf("%d registry entries after the intermediate was dropped and collected, %d before", got, before)
	}
	runtime.KeepAlive(y)
}
