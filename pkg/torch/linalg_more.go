package torch

import (
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// More linear algebra, composed of existing ops (views, products,
// pointwise ops, reductions) so that every device with those ops has
// these. Ops whose PyTorch node has a name of its own (trace, cross,
// addmv, addr, vector_norm) record one node with PyTorch's derivative;
// the others (kron, tensordot, einsum) differentiate through the ops they
// are made of, as in PyTorch.

// Trace returns the sum of the main diagonal of the 2-D t, as torch.trace:
// int64 for integer t, t's dtype for floating t. PyTorch has no trace of
// bool tensors.
func (t *Tensor) Trace() *Tensor {
	if err := inputErr("trace", t); err != nil {
		return failed(err)
	}
	if t.Dim() != 2 {
		return t.fail("trace", kernel.Errorf(ErrShape, "trace: expected a matrix, but got tensor with dim %d", t.Dim()))
	}
	if t.dtype == Bool {
		return t.fail("trace", kernel.Errorf(ErrDType, "\"trace\" not implemented for 'Bool'"))
	}
	return composite("TraceBackward0", []*Tensor{t}, func(in []*Tensor) *Tensor {
		return renamed("trace", in, in[0].diagonalAt(0, 0, 1).Sum())
	}, func(*Tensor) backwardFn {
		return func(g *Tensor, _ []bool, _ bool) []*Tensor {
			n := min(t.shape[0], t.shape[1])
			return []*Tensor{intoZeros(t, g.Expand(n), func(z *Tensor) *Tensor { return z.Diagonal(0, 0, 1) })}
		}
	})
}

// Kron returns the Kronecker product of t and other, as torch.kron: the
// shorter shape is padded with leading 1s, and the result has sizes
// t.shape[i]*other.shape[i], block (i) being t[i]*other. dtypes promote.
func (t *Tensor) Kron(other *Tensor) *Tensor {
	if err := inputErr("kron", t, other); err != nil {
		return failed(err)
	}
	n := max(t.Dim(), other.Dim())
	a, b := padShape(t.shape, n), padShape(other.shape, n)
	// t as [a0, 1, a1, 1, ...] times other as [1, b0, 1, b1, ...] lays
	// every product where the Kronecker product has it.
	as, bs, out := make([]int, 0, 2*n), make([]int, 0, 2*n), make([]int, 0, n)
	for i := range n {
		as = append(as, a[i], 1)
		bs = append(bs, 1, b[i])
		out = append(out, a[i]*b[i])
	}
	prod := t.Reshape(as...).Mul(other.Reshape(bs...))
	if prod.err != nil {
		return renamed("kron", []*Tensor{t, other}, prod)
	}
	return prod.Reshape(out...)
}

// padShape is shape with leading 1s up to n dims.
func padShape(shape []int, n int) []int {
	out := make([]int, n-len(shape), n)
	for i := range out {
		out[i] = 1
	}
	return append(out, shape...)
}

// Tensordot contracts dims dimsA of t with dims dimsB of other, as
// torch.tensordot(a, b, dims=(dimsA, dimsB)): the result has t's other
// dims, then other's. Contracted sizes must match, or one of them be 1
// (that dim is then summed first). The product is one matrix product, so
// dtypes must be the same.
func (t *Tensor) Tensordot(other *Tensor, dimsA, dimsB []int) *Tensor {
	ins := []*Tensor{t, other}
	if err := inputErr("tensordot", ins...); err != nil {
		return failed(err)
	}
	if len(dimsA) != len(dimsB) {
		return failed(NewError("tensordot", ErrArgument, ins, "both dimension lists should have same length"))
	}
	da, err := normalizeDimList(dimsA, t.Dim())
	if err == nil {
		var db []int
		db, err = normalizeDimList(dimsB, other.Dim())
		if err == nil {
			return renamed("tensordot", ins, tensordot(t, other, da, db, dimsA, dimsB))
		}
	}
	e := NewError("tensordot", nil, ins, "")
	inner := kernel.AsOpError(err)
	e.Kind, e.Detail = inner.Kind, inner.Detail
	return failed(e)
}

// TensordotN contracts the last n dims of t with the first n of other, as
// torch.tensordot(a, b, dims=n).
func (t *Tensor) TensordotN(other *Tensor, n int) *Tensor {
	if err := inputErr("tensordot", t, other); err != nil {
		return failed(err)
	}
	if n < 0 {
		return failed(NewError("tensordot", ErrArgument, []*Tensor{t, other}, "tensordot expects dims >= 0, but got dims=%d", n))
	}
	if n > kernel.MaxNbytes { // no dims list of that length: the dims are out of range
		n = t.Dim() + 1
	}
	dimsA, dimsB := make([]int, n), make([]int, n)
	for i := range n {
		dimsA[i], dimsB[i] = i-n, i
	}
	return t.Tensordot(other, dimsA, dimsB)
}

// normalizeDimList normalizes dims against ndim, refusing repeats with
// PyTorch's message.
func normalizeDimList(dims []int, ndim int) ([]int, error) {
	out := make([]int, len(dims))
	seen := make(map[int]bool, len(dims))
	for i, d := range dims {
		n, err := kernel.NormalizeDim(d, ndim)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, kernel.Errorf(ErrArgument, "dim %d appears multiple times in the list of dims", n)
		}
		seen[n] = true
		out[i] = n
	}
	return out, nil
}

