package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// OpDevices is one row of RegisteredOps: an op and the device types with a
// kernel for it (meta: the op's meta function).
type OpDevices = dispatch.OpDevices

// RegisteredOps lists the op x device table of the dispatcher.
func RegisteredOps() []OpDevices { return dispatch.RegisteredOps() }

// deviceOf picks the device an op runs on: that of its tensors, where a
// 0-dim CPU tensor goes along with any device; differing devices are an
// error, as in PyTorch.
func deviceOf(op kernel.OpID, ts ...*Tensor) (Device, error) {
	dev := device.CPUDevice
	found := false
	for _, t := range ts {
		d := t.Device()
		if d.Type == device.CPU && t.Dim() == 0 {
			continue
		}
		if !found {
			dev, found = d, true
		} else if d != dev {
			return dev, mixedDevices(op, ts)
		}
	}
	return dev, nil
}

func mixedDevices(op kernel.OpID, ts []*Tensor) error {
	e := kernel.Errorf(kernel.ErrDevice, "Expected all tensors to be on the same device, but found at least two devices")
	e.Op = op.String()
	for _, t := range ts {
		e.Shapes = append(e.Shapes, append([]int(nil), t.shape...))
		e.DTypes = append(e.DTypes, t.dtype)
		e.Devices = append(e.Devices, t.Device())
	}
	return e
}

// result wraps output i of a finished call as a new tensor.
func result(c *kernel.Call, i int) *Tensor {
	o := &c.Out[i]
	return newOwner(o.Mem, o.DType, o.Shape, o.Strides, o.Offset)
}

// run dispatches c and returns output 0 as a new tensor (allocated with
// its memory when that is small, see dispatch.Call).
func run(c *kernel.Call) *Tensor {
	t, err := dispatch.Call(c, (*tensorAndStorage).wrap)
	if err != nil {
		return failed(err)
	}
	return t
}

// runInPlace dispatches c, whose output 0 is t, and returns t.
func runInPlace(c *kernel.Call, t *Tensor) *Tensor {
	c.Out[0] = t.operand()
	c.OutGiven = true
	err := dispatch.Run(c)
	dispatch.Free(c)
	if err != nil {
		return failed(err)
	}
	t.storage.bump()
	return t
}

// checkWritable refuses in-place writes into a tensor whose elements share
// memory (an expanded view), as PyTorch does.
func (t *Tensor) checkWritable(op string) error {
	if !t.overlapping() {
		return nil
	}
	return t.opError(op, kernel.ErrArgument, "unsupported operation: more than one element of the written-to tensor "+
		"refers to a single memory location. Please clone() the tensor before performing the operation.")
}

// checkWritableOp is checkWritable for the in-place form of op (its name
// with "_", built only for the error).
func (t *Tensor) checkWritableOp(op kernel.OpID) error {
	if !t.overlapping() {
		return nil
	}
	return t.checkWritable(op.String() + "_")
}

// overlapping reports whether several elements of t share memory: a dim of
// size above 1 with stride 0.
func (t *Tensor) overlapping() bool {
	for i, s := range t.strides {
		if s == 0 && t.shape[i] > 1 {
			return true
		}
	}
	return false
}

// keepFailure returns r, the result of an in-place op on t. When the op
// failed, t carries its error from then on (its data unchanged when the op
// failed before it ran) and is returned: a failed write is never silent,
// whichever tensor of the chain the caller checks.
func (t *Tensor) keepFailure(r *Tensor) *Tensor {
	if r.err == nil {
		return r
	}
	if t == nil {
		return r
	}
	if t.err == nil {
		t.err = r.err
	}
	return t
}

// passOn returns the tensor an op on ts must return without work: the
// first that carries an error, or a failed tensor naming op for a nil or
// zero Tensor{}; nil when every input is usable.
func passOn(op kernel.OpID, ts ...*Tensor) *Tensor {
	for _, t := range ts {
		if t != nil && t.err != nil {
			return t
		}
		if t == nil || t.storage == nil {
			return failed(inputErr(op.String(), t))
		}
	}
	return nil
}

// unary runs a one-input op.
func unary(op kernel.OpID, x *Tensor, mode int, scalars ...kernel.Scalar) *Tensor {
	if r := passOn(op, x); r != nil {
		return r
	}
	y := run(unaryCall(op, x.Device(), x, mode, scalars))
	if recording(x) {
		var s [2]kernel.Scalar
		copy(s[:], scalars)
		recordUnary(op, x, y, mode, s)
	}
	return y
}

// unaryInPlace runs a one-input op writing into x; x carries the error
// of a failure.
func unaryInPlace(op kernel.OpID, x *Tensor, mode int, scalars ...kernel.Scalar) *Tensor {
	return x.keepFailure(unaryInPlaceRun(op, x, mode, scalars))
}

