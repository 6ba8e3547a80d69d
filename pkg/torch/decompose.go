package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Decompositions: ops computed with other ops, for devices without a
// kernel for them (ATen's CompositeImplicitAutograd). The dispatcher runs
// one when the call's device has no kernel for the op, or its kernel
// declines this form of it (kernel.ErrNotImplemented); callers never
// choose. A decomposition sees the prepared call: its operands wrapped as
// tensors that own nothing, it computes on the call's device with ops that
// device has, and writes into the outputs the dispatcher allocated. It
// returns kernel.ErrNotImplemented for a form it does not cover, and the
// dispatcher then runs the op on the host (see pkg/dispatch).

func init() {
	dispatch.RegisterDecomposition(kernel.OpGather, decomposeGather)
	dispatch.RegisterDecomposition(kernel.OpClamp, decomposeClamp)
	dispatch.RegisterDecomposition(kernel.OpRelu6, decomposeRelu6)
	dispatch.RegisterDecomposition(kernel.OpAmin, decomposeAmin)
	dispatch.RegisterDecomposition(kernel.OpIsNan, decomposeIsNan)
	dispatch.RegisterDecomposition(kernel.OpLogicalNot, decomposeLogicalNot)
	// ---- pointwise math ops ----
	dispatch.RegisterDecomposition(kernel.OpDeg2rad, decomposeDeg2rad)
	dispatch.RegisterDecomposition(kernel.OpRad2deg, decomposeRad2deg)
	dispatch.RegisterDecomposition(kernel.OpGeluBackward, decomposeGeluBackward)
	dispatch.RegisterDecomposition(kernel.OpFmax, func(c *kernel.Call) error { return decomposeFextremum(c, true) })
	dispatch.RegisterDecomposition(kernel.OpFmin, func(c *kernel.Call) error { return decomposeFextremum(c, false) })
	dispatch.RegisterDecomposition(kernel.OpXlogy, decomposeXlogy)
	dispatch.RegisterDecomposition(kernel.OpNorm, decomposeNorm)
	dispatch.RegisterDecomposition(kernel.OpCopysign, decomposeCopysign)
}

// operandTensor wraps o as a tensor that shares o's memory and owns
// nothing: dropping it frees nothing.
func operandTensor(o *kernel.Operand) *Tensor {
	return newTensor(newStorage(o.Mem), o.DType, o.Shape, o.Strides, o.Offset)
}

// opMath is the dtype a decomposition computes a dtype's values in:
// float32 for float16 and bfloat16 (PyTorch's opmath type), else itself.
// writeOutput rounds the result to the output's dtype once.
func opMath(d DType) DType {
	if d == Float16 || d == BFloat16 {
		return Float32
	}
	return d
}

// writeOutput copies r, a decomposition's result, into output i of c
// (converting it to the output's dtype) and releases r.
func writeOutput(c *kernel.Call, i int, r *Tensor) error {
	if r.err != nil {
		return r.err
	}
	err := operandTensor(&c.Out[i]).Copy_(r).err
	r.Release()
	return err
}

// decomposeGather picks the elements of gather with a one-hot mask: for
// input x, dim d and index idx, out = sum over k of where(idx == k, x, 0)
// along a new dim after d (x narrowed to idx's sizes in the other dims).
// Only eq, where and sum run on the device; an index out of range is the
// error the CPU kernel gives.
func decomposeGather(c *kernel.Call) error {
	x, idx := operandTensor(&c.In[0]), operandTensor(&c.In[1])
	dim := c.Dim
	if x.Dim() == 0 || idx.Dim() != x.Dim() {
		return kernel.Errorf(kernel.ErrNotImplemented, "gather of a 0-dim input has no decomposition")
	}
	n := x.shape[dim]
	if err := checkIndexRange(idx, dim, n); err != nil {
		return err
	}
	v := x
	for d, size := range idx.shape {
		if d != dim {
			v = v.Narrow(d, 0, size)
		}
	}
	classes := make([]int, x.Dim()+1)
	for i := range classes {
		classes[i] = 1
	}
	classes[dim+1] = n
	k := Arange(n, WithDType(Int64), OnDevice(x.Device())).View(classes...)
	mask := idx.Unsqueeze(dim + 1).Eq(k)
	zero := Zeros(nil, WithDType(x.dtype), OnDevice(x.Device()))
	kept := Where(mask, v.Unsqueeze(dim), zero)
	r := kept.Sum(dim + 1)
	k.Release()
	mask.Release()
	kept.Release()
	return writeOutput(c, 0, r)
}

