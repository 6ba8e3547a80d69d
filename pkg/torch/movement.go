package torch

import (
	"errors"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// runOp dispatches op over tensors ts on their common device; set fills in
// the call's attributes. It returns the call's first output.
func runOp(op kernel.OpID, set func(c *kernel.Call) error, ts ...*Tensor) *Tensor {
	if r := passOn(op, ts...); r != nil {
		return r
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return failed(err)
	}
	c, err := opCall(op, dev, set, ts)
	if err != nil {
		return failed(err)
	}
	rec := recording(ts...) && !recordedByCaller(op)
	var a opAttrs
	if rec {
		a = attrsOf(c)
	}
	y := run(c)
	if rec {
		recordRunOp(op, a, ts, y)
	}
	return y
}

// runOpInPlace runs op with t as its first input and writes the result
// into t, PyTorch's op_ form; it returns t. keep says whether the op's
// derivative reads t's value from before the write (a copy of it is then
// kept while autograd records).
func (t *Tensor) runOpInPlace(op kernel.OpID, set func(c *kernel.Call) error, keep bool, others ...*Tensor) *Tensor {
	return t.keepFailure(t.runOpInPlaceRun(op, set, keep, others))
}

func (t *Tensor) runOpInPlaceRun(op kernel.OpID, set func(c *kernel.Call) error, keep bool, others []*Tensor) *Tensor {
	ts := append([]*Tensor{t}, others...)
	if r := passOn(op, ts...); r != nil {
		return r
	}
	name := op.String() + "_"
	if err := t.checkWritable(name); err != nil {
		return failed(err)
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return failed(err)
	}
	if dev != t.Device() {
		return failed(mixedDevices(op, ts))
	}
	rec := recording(ts...)
	if rec {
		if err := checkLeafWrite(t, name); err != nil {
			return failed(err)
		}
		ts[0] = previous(t, keep)
	}
	c, err := opCall(op, dev, set, ts)
	if err != nil {
		return failed(err)
	}
	var a opAttrs
	if rec {
		a = attrsOf(c)
	}
	c.In[0] = t.operand()
	if y := runInPlace(c, t); y.err != nil || !rec {
		return y
	}
	rebase(t, func(out *Tensor) { recordRunOp(op, a, ts, out) })
	return t
}

// opCall builds the call of op on dev with inputs ts and one output; set
// fills in its attributes.
func opCall(op kernel.OpID, dev Device, set func(c *kernel.Call) error, ts []*Tensor) (*kernel.Call, error) {
	c := dispatch.NewCall(op, dev, len(ts), 1)
	for i, t := range ts {
		c.In[i] = t.operand()
	}
	if set != nil {
		if err := set(c); err != nil {
			dispatch.Free(c)
			return nil, ts[0].opError(op.String(), kernel.ErrIndex, "%s", kernel.AsOpError(err).Detail)
		}
	}
	return c, nil
}

// runOp2 is runOp for ops with two outputs.
func runOp2(op kernel.OpID, set func(c *kernel.Call) error, ts ...*Tensor) (*Tensor, *Tensor) {
	if r := passOn(op, ts...); r != nil {
		return r, r
	}
	c := dispatch.NewCall(op, ts[0].Device(), len(ts), 2)
	for i, t := range ts {
		c.In[i] = t.operand()
	}
	if set != nil {
		if err := set(c); err != nil {
			dispatch.Free(c)
			e := failed(ts[0].opError(op.String(), kernel.ErrIndex, "%s", kernel.AsOpError(err).Detail))
			return e, e
		}
	}
	if err := dispatch.Run(c); err != nil {
		dispatch.Free(c)
		return failed(err), failed(err)
	}
	a, b := result(c, 0), result(c, 1)
	dispatch.Free(c)
	return a, b
}

// withDim normalizes dim against ndim into c.Dim.
func withDim(dim, ndim int) func(c *kernel.Call) error {
	return func(c *kernel.Call) error {
		d, err := kernel.NormalizeDim(dim, ndim)
		c.Dim = d
		return err
	}
}

// Cat concatenates tensors along dim; their dtypes promote to a common one.
func Cat(ts []*Tensor, dim int) *Tensor {
	if len(ts) == 0 {
		return failed(&Error{Op: "cat", Kind: ErrArgument, Detail: "torch.cat(): expected a non-empty list of Tensors"})
	}
	if r := passOn(kernel.OpCat, ts...); r != nil {
		return r
	}
	ndim := 1
	for _, t := range ts {
		if !(t.Dim() == 1 && t.shape[0] == 0) {
			ndim = t.Dim()
			break
		}
	}
	return runOp(kernel.OpCat, withDim(dim, ndim), ts...)
}

// Stack joins tensors of one shape along a new dim.
func Stack(ts []*Tensor, dim int) *Tensor {
	if len(ts) == 0 {
		return failed(&Error{Op: "stack", Kind: ErrArgument, Detail: "stack expects a non-empty TensorList"})
	}
	if err := inputErr("stack", ts...); err != nil {
		return failed(err)
	}
	d, err := kernel.NormalizeDim(dim, ts[0].Dim()+1)
	if err != nil {
		return failed(ts[0].opError("stack", kernel.ErrIndex, "%s", kernel.AsOpError(err).Detail))
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		if !slices.Equal(t.shape, ts[0].shape) {
			return failed(t.opError("stack", kernel.ErrShape, "stack expects each tensor to be equal size, but got %s at "+
				"entry 0 and %s at entry %d", kernel.ShapeString(ts[0].shape), kernel.ShapeString(t.shape), i))
		}
	}
	// PyTorch records StackBackward0, whose gradient of input i is the
	// gradient's slice i along dim (cast back to the input's dtype).
	return composite("StackBackward0", ts, func(in []*Tensor) *Tensor {
		for i, t := range in {
			us[i] = t.Unsqueeze(d)
		}
		return Cat(us, d)
	}, func(*Tensor) backwardFn {
		return func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, len(ts))
			for i, t := range ts {
				if need[i] {
					out[i] = fitGrad(g.Select(d, i), t)
				}
			}
			return out
		}
	})
}

