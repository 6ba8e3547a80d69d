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

// The two-tensor pointwise ops.

// Add writes a + b into the output.
func (o Out) Add(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpAdd, a, b, 0, one)
}

// Sub writes a - b into the output.
func (o Out) Sub(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpSub, a, b, 0, one)
}

// Mul writes a * b into the output.
func (o Out) Mul(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpMul, a, b, 0, kernel.Scalar{})
}

// Div writes a / b (true division) into the output.
func (o Out) Div(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpDiv, a, b, kernel.RoundNone, kernel.Scalar{})
}

// DivTrunc writes a / b rounded toward zero into the output.
func (o Out) DivTrunc(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpDiv, a, b, kernel.RoundTrunc, kernel.Scalar{})
}

// DivFloor writes a / b rounded down into the output.
func (o Out) DivFloor(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpDiv, a, b, kernel.RoundFloor, kernel.Scalar{})
}

// FloorDivide writes floor_divide(a, b) into the output.
func (o Out) FloorDivide(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpDiv, a, b, kernel.RoundFloor, kernel.Scalar{})
}

// Remainder writes remainder(a, b) (the sign of b) into the output.
func (o Out) Remainder(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpRemainder, a, b, 0, kernel.Scalar{})
}

// Fmod writes fmod(a, b) (the sign of a) into the output.
func (o Out) Fmod(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpFmod, a, b, 0, kernel.Scalar{})
}

// Pow writes a ** b into the output.
func (o Out) Pow(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpPow, a, b, 0, kernel.Scalar{})
}

// Maximum writes maximum(a, b) into the output.
func (o Out) Maximum(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpMaximum, a, b, 0, kernel.Scalar{})
}

// Minimum writes minimum(a, b) into the output.
func (o Out) Minimum(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpMinimum, a, b, 0, kernel.Scalar{})
}

// Atan2 writes atan2(a, b) into the output.
func (o Out) Atan2(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpAtan2, a, b, 0, kernel.Scalar{})
}

// BitwiseAnd writes a & b into the output.
func (o Out) BitwiseAnd(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpBitwiseAnd, a, b, 0, kernel.Scalar{})
}

// BitwiseOr writes a | b into the output.
func (o Out) BitwiseOr(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpBitwiseOr, a, b, 0, kernel.Scalar{})
}

// BitwiseXor writes a ^ b into the output.
func (o Out) BitwiseXor(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpBitwiseXor, a, b, 0, kernel.Scalar{})
}

// LogicalAnd writes logical_and(a, b) into the output.
func (o Out) LogicalAnd(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpLogicalAnd, a, b, 0, kernel.Scalar{})
}

// LogicalOr writes logical_or(a, b) into the output.
func (o Out) LogicalOr(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpLogicalOr, a, b, 0, kernel.Scalar{})
}

// LogicalXor writes logical_xor(a, b) into the output.
func (o Out) LogicalXor(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpLogicalXor, a, b, 0, kernel.Scalar{})
}

// Eq writes a == b into the output.
func (o Out) Eq(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpEq, a, b, 0, kernel.Scalar{})
}

// Ne writes a != b into the output.
func (o Out) Ne(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpNe, a, b, 0, kernel.Scalar{})
}

// Lt writes a < b into the output.
func (o Out) Lt(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpLt, a, b, 0, kernel.Scalar{})
}

// Le writes a <= b into the output.
func (o Out) Le(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpLe, a, b, 0, kernel.Scalar{})
}

// Gt writes a > b into the output.
func (o Out) Gt(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpGt, a, b, 0, kernel.Scalar{})
}

// Ge writes a >= b into the output.
func (o Out) Ge(a, b *Tensor) *Tensor {
	return o.binary(kernel.OpGe, a, b, 0, kernel.Scalar{})
}

// The one-tensor pointwise ops.

// Gelu writes x.Gelu() into the output.
func (o Out) Gelu(x *Tensor) *Tensor { return o.unary(kernel.OpGelu, x, kernel.GeluNone) }

// GeluTanh writes x.GeluTanh() into the output.
func (o Out) GeluTanh(x *Tensor) *Tensor { return o.unary(kernel.OpGelu, x, kernel.GeluTanh) }

// Neg writes x.Neg() into the output.
func (o Out) Neg(x *Tensor) *Tensor { return o.unary(kernel.OpNeg, x, 0) }

// Abs writes x.Abs() into the output.
func (o Out) Abs(x *Tensor) *Tensor { return o.unary(kernel.OpAbs, x, 0) }

// Sign writes x.Sign() into the output.
func (o Out) Sign(x *Tensor) *Tensor { return o.unary(kernel.OpSign, x, 0) }

// Exp writes x.Exp() into the output.
func (o Out) Exp(x *Tensor) *Tensor { return o.unary(kernel.OpExp, x, 0) }

// Exp2 writes x.Exp2() into the output.
func (o Out) Exp2(x *Tensor) *Tensor { return o.unary(kernel.OpExp2, x, 0) }

// Expm1 writes x.Expm1() into the output.
func (o Out) Expm1(x *Tensor) *Tensor { return o.unary(kernel.OpExpm1, x, 0) }

// Log writes x.Log() into the output.
func (o Out) Log(x *Tensor) *Tensor { return o.unary(kernel.OpLog, x, 0) }

