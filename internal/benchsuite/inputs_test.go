package benchsuite_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// input is a float32 tensor of the given shape holding sin(k·i) for its
// i-th element: the same numbers on both sides without sharing a random
// generator (bench_suite_torch.py builds it the same way).
func input(shape []int, k float64) *torch.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return torch.Arange(n, torch.WithDType(torch.Float32)).MulScalar(k).Sin().Reshape(shape...)
}

// indices are (7919·i) mod n for i < count, as int64.
func indices(count, n int) *torch.Tensor {
	return torch.Arange(count).MulScalar(7919).RemainderScalar(n)
}

// checksum prints the sum of the magnitudes of r's elements, the line the report compares
// with PyTorch's.
func checksum(b *testing.B, r *torch.Tensor) {
	s, err := r.Abs().Sum().Item()
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("checksum %s %.9g\n", b.Name(), s)
}

// modes runs step as the sub-benchmarks gc, released, tidy and into. step
// returns the step's results, which released releases after the step;
// into is nil when the case has no out= form.
func modes(b *testing.B, step func() []*torch.Tensor, into func()) {
	modesReleasing(b, step, func() {
		for _, r := range step() {
			r.Release()
		}
	}, into)
}

// modesReleasing is modes for a step with intermediates: released runs
// the step releasing each tensor as soon as it is dead, as PyTorch frees
// an intermediate when the op that reads it returns.
func modesReleasing(b *testing.B, step func() []*torch.Tensor, released, into func()) {
	b.Run("gc", func(b *testing.B) {
		for b.Loop() {
			step()
		}
	})
	b.Run("released", func(b *testing.B) {
		for b.Loop() {
			released()
		}
	})
	b.Run("tidy", func(b *testing.B) {
		for b.Loop() {
			_ = torch.Tidy(func() error { step(); return nil })
		}
	})
	if into != nil {
		b.Run("into", func(b *testing.B) {
			for b.Loop() {
				into()
			}
		})
	}
}
