package cpu

import (
	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpLayerNorm, device.CPU, layerNormKernel)
	kernel.Register(kernel.OpLayerNormBackward, device.CPU, layerNormBackwardKernel)
	kernel.Register(kernel.OpGroupNorm, device.CPU, layerNormKernel)
	kernel.Register(kernel.OpGroupNormBackward, device.CPU, layerNormBackwardKernel)
}

// lnParams are the C kernel's sizes for a layer norm of x over its
// c.Ints[0] trailing dims, or a group norm of x in c.Ints[0] groups
// (checked by the meta function).
func lnParams(c *kernel.Call, x *kernel.Operand) cpukernels.LayerNormParams {
	if c.Op == kernel.OpGroupNorm || c.Op == kernel.OpGroupNormBackward {
		groups, s := c.Ints[0], kernel.Numel(x.Shape[2:])
		return cpukernels.LayerNormParams{Rows: x.Shape[0] * groups, D: x.Shape[1] / groups * s, S: s, Groups: groups,
			Eps: c.Scalars[0].Float()}
	}
	axis := len(x.Shape) - c.Ints[0]
	return cpukernels.LayerNormParams{Rows: kernel.Numel(x.Shape[:axis]), D: kernel.Numel(x.Shape[axis:]),
		Eps: c.Scalars[0].Float(), RMS: c.Mode == 1}
}

// contiguousIns gives the call's inputs as contiguous operands of dtype
// d (themselves, or copies that release undoes).
func contiguousIns(c *kernel.Call, d dtype.DType, ins []kernel.Operand) (release func(), err error) {
	for i := range c.In {
		t, err := asContiguous(&c.In[i], d)
		if err != nil {
			for j := range i {
				releaseTemp(&ins[j], &c.In[j])
			}
			return nil, err
		}
		ins[i] = t
	}
	return func() {
		for i := range c.In {
			releaseTemp(&ins[i], &c.In[i])
		}
	}, nil
}

// layerNormKernel runs native_layer_norm and native_group_norm: one C call over the contiguous
// input (a copy when it is not), split by rows across the pool when large.
func layerNormKernel(c *kernel.Call) error {
	x := &c.In[0]
	p := lnParams(c, x)
	var ins [3]kernel.Operand
	release, err := contiguousIns(c, x.DType, ins[:])
	if err != nil {
		return err
	}
	defer release()
	var o bnOuts
	if err := o.init(c.Out); err != nil {
		o.finish(false)
		return err
	}
	if err := cpukernels.LayerNorm(int(x.DType), &p, ins[0].Data(), ins[1].Data(), ins[2].Data(), o.ptrs[0], o.ptrs[1],
		o.ptrs[2], bnShare(p.Rows, p.D)); err != nil {
		o.finish(false)
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s in %s", c.Op, kernel.PyName(x.DType))
	}
	return o.finish(true)
}

// layerNormBackwardKernel runs native_layer_norm_backward and
// native_group_norm_backward.
func layerNormBackwardKernel(c *kernel.Call) error {
	x := &c.In[1]
	p := lnParams(c, x)
	var ins [5]kernel.Operand
	release, err := contiguousIns(c, x.DType, ins[:])
	if err != nil {
		return err
	}
	defer release()
	var o bnOuts
	if err := o.init(c.Out); err != nil {
		o.finish(false)
		return err
	}
	err = cpukernels.LayerNormBackward(int(x.DType), &p, ins[0].Data(), ins[1].Data(), ins[2].Data(), ins[3].Data(),
		ins[4].Data(), o.ptrs[0], o.ptrs[1], o.ptrs[2], bnShare(p.Rows, p.D))
	switch err {
	case nil:
		return o.finish(true)
	case cpukernels.ErrNoMem:
		o.finish(false)
		return kernel.Errorf(kernel.ErrOutOfMemory, "CPU: out of memory for %s's column sums", c.Op)
	}
	o.finish(false)
	return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s in %s", c.Op, kernel.PyName(x.DType))
}
