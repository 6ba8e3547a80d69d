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
	ReorderDims(perm, len(ins), func(k, d int) int64 { return int64(stride(k, d)) }, func(d int) int { return shape[d] })
	st := 1
	for _, d := range perm {
		dst[d] = st
		st *= shape[d] // as TensorIterator: an empty dim zeroes the outer strides
	}
	return dst
}
