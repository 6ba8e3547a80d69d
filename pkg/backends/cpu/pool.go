package cpu

import (
	"runtime"
	"sync"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
)

// Large ops are split across cores in C: the op's one cgo call hands a
// share to each thread of a worker pool (cgo/cpukernels/pool.c) and runs the
// first share itself, as PyTorch's OpenMP loops do. Workers poll for the
// next op for 200 µs after each share (yielding the CPU now and then, see
// pool.c), then sleep. Go's scheduler takes no part: goroutine helpers
// lost time to wake-ups and to sharing a CPU with the caller (an in-place
// add of 16M floats took 1.7-2.4 ms with them, 1.4-1.7 ms with the pool,
// and C alone 1.3 ms). The pool has as many threads as GOMAXPROCS when
// the first large op runs; an op that finds it busy (another goroutine's
// op) runs on its caller alone.

var pool sync.Once

// beginLarge prepares a large op: it starts the pool on first use and
// reschedules the calling goroutine when due (see resched.go).
func beginLarge() {
	startPool()
	resched()
}

// startPool starts the pool on first use, with GOMAXPROCS threads.
func startPool() { pool.Do(func() { cpukernels.StartPool(runtime.GOMAXPROCS(0)) }) }
