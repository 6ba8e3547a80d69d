package dispatch

import (
	"sync"
	"sync/atomic"

	"github.com/mindtorch/mindtorch/internal/goroutine"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Pipeline is a queue of captured calls: inside WithPipeline, the calling
// goroutine's ops on the CPU that make new tensors are prepared (their meta
// functions run, so shapes, dtypes and errors are known at once) and
// queued instead of run; their outputs are Pending memory. A flush runs
// the queue in program order, as one Batch per device. Everything else
// runs at once, after computing the pending memory it reads and running
// the queued calls that read memory it writes, so that the results are
// those of eager execution.
//
// A pipeline belongs to the goroutine that captures into it; any
// goroutine may flush it (by reading one of its outputs, for example).
type Pipeline struct {
	flushMu sync.Mutex   // held while a flush runs
	flusher atomic.Int64 // the goroutine running a flush, 0 when none

	maxOps, maxBytes int

	// Guarded by mu.
	queue  []*node
	bytes  int
	err    error // the first failure of a flush not yet reported
	closed bool
}

// Default bounds of a pipeline: past them a capture flushes the queue.
const (
	DefaultMaxOps   = 1024
	DefaultMaxBytes = 1 << 30
)

// NewPipeline makes an empty pipeline that flushes by itself when more
// than maxOps calls are queued or their outputs hold more than maxBytes
// (values <= 0 take the defaults).
func NewPipeline(maxOps, maxBytes int) *Pipeline {
	if maxOps <= 0 {
		maxOps = DefaultMaxOps
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Pipeline{maxOps: maxOps, maxBytes: maxBytes}
}

// current is the pipeline of each goroutine inside WithPipeline (nil while
// it flushes, and inside Eager).
var current goroutine.Local[*Pipeline]

// WithPipeline runs f with pl capturing the calling goroutine's ops, then
// restores what the goroutine had (also when f panics). Other goroutines,
// including those f starts, are not affected.
func WithPipeline(pl *Pipeline, f func()) { current.With(pl, f) }

// Eager runs f with the calling goroutine's ops running at once, even
// inside WithPipeline.
func Eager(f func()) {
	if pl, _ := current.Get(); pl == nil {
		f()
		return
	}
	current.With(nil, f)
}

// Pipelined reports whether the calling goroutine's ops are captured by a
// pipeline.
func Pipelined() bool {
	pl, _ := current.Get()
	return pl != nil
}

// FlushCurrent flushes the calling goroutine's pipeline, if it has one
// (see Flush); nil otherwise.
func FlushCurrent() error {
	if pl, _ := current.Get(); pl != nil {
		return pl.Flush()
	}
	return nil
}

// Flush runs every queued call and returns the first failure since the
// last report (the failing call's error; the outputs of the calls that
// depend on it carry it too). The pipeline is empty and usable afterwards.
func (pl *Pipeline) Flush() error {
	pl.flush()
	mu.Lock()
	defer mu.Unlock()
	err := pl.err
	pl.err = nil
	return err
}

// Close flushes the pipeline (see Flush) and refuses later captures.
func (pl *Pipeline) Close() error {
	err := pl.Flush()
	mu.Lock()
	pl.closed = true
	mu.Unlock()
	return err
}

// Len is the number of calls queued.
func (pl *Pipeline) Len() int {
	mu.Lock()
	defer mu.Unlock()
	return len(pl.queue)
}

// flush runs the queue (nothing when the calling goroutine is already
// flushing pl). Failures are recorded in the outputs and in pl.err.
func (pl *Pipeline) flush() {
	me := goroutine.ID()
	if pl.flusher.Load() == me {
		return
	}
	pl.flushMu.Lock()
	pl.flusher.Store(me)
	defer func() {
		pl.flusher.Store(0)
		pl.flushMu.Unlock()
	}()
	mu.Lock()
	batch := pl.queue
	pl.queue, pl.bytes = nil, 0
	for _, n := range batch {
		n.state = running
	}
	mu.Unlock()
	if len(batch) == 0 {
		return
	}
	var err error
	Eager(func() { err = runNodes(batch, nil) })
	if err != nil {
		mu.Lock()
		if pl.err == nil {
			pl.err = err
		}
		mu.Unlock()
	}
}

// capturing returns the calling goroutine's pipeline when it may capture
// c: a call on the CPU or an NPU whose outputs are new, that draws no
// random numbers and reads only memory of its own device (and, once
// prepared, is deferrable).
func capturing(c *kernel.Call) *Pipeline {
	pl, _ := current.Get()
	if pl == nil || c.OutGiven || c.Dynamic || c.Random != nil || len(c.Out) == 0 ||
		(c.Device.Type != device.CPU && c.Device.Type != device.NPU) {
		return nil
	}
	for i := range c.In {
		if c.In[i].Mem == nil || c.In[i].Mem.Device() != c.Device {
			return nil
		}
	}
	return pl
}

// valueChecked marks the ops whose kernels can fail on the values of
// their inputs (an index out of range, a matrix that does not converge):
// a pipeline runs them at once, so that their errors reach the code that
// called them, as in eager execution, and never a flush.
var valueChecked = func() (m [kernel.NumOps]bool) {
	for _, op := range []kernel.OpID{kernel.OpIndexSelect, kernel.OpGather, kernel.OpScatter, kernel.OpScatterAdd,
		kernel.OpScatterReduce, kernel.OpIndexAdd, kernel.OpSvd} {
		m[op] = true
	}
	return m
}()

// deferrable reports whether a prepared call that the pipeline would
// capture can run later: its outputs' shapes do not depend on the data,
// and its kernel cannot fail on the values (valueChecked; integer division
// and remainder fail on a zero divisor).
func deferrable(c *kernel.Call) bool {
	if c.Dynamic || valueChecked[c.Op] {
		return false
	}
	switch c.Op {
	case kernel.OpDiv, kernel.OpRemainder, kernel.OpFmod:
		return c.ComputeDType.IsFloatingPoint()
	}
	return true
}

// capture queues a copy of c, prepared, in pl; c's outputs are bound to
// Pending memory. It returns the error of a pending input whose call
// failed.
func (pl *Pipeline) capture(c *kernel.Call) error {
	var pendAt []*Pending
	for i := range c.In {
		p, ok := c.In[i].Mem.(*Pending)
		if !ok {
			continue
		}
		if err := pl.dependOn(p); err != nil {
			return err
		}
		if pendAt == nil {
			pendAt = make([]*Pending, len(c.In))
		}
		pendAt[i] = p
	}
	n := &node{call: cloneCall(c), pendAt: pendAt, pipe: pl, seq: seq.Add(1)}
	n.opKeys, n.keys = inputKeys(c)
	bytes := 0
	for i := range c.Out {
		p := &Pending{dev: c.Device, nbytes: OutputBytes(&c.Out[i]), node: n, key: new(aliasKey)}
		n.outs = append(n.outs, p)
		n.call.Out[i].Mem = p
		c.Out[i].Mem, c.Out[i].Ptr = p, nil
		bytes += p.nbytes
	}
	register(n)
	mu.Lock()
	if pl.closed {
		mu.Unlock()
		unregister(n)
		return kernel.Errorf(kernel.ErrRuntime, "the op was captured by a pipeline that was closed")
	}
	pl.queue = append(pl.queue, n)
	pl.bytes += bytes
	full := len(pl.queue) >= pl.maxOps || pl.bytes >= pl.maxBytes
	mu.Unlock()
	if full {
		pl.flush()
	}
	return nil
}

// seq numbers captured calls in program order.
var seq atomic.Uint64

// dependOn checks a pending input of a call pl captures: the error of its
// call if that failed; a call queued in another pipeline runs first (a
// batch reads only its own pipeline's queue and memory already computed).
func (pl *Pipeline) dependOn(p *Pending) error {
	for {
		mu.Lock()
		n, err := p.node, p.err
		var other *Pipeline
		if n != nil && (n.state == queued || n.state == running) && n.pipe != pl {
			other = n.pipe
		}
		mu.Unlock()
		if err != nil {
			return err
		}
		if other == nil {
			return nil
		}
		if other.flusher.Load() == goroutine.ID() {
			return kernel.Errorf(kernel.ErrRuntime, "internal error: a flush captured an op")
		}
		other.flush()
	}
}

// cloneCall copies c with everything it refers to (shapes, strides,
// dims), so that the copy outlives c, which returns to the pool, and the
// tensors whose layout c borrowed.
func cloneCall(c *kernel.Call) *kernel.Call {
	d := NewCall(c.Op, c.Device, len(c.In), len(c.Out)) // freed by runBatch once its outputs are stored
	n := len(c.Dims) + len(c.Ints)
	for _, ops := range [][]kernel.Operand{c.In, c.Out} {
		for i := range ops {
			n += 2 * len(ops[i].Shape)
		}
	}
	ints := make([]int, 0, n)
	take := func(s []int) []int {
		if s == nil {
			return nil
		}
		at := len(ints)
		ints = append(ints, s...)
		return ints[at:len(ints):len(ints)]
	}
	for k, ops := range [][]kernel.Operand{c.In, c.Out} {
		dst := d.In
		if k == 1 {
			dst = d.Out
		}
		for i, o := range ops {
			o.Shape, o.Strides = take(o.Shape), take(o.Strides)
			dst[i] = o
		}
	}
	d.OutGiven, d.Scalars, d.Dims, d.Dim, d.KeepDim = c.OutGiven, c.Scalars, take(c.Dims), c.Dim, c.KeepDim
	d.DType, d.HasDType, d.Mode, d.Ints, d.Random = c.DType, c.HasDType, c.Mode, take(c.Ints), c.Random
	d.Dynamic, d.ComputeDType = c.Dynamic, c.ComputeDType
	return d
}
