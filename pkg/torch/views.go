package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// The view ops: each returns a tensor over the same storage with a new
// shape, strides and offset, and copies nothing.

// view makes a view of t.
func (t *Tensor) view(shape, strides []int, offset int) *Tensor {
	v := newTensor(t.storage, t.dtype, shape, strides, offset)
	v.base = t.base
	if v.base == nil {
		v.base = t
	}
	return v
}

func (t *Tensor) fail(op string, err error) *Tensor {
	e := kernel.AsOpError(err)
	if e.Op == "" {
		e.Op = op
		e.Shapes = [][]int{append([]int(nil), t.shape...)}
		e.DTypes = []DType{t.dtype}
		e.Devices = []Device{t.Device()}
	}
	return failed(e)
}

func (t *Tensor) dim(op string, d int) (int, error) {
	n, err := kernel.NormalizeDim(d, len(t.shape))
	if err != nil {
		return 0, err
	}
	return n, nil
}

// View returns t with a new shape of the same number of elements (one size
// may be -1), sharing the data. It fails when t's strides do not allow it
// (then use Reshape, which copies).
func (t *Tensor) View(shape ...int) *Tensor {
	if err := inputErr("view", t); err != nil {
		return failed(err)
	}
	var buf [8]int
	s, err := t.inferSize(buf[:0:4], shape)
	if err != nil {
		return t.fail("view", err)
	}
	st, ok := kernel.ViewStrides(buf[4:4:8], t.shape, t.strides, s)
	if !ok {
		return t.fail("view", kernel.Errorf(ErrShape, "view size is not compatible with input tensor's size and stride "+
			"(at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."))
	}
	return t.reshaped(t.view(s, st, t.offset), "ViewBackward0")
}

// Reshape returns t with a new shape: a view when the strides allow, else a
// contiguous copy, as PyTorch's reshape.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	if err := inputErr("reshape", t); err != nil {
		return failed(err)
	}
	var buf [8]int
	s, err := t.inferSize(buf[:0:4], shape)
	if err != nil {
		return t.fail("reshape", err)
	}
	// PyTorch 1.13 names the view ReshapeAliasBackward0 (2.x names that of
	// a contiguous t ViewBackward0) and the copy UnsafeViewBackward0.
	if st, ok := kernel.ViewStrides(buf[4:4:8], t.shape, t.strides, s); ok {
		return t.reshaped(t.view(s, st, t.offset), "ReshapeAliasBackward0")
	}
	c := t.Contiguous()
	if c.err != nil {
		return c
	}
	st := kernel.ContiguousStrides(s, make([]int, len(s)))
	return c.reshaped(c.view(s, st, c.offset), "UnsafeViewBackward0")
}

// inferSize resolves shape (one size may be -1) for t's elements. A
// tensor without elements may take sizes of any product: they are
// checked as a new tensor's (see kernel.CheckedNumel).
func (t *Tensor) inferSize(dst, shape []int) ([]int, error) {
	n := t.Numel()
	s, err := kernel.InferSize(dst, shape, n)
	if err == nil && n == 0 {
		_, err = kernel.CheckedNumel(s, t.dtype.ItemSize())
	}
	return s, err
}

// ViewAs is View with other's shape.
func (t *Tensor) ViewAs(other *Tensor) *Tensor {
	if err := inputErr("view_as", t, other); err != nil {
		return failed(err)
	}
	return t.View(other.shape...)
}

// ReshapeAs is Reshape with other's shape.
func (t *Tensor) ReshapeAs(other *Tensor) *Tensor {
	if err := inputErr("reshape_as", t, other); err != nil {
		return failed(err)
	}
	return t.Reshape(other.shape...)
}

