package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// Logit returns log(t / (1 - t)), elementwise (torch.logit without eps).
func (t *Tensor) Logit() *Tensor { return unary(kernel.OpLogit, t, 0, kernel.FloatScalar(-1)) }

// LogitEps is Logit of t clamped to [eps, 1-eps] first (torch.logit(t, eps));
// a negative eps clamps nothing.
func (t *Tensor) LogitEps(eps float64) *Tensor {
	return unary(kernel.OpLogit, t, 0, kernel.FloatScalar(eps))
}

// Logit_ is Logit in place; it returns t.
func (t *Tensor) Logit_() *Tensor { return unaryInPlace(kernel.OpLogit, t, 0, kernel.FloatScalar(-1)) }

// Softsign returns t / (1 + |t|), elementwise (F.softsign, which PyTorch
// composes of these ops too).
func (t *Tensor) Softsign() *Tensor { return t.Div(t.Abs().AddScalar(1)) }

// IsClose returns whether each element of t is within atol + rtol*|other|
// of other (broadcasting), as torch.isclose: infinities are close only to
// themselves, and NaNs to NaNs when equalNaN is set.
func (t *Tensor) IsClose(other *Tensor, rtol, atol float64, equalNaN bool) *Tensor {
	if r := passOn(kernel.OpEq, t, other); r != nil {
		return r
	}
	if t.dtype != other.dtype {
		return failed(t.opError("isclose", ErrDType, "%v did not match %v", t.dtype, other.dtype))
	}
	if rtol < 0 {
		return failed(t.opError("isclose", ErrArgument, "rtol must be greater than or equal to zero, but got %v", rtol))
	}
	if atol < 0 {
		return failed(t.opError("isclose", ErrArgument, "atol must be greater than or equal to zero, but got %v", atol))
	}
	close := t.Eq(other)
	if equalNaN {
		close = close.LogicalOr(t.IsNan().LogicalAnd(other.IsNan()))
	}
	if t.dtype == Bool || !t.dtype.IsFloatingPoint() && atol == 0 && rtol == 0 {
		return close
	}
	// |t - other| <= atol + rtol*|other|, computed in a floating dtype;
	// only finite values can be close without being equal.
	a, b := t, other
	if !t.dtype.IsFloatingPoint() {
		a, b = t.ToDType(DefaultDType()), other.ToDType(DefaultDType())
	}
	within := a.Sub(b).Abs().Le(b.Abs().MulScalar(rtol).AddScalar(atol))
	return close.LogicalOr(within.LogicalAnd(a.IsFinite()).LogicalAnd(b.IsFinite()))
}
