package kernel

import "slices"

// ElementwiseStrides returns the strides PyTorch's TensorIterator gives the
// output of a pointwise op of the given (broadcast) shape: contiguous when
// every input is; the inputs' own strides when they all share one dense
// layout; otherwise the inputs' memory order of dimensions (so that x.T + 1
// is laid out like x.T). dst must have len(shape) elements.
func ElementwiseStrides(shape []int, ins []Operand, dst []int) []int {
	n := len(shape)
	if n <= 1 {
		return ContiguousStrides(shape, dst)
	}
	sameShape, contiguous := true, true
	for i := range ins {
		in := &ins[i]
		if !slices.Equal(in.Shape, shape) {
			sameShape = false
			break
		}
		contiguous = contiguous && IsContiguous(in.Shape, in.Strides)
	}
	if sameShape {
		if contiguous {
			return ContiguousStrides(shape, dst)
		}
		dense := true
		for i := range ins {
			dense = dense && IsNonOverlappingAndDense(ins[i].Shape, ins[i].Strides)
		}
		if dense && len(ins) > 0 {
			same := true
			for i := 1; i < len(ins); i++ {
				same = same && slices.Equal(ins[i].Strides, ins[0].Strides)
			}
			if same {
				copy(dst, ins[0].Strides)
				return dst
			}
		}
	}

	// perm[0] is the fastest-moving dimension; start from row-major order.
	var permBuf [16]int
	perm := permBuf[:0]
	if n > len(permBuf) {
		perm = make([]int, 0, n)
	}
	for d := n - 1; d >= 0; d-- {
		perm = append(perm, d)
	}
	// stride of input k along output dim d, 0 where broadcast.
	stride := func(k, d int) int {
		in := &ins[k]
		off := n - len(in.Shape)
		if d < off || (in.Shape[d-off] == 1 && shape[d] != 1) {
			return 0
		}
		return in.Strides[d-off]
	}
	// 1: dim0 should come after dim1; -1: before; 0: ambiguous.
	shouldSwap := func(d0, d1 int) int {
		for k := range ins {
			s0, s1 := stride(k, d0), stride(k, d1)
			if s0 == 0 || s1 == 0 {
				continue
			}
			if s0 < s1 {
				return -1
			}
			if s0 > s1 {
				return 1
			}
			if shape[d0] > shape[d1] {
				return 1
			}
		}
		return 0
	}
	for i := 1; i < n; i++ {
		d1 := i
		for d0 := i - 1; d0 >= 0; d0-- {
			c := shouldSwap(perm[d0], perm[d1])
			if c > 0 {
				perm[d0], perm[d1] = perm[d1], perm[d0]
				d1 = d0
			} else if c < 0 {
				break
			}
		}
	}
	st := 1
	for _, d := range perm {
		dst[d] = st
		st *= shape[d] // as TensorIterator: an empty dim zeroes the outer strides
	}
	return dst
}
