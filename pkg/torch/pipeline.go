package torch

import (
	"errors"
	"sync/atomic"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Pipe is the pipeline of a Pipeline scope: the ops the scope's goroutine
// called on CPU and NPU tensors and that have not run yet.
type Pipe struct {
	pl     *dispatch.Pipeline
	closed atomic.Bool
}

// PipeOption configures a Pipeline.
type PipeOption func(*pipeConfig)

type pipeConfig struct{ maxOps, maxBytes int }

// PipeMaxOps bounds the ops a pipeline holds: capturing one more runs them
// all first (default dispatch.DefaultMaxOps).
func PipeMaxOps(n int) PipeOption { return func(c *pipeConfig) { c.maxOps = n } }

// PipeMaxBytes bounds the bytes of the results of the ops a pipeline
// holds: past it, the pipeline runs them (default dispatch.DefaultMaxBytes).
func PipeMaxBytes(n int) PipeOption { return func(c *pipeConfig) { c.maxBytes = n } }

// Pipeline runs f with a pipeline: until f returns, the ops that f's
// goroutine calls on CPU or NPU tensors and that make new tensors are not run at
// once but queued, and return pending tensors, whose shape, dtype and
// strides (and any error the op's arguments cause) are known at once.
// Reading a pending tensor's data (Item, ToSlice, String, To, Err, an op
// that is not queued) runs what it depends on; a backward pass is queued
// too, and run before Backward returns; Flush runs the
// queue, and so does leaving the scope, which returns f's error joined
// with the first failure of an op that ran. Queued chains of pointwise ops
// over one shape in float32 or float64 run as one pass over memory, in
// blocks that fit the cache, and their results that only the chain reads
// take no memory (they are computed again if they are read later). On
// an NPU, a flush launches all its ops in one call to the shim, and gives
// a result that only later ops of the flush read back to the caching
// allocator as soon as its last reader is launched.
//
// Queuing costs a few microseconds an op on the host (a copy of the call,
// its pending outputs, the registry of what it reads): a chain of 4
// pointwise ops on 1000 floats takes about 13 us in a pipeline against 5
// at once on the CPU (BenchmarkChainSmall, 1 thread). On 10^4 floats the
// pipeline is already faster than eager code that leaves its
// intermediates to the collector (25 against 31 us), and beyond that
// passes over memory dominate.
//
// The results are those of running the ops at once, bit for bit: ops run
// in program order, a write into a tensor (an in-place op, which runs at
// once) first runs the queued ops that read it, views and autograd work on
// pending tensors. An op that fails when it runs gives its error to the
// tensors that depend on it and to the pipeline; the others run.
//
// The pipeline belongs to the calling goroutine: other goroutines, those
// f starts included, run their ops at once unless they are in a Pipeline
// of their own, and two pipelines never hold each other's ops. A
// goroutine that reads a tensor pending in another's pipeline runs that
// pipeline. Pipelines nest: an inner one is a pipeline of its own.
func Pipeline(f func(p *Pipe) error, opts ...PipeOption) (err error) {
	var cfg pipeConfig
	for _, o := range opts {
		o(&cfg)
	}
	p := &Pipe{pl: dispatch.NewPipeline(cfg.maxOps, cfg.maxBytes)}
	defer func() {
		p.closed.Store(true)
		if cerr := p.pl.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	dispatch.WithPipeline(p.pl, func() { err = f(p) })
	return err
}

// Flush runs every queued op and returns the first failure since the last
// report: the failing op's error (the tensors that depend on it carry it
// too). The pipeline stays usable. Flushing a pipeline whose scope has
// ended is an error.
func (p *Pipe) Flush() error {
	if p == nil || p.pl == nil || p.closed.Load() {
		e := kernel.Errorf(ErrArgument, "the pipeline's scope has ended (or the Pipe was not made by Pipeline)")
		e.Op = "pipeline_flush"
		return e
	}
	return p.pl.Flush()
}

// Len is the number of ops queued.
func (p *Pipe) Len() int {
	if p == nil || p.pl == nil {
		return 0
	}
	return p.pl.Len()
}
