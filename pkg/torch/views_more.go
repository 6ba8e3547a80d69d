package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// More view ops (diagonal, unfold, movedim and the transpose aliases) and
// the ops built on them (diag_embed, fliplr, flipud). The views compute
// new metadata only and record their gradient as the views of views.go do.

// Diagonal returns the diagonal of the 2-D slices of t spanned by dims dim1
// and dim2, as torch.diagonal: a view sharing t's storage whose last dim is
// the diagonal and whose other dims are t's without dim1 and dim2. offset
// 0 is the main diagonal, a positive offset one above it, a negative one
// below; a diagonal outside the matrices is empty. dim1 and dim2 may be
// negative and in any order, but not the same dim.
func (t *Tensor) Diagonal(offset, dim1, dim2 int) *Tensor {
	if err := inputErr("diagonal", t); err != nil {
		return failed(err)
	}
	d1, err := t.dim("diagonal", dim1)
	if err != nil {
		return t.fail("diagonal", err)
	}
	d2, err := t.dim("diagonal", dim2)
	if err != nil {
		return t.fail("diagonal", err)
	}
	if d1 == d2 { // also every call on a 0-dim t, whose only dim is 0
		return t.fail("diagonal", kernel.Errorf(ErrArgument, "diagonal dimensions cannot be identical %d, %d", dim1, dim2))
	}
	v := t.diagonalAt(offset, d1, d2)
	if recording(t) {
		recordView(t, v, "DiagonalBackward0", func(g *Tensor) *Tensor {
			return intoZeros(t, g, func(z *Tensor) *Tensor { return z.Diagonal(offset, d1, d2) })
		})
	}
	return v
}

// diagonalAt is the diagonal view of t over the normalized, distinct dims
// d1 and d2.
func (t *Tensor) diagonalAt(offset, d1, d2 int) *Tensor {
	n1, n2 := t.shape[d1], t.shape[d2]
	off, length := t.offset, 0
	// The bounds are compared before any arithmetic on offset, so that an
	// offset near the ints' limits cannot overflow.
	switch {
	case offset >= 0 && offset < n2:
		length = min(n1, n2-offset)
		off += offset * t.strides[d2]
	case offset < 0 && offset > -n1:
		length = min(n1+offset, n2)
		off -= offset * t.strides[d1]
	}
	if length == 0 {
		off = t.offset // PyTorch keeps the offset of an empty diagonal
	}
	shape := make([]int, 0, t.Dim()-1)
	strides := make([]int, 0, t.Dim()-1)
	for i := range t.shape {
		if i != d1 && i != d2 {
			shape = append(shape, t.shape[i])
			strides = append(strides, t.strides[i])
		}
	}
	shape = append(shape, length)
	strides = append(strides, t.strides[d1]+t.strides[d2])
	return t.view(shape, strides, off)
}

// DiagEmbed returns a new tensor whose 2-D slices over dims dim1 and dim2
// hold the last dim of t on their offset-th diagonal and zeros elsewhere,
// as torch.diag_embed: the result has one dim more than t, dim1 and dim2
// count in it, and both have size t.shape[-1] + |offset|. It is not a view;
// its gradient is the same diagonal of the incoming gradient.
func (t *Tensor) DiagEmbed(offset, dim1, dim2 int) *Tensor {
	if err := inputErr("diag_embed", t); err != nil {
		return failed(err)
	}
	n := t.Dim() + 1
	d1, err := kernel.NormalizeDim(dim1, n)
	if err != nil {
		return t.fail("diag_embed", err)
	}
	d2, err := kernel.NormalizeDim(dim2, n)
	if err != nil {
		return t.fail("diag_embed", err)
	}
	if d1 == d2 { // also every call on a 0-dim t
		return t.fail("diag_embed", kernel.Errorf(ErrArgument, "diagonal dimensions cannot be identical %d, %d", dim1, dim2))
	}
	last := t.shape[t.Dim()-1]
	k := abs(offset)
	if k < 0 || k > kernel.MaxNbytes-last { // abs(math.MinInt) < 0
		return t.fail("diag_embed", kernel.Errorf(ErrShape, "Storage size calculation overflowed: diagonal %d", offset))
	}
	shape := make([]int, 0, n)
	rest := t.shape[:t.Dim()-1]
	for i := range n {
		if i == d1 || i == d2 {
			shape = append(shape, last+k)
		} else {
			shape, rest = append(shape, rest[0]), rest[1:]
		}
	}
	return composite("DiagEmbedBackward0", []*Tensor{t}, func(in []*Tensor) *Tensor {
		z := Zeros(shape, WithDType(t.dtype), OnDevice(t.Device()))
		if z.err != nil {
			return z
		}
		if r := z.Diagonal(offset, d1, d2).Copy_(in[0]); r.err != nil {
			return r
		}
		return z
	}, func(*Tensor) backwardFn {
		return func(g *Tensor, _ []bool, _ bool) []*Tensor { return []*Tensor{g.Diagonal(offset, d1, d2)} }
	})
}

