package kernel

// ReorderDims sorts perm, a list of dims with the fastest-moving first,
// into the memory order of a call's operands, as TensorIterator's
// reorder_dimensions does: a dim goes before another when the first
// operand (in the order given: outputs first) whose strides along both are
// nonzero and differ has the smaller stride along it; equal strides put
// the smaller dim first; a pair that no operand orders keeps its order,
// and the insertion sort goes on comparing with the dims before (PyTorch's
// rule for ambiguous comparisons). stride(k, d) is operand k's stride along
// d (0 where k is broadcast), size(d) the size of d. Meta functions lay
// out outputs with it and the CPU planner orders its loops with it, so the
// two agree, ties included.
func ReorderDims(perm []int, nops int, stride func(k, d int) int64, size func(d int) int) {
	// shouldSwap: 1 when d0 should come after d1, -1 before, 0 ambiguous.
	shouldSwap := func(d0, d1 int) int {
		for k := range nops {
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
			if size(d0) > size(d1) {
				return 1
			}
		}
		return 0
	}
	for i := 1; i < len(perm); i++ {
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
}
