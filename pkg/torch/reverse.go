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

// RSub returns v - t for a Go scalar v (PyTorch's rsub, 2 - t).
func RSub(v any, t *Tensor) *Tensor {
	if r := passOn(kernel.OpSub, t); r != nil {
		return r
	}
	y := reverseScalar(kernel.OpSub, v, t.Detach(), 0, one)
	if y.err == nil && recording(t) {
		y.setGradFn("RsubBackward1", []*Tensor{t}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{fitGrad(g.Neg(), t)}
		})
	}
	return y
}

// RDiv returns v / t for a Go scalar v, as PyTorch computes 2 / t: the
// reciprocal of t times v (integers divide as floats).
func RDiv(v any, t *Tensor) *Tensor { return t.Reciprocal().MulScalar(v) }
