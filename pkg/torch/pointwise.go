// The pointwise ops as Tensor methods: a tensor form, a Go-scalar form, and
// an in-place form (trailing underscore) where PyTorch has one.

package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

var one = kernel.IntScalar(1)

// Add returns t + other, broadcasting and promoting dtypes as PyTorch.
func (t *Tensor) Add(other *Tensor) *Tensor { return binary(kernel.OpAdd, t, other, 0, one) }

// AddScalar returns t + v for a Go scalar v.
func (t *Tensor) AddScalar(v any) *Tensor { return binaryScalar(kernel.OpAdd, t, v, 0, one) }

// AddAlpha returns t + alpha*other.
func (t *Tensor) AddAlpha(other *Tensor, alpha any) *Tensor {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return failed(withOp("add", err))
	}
	return binary(kernel.OpAdd, t, other, 0, a)
}

// Add_ adds other to t in place and returns t.
func (t *Tensor) Add_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpAdd, t, other, nil, 0, one)
}

// AddAlpha_ adds alpha*other to t in place and returns t (PyTorch's
// add_(other, alpha=alpha)).
func (t *Tensor) AddAlpha_(other *Tensor, alpha any) *Tensor {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return t.keepFailure(failed(withOp("add_", err)))
	}
	return binaryInPlace(kernel.OpAdd, t, other, nil, 0, a)
}

// AddScalar_ adds a Go scalar to t in place and returns t.
func (t *Tensor) AddScalar_(v any) *Tensor { return binaryInPlace(kernel.OpAdd, t, nil, v, 0, one) }

// Sub returns t - other.
func (t *Tensor) Sub(other *Tensor) *Tensor { return binary(kernel.OpSub, t, other, 0, one) }

// SubScalar returns t - v for a Go scalar v.
func (t *Tensor) SubScalar(v any) *Tensor { return binaryScalar(kernel.OpSub, t, v, 0, one) }

// SubAlpha returns t - alpha*other.
func (t *Tensor) SubAlpha(other *Tensor, alpha any) *Tensor {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return failed(withOp("sub", err))
	}
	return binary(kernel.OpSub, t, other, 0, a)
}

// Sub_ subtracts other from t in place and returns t.
func (t *Tensor) Sub_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpSub, t, other, nil, 0, one)
}

// SubScalar_ subtracts a Go scalar from t in place and returns t.
func (t *Tensor) SubScalar_(v any) *Tensor { return binaryInPlace(kernel.OpSub, t, nil, v, 0, one) }

// Mul returns the elementwise product t * other.
func (t *Tensor) Mul(other *Tensor) *Tensor {
	return binary(kernel.OpMul, t, other, 0, kernel.Scalar{})
}

// MulScalar is Mul with a Go scalar v.
func (t *Tensor) MulScalar(v any) *Tensor {
	return binaryScalar(kernel.OpMul, t, v, 0, kernel.Scalar{})
}

// Mul_ is Mul in place; it returns t.
func (t *Tensor) Mul_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpMul, t, other, nil, 0, kernel.Scalar{})
}

// MulScalar_ is MulScalar in place; it returns t.
func (t *Tensor) MulScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpMul, t, nil, v, 0, kernel.Scalar{})
}

// Div returns true division t / other (integers divide as floats).
func (t *Tensor) Div(other *Tensor) *Tensor {
	return binary(kernel.OpDiv, t, other, kernel.RoundNone, kernel.Scalar{})
}

// DivScalar is Div with a Go scalar v.
func (t *Tensor) DivScalar(v any) *Tensor {
	return binaryScalar(kernel.OpDiv, t, v, kernel.RoundNone, kernel.Scalar{})
}

// Div_ is Div in place; it returns t.
func (t *Tensor) Div_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, other, nil, kernel.RoundNone, kernel.Scalar{})
}

// DivScalar_ is DivScalar in place; it returns t.
func (t *Tensor) DivScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, nil, v, kernel.RoundNone, kernel.Scalar{})
}