// Log2 writes x.Log2() into the output.
func (o Out) Log2(x *Tensor) *Tensor { return o.unary(kernel.OpLog2, x, 0) }

// Log10 writes x.Log10() into the output.
func (o Out) Log10(x *Tensor) *Tensor { return o.unary(kernel.OpLog10, x, 0) }

// Log1p writes x.Log1p() into the output.
func (o Out) Log1p(x *Tensor) *Tensor { return o.unary(kernel.OpLog1p, x, 0) }

// Sqrt writes x.Sqrt() into the output.
func (o Out) Sqrt(x *Tensor) *Tensor { return o.unary(kernel.OpSqrt, x, 0) }

// Rsqrt writes x.Rsqrt() into the output.
func (o Out) Rsqrt(x *Tensor) *Tensor { return o.unary(kernel.OpRsqrt, x, 0) }

// Square writes x.Square() into the output.
func (o Out) Square(x *Tensor) *Tensor { return o.unary(kernel.OpSquare, x, 0) }

// Reciprocal writes x.Reciprocal() into the output.
func (o Out) Reciprocal(x *Tensor) *Tensor { return o.unary(kernel.OpReciprocal, x, 0) }

// Sin writes x.Sin() into the output.
func (o Out) Sin(x *Tensor) *Tensor { return o.unary(kernel.OpSin, x, 0) }

// Cos writes x.Cos() into the output.
func (o Out) Cos(x *Tensor) *Tensor { return o.unary(kernel.OpCos, x, 0) }

// Tan writes x.Tan() into the output.
func (o Out) Tan(x *Tensor) *Tensor { return o.unary(kernel.OpTan, x, 0) }

// Asin writes x.Asin() into the output.
func (o Out) Asin(x *Tensor) *Tensor { return o.unary(kernel.OpAsin, x, 0) }

// Acos writes x.Acos() into the output.
func (o Out) Acos(x *Tensor) *Tensor { return o.unary(kernel.OpAcos, x, 0) }

// Atan writes x.Atan() into the output.
func (o Out) Atan(x *Tensor) *Tensor { return o.unary(kernel.OpAtan, x, 0) }

// Sinh writes x.Sinh() into the output.
func (o Out) Sinh(x *Tensor) *Tensor { return o.unary(kernel.OpSinh, x, 0) }

// Cosh writes x.Cosh() into the output.
func (o Out) Cosh(x *Tensor) *Tensor { return o.unary(kernel.OpCosh, x, 0) }

// Tanh writes x.Tanh() into the output.
func (o Out) Tanh(x *Tensor) *Tensor { return o.unary(kernel.OpTanh, x, 0) }

// Sigmoid writes x.Sigmoid() into the output.
func (o Out) Sigmoid(x *Tensor) *Tensor { return o.unary(kernel.OpSigmoid, x, 0) }

// Relu writes x.Relu() into the output.
func (o Out) Relu(x *Tensor) *Tensor { return o.unary(kernel.OpRelu, x, 0) }

// Relu6 writes x.Relu6() into the output.
func (o Out) Relu6(x *Tensor) *Tensor { return o.unary(kernel.OpRelu6, x, 0) }

// Silu writes x.Silu() into the output.
func (o Out) Silu(x *Tensor) *Tensor { return o.unary(kernel.OpSilu, x, 0) }

// Erf writes x.Erf() into the output.
func (o Out) Erf(x *Tensor) *Tensor { return o.unary(kernel.OpErf, x, 0) }

// Floor writes x.Floor() into the output.
func (o Out) Floor(x *Tensor) *Tensor { return o.unary(kernel.OpFloor, x, 0) }

// Ceil writes x.Ceil() into the output.
func (o Out) Ceil(x *Tensor) *Tensor { return o.unary(kernel.OpCeil, x, 0) }

// Round writes x.Round() into the output.
func (o Out) Round(x *Tensor) *Tensor { return o.unary(kernel.OpRound, x, 0) }

// Trunc writes x.Trunc() into the output.
func (o Out) Trunc(x *Tensor) *Tensor { return o.unary(kernel.OpTrunc, x, 0) }

// Frac writes x.Frac() into the output.
func (o Out) Frac(x *Tensor) *Tensor { return o.unary(kernel.OpFrac, x, 0) }

// IsNan writes x.IsNan() into the output.
func (o Out) IsNan(x *Tensor) *Tensor { return o.unary(kernel.OpIsNan, x, 0) }

// IsInf writes x.IsInf() into the output.
func (o Out) IsInf(x *Tensor) *Tensor { return o.unary(kernel.OpIsInf, x, 0) }

// IsFinite writes x.IsFinite() into the output.
func (o Out) IsFinite(x *Tensor) *Tensor { return o.unary(kernel.OpIsFinite, x, 0) }

// BitwiseNot writes x.BitwiseNot() into the output.
func (o Out) BitwiseNot(x *Tensor) *Tensor { return o.unary(kernel.OpBitwiseNot, x, 0) }

// LogicalNot writes x.LogicalNot() into the output.
func (o Out) LogicalNot(x *Tensor) *Tensor { return o.unary(kernel.OpLogicalNot, x, 0) }
