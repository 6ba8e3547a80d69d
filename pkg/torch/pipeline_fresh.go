package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// clonePending is Clone inside a Pipeline: the copy into the new tensor
// is queued like any op making a new tensor (Clone at once writes into a
// tensor it allocated, which a pipeline would run at once). ok is false
// when no pipeline takes the copy.
func (t *Tensor) clonePending() (out *Tensor, ok bool) {
	c := dispatch.NewCall(kernel.OpCopy, t.Device(), 1, 1)
	defer dispatch.Free(c)
	c.In[0] = t.operand()
	strides := likeStrides(t)
	c.Out[0] = kernel.Operand{DType: t.dtype, Shape: t.shape, Strides: strides}
	ok, err := dispatch.CaptureFresh(c)
	switch {
	case !ok:
		return nil, false
	case err != nil:
		return t.fail("clone", err), true
	}
	out = newTensor(newMadeStorage(c.Out[0].Mem), t.dtype, t.shape, strides, 0)
	if recording(t) {
		recordCopy(out, t, "CloneBackward0")
	}
	return out, true
}

// fillFresh is Fill_ on a tensor a creation just allocated, which nobody
// else holds: inside a Pipeline the fill is queued like an op making a new
// tensor (Fill_ writes in place, which a pipeline runs at once).
func (t *Tensor) fillFresh(value any) *Tensor {
	if t.err != nil || t.storage == nil || t.requiresGrad {
		return t.Fill_(value)
	}
	s, err := kernel.ScalarOf(value)
	if err != nil || s.CheckFits(t.dtype) != nil {
		return t.Fill_(value) // its error
	}
	c := dispatch.NewCall(kernel.OpFill, t.Device(), 0, 1)
	defer dispatch.Free(c)
	c.Scalars[0] = s
	c.Out[0] = kernel.Operand{DType: t.dtype, Shape: t.shape, Strides: t.strides, Offset: t.offset}
	ok, err := dispatch.CaptureFresh(c)
	switch {
	case !ok:
		return t.Fill_(value)
	case err != nil:
		return t.fail("fill_", err)
	}
	old := t.storage.mem
	t.storage.mem = c.Out[0].Mem
	old.Release()
	return t
}