// checkIndexRange returns the CPU kernel's error when an element of idx is
// outside [0, n) (indices along dim).
func checkIndexRange(idx *Tensor, dim, n int) error {
	bad := idx.LtScalar(0).LogicalOr(idx.GeScalar(n))
	anyBad, err := bad.Any().ItemBool()
	if err != nil || !anyBad {
		return err
	}
	first, err := idx.MaskedSelect(bad).Narrow(0, 0, 1).ItemInt()
	if err != nil {
		return err
	}
	return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", first, dim, n)
}

// decomposeClamp is clamp with one bound as maximum (a lower bound) or
// minimum (an upper one) with a 0-dim tensor, in the output's dtype; both
// propagate NaN as clamp does. Both bounds decline.
func decomposeClamp(c *kernel.Call) error {
	var r *Tensor
	out := &c.Out[0]
	x := operandTensor(&c.In[0]).ToDType(out.DType)
	switch c.Mode & (kernel.ClampMin | kernel.ClampMax) {
	case kernel.ClampMin:
		r = x.Maximum(Scalar(c.Scalars[0], WithDType(out.DType), OnDevice(x.Device())))
	case kernel.ClampMax:
		r = x.Minimum(Scalar(c.Scalars[1], WithDType(out.DType), OnDevice(x.Device())))
	default:
		return kernel.Errorf(kernel.ErrNotImplemented, "clamp with both bounds or none has no decomposition")
	}
	return writeOutput(c, 0, r)
}

// decomposeRelu6 is relu6 as clamp to [0, 6] (both bounds: the NPU's
// kernel), which keeps NaN as relu6 does.
func decomposeRelu6(c *kernel.Call) error {
	return writeOutput(c, 0, operandTensor(&c.In[0]).Clamp(0, 6))
}

// decomposeAmin is amin as -amax(-x), exact for floats and signed
// integers; bool and uint8 (whose negation wraps) decline.
func decomposeAmin(c *kernel.Call) error {
	x := operandTensor(&c.In[0])
	if x.dtype == Bool || x.dtype == Uint8 {
		return kernel.Errorf(kernel.ErrNotImplemented, "amin of %s has no decomposition", kernel.PyName(x.dtype))
	}
	neg := x.Neg()
	r := reduction{op: kernel.OpAmax, dims: c.Dims, keepDim: c.KeepDim}.run(neg)
	neg.Release()
	y := r.Neg()
	r.Release()
	return writeOutput(c, 0, y)
}

// decomposeIsNan is isnan as x != x.
func decomposeIsNan(c *kernel.Call) error {
	x := operandTensor(&c.In[0])
	return writeOutput(c, 0, x.Ne(x))
}

// decomposeLogicalNot is logical_not as x == 0 (NaN is true, so its
// negation false, as the comparison gives).
func decomposeLogicalNot(c *kernel.Call) error {
	return writeOutput(c, 0, operandTensor(&c.In[0]).EqScalar(0))
}

// ---- pointwise math ops ----

// decomposeDeg2rad is deg2rad as x * (pi/180), the CPU kernel's and
// PyTorch's formula: in the output's dtype, float32 for float16 and
// bfloat16 (their compute dtype; the product cast to the output's), the
// scalar converted to the compute dtype and the product rounded once.
func decomposeDeg2rad(c *kernel.Call) error { return decomposeScale(c, math.Pi/180) }

// decomposeRad2deg is rad2deg as x * (180/pi), as decomposeDeg2rad.
func decomposeRad2deg(c *kernel.Call) error { return decomposeScale(c, 180/math.Pi) }

func decomposeScale(c *kernel.Call, k float64) error {
	x, dt := operandTensor(&c.In[0]), opMath(c.Out[0].DType)
	if x.dtype != dt {
		x = x.ToDType(dt)
		defer x.Release()
	}
	return writeOutput(c, 0, x.MulScalar(k))
}

