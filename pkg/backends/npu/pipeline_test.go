package npu_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestConformancePipeline runs the golden op suite on the NPU at once and
// inside a torch.Pipeline: the same errors, layouts, bits and gradients.
func TestConformancePipeline(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(file, func(t *testing.T) { conformance.RunPipeline(t, file, "npu") })
	}
}

// launches reads the emulator's launch count and the shim's batch
// counters.
func launches(t *testing.T) (launched, calls, batched int64) {
	t.Helper()
	c, ok := npushim.Counters()
	if !ok {
		t.Skip("not the emulator")
	}
	calls, batched = npushim.BatchCounters()
	return c.Launches, calls, batched
}

func npuTensor(t *testing.T, x *torch.Tensor) *torch.Tensor {
	t.Helper()
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPipelineLaunchesABatchInOneCall checks that a flush on the NPU
// launches all its ops in one cgo call (once the workspace is known),
// with eager's bits.
func TestPipelineLaunchesABatchInOneCall(t *testing.T) {
	torch.ManualSeed(3)
	x := npuTensor(t, torch.Randn([]int{64, 32}))
	a := npuTensor(t, torch.Randn([]int{32}))
	b := npuTensor(t, torch.Randn([]int{64, 32}))
	w := npuTensor(t, torch.Randn([]int{32, 8}))
	prog := func() *torch.Tensor {
		return x.Mul(a).Add(b).Relu().Sigmoid().MatMul(w).Tanh().Exp().Sum(1)
	}
	const ops = 8
	want := prog()
	var got *torch.Tensor
	for round := range 2 { // the first round may learn the workspace size
		l0, c0, b0 := launches(t)
		err := torch.Pipeline(func(p *torch.Pipe) error {
			got = prog()
			if p.Len() != ops {
				t.Fatalf("%d ops queued, want %d", p.Len(), ops)
			}
			return p.Flush()
		})
		if err != nil {
			t.Fatal(err)
		}
		l1, c1, b1 := launches(t)
		t.Logf("round %d: %d launches, %d batched, in %d batch calls", round, l1-l0, b1-b0, c1-c0)
		if round == 1 && (l1-l0 != ops || b1-b0 != ops || c1-c0 != 1) {
			t.Fatalf("%d launches (%d batched) in %d calls, want %d in 1", l1-l0, b1-b0, c1-c0, ops)
		}
	}
	if err := conformance.SameBits(want, got); err != nil {
		t.Fatal(err)
	}
}

// TestPipelineFreesIntermediates checks that a flush gives an
// intermediate's block back as soon as its last reader is queued.
func TestPipelineFreesIntermediates(t *testing.T) {
	torch.ManualSeed(4)
	x := npuTensor(t, torch.Randn([]int{256, 256}))
	npu.ResetPeakMemoryStats(0)
	before := npu.Stats(0).Allocated
	var y *torch.Tensor
	err := torch.Pipeline(func(p *torch.Pipe) error {
		y = x.Exp().Neg().Abs().Sqrt().Relu().Tanh() // 5 intermediates, read only in the chain
		return p.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	after := npu.Stats(0).PeakAllocated
	// Each intermediate's block is given back once its reader is queued,
	// so the chain needs at most two blocks besides y at any time.
	if grew := after - before; grew > 3*256*256*4 {
		t.Fatalf("the pipeline's peak grew by %d bytes", grew)
	}
	want := x.Exp().Neg().Abs().Sqrt().Relu().Tanh()
	if err := conformance.SameBits(want, y); err != nil {
		t.Fatal(err)
	}
}

// TestPipelinesConcurrentOnTheNPU runs pipelines in several goroutines at
// once on the NPU: each gets eager's bits, whatever the others queue.
func TestPipelinesConcurrentOnTheNPU(t *testing.T) {
	torch.ManualSeed(5)
	x := npuTensor(t, torch.Randn([]int{128, 64}))
	w := npuTensor(t, torch.Randn([]int{64, 16}))
	prog := func(k float64) *torch.Tensor {
		return x.MulScalar(k).Relu().MatMul(w).Sigmoid().Sum(1)
	}
	want := make([]*torch.Tensor, 4)
	for g := range want {
		want[g] = prog(float64(g + 1))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(want))
	for g := range want {
		wg.Go(func() {
			for range 5 {
				var got *torch.Tensor
				err := torch.Pipeline(func(*torch.Pipe) error { got = prog(float64(g + 1)); return nil })
				if err == nil {
					err = conformance.SameBits(want[g], got)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPipelineFailureMidFlushOnTheNPU: an op whose output the device
// cannot allocate fails alone when the batch runs: one error naming it,
// carried by the tensors that depend on it; the others are launched once
// each (in the batch calls); the pipeline is empty and usable afterwards.
func TestPipelineFailureMidFlushOnTheNPU(t *testing.T) {
	torch.ManualSeed(6)
	x := npuTensor(t, torch.Randn([]int{1000}))
	one := npuTensor(t, torch.Ones([]int{1}))
	var ok1, bad, dep, ok2 *torch.Tensor
	l0, _, b0 := launches(t)
	err := torch.Pipeline(func(p *torch.Pipe) error {
		ok1 = x.Exp()
		bad = one.Expand(1 << 38).MulScalar(2) // 1 TiB: the flush cannot allocate it
		dep = bad.Narrow(0, 0, 10).AddScalar(1)
		ok2 = ok1.Tanh()
		err := p.Flush()
		if !errors.Is(err, torch.ErrOutOfMemory) {
			t.Fatalf("flush: %v, want the allocator's error", err)
		}
		// As at once: the allocator's error ("malloc"), with the inputs
		// of the op whose output it is.
		var oe *torch.Error
		if !errors.As(err, &oe) || len(oe.Shapes) != 1 || oe.Shapes[0][0] != 1<<38 {
			t.Errorf("flush error %v does not name mul's input", err)
		}
		if p.Len() != 0 {
			t.Errorf("%d ops left after the flush", p.Len())
		}
		if err := p.Flush(); err != nil {
			t.Errorf("a second flush reports %v again", err)
		}
		return ok2.AddScalar(1).Err() // usable afterwards
	}, torch.PipeMaxBytes(4<<40))
	if err != nil {
		t.Fatal(err)
	}
	if l1, _, b1 := launches(t); l1-l0 != 3 || b1-b0 != 3 {
		t.Errorf("%d launches (%d in batches), want exp, tanh and add once each", l1-l0, b1-b0)
	}
	if dep.Err() == nil || dep.Err().Error() != bad.Err().Error() {
		t.Errorf("the dependent tensor carries %v, want %v", dep.Err(), bad.Err())
	}
	if err := conformance.SameBits(x.Exp().Tanh(), ok2); err != nil {
		t.Error(err)
	}
}