// HStack concatenates along dim 1 (dim 0 for 1-D tensors).
func HStack(ts []*Tensor) *Tensor {
	if len(ts) == 0 {
		return failed(&Error{Op: "hstack", Kind: ErrArgument, Detail: "hstack expects a non-empty TensorList"})
	}
	if err := inputErr("hstack", ts...); err != nil {
		return failed(err)
	}
	if ts[0].Dim() == 1 {
		return Cat(ts, 0)
	}
	return Cat(ts, 1)
}

// VStack concatenates along dim 0, 1-D tensors becoming rows.
func VStack(ts []*Tensor) *Tensor {
	if len(ts) == 0 {
		return failed(&Error{Op: "vstack", Kind: ErrArgument, Detail: "vstack expects a non-empty TensorList"})
	}
	if err := inputErr("vstack", ts...); err != nil {
		return failed(err)
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		us[i] = t
		if t.Dim() < 2 {
			us[i] = t.Reshape(1, -1)
		}
	}
	return Cat(us, 0)
}

// Flip reverses the order of elements along dims (a copy, as in PyTorch).
func (t *Tensor) Flip(dims ...int) *Tensor {
	return runOp(kernel.OpFlip, func(c *kernel.Call) error { return setDims(c, dims, t.Dim()) }, t)
}

// Roll shifts elements along dims by shifts, wrapping around; with no dims
// the tensor is rolled flattened and restored to its shape.
func (t *Tensor) Roll(shifts []int, dims ...int) *Tensor {
	if err := inputErr("roll", t); err != nil {
		return failed(err)
	}
	if len(dims) == 0 {
		if len(shifts) != 1 {
			return failed(t.opError("roll", kernel.ErrArgument, "shifts must be a single value when dims is empty"))
		}
		return t.Flatten(0, -1).Roll(shifts, 0).View(t.shape...)
	}
	if len(shifts) != len(dims) {
		return failed(t.opError("roll", kernel.ErrArgument, "shifts and dimensions must align. shifts: %d, dims:%d",
			len(shifts), len(dims)))
	}
	out := t
	for i, dim := range dims {
		d, err := kernel.NormalizeDim(dim, t.Dim())
		if err != nil {
			return failed(t.opError("roll", kernel.ErrIndex, "%s", kernel.AsOpError(err).Detail))
		}
		n := t.shape[d]
		if n == 0 {
			continue
		}
		s := ((shifts[i] % n) + n) % n
		if s == 0 {
			if out == t {
				out = t.Clone()
			}
			continue
		}
		out = Cat([]*Tensor{out.Narrow(d, n-s, s), out.Narrow(d, 0, n-s)}, d)
	}
	return out
}

