package torch

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Data movement and selection built from the existing ops (index_select,
// index_add, scatter, gather, masked_select, nonzero, sort, cumsum,
// searchsorted, where), so that each runs on every device that has those.
// The composite ops compute on detached inputs and record one node with
// PyTorch's name (TakeBackward0, IndexFillBackward0, ...), so that their
// history reads as PyTorch's.

// recordNamed gives out, computed from detached inputs, the node name over
// ins with the backward function fn, when autograd records ins.
func recordNamed(out *Tensor, name string, ins []*Tensor, fn backwardFn) *Tensor {
	if out.err != nil || !recording(ins...) {
		return out
	}
	out = out.Detach() // a tensor of its own: out may be a view of an intermediate
	out.setGradFn(name, ins, fn)
	return out
}

// renamedErr is err as an error of op, whose inner step (named in the
// detail) failed.
func renamedErr(op string, err error) error {
	e := *kernel.AsOpError(err)
	if e.Op != op {
		e.Detail = e.Op + ": " + e.Detail
		e.Op = op
	}
	return &e
}

// notImplementedGrad is the backward function of an op PyTorch has no
// derivative for (unique): reaching it in a backward pass is an error.
func notImplementedGrad(op string) backwardFn {
	return func(g *Tensor, need []bool, _ bool) []*Tensor {
		return []*Tensor{failed(kernel.Errorf(ErrNotImplemented, "the derivative for '%s' is not implemented.", op))}
	}
}

// writeInPlace is the in-place form name of an op: f computes the op's
// result from t's value (detached), which is copied into t; while autograd
// records, t's history is rebased onto the node rec records over prev (t's
// value before the write). The result must have t's shape (a mask or value
// may not broadcast t to a larger shape). It returns t, carrying the error
// of a failure.
func (t *Tensor) writeInPlace(name string, others []*Tensor, f func(self *Tensor) *Tensor, rec func(prev, out *Tensor)) *Tensor {
	if err := inputErr(name, append([]*Tensor{t}, others...)...); err != nil {
		return t.keepFailure(failed(err))
	}
	if err := t.checkWritable(name); err != nil {
		return t.keepFailure(failed(err))
	}
	records := recording(append([]*Tensor{t}, others...)...)
	var prev *Tensor
	if records {
		if err := checkLeafWrite(t, name); err != nil {
			return t.keepFailure(failed(err))
		}
		prev = previous(t, false)
	}
	r := f(t.Detach())
	if r.err != nil {
		return t.keepFailure(r)
	}
	if !slices.Equal(r.shape, t.shape) {
		return t.keepFailure(failed(t.opError(name, ErrShape, "output with shape %s doesn't match the broadcast shape %s",
			kernel.ShapeString(t.shape), kernel.ShapeString(r.shape))))
	}
	if c := t.Detach().Copy_(r); c.err != nil {
		return t.keepFailure(c)
	}
	if records {
		rebase(t, func(out *Tensor) { rec(prev, out) })
	}
	return t
}

// checkedIndex checks the int64 index ix into a dim of size n and makes its
// negative values count from the end (when wrap; else they are out of
// range); oob makes the error for the first bad value. On the meta device
// there are no values to check.
func checkedIndex(ix *Tensor, n int, wrap bool, oob func(v int64) error) (*Tensor, error) {
	if ix.IsMeta() || ix.Numel() == 0 {
		return ix, nil
	}
	lo := 0
	if wrap {
		lo = -n
	}
	bad := ix.GeScalar(n).LogicalOr(ix.LtScalar(lo))
	found, err := bad.Any().ItemBool()
	if err != nil {
		return nil, err
	}
	if found {
		first, err := ix.MaskedSelect(bad).Narrow(0, 0, 1).Reshape().ItemInt()
		if err != nil {
			return nil, err
		}
		return nil, oob(first)
	}
	if !wrap || n == 0 {
		return ix, nil
	}
	return ix.RemainderScalar(n), nil
}

// Take is torch.take: the elements of t, read as a 1-D tensor, at the
// int64 positions index names (negative positions count from the end); the
// result has the index's shape. As PyTorch: "take(): Expected a long tensor
// for index", "out of range: tried to access index 12 on a tensor of 12
// elements.", and "take(): tried to take from an empty tensor". Its
// gradient node is TakeBackward0.
func (t *Tensor) Take(index *Tensor) *Tensor {
	const op = "take"
	if err := inputErr(op, t, index); err != nil {
		return failed(err)
	}
	if index.dtype != Int64 {
		return failed(pairError(ErrDType, op, t, index, "take(): Expected a long tensor for index, but got %s", kernel.PyName(index.dtype)))
	}
	n := t.Numel()
	if n == 0 && index.Numel() > 0 {
		return failed(pairError(ErrIndex, op, t, index, "take(): tried to take from an empty tensor"))
	}
	at, err := checkedIndex(index.Detach().Reshape(-1), n, true, func(v int64) error {
		return pairError(ErrIndex, op, t, index, "out of range: tried to access index %d on a tensor of %d elements.", v, n)
	})
	if err != nil {
		return failed(err)
	}
	out := t.Detach().Reshape(-1).IndexSelect(0, at).View(index.shape...)
	return recordNamed(out, "TakeBackward0", []*Tensor{t, index}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		z := Zeros([]int{n}, WithDType(g.dtype), OnDevice(g.Device()))
		return []*Tensor{z.IndexAdd(0, at, g.Reshape(-1), 1).View(t.shape...), nil}
	})
}

// dimMask is a bool tensor that is true at the positions index names along
// dim d of t, shaped to broadcast against t (size 1 in its other dims).
func dimMask(t *Tensor, d int, index *Tensor) *Tensor {
	n := 1
	if t.Dim() > 0 {
		n = t.shape[d]
	}
	m := Zeros([]int{n}, WithDType(Bool), OnDevice(t.Device())).ScatterValue(0, index, true)
	shape := make([]int, t.Dim())
	for i := range shape {
		shape[i] = 1
	}
	if t.Dim() > 0 {
		shape[d] = n
	}
	return m.View(shape...)
}

// indexFillPlan checks index_fill's arguments and returns the mask of the
// filled positions and the value: a Go scalar, or a 0-dim tensor (vt).
func (t *Tensor) indexFillPlan(op string, dim int, index *Tensor, value any) (mask, vt *Tensor, err error) {
	if err := inputErr(op, t, index); err != nil {
		return nil, nil, err
	}
	if v, ok := value.(*Tensor); ok {
		if err := inputErr(op, v); err != nil {
			return nil, nil, err
		}
		if v.Dim() != 0 {
			return nil, nil, t.opError(op, ErrArgument, "index_fill_ only supports a 0-dimensional value tensor, but got "+
				"tensor with %d dimension(s).", v.Dim())
		}
		vt = v
	} else if _, err := kernel.ScalarOf(value); err != nil {
		return nil, nil, withOp(op, err)
	}
	d, err := kernel.NormalizeDim(dim, t.Dim())
	if err != nil {
		return nil, nil, withOp(op, err)
	}
	if index.dtype != Int64 {
		return nil, nil, pairError(ErrIndex, op, t, index, "index_fill_(): Expected dtype int64 for index.")
	}
	if index.Dim() > 1 {
		return nil, nil, pairError(ErrIndex, op, t, index, "Index has to be a vector/scalar")
	}
	n := 1
	if t.Dim() > 0 {
		n = t.shape[d]
	}
	at, err := checkedIndex(index.Detach().Reshape(-1), n, true, func(v int64) error {
		return pairError(ErrIndex, op, t, index, "index %d is out of bounds for dimension %d with size %d", v, d, n)
	})
	if err != nil {
		return nil, nil, err
	}
	mask = dimMask(t, d, at)
	return mask, vt, mask.err
}