// decomposeGeluBackward is gelu's backward, g * gelu'(x), with the ops of
// its formula: exact, Phi(x) + x phi(x); of the tanh approximation
// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2), t = tanh(k (x + a x^3)).
// Each op rounds on its own, so the result may differ from the fused
// kernel's in the last bits, as PyTorch's composite does.
func decomposeGeluBackward(c *kernel.Call) error {
	g, x := operandTensor(&c.In[0]), operandTensor(&c.In[1])
	var d *Tensor
	if c.Mode == kernel.GeluTanh {
		k, a := math.Sqrt(2/math.Pi), 0.044715
		x2 := x.Mul(x)
		t := x.Add(x2.Mul(x).MulScalar(a)).MulScalar(k).Tanh()
		left := t.AddScalar(1).MulScalar(0.5)
		right := x.Mul(t.Mul(t).Neg().AddScalar(1)).Mul(x2.MulScalar(3 * a).AddScalar(1)).MulScalar(0.5 * k)
		d = left.Add(right)
	} else {
		cdf := x.MulScalar(1 / math.Sqrt2).Erf().AddScalar(1).MulScalar(0.5)
		pdf := x.Mul(x).MulScalar(-0.5).Exp().MulScalar(1 / math.Sqrt(2*math.Pi))
		d = cdf.Add(x.Mul(pdf))
	}
	return writeOutput(c, 0, g.Mul(d))
}

// binaryOperands are a binary call's operands as tensors of dtype d: the
// second is the Go scalar of the scalar form, as a 0-dim tensor on the
// call's device.
func binaryOperands(c *kernel.Call, d DType) (a, b *Tensor) {
	a = operandTensor(&c.In[0]).ToDType(d)
	if len(c.In) > 1 {
		return a, operandTensor(&c.In[1]).ToDType(d)
	}
	return a, Scalar(c.Scalars[0], WithDType(d), OnDevice(a.Device()))
}

// decomposeFextremum is fmax (max true) or fmin as maximum or minimum,
// which propagate NaN, with the other operand where one is NaN: C's fmax
// and fmin, exact, as comparisons and selections round nothing.
func decomposeFextremum(c *kernel.Call, max bool) error {
	d := c.Out[0].DType
	a, b := binaryOperands(c, d)
	var r *Tensor
	if max {
		r = a.Maximum(b)
	} else {
		r = a.Minimum(b)
	}
	if d.IsFloatingPoint() {
		r = Where(b.Ne(b), a, Where(a.Ne(a), b, r))
	}
	return writeOutput(c, 0, r)
}

// decomposeXlogy is xlogy as x * log(y), and 0 where x is 0 and y is not
// NaN, as PyTorch's kernel: in float32 for float16 and bfloat16 (their
// compute dtype), rounded to the output's dtype once.
func decomposeXlogy(c *kernel.Call) error {
	cd := opMath(c.Out[0].DType)
	x, y := binaryOperands(c, cd)
	zero := Zeros(nil, WithDType(cd), OnDevice(x.Device()))
	return writeOutput(c, 0, Where(x.EqScalar(0).LogicalAnd(y.Eq(y)), zero, x.Mul(y.Log())))
}

// decomposeNorm is the p-norm over the call's dims with the reductions of
// its formula, in the input's floating dtype (float32 for float16 and
// bfloat16): the largest or smallest magnitude for p = ±inf (NaN
// propagating), the count of non-zeros for p = 0, the square root of the
// sum of squares for p = 2, and (sum |x|^p)^(1/p) otherwise. The CPU
// kernel accumulates in double, so sums may differ from its in the last
// bits.
func decomposeNorm(c *kernel.Call) error {
	x := operandTensor(&c.In[0])
	if !x.dtype.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrNotImplemented, "norm of %s has no decomposition", kernel.PyName(x.dtype))
	}
	cd := opMath(c.Out[0].DType)
	p := c.Scalars[0].Float()
	a := x.ToDType(cd).Abs()
	red := func(op kernel.OpID, t *Tensor) *Tensor {
		return reduction{op: op, dims: c.Dims, keepDim: c.KeepDim}.run(t)
	}
	var r *Tensor
	switch {
	case math.IsInf(p, 1):
		r = red(kernel.OpAmax, a)
	case math.IsInf(p, -1):
		r = red(kernel.OpAmin, a)
	case p == 0:
		r = red(kernel.OpSum, a.NeScalar(0).ToDType(cd))
	case p == 1:
		r = red(kernel.OpSum, a)
	case p == 2:
		r = red(kernel.OpSum, a.Mul(a)).Sqrt()
	default:
		r = red(kernel.OpSum, a.PowScalar(p)).PowScalar(1 / p)
	}
	return writeOutput(c, 0, r)
}

// decomposeCopysign is copysign as |x| with y's sign bit (signbit, so that
// -0 and a negative NaN count as negative, as C's copysign): exact, in the
// output's dtype (float32 for float16 and bfloat16, then rounded, which
// changes nothing).
func decomposeCopysign(c *kernel.Call) error {
	x, y := binaryOperands(c, opMath(c.Out[0].DType))
	a := x.Abs()
	return writeOutput(c, 0, Where(y.Signbit(), a.Neg(), a))
}
