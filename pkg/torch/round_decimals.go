package torch

import (
	"strconv"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// RoundDecimals returns t rounded half to even to decimals decimal digits
// (torch.round(t, decimals=n)), as PyTorch's CPU kernel computes it in the
// dtype's compute type (float for float32, float16 and bfloat16, double
// for float64): nearbyint(t * 10^n) / 10^n for n >= 0, nearbyint(t / 10^-n)
// * 10^-n for n < 0. The power of ten is that of the compute type, so a
// float32 tensor with n beyond 38 (10^n infinite) gives NaN, as PyTorch's.
// Integer and bool tensors are refused (PyTorch's "round_cpu" not
// implemented for 'Long'; "round_vml_cpu" for decimals 0). The gradient is
// zero (RoundBackward1).
func (t *Tensor) RoundDecimals(decimals int) *Tensor {
	return unary(kernel.OpRoundDecimals, t, 0, roundDecimalsScalars(decimals)...)
}

// RoundDecimals_ is RoundDecimals in place; it returns t.
func (t *Tensor) RoundDecimals_(decimals int) *Tensor {
	return unaryInPlace(kernel.OpRoundDecimals, t, 0, roundDecimalsScalars(decimals)...)
}

// RoundDecimals writes x.RoundDecimals(decimals) into the output.
func (o Out) RoundDecimals(x *Tensor, decimals int) *Tensor {
	return o.unary(kernel.OpRoundDecimals, x, 0, roundDecimalsScalars(decimals)...)
}

// roundDecimalsScalars are the call's scalars: 10^|decimals| as C's
// std::pow(10, |decimals|) in double (correctly rounded, as glibc's; +Inf
// past 1e308), and 1 when decimals is negative.
func roundDecimalsScalars(decimals int) []kernel.Scalar {
	neg := 0.0
	if decimals < 0 {
		decimals, neg = -decimals, 1
	}
	p, _ := strconv.ParseFloat("1e"+strconv.Itoa(decimals), 64) // +Inf with a range error when too large
	return []kernel.Scalar{kernel.FloatScalar(p), kernel.FloatScalar(neg)}
}

func init() {
	unaryGrad(kernel.OpRoundDecimals, "RoundBackward1", false, false, zero)
}