// IndexFill is index_fill: a copy of t with value written into the slices
// along dim that the int64 index (1-D or 0-dim; negative entries count from
// the end) names. value is a Go scalar, or a 0-dim tensor whose gradient is
// the sum of the gradient at the filled positions (IndexFillBackward1; with
// a Go scalar, IndexFillBackward0). As PyTorch, the value is converted to
// t's dtype, and "index_fill_ only supports a 0-dimensional value tensor".
func (t *Tensor) IndexFill(dim int, index *Tensor, value any) *Tensor {
	mask, vt, err := t.indexFillPlan("index_fill", dim, index, value)
	if err != nil {
		return failed(err)
	}
	if vt == nil {
		out := t.Detach().MaskedFill(mask, value)
		return recordNamed(out, "IndexFillBackward0", []*Tensor{t, index}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{g.MaskedFill(mask, 0), nil}
		})
	}
	out := Where(mask, vt.Detach().ToDType(t.dtype), t.Detach())
	return recordNamed(out, "IndexFillBackward1", []*Tensor{t, index, vt}, fillGrad(mask, t, vt, 2))
}

// IndexFill_ is IndexFill in place; it returns t (carrying the error of a
// failure).
func (t *Tensor) IndexFill_(dim int, index *Tensor, value any) *Tensor {
	const op = "index_fill_"
	mask, vt, err := t.indexFillPlan(op, dim, index, value)
	if err != nil {
		return t.keepFailure(failed(err))
	}
	if vt == nil {
		return t.writeInPlace(op, []*Tensor{index}, func(self *Tensor) *Tensor { return self.MaskedFill(mask, value) },
			func(prev, out *Tensor) {
				out.setGradFn("IndexFillBackward0", []*Tensor{prev, index}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
					return []*Tensor{g.MaskedFill(mask, 0), nil}
				})
			})
	}
	return t.writeInPlace(op, []*Tensor{index, vt}, func(self *Tensor) *Tensor {
		return Where(mask, vt.Detach().ToDType(self.dtype), self)
	}, func(prev, out *Tensor) {
		out.setGradFn("IndexFillBackward1", []*Tensor{prev, index, vt}, fillGrad(mask, prev, vt, 2))
	})
}

// fillGrad is the derivative of filling the 0-dim vt (input number vi) into
// t where mask is true: t gets the gradient elsewhere, vt the sum of it
// there.
func fillGrad(mask, t, vt *Tensor, vi int) backwardFn {
	return func(g *Tensor, need []bool, _ bool) []*Tensor {
		out := make([]*Tensor, vi+1)
		if need[0] {
			out[0] = fitGrad(g.MaskedFill(mask, 0), t)
		}
		if need[vi] {
			out[vi] = fitGrad(g.MaskedFill(mask.LogicalNot(), 0).Sum(), vt)
		}
		return out
	}
}

// MaskedFillTensor is masked_fill with a 0-dim tensor value: t with value
// (converted to t's dtype) where the bool mask is true; t and mask
// broadcast together. The value's gradient is the sum of the gradient where
// the mask is true (MaskedFillBackward1). As PyTorch: "masked_fill_ only
// supports a 0-dimensional value tensor, but got tensor with 1
// dimension(s)." and "masked_fill_ only supports boolean masks".
func (t *Tensor) MaskedFillTensor(mask, value *Tensor) *Tensor {
	if err := t.maskedFillTensorCheck("masked_fill", mask, value); err != nil {
		return failed(err)
	}
	out := Where(mask, value.Detach().ToDType(t.dtype), t.Detach())
	return recordNamed(out, "MaskedFillBackward1", []*Tensor{t, mask, value}, fillGrad(mask, t, value, 2))
}

// MaskedFillTensor_ is MaskedFillTensor in place; the mask must broadcast
// to t's shape. It returns t (carrying the error of a failure).
func (t *Tensor) MaskedFillTensor_(mask, value *Tensor) *Tensor {
	const op = "masked_fill_"
	if err := t.maskedFillTensorCheck(op, mask, value); err != nil {
		return t.keepFailure(failed(err))
	}
	return t.writeInPlace(op, []*Tensor{mask, value}, func(self *Tensor) *Tensor {
		return Where(mask, value.Detach().ToDType(self.dtype), self)
	}, func(prev, out *Tensor) {
		out.setGradFn("MaskedFillBackward1", []*Tensor{prev, mask, value}, fillGrad(mask, prev, value, 2))
	})
}

func (t *Tensor) maskedFillTensorCheck(op string, mask, value *Tensor) error {
	if err := inputErr(op, t, mask, value); err != nil {
		return err
	}
	if mask.dtype != Bool {
		return pairError(ErrDType, op, t, mask, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
			mask.dtype)
	}
	if value.Dim() != 0 {
		return pairError(ErrArgument, op, t, value, "masked_fill_ only supports a 0-dimensional value tensor, but got "+
			"tensor with %d dimension(s).", value.Dim())
	}
	return nil
}

// indexCopyPlan checks index_copy's arguments as PyTorch does, in its
// order, and returns t's dim and the checked index.
func (t *Tensor) indexCopyPlan(op string, dim int, index, source *Tensor) (int, *Tensor, error) {
	if err := inputErr(op, t, index, source); err != nil {
		return 0, nil, err
	}
	d, err := kernel.NormalizeDim(dim, t.Dim())
	if err != nil {
		return 0, nil, withOp(op, err)
	}
	if index.Dim() >= 2 {
		return 0, nil, pairError(ErrIndex, op, t, index, "index_copy_(): Index should have dimension 1 or 0 (got %d)", index.Dim())
	}
	k := index.Numel()
	if source.Dim() == 0 && k != 1 {
		return 0, nil, pairError(ErrIndex, op, t, source, "index_copy_(): When source is scalar, index should have one element "+
			"(got %d)", k)
	}
	if source.Dim() != t.Dim() && source.Dim() != 0 && t.Dim() != 0 {
		return 0, nil, pairError(ErrIndex, op, t, source, "index_copy_(): When source and destination are not scalars, their "+
			"dimensionality must match. Source dimensionality (%d), destination dimensionality (%d)", source.Dim(), t.Dim())
	}
	if index.dtype != Int64 {
		return 0, nil, pairError(ErrDType, op, t, index, "index_copy_(): Expected a long tensor for index, but got %s",
			kernel.PyName(index.dtype))
	}
	if source.dtype != t.dtype {
		return 0, nil, pairError(ErrDType, op, t, source, "index_copy_(): self and source expected to have the same dtype, "+
			"but got (self) %s and (source) %s", kernel.PyName(t.dtype), kernel.PyName(source.dtype))
	}
	dst, src := slices.Clone(t.shape), slices.Clone(source.shape)
	if len(dst) > 0 {
		dst = slices.Delete(dst, d, d+1)
	}
	if len(src) > 0 {
		src = slices.Delete(src, d, d+1)
	}
	if !slices.Equal(dst, src) {
		return 0, nil, pairError(ErrShape, op, t, source, "index_copy_(): Source/destination tensor must have same slice shapes. "+
			"Destination slice shape: %s at dimension %d and source slice shape: %s at dimension 0.",
			kernel.ShapeString(dst), d, kernel.ShapeString(src))
	}
	if source.Dim() > 0 && k != source.shape[d] {
		return 0, nil, pairError(ErrIndex, op, t, source, "index_copy_(): Number of indices (%d) should be equal to "+
			"source.size(dim) (%d)", k, source.shape[d])
	}
	n := 1
	if t.Dim() > 0 {
		n = t.shape[d]
	}
	// index_copy does not wrap negative indices: they are out of bounds.
	at, err := checkedIndex(index.Detach().Reshape(-1), n, false, func(v int64) error {
		return pairError(ErrIndex, op, t, index, "index_copy_(): index %d is out of bounds for dimension %d with size %d", v, d, n)
	})
	return d, at, err
}