// DivTrunc returns division rounded toward zero (rounding_mode='trunc').
func (t *Tensor) DivTrunc(other *Tensor) *Tensor {
	return binary(kernel.OpDiv, t, other, kernel.RoundTrunc, kernel.Scalar{})
}

// DivTruncScalar is DivTrunc with a Go scalar v.
func (t *Tensor) DivTruncScalar(v any) *Tensor {
	return binaryScalar(kernel.OpDiv, t, v, kernel.RoundTrunc, kernel.Scalar{})
}

// DivTrunc_ is DivTrunc in place; it returns t.
func (t *Tensor) DivTrunc_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, other, nil, kernel.RoundTrunc, kernel.Scalar{})
}

// DivTruncScalar_ is DivTruncScalar in place; it returns t.
func (t *Tensor) DivTruncScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, nil, v, kernel.RoundTrunc, kernel.Scalar{})
}

// DivFloor returns division rounded toward negative infinity (rounding_mode='floor').
func (t *Tensor) DivFloor(other *Tensor) *Tensor {
	return binary(kernel.OpDiv, t, other, kernel.RoundFloor, kernel.Scalar{})
}

// DivFloorScalar is DivFloor with a Go scalar v.
func (t *Tensor) DivFloorScalar(v any) *Tensor {
	return binaryScalar(kernel.OpDiv, t, v, kernel.RoundFloor, kernel.Scalar{})
}

// DivFloor_ is DivFloor in place; it returns t.
func (t *Tensor) DivFloor_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, other, nil, kernel.RoundFloor, kernel.Scalar{})
}

// DivFloorScalar_ is DivFloorScalar in place; it returns t.
func (t *Tensor) DivFloorScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, nil, v, kernel.RoundFloor, kernel.Scalar{})
}

// FloorDivide returns floor division, as torch.floor_divide.
func (t *Tensor) FloorDivide(other *Tensor) *Tensor {
	return binary(kernel.OpDiv, t, other, kernel.RoundFloor, kernel.Scalar{})
}

// FloorDivide_ is FloorDivide in place; it returns t.
func (t *Tensor) FloorDivide_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpDiv, t, other, nil, kernel.RoundFloor, kernel.Scalar{})
}

// FloorDivideScalar is FloorDivide with a Go scalar v.
func (t *Tensor) FloorDivideScalar(v any) *Tensor {
	return binaryScalar(kernel.OpDiv, t, v, kernel.RoundFloor, kernel.Scalar{})
}

// Remainder returns the remainder with the sign of the divisor (Python's %).
func (t *Tensor) Remainder(other *Tensor) *Tensor {
	return binary(kernel.OpRemainder, t, other, 0, kernel.Scalar{})
}

// RemainderScalar is Remainder with a Go scalar v.
func (t *Tensor) RemainderScalar(v any) *Tensor {
	return binaryScalar(kernel.OpRemainder, t, v, 0, kernel.Scalar{})
}

// Remainder_ is Remainder in place; it returns t.
func (t *Tensor) Remainder_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpRemainder, t, other, nil, 0, kernel.Scalar{})
}

// RemainderScalar_ is RemainderScalar in place; it returns t.
func (t *Tensor) RemainderScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpRemainder, t, nil, v, 0, kernel.Scalar{})
}

// Fmod returns the remainder with the sign of the dividend (C's fmod).
func (t *Tensor) Fmod(other *Tensor) *Tensor {
	return binary(kernel.OpFmod, t, other, 0, kernel.Scalar{})
}

// FmodScalar is Fmod with a Go scalar v.
func (t *Tensor) FmodScalar(v any) *Tensor {
	return binaryScalar(kernel.OpFmod, t, v, 0, kernel.Scalar{})
}

// Fmod_ is Fmod in place; it returns t.
func (t *Tensor) Fmod_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpFmod, t, other, nil, 0, kernel.Scalar{})
}