// Repeat tiles the tensor reps[i] times along each dim; reps may have more
// dims than t (new leading dims).
func (t *Tensor) Repeat(reps ...int) *Tensor {
	if err := inputErr("repeat", t); err != nil {
		return failed(err)
	}
	if len(reps) < t.Dim() {
		return failed(t.opError("repeat", kernel.ErrArgument, "Number of dimensions of repeat dims can not be smaller "+
			"than number of dimensions of tensor"))
	}
	lead := len(reps) - t.Dim()
	// View as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], merge pairs.
	pairs := make([]int, 0, 2*len(reps))
	expand := make([]int, 0, 2*len(reps))
	final := make([]int, len(reps))
	for i, r := range reps {
		if r < 0 {
			return failed(t.opError("repeat", kernel.ErrArgument, "Trying to create tensor with negative dimension %d", r))
		}
		s := 1
		if i >= lead {
			s = t.shape[i-lead]
		}
		pairs = append(pairs, 1, s)
		expand = append(expand, r, s)
		var ok bool
		if final[i], ok = kernel.MulSize(r, s); !ok {
			return failed(t.opError("repeat", kernel.ErrShape, "Storage size calculation overflowed with sizes=%s repeated %s",
				kernel.ShapeString(t.shape), kernel.ShapeString(reps)))
		}
	}
	if _, err := kernel.CheckedNumel(final, t.dtype.ItemSize()); err != nil {
		return t.fail("repeat", err)
	}
	return t.Reshape(pairs...).Expand(expand...).Reshape(final...)
}

// Tile is Repeat with reps padded with leading ones to t's rank.
func (t *Tensor) Tile(reps ...int) *Tensor {
	if err := inputErr("tile", t); err != nil {
		return failed(err)
	}
	for len(reps) < t.Dim() {
		reps = append([]int{1}, reps...)
	}
	return t.Repeat(reps...)
}

// RepeatInterleave repeats each element (each slice along dim) n times.
func (t *Tensor) RepeatInterleave(n int, dim int) *Tensor {
	if err := inputErr("repeat_interleave", t); err != nil {
		return failed(err)
	}
	if n < 0 {
		return failed(t.opError("repeat_interleave", kernel.ErrArgument, "repeats can not be negative"))
	}
	d, err := kernel.NormalizeDim(dim, t.Dim())
	if err != nil {
		return failed(t.opError("repeat_interleave", kernel.ErrIndex, "%s", kernel.AsOpError(err).Detail))
	}
	if t.Dim() == 0 {
		return t.Reshape(1).Expand(n).Contiguous()
	}
	final := append([]int(nil), t.shape...)
	var ok bool
	if final[d], ok = kernel.MulSize(final[d], n); !ok {
		return failed(t.opError("repeat_interleave", kernel.ErrShape, "Storage size calculation overflowed with sizes=%s "+
			"repeated %d times in dim %d", kernel.ShapeString(t.shape), n, d))
	}
	if _, err := kernel.CheckedNumel(final, t.dtype.ItemSize()); err != nil {
		return t.fail("repeat_interleave", err)
	}
	u := t.Unsqueeze(d + 1)
	shape := append([]int(nil), u.shape...)
	shape[d+1] = n
	return u.Expand(shape...).Reshape(final...)
}

// Tril keeps the elements on and below the diagonal-th diagonal of the
// last two dims, zeroing the rest.
func (t *Tensor) Tril(diagonal int) *Tensor { return t.triangle("tril", diagonal, true) }