// Transpose swaps dims d0 and d1.
func (t *Tensor) Transpose(d0, d1 int) *Tensor {
	if err := inputErr("transpose", t); err != nil {
		return failed(err)
	}
	a, err := t.dim("transpose", d0)
	if err != nil {
		return t.fail("transpose", err)
	}
	b, err := t.dim("transpose", d1)
	if err != nil {
		return t.fail("transpose", err)
	}
	v := t.view(t.shape, t.strides, t.offset)
	if len(v.shape) > 0 {
		v.shape[a], v.shape[b] = v.shape[b], v.shape[a]
		v.strides[a], v.strides[b] = v.strides[b], v.strides[a]
	}
	if recording(t) {
		recordView(t, v, "TransposeBackward0", func(g *Tensor) *Tensor { return g.Transpose(a, b) })
	}
	return v
}

// T transposes a tensor of at most 2 dims (and returns 0-D and 1-D tensors as they are).
func (t *Tensor) T() *Tensor {
	if err := inputErr("t", t); err != nil {
		return failed(err)
	}
	if t.Dim() > 2 {
		return t.fail("t", kernel.Errorf(ErrShape, "t() expects a tensor with <= 2 dimensions, but self is %dD", t.Dim()))
	}
	v := t.view(t.shape, t.strides, t.offset)
	if t.Dim() == 2 {
		v.shape[0], v.shape[1] = v.shape[1], v.shape[0]
		v.strides[0], v.strides[1] = v.strides[1], v.strides[0]
	}
	if recording(t) {
		recordView(t, v, "TBackward0", func(g *Tensor) *Tensor { return g.T() })
	}
	return v
}

// MT transposes the last two dims (a batch of matrices).
func (t *Tensor) MT() *Tensor {
	if err := inputErr("mT", t); err != nil {
		return failed(err)
	}
	if t.Dim() < 2 {
		return t.fail("mT", kernel.Errorf(ErrShape, "tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor.", t.Dim()))
	}
	return t.Transpose(-2, -1)
}

// Permute reorders the dims: dim i of the result is dim dims[i] of t.
func (t *Tensor) Permute(dims ...int) *Tensor {
	if err := inputErr("permute", t); err != nil {
		return failed(err)
	}
	n := t.Dim()
	if len(dims) != n {
		return t.fail("permute", kernel.Errorf(ErrShape, "number of dims don't match in permute"))
	}
	var buf [16]int
	shape, strides := buf[:0:8], buf[8:8:16]
	if n > 8 {
		shape, strides = make([]int, 0, n), make([]int, 0, n)
	}
	var seen [64]bool
	for _, d := range dims {
		nd, err := t.dim("permute", d)
		if err != nil {
			return t.fail("permute", err)
		}
		if nd < len(seen) && seen[nd] {
			return t.fail("permute", kernel.Errorf(ErrArgument, "repeated dim in permute"))
		}
		if nd < len(seen) {
			seen[nd] = true
		}
		shape = append(shape, t.shape[nd])
		strides = append(strides, t.strides[nd])
	}
	v := t.view(shape, strides, t.offset)
	if recording(t) {
		inv := make([]int, n)
		for i, d := range dims {
			nd, _ := t.dim("permute", d)
			inv[nd] = i
		}
		recordView(t, v, "PermuteBackward0", func(g *Tensor) *Tensor { return g.Permute(inv...) })
	}
	return v
}

// Squeeze removes every dim of size 1.
func (t *Tensor) Squeeze() *Tensor {
	if err := inputErr("squeeze", t); err != nil {
		return failed(err)
	}
	var shape, strides []int
	for i, s := range t.shape {
		if s != 1 {
			shape = append(shape, s)
			strides = append(strides, t.strides[i])
		}
	}
	return t.reshaped(t.view(shape, strides, t.offset), "SqueezeBackward0")
}

// SqueezeDim removes dim when its size is 1 (and returns t's view otherwise).
func (t *Tensor) SqueezeDim(dim int) *Tensor {
	if err := inputErr("squeeze", t); err != nil {
		return failed(err)
	}
	d, err := t.dim("squeeze", dim)
	if err != nil {
		return t.fail("squeeze", err)
	}
	if t.Dim() == 0 || t.shape[d] != 1 {
		return t.reshaped(t.view(t.shape, t.strides, t.offset), "SqueezeBackward1")
	}
	return t.reshaped(t.view(remove(t.shape, d), remove(t.strides, d), t.offset), "SqueezeBackward1")
}

