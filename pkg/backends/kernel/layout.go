package kernel

import (
	"slices"
)

// Numel is the number of elements of a shape (1 for a 0-dim shape). It
// does not check for overflow: shapes from users go through CheckedNumel
// first (see sizes.go).
func Numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// CheckShape rejects negative sizes and shapes whose elements (of one byte
// each) would overflow MaxNbytes; see CheckedNumel.
func CheckShape(shape []int) error {
	_, err := CheckedNumel(shape, 1)
	return err
}

// ContiguousStrides writes the row-major strides of shape into dst (which
// must have len(shape) elements) and returns it.
func ContiguousStrides(shape, dst []int) []int {
	st := 1
	for i := len(shape) - 1; i >= 0; i-- {
		dst[i] = st
		st *= max(shape[i], 1) // as PyTorch: empty dims do not zero the strides
	}
	return dst
}

// IsContiguous reports whether strides describe row-major order for shape.
// As in PyTorch, dimensions of size 1 may have any stride and a tensor with
// no elements is contiguous.
func IsContiguous(shape, strides []int) bool {
	expected := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] == 0 {
			return true
		}
		if shape[i] == 1 {
			continue
		}
		if strides[i] != expected {
			return false
		}
		expected *= shape[i]
	}
	return true
}

// IsNonOverlappingAndDense reports whether the elements fill a contiguous
// block of memory without overlap, in some order of the dimensions.
func IsNonOverlappingAndDense(shape, strides []int) bool {
	if IsContiguous(shape, strides) {
		return true
	}
	n := len(shape)
	var buf [8]int // no allocation for up to 8 dims
	perm := buf[:min(n, len(buf))]
	if n > len(buf) {
		perm = make([]int, n)
	}
	for i := range perm {
		perm[i] = i
	}
	// Sort dimensions by stride, size-1 dimensions last (they do not matter).
	for i := 1; i < n; i++ {
		for j := i; j > 0; j-- {
			a, b := perm[j-1], perm[j]
			if shape[a] == 1 || (shape[b] != 1 && strides[b] < strides[a]) {
				perm[j-1], perm[j] = b, a
			} else {
				break
			}
		}
	}
	expected := 1
	for _, d := range perm {
		if shape[d] == 1 {
			continue
		}
		if strides[d] != expected {
			return false
		}
		expected *= shape[d]
	}
	return true
}

// NormalizeDim maps a possibly negative dim into [0, ndim). A 0-dim tensor
// accepts dims 0 and -1, as in PyTorch.
func NormalizeDim(dim, ndim int) (int, error) {
	n := ndim
	if n == 0 {
		n = 1
	}
	if dim < -n || dim >= n {
		return 0, Errorf(ErrIndex, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n-1, dim)
	}
	if dim < 0 {
		dim += n
	}
	return dim, nil
}

// NormalizeDims normalizes a list of dims, rejecting repeats, and returns a
// mask of the reduced dimensions. An empty list means all dimensions.
func NormalizeDims(dims []int, ndim int) ([]bool, error) {
	mask := make([]bool, max(ndim, 1))
	if len(dims) == 0 {
		for i := range mask {
			mask[i] = true
		}
		return mask[:ndim], nil
	}
	for _, d := range dims {
		nd, err := NormalizeDim(d, ndim)
		if err != nil {
			return nil, err
		}
		if mask[nd] {
			return nil, Errorf(ErrArgument, "dim %d appears multiple times in the list of dims", nd)
		}
		mask[nd] = true
	}
	return mask[:ndim], nil
}

// BroadcastShapes returns the shape that all shapes broadcast to, or the
// error PyTorch gives ("the size of tensor a (3) must match the size of
// tensor b (4) at non-singleton dimension 1").
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	return out, BroadcastInto(out, shapes...)
}

