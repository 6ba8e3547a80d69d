package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The CPU backend splits large ops into one share per core. The caller runs
// share 0 itself; share w > 0 goes to helper w, a goroutine. Helpers are
// neither locked to threads nor pinned to CPUs: a pinned helper shares its
// CPU with the caller whenever the OS puts the caller's thread there, and a
// 1024x1024 softmax then ran 1.2x slower on 2 cores (best of 5: 413 µs
// pinned, 354 µs not).
//
// Handing work to a sleeping goroutine costs tens of microseconds in Go's
// scheduler, which is the whole time of an op on 10^5 elements. So a
// helper that has finished a share keeps polling for the next one for
// spinFor, and only then goes to sleep on a channel. Ops that follow each other closely (a
// training step, a benchmark loop) never wait for a wake-up; an idle
// process does not spin.

const spinFor = 200 * time.Microsecond

// Helper states.
const (
	idle     int32 = iota // polling for work
	claimed               // a caller is writing the share
	ready                 // the share is written
	running               // the helper runs the share
	sleeping              // blocked on wake
)

type helper struct {
	state atomic.Int32
	f     func(w int) error
	w     int
	err   *error
	left  *atomic.Int32 // shares of the op not yet finished
	wake  chan struct{}
}

var helpers struct {
	once sync.Once
	h    []*helper // h[0] is unused: share 0 runs on the caller
}

func startHelpers() {
	n := runtime.GOMAXPROCS(0)
	helpers.h = make([]*helper, n)
	for k := 1; k < n; k++ {
		h := &helper{wake: make(chan struct{}, 1)}
		h.state.Store(sleeping)
		helpers.h[k] = h
		go h.loop()
	}
}

func (h *helper) loop() {
	for {
		<-h.wake
		for h.state.Load() == ready {
			h.state.Store(running)
			*h.err = h.f(h.w)
			left := h.left
			h.f, h.err, h.left = nil, nil, nil
			h.state.Store(idle)
			left.Add(-1)
			h.poll()
		}
	}
}

// poll waits for the next share for spinFor, then marks the helper asleep
// (unless a share arrived meanwhile).
func (h *helper) poll() {
	start := time.Now()
	for i := 0; ; i++ {
		if s := h.state.Load(); s != idle {
			for s == claimed {
				s = h.state.Load()
			}
			return
		}
		if i%64 == 63 && time.Since(start) > spinFor && h.state.CompareAndSwap(idle, sleeping) {
			return
		}
	}
}

// give hands share w of f to h if it is free.
func (h *helper) give(f func(w int) error, w int, err *error, left *atomic.Int32) bool {
	was := h.state.Load()
	if (was != idle && was != sleeping) || !h.state.CompareAndSwap(was, claimed) {
		return false
	}
	h.f, h.w, h.err, h.left = f, w, err, left
	h.state.Store(ready)
	if was == sleeping {
		h.wake <- struct{}{}
	}
	return true
}

// eachWorker runs f(0), ..., f(n-1) concurrently and returns the first
// error: f(0) on the caller, the others on the helpers, or on new
// goroutines when a helper is busy (another op is running, or f itself
// splits work), so that nothing ever waits for itself. The caller then
// polls for the other shares rather than sleeping: a sleeping goroutine
// would be woken through the helper's processor, which is busy polling.
func eachWorker(n int, f func(w int) error) error {
	helpers.once.Do(startHelpers)
	errs := make([]error, n)
	var left atomic.Int32
	left.Store(int32(n - 1))
	for w := 1; w < n; w++ {
		if w < len(helpers.h) && helpers.h[w].give(f, w, &errs[w], &left) {
			continue
		}
		go func() {
			errs[w] = f(w)
			left.Add(-1)
		}()
	}
	errs[0] = f(0)
	for i := 0; left.Load() > 0; i++ {
		if i > 1000 {
			runtime.Gosched()
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