// Triu keeps the elements on and above the diagonal-th diagonal.
func (t *Tensor) Triu(diagonal int) *Tensor { return t.triangle("triu", diagonal, false) }

// Tril_ is Tril in place; it returns t (carrying the error of a failure).
func (t *Tensor) Tril_(diagonal int) *Tensor { return t.triangleInPlace("tril_", diagonal, true) }

// Triu_ is Triu in place; it returns t (carrying the error of a failure).
func (t *Tensor) Triu_(diagonal int) *Tensor { return t.triangleInPlace("triu_", diagonal, false) }

func (t *Tensor) triangle(op string, k int, lower bool) *Tensor {
	return t.triangleWith(Where, op, k, lower)
}

// triangleWith is tril (lower) or triu of t through where (Where, or the
// out= form's).
func (t *Tensor) triangleWith(where func(cond, a, b *Tensor) *Tensor, op string, k int, lower bool) *Tensor {
	mask := t.triangleMask(op, k, lower)
	if mask.err != nil {
		return mask
	}
	return where(mask, t, Zeros(nil, WithDType(t.dtype), OnDevice(t.Device())))
}

// triangleInPlace writes t's tril (lower) or triu into t. It goes
// through Where and Copy_, which every device has.
func (t *Tensor) triangleInPlace(op string, k int, lower bool) *Tensor {
	r := t.triangle(op, k, lower)
	if r.err != nil {
		return t.keepFailure(r)
	}
	return t.Copy_(r)
}

// triangleMask is true on the elements tril (lower) or triu keeps: a
// [rows, cols] bool tensor on t's device.
func (t *Tensor) triangleMask(op string, k int, lower bool) *Tensor {
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	if t.Dim() < 2 {
		return failed(t.opError(op, kernel.ErrShape, "%s: input tensor must have at least 2 dimensions", op))
	}
	n, m := t.shape[t.Dim()-2], t.shape[t.Dim()-1]
	dev := OnDevice(t.Device())
	// col - row compared with k: a [n, m] mask.
	diff := Arange(m, dev).Unsqueeze(0).Sub(Arange(n, dev).Unsqueeze(1))
	if lower {
		return diff.LeScalar(k)
	}
	return diff.GeScalar(k)
}

// Diag builds a square matrix with the 1-D t on its diagonal-th diagonal,
// or returns the diagonal-th diagonal of the 2-D t as a new 1-D tensor.
func (t *Tensor) Diag(diagonal int) *Tensor {
	if err := inputErr("diag", t); err != nil {
		return failed(err)
	}
	switch t.Dim() {
	case 1:
		k := abs(diagonal)
		if k < 0 || k > kernel.MaxNbytes-t.shape[0] { // abs(math.MinInt) < 0
			return failed(t.opError("diag", kernel.ErrShape, "Storage size calculation overflowed: diagonal %d", diagonal))
		}
		n := t.shape[0] + k
		out := Zeros([]int{n, n}, WithDType(t.dtype), OnDevice(t.Device()))
		if out.err != nil {
			return out
		}
		if r := out.diagonalView(diagonal).Copy_(t); r.err != nil {
			return r
		}
		return out
	case 2:
		return t.diagonalView(diagonal).Clone()
	}
	return failed(t.opError("diag", kernel.ErrShape, "diag(): Supports 1D or 2D tensors. Got %dD", t.Dim()))
}