// FmodScalar_ is FmodScalar in place; it returns t.
func (t *Tensor) FmodScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpFmod, t, nil, v, 0, kernel.Scalar{})
}

// Pow returns t raised to the power other.
func (t *Tensor) Pow(other *Tensor) *Tensor {
	return binary(kernel.OpPow, t, other, 0, kernel.Scalar{})
}

// PowScalar is Pow with a Go scalar v.
func (t *Tensor) PowScalar(v any) *Tensor {
	return binaryScalar(kernel.OpPow, t, v, 0, kernel.Scalar{})
}

// Pow_ is Pow in place; it returns t.
func (t *Tensor) Pow_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpPow, t, other, nil, 0, kernel.Scalar{})
}

// PowScalar_ is PowScalar in place; it returns t.
func (t *Tensor) PowScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpPow, t, nil, v, 0, kernel.Scalar{})
}

// Maximum returns the elementwise maximum (NaN propagates).
func (t *Tensor) Maximum(other *Tensor) *Tensor {
	return binary(kernel.OpMaximum, t, other, 0, kernel.Scalar{})
}

// MaximumScalar is Maximum with a Go scalar v.
func (t *Tensor) MaximumScalar(v any) *Tensor {
	return binaryScalar(kernel.OpMaximum, t, v, 0, kernel.Scalar{})
}

// Minimum returns the elementwise minimum (NaN propagates).
func (t *Tensor) Minimum(other *Tensor) *Tensor {
	return binary(kernel.OpMinimum, t, other, 0, kernel.Scalar{})
}

// MinimumScalar is Minimum with a Go scalar v.
func (t *Tensor) MinimumScalar(v any) *Tensor {
	return binaryScalar(kernel.OpMinimum, t, v, 0, kernel.Scalar{})
}

// Atan2 returns the angle of the point (other, t).
func (t *Tensor) Atan2(other *Tensor) *Tensor {
	return binary(kernel.OpAtan2, t, other, 0, kernel.Scalar{})
}

// Atan2_ is Atan2 in place; it returns t.
func (t *Tensor) Atan2_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpAtan2, t, other, nil, 0, kernel.Scalar{})
}

// Atan2Scalar is Atan2 with a Go scalar v.
func (t *Tensor) Atan2Scalar(v any) *Tensor {
	return binaryScalar(kernel.OpAtan2, t, v, 0, kernel.Scalar{})
}

// BitwiseAnd returns the bitwise and of integer or bool tensors.
func (t *Tensor) BitwiseAnd(other *Tensor) *Tensor {
	return binary(kernel.OpBitwiseAnd, t, other, 0, kernel.Scalar{})
}

// BitwiseAndScalar is BitwiseAnd with a Go scalar v.
func (t *Tensor) BitwiseAndScalar(v any) *Tensor {
	return binaryScalar(kernel.OpBitwiseAnd, t, v, 0, kernel.Scalar{})
}

// BitwiseAnd_ is BitwiseAnd in place; it returns t.
func (t *Tensor) BitwiseAnd_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpBitwiseAnd, t, other, nil, 0, kernel.Scalar{})
}

// BitwiseAndScalar_ is BitwiseAndScalar in place; it returns t.
func (t *Tensor) BitwiseAndScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpBitwiseAnd, t, nil, v, 0, kernel.Scalar{})
}

// BitwiseOr returns the bitwise or of integer or bool tensors.
func (t *Tensor) BitwiseOr(other *Tensor) *Tensor {
	return binary(kernel.OpBitwiseOr, t, other, 0, kernel.Scalar{})
}

// BitwiseOrScalar is BitwiseOr with a Go scalar v.
func (t *Tensor) BitwiseOrScalar(v any) *Tensor {
	return binaryScalar(kernel.OpBitwiseOr, t, v, 0, kernel.Scalar{})
}