func unaryInPlaceRun(op kernel.OpID, x *Tensor, mode int, scalars []kernel.Scalar) *Tensor {
	if r := passOn(op, x); r != nil {
		return r
	}
	if err := x.checkWritableOp(op); err != nil {
		return failed(err)
	}
	var sc [2]kernel.Scalar
	copy(sc[:], scalars)
	after, err := unaryInPlaceGrad(op, x, mode, sc)
	if err != nil {
		return failed(err)
	}
	if y := runInPlace(unaryCall(op, x.Device(), x, mode, scalars), x); y.err != nil || after == nil {
		return y
	}
	after()
	return x
}

// unaryCall builds the call of a one-input op on dev.
func unaryCall(op kernel.OpID, dev Device, x *Tensor, mode int, scalars []kernel.Scalar) *kernel.Call {
	c := dispatch.NewCall(op, dev, 1, 1)
	c.In[0] = x.operand()
	c.Mode = mode
	copy(c.Scalars[:], scalars)
	return c
}

// binaryCall builds the call of a two-tensor op on dev.
func binaryCall(op kernel.OpID, dev Device, a, b *Tensor, mode int, alpha kernel.Scalar) *kernel.Call {
	c := dispatch.NewCall(op, dev, 2, 1)
	c.In[0], c.In[1] = a.operand(), b.operand()
	c.Mode = mode
	c.Scalars[1] = alpha
	return c
}

// binary runs a two-tensor op; alpha is Scalars[1] of add and sub.
func binary(op kernel.OpID, a, b *Tensor, mode int, alpha kernel.Scalar) *Tensor {
	if r := passOn(op, a, b); r != nil {
		return r
	}
	y := smallBinary(op, a, b, mode, alpha)
	if y == nil {
		y = dispatchBinary(op, a, b, mode, alpha)
	}
	if recording(a, b) {
		recordBinary(op, a, b, y, mode, alpha)
	}
	return y
}

// dispatchBinary runs a two-tensor op through the dispatcher.
func dispatchBinary(op kernel.OpID, a, b *Tensor, mode int, alpha kernel.Scalar) *Tensor {
	dev, err := deviceOf(op, a, b)
	if err != nil {
		return failed(err)
	}
	return run(binaryCall(op, dev, a, b, mode, alpha))
}

// binaryScalar runs a tensor-and-Go-scalar op.
func binaryScalar(op kernel.OpID, a *Tensor, v any, mode int, alpha kernel.Scalar) *Tensor {
	if r := passOn(op, a); r != nil {
		return r
	}
	s, err := kernel.ScalarOf(v)
	if err != nil {
		return a.fail(op.String(), err)
	}
	c := dispatch.NewCall(op, a.Device(), 1, 1)
	c.In[0] = a.operand()
	c.Mode = mode
	c.Scalars[0], c.Scalars[1] = s, alpha
	y := run(c)
	if recording(a) {
		recordScalar(op, a, y, s, mode, alpha)
	}
	return y
}

// binaryInPlace runs a two-tensor op writing into a (b is nil when v is
// the Go scalar operand); a carries the error of a failure.
func binaryInPlace(op kernel.OpID, a, b *Tensor, v any, mode int, alpha kernel.Scalar) *Tensor {
	return a.keepFailure(binaryInPlaceRun(op, a, b, v, mode, alpha))
}

func binaryInPlaceRun(op kernel.OpID, a, b *Tensor, v any, mode int, alpha kernel.Scalar) *Tensor {
	if r := passOn(op, a); r != nil {
		return r
	}
	if err := a.checkWritableOp(op); err != nil {
		return failed(err)
	}
	var c *kernel.Call
	if v == nil {
		if r := passOn(op, b); r != nil {
			return r
		}
		dev, err := deviceOf(op, a, b)
		if err != nil {
			return failed(err)
		}
		c = dispatch.NewCall(op, dev, 2, 1)
		c.In[1] = b.operand()
	} else {
		s, err := kernel.ScalarOf(v)
		if err != nil {
			return a.fail(op.String()+"_", err)
		}
		c = dispatch.NewCall(op, a.Device(), 1, 1)
		c.Scalars[0] = s
	}
	c.In[0] = a.operand()
	c.Mode = mode
	c.Scalars[1] = alpha
	after, err := binaryInPlaceGrad(op, a, b, c.Scalars[0], mode, alpha)
	if err != nil {
		dispatch.Free(c)
		return failed(err)
	}
	if y := runInPlace(c, a); y.err != nil || after == nil {
		return y
	}
	after()
	return a
}