// tensordot is ATen's: contracted dims of size 1 on one side are summed on
// the other, the operands are permuted to [free, contracted] and
// [contracted, free] matrices, multiplied, and reshaped.
func tensordot(a, b *Tensor, da, db, origA, origB []int) *Tensor {
	csize := 1
	for i := range da {
		s1, s2 := a.shape[da[i]], b.shape[db[i]]
		switch {
		case s2 == 1:
			a = a.SumKeepDim(da[i])
		case s1 == 1:
			b = b.SumKeepDim(db[i])
		case s1 != s2:
			return failed(kernel.Errorf(ErrShape, "contracted dimensions need to match, but first has size %d in dim %d and second has size %d in dim %d",
				s1, origA[i], s2, origB[i]))
		default:
			csize *= s1
		}
	}
	freeA, freeB := freeDims(da, a.Dim()), freeDims(db, b.Dim())
	size1, size2 := 1, 1
	var rsizes []int
	for _, d := range freeA {
		size1 *= a.shape[d]
		rsizes = append(rsizes, a.shape[d])
	}
	for _, d := range freeB {
		size2 *= b.shape[d]
		rsizes = append(rsizes, b.shape[d])
	}
	ma := a.Permute(append(freeA, da...)...).Reshape(size1, csize)
	mb := b.Permute(append(append([]int(nil), db...), freeB...)...).Reshape(csize, size2)
	return ma.Mm(mb).Reshape(rsizes...)
}

// freeDims are the dims of an ndim tensor not in dims, in order.
func freeDims(dims []int, ndim int) []int {
	in := make([]bool, ndim)
	for _, d := range dims {
		in[d] = true
	}
	var out []int
	for d := range ndim {
		if !in[d] {
			out = append(out, d)
		}
	}
	return out
}

// Cross returns the cross product of 3-vectors along dim of t and other,
// as torch.linalg.cross: both have the same number of dims and size 3 at
// dim, the other dims broadcast, and the dtypes must be the same (not bool).
func (t *Tensor) Cross(other *Tensor, dim int) *Tensor {
	return linalgCross("linalg.cross", t, other, dim)
}

// CrossDefault is torch.cross without dim: the cross product along the
// first dim of t of size 3 (PyTorch deprecates this form; prefer Cross).
func (t *Tensor) CrossDefault(other *Tensor) *Tensor {
	if err := inputErr("cross", t, other); err != nil {
		return failed(err)
	}
	for d, n := range t.shape {
		if n == 3 {
			return linalgCross("cross", t, other, d)
		}
	}
	return failed(NewError("cross", ErrShape, []*Tensor{t, other}, "no dimension of size 3 in input"))
}

func linalgCross(op string, a, b *Tensor, dim int) *Tensor {
	ins := []*Tensor{a, b}
	if err := inputErr(op, ins...); err != nil {
		return failed(err)
	}
	if a.Dim() != b.Dim() {
		return failed(NewError(op, ErrShape, ins, "linalg.cross: inputs must have the same number of dimensions."))
	}
	if a.Dim() == 0 {
		return failed(NewError(op, ErrIndex, ins, "Dimension specified as %d but tensor has no dimensions", dim))
	}
	d, err := kernel.NormalizeDim(dim, a.Dim())
	if err != nil {
		return failed(NewError(op, ErrIndex, ins, "%s", kernel.AsOpError(err).Detail))
	}
	if a.shape[d] != 3 || b.shape[d] != 3 {
		return failed(NewError(op, ErrShape, ins, "linalg.cross: inputs dimension %d must have length 3. Got %d and %d", dim, a.shape[d], b.shape[d]))
	}
	if _, err := kernel.BroadcastShapes(a.shape, b.shape); err != nil {
		return failed(NewError(op, ErrShape, ins, "%s", kernel.AsOpError(err).Detail))
	}
	switch {
	case a.dtype != b.dtype:
		return failed(NewError(op, ErrDType, ins, "expected scalar type %s but found %s", kernel.PyName(a.dtype), kernel.PyName(b.dtype)))
	case a.dtype == Bool:
		return failed(NewError(op, ErrDType, ins, "\"cross\" not implemented for 'Bool'"))
	}
	return composite("LinalgCrossBackward0", ins, func(in []*Tensor) *Tensor {
		return renamed(op, ins, crossAlong(in[0], in[1], d))
	}, func(*Tensor) backwardFn {
		const name = "LinalgCrossBackward0"
		s := savedAll(ins)
		return func(g *Tensor, need []bool, create bool) []*Tensor {
			in, bad := getAll(s, create, name)
			if bad != nil {
				return []*Tensor{bad, bad}
			}
			// <g, a x b> = <a, b x g> = <b, g x a>.
			out := make([]*Tensor, 2)
			if need[0] {
				out[0] = fitGrad(crossAlong(in[1], g, d), a)
			}
			if need[1] {
				out[1] = fitGrad(crossAlong(g, in[0], d), b)
			}
			return out
		}
	})
}

