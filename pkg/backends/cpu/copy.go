package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpCopy, device.CPU, copyKernel)
	kernel.Register(kernel.OpFill, device.CPU, fillKernel)
}

// copyKernel is copy_: In[0] broadcast into Out[0], converting the dtype.
func copyKernel(c *kernel.Call) error {
	o, in := &c.Out[0], &c.In[0]
	return castInto(opnd(o), o.DType, opnd(in), in.DType, o.Shape)
}

// castInto writes src (of dtype sd, broadcast to shape) into dst (of dtype dd).
func castInto(dst operand, dd dtype.DType, src operand, sd dtype.DType, shape []int) error {
	it := getIter()
	defer it.put()
	ops := [2]operand{dst, src}
	it.build(shape, ops[:])
	return it.cast(dd, sd)
}

func (it *iter) cast(dd, sd dtype.DType) error {
	p := it.plan
	if it.numel >= grain {
		beginLarge()
		return cpukernels.CastParallel(int(dd), int(sd), p, it.ptrs[0], it.ptrs[1], it.numel, grain/2)
	}
	if p.NDim <= 1 {
		var s0, s1 int64
		if p.NDim == 1 {
			s0, s1 = p.Strides[0][0], p.Strides[1][0]
		}
		return cpukernels.Cast1D(int(dd), int(sd), it.numel, it.ptrs[0], it.ptrs[1], s0, s1)
	}
	return cpukernels.Cast(int(dd), int(sd), p, it.ptrs[0], it.ptrs[1], 0, it.numel)
}

// fillKernel is fill_: every element of Out[0] becomes Scalars[0].
func fillKernel(c *kernel.Call) error {
	o := &c.Out[0]
	it := getIter()
	defer it.put()
	it.scratch[0] = c.Scalars[0].Bits(o.DType)
	ops := [2]operand{opnd(o), {data: unsafe.Pointer(&it.scratch[0]), size: o.DType.ItemSize()}}
	it.build(o.Shape, ops[:])
	return it.cast(o.DType, o.DType)
}

// contiguousCopy returns the elements of o as a new contiguous operand of
// dtype d (used to bring inputs to a kernel's compute dtype).
// The caller releases the copy when done.
func contiguousCopy(o *kernel.Operand, d dtype.DType) (kernel.Operand, error) {
	t, err := newContiguous(o.Shape, d)
	if err != nil {
		return t, err
	}
	if err := castInto(opnd(&t), d, opnd(o), o.DType, o.Shape); err != nil {
		t.Mem.Release()
		return t, err
	}
	return t, nil
}

// newContiguous allocates a contiguous operand (a kernel's temporary: the
// kernel releases it when done).
func newContiguous(shape []int, d dtype.DType) (kernel.Operand, error) {
	t := kernel.Operand{DType: d, Shape: shape, Strides: kernel.ContiguousStrides(shape, make([]int, len(shape)))}
	return t, bindNew(&t, kernel.Numel(shape)*d.ItemSize())
}

// bindNew allocates n bytes for an operand whose size only the kernel
// knows (a data-dependent output, or a temporary).
func bindNew(o *kernel.Operand, n int) error {
	m, err := Allocate(n)
	if err != nil {
		return err
	}
	o.Bind(m)
	return nil
}

// releaseTemp frees t when it is a copy of orig rather than orig itself.
func releaseTemp(t, orig *kernel.Operand) {
	if t.Mem != nil && t.Mem != orig.Mem {
		t.Mem.Release()
	}
}
