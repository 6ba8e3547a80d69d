package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// product runs a matrix product op over tensors ts, with Scalars beta and alpha.
func product(op kernel.OpID, beta, alpha kernel.Scalar, ts ...*Tensor) *Tensor {
	return runOp(op, withBetaAlpha(beta, alpha), ts...)
}

// withBetaAlpha sets a product's Scalars: beta scales the input, alpha the
// product.
func withBetaAlpha(beta, alpha kernel.Scalar) func(c *kernel.Call) error {
	return func(c *kernel.Call) error {
		c.Scalars[0], c.Scalars[1] = beta, alpha
		return nil
	}
}

// Mm returns the matrix product of t ([n, k]) and other ([k, m]).
func (t *Tensor) Mm(other *Tensor) *Tensor { return product(kernel.OpMm, one, one, t, other) }

// Bmm returns the batch matrix product of t ([b, n, k]) and other ([b, k, m]).
func (t *Tensor) Bmm(other *Tensor) *Tensor { return product(kernel.OpBmm, one, one, t, other) }

// Addmm returns beta*input + alpha*(mat1 @ mat2), input broadcasting to the
// product's shape (with beta = 0, input is not read: its NaNs do not count).
func Addmm(input, mat1, mat2 *Tensor, beta, alpha any) *Tensor {
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return failed(withOp("addmm", err))
	}
	return product(kernel.OpAddmm, b, a, input, mat1, mat2)
}

// Addmm_ writes beta*t + alpha*(mat1 @ mat2) into t; it returns t.
func (t *Tensor) Addmm_(mat1, mat2 *Tensor, beta, alpha any) *Tensor {
	if t == nil {
		return failed(nilTensor("addmm_"))
	}
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return t.keepFailure(t.fail("addmm_", err))
	}
	return t.keepFailure(t.runOpInPlace(kernel.OpAddmm, withBetaAlpha(b, a), false, mat1, mat2))
}

// Baddbmm returns beta*input + alpha*(batch1 @ batch2) for batches of matrices.
func Baddbmm(input, batch1, batch2 *Tensor, beta, alpha any) *Tensor {
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return failed(withOp("baddbmm", err))
	}
	return product(kernel.OpBaddbmm, b, a, input, batch1, batch2)
}

// Baddbmm_ writes beta*t + alpha*(batch1 @ batch2) into t; it returns t.
func (t *Tensor) Baddbmm_(batch1, batch2 *Tensor, beta, alpha any) *Tensor {
	if t == nil {
		return failed(nilTensor("baddbmm_"))
	}
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return t.keepFailure(t.fail("baddbmm_", err))
	}
	return t.keepFailure(t.runOpInPlace(kernel.OpBaddbmm, withBetaAlpha(b, a), false, batch1, batch2))
}

func betaAlpha(beta, alpha any) (kernel.Scalar, kernel.Scalar, error) {
	b, err := kernel.ScalarOf(beta)
	if err != nil {
		return b, b, err
	}
	a, err := kernel.ScalarOf(alpha)
	return b, a, err
}

// Dot returns the inner product of two 1-D tensors of one size and dtype.
func (t *Tensor) Dot(other *Tensor) *Tensor { return product(kernel.OpDot, one, one, t, other) }

// Mv returns the product of the matrix t ([n, k]) and the vector v ([k]).
func (t *Tensor) Mv(v *Tensor) *Tensor {
	if err := inputErr("mv", t, v); err != nil {
		return failed(err)
	}
	if t.Dim() != 2 || v.Dim() != 1 || t.shape[1] != v.shape[0] {
		return failed(pairError(kernel.ErrShape, "mv", t, v, "vector + matrix @ vector expected, got %dD and %dD tensors with shapes %s and %s",
			t.Dim(), v.Dim(), kernel.ShapeString(t.shape), kernel.ShapeString(v.shape)))
	}
	return t.Mm(v.Unsqueeze(1)).SqueezeDim(1)
}

// Outer returns the outer product of two 1-D tensors.
func (t *Tensor) Outer(other *Tensor) *Tensor {
	if err := inputErr("outer", t, other); err != nil {
		return failed(err)
	}
	if t.Dim() != 1 || other.Dim() != 1 {
		return failed(pairError(kernel.ErrShape, "outer", t, other, "outer: Expected 1-D argument self, but got %dD and %dD tensors",
			t.Dim(), other.Dim()))
	}
	return t.Unsqueeze(1).Mul(other.Unsqueeze(0))
}