// BitwiseOr_ is BitwiseOr in place; it returns t.
func (t *Tensor) BitwiseOr_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpBitwiseOr, t, other, nil, 0, kernel.Scalar{})
}

// BitwiseOrScalar_ is BitwiseOrScalar in place; it returns t.
func (t *Tensor) BitwiseOrScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpBitwiseOr, t, nil, v, 0, kernel.Scalar{})
}

// BitwiseXor returns the bitwise xor of integer or bool tensors.
func (t *Tensor) BitwiseXor(other *Tensor) *Tensor {
	return binary(kernel.OpBitwiseXor, t, other, 0, kernel.Scalar{})
}

// BitwiseXorScalar is BitwiseXor with a Go scalar v.
func (t *Tensor) BitwiseXorScalar(v any) *Tensor {
	return binaryScalar(kernel.OpBitwiseXor, t, v, 0, kernel.Scalar{})
}

// BitwiseXor_ is BitwiseXor in place; it returns t.
func (t *Tensor) BitwiseXor_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpBitwiseXor, t, other, nil, 0, kernel.Scalar{})
}

// BitwiseXorScalar_ is BitwiseXorScalar in place; it returns t.
func (t *Tensor) BitwiseXorScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpBitwiseXor, t, nil, v, 0, kernel.Scalar{})
}

// LogicalAnd returns the logical and (bool result).
func (t *Tensor) LogicalAnd(other *Tensor) *Tensor {
	return binary(kernel.OpLogicalAnd, t, other, 0, kernel.Scalar{})
}

// LogicalAndScalar is LogicalAnd with a Go scalar v.
func (t *Tensor) LogicalAndScalar(v any) *Tensor {
	return binaryScalar(kernel.OpLogicalAnd, t, v, 0, kernel.Scalar{})
}

// LogicalAnd_ writes LogicalAnd(t, other) into t, as 1 or 0 in t's dtype; it
// returns t.
func (t *Tensor) LogicalAnd_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpLogicalAnd, t, other, nil, 0, kernel.Scalar{})
}

// LogicalOr returns the logical or (bool result).
func (t *Tensor) LogicalOr(other *Tensor) *Tensor {
	return binary(kernel.OpLogicalOr, t, other, 0, kernel.Scalar{})
}

// LogicalOrScalar is LogicalOr with a Go scalar v.
func (t *Tensor) LogicalOrScalar(v any) *Tensor {
	return binaryScalar(kernel.OpLogicalOr, t, v, 0, kernel.Scalar{})
}

// LogicalOr_ writes LogicalOr(t, other) into t, as 1 or 0 in t's dtype; it
// returns t.
func (t *Tensor) LogicalOr_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpLogicalOr, t, other, nil, 0, kernel.Scalar{})
}

// LogicalXor returns the logical xor (bool result).
func (t *Tensor) LogicalXor(other *Tensor) *Tensor {
	return binary(kernel.OpLogicalXor, t, other, 0, kernel.Scalar{})
}

// LogicalXorScalar is LogicalXor with a Go scalar v.
func (t *Tensor) LogicalXorScalar(v any) *Tensor {
	return binaryScalar(kernel.OpLogicalXor, t, v, 0, kernel.Scalar{})
}

// LogicalXor_ writes LogicalXor(t, other) into t, as 1 or 0 in t's dtype; it
// returns t.
func (t *Tensor) LogicalXor_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpLogicalXor, t, other, nil, 0, kernel.Scalar{})
}

// Eq returns t == other (bool result).
func (t *Tensor) Eq(other *Tensor) *Tensor { return binary(kernel.OpEq, t, other, 0, kernel.Scalar{}) }

// EqScalar is Eq with a Go scalar v.
func (t *Tensor) EqScalar(v any) *Tensor { return binaryScalar(kernel.OpEq, t, v, 0, kernel.Scalar{}) }

// Eq_ writes t == other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Eq_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpEq, t, other, nil, 0, kernel.Scalar{})
}

