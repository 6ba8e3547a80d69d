package cpu

import (
	"runtime"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
)

// A chain followed by a reduction or a softmax along the last dimensions
// of one of its results: the C engine computes the chain row by row into
// a row buffer and runs the reduction's own kernel over it, as the
// reduction alone runs it over each row of a contiguous array
// (mt_fused_rows), so that the values have the same bits; the reduced
// result is stored only if something else reads it. (Sums down columns
// were fused too, in the order of the sum alone, and ran slower than the
// ops one by one: the chain in pieces of a row, each thread reading every
// row. They run alone.)

// rowOps are the reductions that join a chain, by their C engine op.
var rowOps = map[kernel.OpID]int{
	kernel.OpSum: cpukernels.RSum, kernel.OpMean: cpukernels.RMean,
	kernel.OpAmax: cpukernels.RAmax, kernel.OpAmin: cpukernels.RAmin,
	kernel.OpLogSumExp: cpukernels.RLogSumExp,
	kernel.OpSoftmax:   cpukernels.RSoftmax, kernel.OpLogSoftmax: cpukernels.RLogSoftmax,
}

// maxFusedRow bounds the elements of a fused row, which one buffer per
// thread holds: past it, the reduction runs alone.
const maxFusedRow = 1 << 18

// rowReduction is a reduction that joins a chain: of the result of call
// of, along rows of r elements.
type rowReduction struct {
	of, rop, rows, r int
}

// reducesRows reports whether call end of b reduces the result of a call
// among i to end-1 (which chainEnd found fusable together) along its last
// dimensions, in the chain's dtype, into a contiguous output, as the
// reduction alone would reduce rows of a contiguous array.
func reducesRows(b *kernel.Batch, i, end int) (rowReduction, bool) {
	if end >= len(b.Calls) || !startsChain(b, i) {
		return rowReduction{}, false
	}
	c := b.Calls[end]
	d := b.Calls[i].Out[0].DType
	rop, ok := rowOps[c.Op]
	if !ok || len(c.In) != 1 || len(c.Out) != 1 || c.ComputeDType != d || reduceEngineDType(c.Op, d) != d ||
		c.Out[0].DType != d || !c.Out[0].IsContiguous() {
		return rowReduction{}, false
	}
	in := &c.In[0]
	of, ok := chainResult(b, i, end, in)
	if !ok {
		return rowReduction{}, false
	}
	var outer, r, inner int
	if c.Op == kernel.OpSoftmax || c.Op == kernel.OpLogSoftmax {
		outer, r, inner = split3(in.Shape, c.Dim)
	} else if outer, r, inner, ok = blockLayout(in.Shape, meta.ReducedMask(c, len(in.Shape))); !ok {
		return rowReduction{}, false
	}
	// One row that the reduction alone may split across threads is the
	// sum of all (fuse_sum.go) or runs alone.
	if inner != 1 || outer < 1 || r < 1 || r > maxFusedRow || (outer == 1 && splittable(rop)) {
		return rowReduction{}, false
	}
	return rowReduction{of: of, rop: rop, rows: outer, r: r}, true
}

// runChainRows runs calls i to end-1 and the reduction at end in one C
// call. It returns how far it got (see kernel.BatchFunc).
func runChainRows(b *kernel.Batch, i, end int, rr rowReduction) (int, error) {
	ch, slot, done, err := buildReduced(b, i, end, rr.of)
	if err != nil {
		return done, err
	}
	c := b.Calls[end]
	var a cpukernels.Attrs
	a.F[0] = c.Scalars[0].Float()
	// runReduce's split: by rows, when the work is large.
	g := 0
	if rr.rows*rr.r >= grain && runtime.GOMAXPROCS(0) > 1 {
		beginLarge()
		g = max(1, grain/2/rr.r)
	}
	// The chain's ops alone split as fuseChain splits them.
	og := 0
	if ch.n >= grain {
		og = grain / 2
	}
	err = cpukernels.FusedRows(int(ch.dtype), ch.steps, ch.slots, int(slot), rr.rop, rr.rows, rr.r, c.Out[0].Data(), &a, g, og)
	runtime.KeepAlive(ch)
	runtime.KeepAlive(b)
	if err = ch.failure(err); err != nil {
		return i, err
	}
	return end + 1, nil
}
