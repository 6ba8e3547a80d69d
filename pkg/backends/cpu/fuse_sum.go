package cpu

import (
	"runtime"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// A chain followed by a sum or a mean of all of one of its results: the C
// engine sums the values block by block as the chain computes them
// (mt_fused_sum), in the order and over the parts of the sum run alone
// (runReduce: one pairwise sum, or one per pool thread and then their
// sum), so that the value has the same bits; the summed result is stored
// only if something else reads it.

// sumsChain reports whether call end of b sums (or averages) every
// element of the result of a call among i to end-1 (which chainEnd found
// fusable together), in the chain's dtype, and which call that is.
func sumsChain(b *kernel.Batch, i, end int) (int, bool) {
	if end >= len(b.Calls) || !startsChain(b, i) {
		return 0, false
	}
	c := b.Calls[end]
	d := b.Calls[i].Out[0].DType
	if (c.Op != kernel.OpSum && c.Op != kernel.OpMean) || len(c.In) != 1 || len(c.Out) != 1 ||
		c.ComputeDType != d || c.Out[0].DType != d || kernel.Numel(c.Out[0].Shape) != 1 {
		return 0, false
	}
	return chainResult(b, i, end, &c.In[0])
}

// chainResult reports which call among i to end-1 made in, as laid out
// (dense, the chain's shape): what a reduction that joins the chain reads.
func chainResult(b *kernel.Batch, i, end int, in *kernel.Operand) (int, bool) {
	for m := i; m < end; m++ {
		if out := &b.Calls[m].Out[0]; in.Mem == out.Mem && sameLayout(in, out) {
			return m, true
		}
	}
	return 0, false
}

// buildReduced gives memory to the stored results of calls i to end-1
// and to the result of the reduction at end, and describes the chain for
// the C engine, with the slot of call of's result, which the reduction
// reads. When it cannot, it returns how far it got (see kernel.BatchFunc)
// and the error: the calls before a failed allocation run alone.
func buildReduced(b *kernel.Batch, i, end, of int) (*chain, int32, int, error) {
	if m, err := allocChain(b, i, end, end+1); err != nil {
		return nil, 0, m, err
	}
	if err := b.Alloc(end); err != nil {
		for k := i; k < end; k++ {
			if err := b.Run(k); err != nil {
				return nil, 0, k, err
			}
		}
		return nil, 0, end, err
	}
	ch, err := buildChain(b, i, end, end+1)
	if err != nil {
		return nil, 0, i, err
	}
	slot, _ := ch.producedSlot(b.Calls[of].Out[0].Mem)
	return ch, slot, 0, nil
}

// runChainSum runs calls i to end-1 and the sum at end (of the result of
// call summed) in one C call. It returns how far it got (see
// kernel.BatchFunc).
func runChainSum(b *kernel.Batch, i, end, summed int) (int, error) {
	ch, slot, done, err := buildReduced(b, i, end, summed)
	if err != nil {
		return done, err
	}
	// runReduce's split: by the pool's threads when the sum is large.
	split := 0
	if ch.n >= grain && runtime.GOMAXPROCS(0) > 1 {
		beginLarge()
		split = grain / 2
	}
	out := &b.Calls[end].Out[0]
	err = cpukernels.FusedSum(int(ch.dtype), ch.n, ch.steps, ch.slots, int(slot), split, out.Data())
	runtime.KeepAlive(ch)
	runtime.KeepAlive(b)
	if err = ch.failure(err); err != nil {
		return i, err
	}
	if b.Calls[end].Op == kernel.OpMean { // in the result's precision, as the kernel divides
		divideMean(out, ch.n)
	}
	return end + 1, nil
}

// divideMean divides the one value of o (float32 or float64) by n.
func divideMean(o *kernel.Operand, n int) {
	p := o.Data()
	if o.DType.ItemSize() == 4 {
		v := (*float32)(p)
		*v /= float32(n)
		return
	}
	v := (*float64)(p)
	*v /= float64(n)
}