// crossAlong is the cross product along dim d (of size 3 in both), the
// other dims broadcasting.
func crossAlong(a, b *Tensor, d int) *Tensor {
	at := func(t *Tensor, i int) *Tensor { return t.Narrow(d, i, 1) }
	c0 := at(a, 1).Mul(at(b, 2)).Sub(at(a, 2).Mul(at(b, 1)))
	c1 := at(a, 2).Mul(at(b, 0)).Sub(at(a, 0).Mul(at(b, 2)))
	c2 := at(a, 0).Mul(at(b, 1)).Sub(at(a, 1).Mul(at(b, 0)))
	return Cat([]*Tensor{c0, c1, c2}, d)
}

// Addmv returns beta*input + alpha*(mat @ vec), as torch.addmv: mat is
// [n, m], vec [m], input [n] or a single element. With beta = 0 input is
// not read, so its NaNs and infinities do not count. As PyTorch 1.13, the
// result has mat's dtype (input is cast to it), mat and vec must have the
// same dtype, and floating beta and alpha are truncated for integer tensors.
func Addmv(input, mat, vec *Tensor, beta, alpha any) *Tensor {
	ins := []*Tensor{input, mat, vec}
	if err := inputErr("addmv", ins...); err != nil {
		return failed(err)
	}
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return failed(withOp("addmv", err))
	}
	if mat.Dim() != 2 || vec.Dim() != 1 || input.Dim() > 1 {
		return failed(NewError("addmv", ErrShape, ins, "vector + matrix @ vector expected, got %d, %d, %d", input.Dim(), mat.Dim(), vec.Dim()))
	}
	if mat.shape[1] != vec.shape[0] || (input.Numel() != mat.shape[0] && input.Numel() != 1) {
		return failed(NewError("addmv", ErrShape, ins, "size mismatch, got %d, %dx%d,%d", input.Numel(), mat.shape[0], mat.shape[1], vec.shape[0]))
	}
	if !mat.dtype.IsFloatingPoint() {
		// PyTorch 1.13 truncates floating beta and alpha for
		// integer addmv, where addr refuses them.
		b, a = kernel.IntScalar(b.Int()), kernel.IntScalar(a.Int())
	}
	return composite("AddmvBackward0", ins, func(in []*Tensor) *Tensor {
		prod := in[1].Mm(in[2].Unsqueeze(1)).SqueezeDim(1)
		return renamed("addmv", ins, addScaled(in[0].ToDType(prod.dtype), prod, b, a))
	}, func(*Tensor) backwardFn {
		const name = "AddmvBackward0"
		s := savedAll(ins)
		return func(g *Tensor, need []bool, create bool) []*Tensor {
			in, bad := getAll(s, create, name)
			if bad != nil {
				return []*Tensor{bad, bad, bad}
			}
			out := make([]*Tensor, 3)
			if need[0] {
				out[0] = fitGrad(g.MulScalar(b), input)
			}
			if need[1] {
				out[1] = fitGrad(g.Outer(in[2]).MulScalar(a), mat)
			}
			if need[2] {
				out[2] = fitGrad(in[1].T().Mv(g).MulScalar(a), vec)
			}
			return out
		}
	})
}

// Addr returns beta*input + alpha*outer(vec1, vec2), as torch.addr: input
// broadcasts to [len(vec1), len(vec2)] and the dtypes promote. With beta = 0
// input is not read (its NaNs do not count). For bool tensors it is
// (beta and input) or (alpha and vec1 and vec2). Integer and bool results
// take integer (or bool) beta and alpha only.
func Addr(input, vec1, vec2 *Tensor, beta, alpha any) *Tensor {
	ins := []*Tensor{input, vec1, vec2}
	if err := inputErr("addr", ins...); err != nil {
		return failed(err)
	}
	b, a, err := betaAlpha(beta, alpha)
	if err != nil {
		return failed(withOp("addr", err))
	}
	for i, v := range ins[1:] {
		if v.Dim() != 1 {
			return failed(NewError("addr", ErrShape, ins, "addr: Expected 1-D argument vec%d, but got %d-D", i+1, v.Dim()))
		}
	}
	rt, err := ResultType(input, vec1, vec2)
	if err != nil {
		return failed(withOp("addr", err))
	}
	if err := checkBetaAlpha("addr", rt, b, a, ins); err != nil {
		return failed(err)
	}
	shape := []int{vec1.shape[0], vec2.shape[0]}
	return composite("AddrBackward0", ins, func(in []*Tensor) *Tensor {
		inE := in[0].Expand(shape...)
		if inE.err != nil {
			return renamed("addr", ins, inE)
		}
		if rt == Bool {
			outer := in[1].Unsqueeze(1).Mul(in[2].Unsqueeze(0))
			return renamed("addr", ins, boolAddr(inE, outer, b, a))
		}
		// (alpha*vec1)*vec2, rounded after each step as PyTorch's kernel
		// does (which matters in float16 and bfloat16).
		outer := in[1].MulScalar(a).Unsqueeze(1).Mul(in[2].Unsqueeze(0))
		return renamed("addr", ins, addScaled(inE, outer, b, one).ToDType(rt))
	}, func(*Tensor) backwardFn {
		const name = "AddrBackward0"
		s := savedAll(ins)
		return func(g *Tensor, need []bool, create bool) []*Tensor {
			in, bad := getAll(s, create, name)
			if bad != nil {
				return []*Tensor{bad, bad, bad}
			}
			out := make([]*Tensor, 3)
			if need[0] {
				out[0] = fitGrad(g.MulScalar(b), input)
			}
			if need[1] {
				out[1] = fitGrad(g.Mv(in[2].ToDType(g.dtype)).MulScalar(a), vec1)
			}
			if need[2] {
				out[2] = fitGrad(g.T().Mv(in[1].ToDType(g.dtype)).MulScalar(a), vec2)
			}
			return out
		}
	})
}

