package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The small-op benchmarks time ops on a few elements, where the
// dispatcher's own steps, not the arithmetic, are most of the cost.

func BenchmarkSmallMul2x2(b *testing.B) {
	x, y := torch.Ones([]int{2, 2}), torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Mul(y)
	}
}

func BenchmarkSmallAddBroadcast2x2(b *testing.B) {
	x, y := torch.Ones([]int{2, 2}), torch.Ones([]int{2, 1})
	b.ReportAllocs()
	for b.Loop() {
		x.Add(y)
	}
}

func BenchmarkSmallAddScalar2x2(b *testing.B) {
	x := torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.AddScalar(1)
	}
}

func BenchmarkSmallRelu2x2(b *testing.B) {
	x := torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Relu()
	}
}

func BenchmarkSmallSum2x2(b *testing.B) {
	x := torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Sum()
	}
}

func BenchmarkSmallAdd_2x2(b *testing.B) {
	x, y := torch.Ones([]int{2, 2}), torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Add_(y)
	}
}
