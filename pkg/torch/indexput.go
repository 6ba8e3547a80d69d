package torch

import (
	"slices"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// IndexPut_ writes values into t at the positions that indices name, as
// t[indices] = values (index_put_) in PyTorch; it returns t.
//
// The indices index t's leading dims: an int64 or int32 tensor for one dim
// (negative values count from the end), or a bool mask for as many dims as
// it has, whose true elements name the positions. The int indices broadcast
// together; values broadcast to their shape followed by t's remaining dims.
// With accumulate, values are added to t (a position named twice gets both);
// without it, a position named twice gets one of its values. When the write
// fails, t carries the error.
func (t *Tensor) IndexPut_(indices []*Tensor, values *Tensor, accumulate bool) *Tensor {
	return t.keepFailure(t.indexPut_(indices, values, accumulate))
}

func (t *Tensor) indexPut_(indices []*Tensor, values *Tensor, accumulate bool) *Tensor {
	p, err := t.planIndexPut(indices, values)
	if err != nil {
		return failed(err)
	}
	if t.IsMeta() { // the values would not change t's shape or dtype
		return t
	}
	if !recording(t, values) {
		if flat := t.View(p.flat...); flat.err == nil {
			if r := p.put_(flat, accumulate); r.err != nil {
				return r
			}
			return t
		}
	}
	// Out of place, then copied in: when t has no flat view, or while
	// autograd records (it then records the ops as usual).
	return t.Copy_(p.put(t.Reshape(p.flat...), accumulate).View(t.shape...))
}

// IndexPut is IndexPut_ on a copy of t.
func (t *Tensor) IndexPut(indices []*Tensor, values *Tensor, accumulate bool) *Tensor {
	if err := inputErr("index_put", t); err != nil {
		return failed(err)
	}
	return t.Clone().IndexPut_(indices, values, accumulate)
}

// indexPut is index_put_ planned on t viewed as flat, [positions, rest...]:
// at holds the flat position of each value row of vals, [n, rest...].
type indexPut struct {
	flat []int
	at   *Tensor
	vals *Tensor
}

// put returns flat with the values written.
func (p indexPut) put(flat *Tensor, accumulate bool) *Tensor {
	if accumulate {
		return flat.IndexAdd(0, p.at, p.vals, 1)
	}
	return flat.Scatter(0, p.rows(), p.vals)
}

// put_ writes the values into flat.
func (p indexPut) put_(flat *Tensor, accumulate bool) *Tensor {
	if accumulate {
		return flat.IndexAdd_(0, p.at, p.vals, 1)
	}
	return flat.Scatter_(0, p.rows(), p.vals)
}

// rows is at spread over the values' shape, the index of scatter along dim 0.
func (p indexPut) rows() *Tensor {
	n := p.vals.shape[0]
	shape := make([]int, p.vals.Dim())
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = n
	return p.at.View(shape...).Expand(p.vals.shape...)
}

// planIndexPut checks index_put_'s arguments and works out where each value
// goes.
func (t *Tensor) planIndexPut(indices []*Tensor, values *Tensor) (indexPut, error) {
	const op = "index_put_"
	var p indexPut
	if err := inputErr(op, t, values); err != nil {
		return p, err
	}
	if values.dtype != t.dtype {
		return p, pairError(kernel.ErrDType, op, t, values, "Index put requires the source and destination dtypes match, "+
			"got %s for the destination and %s for the source.", kernel.PyName(t.dtype), kernel.PyName(values.dtype))
	}
	if err := t.checkWritable(op); err != nil {
		return p, err
	}
	pos, err := t.positionsOf(op, indices)
	if err != nil || !pos.known {
		return p, err // a mask on the meta device: how many values it takes is unknown
	}
	rest := t.shape[pos.k:]
	target := append(slices.Clone(pos.at), rest...)
	if b, err := kernel.BroadcastShapes(values.shape, target); err != nil || !slices.Equal(b, target) {
		return p, pairError(kernel.ErrShape, op, t, values, "shape mismatch: value tensor of shape %s cannot be broadcast "+
			"to indexing result of shape %s", kernel.ShapeString(values.shape), kernel.ShapeString(target))
	}
	if t.IsMeta() {
		return p, nil
	}
	n := kernel.Numel(pos.at)
	p.flat = append([]int{kernel.Numel(t.shape[:pos.k])}, rest...)
	p.at = pos.flat.Expand(pos.at...).Reshape(n)
	p.vals = values.Expand(target...).Reshape(append([]int{n}, rest...)...)
	return p, inputErr(op, p.at, p.vals)
}

// positions are where indices point into t: each element of the indices'
// broadcast shape at names the slice t[i0, ..., ik-1] by its position among
// the elements of t's first k dims, in row-major order.
type positions struct {
	k     int
	at    []int
	flat  *Tensor // int64 positions of shape at; nil on the meta device
	known bool    // false for a mask on the meta device (no values)
}

// positionsOf checks the indices of op into t and works out their positions.
func (t *Tensor) positionsOf(op string, indices []*Tensor) (positions, error) {
	var p positions
	if err := inputErr(op, indices...); err != nil {
		return p, err
	}
	if len(indices) == 0 {
		return p, t.opError(op, kernel.ErrIndex, "expected at least one index")
	}
	ints, err := t.intIndices(op, indices)
	if err != nil {
		return p, err
	}
	p.k = len(ints)
	if slices.Contains(ints, nil) {
		return p, nil
	}
	shapes := make([][]int, len(ints))
	for i, ix := range ints {
		shapes[i] = ix.shape
	}
	if p.at, err = kernel.BroadcastShapes(shapes...); err != nil {
		names := make([]string, len(shapes))
		for i, sh := range shapes {
			names[i] = kernel.ShapeString(sh)
		}
		return p, t.opError(op, kernel.ErrShape, "shape mismatch: indexing tensors could not be broadcast together "+
			"with shapes %s", strings.Join(names, ", "))
	}
	p.known = true
	if t.IsMeta() {
		return p, nil // no values to check the indices against
	}
	// The indices weighted by the row-major strides of t's indexed dims.
	stride := 1
	for j := p.k - 1; j >= 0; j-- {
		ix, err := t.wrapIndex(op, ints[j], j)
		if err != nil {
			return p, err
		}
		if stride != 1 {
			ix = ix.MulScalar(stride)
		}
		if p.flat == nil {
			p.flat = ix
		} else {
			p.flat = p.flat.Add(ix)
		}
		stride *= t.shape[j]
	}
	return p, p.flat.err
}

// intIndices turns indices into one int tensor per indexed dim: a bool
// mask over m dims becomes the m columns of its nonzero positions.
func (t *Tensor) intIndices(op string, indices []*Tensor) ([]*Tensor, error) {
	var ints []*Tensor
	for _, ix := range indices {
		dim := len(ints)
		switch ix.dtype {
		case Int64, Int32:
			ints = append(ints, ix)
		case Bool:
			m := ix.Dim()
			if m == 0 {
				return nil, t.opError(op, kernel.ErrIndex, "a 0-dim bool index is not supported")
			}
			if dim+m > t.Dim() || !slices.Equal(ix.shape, t.shape[dim:dim+m]) {
				return nil, pairError(kernel.ErrIndex, op, t, ix, "The shape of the mask %s at index %d does not match "+
					"the shape of the indexed tensor %s at index %d", kernel.ShapeString(ix.shape), dim,
					kernel.ShapeString(t.shape), dim)
			}
			if t.IsMeta() { // no values: the mask's count of true elements is unknown
				ints = append(ints, make([]*Tensor, m)...)
				break
			}
			nz := ix.Nonzero()
			for j := 0; j < m; j++ {
				ints = append(ints, nz.Select(1, j))
			}
		default:
			return nil, pairError(kernel.ErrIndex, op, t, ix, "tensors used as indices must be long, int or bool tensors")
		}
		if len(ints) > t.Dim() {
			return nil, t.opError(op, kernel.ErrIndex, "too many indices for tensor of dimension %d (got %d)",
				t.Dim(), len(ints))
		}
	}
	return ints, nil
}

// wrapIndex checks the index ix into t's dim j and makes its negative
// values count from the end; the result is int64.
func (t *Tensor) wrapIndex(op string, ix *Tensor, j int) (*Tensor, error) {
	n := t.shape[j]
	if ix.dtype != Int64 {
		ix = ix.ToDType(Int64)
	}
	if ix.Numel() > 0 {
		bad := ix.GeScalar(n).LogicalOr(ix.LtScalar(-n))
		found, err := bad.Any().ItemBool()
		if err != nil {
			return nil, err
		}
		if found {
			first, err := ix.MaskedSelect(bad).Narrow(0, 0, 1).Reshape().ItemInt()
			if err != nil {
				return nil, err
			}
			return nil, t.opError(op, kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", first, j, n)
		}
	}
	if n == 0 { // then ix is empty
		return ix, nil
	}
	return ix.RemainderScalar(n), nil
}
