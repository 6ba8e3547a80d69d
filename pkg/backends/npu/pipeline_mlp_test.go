package npu_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// mlp is a 2-layer MLP trained by SGD on one batch, written so that a
// step makes only new tensors (the update too): in a pipeline, a step's
// forward and backward passes and the previous step's update are one
// flush.
type mlp struct {
	x, onehot *torch.Tensor
	params    []*torch.Tensor // w1, b1, w2, b2
}

func newMLP(t testing.TB) *mlp {
	torch.ManualSeed(7)
	to := func(x *torch.Tensor) *torch.Tensor {
		d, err := x.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := &mlp{x: to(torch.Randn([]int{64, 32})),
		onehot: to(torch.OneHot(torch.Randint(0, 8, []int{64}), 8).ToDType(torch.Float32))}
	for _, p := range []*torch.Tensor{torch.Randn([]int{32, 64}).MulScalar(0.2), torch.Zeros([]int{64}),
		torch.Randn([]int{64, 8}).MulScalar(0.2), torch.Zeros([]int{8})} {
		m.params = append(m.params, to(p).RequiresGrad_(true))
	}
	return m
}

// step runs one training step and returns the loss.
func (m *mlp) step() (float64, error) {
	w1, b1, w2, b2 := m.params[0], m.params[1], m.params[2], m.params[3]
	h := m.x.MatMul(w1).Add(b1).Relu()
	logp := h.MatMul(w2).Add(b2).LogSoftmax(1)
	loss := logp.Mul(m.onehot).Sum(1).Mean().Neg()
	if err := loss.Backward(); err != nil {
		return 0, err
	}
	for i, p := range m.params {
		m.params[i] = p.Detach().Sub(p.Grad().MulScalar(0.1)).RequiresGrad_(true)
	}
	return loss.Item()
}

// stepCounts are what the device saw during steps.
type stepCounts struct {
	launches, batched, batchCalls int64
}

func countSteps(t testing.TB, f func()) stepCounts {
	c0, ok := npushim.Counters()
	if !ok {
		t.Skip("not the emulator")
	}
	bc0, bo0 := npushim.BatchCounters()
	f()
	c1, _ := npushim.Counters()
	bc1, bo1 := npushim.BatchCounters()
	return stepCounts{c1.Launches - c0.Launches, bo1 - bo0, bc1 - bc0}
}

// TestPipelineTrainsMLPAsEager trains the MLP eagerly and in a pipeline:
// the same losses bit for bit, and in the pipeline every launch of a step
// in one cgo call.
func TestPipelineTrainsMLPAsEager(t *testing.T) {
	const steps = 5
	eager := newMLP(t)
	want := make([]float64, steps)
	for i := range want {
		v, err := eager.step()
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v
	}
	piped := newMLP(t)
	got := make([]float64, steps)
	var last stepCounts
	err := torch.Pipeline(func(p *torch.Pipe) error {
		for i := range got {
			var err error
			last = countSteps(t, func() { got[i], err = piped.step() })
			if err != nil {
				return err
			}
			t.Logf("step %d: %d launches, %d of them in %d batch calls", i, last.launches, last.batched, last.batchCalls)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d: loss %v in a pipeline, %v at once", i, got[i], want[i])
		}
	}
	if last.batchCalls != 1 || last.batched != last.launches {
		t.Fatalf("a step made %d launches, %d of them in %d batch calls: want all in 1", last.launches, last.batched, last.batchCalls)
	}
}

// BenchmarkMLPStepNPU times a training step on the NPU (the emulator in
// CI) at once and in a pipeline, and reports the launches per step and
// the cgo calls that made them.
func BenchmarkMLPStepNPU(b *testing.B) {
	for _, piped := range []bool{false, true} {
		name := "eager"
		if piped {
			name = "pipeline"
		}
		b.Run(name, func(b *testing.B) {
			m := newMLP(b)
			var c stepCounts
			run := func() {
				c = countSteps(b, func() {
					for b.Loop() {
						if _, err := m.step(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			if piped {
				if err := torch.Pipeline(func(*torch.Pipe) error { run(); return nil }); err != nil {
					b.Fatal(err)
				}
			} else {
				run()
			}
			n := float64(b.N)
			b.ReportMetric(float64(c.launches)/n, "launches/step")
			b.ReportMetric(float64(c.launches-c.batched+c.batchCalls)/n, "launch-cgo-calls/step")
		})
	}
}
