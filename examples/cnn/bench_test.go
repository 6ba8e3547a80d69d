package main

import (
	"syscall"
	"testing"
	"time"

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
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := trainEpoch(model, opt, loader); err != nil {
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