// EqScalar_ is Eq_ with a Go scalar v.
func (t *Tensor) EqScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpEq, t, nil, v, 0, kernel.Scalar{})
}

// Ne returns t != other (bool result).
func (t *Tensor) Ne(other *Tensor) *Tensor { return binary(kernel.OpNe, t, other, 0, kernel.Scalar{}) }

// NeScalar is Ne with a Go scalar v.
func (t *Tensor) NeScalar(v any) *Tensor { return binaryScalar(kernel.OpNe, t, v, 0, kernel.Scalar{}) }

// Ne_ writes t != other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Ne_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpNe, t, other, nil, 0, kernel.Scalar{})
}

// NeScalar_ is Ne_ with a Go scalar v.
func (t *Tensor) NeScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpNe, t, nil, v, 0, kernel.Scalar{})
}

// Lt returns t < other (bool result).
func (t *Tensor) Lt(other *Tensor) *Tensor { return binary(kernel.OpLt, t, other, 0, kernel.Scalar{}) }

// LtScalar is Lt with a Go scalar v.
func (t *Tensor) LtScalar(v any) *Tensor { return binaryScalar(kernel.OpLt, t, v, 0, kernel.Scalar{}) }

// Lt_ writes t < other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Lt_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpLt, t, other, nil, 0, kernel.Scalar{})
}

// LtScalar_ is Lt_ with a Go scalar v.
func (t *Tensor) LtScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpLt, t, nil, v, 0, kernel.Scalar{})
}

// Le returns t <= other (bool result).
func (t *Tensor) Le(other *Tensor) *Tensor { return binary(kernel.OpLe, t, other, 0, kernel.Scalar{}) }

// LeScalar is Le with a Go scalar v.
func (t *Tensor) LeScalar(v any) *Tensor { return binaryScalar(kernel.OpLe, t, v, 0, kernel.Scalar{}) }

// Le_ writes t <= other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Le_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpLe, t, other, nil, 0, kernel.Scalar{})
}

// LeScalar_ is Le_ with a Go scalar v.
func (t *Tensor) LeScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpLe, t, nil, v, 0, kernel.Scalar{})
}

// Gt returns t > other (bool result).
func (t *Tensor) Gt(other *Tensor) *Tensor { return binary(kernel.OpGt, t, other, 0, kernel.Scalar{}) }

// GtScalar is Gt with a Go scalar v.
func (t *Tensor) GtScalar(v any) *Tensor { return binaryScalar(kernel.OpGt, t, v, 0, kernel.Scalar{}) }

// Gt_ writes t > other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Gt_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpGt, t, other, nil, 0, kernel.Scalar{})
}

// GtScalar_ is Gt_ with a Go scalar v.
func (t *Tensor) GtScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpGt, t, nil, v, 0, kernel.Scalar{})
}

// Ge returns t >= other (bool result).
func (t *Tensor) Ge(other *Tensor) *Tensor { return binary(kernel.OpGe, t, other, 0, kernel.Scalar{}) }

// GeScalar is Ge with a Go scalar v.
func (t *Tensor) GeScalar(v any) *Tensor { return binaryScalar(kernel.OpGe, t, v, 0, kernel.Scalar{}) }

// Ge_ writes t >= other into t, as 1 or 0 in t's dtype; it returns t.
func (t *Tensor) Ge_(other *Tensor) *Tensor {
	return binaryInPlace(kernel.OpGe, t, other, nil, 0, kernel.Scalar{})
}

// GeScalar_ is Ge_ with a Go scalar v.
func (t *Tensor) GeScalar_(v any) *Tensor {
	return binaryInPlace(kernel.OpGe, t, nil, v, 0, kernel.Scalar{})
}

// Neg returns -t, elementwise.
func (t *Tensor) Neg() *Tensor { return unary(kernel.OpNeg, t, 0) }

