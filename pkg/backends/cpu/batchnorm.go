package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

func init() {
	kernel.Register(kernel.OpBatchNorm, device.CPU, batchNormKernel)
	kernel.Register(kernel.OpBatchNormBackward, device.CPU, batchNormBackwardKernel)
}

// bnOuts gives contiguous buffers for the outputs: the outputs themselves
// when contiguous, else temporaries that finish copies back.
type bnOuts struct {
	ptrs  [4]unsafe.Pointer
	tmps  [4]kernel.Operand
	outs  []kernel.Operand
	ready int
}

func (o *bnOuts) init(outs []kernel.Operand) error {
	o.outs = outs
	for i := range outs {
		out := &outs[i]
		if out.IsContiguous() {
			o.ptrs[i] = out.Data()
			continue
		}
		t, err := newContiguous(out.Shape, out.DType)
		if err != nil {
			return err
		}
		o.tmps[i] = t
		o.ptrs[i] = t.Data()
	}
	return nil
}

// finish copies the temporaries into their outputs (when ok) and releases them.
func (o *bnOuts) finish(ok bool) error {
	var err error
	for i := range o.outs {
		t := &o.tmps[i]
		if t.Mem == nil {
			continue
		}
		if ok && err == nil {
			out := &o.outs[i]
			err = castInto(opnd(out), out.DType, opnd(t), t.DType, out.Shape)
		}
		t.Mem.Release()
	}
	return err
}

// bnShare is the number of channels per share of the pool (0: one share
// on the caller) for channels of perChannel elements each.
func bnShare(channels, perChannel int) int {
	if perChannel*channels >= grain && channels > 1 {
		beginLarge()
		return max(1, grain/2/max(perChannel, 1))
	}
	return 0
}

// batchNormKernel runs native_batch_norm: one C call over the contiguous
// input (a copy when it is not), split by channels across the pool when large.
func batchNormKernel(c *kernel.Call) error {
	x := &c.In[0]
	shape := x.Shape
	p := cpukernels.BatchNormParams{N: shape[0], C: shape[1], S: 1, Training: c.Mode == 1, Eps: c.Scalars[0].Float()}
	for _, d := range shape[2:] {
		p.S *= d
	}
	var ins [5]kernel.Operand
	for i := range c.In {
		t, err := asContiguous(&c.In[i], x.DType)
		if err != nil {
			for j := range i {
				releaseTemp(&ins[j], &c.In[j])
			}
			return err
		}
		ins[i] = t
	}
	defer func() {
		for i := range c.In {
			releaseTemp(&ins[i], &c.In[i])
		}
	}()
	var o bnOuts
	if err := o.init(c.Out); err != nil {
		o.finish(false)
		return err
	}
	var mean, invstd, v unsafe.Pointer
	if p.Training {
		mean, invstd, v = o.ptrs[1], o.ptrs[2], o.ptrs[3]
	} else {
		mean, v = ins[3].Data(), ins[4].Data()
	}
	if err := cpukernels.BatchNorm(int(x.DType), &p, ins[0].Data(), ins[1].Data(), ins[2].Data(), mean, invstd, v,
		o.ptrs[0], bnShare(p.C, p.N*p.S)); err != nil {
		o.finish(false)
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s in %s", c.Op, kernel.PyName(x.DType))
	}
	return o.finish(true)
}

// batchNormBackwardKernel runs native_batch_norm_backward.
func batchNormBackwardKernel(c *kernel.Call) error {
	x := &c.In[1]
	shape := x.Shape
	p := cpukernels.BatchNormParams{N: shape[0], C: shape[1], S: 1, Training: c.Mode == 1}
	for _, d := range shape[2:] {
		p.S *= d
	}
	var ins [5]kernel.Operand
	for i := range c.In {
		t, err := asContiguous(&c.In[i], x.DType)
		if err != nil {
			for j := range i {
				releaseTemp(&ins[j], &c.In[j])
			}
			return err
		}
		ins[i] = t
	}
	defer func() {
		for i := range c.In {
			releaseTemp(&ins[i], &c.In[i])
		}
	}()
	var o bnOuts
	if err := o.init(c.Out); err != nil {
		o.finish(false)
		return err
	}
	if err := cpukernels.BatchNormBackward(int(x.DType), &p, ins[0].Data(), ins[1].Data(), ins[2].Data(), ins[3].Data(),
		ins[4].Data(), o.ptrs[0], o.ptrs[1], o.ptrs[2], bnShare(p.C, p.N*p.S)); err != nil {
		o.finish(false)
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s in %s", c.Op, kernel.PyName(x.DType))
	}
	return o.finish(true)
}