// BroadcastInto is BroadcastShapes writing into out, whose length must be
// the largest rank among the shapes.
func BroadcastInto(out []int, shapes ...[]int) error {
	n := len(out)
	for i := range out {
		out[i] = 1
	}
	rank := 0 // rank of the shapes merged so far, as PyTorch numbers the dims
	for _, s := range shapes {
		rank = max(rank, len(s))
		off := n - len(s)
		for i := len(s) - 1; i >= 0; i-- {
			d, o := s[i], out[off+i]
			switch {
			case d == o || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return Errorf(ErrShape, "the size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d",
					o, d, off+i-(n-rank))
			}
		}
	}
	return nil
}

// InferSize resolves a single -1 in shape so that it holds numel elements.
// The result is written into dst when it has room.
func InferSize(dst, shape []int, numel int) ([]int, error) {
	out := dst[:0]
	if cap(out) < len(shape) {
		out = make([]int, 0, len(shape))
	}
	out = append(out, shape...)
	infer := -1
	prod, dense := 1, 1 // dense counts sizes 0 as 1 (see CheckedNumel)
	for i, s := range shape {
		switch {
		case s == -1:
			if infer >= 0 {
				return nil, Errorf(ErrShape, "only one dimension can be inferred")
			}
			infer = i
		case s < 0:
			return nil, Errorf(ErrShape, "invalid shape dimension %d", s)
		default:
			var ok bool
			if dense, ok = MulSize(dense, max(s, 1)); !ok {
				return nil, Errorf(ErrShape, "shape '%v' is invalid for input of size %d (numel: integer multiplication overflow)",
					shapeString(shape), numel)
			}
			prod *= s
		}
	}
	if infer >= 0 {
		if prod == 0 {
			return nil, Errorf(ErrShape, "cannot reshape tensor of %d elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", numel, ShapeString(shape))
		}
		if numel%prod != 0 {
			return nil, Errorf(ErrShape, "shape '%v' is invalid for input of size %d", shapeString(shape), numel)
		}
		out[infer] = numel / prod
		return out, nil
	}
	if prod != numel {
		return nil, Errorf(ErrShape, "shape '%v' is invalid for input of size %d", shapeString(shape), numel)
	}
	return out, nil
}

// ViewStrides returns strides that let a tensor of oldShape/oldStrides be
// viewed as newShape without copying, or false when no such strides exist
// (then reshape must copy). This is PyTorch's computeStride. The result is
// written into dst when it has room.
func ViewStrides(dst, oldShape, oldStrides, newShape []int) ([]int, bool) {
	newStrides := dst[:0]
	if cap(newStrides) < len(newShape) {
		newStrides = make([]int, 0, len(newShape))
	}
	newStrides = newStrides[:len(newShape)]
	if len(oldShape) == 0 {
		for i := range newStrides {
			newStrides[i] = 1
		}
		return newStrides, true
	}
	numel := Numel(oldShape)
	if numel == 0 {
		if slices.Equal(oldShape, newShape) {
			copy(newStrides, oldStrides)
			return newStrides, true
		}
		ContiguousStrides(newShape, newStrides)
		return newStrides, true
	}
	viewD := len(newShape) - 1
	chunkBase := oldStrides[len(oldStrides)-1]
	tensorNumel, viewNumel := 1, 1
	for d := len(oldShape) - 1; d >= 0; d-- {
		tensorNumel *= oldShape[d]
		if d == 0 || (oldShape[d-1] != 1 && oldStrides[d-1] != tensorNumel*chunkBase) {
			for viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1) {
				newStrides[viewD] = viewNumel * chunkBase
				viewNumel *= newShape[viewD]
				viewD--
			}
			if viewNumel != tensorNumel {
				return nil, false
			}
			if d > 0 {
				chunkBase = oldStrides[d-1]
				tensorNumel, viewNumel = 1, 1
			}
		}
	}
	if viewD != -1 {
		return nil, false
	}
	return newStrides, true
}

// StorageExtent is the number of elements of storage a view needs: one past
// the largest element index it can reach (0 for an empty view). It does not
// check for overflow: user layouts go through StorageNbytes first.
func StorageExtent(shape, strides []int, offset int) int {
	end := offset + 1
	for i, s := range shape {
		if s == 0 {
			return 0
		}
		end += (s - 1) * strides[i]
	}
	return end
}