// Neg_ is Neg in place; it returns t.
func (t *Tensor) Neg_() *Tensor { return unaryInPlace(kernel.OpNeg, t, 0) }

// Abs returns |t|, elementwise.
func (t *Tensor) Abs() *Tensor { return unary(kernel.OpAbs, t, 0) }

// Abs_ is Abs in place; it returns t.
func (t *Tensor) Abs_() *Tensor { return unaryInPlace(kernel.OpAbs, t, 0) }

// Sign returns the sign of t: -1, 0 or 1, elementwise.
func (t *Tensor) Sign() *Tensor { return unary(kernel.OpSign, t, 0) }

// Sign_ is Sign in place; it returns t.
func (t *Tensor) Sign_() *Tensor { return unaryInPlace(kernel.OpSign, t, 0) }

// Exp returns e^t, elementwise.
func (t *Tensor) Exp() *Tensor { return unary(kernel.OpExp, t, 0) }

// Exp_ is Exp in place; it returns t.
func (t *Tensor) Exp_() *Tensor { return unaryInPlace(kernel.OpExp, t, 0) }

// Exp2 returns 2^t, elementwise.
func (t *Tensor) Exp2() *Tensor { return unary(kernel.OpExp2, t, 0) }

// Exp2_ is Exp2 in place; it returns t.
func (t *Tensor) Exp2_() *Tensor { return unaryInPlace(kernel.OpExp2, t, 0) }

// Expm1 returns e^t - 1, exact near 0, elementwise.
func (t *Tensor) Expm1() *Tensor { return unary(kernel.OpExpm1, t, 0) }

// Expm1_ is Expm1 in place; it returns t.
func (t *Tensor) Expm1_() *Tensor { return unaryInPlace(kernel.OpExpm1, t, 0) }

// Log returns the natural logarithm, elementwise.
func (t *Tensor) Log() *Tensor { return unary(kernel.OpLog, t, 0) }

// Log_ is Log in place; it returns t.
func (t *Tensor) Log_() *Tensor { return unaryInPlace(kernel.OpLog, t, 0) }

// Log2 returns the base-2 logarithm, elementwise.
func (t *Tensor) Log2() *Tensor { return unary(kernel.OpLog2, t, 0) }

// Log2_ is Log2 in place; it returns t.
func (t *Tensor) Log2_() *Tensor { return unaryInPlace(kernel.OpLog2, t, 0) }

// Log10 returns the base-10 logarithm, elementwise.
func (t *Tensor) Log10() *Tensor { return unary(kernel.OpLog10, t, 0) }

// Log10_ is Log10 in place; it returns t.
func (t *Tensor) Log10_() *Tensor { return unaryInPlace(kernel.OpLog10, t, 0) }

// Log1p returns log(1 + t), exact near 0, elementwise.
func (t *Tensor) Log1p() *Tensor { return unary(kernel.OpLog1p, t, 0) }

// Log1p_ is Log1p in place; it returns t.
func (t *Tensor) Log1p_() *Tensor { return unaryInPlace(kernel.OpLog1p, t, 0) }

// Sqrt returns the square root, elementwise.
func (t *Tensor) Sqrt() *Tensor { return unary(kernel.OpSqrt, t, 0) }

// Sqrt_ is Sqrt in place; it returns t.
func (t *Tensor) Sqrt_() *Tensor { return unaryInPlace(kernel.OpSqrt, t, 0) }

// Rsqrt returns 1 / sqrt(t), elementwise.
func (t *Tensor) Rsqrt() *Tensor { return unary(kernel.OpRsqrt, t, 0) }

// Rsqrt_ is Rsqrt in place; it returns t.
func (t *Tensor) Rsqrt_() *Tensor { return unaryInPlace(kernel.OpRsqrt, t, 0) }

// Square returns t * t, elementwise.
func (t *Tensor) Square() *Tensor { return unary(kernel.OpSquare, t, 0) }

