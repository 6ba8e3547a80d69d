package optim_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// mlpParams are the parameters of a 784-256-10 MLP with gradients set.
func mlpParams(b *testing.B) []*torch.Tensor {
	var ps []*torch.Tensor
	for _, shape := range [][]int{{256, 784}, {256}, {10, 256}, {10}} {
		p := torch.Randn(shape).RequiresGrad_(true)
		if err := p.SetGrad(torch.Randn(shape)); err != nil {
			b.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// BenchmarkAdamStep is one Adam step over a 784-256-10 MLP's parameters
// (about 200k floats).
func BenchmarkAdamStep(b *testing.B) {
	opt, err := optim.NewAdam(mlpParams(b), optim.LR(1e-3))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSGDMomentumStep is one SGD step with momentum over the same
// parameters.
func BenchmarkSGDMomentumStep(b *testing.B) {
	opt, err := optim.NewSGD(mlpParams(b), optim.LR(1e-2), optim.Momentum(0.9))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
