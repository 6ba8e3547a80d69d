package cpu

import (
	"slices"
	"sync"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// A pipeline's batch on the CPU: runs of consecutive pointwise ops in one
// floating dtype over one shape (each input of the shape, broadcast to
// it, or a scalar) become one C call (fused.c) that walks memory once,
// block by block, through the ops' own loops; a result read only inside
// its chain lives in a block buffer and is never allocated. A sum or mean
// of all of a chain's result that follows it joins it (fuse_sum.go), as
// does a reduction or softmax along its last dimensions (fuse_rows.go).
// Every other call runs alone.

func init() { kernel.RegisterBatch(device.CPU, runBatch) }

// runBatch is the CPU's kernel.BatchFunc.
func runBatch(b *kernel.Batch) (int, error) {
	for i := 0; i < len(b.Calls); {
		end := chainEnd(b, i)
		if summed, ok := sumsChain(b, i, end); ok {
			if done, err := runChainSum(b, i, end, summed); err != nil {
				return done, err
			}
			i = end + 1
			continue
		}
		if rr, ok := reducesRows(b, i, end); ok {
			if done, err := runChainRows(b, i, end, rr); err != nil {
				return done, err
			}
			i = end + 1
			continue
		}
		if end-i < 2 {
			if err := b.Run(i); err != nil {
				return i, err
			}
			i++
			continue
		}
		if done, err := runChain(b, i, end); err != nil {
			return done, err
		}
		i = end
	}
	return len(b.Calls), nil
}

// chainEnd returns the end of the chain of calls that starts at i: the
// first call after i that cannot join it (i+1 when i cannot start one).
func chainEnd(b *kernel.Batch, i int) int {
	if !startsChain(b, i) {
		return i + 1
	}
	o := &b.Calls[i].Out[0]
	slots := 0
	end := i
	for end < len(b.Calls) && end-i < cpukernels.MaxFusedSteps {
		c := b.Calls[end]
		if end > i && (!fusable(c) || c.Out[0].DType != o.DType || !slices.Equal(c.Out[0].Shape, o.Shape) ||
			!readsChain(b, i, end) || !planFits(b, i, end)) {
			break
		}
		slots += len(c.In) + 2 // at most: its inputs, a Go scalar, its output
		if slots > cpukernels.MaxFusedSlots {
			break
		}
		end++
	}
	return end
}

// startsChain reports whether call i can start a chain.
func startsChain(b *kernel.Batch, i int) bool { return fusable(b.Calls[i]) && planFits(b, i, i) }

// planFits reports whether call m, in a chain that starts at call i, can
// run in the chain's blocks as it runs alone. A step whose inputs are all
// dense (or one element, or the chain's own results) runs its loop over
// each block, and the blocks start at whole vectors from the start of the
// share of the pool that holds them, as its loop does alone: each element
// falls in the loop's vectorised body or in its remainder, which the
// compiler may round differently (a NaN's sign), as it does alone. A step
// that walks a plan (a strided or broadcast input) runs a loop per row of
// the plan, which alone starts at each row's start: it fits only when the
// rows and the shares are whole vectors, so that no block cuts a row
// where a loop alone would not.
func planFits(b *kernel.Batch, i, m int) bool {
	c := b.Calls[m]
	o := &c.Out[0]
	plan := false
	for k := range c.In {
		in := &c.In[k]
		if kernel.Numel(in.Shape) == 1 || (slices.Equal(in.Shape, o.Shape) && kernel.IsContiguous(in.Shape, in.Strides)) {
			continue
		}
		ours := false
		for p := i; p < m && !ours; p++ {
			ours = in.Mem == b.Calls[p].Out[0].Mem
		}
		plan = plan || !ours
	}
	if !plan {
		return true
	}
	inner := 1 // the innermost dim of more than one element: the plan's rows are whole multiples of it
	for d := len(o.Shape) - 1; d >= 0; d-- {
		if o.Shape[d] != 1 {
			inner = o.Shape[d]
			break
		}
	}
	n := kernel.Numel(o.Shape)
	if inner%cpukernels.VecElems != 0 {
		return false
	}
	if n < grain {
		return true
	}
	startPool() // the pool the shares come from
	return cpukernels.ParallelChunk(n, grain/2)%cpukernels.VecElems == 0
}

// readsChain reports whether call end reads the outputs of calls i to
// end-1 only as they are laid out (dense, the chain's shape): a chain's
// result in a buffer has no other layout.
func readsChain(b *kernel.Batch, i, end int) bool {
	for k := range b.Calls[end].In {
		in := &b.Calls[end].In[k]
		for m := i; m < end; m++ {
			if out := &b.Calls[m].Out[0]; in.Mem == out.Mem && !sameLayout(in, out) {
				return false
			}
		}
	}
	return true
}

func sameLayout(a, b *kernel.Operand) bool {
	return a.Offset == b.Offset && a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && slices.Equal(a.Strides, b.Strides)
}

// fusable reports whether a call can be a step of a chain: a pointwise op
// with a C loop computing in the dtype of its inputs and of its dense
// output (float32 or float64: no cast anywhere), of more elements than
// the small-tensor path computes in Go (whose NaNs may carry other bits
// than the C loops').
func fusable(c *kernel.Call) bool {
	if int(c.Op) >= len(isPointwise) || !isPointwise[c.Op] || len(c.Out) != 1 || cBoolOut[c.Op] ||
		c.Op == kernel.OpMaskedFill {
		return false
	}
	o := &c.Out[0]
	d := o.DType
	if (d != dtype.Float32 && d != dtype.Float64) || c.ComputeDType != d || o.Offset != 0 || kernel.Numel(o.Shape) <= smallLimit ||
		len(o.Shape) > cpukernels.MaxDims || !kernel.IsContiguous(o.Shape, o.Strides) {
		return false
	}
	if _, first := meta.PointwiseOperands(c); first != 0 {
		return false
	}
	for k := range c.In {
		if c.In[k].DType != d {
			return false
		}
	}
	n := len(c.In)
	if meta.ScalarOperand(c) || (c.Op == kernel.OpLerp && len(c.In) == 2) {
		n++
	}
	return n >= int(cInputs[c.Op]) && n <= 3 && hasLoop(cOp(c.Op, c.Mode), d)
}

// isPointwise marks the ops of the C engine.
var isPointwise = func() (m [kernel.NumOps]bool) {
	for _, op := range cPointwise {
		m[op] = true
	}
	return m
}()

var (
	loopsOnce sync.Once
	loops     map[[2]int]bool // (C op, dtype) pairs with a loop
)

// hasLoop reports whether C op has a loop in dtype d (asked of C once).
func hasLoop(op int, d dtype.DType) bool {
	loopsOnce.Do(func() {
		loops = map[[2]int]bool{}
		for op := range cpukernels.OpNumPointwise {
			for _, d := range []dtype.DType{dtype.Float32, dtype.Float64} {
				loops[[2]int{op, int(d)}] = cpukernels.HasLoop(op, int(d))
			}
		}
	})
	return loops[[2]int{op, int(d)}]
}