// Unfold returns every slice of size elements of dim, step apart, as
// Tensor.unfold: a view whose dim has (size(dim) - size)/step + 1 entries
// and whose new last dim of size size runs along each slice. A 0-dim t
// counts as one element. size must be in [0, size(dim)] and step positive.
func (t *Tensor) Unfold(dim, size, step int) *Tensor {
	if err := inputErr("unfold", t); err != nil {
		return failed(err)
	}
	d, err := t.dim("unfold", dim)
	if err != nil {
		return t.fail("unfold", err)
	}
	n, stride := 1, 1
	if t.Dim() > 0 {
		n, stride = t.shape[d], t.strides[d]
	}
	if size > n {
		return t.fail("unfold", kernel.Errorf(ErrShape, "maximum size for tensor at dimension %d is %d but size is %d", d, n, size))
	}
	if step <= 0 {
		return t.fail("unfold", kernel.Errorf(ErrArgument, "step is %d but must be > 0", step))
	}
	if size < 0 {
		// PyTorch 2.x's message; 1.13 fails later, on the storage size.
		return t.fail("unfold", kernel.Errorf(ErrArgument, "size is %d but must be >= 0", size))
	}
	v := t.unfoldView(d, size, step, n, stride)
	if recording(t) {
		recordView(t, v, "UnfoldBackward0", func(g *Tensor) *Tensor { return unfoldGrad(t, g, d, size, step) })
	}
	return v
}

// unfoldView is the view of Unfold with checked arguments; n and stride
// are the size and stride of dim d (1 and 1 for a 0-dim t).
func (t *Tensor) unfoldView(d, size, step, n, stride int) *Tensor {
	count := (n-size)/step + 1
	// A step beyond the dim leaves one slice, whose stride is never used:
	// it stays the dim's, where stride*step could overflow.
	windowStride := stride
	if step <= n {
		windowStride = stride * step
	}
	if t.Dim() == 0 {
		return t.view([]int{size}, []int{1}, t.offset)
	}
	shape := append(append([]int(nil), t.shape...), size)
	strides := append(append([]int(nil), t.strides...), stride)
	shape[d], strides[d] = count, windowStride
	return t.view(shape, strides, t.offset)
}

// unfoldGrad is the gradient of an unfold view: every element of t gets
// the sum of the gradients of the windows that contain it, added by the
// index of t's element each window entry looks at.
func unfoldGrad(t, g *Tensor, d, size, step int) *Tensor {
	dev := g.Device().String()
	n := t.Numel()
	idx := Arange(n, WithDevice(dev)).Reshape(t.shape...).Unfold(d, size, step).Reshape(-1)
	buf := Zeros([]int{n}, WithDType(g.dtype), WithDevice(dev))
	return buf.IndexAdd(0, idx, g.Reshape(-1), 1).Reshape(t.shape...)
}

// Movedim moves the dims src of t to the positions dst, as torch.movedim:
// the other dims keep their order in the positions left. It is a view (a
// permutation). src and dst have the same length, no repeats, and may be
// negative.
func (t *Tensor) Movedim(src, dst []int) *Tensor {
	if err := inputErr("movedim", t); err != nil {
		return failed(err)
	}
	if len(src) != len(dst) {
		return t.fail("movedim", kernel.Errorf(ErrArgument, "movedim: Invalid source or destination dims: source (%s dims) "+
			"should contain the same number of dims as destination (%s dims)", kernel.ShapeString(src), kernel.ShapeString(dst)))
	}
	s, err := t.movedimDims(src, "source")
	if err != nil {
		return t.fail("movedim", err)
	}
	d, err := t.movedimDims(dst, "destination")
	if err != nil {
		return t.fail("movedim", err)
	}
	if t.Dim() == 0 { // nothing to move: an alias, as PyTorch's
		v := t.view(t.shape, t.strides, t.offset)
		if recording(t) {
			recordView(t, v, "AliasBackward0", func(g *Tensor) *Tensor { return g })
		}
		return v
	}
	perm := make([]int, t.Dim())
	moved := make([]bool, t.Dim())
	for i := range perm {
		perm[i] = -1
	}
	for i := range s {
		perm[d[i]] = s[i]
		moved[s[i]] = true
	}
	next := 0 // the next dim of t that stays in order
	for i := range perm {
		if perm[i] >= 0 {
			continue
		}
		for moved[next] {
			next++
		}
		perm[i] = next
		next++
	}
	return t.Permute(perm...)
}