// boolAddr is addr of bool tensors: (beta and input) or (alpha and outer).
func boolAddr(input, outer *Tensor, beta, alpha kernel.Scalar) *Tensor {
	if !alpha.Bool() {
		outer = ZerosLike(outer)
	}
	if beta.Bool() {
		return input.LogicalOr(outer)
	}
	return outer
}

// addScaled is beta*input + alpha*prod, prod not scaled when alpha is 1
// and input not read when beta is 0 (PyTorch's rule for addmm and kin).
func addScaled(input, prod *Tensor, beta, alpha kernel.Scalar) *Tensor {
	if alpha.Float() != 1 {
		prod = prod.MulScalar(alpha)
	}
	if beta.Float() == 0 {
		return prod
	}
	if beta.Float() != 1 {
		input = input.MulScalar(beta)
	}
	return input.Add(prod)
}

// checkBetaAlpha refuses floating beta or alpha for an integer or bool
// result, as PyTorch.
func checkBetaAlpha(op string, result DType, beta, alpha kernel.Scalar, ins []*Tensor) error {
	if result.IsFloatingPoint() {
		return nil
	}
	if beta.IsFloat() {
		return NewError(op, ErrArgument, ins, "For integral input tensors, argument beta must not be a floating point number.")
	}
	if alpha.IsFloat() {
		return NewError(op, ErrArgument, ins, "For integral input tensors, argument alpha must not be a floating point number.")
	}
	return nil
}

