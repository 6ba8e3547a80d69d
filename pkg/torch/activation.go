package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// LeakyRelu returns t where t > 0, else slope*t.
func (t *Tensor) LeakyRelu(slope float64) *Tensor {
	return unary(kernel.OpLeakyRelu, t, 0, kernel.FloatScalar(slope))
}

// LeakyRelu_ is LeakyRelu in place; it returns t.
func (t *Tensor) LeakyRelu_(slope float64) *Tensor {
	return unaryInPlace(kernel.OpLeakyRelu, t, 0, kernel.FloatScalar(slope))
}

// Elu returns t where t > 0, else alpha*(e^t - 1).
func (t *Tensor) Elu(alpha float64) *Tensor {
	return unary(kernel.OpElu, t, 0, kernel.FloatScalar(alpha))
}

// Elu_ is Elu in place; it returns t.
func (t *Tensor) Elu_(alpha float64) *Tensor {
	return unaryInPlace(kernel.OpElu, t, 0, kernel.FloatScalar(alpha))
}

// Softplus returns log(1 + e^(beta*t))/beta, and t where beta*t > threshold.
func (t *Tensor) Softplus(beta, threshold float64) *Tensor {
	return unary(kernel.OpSoftplus, t, 0, kernel.FloatScalar(beta), kernel.FloatScalar(threshold))
}

// Clamp limits t to [lo, hi]; a nil bound is absent. NaN stays NaN, and a
// NaN bound gives NaN everywhere (PyTorch 2.x).
func (t *Tensor) Clamp(lo, hi any) *Tensor { return t.clampWith(unary, "clamp", lo, hi) }

// Clamp_ is Clamp in place; it returns t (carrying the error of a failure).
func (t *Tensor) Clamp_(lo, hi any) *Tensor {
	return t.keepFailure(t.clampWith(unaryInPlace, "clamp_", lo, hi))
}

// clampWith runs clamp of t with the bounds lo and hi through run (the
// allocating, in-place or out= form of a one-input op).
func (t *Tensor) clampWith(run func(kernel.OpID, *Tensor, int, ...kernel.Scalar) *Tensor, name string, lo, hi any) *Tensor {
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	mode, s, err := clampBounds(lo, hi)
	if err != nil {
		return t.fail(name, err)
	}
	return run(kernel.OpClamp, t, mode, s[0], s[1])
}

// clampBounds reads clamp's bounds (nil: absent) into its mode bits
// (kernel.ClampMin, kernel.ClampMax) and scalars.
func clampBounds(lo, hi any) (int, [2]kernel.Scalar, error) {
	mode := 0
	var s [2]kernel.Scalar
	for i, v := range []any{lo, hi} {
		if v == nil {
			continue
		}
		sc, err := kernel.ScalarOf(v)
		if err != nil {
			return 0, s, err
		}
		s[i] = sc
		mode |= kernel.ClampMin << i
	}
	if mode == 0 {
		return 0, s, kernel.Errorf(ErrArgument, "At least one of 'min' or 'max' must not be None")
	}
	return mode, s, nil
}

// ClampTensor limits t elementwise to [lo, hi] given as tensors (nil: absent).
func (t *Tensor) ClampTensor(lo, hi *Tensor) *Tensor {
	if err := inputErr("clamp", t); err != nil {
		return failed(err)
	}
	switch {
	case lo == nil && hi == nil:
		return t.fail("clamp", kernel.Errorf(ErrArgument, "At least one of 'min' or 'max' must not be None"))
	case hi == nil:
		return t.Maximum(lo)
	case lo == nil:
		return t.Minimum(hi)
	}
	return runOp(kernel.OpClampTensor, nil, t, lo, hi)
}

// ClampTensor_ is ClampTensor in place; it returns t (carrying the error
// of a failure).
func (t *Tensor) ClampTensor_(lo, hi *Tensor) *Tensor {
	if err := inputErr("clamp_", t); err != nil {
		return failed(err)
	}
	switch {
	case lo == nil && hi == nil:
		return t.keepFailure(t.fail("clamp_", kernel.Errorf(ErrArgument, "At least one of 'min' or 'max' must not be None")))
	case hi == nil:
		return binaryInPlace(kernel.OpMaximum, t, lo, nil, 0, kernel.Scalar{})
	case lo == nil:
		return binaryInPlace(kernel.OpMinimum, t, hi, nil, 0, kernel.Scalar{})
	}
	return t.runOpInPlace(kernel.OpClampTensor, nil, true, lo, hi)
}

// NanToNum replaces NaN by nan, +Inf by posinf and -Inf by neginf; nil
// bounds take the largest and smallest finite values of t's dtype.
func (t *Tensor) NanToNum(nan float64, posinf, neginf *float64) *Tensor {
	return t.nanToNumWith(unary, nan, posinf, neginf)
}

// NanToNum_ is NanToNum in place; it returns t.
func (t *Tensor) NanToNum_(nan float64, posinf, neginf *float64) *Tensor {
	return t.nanToNumWith(unaryInPlace, nan, posinf, neginf)
}

