package nn_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkConv2dMNIST is a 64x1x28x28 batch through a 3x3 convolution to
// 32 channels, forward and backward (PyTorch's side: scripts/bench_conv.py).
func BenchmarkConv2dMNIST(b *testing.B) {
	c := nn.NewConv2d(1, 32, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{64, 1, 28, 28}).RequiresGrad_(true)
	benchWarm(b, func() error { return forwardBackward(c, x) })
}

// BenchmarkConv2dForward is 32x64x56x56 through a 3x3 convolution to 64
// channels, forward only.
func BenchmarkConv2dForward(b *testing.B) {
	c := nn.NewConv2d(64, 64, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{32, 64, 56, 56})
	benchWarm(b, func() error {
		var err error
		torch.NoGrad(func() {
			y := c.Forward(x)
			err = y.Err()
			y.Release()
		})
		return err
	})
}

// BenchmarkConv2dForwardBackward is BenchmarkConv2dForward's convolution,
// forward and backward (input and weight gradients).
func BenchmarkConv2dForwardBackward(b *testing.B) {
	c := nn.NewConv2d(64, 64, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{32, 64, 56, 56}).RequiresGrad_(true)
	benchWarm(b, func() error { return forwardBackward(c, x) })
}

// forwardBackward runs c on x and the backward pass of the output's sum.
func forwardBackward(c *nn.Conv2d, x *torch.Tensor) error {
	y := c.Forward(x)
	defer y.Release()
	return y.Sum().Backward()
}

// benchWarm times step after two untimed calls, as scripts/bench_conv.py
// times PyTorch's: the first call pays for first touches of fresh memory
// (the output, the packed weights), which a model run in a loop pays once.
// It reports the process's CPU time per op too (reportCPU).
func benchWarm(b *testing.B, step func() error) {
	for range 2 {
		if err := step(); err != nil {
			b.Fatal(err)
		}
	}
	defer reportCPU(b)()
	for b.Loop() {
		if err := step(); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU, deferred (reportCPU(b)()) just before the timed loop, reports
// the process's CPU time per op (cpu-ms/op) besides the wall time: on a
// machine shared with other work it is the steadier measure at one thread
// (at more, it sums the threads' time).
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