// LinalgVectorNorm returns the ord-norm of t over dims (every dim when
// none), as torch.linalg.vector_norm: (sum |x|^ord)^(1/ord); ord 0 counts
// the non-zeros, inf and -inf take the largest and smallest magnitude. t
// must be floating point; the result has its dtype. A norm with no
// identity (ord < 0 or inf) of an empty slice is an error.
func (t *Tensor) LinalgVectorNorm(ord float64, dims []int, keepdim bool) *Tensor {
	const op = "linalg.vector_norm"
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	if !t.dtype.IsFloatingPoint() {
		return t.fail(op, kernel.Errorf(ErrDType, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", kernel.PyName(t.dtype)))
	}
	if _, err := kernel.NormalizeDims(dims, t.Dim()); err != nil {
		return t.fail(op, err)
	}
	if err := t.checkNormIdentity(ord, dims); err != nil {
		return t.fail(op, err)
	}
	return composite("LinalgVectorNormBackward0", []*Tensor{t}, func(in []*Tensor) *Tensor {
		if keepdim {
			return renamed(op, in, in[0].NormKeepDim(ord, dims...))
		}
		return renamed(op, in, in[0].Norm(ord, dims...))
	}, func(y *Tensor) backwardFn { return t.vectorNormGrad(y, ord, dims, keepdim) })
}

// checkNormIdentity refuses the norms without an identity (ord < 0 or
// inf) of empty slices, with PyTorch's messages (and its missing space).
func (t *Tensor) checkNormIdentity(ord float64, dims []int) error {
	if ord >= 0 && !math.IsInf(ord, 1) {
		return nil
	}
	if len(dims) == 0 {
		if t.Numel() == 0 {
			return kernel.Errorf(ErrIndex, "linalg.vector_norm cannot compute the %s norm on an empty tensor because the operation does not have an identity", formatOrd(ord))
		}
		return nil
	}
	for _, d := range dims {
		n, _ := kernel.NormalizeDim(d, t.Dim())
		if t.Dim() > 0 && t.shape[n] == 0 {
			return kernel.Errorf(ErrIndex, "linalg.vector_norm cannot compute the %s norm on the dimension %dbecause this dimension is empty and the operation does not have an identity", formatOrd(ord), n)
		}
	}
	return nil
}

// vectorNormGrad is the derivative of y = LinalgVectorNorm(t), PyTorch's
// norm_backward.
func (t *Tensor) vectorNormGrad(y *Tensor, ord float64, dims []int, keepdim bool) backwardFn {
	const name = "LinalgVectorNormBackward0"
	s := savedAll([]*Tensor{t, y})
	s[1].output = true
	rdims := reducedDims(t, dims, nil)
	return func(g *Tensor, _ []bool, create bool) []*Tensor {
		in, bad := getAll(s, create, name)
		if bad != nil {
			return []*Tensor{bad}
		}
		back := func(v *Tensor) *Tensor { return expandTo(v, t.shape, rdims, keepdim) }
		return []*Tensor{fitGrad(normGrad(back(g), in[0], back(in[1]), ord, rdims), t)}
	}
}

// LinalgMatrixNorm returns the ord-norm of the matrices over dims of t, as
// torch.linalg.matrix_norm: ord "fro" (the default, the square root of the
// sum of squares), 1 and -1 (largest and smallest sum of magnitudes of a
// column), inf and -inf (of a row), "nuc" (the sum of the singular
// values), 2 and -2 (the largest and smallest singular value). ord is a
// string or a Go number; t must be floating point, with at least 2 dims,
// and float32 or float64 for "nuc", 2 and -2 (PyTorch refuses low
// precision there). The singular values come from LinalgSvdvals, whose
// gradient they take (a tie between largest or smallest singular values
// shares the gradient evenly, as amax and amin do).
func (t *Tensor) LinalgMatrixNorm(ord any, dims [2]int, keepdim bool) *Tensor {
	const op = "linalg.matrix_norm"
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	if t.Dim() < 2 {
		return t.fail(op, kernel.Errorf(ErrShape, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."))
	}
	if !t.dtype.IsFloatingPoint() {
		return t.fail(op, kernel.Errorf(ErrDType, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got %s", kernel.PyName(t.dtype)))
	}
	d0, err := kernel.NormalizeDim(dims[0], t.Dim())
	if err != nil {
		return t.fail(op, err)
	}
	d1, err := kernel.NormalizeDim(dims[1], t.Dim())
	if err != nil {
		return t.fail(op, err)
	}
	if d0 == d1 {
		return t.fail(op, kernel.Errorf(ErrArgument, "linalg.matrix_norm: dims must be different. Got (%d, %d)", dims[0], dims[1]))
	}
	if s, ok := ord.(string); ok {
		switch s {
		case "fro":
			return t.LinalgVectorNorm(2, []int{d0, d1}, keepdim)
		case "nuc":
			if t.dtype == Float16 || t.dtype == BFloat16 {
				return t.fail(op, lowPrecisionNorm(t.dtype))
			}
			return renamed(op, []*Tensor{t}, t.singularValueNorm(0, d0, d1, keepdim))
		}
		return t.fail(op, kernel.Errorf(ErrArgument, "linalg.matrix_norm: Order %s not supported.", s))
	}
	o, err := kernel.ScalarOf(ord)
	if err != nil || o.DType() == Bool {
		return t.fail(op, kernel.Errorf(ErrArgument, "linalg.matrix_norm: ord must be a string or a number, got %T", ord))
	}
	if f := o.Float(); math.Abs(f) == 2 {
		if t.dtype == Float16 || t.dtype == BFloat16 {
			return t.fail(op, lowPrecisionNorm(t.dtype))
		}
		return renamed(op, []*Tensor{t}, t.singularValueNorm(f, d0, d1, keepdim))
	}
	return renamed(op, []*Tensor{t}, t.matrixNormOrd(o.Float(), d0, d1, keepdim))
}

// matrixNormOrd is the matrix norm of a numeric ord over dims d0 and d1, as
// ATen: a vector 1-norm over one dim, then the largest (ord > 0) or
// smallest (ord < 0) over the other.
func (t *Tensor) matrixNormOrd(ord float64, d0, d1 int, keepdim bool) *Tensor {
	switch math.Abs(ord) {
	case 1:
	case math.Inf(1):
		d0, d1 = d1, d0 // the inf norm is the 1 norm of the transposed matrix
	default:
		return t.fail("linalg.matrix_norm", kernel.Errorf(ErrArgument, "linalg.matrix_norm: Order %s not supported.", formatOrd(ord)))
	}
	if !keepdim && d0 < d1 {
		d1-- // the first reduction removes d0, before d1
	}
	sums := t.LinalgVectorNorm(1, []int{d0}, keepdim)
	switch {
	case ord > 0 && keepdim:
		return sums.AmaxKeepDim(d1)
	case ord > 0:
		return sums.Amax(d1)
	case keepdim:
		return sums.AminKeepDim(d1)
	}
	return sums.Amin(d1)
}

// lowPrecisionNorm is PyTorch's refusal of float16 and bfloat16 by the
// matrix norms computed from singular values.
func lowPrecisionNorm(d DType) error {
	return kernel.Errorf(ErrDType, "linalg.matrix_norm: Low precision dtypes not supported. Got %s", kernel.PyName(d))
}

// singularValueNorm is a matrix norm of t over dims d0 and d1 computed from
// its singular values, as ATen computes it: the dims moved last, then the
// sum (ord 0: the nuclear norm), largest (ord 2) or smallest (ord -2)
// singular value; with keepdim, the two dims come back as size 1 through
// an unsqueeze and the inverse permutation.
func (t *Tensor) singularValueNorm(ord float64, d0, d1 int, keepdim bool) *Tensor {
	nd := t.Dim()
	perm := make([]int, 0, nd)
	for d := range nd {
		if d != d0 && d != d1 {
			perm = append(perm, d)
		}
	}
	perm = append(perm, d0, d1)
	sv := t.Permute(perm...).LinalgSvdvals()
	var r *Tensor
	switch {
	case ord == 0:
		r = sv.sumLast(keepdim)
	case ord > 0 && keepdim:
		r = sv.AmaxKeepDim(-1)
	case ord > 0:
		r = sv.Amax(-1)
	case keepdim:
		r = sv.AminKeepDim(-1)
	default:
		r = sv.Amin(-1)
	}
	if !keepdim || r.err != nil {
		return r
	}
	inverse := make([]int, nd)
	for i, d := range perm {
		inverse[d] = i
	}
	return r.Unsqueeze(-1).Permute(inverse...)
}

// sumLast sums over the last dim.
func (t *Tensor) sumLast(keepdim bool) *Tensor {
	if keepdim {
		return t.SumKeepDim(-1)
	}
	return t.Sum(-1)
}

// NormNuc is torch.norm(t, p="nuc", dim=dims): the nuclear norm (the sum
// of the singular values) of the matrices over dims, which must be two
// dims; without dims t must be a matrix. Unlike LinalgMatrixNorm it
// takes t's dtype to LinalgSvdvals unchecked, so the errors for integer
// and 16-bit inputs are those of linalg.svd, as in PyTorch.
func (t *Tensor) NormNuc(dims ...int) *Tensor { return t.nuclearNorm(false, dims) }

// NormNucKeepDim is NormNuc keeping the two reduced dims as size 1.
func (t *Tensor) NormNucKeepDim(dims ...int) *Tensor { return t.nuclearNorm(true, dims) }

// nuclearNorm is ATen's nuclear_norm.
func (t *Tensor) nuclearNorm(keepdim bool, dims []int) *Tensor {
	const op = "nuclear_norm"
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	if dims == nil {
		if t.Dim() != 2 {
			plural := "s"
			if t.Dim() == 1 {
				plural = ""
			}
			return t.fail(op, kernel.Errorf(ErrShape, "Expected a tensor with 2 dimensions, but got a tensor with %d dimension%s instead.", t.Dim(), plural))
		}
		dims = []int{0, 1}
	}
	if len(dims) != 2 {
		return t.fail(op, kernel.Errorf(ErrArgument, "nuclear norm requires a 'dim' argument of size 2"))
	}
	d0, err := kernel.NormalizeDim(dims[0], t.Dim())
	if err != nil {
		return t.fail(op, err)
	}
	d1, err := kernel.NormalizeDim(dims[1], t.Dim())
	if err != nil {
		return t.fail(op, err)
	}
	if d0 == d1 {
		return t.fail(op, kernel.Errorf(ErrArgument, "duplicate or invalid dimensions"))
	}
	return renamed(op, []*Tensor{t}, t.singularValueNorm(0, d0, d1, keepdim))
}

// Einsum sums the product of operands over the subscripts of equation, as
// torch.einsum: "ij,jk->ik" is a matrix product, "ii->i" a diagonal,
// "ij->" a sum, "...ij,...jk" a batched product. Subscripts are letters;
// "..." stands for the dims the letters leave (broadcast between operands,
// first in the implicit output). Without "->", the output has the
// subscripts that appear once, in alphabetical order (capitals first). A
// subscript repeated in one operand takes its diagonal; one absent from the
// output is summed; size-1 dims broadcast. The operands are aligned by
// views and contracted left to right in pairs by bmm, as PyTorch does, so
// contracted operands need one dtype; sums of integers give int64.
func Einsum(equation string, operands ...*Tensor) *Tensor {
	if err := inputErr("einsum", operands...); err != nil {
		return failed(err)
	}
	if len(operands) == 0 {
		return failed(NewError("einsum", ErrArgument, nil, "einsum(): must provide at least one operand"))
	}
	spec, err := parseEinsum(equation, operands)
	if err != nil {
		return failed(NewError("einsum", ErrArgument, operands, "%s", err.Error()))
	}
	ops, counts, err := spec.align(operands)
	if err != nil {
		return failed(NewError("einsum", ErrShape, operands, "%s", err.Error()))
	}
	return renamed("einsum", operands, spec.contract(ops, counts))
}

// einsumSpec is a parsed equation: the subscripts of each operand (labels
// 0-51 for A-Z, a-z, and einsumEllipsis) and where each label and the
// ellipsis dims go in the aligned operands, whose first outDims dims are
// the output.
type einsumSpec struct {
	labels    [][]int
	permIndex [52]int // the aligned dim of each label, -1 if unused
	ellDims   int     // the most dims any ellipsis covers
	ellIndex  int     // the aligned dim of the first ellipsis dim
	outDims   int
	nDims     int // aligned dims: the output's, then those summed
}

const einsumEllipsis = 52

// einsumError is an einsum argument error with PyTorch's message.
type einsumError string

func (e einsumError) Error() string { return string(e) }

func einsumErrorf(format string, args ...any) error { return einsumError(fmt.Sprintf(format, args...)) }

// labelOf numbers a letter: A-Z 0-25, a-z 26-51 (PyTorch's order).
func labelOf(c byte) (int, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A'), true
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26, true
	}
	return 0, false
}

func letterOf(l int) byte {
	if l < 26 {
		return byte('A' + l)
	}
	return byte('a' + l - 26)
}

// parseEinsum parses equation for operands, with ATen's checks in its order.
func parseEinsum(equation string, operands []*Tensor) (*einsumSpec, error) {
	arrow := -1
	for i := 0; i+1 < len(equation); i++ {
		if equation[i] == '-' && equation[i+1] == '>' {
			arrow = i
			break
		}
	}
	lhs := equation
	if arrow >= 0 {
		lhs = equation[:arrow]
	}
	s := &einsumSpec{labels: make([][]int, len(operands))}
	if err := s.parseInputs(lhs, len(operands)); err != nil {
		return nil, err
	}
	var count [52]int
	for i, t := range operands {
		if err := s.countLabels(i, t.Dim(), &count); err != nil {
			return nil, err
		}
	}
	for i := range s.permIndex {
		s.permIndex[i] = -1
	}
	ellInOut := true
	if arrow < 0 {
		s.nDims = s.ellDims // the implicit output: the ellipsis, then the labels seen once
		for l, n := range count {
			if n == 1 {
				s.permIndex[l] = s.nDims
				s.nDims++
			}
		}
	} else {
		var err error
		if ellInOut, err = s.parseOutput(equation[arrow+2:], len(lhs)+2, &count); err != nil {
			return nil, err
		}
	}
	s.outDims = s.nDims
	if !ellInOut { // the ellipsis dims are summed
		s.ellIndex = s.nDims
		s.nDims += s.ellDims
	}
	for l, n := range count {
		if n > 0 && s.permIndex[l] < 0 {
			s.permIndex[l] = s.nDims
			s.nDims++
		}
	}
	return s, nil
}

// parseInputs reads the subscripts of the operands (the equation before "->").
func (s *einsumSpec) parseInputs(lhs string, nops int) error {
	op, ell := 0, false
	for i := 0; i < len(lhs); i++ {
		c := lhs[i]
		switch c {
		case ' ':
		case '.':
			if ell {
				return einsumErrorf("einsum(): found '.' for operand %d for which an ellipsis was already found", op)
			}
			if i+2 >= len(lhs) || lhs[i+1] != '.' || lhs[i+2] != '.' {
				return einsumErrorf("einsum(): found '.' for operand %d that is not part of any ellipsis", op)
			}
			i += 2
			s.labels[op] = append(s.labels[op], einsumEllipsis)
			ell = true
		case ',':
			op++
			if op >= nops {
				return einsumErrorf("einsum(): fewer operands were provided than specified in the equation")
			}
			ell = false
		default:
			l, ok := labelOf(c)
			if !ok {
				return einsumErrorf("einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", i)
			}
			s.labels[op] = append(s.labels[op], l)
		}
	}
	if op != nops-1 {
		return einsumErrorf("einsum(): more operands were provided than specified in the equation")
	}
	return nil
}

// countLabels counts operand i's labels and checks them against its ndim
// dims, updating the dims the ellipsis covers.
func (s *einsumSpec) countLabels(i, ndim int, count *[52]int) error {
	n, ell := len(s.labels[i]), false
	for _, l := range s.labels[i] {
		if l == einsumEllipsis {
			n--
			ell = true
		} else {
			count[l]++
		}
	}
	switch {
	case ell && n > ndim:
		return einsumErrorf("einsum(): the number of subscripts in the equation (%d) is more than the number of dimensions (%d) for operand %d", n, ndim, i)
	case !ell && n != ndim:
		return einsumErrorf("einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given", n, ndim, i)
	case ell:
		s.ellDims = max(s.ellDims, ndim-n)
	}
	return nil
}

// parseOutput reads the explicit output (after "->", which starts at
// index at of the equation); it reports whether it has the ellipsis.
func (s *einsumSpec) parseOutput(rhs string, at int, count *[52]int) (bool, error) {
	ell := false
	for i := 0; i < len(rhs); i++ {
		c := rhs[i]
		switch c {
		case ' ':
		case '.':
			if ell {
				return false, einsumErrorf("einsum(): found '.' for output but an ellipsis (...) was already found")
			}
			if i+2 >= len(rhs) || rhs[i+1] != '.' || rhs[i+2] != '.' {
				return false, einsumErrorf("einsum(): found '.' for output that is not part of any ellipsis (...)")
			}
			i += 2
			s.ellIndex = s.nDims
			s.nDims += s.ellDims
			ell = true
		default:
			l, ok := labelOf(c)
			if !ok {
				return false, einsumErrorf("einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", at+i)
			}
			if s.permIndex[l] >= 0 {
				return false, einsumErrorf("einsum(): output subscript %c appears more than once in the output", c)
			}
			if count[l] == 0 {
				return false, einsumErrorf("einsum(): output subscript %c does not appear in the equation for any input operand", c)
			}
			s.permIndex[l] = s.nDims
			s.nDims++
		}
	}
	return ell, nil
}

// align checks the sizes, takes the diagonals of repeated labels and
// unsqueezes and permutes every operand to the nDims aligned dims. counts
// says for each aligned dim how many operands have it with a size other
// than 1.
func (s *einsumSpec) align(operands []*Tensor) ([]*Tensor, []int, error) {
	var labelSize [52]int
	for i := range labelSize {
		labelSize[i] = 1
	}
	ellSizes := make([]int, s.ellDims)
	for i := range ellSizes {
		ellSizes[i] = 1
	}
	counts := make([]int, s.nDims)
	ops := make([]*Tensor, len(operands))
	for i, op := range operands {
		perm := make([]int, s.nDims)
		for j := range perm {
			perm[j] = -1
		}
		dim := 0
		for _, l := range s.labels[i] {
			if l == einsumEllipsis {
				covered := operands[i].Dim() - (len(s.labels[i]) - 1)
				for j := s.ellDims - covered; j < s.ellDims; j++ {
					if n := op.shape[dim]; n != 1 {
						if ellSizes[j] != 1 && ellSizes[j] != n {
							return nil, nil, einsumErrorf("einsum(): dimension %d covered by ellipsis in operand %dhas size %d which does not broadcast with previously seen ellipsis with size %d for the respective dimension",
								dim, i, n, ellSizes[j])
						}
						ellSizes[j] = n
						counts[s.ellIndex+j]++
					}
					perm[s.ellIndex+j] = dim
					dim++
				}
				continue
			}
			at := s.permIndex[l]
			if prev := perm[at]; prev >= 0 { // a repeated label: its diagonal
				if op.shape[dim] != op.shape[prev] {
					return nil, nil, einsumErrorf("einsum(): subscript %c is repeated for operand %d but the sizes don't match, %d != %d",
						letterOf(l), i, op.shape[dim], op.shape[prev])
				}
				op = op.Diagonal(0, prev, dim).Movedim([]int{-1}, []int{prev})
				continue
			}
			if n := op.shape[dim]; n != 1 {
				if labelSize[l] != 1 && labelSize[l] != n {
					return nil, nil, einsumErrorf("einsum(): subscript %c has size %d for operand %d which does not broadcast with previously seen size %d",
						letterOf(l), n, i, labelSize[l])
				}
				labelSize[l] = n
				counts[at]++
			}
			perm[at] = dim
			dim++
		}
		for j := range perm { // the labels op lacks: size-1 dims
			if perm[j] < 0 {
				op = op.Unsqueeze(dim)
				perm[j] = dim
				dim++
			}
		}
		ops[i] = op.Permute(perm...)
	}
	return ops, counts, nil
}

// contract multiplies the aligned operands left to right, summing each
// contracted dim as soon as no operand left has it, and drops the summed
// dims from the result.
func (s *einsumSpec) contract(ops []*Tensor, counts []int) *Tensor {
	for len(ops) > 1 {
		a, b := ops[0], ops[1]
		var sumDims, aSum, bSum []int
		for d := s.outDims; d < s.nDims; d++ {
			switch {
			case a.shape[d] != 1 && b.shape[d] != 1:
				if counts[d]--; counts[d] == 1 {
					sumDims = append(sumDims, d)
					counts[d] = 0
				}
			case counts[d] == 1 && a.shape[d] != 1:
				aSum = append(aSum, d)
				counts[d] = 0
			case counts[d] == 1 && b.shape[d] != 1:
				bSum = append(bSum, d)
				counts[d] = 0
			}
		}
		if len(aSum) > 0 {
			a = a.SumKeepDim(aSum...)
		}
		if len(bSum) > 0 {
			b = b.SumKeepDim(bSum...)
		}
		ops = append([]*Tensor{sumProductPair(a, b, sumDims)}, ops[2:]...)
	}
	r := ops[0]
	if s.nDims == s.outDims || r.err != nil {
		return r
	}
	if len(s.labels) > 1 { // the summed dims are all 1 by now
		return r.Reshape(r.shape[:s.outDims]...)
	}
	dims := make([]int, 0, s.nDims-s.outDims)
	for d := s.outDims; d < s.nDims; d++ {
		dims = append(dims, d)
	}
	return r.Sum(dims...)
}

// sumProductPair is (a*b).sum(sumDims, keepdim) of two aligned tensors of
// one rank, computed as ATen's sumproduct_pair does: dims in both (lro),
// in a only (lo), in b only (ro) and summed ones are permuted into one bmm.
func sumProductPair(a, b *Tensor, sumDims []int) *Tensor {
	if a.err != nil || b.err != nil {
		return passOnPair(a, b)
	}
	if len(sumDims) == 0 {
		return a.Mul(b)
	}
	isSum := make([]bool, a.Dim())
	for _, d := range sumDims {
		isSum[d] = true
	}
	var lro, lo, ro []int
	lroSize, loSize, roSize, sumSize := 1, 1, 1, 1
	for i := range a.Dim() {
		sl, sr := a.shape[i] != 1, b.shape[i] != 1
		switch {
		case isSum[i]:
			sumSize *= a.shape[i] // in both, with one size (align checked)
		case sl && sr:
			lro = append(lro, i)
			lroSize *= a.shape[i]
		case sl:
			lo = append(lo, i)
			loSize *= a.shape[i]
		default:
			ro = append(ro, i)
			roSize *= b.shape[i]
		}
	}
	outSize := make([]int, 0, a.Dim())
	for _, d := range lro {
		outSize = append(outSize, a.shape[d])
	}
	for _, d := range lo {
		outSize = append(outSize, a.shape[d])
	}
	for range sumDims {
		outSize = append(outSize, 1)
	}
	for _, d := range ro {
		outSize = append(outSize, b.shape[d])
	}
	lperm := concatInts(lro, lo, sumDims, ro)
	rperm := concatInts(lro, sumDims, ro, lo)
	operm := make([]int, a.Dim())
	for i, d := range concatInts(lro, lo, sumDims, ro) {
		operm[d] = i
	}
	l := a.Permute(lperm...).Reshape(lroSize, loSize, sumSize)
	r := b.Permute(rperm...).Reshape(lroSize, sumSize, roSize)
	return l.Bmm(r).View(outSize...).Permute(operm...)
}

// passOnPair returns whichever of a and b failed.
func passOnPair(a, b *Tensor) *Tensor {
	if a.err != nil {
		return a
	}
	return b
}

func concatInts(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