func remove(s []int, i int) []int {
	out := make([]int, 0, len(s)-1)
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

// Unsqueeze inserts a dim of size 1 at position dim (in [-Dim()-1, Dim()]).
func (t *Tensor) Unsqueeze(dim int) *Tensor {
	if err := inputErr("unsqueeze", t); err != nil {
		return failed(err)
	}
	d, err := kernel.NormalizeDim(dim, t.Dim()+1)
	if err != nil {
		return t.fail("unsqueeze", err)
	}
	n := t.Dim()
	var buf [16]int
	shape, strides := buf[:n+1:8], buf[8:8+n+1:16]
	if n+1 > 8 {
		shape, strides = make([]int, n+1), make([]int, n+1)
	}
	copy(shape, t.shape[:d])
	copy(strides, t.strides[:d])
	shape[d] = 1
	if d < n {
		strides[d] = t.strides[d] * t.shape[d]
	} else {
		strides[d] = 1
	}
	copy(shape[d+1:], t.shape[d:])
	copy(strides[d+1:], t.strides[d:])
	return t.reshaped(t.view(shape, strides, t.offset), "UnsqueezeBackward0")
}

// Expand broadcasts t to a larger shape without copying: new leading dims
// and size-1 dims get stride 0; -1 keeps a size.
func (t *Tensor) Expand(shape ...int) *Tensor {
	if err := inputErr("expand", t); err != nil {
		return failed(err)
	}
	n := len(shape)
	if n < t.Dim() {
		return t.fail("expand", kernel.Errorf(ErrShape, "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", n, t.Dim()))
	}
	outShape, outStrides := make([]int, n), make([]int, n)
	for i := n - 1; i >= 0; i-- {
		j := i - (n - t.Dim())
		s := shape[i]
		if j < 0 {
			if s < 0 {
				return t.fail("expand", kernel.Errorf(ErrShape, "the expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", s, i))
			}
			outShape[i], outStrides[i] = s, 0
			continue
		}
		have := t.shape[j]
		switch {
		case s == -1 || s == have:
			outShape[i], outStrides[i] = have, t.strides[j]
		case have == 1 && s >= 0:
			outShape[i], outStrides[i] = s, 0
		default:
			return t.fail("expand", kernel.Errorf(ErrShape, "the expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
				s, have, i, kernel.ShapeString(shape), kernel.ShapeString(t.shape)))
		}
	}
	if _, err := kernel.CheckedNumel(outShape, t.dtype.ItemSize()); err != nil {
		return t.fail("expand", err)
	}
	v := t.view(outShape, outStrides, t.offset)
	if recording(t) {
		recordView(t, v, "ExpandBackward0", func(g *Tensor) *Tensor { return sumTo(g, t.shape) })
	}
	return v
}

// ExpandAs is Expand to other's shape.
func (t *Tensor) ExpandAs(other *Tensor) *Tensor {
	if err := inputErr("expand_as", t, other); err != nil {
		return failed(err)
	}
	return t.Expand(other.shape...)
}

// Narrow returns elements [start, start+length) of dim (start may be negative).
func (t *Tensor) Narrow(dim, start, length int) *Tensor {
	return t.narrow(dim, start, length, "SliceBackward0") // PyTorch's narrow is a slice
}

// narrow is Narrow recording the node name (split's pieces have their own).
func (t *Tensor) narrow(dim, start, length int, name string) *Tensor {
	if err := inputErr("narrow", t); err != nil {
		return failed(err)
	}
	if t.Dim() == 0 {
		return t.fail("narrow", kernel.Errorf(ErrShape, "narrow() cannot be applied to a 0-dim tensor."))
	}
	d, err := t.dim("narrow", dim)
	if err != nil {
		return t.fail("narrow", err)
	}
	size := t.shape[d]
	if start < -size || start > size {
		return t.fail("narrow", kernel.Errorf(ErrIndex, "start out of range (expected to be in range of [%d, %d], but got %d)", -size, size, start))
	}
	if start < 0 {
		start += size
	}
	if length < 0 || length > size-start {
		return t.fail("narrow", kernel.Errorf(ErrIndex, "start (%d) + length (%d) exceeds dimension size (%d).", start, length, size))
	}
	v := t.view(t.shape, t.strides, t.offset+start*t.strides[d])
	v.shape[d] = length
	if recording(t) {
		recordView(t, v, name, func(g *Tensor) *Tensor {
			return intoZeros(t, g, func(z *Tensor) *Tensor { return z.Narrow(d, start, length) })
		})
	}
	return v
}

// Select returns the slice at index of dim, removing dim (PyTorch's t[..., i, ...]).
func (t *Tensor) Select(dim, index int) *Tensor { return t.selectAt(dim, index, "SelectBackward0") }

// selectAt is Select recording the node name (unbind's slices have their own).
func (t *Tensor) selectAt(dim, index int, name string) *Tensor {
	if err := inputErr("select", t); err != nil {
		return failed(err)
	}
	if t.Dim() == 0 {
		return t.fail("select", kernel.Errorf(ErrIndex, "select() cannot be applied to a 0-dim tensor."))
	}
	d, err := t.dim("select", dim)
	if err != nil {
		return t.fail("select", err)
	}
	size := t.shape[d]
	if index < -size || index >= size {
		return t.fail("select", kernel.Errorf(ErrIndex, "index %d is out of bounds for dimension %d with size %d", index, d, size))
	}
	if index < 0 {
		index += size
	}
	v := t.view(remove(t.shape, d), remove(t.strides, d), t.offset+index*t.strides[d])
	if recording(t) {
		recordView(t, v, name, func(g *Tensor) *Tensor {
			return intoZeros(t, g, func(z *Tensor) *Tensor { return z.Select(d, index) })
		})
	}
	return v
}

// Slice returns elements start, start+step, ... before end of dim, with
// Python's rules: negative start and end count from the end, and both are
// clamped to the dim (t[start:end:step]). step must be positive.
func (t *Tensor) Slice(dim, start, end, step int) *Tensor {
	if err := inputErr("slice", t); err != nil {
		return failed(err)
	}
	if t.Dim() == 0 {
		return t.fail("slice", kernel.Errorf(ErrIndex, "slice() cannot be applied to a 0-dim tensor."))
	}
	d, err := t.dim("slice", dim)
	if err != nil {
		return t.fail("slice", err)
	}
	if step <= 0 {
		return t.fail("slice", kernel.Errorf(ErrArgument, "slice step must be positive"))
	}
	size := t.shape[d]
	clamp := func(i int) int {
		if i < 0 {
			i += size
		}
		return min(max(i, 0), size)
	}
	start, end = clamp(start), clamp(end)
	n := 0
	if end > start {
		n = (end-start-1)/step + 1 // no overflow for a large step
	}
	v := t.view(t.shape, t.strides, t.offset+start*t.strides[d])
	v.shape[d] = n
	v.strides[d] = t.strides[d] * step
	if recording(t) {
		recordView(t, v, "SliceBackward0", func(g *Tensor) *Tensor {
			return intoZeros(t, g, func(z *Tensor) *Tensor { return z.Slice(d, start, end, step) })
		})
	}
	return v
}

// Unbind returns the slices along dim, each without dim.
func (t *Tensor) Unbind(dim int) ([]*Tensor, error) {
	if err := inputErr("unbind", t); err != nil {
		return nil, err
	}
	if t.Dim() == 0 {
		return nil, t.fail("unbind", kernel.Errorf(ErrIndex, "Dimension specified as 0 but tensor has no dimensions")).err
	}
	d, err := t.dim("unbind", dim)
	if err != nil {
		return nil, t.fail("unbind", err).err
	}
	out := make([]*Tensor, t.shape[d])
	for i := range out {
		out[i] = t.selectAt(d, i, "UnbindBackward0")
	}
	return out, nil
}

// Split cuts dim into pieces of size (the last may be smaller), as views.
func (t *Tensor) Split(size, dim int) ([]*Tensor, error) {
	if err := inputErr("split", t); err != nil {
		return nil, err
	}
	d, err := t.dim("split", dim)
	if err != nil || t.Dim() == 0 {
		if err == nil {
			err = kernel.Errorf(ErrShape, "split expects at least a 1-dimensional tensor")
		}
		return nil, t.fail("split", err).err
	}
	n := t.shape[d]
	if size < 0 || (size == 0 && n != 0) {
		return nil, t.fail("split", kernel.Errorf(ErrArgument, "split expects split_size be non-negative, but got split_size=%d", size)).err
	}
	if n == 0 {
		return []*Tensor{t.narrow(d, 0, 0, "SplitBackward0")}, nil
	}
	var out []*Tensor
	for s := 0; s < n; s += size {
		out = append(out, t.narrow(d, s, min(size, n-s), "SplitBackward0"))
	}
	return out, nil
}

// SplitSizes cuts dim into pieces of the given sizes, which must add up to
// the size of dim.
func (t *Tensor) SplitSizes(sizes []int, dim int) ([]*Tensor, error) {
	if err := inputErr("split_with_sizes", t); err != nil {
		return nil, err
	}
	d, err := t.dim("split_with_sizes", dim)
	if err != nil || t.Dim() == 0 {
		if err == nil {
			err = kernel.Errorf(ErrShape, "split expects at least a 1-dimensional tensor")
		}
		return nil, t.fail("split_with_sizes", err).err
	}
	total := 0
	for _, s := range sizes {
		if s < 0 {
			return nil, t.fail("split_with_sizes", kernel.Errorf(ErrArgument, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%v", sizes)).err
		}
		if s > kernel.MaxNbytes-total { // larger than any size: no overflow
			total = kernel.MaxNbytes + 1
		} else {
			total += s
		}
	}
	if total != t.shape[d] {
		return nil, t.fail("split_with_sizes", kernel.Errorf(ErrShape, "split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%v", t.shape[d], d, sizes)).err
	}
	out := make([]*Tensor, len(sizes))
	start := 0
	for i, s := range sizes {
		out[i] = t.narrow(d, start, s, "SplitWithSizesBackward0")
		start += s
	}
	return out, nil
}

// Chunk cuts dim into at most n pieces of equal size (the last may be smaller).
func (t *Tensor) Chunk(n, dim int) ([]*Tensor, error) {
	if err := inputErr("chunk", t); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, t.fail("chunk", kernel.Errorf(ErrArgument, "chunk expects `chunks` to be greater than 0, got: %d", n)).err
	}
	d, err := t.dim("chunk", dim)
	if err != nil || t.Dim() == 0 {
		if err == nil {
			err = kernel.Errorf(ErrShape, "chunk expects at least a 1-dimensional tensor")
		}
		return nil, t.fail("chunk", err).err
	}
	size := 0
	if t.shape[d] > 0 {
		size = (t.shape[d]-1)/n + 1 // no overflow for a large n
	}
	if size == 0 {
		size = 1
		if t.shape[d] == 0 {
			return t.Split(0, d)
		}
	}
	return t.Split(size, d)
}

// Flatten merges dims start..end (inclusive) into one: a view when possible.
func (t *Tensor) Flatten(start, end int) *Tensor {
	if err := inputErr("flatten", t); err != nil {
		return failed(err)
	}
	if t.Dim() == 0 {
		return t.Reshape(1)
	}
	s, err := t.dim("flatten", start)
	if err != nil {
		return t.fail("flatten", err)
	}
	e, err := t.dim("flatten", end)
	if err != nil {
		return t.fail("flatten", err)
	}
	if s > e {
		return t.fail("flatten", kernel.Errorf(ErrArgument, "flatten() has invalid args: start_dim cannot come after end_dim"))
	}
	if s == e {
		return t // as ATen's flatten: nothing to merge, t itself
	}
	shape := make([]int, 0, t.Dim()-(e-s))
	shape = append(shape, t.shape[:s]...)
	shape = append(shape, kernel.Numel(t.shape[s:e+1]))
	shape = append(shape, t.shape[e+1:]...)
	return t.Reshape(shape...)
}

// Unflatten splits dim into the given sizes (one may be -1).
func (t *Tensor) Unflatten(dim int, sizes ...int) *Tensor {
	if err := inputErr("unflatten", t); err != nil {
		return failed(err)
	}
	d, err := t.dim("unflatten", dim)
	if err != nil || t.Dim() == 0 {
		if err == nil {
			err = kernel.Errorf(ErrShape, "unflatten expects at least a 1-dimensional tensor")
		}
		return t.fail("unflatten", err)
	}
	inner, err := kernel.InferSize(nil, sizes, t.shape[d])
	if err != nil {
		return t.fail("unflatten", kernel.Errorf(ErrShape, "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) in the input tensor",
			kernel.ShapeString(sizes), dim, t.shape[d]))
	}
	shape := make([]int, 0, t.Dim()+len(sizes)-1)
	shape = append(shape, t.shape[:d]...)
	shape = append(shape, inner...)
	shape = append(shape, t.shape[d+1:]...)
	return t.View(shape...)
}

// AsStrided returns a view with any shape, strides and storage offset. The
// view must stay inside the storage.
func (t *Tensor) AsStrided(shape, strides []int, offset int) *Tensor {
	if err := inputErr("as_strided", t); err != nil {
		return failed(err)
	}
	if len(shape) != len(strides) {
		return t.fail("as_strided", kernel.Errorf(ErrShape, "mismatch in length of strides and shape"))
	}
	for _, s := range strides {
		if s < 0 {
			return t.fail("as_strided", kernel.Errorf(ErrArgument, "as_strided: Negative strides are not supported at the moment, got strides: %s", kernel.ShapeString(strides)))
		}
	}
	if err := kernel.CheckView(shape, strides, offset, t.dtype.ItemSize(), t.storage.Nbytes()); err != nil {
		return t.fail("as_strided", err)
	}
	v := t.view(shape, strides, offset)
	if recording(t) {
		recordView(t, v, "AsStridedBackward0", func(g *Tensor) *Tensor { return asStridedGrad(t, v, g) })
	}
	return v
}

// Detach returns a view of t that does not require gradients.
func (t *Tensor) Detach() *Tensor {
	if err := inputErr("detach", t); err != nil {
		return failed(err)
	}
	v := t.view(t.shape, t.strides, t.offset)
	v.requiresGrad, v.base = false, nil // writes through v are invisible to autograd
	return v
}

// reshaped records v, a view of t with the same elements in the same order
// (view, reshape, squeeze, unsqueeze), as the node name: the gradient is
// reshaped back.
func (t *Tensor) reshaped(v *Tensor, name string) *Tensor {
	if recording(t) {
		recordView(t, v, name, func(g *Tensor) *Tensor { return g.Reshape(t.shape...) })
	}
	return v
}

// recordView records v as a view of t whose gradient fn maps back to t.
func recordView(t, v *Tensor, name string, fn func(g *Tensor) *Tensor) {
	v.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, _ bool) []*Tensor { return []*Tensor{fn(g)} })
}

// intoZeros is the gradient of a view that picks some elements of t: zeros
// of t's shape with g written where the view (take) looks.
func intoZeros(t, g *Tensor, take func(z *Tensor) *Tensor) *Tensor {
	z := Zeros(t.shape, WithDType(g.dtype), WithDevice(g.Device().String()))
	if r := take(z).Copy_(g); r.err != nil {
		return r
	}
	return z
}

// asStridedGrad is the gradient of an as_strided view v of t: g is added
// into a buffer over the storage at the elements v looks at (elements v
// sees more than once get each of their gradients), and t's elements are
// read from it.
func asStridedGrad(t, v, g *Tensor) *Tensor {
	n := t.storage.Nbytes() / t.dtype.ItemSize()
	buf := Zeros([]int{n}, WithDType(g.dtype), WithDevice(g.Device().String()))
	idx := Arange(n, WithDevice(g.Device().String())).AsStrided(v.shape, v.strides, v.offset).Reshape(-1)
	buf = buf.IndexAdd(0, idx, g.Reshape(-1), 1)
	return buf.AsStrided(t.shape, t.strides, t.offset).Clone()
}
