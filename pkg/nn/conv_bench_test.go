package nn_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkConv2dMNIST is a 64x1x28x28 batch through a 3x3 convolution to
// 32 channels, forward and backward (PyTorch 1.13 at one thread: see the
// report of the change adding it).
func BenchmarkConv2dMNIST(b *testing.B) {
	c := nn.NewConv2d(1, 32, []int{3}, nn.ConvConfig{})
	x := torch.Randn([]int{64, 1, 28, 28}).RequiresGrad_(true)
	defer reportCPU(b)()
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
		defer reportCPU(b)()
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
	defer reportCPU(b)()
	for b.Loop() {
		y := c.Forward(x)
		if err := y.Sum().Backward(); err != nil {
			b.Fatal(err)
		}
		y.Release()
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
