package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkConv2dMNIST is a 64x1x28x28 batch through a 3x3 convolution to
// 32 channels, forward and backward (PyTorch 1.13 at one thread: see the
// report of the change adding it).
func BenchmarkConv2dMNIST(b *testing.B) {
	c := nn.NewConv2d(1, 32, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{64, 1, 28, 28}).RequiresGrad_(true)
	for b.Loop() {
		y := c.Forward(x)
		if err := y.Sum().Backward(); err != nil {
			b.Fatal(err)
		}
		y.Release()
	}
}

// BenchmarkConv2dForward is 32x64x56x56 through a 3x3 convolution to 64
// channels, forward only.
func BenchmarkConv2dForward(b *testing.B) {
	c := nn.NewConv2d(64, 64, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{32, 64, 56, 56})
	torch.NoGrad(func() {
		for b.Loop() {
			y := c.Forward(x)
			if err := y.Err(); err != nil {
				b.Fatal(err)
			}
			y.Release()
		}
	})
}

// BenchmarkConv2dForwardBackward is BenchmarkConv2dForward's convolution,
// forward and backward (input and weight gradients).
func BenchmarkConv2dForwardBackward(b *testing.B) {
	c := nn.NewConv2d(64, 64, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{32, 64, 56, 56}).RequiresGrad_(true)
	for b.Loop() {
		y := c.Forward(x)
		if err := y.Sum().Backward(); err != nil {
			b.Fatal(err)
		}
		y.Release()
	}
}
