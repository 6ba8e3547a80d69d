package benchsuite_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/autograd"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// linear is an nn.Linear with deterministic weights (see input).
func linear(in, out int, k float64) *nn.Linear {
	l := nn.NewLinear(in, out)
	l.Weight = nn.Parameter(input([]int{out, in}, k).MulScalar(0.05))
	l.Bias = nn.Parameter(input([]int{out}, 2*k).MulScalar(0.05))
	return l
}

// mlp is a stack of linear layers with relu between them.
type mlp struct{ layers []*nn.Linear }

func newMLP(sizes ...int) *mlp {
	m := &mlp{}
	for i := 1; i < len(sizes); i++ {
		m.layers = append(m.layers, linear(sizes[i-1], sizes[i], 1e-3*float64(i)))
	}
	return m
}

func (m *mlp) forward(x *torch.Tensor) *torch.Tensor {
	for i, l := range m.layers {
		x = l.Forward(x)
		if i < len(m.layers)-1 {
			x = x.Relu()
		}
	}
	return x
}

func (m *mlp) params() []*torch.Tensor {
	var ps []*torch.Tensor
	for _, l := range m.layers {
		ps = append(ps, l.Weight, l.Bias)
	}
	return ps
}

// benchTrain times one training step of a 784-256-10 MLP, batch 64, as
// users write it: zero the gradients, forward, cross entropy, backward,
// step; nothing released by hand.
func benchTrain(b *testing.B, newOpt func([]*torch.Tensor) (optim.Optimizer, error)) {
	m := newMLP(784, 256, 10)
	x, target := input([]int{64, 784}, 1e-3), indices(64, 10)
	opt, err := newOpt(m.params())
	if err != nil {
		b.Fatal(err)
	}
	step := func() *torch.Tensor {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(m.forward(x), target)
		if err := loss.Backward(); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
		return loss
	}
	checksum(b, step().Detach())
	b.Run("gc", func(b *testing.B) {
		for b.Loop() {
			step()
		}
	})
	b.Run("tidy", func(b *testing.B) {
		for b.Loop() {
			_ = torch.Tidy(func() error { step(); return nil })
		}
	})
}

// BenchmarkTrainSGD is a training step with SGD (lr 0.01, momentum 0.9).
func BenchmarkTrainSGD(b *testing.B) {
	benchTrain(b, func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.LR(0.01), optim.Momentum(0.9))
	})
}

// BenchmarkTrainAdam is a training step with Adam (lr 1e-3).
func BenchmarkTrainAdam(b *testing.B) {
	benchTrain(b, func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdam(ps, optim.LR(1e-3))
	})
}

// BenchmarkInference is an inference loop of a 512-1024-1024-10 MLP,
// batch 32, without gradients, reporting the median and the 99th
// percentile of one step's time besides the mean.
func BenchmarkInference(b *testing.B) {
	m := newMLP(512, 1024, 1024, 10)
	x := input([]int{32, 512}, 1e-3)
	var y *torch.Tensor
	autograd.NoGrad(func() { y = m.forward(x) })
	checksum(b, y)
	for _, tidy := range []bool{false, true} {
		name := map[bool]string{false: "gc", true: "tidy"}[tidy]
		b.Run(name, func(b *testing.B) {
			var times []time.Duration
			autograd.NoGrad(func() {
				for b.Loop() {
					t := time.Now()
					if tidy {
						_ = torch.Tidy(func() error { m.forward(x); return nil })
					} else {
						m.forward(x)
					}
					times = append(times, time.Since(t))
				}
			})
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
