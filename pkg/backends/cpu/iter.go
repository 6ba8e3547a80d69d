package cpu

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// grain is the number of elements below which an op runs on the caller's
// thread alone: splitting smaller work costs more than it saves (larger
// ops go to the worker pool, pool.go).
const grain = 1 << 15

// iter is the iteration state of one op: the plan the C engine walks and
// the base address of each operand. iters are pooled.
type iter struct {
	plan    *cpukernels.Plan // a pointer-free allocation of its own, which C may read
	ptrs    [cpukernels.MaxOps]unsafe.Pointer
	numel   int
	scratch *[cpukernels.MaxOps]uint64 // Go scalars as one-element operands (a pointer-free allocation C may read)
	perm    [cpukernels.MaxDims]int
	planDim [cpukernels.MaxDims]int          // the plan dim each dim of the op's shape went to (-1: dropped, size 1)
	keep    [cpukernels.MaxOps]kernel.Memory // the operands' memory, alive until put
}

var iterPool = sync.Pool{New: func() any { return &iter{plan: new(cpukernels.Plan), scratch: new([cpukernels.MaxOps]uint64)} }}

func getIter() *iter { return iterPool.Get().(*iter) }

func (it *iter) put() {
	it.ptrs = [cpukernels.MaxOps]unsafe.Pointer{}
	it.keep = [cpukernels.MaxOps]kernel.Memory{}
	iterPool.Put(it)
}

// operand is one operand of a plan: data at the first element, element
// strides (aligned to the right of the op's shape, as broadcasting aligns
// them), and the element size.
type operand struct {
	mem     kernel.Memory // keeps the memory (and its buffer) alive during the kernel
	data    unsafe.Pointer
	shape   []int
	strides []int
	size    int
}

func opnd(o *kernel.Operand) operand {
	return operand{mem: o.Mem, data: o.Data(), shape: o.Shape, strides: o.Strides, size: o.DType.ItemSize()}
}

// build makes the plan for shape over ops (ops[0] is the output): byte
// strides with broadcast dims at zero, dims ordered fastest first as the
// output's (then the inputs') memory order, size-1 dims dropped, and
// neighbouring dims merged where every operand allows.
func (it *iter) build(shape []int, ops []operand) {
	nd, nops := len(shape), len(ops)
	p := it.plan
	p.NOps = int64(nops)
	it.numel = kernel.Numel(shape)
	for k := range ops {
		it.ptrs[k] = ops[k].data
		it.keep[k] = ops[k].mem
	}
	if flat(shape, ops) {
		for d := range nd {
			it.planDim[d] = 0
			if shape[d] == 1 {
				it.planDim[d] = -1
			}
		}
		p.NDim, p.Shape[0] = 1, int64(it.numel)
		for k := range ops {
			p.Strides[k][0] = 0
			if len(ops[k].shape) > 0 {
				p.Strides[k][0] = int64(ops[k].size)
			}
		}
		return
	}
	// Byte strides per dim, in the op's order (last dim fastest).
	var st [cpukernels.MaxOps][cpukernels.MaxDims]int64
	n := 0
	for d := 0; d < nd; d++ {
		it.planDim[d] = -1
		if shape[d] == 1 {
			continue
		}
		for k := range ops {
			o := &ops[k]
			od := d - (nd - len(o.shape))
			if od >= 0 && o.shape[od] != 1 {
				st[k][n] = int64(o.strides[od] * o.size)
			} else {
				st[k][n] = 0
			}
		}
		it.perm[n] = d
		n++
	}
	// Fastest first: reverse, then sort by strides as TensorIterator does.
	order := it.perm[:n]
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	var pos [cpukernels.MaxDims]int
	for i := range n {
		pos[i] = n - 1 - i // column of st for the i-th fastest dim
	}
	if n > 1 && !contiguousAll(&st, nops, pos[:n], n) {
		insertionOrder(&st, nops, pos[:n], shape, order)
	}
	// Fill the plan, merging dims where every operand allows.
	nd2 := 0
	for i := range n {
		col := pos[i]
		size := int64(shape[order[i]])
		if nd2 > 0 {
			prev := nd2 - 1
			ok := true
			for k := range nops {
				if st[k][col] != p.Shape[prev]*p.Strides[k][prev] {
					ok = false
					break
				}
			}
			if ok {
				p.Shape[prev] *= size
				it.planDim[order[i]] = prev
				continue
			}
		}
		it.planDim[order[i]] = nd2
		p.Shape[nd2] = size
		for k := range nops {
			p.Strides[k][nd2] = st[k][col]
		}
		nd2++
	}
	p.NDim = int64(nd2)
}

// flat reports whether the op walks every operand in one run of elements:
// each is contiguous with the op's shape, or a single broadcast element
// (a 0-dim tensor or a Go scalar). Most ops are flat; their plan needs no
// sorting or merging.
func flat(shape []int, ops []operand) bool {
	for k := range ops {
		o := &ops[k]
		if len(o.shape) == 0 {
			continue
		}
		if !slices.Equal(o.shape, shape) || !kernel.IsContiguous(o.shape, o.strides) {
			return false
		}
	}
	return true
}

// contiguousAll reports whether the fastest-first order already has
// ascending strides for every operand (the common case: nothing to sort).
func contiguousAll(st *[cpukernels.MaxOps][cpukernels.MaxDims]int64, nops int, pos []int, n int) bool {
	for k := range nops {
		for i := 1; i < n; i++ {
			a, b := st[k][pos[i-1]], st[k][pos[i]]
			if a != 0 && b != 0 && a > b {
				return false
			}
		}
	}
	return true
}

// insertionOrder sorts dims (given as columns pos of st and dims order,
// fastest first) so that an operand's smaller strides come first, the
// output deciding before the inputs, zero strides not deciding:
// kernel.ReorderDims, TensorIterator's reorder_dimensions, which the meta
// functions also lay out outputs with.
func insertionOrder(st *[cpukernels.MaxOps][cpukernels.MaxDims]int64, nops int, pos []int, shape []int, order []int) {
	n := len(pos)
	var idx, pos0, order0 [cpukernels.MaxDims]int
	copy(pos0[:n], pos)
	copy(order0[:n], order)
	for i := range n {
		idx[i] = i
	}
	kernel.ReorderDims(idx[:n], nops, func(k, i int) int64 { return st[k][pos0[i]] },
		func(i int) int { return shape[order0[i]] })
	for i, j := range idx[:n] {
		pos[i], order[i] = pos0[j], order0[j]
	}
}

// rowMajorPlan makes p a one-operand plan over shape in logical order
// (last dim fastest, no reordering), size-1 dims dropped and neighbours
// merged: the order in which errors about elements are reported.
func rowMajorPlan(p *cpukernels.Plan, shape, strides []int, size int) {
	p.NOps = 1
	n := 0
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] == 1 {
			continue
		}
		st := int64(strides[d] * size)
		if n > 0 && st == p.Shape[n-1]*p.Strides[0][n-1] {
			p.Shape[n-1] *= int64(shape[d])
			continue
		}
		p.Shape[n], p.Strides[0][n] = int64(shape[d]), st
		n++
	}
	p.NDim = int64(n)
}
