package torch

import (
	"strings"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Out is the out= form of the ops: Into(out).Add(a, b) computes a + b into
// out and returns out, as torch.add(a, b, out=out). A loop that writes each
// step's result into the same tensor allocates nothing and reuses memory
// that is still in the processor's caches, as PyTorch does with the
// buffers it frees.
//
// The rules are PyTorch's:
//   - the result is cast to out's dtype when PyTorch's casting rules allow
//     it (a float result into an int64 out is an error; a bool result into
//     a float32 out is not); the matrix products want out's dtype exactly;
//   - out must have the result's shape, or no elements, in which case it is
//     given new storage of the result's shape (PyTorch 1.13 also resizes a
//     non-empty out with a deprecation warning; here that is an error, as
//     PyTorch announces it will be);
//   - out may be any strided view, and may be an input itself, but not
//     share only part of an input's memory, nor be an expanded view;
//   - out is on the inputs' device (0-dim CPU inputs go with any device);
//   - nothing is recorded for autograd, and while grad mode is on, out and
//     the inputs must not require grad.
//
// Errors ride in the returned tensor as for every op, and out carries the
// error of a failed op from then on (its data unchanged when the op failed
// before it ran), so that a later terminal call on out reports it.
type Out struct{ t *Tensor }

// Into returns the out= form of the ops, writing into out.
func Into(out *Tensor) Out { return Out{out} }

// check refuses what the out= form of op cannot do with these inputs and
// returns the device the op runs on.
func (o Out) check(op kernel.OpID, ins ...*Tensor) (Device, error) {
	out := o.t
	if err := inputErr(op.String(), out); err != nil {
		return device.CPUDevice, err
	}
	if err := inputErr(op.String(), ins...); err != nil {
		return device.CPUDevice, err
	}
	dev := out.Device()
	for _, t := range ins {
		if d := t.Device(); d != dev && !(d.Type == device.CPU && t.Dim() == 0) {
			return dev, mixedDevices(op, append(ins, out))
		}
	}
	if recording(out) || recording(ins...) {
		return dev, out.opError(op.String(), kernel.ErrArgument, "%s(): functions with out=... arguments don't "+
			"support automatic differentiation, but one of the arguments requires grad.", op)
	}
	return dev, out.checkWritable(op.String())
}

// run runs c, built by check's caller, into the output.
func (o Out) run(c *kernel.Call) *Tensor {
	if o.t.Numel() == 0 {
		return o.adopt(run(c))
	}
	return runInPlace(c, o.t)
}

// keep returns r, the result of an op into the output; when the op failed,
// the output carries its error from then on.
func (o Out) keep(r *Tensor) *Tensor {
	if o.t == nil {
		return r
	}
	return o.t.keepFailure(r)
}

// adopt gives the empty output the layout and storage of r, the op's
// result, cast to the output's dtype (PyTorch resizes an empty out).
func (o Out) adopt(r *Tensor) *Tensor {
	out := o.t
	if r.err != nil {
		return r
	}
	if !dtype.CanCast(r.dtype, out.dtype) {
		return failed(out.opError("out=", kernel.ErrDType, "result type %s can't be cast to the desired output type %s",
			kernel.PyName(r.dtype), kernel.PyName(out.dtype)))
	}
	if r.dtype != out.dtype {
		if r = r.ToDType(out.dtype); r.err != nil {
			return r
		}
	}
	out.storage, out.offset, out.base = r.storage, r.offset, nil
	out.setLayout(r.shape, r.strides)
	return out
}

// unary writes a one-input op into the output.
func (o Out) unary(op kernel.OpID, x *Tensor, mode int, scalars ...kernel.Scalar) *Tensor {
	dev, err := o.check(op, x)
	if err != nil {
		return o.keep(failed(err))
	}
	return o.keep(o.run(unaryCall(op, dev, x, mode, scalars)))
}

// binary writes a two-tensor op into the output.
func (o Out) binary(op kernel.OpID, a, b *Tensor, mode int, alpha kernel.Scalar) *Tensor {
	dev, err := o.check(op, a, b)
	if err != nil {
		return o.keep(failed(err))
	}
	return o.keep(o.run(binaryCall(op, dev, a, b, mode, alpha)))
}

// tensors writes an op of several tensors into the output; set fills in
// the call's attributes.
func (o Out) tensors(op kernel.OpID, set func(c *kernel.Call) error, ts ...*Tensor) *Tensor {
	dev, err := o.check(op, ts...)
	if err != nil {
		return o.keep(failed(err))
	}
	c, err := opCall(op, dev, set, ts)
	if err != nil {
		return o.keep(failed(err))
	}
	return o.keep(o.run(c))
}

// product writes a matrix product into the output, whose dtype must be the
// operands' (the products compute in the output's dtype).
func (o Out) product(op kernel.OpID, beta, alpha kernel.Scalar, ts ...*Tensor) *Tensor {
	if inputErr("", o.t) == nil && inputErr("", ts...) == nil {
		if d := ts[len(ts)-1].dtype; o.t.dtype != d {
			return o.keep(failed(o.t.opError(op.String(), kernel.ErrDType, "Expected out tensor to have dtype %s, but got %s instead",
				strings.ToLower(kernel.PyName(d)), strings.ToLower(kernel.PyName(o.t.dtype)))))
		}
	}
	return o.tensors(op, func(c *kernel.Call) error {
		c.Scalars[0], c.Scalars[1] = beta, alpha
		return nil
	}, ts...)
}

// Where writes Where(cond, a, b) into the output.
func (o Out) Where(cond, a, b *Tensor) *Tensor { return o.tensors(kernel.OpWhere, nil, cond, a, b) }

// Lerp writes Lerp(start, end, weight) into the output.
func (o Out) Lerp(start, end, weight *Tensor) *Tensor {
	return o.tensors(kernel.OpLerp, nil, start, end, weight)
}

// Clamp writes x.Clamp(lo, hi) into the output.
func (o Out) Clamp(x *Tensor, lo, hi any) *Tensor {
	return o.keep(x.clampWith(o.unary, "clamp", lo, hi))
}

// NanToNum writes x.NanToNum(nan, posinf, neginf) into the output.
func (o Out) NanToNum(x *Tensor, nan float64, posinf, neginf *float64) *Tensor {
	return o.keep(x.nanToNumWith(o.unary, nan, posinf, neginf))
}

// Tril writes x.Tril(diagonal) into the output.
func (o Out) Tril(x *Tensor, diagonal int) *Tensor {
	return o.keep(x.triangleWith(o.Where, "tril", diagonal, true))
}

// Triu writes x.Triu(diagonal) into the output.
func (o Out) Triu(x *Tensor, diagonal int) *Tensor {
	return o.keep(x.triangleWith(o.Where, "triu", diagonal, false))
}

// Mm writes a.Mm(b) into the output.
func (o Out) Mm(a, b *Tensor) *Tensor { return o.product(kernel.OpMm, one, one, a, b) }

// Bmm writes a.Bmm(b) into the output.
func (o Out) Bmm(a, b *Tensor) *Tensor { return o.product(kernel.OpBmm, one, one, a, b) }

// Addmm writes Addmm(input, a, b, beta, alpha) into the output.
func (o Out) Addmm(input, a, b *Tensor, beta, alpha any) *Tensor {
	bs, as, err := betaAlpha(beta, alpha)
	if err != nil {
		return o.keep(failed(withOp("addmm", err)))
	}
	return o.product(kernel.OpAddmm, bs, as, input, a, b)
}