// Square_ is Square in place; it returns t.
func (t *Tensor) Square_() *Tensor { return unaryInPlace(kernel.OpSquare, t, 0) }

// Reciprocal returns 1 / t, elementwise.
func (t *Tensor) Reciprocal() *Tensor { return unary(kernel.OpReciprocal, t, 0) }

// Reciprocal_ is Reciprocal in place; it returns t.
func (t *Tensor) Reciprocal_() *Tensor { return unaryInPlace(kernel.OpReciprocal, t, 0) }

// Sin returns the sine, elementwise.
func (t *Tensor) Sin() *Tensor { return unary(kernel.OpSin, t, 0) }

// Sin_ is Sin in place; it returns t.
func (t *Tensor) Sin_() *Tensor { return unaryInPlace(kernel.OpSin, t, 0) }

// Cos returns the cosine, elementwise.
func (t *Tensor) Cos() *Tensor { return unary(kernel.OpCos, t, 0) }

// Cos_ is Cos in place; it returns t.
func (t *Tensor) Cos_() *Tensor { return unaryInPlace(kernel.OpCos, t, 0) }

// Tan returns the tangent, elementwise.
func (t *Tensor) Tan() *Tensor { return unary(kernel.OpTan, t, 0) }

// Tan_ is Tan in place; it returns t.
func (t *Tensor) Tan_() *Tensor { return unaryInPlace(kernel.OpTan, t, 0) }

// Asin returns the arcsine, elementwise.
func (t *Tensor) Asin() *Tensor { return unary(kernel.OpAsin, t, 0) }

// Asin_ is Asin in place; it returns t.
func (t *Tensor) Asin_() *Tensor { return unaryInPlace(kernel.OpAsin, t, 0) }

// Acos returns the arccosine, elementwise.
func (t *Tensor) Acos() *Tensor { return unary(kernel.OpAcos, t, 0) }

// Acos_ is Acos in place; it returns t.
func (t *Tensor) Acos_() *Tensor { return unaryInPlace(kernel.OpAcos, t, 0) }

// Atan returns the arctangent, elementwise.
func (t *Tensor) Atan() *Tensor { return unary(kernel.OpAtan, t, 0) }

// Atan_ is Atan in place; it returns t.
func (t *Tensor) Atan_() *Tensor { return unaryInPlace(kernel.OpAtan, t, 0) }

// Sinh returns the hyperbolic sine, elementwise.
func (t *Tensor) Sinh() *Tensor { return unary(kernel.OpSinh, t, 0) }

// Sinh_ is Sinh in place; it returns t.
func (t *Tensor) Sinh_() *Tensor { return unaryInPlace(kernel.OpSinh, t, 0) }

// Cosh returns the hyperbolic cosine, elementwise.
func (t *Tensor) Cosh() *Tensor { return unary(kernel.OpCosh, t, 0) }

// Cosh_ is Cosh in place; it returns t.
func (t *Tensor) Cosh_() *Tensor { return unaryInPlace(kernel.OpCosh, t, 0) }

// Tanh returns the hyperbolic tangent, elementwise.
func (t *Tensor) Tanh() *Tensor { return unary(kernel.OpTanh, t, 0) }

// Tanh_ is Tanh in place; it returns t.
func (t *Tensor) Tanh_() *Tensor { return unaryInPlace(kernel.OpTanh, t, 0) }

// Sigmoid returns 1 / (1 + e^-t), elementwise.
func (t *Tensor) Sigmoid() *Tensor { return unary(kernel.OpSigmoid, t, 0) }

// Sigmoid_ is Sigmoid in place; it returns t.
func (t *Tensor) Sigmoid_() *Tensor { return unaryInPlace(kernel.OpSigmoid, t, 0) }

// Relu returns max(t, 0), elementwise.
func (t *Tensor) Relu() *Tensor { return unary(kernel.OpRelu, t, 0) }