// indexCopyValue is index_copy of checked arguments, through scatter along
// d (t and source as at least 1-D).
func indexCopyValue(t *Tensor, d int, at, source *Tensor) *Tensor {
	self, src := t, source
	if t.Dim() == 0 {
		self = t.Reshape(1)
	}
	if src.Dim() == 0 {
		src = src.Reshape(1)
	}
	shape := make([]int, src.Dim())
	for i := range shape {
		shape[i] = 1
	}
	shape[d] = at.Numel()
	idx := at.View(shape...).Expand(src.shape...)
	return self.Scatter(d, idx, src).View(t.shape...)
}

// IndexCopy is index_copy: a copy of t with the slices of source along dim
// written at the positions the 1-D (or 0-dim) int64 index names (no
// negative positions; where one repeats, one write wins). source has t's
// shape except in dim, of the index's length. The gradient node is
// IndexCopyBackward0.
func (t *Tensor) IndexCopy(dim int, index, source *Tensor) *Tensor {
	d, at, err := t.indexCopyPlan("index_copy", dim, index, source)
	if err != nil {
		return failed(err)
	}
	out := indexCopyValue(t.Detach(), d, at, source.Detach())
	return recordNamed(out, "IndexCopyBackward0", []*Tensor{t, index, source}, indexCopyGrad(t, d, at, source))
}

// IndexCopy_ is IndexCopy in place; it returns t (carrying the error of a
// failure).
func (t *Tensor) IndexCopy_(dim int, index, source *Tensor) *Tensor {
	const op = "index_copy_"
	d, at, err := t.indexCopyPlan(op, dim, index, source)
	if err != nil {
		return t.keepFailure(failed(err))
	}
	return t.writeInPlace(op, []*Tensor{index, source}, func(self *Tensor) *Tensor {
		return indexCopyValue(self, d, at, source.Detach())
	}, func(prev, out *Tensor) {
		out.setGradFn("IndexCopyBackward0", []*Tensor{prev, index, source}, indexCopyGrad(prev, d, at, source))
	})
}

// indexCopyGrad: t gets the gradient outside the copied slices, source the
// gradient of the slices it was copied to.
func indexCopyGrad(t *Tensor, d int, at, source *Tensor) backwardFn {
	return func(g *Tensor, need []bool, _ bool) []*Tensor {
		out := make([]*Tensor, 3)
		gg := g
		if g.Dim() == 0 {
			gg = g.Reshape(1)
		}
		if need[0] {
			out[0] = gg.MaskedFill(dimMask(gg, d, at), 0).View(t.shape...)
		}
		if need[2] {
			out[2] = gg.IndexSelect(d, at).View(source.shape...)
		}
		return out
	}
}

// maskedScatterPlan checks masked_scatter's arguments and returns the
// broadcast shape of t and mask.
func (t *Tensor) maskedScatterPlan(op string, mask, source *Tensor) ([]int, error) {
	if err := inputErr(op, t, mask, source); err != nil {
		return nil, err
	}
	if mask.dtype != Bool && mask.dtype != Uint8 {
		// 1.13 also took integer masks; 2.x refuses them.
		return nil, pairError(ErrDType, op, t, mask, "masked_scatter_ only supports boolean masks, but got mask with dtype %s",
			mask.dtype)
	}
	if source.dtype != t.dtype {
		// 1.13's message lacks the space after "got"; this is 2.x's.
		return nil, pairError(ErrDType, op, t, source, "masked_scatter_: expected self and source to have same dtypes but got "+
			"%s and %s", kernel.PyName(t.dtype), kernel.PyName(source.dtype))
	}
	shape, err := kernel.BroadcastShapes(t.shape, mask.shape)
	if err != nil {
		return nil, pairError(ErrShape, op, t, mask, "%s", kernel.AsOpError(err).Detail)
	}
	return shape, nil
}

// maskedScatterValue is masked_scatter of checked arguments: t and mask
// expanded to shape, source's leading elements written where mask is true
// in row-major order. at (returned) holds the flat positions written.
func maskedScatterValue(op string, t, mask, source *Tensor, shape []int) (out, at *Tensor) {
	if t.IsMeta() { // which elements are written is data
		return Empty(shape, WithDType(t.dtype), OnDevice(t.Device())), nil
	}
	m := mask
	if m.dtype != Bool {
		m = m.NeScalar(0)
	}
	at = m.Expand(shape...).Reshape(-1).Nonzero().SqueezeDim(1)
	if at.err != nil {
		return at, nil
	}
	k := at.shape[0]
	if source.Numel() < k {
		return failed(pairError(ErrArgument, op, t, source, "masked_scatter: Number of elements of source < number of ones in mask")), nil
	}
	src := source.Reshape(-1).Narrow(0, 0, k)
	return t.Expand(shape...).Reshape(-1).Scatter(0, at, src).View(shape...), at
}

// maskedScatterGrad: t gets the gradient where the mask is false, source
// the gradient of the positions its elements went to (zeros for those
// left over).
func maskedScatterGrad(t, source, at *Tensor, shape []int) backwardFn {
	return func(g *Tensor, need []bool, _ bool) []*Tensor {
		out := make([]*Tensor, 3)
		if at == nil { // the meta device: which positions were written is unknown
			e := failed(kernel.Errorf(ErrNotImplemented, "masked_scatter's derivative needs the mask's values, which the "+
				"meta device does not have"))
			return []*Tensor{e, nil, e}
		}
		flat := g.Expand(shape...).Reshape(-1)
		if need[0] {
			out[0] = fitGrad(flat.ScatterValue(0, at, 0).View(shape...), t)
		}
		if need[2] {
			picked := flat.IndexSelect(0, at)
			rest := Zeros([]int{source.Numel() - at.shape[0]}, WithDType(g.dtype), OnDevice(g.Device()))
			out[2] = fitGrad(Cat([]*Tensor{picked, rest}, 0).View(source.shape...), source)
		}
		return out
	}
}

// MaskedScatter is masked_scatter: t (broadcast with the bool mask) with
// the leading elements of source, in order, written where mask is true.
// source needs at least as many elements as the mask has true ones
// ("masked_scatter: Number of elements of source < number of ones in
// mask") and t's dtype. The gradient node is MaskedScatterBackward0.
func (t *Tensor) MaskedScatter(mask, source *Tensor) *Tensor {
	const op = "masked_scatter"
	shape, err := t.maskedScatterPlan(op, mask, source)
	if err != nil {
		return failed(err)
	}
	out, at := maskedScatterValue(op, t.Detach(), mask, source.Detach(), shape)
	return recordNamed(out, "MaskedScatterBackward0", []*Tensor{t, mask, source}, maskedScatterGrad(t, source, at, shape))
}

// MaskedScatter_ is MaskedScatter in place: the mask must broadcast to t's
// shape. It returns t (carrying the error of a failure).
func (t *Tensor) MaskedScatter_(mask, source *Tensor) *Tensor {
	const op = "masked_scatter_"
	shape, err := t.maskedScatterPlan(op, mask, source)
	if err != nil {
		return t.keepFailure(failed(err))
	}
	if !slices.Equal(shape, t.shape) { // as PyTorch, which expands the mask to t
		if e := mask.Expand(t.shape...); e.err != nil {
			return t.keepFailure(e)
		}
	}
	var at *Tensor
	return t.writeInPlace(op, []*Tensor{mask, source}, func(self *Tensor) *Tensor {
		var out *Tensor
		out, at = maskedScatterValue(op, self, mask, source.Detach(), shape)
		return out
	}, func(prev, out *Tensor) {
		out.setGradFn("MaskedScatterBackward0", []*Tensor{prev, mask, source}, maskedScatterGrad(prev, source, at, shape))
	})
}

