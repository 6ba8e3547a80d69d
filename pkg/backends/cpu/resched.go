package cpu

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Rescheduling goroutines that call C in a loop.
//
// Go's system monitor treats a goroutine that has kept its processor for
// 10 ms without being rescheduled as one to preempt. When such a goroutine
// is inside a cgo call, the monitor cannot preempt it, so it takes the
// processor away and hands it to another thread. From then on it does so
// at every cgo call, and it polls every 20 µs instead of sleeping.
//
// A training loop or a benchmark is such a goroutine: it never blocks and
// spends most of its time in C. On a 2-core host, the monitor's wake-ups
// and the threads it starts preempt the threads doing the work thousands of
// times a second. A 64x784 by 784x256 sgemm ran 1.6x slower called from Go
// than from C (5 context switches per call against none).
//
// Rescheduling the goroutine (runtime.Gosched) resets the monitor's count.
// resched does that once per reschedEvery. It is called where the backend
// enters C for more than a few microseconds: each large op (pool.go) and
// each matrix product. Gosched costs about a microsecond, so the check is
// cheap enough to make at every such call.

const reschedEvery = 2 * time.Millisecond

// epoch is the origin of reschedClock.
var epoch = time.Now()

// reschedClock returns monotonic nanoseconds.
func reschedClock() int64 { return int64(time.Since(epoch)) }

// lastResched is when a goroutine running ops last rescheduled. The
// goroutines are many and unknown, so it is one clock for all of them.
var lastResched atomic.Int64

// resched reschedules the calling goroutine if reschedEvery has passed
// since the last time.
func resched() {
	now := reschedClock()
	last := lastResched.Load()
	if now-last < int64(reschedEvery) || !lastResched.CompareAndSwap(last, now) {
		return
	}
	runtime.Gosched()
}
