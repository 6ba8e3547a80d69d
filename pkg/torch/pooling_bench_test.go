package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkMaxPool2dForwardBackward is max_pool2d with kernel 2 on a
// 64x32x28x28 float32 batch, forward and backward (torch.Grad, so nothing
// accumulates). PyTorch 1.13's figure for the same work comes from
// `/usr/bin/python3 scripts/golden/pooling.py bench` (one thread); run
// this one with GOMAXPROCS=1 to compare.
func BenchmarkMaxPool2dForwardBackward(b *testing.B) {
	x := torch.Randn([]int{64, 32, 28, 28}, torch.WithGenerator(torch.NewGenerator(0))).RequiresGrad_(true)
	g := torch.OnesLike(torch.MaxPool2d(x.Detach(), []int{2}, torch.MaxPoolOptions{}))
	b.ResetTimer()
	for range b.N {
		y := torch.MaxPool2d(x, []int{2}, torch.MaxPoolOptions{})
		gx, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}})
		if err != nil {
			b.Fatal(err)
		}
		gx[0].Release()
		y.Release()
	}
}