// NonzeroTuple is nonzero(as_tuple=True): one int64 tensor per dim of t
// holding the coordinates of its nonzero elements in that dim (a 0-dim t
// counts as 1-D, as PyTorch).
func (t *Tensor) NonzeroTuple() ([]*Tensor, error) {
	if err := inputErr("nonzero", t); err != nil {
		return nil, err
	}
	x := t
	if t.Dim() == 0 {
		x = t.Reshape(1)
	}
	nz := x.Nonzero()
	if nz.err != nil {
		return nil, nz.err
	}
	return nz.Unbind(1)
}

// WhereCond is torch.where(condition) with one argument: the same as
// condition.NonzeroTuple().
func WhereCond(cond *Tensor) ([]*Tensor, error) {
	if err := inputErr("where", cond); err != nil {
		return nil, err
	}
	return cond.NonzeroTuple()
}

// WhereScalar is torch.where(condition, input, other) where input and other
// are each a *Tensor or a Go scalar (bool, integer or float). The result
// dtype follows PyTorch 2.x's promotion, in which Go scalars weigh less
// than 0-dim tensors, which weigh less than tensors with dims: where(c, 2,
// 3) is int64, where(c, 2.5, 3) the default float dtype, where(c,
// int32Tensor, 2.5) float32, where(c, float16Tensor, 2) float16. A scalar
// that does not fit the result dtype is an error, as PyTorch's "value
// cannot be converted to type int8_t without overflow". The condition must
// be bool ("where expected condition to be a boolean tensor"); uint8 is
// read as bool (deprecated in PyTorch). Gradients flow to tensor operands
// through WhereBackward0.
func WhereScalar(cond *Tensor, input, other any) *Tensor {
	const op = "where"
	if err := inputErr(op, cond); err != nil {
		return failed(err)
	}
	if cond.dtype != Bool && cond.dtype != Uint8 {
		return failed(cond.opError(op, ErrDType, "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
			kernel.PyName(cond.dtype)))
	}
	var rt dtype.ResultType
	ops := []any{input, other}
	for _, v := range ops {
		switch x := v.(type) {
		case *Tensor:
			if err := inputErr(op, x); err != nil {
				return failed(err)
			}
			p := dtype.Dimensioned
			if x.Dim() == 0 {
				p = dtype.ZeroDim
			}
			rt.Add(x.dtype, p)
		default:
			s, err := kernel.ScalarOf(v)
			if err != nil {
				return cond.fail(op, err)
			}
			rt.Add(s.DType(), dtype.Scalar)
		}
	}
	d := rt.Result()
	ts := make([]*Tensor, 2)
	for i, v := range ops {
		if x, ok := v.(*Tensor); ok {
			ts[i] = x
			if x.dtype != d {
				ts[i] = x.ToDType(d)
			}
			continue
		}
		ts[i] = Scalar(v, WithDType(d))
		if ts[i].err != nil {
			return failed(withOp(op, ts[i].err))
		}
	}
	c := cond
	if c.dtype == Uint8 {
		c = c.NeScalar(0)
	}
	return Where(c, ts[0], ts[1])
}

// RepeatInterleaveFlat is repeat_interleave(repeats) without dim: t
// flattened, each element repeated n times.
func (t *Tensor) RepeatInterleaveFlat(n int) *Tensor {
	if err := inputErr("repeat_interleave", t); err != nil {
		return failed(err)
	}
	return t.Reshape(-1).RepeatInterleave(n, 0)
}

// RepeatInterleaveIndex is torch.repeat_interleave(repeats) with only the
// repeats: the positions 0, 1, ... of repeats, position i repeated
// repeats[i] times, in repeats' dtype (int64 or int32). repeats must be 1-D
// ("repeat_interleave only accept 1D vector as repeat") and non-negative.
// The result's length is data, so the meta device refuses it.
func RepeatInterleaveIndex(repeats *Tensor) *Tensor {
	const op = "repeat_interleave"
	if err := inputErr(op, repeats); err != nil {
		return failed(err)
	}
	if repeats.Dim() != 1 {
		return failed(repeats.opError(op, ErrShape, "repeat_interleave only accept 1D vector as repeat"))
	}
	if repeats.dtype != Int64 && repeats.dtype != Int32 {
		return failed(repeats.opError(op, ErrDType, "\"repeat_interleave_cpu\" not implemented for '%s'", kernel.PyName(repeats.dtype)))
	}
	if repeats.IsMeta() {
		return failed(repeats.opError(op, ErrNotImplemented, "the output size of repeat_interleave depends on the data, "+
			"which the meta device does not have"))
	}
	n := repeats.shape[0]
	dev := OnDevice(repeats.Device())
	if n == 0 {
		return Empty([]int{0}, WithDType(repeats.dtype), dev)
	}
	r := repeats.Detach()
	neg, err := r.LtScalar(0).Any().ItemBool()
	if err != nil {
		return failed(err)
	}
	if neg {
		return failed(repeats.opError(op, ErrArgument, "repeats can not be negative"))
	}
	// Output position p belongs to the first i whose running total exceeds p.
	ends := r.Cumsum(0).ToDType(Int64)
	total, err := ends.Select(0, n-1).ItemInt()
	if err != nil {
		return failed(err)
	}
	positions := Arange(int(total), dev)
	if positions.err != nil { // too many to allocate
		return failed(renamedErr(op, positions.err))
	}
	idx := Searchsorted(ends, positions, true)
	if repeats.dtype != Int64 {
		idx = idx.ToDType(repeats.dtype)
	}
	return idx
}

// RepeatInterleaveTensor is repeat_interleave with a tensor of repeats:
// slice i of t along dim repeated repeats[i] times; repeats is 0-dim or
// 1-D of length 1 (one count for every slice) or of t's size in dim,
// int64 or int32, non-negative. A nil dim flattens t first. As PyTorch's,
// the result is an index_select of t (IndexSelectBackward0), and its
// errors are "repeats must be 0-dim or 1-dim tensor", "repeats must have
// the same size as input along dim" and "repeats can not be negative".
func (t *Tensor) RepeatInterleaveTensor(repeats *Tensor, dim *int) *Tensor {
	const op = "repeat_interleave"
	if err := inputErr(op, t, repeats); err != nil {
		return failed(err)
	}
	x, d := t, 0
	if dim == nil {
		if x = t.Reshape(-1); x.err != nil {
			return x
		}
	} else {
		if t.Dim() == 0 {
			return failed(t.opError(op, ErrIndex, "Dimension specified as %d but tensor has no dimensions", *dim))
		}
		var err error
		if d, err = kernel.NormalizeDim(*dim, t.Dim()); err != nil {
			return t.fail(op, err)
		}
	}
	if repeats.Dim() > 1 {
		return failed(pairError(ErrShape, op, t, repeats, "repeats must be 0-dim or 1-dim tensor"))
	}
	if repeats.dtype != Int64 && repeats.dtype != Int32 {
		return failed(pairError(ErrDType, op, t, repeats, "\"repeat_interleave_cpu\" not implemented for '%s'", kernel.PyName(repeats.dtype)))
	}
	r := repeats
	switch {
	case r.Dim() == 0 || r.shape[0] == 1:
		r = r.Reshape(1).Expand(x.shape[d])
	case r.shape[0] != x.shape[d]:
		return failed(pairError(ErrShape, op, t, repeats, "repeats must have the same size as input along dim"))
	}
	idx := RepeatInterleaveIndex(r)
	if idx.err != nil {
		return idx
	}
	return x.IndexSelect(d, idx)
}

// UniqueWith is torch.unique(sorted=sorted, return_inverse=True,
// return_counts=True) over all elements. Both orders give the sorted
// distinct values: PyTorch 2.x's CPU unique always sorts (it is faster
// than a hash table), so sorted=False returns the same order; 1.13 returned
// the values in the order of its hash set, which was unspecified.
func (t *Tensor) UniqueWith(sorted bool) (values, inverse, counts *Tensor) {
	_ = sorted // the one order, see above
	return t.Unique()
}

