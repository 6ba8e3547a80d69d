package npu

import (
	"sync"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/internal/goroutine"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// A pipeline's batch on the NPU: every call runs by the dispatcher's
// routes as it would at once, but the kernels' launches are recorded
// instead of made, and handed to the shim together, in one cgo call
// (npushim.RunBatch), with one workspace from the caching allocator that
// the launches share (one stream runs them one after another). The result
// of a call that only later calls of the batch read is given back to the
// caching allocator as soon as its last reader is recorded: the stream
// reuses its block after that reader ran.
//
// Anything else that reaches the device while launches are recorded (a
// copy, a synchronisation, an event, memory returned to the driver)
// submits them first, so the device sees the order of eager execution.

func init() {
	kernel.RegisterBatch(device.NPU, runBatch)
	kernel.RegisterUnbatched(device.NPU, unbatched)
}

// unbatched runs f with its launches made at once, after those the
// calling goroutine's batch recorded (kernel.UnbatchedFunc).
func unbatched(f func()) {
	rec, ok := recording.Get()
	if !ok || rec == nil || rec.submitting {
		f()
		return
	}
	rec.submit()
	rec.submitting = true
	defer func() { rec.submitting = false }()
	f()
}

// recorder holds the launches a goroutine's batch has recorded and not
// submitted.
type recorder struct {
	dev    int
	stream uint64
	ls     []npushim.Launch
	ts     []npushim.Tensor
	as     []npushim.Attrs
	names  []string // each launch's op, for errors
	owner  []int    // each launch's call in the batch
	call   int      // the call being run

	ws   *Memory  // the workspace the launches share, held for the whole batch
	pool []*block // blocks given back while launches reading them are recorded

	submitting bool
	failedAt   int   // the call whose launch failed
	err        error // that failure: nothing more is recorded
}

// recording is the recorder of each goroutine running an NPU batch.
var recording goroutine.Local[*recorder]

// wsHint is the largest workspace a launch of a batch needed, per device:
// the next batch's workspace, taken before the batch gives any block back.
var wsHint struct {
	sync.Mutex
	n [16]int
}

// runBatch is the NPU's kernel.BatchFunc.
func runBatch(b *kernel.Batch) (int, error) {
	// A batch inside a batch (a recomputation while resolving an input)
	// comes after the launches the outer one recorded.
	flushLaunches()
	last := lastReaders(b)
	rec := &recorder{dev: -1, failedAt: -1}
	if len(b.Calls) > 0 && b.Calls[0].Device.Type == device.NPU {
		dev := b.Calls[0].Device.Index
		wsHint.Lock()
		size := wsHint.n[dev%len(wsHint.n)]
		wsHint.Unlock()
		if size > 0 {
			if ws, err := Allocate(dev, size); err == nil {
				rec.ws = ws
			}
		}
	}
	defer func() {
		rec.releasePool()
		if rec.ws != nil {
			rec.ws.Release()
		}
	}()
	done, err := len(b.Calls), error(nil)
	recording.With(rec, func() {
		for i := range b.Calls {
			rec.call = i
			if e := b.Run(i); e != nil || rec.err != nil {
				rec.submit()
				done, err = i, e
				if rec.err != nil {
					done, err = rec.failedAt, rec.err
				}
				return
			}
			for _, j := range last[i] {
				if b.Internal(j, i+1) {
					b.Drop(j)
				}
			}
		}
		if rec.submit(); rec.err != nil {
			done, err = rec.failedAt, rec.err
		}
	})
	return done, err
}

// lastReaders lists, for each call of b, the earlier calls whose outputs
// it is the last in b to read.
func lastReaders(b *kernel.Batch) [][]int {
	producer := map[kernel.Memory]int{}
	last := make([]int, len(b.Calls))
	for i, c := range b.Calls {
		last[i] = -1
		for k := range c.In {
			if j, ok := producer[c.In[k].Mem]; ok {
				last[j] = i
			}
		}
		for k := range c.Out {
			producer[c.Out[k].Mem] = i
		}
	}
	by := make([][]int, len(b.Calls))
	for j, i := range last {
		if i >= 0 {
			by[i] = append(by[i], j)
		}
	}
	return by
}

// submit launches op now, or records it when the calling goroutine runs
// a batch (and launches are not blocking).
func submit(name string, dev int, stream uint64, op int, ts []npushim.Tensor, a *npushim.Attrs) error {
	rec, ok := recording.Get()
	if !ok || rec.submitting || state.blocking {
		return statusError(name, npushim.Run(dev, stream, op, ts, a, state.blocking))
	}
	if rec.err != nil {
		return rec.err
	}
	if len(rec.ls) > 0 && (rec.dev != dev || rec.stream != stream) {
		if rec.submit(); rec.err != nil {
			return rec.err
		}
	}
	rec.dev, rec.stream = dev, stream
	rec.ls = append(rec.ls, npushim.Launch{Op: int32(op), NT: int32(len(ts))})
	rec.ts = append(rec.ts, ts...)
	rec.as = append(rec.as, *a)
	rec.names = append(rec.names, name)
	rec.owner = append(rec.owner, rec.call)
	return nil
}

// flushLaunches submits the launches the calling goroutine recorded, if
// any, before it reaches the device otherwise.
func flushLaunches() {
	if rec, ok := recording.Get(); ok && !rec.submitting {
		rec.submit()
	}
}

// submit hands the recorded launches to the shim: one cgo call, or one
// more each time a launch needs a larger workspace than the batch's. A
// failure is kept in rec (err, failedAt); nothing is recorded after it.
func (rec *recorder) submit() {
	if len(rec.ls) == 0 || rec.err != nil {
		rec.releasePool() // nothing recorded reads them, or nothing will run
		return
	}
	rec.submitting = true
	defer func() {
		rec.releasePool()
		rec.submitting = false
		rec.ls, rec.ts, rec.as, rec.names, rec.owner = rec.ls[:0], rec.ts[:0], rec.as[:0], rec.names[:0], rec.owner[:0]
	}()
	at, tat := 0, 0
	for at < len(rec.ls) {
		ptr, size := uint64(0), 0
		if rec.ws != nil {
			ptr, size = rec.ws.blk.ptr, rec.ws.n
		}
		done, need, st := npushim.RunBatch(rec.dev, rec.stream, rec.ls[at:], rec.ts[tat:], rec.as[at:], ptr, size)
		for _, l := range rec.ls[at : at+done] {
			tat += int(l.NT)
		}
		at += done
		if st != nil {
			rec.failedAt, rec.err = rec.owner[at], statusError(rec.names[at], st)
			return
		}
		if at == len(rec.ls) {
			return
		}
		if done == 0 && int(need) <= size {
			rec.failedAt, rec.err = rec.owner[at], kernel.Errorf(kernel.ErrRuntime, "internal error: a batch launched nothing")
			return
		}
		if err := rec.grow(int(need), rec.ts[tat:]); err != nil {
			rec.failedAt, rec.err = rec.owner[at], err
			return
		}
	}
}

// grow replaces the batch's workspace by one of need bytes at least. The
// launches still to come may read blocks that the batch gave back (their
// last reader is recorded, not launched): the caching allocator reuses a
// block only at its own size, so the new workspace is larger than every
// block they refer to, and none of those can be it.
func (rec *recorder) grow(need int, ts []npushim.Tensor) error {
	size := roundSize(need)
	for _, t := range ts {
		if t.NDim < 0 {
			continue
		}
		size = max(size, roundSize(int(t.Storage)*8)+unit) // 8: the widest element
	}
	ws, err := Allocate(rec.dev, size)
	if err != nil {
		return err
	}
	if rec.ws != nil {
		rec.ws.Release() // the stream runs the launches that used it first
	}
	rec.ws = ws
	wsHint.Lock()
	wsHint.n[rec.dev%len(wsHint.n)] = max(wsHint.n[rec.dev%len(wsHint.n)], roundSize(need))
	wsHint.Unlock()
	return nil
}

// A block given back while the launches that read it are only recorded
// must not reach another goroutine, whose work could reach the stream
// first: it goes to the batch's own pool, from which the batch's later
// allocations of its size take it (their launches are recorded after the
// readers'), and to the caching allocator once the launches are submitted.

// toBatchPool keeps b in the calling goroutine's batch pool, if it runs a
// batch; it reports whether it did.
func toBatchPool(b *block) bool {
	rec, ok := recording.Get()
	if !ok || rec.submitting || b.size == 0 || len(b.usedOn) > 0 {
		return false
	}
	rec.pool = append(rec.pool, b)
	return true
}

// fromBatchPool takes a block of key k from the calling goroutine's batch
// pool (nil when there is none). The block counts as allocated already.
func fromBatchPool(dev int, k key) *block {
	rec, ok := recording.Get()
	if !ok || rec.submitting {
		return nil
	}
	for i, b := range rec.pool {
		if b.dev == dev && b.size == k.size && b.stream == k.stream {
			rec.pool = append(rec.pool[:i], rec.pool[i+1:]...)
			c := &caches[dev]
			c.mu.Lock()
			c.allocated -= int64(b.size) // Allocate counts it again
			c.mu.Unlock()
			return b
		}
	}
	return nil
}

// releasePool gives the pool's blocks to the caching allocator: the
// launches that read them are submitted.
func (rec *recorder) releasePool() {
	for _, b := range rec.pool {
		caches[b.dev].put(b)
	}
	rec.pool = rec.pool[:0]
}
