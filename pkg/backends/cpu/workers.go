package cpu

import (
	"runtime"
	"sync"
)

// The CPU backend splits large ops into one share per core and runs share
// w on worker w: a goroutine locked to its own OS thread, pinned to one CPU
// where the OS allows it. A share then runs on the same core op after op,
// so the data it touched is still in that core's caches (on a host whose
// cores have separate L3 caches this halves the time of a large sum).
// Workers sleep while idle and hold no P.

type share struct {
	f    func(w int) error
	w    int
	errs []error
	wg   *sync.WaitGroup
}

var workers struct {
	once  sync.Once
	queue []chan share
}

func startWorkers() {
	n := runtime.GOMAXPROCS(0)
	cpus := allowedCPUs()
	workers.queue = make([]chan share, n)
	for k := range n {
		q := make(chan share)
		workers.queue[k] = q
		go work(q, cpus, k)
	}
}

func work(q chan share, cpus []int, k int) {
	runtime.LockOSThread()
	if len(cpus) > k {
		pinTo(cpus[k])
	}
	for s := range q {
		s.errs[s.w] = s.f(s.w)
		s.wg.Done()
	}
}

// eachWorker runs f(0), ..., f(n-1) concurrently and returns the first
// error. Share w goes to worker w when it is idle; when it is busy (another
// op is running, or f itself splits work) the share runs on a new
// goroutine instead, so that nothing ever waits for itself.
func eachWorker(n int, f func(w int) error) error {
	workers.once.Do(startWorkers)
	var wg sync.WaitGroup
	errs := make([]error, n)
	wg.Add(n)
	for w := range n {
		s := share{f: f, w: w, errs: errs, wg: &wg}
		if w < len(workers.queue) {
			select {
			case workers.queue[w] <- s:
				continue
			default:
			}
		}
		go func() {
			errs[w] = f(w)
			wg.Done()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