// MatMul is torch.matmul: the dot product of vectors, the matrix product
// of matrices, a vector as a row or column of a matrix product (its dim
// removed afterwards), and batched products with broadcast batch dims.
func (t *Tensor) MatMul(other *Tensor) *Tensor {
	if err := inputErr("matmul", t, other); err != nil {
		return failed(err)
	}
	da, db := t.Dim(), other.Dim()
	switch {
	case da == 0 || db == 0:
		return failed(pairError(kernel.ErrShape, "matmul", t, other, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", da, db))
	case da == 1 && db == 1:
		return t.Dot(other)
	case da == 2 && db == 1:
		if t.shape[1] != other.shape[0] {
			return failed(pairError(kernel.ErrShape, "matmul", t, other, "size mismatch, got %d, %dx%d,%d", t.shape[0], t.shape[0], t.shape[1], other.shape[0]))
		}
		return t.Mm(other.Unsqueeze(1)).SqueezeDim(1)
	case da == 1 && db == 2:
		return t.Unsqueeze(0).Mm(other).SqueezeDim(0)
	case da == 2 && db == 2:
		return t.Mm(other)
	case da >= 3 && db <= 2:
		// Fold the batch dims of t into its rows: one matrix product.
		k := t.shape[da-1]
		out := t.Reshape(kernel.Numel(t.shape[:da-1]), k) // not -1: ambiguous when k is 0
		if db == 1 {
			out = out.Mm(other.Unsqueeze(1))
			return out.View(t.shape[:da-1]...)
		}
		out = out.Mm(other)
		shape := append(append([]int(nil), t.shape[:da-1]...), other.shape[1])
		return out.View(shape...)
	}
	// Batched: vectors become a row (t) or a column (other), batch dims broadcast.
	a, b := t, other
	if da == 1 {
		a = a.Unsqueeze(0)
	}
	if db == 1 {
		b = b.Unsqueeze(1)
	}
	n, k := a.shape[a.Dim()-2], a.shape[a.Dim()-1]
	k2, m := b.shape[b.Dim()-2], b.shape[b.Dim()-1]
	if k != k2 {
		return failed(pairError(kernel.ErrShape, "matmul", t, other, "Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].",
			batchNumel(a), k, batchNumel(b), k2))
	}
	batch, err := kernel.BroadcastShapes(a.shape[:a.Dim()-2], b.shape[:b.Dim()-2])
	if err != nil {
		return failed(pairError(kernel.ErrShape, "matmul", t, other, "%s", kernel.AsOpError(err).Detail))
	}
	bn := kernel.Numel(batch)
	a3 := a.Expand(append(append([]int(nil), batch...), n, k)...).Reshape(bn, n, k)
	b3 := b.Expand(append(append([]int(nil), batch...), k, m)...).Reshape(bn, k, m)
	out := a3.Bmm(b3)
	shape := append([]int(nil), batch...)
	if da > 1 {
		shape = append(shape, n)
	}
	if db > 1 {
		shape = append(shape, m)
	}
	return out.View(shape...)
}

func batchNumel(t *Tensor) int { return kernel.Numel(t.shape[:t.Dim()-2]) }

// Linear returns x @ weight.T + bias (bias may be nil): PyTorch's
// nn.functional.linear, weight being [out_features, in_features].
func Linear(x, weight, bias *Tensor) *Tensor {
	if err := inputErr("linear", x, weight); err != nil {
		return failed(err)
	}
	if bias == nil {
		return x.MatMul(weight.T())
	}
	if x.Dim() == 2 {
		return Addmm(bias, x, weight.T(), 1, 1)
	}
	return x.MatMul(weight.T()).Add(bias)
}

// inputErr is the error that stops op before any work: nilTensor(op) for
// a nil tensor among ts (or a zero Tensor{}, which has no storage), or the
// error the first failed one carries.
func inputErr(op string, ts ...*Tensor) error {
	for _, t := range ts {
		switch {
		case t == nil:
			return nilTensor(op)
		case t.err != nil:
			return t.err
		case t.storage == nil:
			e := kernel.Errorf(ErrArgument, "expected a Tensor but got a zero Tensor{}, which has no storage (make tensors with torch's functions)")
			e.Op = op
			return e
		}
	}
	return nil
}

// withOp names op in err when err names no op yet.
func withOp(op string, err error) error {
	e := kernel.AsOpError(err)
	if e.Op == "" {
		e.Op = op
	}
	return e
}

func pairError(kind error, op string, a, b *Tensor, format string, args ...any) error {
	e := kernel.Errorf(kind, format, args...)
	e.Op = op
	for _, t := range []*Tensor{a, b} {
		e.Shapes = append(e.Shapes, append([]int(nil), t.shape...))
		e.DTypes = append(e.DTypes, t.dtype)
		e.Devices = append(e.Devices, t.Device())
	}
	return e
}