// nanToNumWith runs nan_to_num of t through run (the allocating, in-place
// or out= form of a one-input op).
func (t *Tensor) nanToNumWith(run func(kernel.OpID, *Tensor, int, ...kernel.Scalar) *Tensor, nan float64, posinf, neginf *float64) *Tensor {
	if err := inputErr("nan_to_num", t); err != nil {
		return failed(err)
	}
	hi := t.dtype.MaxFloat()
	p, n := hi, -hi
	if posinf != nil {
		p = *posinf
	}
	if neginf != nil {
		n = *neginf
	}
	return run(kernel.OpNanToNum, t, 0, kernel.FloatScalar(nan), kernel.FloatScalar(p), kernel.FloatScalar(n))
}

// Where returns a where cond is true, else b (cond is bool; all broadcast).
func Where(cond, a, b *Tensor) *Tensor { return runOp(kernel.OpWhere, nil, cond, a, b) }

// Lerp returns start + weight*(end - start).
func Lerp(start, end, weight *Tensor) *Tensor { return runOp(kernel.OpLerp, nil, start, end, weight) }

// Lerp_ is Lerp in place, with t as start; it returns t.
func (t *Tensor) Lerp_(end, weight *Tensor) *Tensor {
	// The weight's derivative reads start's value from before the write.
	return t.runOpInPlace(kernel.OpLerp, nil, weight != nil && weight.requiresGrad, end, weight)
}

// LerpScalar_ is LerpScalar in place, with t as start; it returns t.
func (t *Tensor) LerpScalar_(end *Tensor, weight float64) *Tensor {
	return t.runOpInPlace(kernel.OpLerp, func(c *kernel.Call) error {
		c.Scalars[0] = kernel.FloatScalar(weight)
		return nil
	}, false, end)
}

// MaskedFill returns t with value where mask (bool) is true. t and mask
// broadcast together, as PyTorch's masked_fill (1.13 and 2.x): a mask of
// more dims or larger sizes than t gives a result of the broadcast shape.
func (t *Tensor) MaskedFill(mask *Tensor, value any) *Tensor {
	c, err := maskedFillCall(t, mask, value)
	if err != nil {
		return failed(err)
	}
	out := run(c)
	if recording(t) {
		recordMaskedFill(t, mask, out)
	}
	return out
}

// MaskedFill_ is MaskedFill in place; it returns t (carrying the error of
// a failure).
func (t *Tensor) MaskedFill_(mask *Tensor, value any) *Tensor {
	return t.keepFailure(t.maskedFill_(mask, value))
}

func (t *Tensor) maskedFill_(mask *Tensor, value any) *Tensor {
	if err := inputErr("masked_fill_", t, mask); err != nil {
		return failed(err)
	}
	if err := t.checkWritable("masked_fill_"); err != nil {
		return failed(err)
	}
	var after func()
	if recording(t) {
		if err := checkLeafWrite(t, "masked_fill_"); err != nil {
			return failed(err)
		}
		prev := previous(t, false)
		after = func() { rebase(t, func(out *Tensor) { recordMaskedFill(prev, mask, out) }) }
	}
	c, err := maskedFillCall(t, mask, value)
	if err != nil {
		return failed(err)
	}
	if y := runInPlace(c, t); y.err != nil || after == nil {
		return y
	}
	after()
	return t
}

// maskedFillCall builds the call of masked_fill.
func maskedFillCall(t, mask *Tensor, value any) (*kernel.Call, error) {
	if err := inputErr("masked_fill", t, mask); err != nil {
		return nil, err
	}
	s, err := kernel.ScalarOf(value)
	if err != nil {
		return nil, t.opError("masked_fill", kernel.ErrArgument, "%v", err)
	}
	dev, err := deviceOf(kernel.OpMaskedFill, t, mask)
	if err != nil {
		return nil, err
	}
	c := dispatch.NewCall(kernel.OpMaskedFill, dev, 2, 1)
	c.In[0], c.In[1] = t.operand(), mask.operand()
	c.Scalars[0] = s
	return c, nil
}

// recordMaskedFill records out = in.MaskedFill(mask, v): the gradient flows
// where the mask is false.
func recordMaskedFill(in, mask, out *Tensor) {
	out.setGradFn("MaskedFillBackward0", []*Tensor{in}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		return []*Tensor{fitGrad(g.MaskedFill(mask, 0), in)}
	})
}

// LerpScalar returns start + weight*(end - start) for a Go scalar weight.
func LerpScalar(start, end *Tensor, weight float64) *Tensor {
	return runOp(kernel.OpLerp, func(c *kernel.Call) error {
		c.Scalars[0] = kernel.FloatScalar(weight)
		return nil
	}, start, end)
}

// ThresholdBackward is the gradient of threshold and relu, as PyTorch's
// threshold_backward: g where x > threshold, else 0.
func ThresholdBackward(g, x *Tensor, threshold float64) *Tensor {
	return runOp(kernel.OpThresholdBackward, func(c *kernel.Call) error {
		c.Scalars[0] = kernel.FloatScalar(threshold)
		return nil
	}, g, x)
}
