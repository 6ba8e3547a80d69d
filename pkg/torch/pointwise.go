// The pointwise forms written by hand: those with an alpha. The others
// (X, XScalar, X_, XScalar_, Into(out).X, RX) are generated from the op
// table into pointwise_gen.go.

package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

var one = kernel.IntScalar(1)

// AddAlpha returns t + alpha*other.
func (t *Tensor) AddAlpha(other *Tensor, alpha any) *Tensor {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return failed(withOp("add", err))
	}
	return binary(kernel.OpAdd, t, other, 0, a)
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

// SubAlpha returns t - alpha*other.
func (t *Tensor) SubAlpha(other *Tensor, alpha any) *Tensor {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return failed(withOp("sub", err))
	}
	return binary(kernel.OpSub, t, other, 0, a)
}
