package main

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/digits"
	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkEpoch is one training epoch of the CNN over the 1437 training
// digits in batches of 32 (scripts/bench_conv.py times PyTorch's twin).
func BenchmarkEpoch(b *testing.B) {
	images, labels, err := digits.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	n := len(labels)
	idx := make([]int, n-n/5)
	for i := range idx {
		idx[i] = n/5 + i
	}
	x, y := subset(images, labels, idx)
	ds, err := data.NewTensorDataset(x, y)
	if err != nil {
		b.Fatal(err)
	}
	loader, err := data.NewLoader[[]*torch.Tensor](ds, nil, data.Options{
		BatchSize: batchSize, Shuffle: true, Generator: torch.NewGenerator(seed),
	})
	if err != nil {
		b.Fatal(err)
	}
	torch.ManualSeed(seed)
	model := newModel()
	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(lr), optim.Momentum(momentum))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := trainEpoch(model, opt, loader); err != nil {
			b.Fatal(err)
		}
	}
}
