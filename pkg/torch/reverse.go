package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// reverseScalar runs op with a Go scalar as its first operand (PyTorch's
// reflected operators: 2 - t, 2 / t, 2 ** t). The scalar becomes a 0-dim
// tensor of the dtype that t and a Python number of v's kind promote to,
// which then weighs as little in type promotion as the number did, and
// goes along with t to any device, as a 0-dim CPU tensor does.
func reverseScalar(op kernel.OpID, v any, t *Tensor, mode int, alpha kernel.Scalar) *Tensor {
	if r := passOn(op, t); r != nil {
		return r
	}
	s, err := kernel.ScalarOf(v)
	if err != nil {
		return t.fail(op.String(), err)
	}
	var rt dtype.ResultType
	rt.Add(t.dtype, dtype.Dimensioned)
	rt.Add(s.DType(), dtype.Scalar)
	first := Scalar(v, WithDType(s.DType())).ToDType(rt.Result())
	return binary(op, first, t, mode, alpha)
}