// uniqueDimPlan checks unique's dim argument: the normalized dim, and
// whether the result is empty (size 0 in dim), as PyTorch's unique_dim.
func (t *Tensor) uniqueDimPlan(op string, dim int) (int, bool, error) {
	if err := inputErr(op, t); err != nil {
		return 0, false, err
	}
	if t.Dim() == 0 {
		return 0, false, t.opError(op, ErrIndex, "Dimension specified as %d but tensor has no dimensions", dim)
	}
	d, err := kernel.NormalizeDim(dim, t.Dim())
	if err != nil {
		return 0, false, withOp(op, err)
	}
	zeros := 0
	for _, s := range t.shape {
		if s == 0 {
			zeros++
		}
	}
	if t.shape[d] == 0 && zeros > 1 {
		return 0, false, t.opError(op, ErrShape, "Number of zero sized dimensions is more than one, so unique cannot be applied ")
	}
	if t.shape[d] != 0 && zeros > 0 {
		return 0, false, t.opError(op, ErrShape, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
	}
	if t.IsMeta() { // as PyTorch's meta device, even for an empty input
		return 0, false, t.opError(op, ErrNotImplemented, "the output shape of %s depends on the data, which the meta "+
			"device does not have", op)
	}
	return d, t.shape[d] == 0, nil
}

// moveToFront is t with dim d first, the other dims in order.
func moveToFront(t *Tensor, d int) *Tensor {
	perm := []int{d}
	for i := range t.Dim() {
		if i != d {
			perm = append(perm, i)
		}
	}
	return t.Permute(perm...)
}

// moveFromFront undoes moveToFront.
func moveFromFront(t *Tensor, d int) *Tensor {
	perm := make([]int, 0, t.Dim())
	for i := 1; i <= d; i++ {
		perm = append(perm, i)
	}
	perm = append(perm, 0)
	for i := d + 1; i < t.Dim(); i++ {
		perm = append(perm, i)
	}
	return t.Permute(perm...)
}

// runs finds the runs of equal rows of the 2-D rows (compared with !=, so
// that NaN is never equal): the row where each run starts, the run of each
// row and the length of each run.
func runs(rows *Tensor) (starts, group, counts *Tensor) {
	if rows.err != nil {
		return rows, rows, rows
	}
	n := rows.shape[0]
	dev := OnDevice(rows.Device())
	first := Ones([]int{1}, WithDType(Bool), dev)
	changed := rows.Narrow(0, 1, n-1).Ne(rows.Narrow(0, 0, n-1))
	if changed.Dim() > 1 {
		changed = changed.Any(1)
	}
	flags := Cat([]*Tensor{first, changed}, 0)
	group = flags.Cumsum(0).SubScalar(1).ToDType(Int64)
	starts = flags.Nonzero().SqueezeDim(1)
	if starts.err != nil {
		return starts, starts, starts
	}
	ends := Cat([]*Tensor{starts.Narrow(0, 1, starts.shape[0]-1), Full([]int{1}, n, WithDType(Int64), dev)}, 0)
	return starts, group, ends.Sub(starts)
}

// uniqueEmpty is the result of unique over a dim of size 0: t itself
// (copied) and empty int64 inverse and counts.
func uniqueEmpty(t *Tensor) (values, inverse, counts *Tensor) {
	e := Empty([]int{0}, WithDType(Int64), OnDevice(t.Device()))
	return t.Detach().Clone(), e, e.Clone()
}

// UniqueConsecutive is torch.unique_consecutive: the first element of each
// run of equal consecutive elements (NaNs are never equal), with a nil dim
// over t flattened, else the first slice of each run of equal slices along
// *dim. With returnInverse, the run of each element (t's shape) or slice
// (1-D); with returnCounts, the length of each run; each is nil when not
// asked for. Its values have no derivative (UniqueConsecutiveBackward0
// fails, as PyTorch's).
func (t *Tensor) UniqueConsecutive(returnInverse, returnCounts bool, dim *int) (values, inverse, counts *Tensor) {
	const op = "unique_consecutive"
	if dim != nil {
		d, empty, err := t.uniqueDimPlan(op, *dim)
		if err != nil {
			e := failed(err)
			return e, e, e
		}
		if empty {
			values, inverse, counts = uniqueEmpty(t)
		} else {
			moved := moveToFront(t.Detach(), d)
			starts, group, n := runs(moved.Reshape(t.shape[d], -1))
			values, inverse, counts = moveFromFront(moved.IndexSelect(0, starts), d).Contiguous(), group, n
		}
	} else {
		if err := inputErr(op, t); err != nil {
			e := failed(err)
			return e, e, e
		}
		if t.IsMeta() {
			e := failed(t.opError(op, ErrNotImplemented, "the output shape of unique_consecutive depends on the data, which the "+
				"meta device does not have"))
			return e, e, e
		}
		flat := t.Detach().Reshape(-1)
		if flat.shape[0] == 0 {
			values, _, counts = uniqueEmpty(flat)
			inverse = Empty(t.shape, WithDType(Int64), OnDevice(t.Device()))
		} else {
			starts, group, n := runs(flat)
			values, inverse, counts = flat.IndexSelect(0, starts), group.View(t.shape...), n
		}
	}
	values = recordNamed(values, "UniqueConsecutiveBackward0", []*Tensor{t}, notImplementedGrad(op))
	return values, keepIf(inverse, returnInverse), keepIf(counts, returnCounts)
}

// keepIf is t when asked for, else nil.
func keepIf(t *Tensor, asked bool) *Tensor {
	if !asked {
		return nil
	}
	return t
}

// UniqueDim is torch.unique(dim=dim): the distinct slices of t along dim,
// sorted lexicographically (PyTorch always sorts them). With returnInverse,
// the position of each slice of t among them (1-D); with returnCounts, how
// often each occurs; each is nil when not asked for. Slices with a NaN are
// never equal. The sort runs once per element of a slice (a stable sort by
// each element, the last first). Its values have no derivative
// (UniqueDimBackward0 fails, as PyTorch's).
func (t *Tensor) UniqueDim(dim int, returnInverse, returnCounts bool) (values, inverse, counts *Tensor) {
	const op = "unique_dim"
	d, empty, err := t.uniqueDimPlan(op, dim)
	if err != nil {
		e := failed(err)
		return e, e, e
	}
	if empty {
		values, inverse, counts = uniqueEmpty(t)
	} else {
		moved := moveToFront(t.Detach(), d)
		rows := moved.Reshape(t.shape[d], -1)
		if rows.err != nil {
			return rows, rows, rows
		}
		n := rows.shape[0]
		if rows.dtype == Bool {
			rows = rows.ToDType(Uint8) // sortable keys, in the same order
		}
		// A least-significant-first radix of stable sorts orders the rows
		// lexicographically.
		order := Arange(n, OnDevice(t.Device()))
		for j := rows.shape[1] - 1; j >= 0; j-- {
			_, p := rows.Select(1, j).IndexSelect(0, order).Sort(0, false)
			order = order.IndexSelect(0, p)
		}
		starts, group, c := runs(rows.IndexSelect(0, order))
		values = moveFromFront(moved.IndexSelect(0, order.IndexSelect(0, starts)), d).Contiguous()
		inverse = Zeros([]int{n}, WithDType(Int64), OnDevice(t.Device())).Scatter(0, order, group)
		counts = c
	}
	values = recordNamed(values, "UniqueDimBackward0", []*Tensor{t}, notImplementedGrad(op))
	return values, keepIf(inverse, returnInverse), keepIf(counts, returnCounts)
}

// SearchsortedOptions are torch.searchsorted's keyword arguments.
type SearchsortedOptions struct {
	// Right places a value after the elements equal to it.
	Right bool
	// Side is "left", "right" or "" (unset); it may not contradict Right
	// ("side and right can't be set to opposites").
	Side string
	// OutInt32 makes the result int32 instead of int64.
	OutInt32 bool
	// Sorter, when not nil, holds the int64 indices that sort sorted
	// along its last dim (sorted itself is then unsorted).
	Sorter *Tensor
}

// SearchsortedWith is torch.searchsorted(sorted, values, out_int32, right,
// side, sorter): for each value, the index in sorted (1-D, or one row per
// leading position of values) where it would be inserted to keep the order.
// sorted and values promote to a common dtype (bool is refused, as
// PyTorch's CPU kernel). A sorter with an index outside its last dim is an
// error, as in PyTorch 2.x ("sorter index out of range"; 1.13 read out of
// bounds).
func SearchsortedWith(sorted, values *Tensor, o SearchsortedOptions) *Tensor {
	const op = "searchsorted"
	if err := inputErr(op, sorted, values); err != nil {
		return failed(err)
	}
	return searchsorted(sorted, values, dtype.Dimensioned, o)
}

// SearchsortedScalar is SearchsortedWith for one Go scalar value: a 0-dim
// result; sorted must be 1-D. The scalar takes part in type promotion as a
// Python number does (an int against float boundaries is a float).
func SearchsortedScalar(sorted *Tensor, value any, o SearchsortedOptions) *Tensor {
	const op = "searchsorted"
	if err := inputErr(op, sorted); err != nil {
		return failed(err)
	}
	if sorted.Dim() != 1 {
		return failed(sorted.opError(op, ErrShape, "torch.searchsorted(): input value can be a scalar only when boundaries "+
			"tensor dimension is 1, but we got boundaries tensor dim(%d) and input value's dim(0) numel(1)", sorted.Dim()))
	}
	v, err := scalarOperand(op, value, sorted, dtype.Dimensioned)
	if err != nil {
		return failed(err)
	}
	return searchsorted(sorted, v, dtype.Scalar, o)
}

// scalarOperand is the Go scalar v as a 0-dim tensor on t's device, in
// the dtype an op on t (of priority p) and v computes in.
func scalarOperand(op string, v any, t *Tensor, p dtype.Priority) (*Tensor, error) {
	s, err := kernel.ScalarOf(v)
	if err != nil {
		return nil, withOp(op, err)
	}
	var rt dtype.ResultType
	rt.Add(t.dtype, p)
	rt.Add(s.DType(), dtype.Scalar)
	x := Scalar(v, WithDType(rt.Result()), OnDevice(t.Device()))
	if x.err != nil {
		return nil, withOp(op, x.err)
	}
	return x, nil
}

// searchsorted runs searchsorted on checked tensors; p is the priority of
// values in type promotion (a Go scalar's is lowest).
func searchsorted(sorted, values *Tensor, p dtype.Priority, o SearchsortedOptions) *Tensor {
	const op = "searchsorted"
	right := o.Right
	switch o.Side {
	case "":
	case "left", "right":
		if o.Side == "left" && o.Right {
			return failed(sorted.opError(op, ErrArgument, "torch.searchsorted(): side and right can't be set to opposites, "+
				"got side of left while right was True"))
		}
		right = o.Side == "right"
	default:
		return failed(sorted.opError(op, ErrArgument, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", o.Side))
	}
	if sorted.dtype == Bool || values.dtype == Bool {
		return failed(pairError(ErrDType, op, sorted, values, "\"searchsorted_out_cpu\" not implemented for 'Bool'"))
	}
	if o.Sorter != nil {
		s, err := sortBy(sorted, o.Sorter)
		if err != nil {
			return failed(err)
		}
		sorted = s
	}
	if sorted.dtype != values.dtype {
		var rt dtype.ResultType
		ps := dtype.Dimensioned
		if sorted.Dim() == 0 {
			ps = dtype.ZeroDim
		}
		if p == dtype.Dimensioned && values.Dim() == 0 {
			p = dtype.ZeroDim
		}
		rt.Add(sorted.dtype, ps)
		rt.Add(values.dtype, p)
		d := rt.Result()
		sorted, values = sorted.ToDType(d), values.ToDType(d)
	}
	return runOp(kernel.OpSearchsorted, func(c *kernel.Call) error {
		c.KeepDim = right
		if o.OutInt32 {
			c.DType, c.HasDType = Int32, true
		}
		return nil
	}, sorted, values)
}

// sortBy is sorted read in the order of sorter along its last dim, with
// sorter checked as PyTorch 2.x does.
func sortBy(sorted, sorter *Tensor) (*Tensor, error) {
	const op = "searchsorted"
	if err := inputErr(op, sorter); err != nil {
		return nil, err
	}
	if sorter.dtype != Int64 {
		return nil, pairError(ErrDType, op, sorted, sorter, "torch.searchsorted(): sorter must be a tensor of long dtype but got "+
			"dtype %s", kernel.PyName(sorter.dtype))
	}
	if !slices.Equal(sorted.shape, sorter.shape) {
		return nil, pairError(ErrShape, op, sorted, sorter, "torch.searchsorted(): boundary and sorter must have the same size, "+
			"but got boundary tensor %s and got sorter tensor %s", kernel.ShapeString(sorted.shape), kernel.ShapeString(sorter.shape))
	}
	if sorted.Dim() == 0 {
		return sorted, nil // the kernel's check of the boundaries' rank reports it
	}
	n := sorted.shape[sorted.Dim()-1]
	if _, err := checkedIndex(sorter, n, false, func(int64) error {
		return pairError(ErrIndex, op, sorted, sorter, "torch.searchsorted(): sorter index out of range")
	}); err != nil {
		return nil, err
	}
	return sorted.Gather(-1, sorter), nil
}

// Bucketize is torch.bucketize(input, boundaries, out_int32, right): for
// each element of input, the index of its bucket among the 1-D boundaries
// ("boundaries tensor must be 1 dimension, but got dim(2)"); the same as
// SearchsortedWith(boundaries, input).
func Bucketize(input, boundaries *Tensor, right, outInt32 bool) *Tensor {
	const op = "bucketize"
	if err := inputErr(op, input, boundaries); err != nil {
		return failed(err)
	}
	if boundaries.Dim() != 1 {
		return failed(boundaries.opError(op, ErrShape, "boundaries tensor must be 1 dimension, but got dim(%d)", boundaries.Dim()))
	}
	return searchsorted(boundaries, input, dtype.Dimensioned, SearchsortedOptions{Right: right, OutInt32: outInt32})
}

// BucketizeScalar is Bucketize of one Go scalar: a 0-dim result.
func BucketizeScalar(value any, boundaries *Tensor, right, outInt32 bool) *Tensor {
	const op = "bucketize"
	if err := inputErr(op, boundaries); err != nil {
		return failed(err)
	}
	if boundaries.Dim() != 1 {
		return failed(boundaries.opError(op, ErrShape, "boundaries tensor must be 1 dimension, but got dim(%d)", boundaries.Dim()))
	}
	return SearchsortedScalar(boundaries, value, SearchsortedOptions{Right: right, OutInt32: outInt32})
}

// IndexItem is one entry of an indexing expression for At, SetAt and
// IndexPutAt_, as one entry of x[...] in Python. Make them with Idx,
// Slice, SliceFrom, SliceTo, Colon, NewAxis and Ellipsis; At also takes a
// Go integer (x[2]), a Go bool (x[True]) and a *Tensor (x[t]) directly.
type IndexItem struct {
	kind              indexKind
	n                 int // an integer; or a bool (0 or 1)
	start, stop, step int
	t                 *Tensor
}

type indexKind uint8

const (
	itemInt indexKind = iota + 1
	itemSlice
	itemNewAxis
	itemEllipsis
	itemBool
	itemTensor
)

var (
	// NewAxis is None in an index: a new dim of size 1.
	NewAxis = IndexItem{kind: itemNewAxis}
	// Ellipsis is ... in an index: as many full slices as the other
	// entries leave dims.
	Ellipsis = IndexItem{kind: itemEllipsis}
	// Colon is the full slice, : in an index.
	Colon = IndexItem{kind: itemSlice, stop: maxIndex, step: 1}
)

// maxIndex is the open end of a slice (clamped to the dim's size).
const maxIndex = int(^uint(0) >> 1)

// Idx is the index tensor t as an entry of an index: int64 or int32
// positions along one dim (negative ones count from the end), or a bool
// (or deprecated uint8) mask over as many dims as it has. A 0-dim integer
// tensor indexes as a Go integer would, a 0-dim bool one as a Go bool.
func Idx(t *Tensor) IndexItem { return IndexItem{kind: itemTensor, t: t} }

// Slice is start:stop:step in an index, with Python's rules: negative
// start and stop count from the end and both are clamped to the dim; step
// must be positive.
func Slice(start, stop, step int) IndexItem {
	return IndexItem{kind: itemSlice, start: start, stop: stop, step: step}
}

// SliceFrom is start: in an index.
func SliceFrom(start int) IndexItem { return Slice(start, maxIndex, 1) }

// SliceTo is :stop in an index.
func SliceTo(stop int) IndexItem { return Slice(0, stop, 1) }

// indexItems converts At's arguments to IndexItems.
func indexItems(op string, items []any) ([]IndexItem, error) {
	out := make([]IndexItem, len(items))
	for i, v := range items {
		switch x := v.(type) {
		case IndexItem:
			out[i] = x
		case *Tensor:
			out[i] = Idx(x)
		case bool:
			out[i] = IndexItem{kind: itemBool}
			if x {
				out[i].n = 1
			}
		case nil:
			return nil, withOp(op, kernel.Errorf(ErrArgument, "index entry %d is nil (use torch.NewAxis for None)", i))
		default:
			s, err := kernel.ScalarOf(v)
			if err != nil || s.DType() != Int64 {
				return nil, withOp(op, kernel.Errorf(ErrIndex, "only integers, slices (`:`), ellipsis (`...`), None and long "+
					"or byte Variables are valid indices (got %T)", v))
			}
			out[i] = IndexItem{kind: itemInt, n: int(s.Int())}
		}
		if it := out[i]; it.kind == itemTensor {
			if err := inputErr(op, it.t); err != nil {
				return nil, err
			}
		} else if it.kind == 0 {
			return nil, withOp(op, kernel.Errorf(ErrArgument, "index entry %d is a zero IndexItem{}", i))
		}
	}
	return out, nil
}

// basicIndex applies the ints, slices, None and ellipses of items to t,
// as PyTorch's applySlicing: a view of t, and the index tensors recorded
// at the dims of that view they index (nil where none). An int selects (so
// that it takes no part in where advanced dims go, unlike NumPy); a bool
// adds a dim of size 1 indexed by [0] (true) or [] (false).
func (t *Tensor) basicIndex(op string, items []IndexItem) (*Tensor, []*Tensor, error) {
	// Resolve 0-dim index tensors to ints and bools, which need their value.
	for i, it := range items {
		if it.kind != itemTensor {
			continue
		}
		x := it.t
		switch {
		case x.dtype != Bool && x.dtype != Uint8 && x.dtype != Int64 && x.dtype != Int32:
			return nil, nil, pairError(ErrIndex, op, t, x, "tensors used as indices must be long, int, byte or bool tensors")
		case x.Dim() == 0 && x.IsMeta():
			if x.dtype == Bool || x.dtype == Uint8 {
				return nil, nil, t.opError(op, ErrNotImplemented, "indexing with a 0-dim bool tensor needs its value, which the "+
					"meta device does not have")
			}
			// Its value is unknown, but a select at any valid position
			// gives the shape PyTorch's select at its value gives.
			items[i] = IndexItem{kind: itemInt}
		case x.Dim() == 0:
			v, err := x.ItemInt()
			if err != nil {
				return nil, nil, err
			}
			items[i] = IndexItem{kind: itemInt, n: int(v)}
			if x.dtype == Bool || x.dtype == Uint8 {
				items[i] = IndexItem{kind: itemBool, n: min(int(v), 1)}
			}
		case x.dtype == Uint8:
			items[i].t = x.NeScalar(0) // PyTorch's deprecated byte masks
		}
	}
	specified := 0
	for _, it := range items {
		switch {
		case it.kind == itemInt || it.kind == itemSlice:
			specified++
		case it.kind == itemTensor && it.t.dtype == Bool:
			specified += it.t.Dim()
		case it.kind == itemTensor:
			specified++
		}
	}
	if specified > t.Dim() {
		return nil, nil, t.opError(op, ErrIndex, "too many indices for tensor of dimension %d", t.Dim())
	}
	r, dim := t, 0
	var idx []*Tensor
	record := func(ix *Tensor) {
		for len(idx) <= dim {
			idx = append(idx, nil)
		}
		idx[dim] = ix
	}
	for _, it := range items {
		// Two ellipses (PyTorch takes them) can push dim past the end.
		if end := r.Dim(); dim > end || dim == end && (it.kind == itemInt && end > 0 || it.kind == itemSlice || it.kind == itemTensor) {
			if it.kind == itemTensor {
				return nil, nil, t.opError(op, ErrIndex, "too many indices for tensor of dimension %d", t.Dim())
			}
			if it.kind == itemNewAxis || it.kind == itemBool {
				end++
			}
			return nil, nil, t.opError(op, ErrIndex, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
				-max(end, 1), max(end, 1)-1, dim)
		}
		switch it.kind {
		case itemInt:
			if r.Dim() == 0 {
				return nil, nil, t.opError(op, ErrIndex, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "+
					"`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
			}
			if n := r.shape[dim]; it.n < -n || it.n >= n {
				return nil, nil, t.opError(op, ErrIndex, "index %d is out of bounds for dimension %d with size %d", it.n, dim, n)
			}
			r = r.Select(dim, it.n)
		case itemSlice:
			if it.step <= 0 {
				return nil, nil, t.opError(op, ErrArgument, "step must be greater than zero")
			}
			r = r.Slice(dim, it.start, it.stop, it.step)
			dim++
		case itemNewAxis:
			r = r.Unsqueeze(dim)
			dim++
		case itemEllipsis:
			dim += t.Dim() - specified
		case itemBool:
			r = r.Unsqueeze(dim)
			record(Arange(it.n, OnDevice(t.Device())))
			dim++
		case itemTensor:
			record(it.t)
			if it.t.dtype == Bool {
				// A mask covers as many dims as it has, as NumPy and PyTorch
				// since its PR 158369; before it (1.13 included) the entry
				// after a mask of 2 or more dims was applied to the wrong dim.
				dim += it.t.Dim()
			} else {
				dim++
			}
		}
		if r.err != nil {
			return nil, nil, r.err
		}
	}
	return r, idx, nil
}

// advanced is the advanced part of an index into r (basicIndex's view):
// the dims of r indexed (in order) and one int index per dim (a mask
// stands for the coordinates of its true elements), the broadcast shape of
// the indices, and the dim of the result where that shape goes: at the
// first indexed dim when the indexed dims are adjacent, else first, as
// PyTorch (and NumPy).
type advanced struct {
	dims  []int
	ints  []*Tensor
	shape []int
	at    int
	rest  []int // the sizes of the dims not indexed, in order
	known bool  // false on the meta device with a mask: the shape is data
}

func (r *Tensor) advancedIndex(op string, idx []*Tensor) (advanced, error) {
	var a advanced
	a.known = true
	for d, ix := range idx {
		if ix == nil {
			continue
		}
		if ix.dtype != Bool {
			a.dims, a.ints = append(a.dims, d), append(a.ints, ix)
			continue
		}
		k := ix.Dim()
		for j := range k {
			if d+j >= r.Dim() || ix.shape[j] != r.shape[d+j] {
				return a, pairError(ErrIndex, op, r, ix, "The shape of the mask %s at index %d does not match the shape of "+
					"the indexed tensor %s at index %d", kernel.ShapeString(ix.shape), j, kernel.ShapeString(r.shape), d+j)
			}
		}
		if r.IsMeta() {
			a.known = false
			for j := range k {
				a.dims, a.ints = append(a.dims, d+j), append(a.ints, nil)
			}
			continue
		}
		nz := ix.Nonzero()
		for j := range k {
			a.dims, a.ints = append(a.dims, d+j), append(a.ints, nz.Select(1, j))
		}
	}
	for d := range r.Dim() {
		if !slices.Contains(a.dims, d) {
			a.rest = append(a.rest, r.shape[d])
		}
	}
	if a.dims[len(a.dims)-1]-a.dims[0] == len(a.dims)-1 {
		a.at = a.dims[0]
	}
	if !a.known {
		return a, nil
	}
	shapes := make([][]int, len(a.ints))
	for i, ix := range a.ints {
		if err := inputErr(op, ix); err != nil {
			return a, err
		}
		shapes[i] = ix.shape
	}
	var err error
	if a.shape, err = kernel.BroadcastShapes(shapes...); err != nil {
		names := make([]string, len(shapes))
		for i, s := range shapes {
			names[i] = kernel.ShapeString(s)
		}
		return a, r.opError(op, ErrIndex, "shape mismatch: indexing tensors could not be broadcast together with shapes %s",
			joinComma(names))
	}
	return a, nil
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// front is r with the indexed dims first, in order, then the others.
func (a advanced) front(r *Tensor) *Tensor {
	perm := slices.Clone(a.dims)
	for d := range r.Dim() {
		if !slices.Contains(a.dims, d) {
			perm = append(perm, d)
		}
	}
	return r.Permute(perm...)
}

// resultShape is the shape of the indexing result.
func (a advanced) resultShape() []int {
	out := slices.Clone(a.rest[:a.at])
	out = append(out, a.shape...)
	return append(out, a.rest[a.at:]...)
}

// placed moves the index dims of x (the broadcast shape first, then the
// other dims) to a.at; unplaced undoes it.
func (a advanced) placed(x *Tensor) *Tensor {
	if a.at == 0 {
		return x
	}
	nb := len(a.shape)
	var perm []int
	for i := range a.at {
		perm = append(perm, nb+i)
	}
	for i := range nb {
		perm = append(perm, i)
	}
	for i := nb + a.at; i < x.Dim(); i++ {
		perm = append(perm, i)
	}
	return x.Permute(perm...)
}

func (a advanced) unplaced(x *Tensor) *Tensor {
	if a.at == 0 {
		return x
	}
	nb := len(a.shape)
	var perm []int
	for i := range nb {
		perm = append(perm, a.at+i)
	}
	for i := range a.at {
		perm = append(perm, i)
	}
	for i := nb + a.at; i < x.Dim(); i++ {
		perm = append(perm, i)
	}
	return x.Permute(perm...)
}

// At is t[items...] in Python: items are Go integers (select; negative
// ones count from the end), slices (Slice, SliceFrom, SliceTo, Colon),
// NewAxis (None), Ellipsis, Go bools and index tensors (*Tensor or Idx),
// as PyTorch reads them. Without index tensors the result is a view of t.
// With them, the index tensors broadcast together and their shape replaces
// the dims they index: where those dims are adjacent, in their place; where
// a slice, None or ellipsis separates them, first (x[idx, :, idx2]); an int
// index selects its dim away and does not separate them. A bool mask
// indexes as many dims as it has, by the coordinates of its true elements.
// Errors are PyTorch's: "too many indices for tensor of dimension 2",
// "index 5 is out of bounds for dimension 0 with size 3", "The shape of the
// mask ... does not match", "shape mismatch: indexing tensors could not be
// broadcast together", "step must be greater than zero". Unlike 1.13,
// int32 index tensors are accepted (as PyTorch 2.x). Gradients flow back to
// t.
func (t *Tensor) At(items ...any) *Tensor {
	const op = "index"
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	its, err := indexItems(op, items)
	if err != nil {
		return failed(err)
	}
	r, idx, err := t.basicIndex(op, its)
	if err != nil {
		return failed(err)
	}
	if len(idx) == 0 {
		return r
	}
	a, err := r.advancedIndex(op, idx)
	if err != nil {
		return failed(err)
	}
	if !a.known {
		return failed(t.opError(op, ErrNotImplemented, "the output shape of indexing with a mask depends on the data, which "+
			"the meta device does not have"))
	}
	return a.placed(a.front(r).indexMany(a.ints))
}

// SetAt is t[items...] = value in Python: value (a *Tensor, or a Go scalar
// converted to t's dtype) is written into t at the elements At(items...)
// reads. A tensor value broadcasts to that shape (its leading dims of size
// 1 dropped first, as PyTorch); with index tensors it must have t's dtype
// ("Index put requires the source and destination dtypes match"), without
// them it is converted as Copy_ does. Where an element is named twice, one
// write wins. It returns t, carrying the error of a failure.
func (t *Tensor) SetAt(value any, items ...any) *Tensor {
	return t.keepFailure(t.indexPutAt("index_put_", items, value, false))
}

// IndexPutAt_ is SetAt with accumulate: with it, the values are added to t
// (an element named twice gets both), as index_put_(accumulate=True).
func (t *Tensor) IndexPutAt_(items []any, values *Tensor, accumulate bool) *Tensor {
	return t.keepFailure(t.indexPutAt("index_put_", items, values, accumulate))
}

func (t *Tensor) indexPutAt(op string, items []any, value any, accumulate bool) *Tensor {
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	its, err := indexItems(op, items)
	if err != nil {
		return failed(err)
	}
	v, ok := value.(*Tensor)
	if ok {
		if err := inputErr(op, v); err != nil {
			return failed(err)
		}
	} else if v = Scalar(value, WithDType(t.dtype), OnDevice(t.Device())); v.err != nil {
		return failed(withOp(op, v.err))
	}
	// PyTorch drops the value's leading dims of size 1 (slicePrefix1sSize).
	lead := 0
	for lead < v.Dim() && v.shape[lead] == 1 {
		lead++
	}
	if lead > 0 {
		v = v.View(v.shape[lead:]...)
	}
	r, idx, err := t.basicIndex(op, its)
	if err != nil {
		return failed(err)
	}
	if len(idx) == 0 {
		w := r.Copy_
		if accumulate {
			w = r.Add_
		}
		if res := w(v); res.err != nil {
			return res
		}
		return t
	}
	a, err := r.advancedIndex(op, idx)
	if err != nil {
		return failed(err)
	}
	if !a.known { // the meta device: the count of a mask's elements is data
		if v.dtype != t.dtype {
			return failed(pairError(ErrDType, op, t, v, "Index put requires the source and destination dtypes match, got %s "+
				"for the destination and %s for the source.", kernel.PyName(t.dtype), kernel.PyName(v.dtype)))
		}
		return t
	}
	target := a.resultShape()
	if b, err := kernel.BroadcastShapes(v.shape, target); err != nil || !slices.Equal(b, target) {
		return failed(pairError(ErrShape, op, t, v, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "+
			"result of shape %s", kernel.ShapeString(v.shape), kernel.ShapeString(target)))
	}
	vals := a.unplaced(v.Expand(target...))
	if r := a.front(r).IndexPut_(a.ints, vals, accumulate); r.err != nil {
		return r
	}
	return t
}