// diagonalView is the diagonal-th diagonal of the 2-D t as a 1-D view.
func (t *Tensor) diagonalView(k int) *Tensor {
	n, m := t.shape[0], t.shape[1]
	off := t.offset
	var length int
	if k >= 0 {
		length = max(0, min(n, m-k))
		off += k * t.strides[1]
	} else {
		length = max(0, min(n+k, m))
		off -= k * t.strides[0]
	}
	if length == 0 {
		off = t.offset
	}
	return t.AsStrided([]int{length}, []int{t.strides[0] + t.strides[1]}, off)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Gather picks, along dim, the elements of t named by index (int64, of t's
// rank); the result has the index's shape.
func (t *Tensor) Gather(dim int, index *Tensor) *Tensor {
	return runOp(kernel.OpGather, withDim(dim, t.Dim()), t, index)
}

// Scatter returns a copy of t with src's elements written, along dim, at
// the positions index names (where positions repeat, one write wins).
func (t *Tensor) Scatter(dim int, index, src *Tensor) *Tensor {
	return runOp(kernel.OpScatter, withDim(dim, t.Dim()), t, index, src)
}

// Scatter_ is Scatter in place; it returns t.
func (t *Tensor) Scatter_(dim int, index, src *Tensor) *Tensor {
	return t.runOpInPlace(kernel.OpScatter, withDim(dim, t.Dim()), false, index, src)
}

// ScatterValue is Scatter with one value for every position.
func (t *Tensor) ScatterValue(dim int, index *Tensor, value any) *Tensor {
	if r := passOn(kernel.OpScatter, t); r != nil {
		return r
	}
	set, err := t.scatterValueAttrs(dim, value)
	if err != nil {
		return t.fail("scatter", err)
	}
	return runOp(kernel.OpScatter, set, t, index)
}

// ScatterValue_ is ScatterValue in place; it returns t (carrying the
// error of a failure).
func (t *Tensor) ScatterValue_(dim int, index *Tensor, value any) *Tensor {
	if r := passOn(kernel.OpScatter, t); r != nil {
		return t.keepFailure(r)
	}
	set, err := t.scatterValueAttrs(dim, value)
	if err != nil {
		return t.keepFailure(t.fail("scatter_", err))
	}
	return t.runOpInPlace(kernel.OpScatter, set, false, index)
}

// scatterValueAttrs reads scatter's value and returns the setter of the
// call's attributes (t is usable: see passOn).
func (t *Tensor) scatterValueAttrs(dim int, value any) (func(c *kernel.Call) error, error) {
	s, err := kernel.ScalarOf(value)
	if err != nil {
		return nil, err
	}
	return func(c *kernel.Call) error {
		c.Scalars[0] = s
		return withDim(dim, t.Dim())(c)
	}, nil
}

// ScatterAdd returns a copy of t with src's elements added, along dim, at
// the positions index names.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) *Tensor {
	return runOp(kernel.OpScatterAdd, withDim(dim, t.Dim()), t, index, src)
}

// ScatterAdd_ is ScatterAdd in place; it returns t.
func (t *Tensor) ScatterAdd_(dim int, index, src *Tensor) *Tensor {
	return t.runOpInPlace(kernel.OpScatterAdd, withDim(dim, t.Dim()), false, index, src)
}

// ScatterReduce combines src into a copy of t at the positions index names
// with reduce "sum", "prod", "mean", "amax" or "amin"; without includeSelf,
// t's values at those positions do not take part.
func (t *Tensor) ScatterReduce(dim int, index, src *Tensor, reduce string, includeSelf bool) *Tensor {
	if r := passOn(kernel.OpScatterReduce, t); r != nil {
		return r
	}
	set, err := t.scatterReduceAttrs(dim, reduce, includeSelf)
	if err != nil {
		return t.fail("scatter_reduce", err)
	}
	return runOp(kernel.OpScatterReduce, set, t, index, src)
}

// ScatterReduce_ is ScatterReduce in place; it returns t (carrying the
// error of a failure).
func (t *Tensor) ScatterReduce_(dim int, index, src *Tensor, reduce string, includeSelf bool) *Tensor {
	if r := passOn(kernel.OpScatterReduce, t); r != nil {
		return t.keepFailure(r)
	}
	set, err := t.scatterReduceAttrs(dim, reduce, includeSelf)
	if err != nil {
		return t.keepFailure(t.fail("scatter_reduce_", err))
	}
	return t.runOpInPlace(kernel.OpScatterReduce, set, false, index, src)
}

// scatterReduceAttrs checks scatter_reduce's reduce argument and returns
// the setter of the call's attributes (t is usable: see passOn).
func (t *Tensor) scatterReduceAttrs(dim int, reduce string, includeSelf bool) (func(c *kernel.Call) error, error) {
	modes := map[string]int{"sum": kernel.ReduceSum, "prod": kernel.ReduceProd, "mean": kernel.ReduceMean,
		"amax": kernel.ReduceAmax, "amin": kernel.ReduceAmin}
	mode, ok := modes[reduce]
	if !ok {
		return nil, kernel.Errorf(kernel.ErrArgument, "reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce)
	}
	return func(c *kernel.Call) error {
		c.Mode, c.KeepDim = mode, includeSelf
		return withDim(dim, t.Dim())(c)
	}, nil
}

// IndexSelect picks the slices along dim named by the 1-D index.
func (t *Tensor) IndexSelect(dim int, index *Tensor) *Tensor {
	return runOp(kernel.OpIndexSelect, withDim(dim, t.Dim()), t, index)
}

// IndexAdd returns a copy of t with alpha*source[.., i, ..] added to the
// slice index[i] along dim.
func (t *Tensor) IndexAdd(dim int, index, source *Tensor, alpha any) *Tensor {
	if r := passOn(kernel.OpIndexAdd, t); r != nil {
		return r
	}
	set, err := t.indexAddAttrs(dim, alpha)
	if err != nil {
		return t.fail("index_add", err)
	}
	return runOp(kernel.OpIndexAdd, set, t, index, source)
}

// IndexAdd_ is IndexAdd in place; it returns t (carrying the error of a
// failure).
func (t *Tensor) IndexAdd_(dim int, index, source *Tensor, alpha any) *Tensor {
	if r := passOn(kernel.OpIndexAdd, t); r != nil {
		return t.keepFailure(r)
	}
	set, err := t.indexAddAttrs(dim, alpha)
	if err != nil {
		return t.keepFailure(t.fail("index_add_", err))
	}
	return t.runOpInPlace(kernel.OpIndexAdd, set, false, index, source)
}

// indexAddAttrs reads index_add's alpha and returns the setter of the
// call's attributes (t is usable: see passOn).
func (t *Tensor) indexAddAttrs(dim int, alpha any) (func(c *kernel.Call) error, error) {
	a, err := kernel.ScalarOf(alpha)
	if err != nil {
		return nil, err
	}
	return func(c *kernel.Call) error {
		c.Scalars[0] = a
		return withDim(dim, t.Dim())(c)
	}, nil
}

// MaskedSelect returns, as a 1-D tensor, the elements of t where the bool
// mask (broadcast with t) is true.
func (t *Tensor) MaskedSelect(mask *Tensor) *Tensor {
	return runOp(kernel.OpMaskedSelect, nil, t, mask)
}

// Nonzero returns the indices of the non-zero elements, int64 [count, ndim].
func (t *Tensor) Nonzero() *Tensor { return runOp(kernel.OpNonzero, nil, t) }

// Index is t[indices]: with one bool index over t's leading dims, the
// selected elements (or slices) in order; with one int64 index, the slices
// along dim 0 it names (negative indices count from the end), shaped as
// the index followed by t's remaining dims. Several indices index as many
// leading dims, as t[i, j] in PyTorch: int indices broadcast together, a
// bool mask stands for the positions of its true elements, and the result
// has the indices' broadcast shape followed by t's remaining dims.
func (t *Tensor) Index(indices ...*Tensor) *Tensor {
	if err := inputErr("index", t); err != nil {
		return failed(err)
	}
	if len(indices) != 1 {
		return t.indexMany(indices)
	}
	return t.index(indices[0])
}

// indexMany is Index with several indices (or none: t itself).
func (t *Tensor) indexMany(indices []*Tensor) *Tensor {
	if len(indices) == 0 {
		return t
	}
	pos, err := t.positionsOf("index", indices)
	if err != nil {
		return failed(err)
	}
	if !pos.known {
		return failed(t.opError("index", kernel.ErrNotImplemented, "the output shape of indexing with a mask depends on "+
			"the data, which the meta device does not have"))
	}
	rest := t.shape[pos.k:]
	target := append(slices.Clone(pos.at), rest...)
	if t.IsMeta() {
		return Empty(target, WithDType(t.dtype), OnDevice(t.Device()))
	}
	flat := t.Reshape(append([]int{kernel.Numel(t.shape[:pos.k])}, rest...)...)
	return flat.IndexSelect(0, pos.flat.Reshape(-1)).View(target...)
}

// index is Index with one index.
func (t *Tensor) index(index *Tensor) *Tensor {
	if err := inputErr("index", t, index); err != nil {
		return failed(err)
	}
	if index.dtype == Bool {
		k := index.Dim()
		if k > t.Dim() || !slices.Equal(index.shape, t.shape[:k]) {
			return failed(pairError(kernel.ErrShape, "index", t, index, "The shape of the mask %s does not match the shape of the "+
				"indexed tensor %s", kernel.ShapeString(index.shape), kernel.ShapeString(t.shape)))
		}
		if k == t.Dim() {
			return t.MaskedSelect(index)
		}
		rest := t.shape[k:]
		flat := t.Reshape(append([]int{-1}, rest...)...)
		return flat.IndexSelect(0, index.Reshape(-1).Nonzero().SqueezeDim(1))
	}
	if t.Dim() == 0 {
		return failed(t.opError("index", kernel.ErrIndex, "invalid index of a 0-dim tensor"))
	}
	if index.dtype != Int64 && index.dtype != Int32 {
		return failed(pairError(kernel.ErrDType, "index", t, index, "tensors used as indices must be long, int, byte or bool tensors"))
	}
	n := t.shape[0]
	idx := index.Reshape(-1)
	idx = Where(idx.LtScalar(0), idx.AddScalar(n), idx) // negative indices count from the end
	out := t.IndexSelect(0, idx)
	return out.View(append(append([]int(nil), index.shape...), t.shape[1:]...)...)
}

// Sort sorts along dim (stably: equal elements keep their order; NaN sorts
// as the largest value) and returns the values and their int64 indices.
// torch.sort's default is stable=False, whose order of equal elements
// PyTorch leaves unspecified: SortStable(dim, descending, false) gives
// the order of PyTorch's CPU kernel.
func (t *Tensor) Sort(dim int, descending bool) (values, indices *Tensor) {
	return t.SortStable(dim, descending, true)
}

// SortStable is torch.sort(t, dim, descending, stable=stable). Stable:
// equal elements keep their order (PyTorch's std::stable_sort). Unstable:
// the order of PyTorch 1.13's CPU kernel, libstdc++'s std::sort of (value,
// index) pairs, replayed step by step, so that equal elements end where
// they end in PyTorch on the CPU (in index order for rows of up to 16
// elements; PyTorch promises no order there, and other devices give
// others). NaN sorts as the largest value either way.
func (t *Tensor) SortStable(dim int, descending, stable bool) (values, indices *Tensor) {
	values, indices = runOp2(kernel.OpSort, func(c *kernel.Call) error {
		c.KeepDim = descending
		if stable {
			c.Mode = 1
		}
		return withDim(dim, t.Dim())(c)
	}, t)
	if values.err == nil && recording(t) {
		recordSorted("SortBackward0", t, values, indices, dim)
	}
	return values, indices
}

// Argsort returns the indices that sort t along dim (stably).
func (t *Tensor) Argsort(dim int, descending bool) *Tensor {
	_, idx := t.Sort(dim, descending)
	return idx
}

// ArgsortStable is torch.argsort(t, dim, descending, stable=stable): the
// indices of SortStable.
func (t *Tensor) ArgsortStable(dim int, descending, stable bool) *Tensor {
	_, idx := t.SortStable(dim, descending, stable)
	return idx
}

// Topk returns the k largest (or smallest) elements along dim, sorted, and
// their indices.
func (t *Tensor) Topk(k, dim int, largest bool) (values, indices *Tensor) {
	values, indices = runOp2(kernel.OpTopk, func(c *kernel.Call) error {
		c.KeepDim = largest
		c.Ints = c.NewInts(1)
		c.Ints[0] = k
		return withDim(dim, t.Dim())(c)
	}, t)
	if values.err == nil && recording(t) {
		recordSorted("TopkBackward0", t, values, indices, dim)
	}
	return values, indices
}

// Unique returns the sorted distinct elements of t, the index of each
// element of t among them (t's shape), and how often each occurs.
func (t *Tensor) Unique() (values, inverse, counts *Tensor) {
	if r := passOn(kernel.OpUnique, t); r != nil {
		return r, r, r
	}
	c := dispatch.NewCall(kernel.OpUnique, t.Device(), 1, 3)
	c.In[0] = t.operand()
	c.Mode = kernel.UniqueInverse | kernel.UniqueCounts
	if err := dispatch.Run(c); err != nil {
		dispatch.Free(c)
		e := failed(err)
		return e, e, e
	}
	values, inverse, counts = result(c, 0), result(c, 1), result(c, 2)
	dispatch.Free(c)
	return values, inverse, counts
}

// Searchsorted returns, for each value, the index in sorted (1-D, or one
// row per leading position of values) where it would be inserted to keep
// the order: before equal elements, or after them when right is set. The
// two tensors' dtypes promote to a common one, as PyTorch's. See
// SearchsortedWith for side, out_int32 and a sorter.
func Searchsorted(sorted, values *Tensor, right bool) *Tensor {
	return SearchsortedWith(sorted, values, SearchsortedOptions{Right: right})
}

// OneHot returns int64 one-hot vectors of numClasses classes for the int64
// class indices of t ([..., numClasses]); numClasses < 0 means max(t)+1.
func OneHot(t *Tensor, numClasses int) *Tensor {
	if err := inputErr("one_hot", t); err != nil {
		return failed(err)
	}
	if t.dtype != Int64 {
		return failed(t.opError("one_hot", kernel.ErrDType, "one_hot is only applicable to index tensor."))
	}
	if t.IsMeta() && t.Numel() > 0 { // the classes are data
		return failed(t.opError("one_hot", kernel.ErrArgument, "Can not infer total number of classes from meta tensor."))
	}
	if t.Numel() > 0 {
		lo, err := t.Min().ItemInt()
		if err != nil {
			return failed(err)
		}
		if lo < 0 {
			return failed(t.opError("one_hot", kernel.ErrArgument, "Class values must be non-negative."))
		}
		hi, err := t.Max().ItemInt()
		if err != nil {
			return failed(err)
		}
		if numClasses < 0 {
			numClasses = int(hi) + 1
		} else if int(hi) >= numClasses {
			return failed(t.opError("one_hot", kernel.ErrArgument, "Class values must be smaller than num_classes."))
		}
	} else if numClasses < 0 {
		return failed(t.opError("one_hot", kernel.ErrArgument, "Can not infer total number of classes from empty tensor."))
	}
	shape := append(append([]int(nil), t.shape...), numClasses)
	if _, err := kernel.CheckedNumel(shape, Int64.ItemSize()); err != nil {
		return t.fail("one_hot", err)
	}
	zeros := Zeros(shape, WithDType(Int64), OnDevice(t.Device()))
	return zeros.ScatterValue(-1, t.Unsqueeze(-1), 1)
}

// Embedding looks up the rows of weight ([num, dim]) named by the int64
// indices, giving [indices..., dim]: PyTorch's nn.functional.embedding.
func Embedding(indices, weight *Tensor) *Tensor {
	if err := inputErr("embedding", indices, weight); err != nil {
		return failed(err)
	}
	if weight.Dim() != 2 {
		return failed(weight.opError("embedding", kernel.ErrShape, "'weight' must be 2-D"))
	}
	if indices.dtype != Int64 && indices.dtype != Int32 {
		return failed(pairError(kernel.ErrDType, "embedding", weight, indices, "Expected tensor for argument #1 'indices' to have one "+
			"of the following scalar types: Long, Int; but got %s instead", kernel.PyName(indices.dtype)))
	}
	out := weight.IndexSelect(0, indices.Reshape(-1))
	if errors.Is(out.err, kernel.ErrIndex) {
		return failed(pairError(kernel.ErrIndex, "embedding", weight, indices, "index out of range in self"))
	}
	return out.View(append(append([]int(nil), indices.shape...), weight.shape[1])...)
}
