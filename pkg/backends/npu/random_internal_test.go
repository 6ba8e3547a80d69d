package npu

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// TestCounterOffset: the offsets a draw advances, as op-plugin's
// calc_final_counter_offset (op_plugin/utils/RandomUtil.h) gives them,
// worked out by a separate transcription of that header: one round of the
// grid, one element past it, int64's unroll of 2, and tensors that need
// 64-bit indexing (more than 2^31 elements, or a byte offset past 2^31
// through a transposed layout), split in halves. Only shapes and strides
// are read, so the tensors need no memory.
func TestCounterOffset(t *testing.T) {
	for _, c := range []struct {
		shape, strides []int
		dt             dtype.DType
		unroll         int64
		want           uint64
	}{
		{[]int{1}, []int{1}, dtype.Float32, 4, 4},
		{[]int{638976}, []int{1}, dtype.Float32, 4, 4},
		{[]int{638977}, []int{1}, dtype.Float32, 4, 8},
		{[]int{319489}, []int{1}, dtype.Int64, 2, 8},
		{[]int{3 << 30}, []int{1}, dtype.Float32, 4, 40360},
		{[]int{1 << 16, 1 << 15}, []int{1, 1 << 16}, dtype.Float32, 4, 26900},
		{[]int{600, 1 << 20}, []int{1 << 20, 1}, dtype.Int64, 2, 15768},
	} {
		o := &kernel.Operand{Shape: c.shape, Strides: c.strides, DType: c.dt}
		if got := counterOffset(o, c.unroll); got != c.want {
			t.Errorf("%v strides %v %s: offset %d, want %d", c.shape, c.strides, c.dt.Name(), got, c.want)
		}
	}
}