// movedimDims normalizes the source or destination dims of movedim,
// refusing repeats.
func (t *Tensor) movedimDims(dims []int, what string) ([]int, error) {
	out := make([]int, len(dims))
	seen := make(map[int]bool, len(dims))
	for i, d := range dims {
		n, err := kernel.NormalizeDim(d, t.Dim())
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, kernel.Errorf(ErrArgument, "movedim: repeated dim in `%s` (%s)", what, kernel.ShapeString(dims))
		}
		seen[n] = true
		out[i] = n
	}
	return out, nil
}

// Moveaxis is Movedim (torch.moveaxis is its alias, after NumPy).
func (t *Tensor) Moveaxis(src, dst []int) *Tensor { return t.Movedim(src, dst) }

// Swapaxes swaps dims a and b: torch.swapaxes, an alias of transpose.
func (t *Tensor) Swapaxes(a, b int) *Tensor { return t.Transpose(a, b) }

// Swapdims swaps dims a and b: torch.swapdims, an alias of transpose.
func (t *Tensor) Swapdims(a, b int) *Tensor { return t.Transpose(a, b) }

// Fliplr reverses the order of dim 1 (left to right), as torch.fliplr: a
// copy, like Flip. t must have at least 2 dims.
func (t *Tensor) Fliplr() *Tensor {
	if err := inputErr("fliplr", t); err != nil {
		return failed(err)
	}
	if t.Dim() < 2 {
		return t.fail("fliplr", kernel.Errorf(ErrShape, "Input must be >= 2-d."))
	}
	return t.Flip(1)
}

// Flipud reverses the order of dim 0 (up to down), as torch.flipud: a
// copy, like Flip. t must have at least 1 dim.
func (t *Tensor) Flipud() *Tensor {
	if err := inputErr("flipud", t); err != nil {
		return failed(err)
	}
	if t.Dim() < 1 {
		return t.fail("flipud", kernel.Errorf(ErrShape, "Input must be >= 1-d."))
	}
	return t.Flip(0)
}

// composite runs f, an op made of other ops, and records its result as one
// node named as PyTorch's, whose gradients grads(y) computes from the
// result y. f runs on detached inputs so that the ops inside record
// nothing of their own.
func composite(name string, ins []*Tensor, f func(in []*Tensor) *Tensor, grads func(y *Tensor) backwardFn) *Tensor {
	if !recording(ins...) {
		return f(ins)
	}
	detached := make([]*Tensor, len(ins))
	for i, t := range ins {
		detached[i] = t.Detach()
	}
	y := f(detached)
	if y.err == nil {
		y.setGradFn(name, ins, grads(y))
	}
	return y
}

// savedAll saves ts for a backward pass.
func savedAll(ts []*Tensor) []saved {
	out := make([]saved, len(ts))
	for i, t := range ts {
		out[i] = save(t)
	}
	return out
}

// getAll returns the saved tensors, or a failed tensor when one was
// modified in place since it was saved.
func getAll(s []saved, create bool, name string) ([]*Tensor, *Tensor) {
	out := make([]*Tensor, len(s))
	for i, v := range s {
		out[i] = v.get(create, name)
		if out[i].err != nil {
			return nil, out[i]
		}
	}
	return out, nil
}

// renamed names op and its inputs ins in the error r carries (an error of
// an op that op is made of), so that the caller sees the op it called; r
// otherwise.
func renamed(op string, ins []*Tensor, r *Tensor) *Tensor {
	if r.err == nil {
		return r
	}
	e := NewError(op, nil, ins, "")
	inner := kernel.AsOpError(r.err)
	e.Kind, e.Detail, e.Err = inner.Kind, inner.Detail, inner.Err
	return failed(e)
}

// formatOrd prints a norm's order as PyTorch's messages do (inf, -inf, 2, 0.5).
func formatOrd(ord float64) string {
	switch {
	case math.IsInf(ord, 1):
		return "inf"
	case math.IsInf(ord, -1):
		return "-inf"
	}
	return kernel.FloatScalar(ord).String()
}
