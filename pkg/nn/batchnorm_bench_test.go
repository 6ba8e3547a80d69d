package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkBatchNorm2dTrain is a 32x64x28x28 batch through BatchNorm2d(64)
// in training mode, forward (running statistics updated) and backward;
// scripts/bench_batchnorm.py times PyTorch's.
func BenchmarkBatchNorm2dTrain(b *testing.B) {
	m := nn.NewBatchNorm2d(64, true, true)
	x := torch.Randn([]int{32, 64, 28, 28}).RequiresGrad_(true)
	for b.Loop() {
		y := m.Forward(x)
		if err := y.Sum().Backward(); err != nil {
			b.Fatal(err)
		}
		y.Release()
	}
}