// Relu_ is Relu in place; it returns t.
func (t *Tensor) Relu_() *Tensor { return unaryInPlace(kernel.OpRelu, t, 0) }

// Relu6 returns min(max(t, 0), 6), elementwise.
func (t *Tensor) Relu6() *Tensor { return unary(kernel.OpRelu6, t, 0) }

// Relu6_ is Relu6 in place; it returns t.
func (t *Tensor) Relu6_() *Tensor { return unaryInPlace(kernel.OpRelu6, t, 0) }

// Silu returns t * sigmoid(t), elementwise.
func (t *Tensor) Silu() *Tensor { return unary(kernel.OpSilu, t, 0) }

// Silu_ is Silu in place; it returns t.
func (t *Tensor) Silu_() *Tensor { return unaryInPlace(kernel.OpSilu, t, 0) }

// Erf returns the error function, elementwise.
func (t *Tensor) Erf() *Tensor { return unary(kernel.OpErf, t, 0) }

// Erf_ is Erf in place; it returns t.
func (t *Tensor) Erf_() *Tensor { return unaryInPlace(kernel.OpErf, t, 0) }

// Floor returns rounded down, elementwise.
func (t *Tensor) Floor() *Tensor { return unary(kernel.OpFloor, t, 0) }

// Floor_ is Floor in place; it returns t.
func (t *Tensor) Floor_() *Tensor { return unaryInPlace(kernel.OpFloor, t, 0) }

// Ceil returns rounded up, elementwise.
func (t *Tensor) Ceil() *Tensor { return unary(kernel.OpCeil, t, 0) }

// Ceil_ is Ceil in place; it returns t.
func (t *Tensor) Ceil_() *Tensor { return unaryInPlace(kernel.OpCeil, t, 0) }

// Round returns rounded half to even, elementwise.
func (t *Tensor) Round() *Tensor { return unary(kernel.OpRound, t, 0) }

// Round_ is Round in place; it returns t.
func (t *Tensor) Round_() *Tensor { return unaryInPlace(kernel.OpRound, t, 0) }

// Trunc returns rounded toward zero, elementwise.
func (t *Tensor) Trunc() *Tensor { return unary(kernel.OpTrunc, t, 0) }

// Trunc_ is Trunc in place; it returns t.
func (t *Tensor) Trunc_() *Tensor { return unaryInPlace(kernel.OpTrunc, t, 0) }

// Frac returns t - trunc(t), elementwise.
func (t *Tensor) Frac() *Tensor { return unary(kernel.OpFrac, t, 0) }

// Frac_ is Frac in place; it returns t.
func (t *Tensor) Frac_() *Tensor { return unaryInPlace(kernel.OpFrac, t, 0) }

// IsNan returns whether each element is NaN, elementwise.
func (t *Tensor) IsNan() *Tensor { return unary(kernel.OpIsNan, t, 0) }

// IsInf returns whether each element is infinite, elementwise.
func (t *Tensor) IsInf() *Tensor { return unary(kernel.OpIsInf, t, 0) }

// IsFinite returns whether each element is finite, elementwise.
func (t *Tensor) IsFinite() *Tensor { return unary(kernel.OpIsFinite, t, 0) }

// BitwiseNot returns the bitwise not (logical not for bool), elementwise.
func (t *Tensor) BitwiseNot() *Tensor { return unary(kernel.OpBitwiseNot, t, 0) }

// BitwiseNot_ is BitwiseNot in place; it returns t.
func (t *Tensor) BitwiseNot_() *Tensor { return unaryInPlace(kernel.OpBitwiseNot, t, 0) }

// LogicalNot returns whether each element is zero, elementwise.
func (t *Tensor) LogicalNot() *Tensor { return unary(kernel.OpLogicalNot, t, 0) }

// LogicalNot_ is LogicalNot in place; it returns t.
func (t *Tensor) LogicalNot_() *Tensor { return unaryInPlace(kernel.OpLogicalNot, t, 0) }
