package cpu

import (
	"runtime"
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// chain is the C description of a fused chain being built: its slots, its
// steps, and what they refer to.
type chain struct {
	slots    []cpukernels.FusedSlot
	steps    []cpukernels.FusedStep
	plans    []*cpukernels.Plan // of the steps that walk a plan
	inputs   []*kernel.Operand  // the input of each slot (nil for the chain's results)
	produced []result           // the chain's results so far
	scalars  []uint64           // the Go scalars the steps read (pointer-free, addressed by C)
	n        int                // elements of the chain's shape
	dtype    dtype.DType        // the dtype of every step
}

// result is the slot of a result of the chain, by its (pending) memory.
type result struct {
	mem  kernel.Memory
	slot int32
}

// producedSlot returns the slot of the chain's latest result in memory m,
// if there is one (a chain has at most cpukernels.MaxFusedSteps results:
// a scan beats a map).
func (ch *chain) producedSlot(m kernel.Memory) (int32, bool) {
	for k := len(ch.produced) - 1; k >= 0; k-- {
		if ch.produced[k].mem == m {
			return ch.produced[k].slot, true
		}
	}
	return 0, false
}

// runChain runs calls i to end-1 of b, which chainEnd found fusable
// together, in one C call. Results that only later calls of the chain
// read get a block buffer; the others memory, which the chain writes. It
// returns how far it got (see kernel.BatchFunc).
func runChain(b *kernel.Batch, i, end int) (int, error) {
	if m, err := allocChain(b, i, end, end); err != nil {
		return m, err
	}
	if err := fuseChain(b, i, end); err != nil {
		return i, err
	}
	return end, nil
}

// allocChain gives memory to the results of calls i to end-1 that are
// stored: those read at or after call until (end, or past a sum that
// joins the chain) or wanted by someone. When an allocation fails, the
// calls before it run alone and the index of the failing call is returned
// with its error (or that of a call before it that failed).
func allocChain(b *kernel.Batch, i, end, until int) (int, error) {
	for m := i; m < end; m++ {
		if b.Internal(m, until) {
			continue
		}
		if err := b.Alloc(m); err != nil {
			for k := i; k < m; k++ {
				if err := b.Run(k); err != nil {
					return k, err
				}
			}
			return m, err
		}
	}
	return end, nil
}

// fuseChain runs calls i to end-1, their stored results allocated, as one
// C call; an error is the first call's.
func fuseChain(b *kernel.Batch, i, end int) error {
	ch, err := buildChain(b, i, end, end)
	if err != nil {
		return err
	}
	n, g := ch.n, 0
	if n >= grain {
		beginLarge()
		g = grain / 2
	}
	err = cpukernels.Fused(int(ch.dtype), n, ch.steps, ch.slots, g)
	runtime.KeepAlive(ch)
	runtime.KeepAlive(b)
	return ch.failure(err)
}

// failure is the error of a chain's C call that returned err.
func (ch *chain) failure(err error) error {
	switch err {
	case nil:
		return nil
	case cpukernels.ErrNoMem:
		return kernel.Errorf(kernel.ErrOutOfMemory, "CPU: out of memory for the block buffers of a fused chain")
	}
	return kernel.Errorf(kernel.ErrNotImplemented, "a fused chain of %d ops in %s: %v", len(ch.steps), kernel.PyName(ch.dtype), err)
}

// buildChain describes calls i to end-1, their stored results allocated
// (see allocChain for until), for the C engine.
func buildChain(b *kernel.Batch, i, end, until int) (*chain, error) {
	o := &b.Calls[i].Out[0]
	shape, d := slices.Clone(o.Shape), o.DType
	steps := end - i
	ch := &chain{ // room for a result and a new input a step, and one more, as most chains need
		produced: make([]result, 0, steps),
		scalars:  make([]uint64, steps),
		steps:    make([]cpukernels.FusedStep, 0, steps),
		slots:    make([]cpukernels.FusedSlot, 0, 2*steps+1),
		inputs:   make([]*kernel.Operand, 0, 2*steps+1),
	}
	for m := i; m < end; m++ {
		c := b.Calls[m]
		step := cpukernels.FusedStep{Op: int32(cOp(c.Op, c.Mode))}
		bits, scalar := loopAttrs(c, d, &step.Attrs)
		strided := false
		for k := range c.In {
			slot, ok := ch.producedSlot(c.In[k].Mem)
			if !ok {
				if err := b.Resolve(m, k); err != nil {
					return nil, err
				}
				slot = ch.input(&c.In[k], shape)
				strided = strided || ch.slots[slot].Kind == cpukernels.SlotStrided
			}
			step.In[step.NIn] = slot
			step.NIn++
		}
		if scalar {
			ch.scalars[m-i] = bits
			step.In[step.NIn] = ch.add(cpukernels.FusedSlot{Kind: cpukernels.SlotConst,
				Data: uint64(uintptr(unsafe.Pointer(&ch.scalars[m-i])))}, nil)
			step.NIn++
		}
		out := &c.Out[0]
		key := out.Mem // the pending memory later calls read
		if b.Internal(m, until) {
			step.Out = ch.add(cpukernels.FusedSlot{Kind: cpukernels.SlotBuffer}, nil)
		} else {
			step.Out = ch.add(cpukernels.FusedSlot{Kind: cpukernels.SlotDense, Data: uint64(uintptr(out.Data()))}, nil)
		}
		ch.produced = append(ch.produced, result{key, step.Out})
		if strided {
			step.Plan = ch.plan(c, scalar)
		}
		ch.steps = append(ch.steps, step)
	}
	ch.n, ch.dtype = kernel.Numel(shape), d
	return ch, nil
}

// add appends a slot (for input in, nil for a result) and returns its index.
func (ch *chain) add(s cpukernels.FusedSlot, in *kernel.Operand) int32 {
	ch.slots = append(ch.slots, s)
	ch.inputs = append(ch.inputs, in)
	return int32(len(ch.slots) - 1)
}

// input returns the slot of an input from outside the chain, resolved to
// memory: the slot of the same view if one was added, else a new one (one
// element read everywhere, memory walked contiguously, or strided).
func (ch *chain) input(in *kernel.Operand, shape []int) int32 {
	for s, prev := range ch.inputs {
		if prev != nil && prev.Mem == in.Mem && sameLayout(prev, in) {
			return int32(s)
		}
	}
	kind := int64(cpukernels.SlotStrided)
	switch {
	case kernel.Numel(in.Shape) == 1:
		kind = cpukernels.SlotConst
	case slices.Equal(in.Shape, shape) && kernel.IsContiguous(in.Shape, in.Strides):
		kind = cpukernels.SlotDense
	}
	return ch.add(cpukernels.FusedSlot{Kind: kind, Data: uint64(uintptr(in.Data()))}, in)
}

// plan returns the address of the plan call c would walk alone (its
// result dense, the chain's results it reads dense too), which a step
// with a strided input walks its blocks through: each element then takes
// the branch of the loop it takes when the op runs alone, and gets the
// same bits (a NaN's payload included).
func (ch *chain) plan(c *kernel.Call, scalar bool) uint64 {
	o := &c.Out[0]
	size := o.DType.ItemSize()
	ops := make([]operand, 0, cpukernels.MaxOps)
	ops = append(ops, operand{shape: o.Shape, strides: o.Strides, size: size})
	for k := range c.In {
		in := &c.In[k]
		if _, ours := ch.producedSlot(in.Mem); ours {
			ops = append(ops, operand{shape: o.Shape, strides: o.Strides, size: size})
		} else {
			ops = append(ops, operand{shape: in.Shape, strides: in.Strides, size: size})
		}
	}
	if scalar {
		ops = append(ops, operand{size: size})
	}
	it := getIter()
	it.build(o.Shape, ops)
	p := new(cpukernels.Plan)
	*p = *it.plan
	it.put()
	ch.plans = append(ch.plans, p)
	return uint64(uintptr(unsafe.Pointer(p)))
}
