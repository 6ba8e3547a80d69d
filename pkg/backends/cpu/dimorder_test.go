package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// plannerOrder is the order (fastest first) in which the CPU planner walks
// the dims of shape for the given operands.
func plannerOrder(shape []int, ins []kernel.Operand) []int {
	var st [cpukernels.MaxOps][cpukernels.MaxDims]int64
	n := len(shape)
	for k := range ins {
		in := &ins[k]
		off := n - len(in.Shape)
		for d := range n {
			if d >= off && in.Shape[d-off] != 1 {
				st[k][d] = int64(in.Strides[d-off] * in.DType.ItemSize())
			}
		}
	}
	pos, order := make([]int, n), make([]int, n)
	for i := range n {
		pos[i], order[i] = n-1-i, n-1-i
	}
	insertionOrder(&st, len(ins), pos, shape, order)
	return order
}

// metaOrder is the order (fastest first) of the dims of the output that
// the meta functions lay out for the operands.
func metaOrder(shape []int, ins []kernel.Operand) []int {
	strides := kernel.ElementwiseStrides(shape, ins, make([]int, len(shape)))
	order := make([]int, len(shape))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strides[a] - strides[b] })
	return order
}

func op(dt dtype.DType, shape, strides []int) kernel.Operand {
	return kernel.Operand{DType: dt, Shape: shape, Strides: strides}
}

// TestPlannerOrdersAsMeta checks that the CPU planner walks dims in the
// order the meta functions lay out outputs, ties and broadcasts included.
func TestPlannerOrdersAsMeta(t *testing.T) {
	cases := []struct {
		name  string
		shape []int
		ins   []kernel.Operand
		want  []int
	}{
		{"transposed first", []int{3, 4}, []kernel.Operand{op(dtype.Float32, []int{3, 4}, []int{1, 3}), op(dtype.Float32, []int{3, 4}, []int{4, 1})}, []int{0, 1}},
		{"contiguous first", []int{3, 4}, []kernel.Operand{op(dtype.Float32, []int{3, 4}, []int{4, 1}), op(dtype.Float64, []int{3, 4}, []int{1, 3})}, []int{1, 0}},
		// equal strides: the smaller dim goes first
		{"tie by size", []int{4, 3}, []kernel.Operand{op(dtype.Float32, []int{4, 3}, []int{1, 1}), op(dtype.Float32, []int{4, 3}, []int{3, 1})}, []int{1, 0}},
		// the first operand is broadcast along dim 1: the second decides it
		{"broadcast", []int{3, 4}, []kernel.Operand{op(dtype.Float32, []int{3, 1}, []int{1, 1}), op(dtype.Float32, []int{3, 4}, []int{1, 3})}, []int{0, 1}},
		// no operand orders dims 0 and 2 directly: the sort goes on past the ambiguous pair
		{"ambiguous", []int{2, 3, 4}, []kernel.Operand{op(dtype.Float32, []int{2, 1, 4}, []int{1, 0, 2}), op(dtype.Int8, []int{1, 3, 4}, []int{0, 1, 3})}, nil},
	}
	for _, c := range cases {
		p, m := plannerOrder(c.shape, c.ins), metaOrder(c.shape, c.ins)
		if !slices.Equal(p, m) || (c.want != nil && !slices.Equal(p, c.want)) {
			t.Errorf("%s: planner %v, meta %v, want %v", c.name, p, m, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		n := 2 + rng.IntN(3)
		shape := make([]int, n)
		for d := range shape {
			shape[d] = 2 + rng.IntN(3)
		}
		ins := make([]kernel.Operand, 1+rng.IntN(3))
		for k := range ins {
			s, st := slices.Clone(shape), make([]int, n)
			for d := range n {
				switch rng.IntN(4) {
				case 0:
					s[d] = 1 // broadcast
				case 1:
					st[d] = 1 + rng.IntN(2) // overlapping: ties
				default:
					st[d] = 1 + rng.IntN(24)
				}
			}
			ins[k] = op(dtype.Float32, s, st)
		}
		p, m := plannerOrder(shape, ins), metaOrder(shape, ins)
		if !slices.Equal(p, m) {
			t.Fatalf("case %d: shape %v, inputs %+v: planner %v, meta %v", i, shape, ins, p, m)
		}
	}
}

func TestReorderDimsKeepsAmbiguousPairs(t *testing.T) {
	perm := []int{0, 1, 2}
	kernel.ReorderDims(perm, 1, func(k, d int) int64 { return 0 }, func(d int) int { return 2 })
	if !slices.Equal(perm, []int{0, 1, 2}) {
		t.Errorf("no operand orders any pair, yet the order changed: %v", perm)
	}
}
