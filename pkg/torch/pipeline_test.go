package torch_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// pipelineInput is a tensor of shape and dtype with values of every kind:
// ordinary ones, and a few NaNs, infinities and signed zeros.
func pipelineInput(seed uint64, dt torch.DType, shape ...int) *torch.Tensor {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	for i := range v {
		v[i] = r.NormFloat64() * 2
		if r.IntN(40) == 0 {
			v[i] = special[r.IntN(len(special))]
		}
	}
	return torch.FromSlice(v, torch.WithShape(shape...)).ToDType(dt)
}

// randomProgram runs a program of ops drawn from seed over the inputs
// (which it does not write) and returns every tensor it made, in order:
// mostly chains of pointwise ops (each op on the latest result), with
// tensor, broadcast, 0-dim and Go scalar operands, views, ops that end a
// chain (reductions, casts, comparisons), in-place writes and failures.
func randomProgram(seed uint64, ins []*torch.Tensor) []*torch.Tensor {
	r := rand.New(rand.NewPCG(seed, 11))
	vals := append([]*torch.Tensor(nil), ins...)
	pick := func() *torch.Tensor {
		if r.IntN(4) > 0 {
			return vals[len(vals)-1]
		}
		return vals[r.IntN(len(vals))]
	}
	for range 30 {
		x := pick()
		other := vals[r.IntN(len(vals))]
		var y *torch.Tensor
		k := r.IntN(26)
		if x.Dim() == 0 && k >= 16 && k <= 20 { // a failed tensor has no dims
			k = 0
		}
		switch k {
		case 0:
			y = x.Relu()
		case 1:
			y = x.Sigmoid()
		case 2:
			y = x.Exp()
		case 3:
			y = x.Neg()
		case 4:
			y = x.Tanh()
		case 5:
			y = x.Abs().Sqrt()
		case 6:
			y = x.Log1p()
		case 7:
			y = x.Gelu()
		case 8:
			y = x.LeakyRelu(0.1)
		case 9:
			y = x.Clamp(-1.5, 2.0)
		case 10:
			y = x.Add(other)
		case 11:
			y = x.Mul(other)
		case 12:
			y = x.Sub(other).Div(other)
		case 13:
			y = x.Maximum(other)
		case 14:
			y = x.MulScalar(r.Float64()*4 - 2)
		case 15:
			y = x.AddScalar(r.Float64()).PowScalar(2)
		case 16: // a bias along the last dim
			y = x.Mul(pipelineInput(r.Uint64(), x.DType(), x.Shape()[x.Dim()-1]))
		case 17: // a 0-dim tensor
			y = x.Add(torch.Scalar(0.75, torch.WithDType(x.DType())))
		case 18: // a transposed view
			y = x.Transpose(0, x.Dim()-1).Sigmoid()
		case 19:
			y = x.Narrow(x.Dim()-1, 1, x.Shape()[x.Dim()-1]-1).Square()
		case 20: // ends a chain, then broadcast back
			y = x.Sub(x.SumKeepDim(x.Dim() - 1))
		case 21:
			y = x.ToDType(torch.Float64).Atan2(other.ToDType(torch.Float64)).ToDType(x.DType())
		case 22:
			y = torch.Where(x.Gt(torch.Scalar(0.0, torch.WithDType(x.DType()))), x, other)
		case 23: // an in-place write into a result of the program
			if len(vals) > len(ins) {
				y = vals[len(ins)+r.IntN(len(vals)-len(ins))].MulScalar_(1.5)
			} else {
				y = x.Silu()
			}
		case 24:
			y = x.Hypot(other).Reciprocal()
		case 25: // shapes that do not broadcast: an error at once
			y = x.Add(torch.Ones([]int{3, 1, 7}, torch.WithDType(x.DType())))
		}
		vals = append(vals, y)
	}
	return vals
}

// TestPipelineProgramsMatchEager runs random programs at once and in a
// pipeline: every tensor they made, intermediate results included (read
// after the pipeline computed them or only passed through them), has the
// same error or the same layout and bits.
func TestPipelineProgramsMatchEager(t *testing.T) {
	shapes := [][]int{{3000}, {33, 65}, {4, 9, 40}, {70, 1}}
	for seed := range uint64(24) {
		shape := shapes[seed%uint64(len(shapes))]
		dt := torch.Float32
		if seed%3 == 2 {
			dt = torch.Float64
		}
		t.Run(fmt.Sprintf("%d/%s%v", seed, dt, shape), func(t *testing.T) {
			ins := []*torch.Tensor{pipelineInput(seed, dt, shape...), pipelineInput(seed+100, dt, shape...)}
			eager := randomProgram(seed, ins)
			var piped []*torch.Tensor
			if err := torch.Pipeline(func(p *torch.Pipe) error {
				piped = randomProgram(seed, ins)
				if seed%2 == 0 { // read half of them inside the scope
					for _, v := range piped[:len(piped)/2] {
						_ = v.Err()
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for i := range eager {
				if err := conformance.SameBits(eager[i], piped[i]); err != nil {
					t.Fatalf("tensor %d: %v", i, err)
				}
			}
		})
	}
}

// TestPipelineChainValues checks the chain, x*a + b, relu,
// sigmoid, on sizes that split across the worker pool, with a broadcast
// bias and a Go scalar, against eager execution.
func TestPipelineChainValues(t *testing.T) {
	for _, n := range []int{65, 2049, 100_003} {
		x, a := pipelineInput(1, torch.Float32, n, 3), pipelineInput(2, torch.Float32, n, 3)
		b := pipelineInput(3, torch.Float32, 3)
		chain := func() *torch.Tensor { return x.Mul(a).Add(b).Relu().MulScalar(0.5).Sigmoid() }
		want := chain()
		var got *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { got = chain(); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := conformance.SameBits(want, got); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

// TestPipelineFailureMidFlush: an op that fails when it runs (its output
// cannot be allocated) gives one error, naming it, to the flush and to
// the tensors that depend on it; the ops that do not depend on it run,
// once; the pipeline is empty and usable afterwards.
func TestPipelineFailureMidFlush(t *testing.T) {
	x := pipelineInput(5, torch.Float32, 1000)
	one := torch.Ones([]int{1})
	before := dispatch.CountsOf(kernel.OpAtan2, device.CPU).Native
	var ok1, bad, dep, dep2, ok2 *torch.Tensor
	err := torch.Pipeline(func(p *torch.Pipe) error {
		ok1 = x.Atan2(x)
		bad = one.Expand(1 << 38).MulScalar(2) // 1 TiB: the flush cannot allocate it
		dep = bad.Narrow(0, 0, 10).AddScalar(1)
		dep2 = dep.Atan2(dep)
		ok2 = ok1.Atan2(x)
		if p.Len() != 5 {
			t.Errorf("%d ops queued, want 5", p.Len())
		}
		err := p.Flush()
		if !errors.Is(err, torch.ErrDevice) {
			t.Fatalf("flush: %v, want the allocator's error", err)
		}
		var oe *torch.Error
		if !errors.As(err, &oe) || oe.Op != "mul" {
			t.Errorf("flush error %v does not name mul", err)
		}
		if p.Len() != 0 {
			t.Errorf("%d ops left after the flush", p.Len())
		}
		if err := p.Flush(); err != nil {
			t.Errorf("a second flush reports %v again", err)
		}
		later := ok2.AddScalar(1) // usable afterwards
		return later.Err()
	}, torch.PipeMaxBytes(4<<40))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*torch.Tensor{bad, dep, dep2} {
		if f.Err() == nil || f.Err().Error() != bad.Err().Error() {
			t.Errorf("a dependent tensor carries %v, want %v", f.Err(), bad.Err())
		}
	}
	for _, v := range []*torch.Tensor{ok1, ok2} {
		if v.Err() != nil {
			t.Errorf("an independent op failed: %v", v.Err())
		}
	}
	if err := conformance.SameBits(x.Atan2(x).Atan2(x), ok2); err != nil {
		t.Error(err)
	}
	// ok1 and ok2 ran once each in the pipeline, dep2 never; the check
	// above ran two more.
	if got := dispatch.CountsOf(kernel.OpAtan2, device.CPU).Native - before; got != 4 {
		t.Errorf("atan2 ran %d times, want 4", got)
	}
	if _, err := torch.ToSlice[float32](dep2); err == nil {
		t.Error("reading a failed tensor succeeded")
	}
}

// TestPipelineConcurrent runs pipelines in goroutines at once over a
// shared input (run it with -race): each gets eager's bits, ops of
// goroutines without a pipeline run at once, and a goroutine that reads
// a tensor pending in another's pipeline gets its value.
func TestPipelineConcurrent(t *testing.T) {
	x := pipelineInput(9, torch.Float32, 50, 41)
	want := randomProgram(3, []*torch.Tensor{x, x})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 6 {
		wg.Go(func() {
			var got []*torch.Tensor
			err := torch.Pipeline(func(p *torch.Pipe) error {
				got = randomProgram(3, []*torch.Tensor{x, x})
				if g%2 == 0 { // another goroutine reads a pending tensor
					done := make(chan error)
					go func() { done <- conformance.SameBits(want[len(want)-1], got[len(got)-1]) }()
					if err := <-done; err != nil {
						return err
					}
				}
				n := p.Len()
				inner := make(chan int)
				go func() { // a goroutine started inside runs at once
					_ = x.MulScalar(3).Sigmoid()
					inner <- 0
				}()
				<-inner
				if p.Len() != n {
					return fmt.Errorf("another goroutine's ops were queued: %d, then %d", n, p.Len())
				}
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
			for i := range want {
				if err := conformance.SameBits(want[i], got[i]); err != nil {
					errs <- fmt.Errorf("goroutine %d, tensor %d: %v", g, i, err)
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

// TestPipelineNested: an inner pipeline is its own; it reads the outer
// one's pending tensors, and leaving it runs its ops only.
func TestPipelineNested(t *testing.T) {
	x := pipelineInput(4, torch.Float64, 300)
	var a, b *torch.Tensor
	err := torch.Pipeline(func(outer *torch.Pipe) error {
		a = x.Exp().MulScalar(2)
		if outer.Len() != 2 {
			return fmt.Errorf("outer holds %d ops, want 2", outer.Len())
		}
		err := torch.Pipeline(func(inner *torch.Pipe) error {
			b = a.Sigmoid().AddScalar(1) // reads the outer pipeline's results
			if inner.Len() != 2 || outer.Len() != 0 {
				return fmt.Errorf("inner holds %d ops and outer %d, want 2 and 0", inner.Len(), outer.Len())
			}
			return nil
		})
		if err != nil {
			return err
		}
		c := b.Neg()
		if outer.Len() != 1 {
			return fmt.Errorf("outer holds %d ops after the inner scope, want 1", outer.Len())
		}
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.SameBits(x.Exp().MulScalar(2).Sigmoid().AddScalar(1), b); err != nil {
		t.Error(err)
	}
}

// TestPipelineGradients: autograd records through pending ops; the
// backward pass, inside the pipeline or after it, gives eager's gradients.
func TestPipelineGradients(t *testing.T) {
	run := func(piped, backwardInside bool) []*torch.Tensor {
		x := pipelineInput(6, torch.Float64, 40, 30).RequiresGrad_(true)
		w := pipelineInput(7, torch.Float64, 40, 30).RequiresGrad_(true)
		b := pipelineInput(8, torch.Float64, 30).RequiresGrad_(true)
		var loss *torch.Tensor
		body := func() error {
			h := x.Mul(w).Add(b).Relu().Sigmoid()
			loss = h.Mul(h.Tanh()).Sum()
			if backwardInside {
				return loss.Backward()
			}
			return nil
		}
		if piped {
			if err := torch.Pipeline(func(*torch.Pipe) error { return body() }); err != nil {
				t.Fatal(err)
			}
		} else if err := body(); err != nil {
			t.Fatal(err)
		}
		if !backwardInside {
			if err := loss.Backward(); err != nil {
				t.Fatal(err)
			}
		}
		return []*torch.Tensor{loss, x.Grad(), w.Grad(), b.Grad()}
	}
	want := run(false, false)
	for _, inside := range []bool{true, false} {
		got := run(true, inside)
		for i := range want {
			if err := conformance.SameBits(want[i], got[i]); err != nil {
				t.Errorf("backward inside %v, tensor %d: %v", inside, i, err)
			}
		}
	}
}

// TestPipelineWritesAndViews: views of pending tensors, in-place writes
// into them and into inputs of queued ops, releases and version counters
// behave as in eager execution.
func TestPipelineWritesAndViews(t *testing.T) {
	x0 := pipelineInput(10, torch.Float32, 20, 30)
	program := func() []*torch.Tensor {
		x := x0.Clone()
		y := x.MulScalar(2)           // reads x before the write below
		x.Add_(torch.Ones([]int{30})) // an in-place write into an input of a queued op
		v := y.Transpose(0, 1)        // a view of a pending tensor
		y.Narrow(0, 0, 5).Neg_()      // an in-place write through another view
		ver := y.Version()
		t1 := x.Mul(y)
		t2 := t1.Relu().Sigmoid() // t1 may be kept only on the way
		x.MulScalar_(3)           // and t1's input changes afterwards
		z := x.Exp()
		x.Release() // z must have read x first
		return []*torch.Tensor{y, v, t1, t2, z, torch.Scalar(float64(ver))}
	}
	want := program()
	var got []*torch.Tensor
	if err := torch.Pipeline(func(p *torch.Pipe) error {
		got = program()
		return p.Flush()
	}); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if err := conformance.SameBits(want[i], got[i]); err != nil {
			t.Errorf("tensor %d: %v", i, err)
		}
	}
	// A saved output written in place: the backward pass refuses it, as eagerly.
	errOf := func(piped bool) error {
		a := pipelineInput(11, torch.Float32, 100).RequiresGrad_(true)
		var s *torch.Tensor
		body := func() { s = a.Sigmoid(); s.AddScalar_(1) }
		if piped {
			_ = torch.Pipeline(func(*torch.Pipe) error { body(); return nil })
		} else {
			body()
		}
		return s.Sum().Backward()
	}
	if e, p := errOf(false), errOf(true); e == nil || p == nil || e.Error() != p.Error() {
		t.Errorf("backward through a modified saved output: %v at once, %v in a pipeline", e, p)
	}
}

// TestPipelineViewsOfPendingStorage: a call that reads a pending tensor
// and a slice of the same storage (made with UntypedStorage.Slice, its own
// memory over the pending bytes), computed on the way in a fused chain and
// read afterwards, is computed again with each input at its own offset,
// from the values its inputs had, whatever was written into them since.
func TestPipelineViewsOfPendingStorage(t *testing.T) {
	x, a := pipelineInput(12, torch.Float32, 1000), pipelineInput(13, torch.Float32, 1000)
	program := func() []*torch.Tensor {
		y := x.Mul(a)
		st, err := y.UntypedStorage().Slice(500*4, 500*4)
		if err != nil {
			return []*torch.Tensor{torch.Failed(err)}
		}
		tail := torch.FromStorage(torch.NewTypedStorage(st, torch.Float32), 0, []int{500}, nil)
		both := y.Narrow(0, 0, 500).Mul(tail)  // y and a slice of its storage
		alone := tail.Mul(a.Narrow(0, 0, 500)) // the slice alone
		v1 := both.Add(a.Narrow(0, 500, 500)).Relu().Sigmoid()
		v2 := alone.Sub(x.Narrow(0, 0, 500)).Relu().Sigmoid()
		return []*torch.Tensor{v1, v2, both, alone, y, tail} // both and alone read after the flush
	}
	// Writes into y and the slice after the scope: both and alone, not
	// stored yet, must not see them.
	write := func(ts []*torch.Tensor) []*torch.Tensor {
		if len(ts) == 6 {
			ts[4].AddScalar_(1)
			ts[5].MulScalar_(2)
		}
		return ts
	}
	want := write(program())
	var got []*torch.Tensor
	if err := torch.Pipeline(func(*torch.Pipe) error { got = program(); return nil }); err != nil {
		t.Fatal(err)
	}
	got = write(got)
	for i := range want {
		if err := conformance.SameBits(want[i], got[i]); err != nil {
			t.Errorf("tensor %d: %v", i, err)
		}
	}
}

// TestPipelineBounds: past its bounds on ops and bytes a pipeline runs
// what it holds by itself.
func TestPipelineBounds(t *testing.T) {
	x := pipelineInput(12, torch.Float32, 1000)
	err := torch.Pipeline(func(p *torch.Pipe) error {
		y := x
		for range 10 {
			y = y.Sin()
			if p.Len() > 3 {
				return fmt.Errorf("%d ops queued past a bound of 3", p.Len())
			}
		}
		return nil
	}, torch.PipeMaxOps(3))
	if err != nil {
		t.Fatal(err)
	}
	err = torch.Pipeline(func(p *torch.Pipe) error {
		y := x.Sin() // 4000 bytes: a second result would pass 6000
		if p.Len() != 1 {
			return fmt.Errorf("%d ops queued, want 1", p.Len())
		}
		y.Cos()
		if p.Len() != 0 {
			return fmt.Errorf("%d ops queued past the byte bound", p.Len())
		}
		return nil
	}, torch.PipeMaxBytes(6000))
	if err != nil {
		t.Fatal(err)
	}
}

// TestPipelineAfterItsScope: results made in a pipeline are ordinary
// tensors after it, and its Pipe refuses to flush.
func TestPipelineAfterItsScope(t *testing.T) {
	x := pipelineInput(13, torch.Float32, 500)
	var kept *torch.Pipe
	var y *torch.Tensor
	if err := torch.Pipeline(func(p *torch.Pipe) error {
		kept = p
		y = x.Cos().Exp()
		if err := p.Flush(); err != nil {
			return err
		}
		y = y.AddScalar(1) // captured again after a flush
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := conformance.SameBits(x.Cos().Exp().AddScalar(1), y); err != nil {
		t.Error(err)
	}
	if err := kept.Flush(); err == nil {
		t.Error("Flush after the scope succeeded")
	}
	if kept.Len() != 0 {
		t.Error("a closed pipeline holds ops")
	}
	_ = y.MulScalar(2) // runs at once: nothing to capture it
	if kept.Len() != 0 {
		t.Error("an op after the scope was captured")
	}
}

// TestPipelinePanicFlushes: a panic inside the scope still runs what the
// pipeline holds (the scope always closes it).
func TestPipelinePanicFlushes(t *testing.T) {
	x := pipelineInput(14, torch.Float32, 200)
	var y *torch.Tensor
	func() {
		defer func() { _ = recover() }()
		_ = torch.Pipeline(func(*torch.Pipe) error {
			y = x.Sigmoid().Neg()
			panic("boom")
		})
	}()
	if err := conformance.SameBits(x.Sigmoid().Neg(), y); err != nil {
		t.Error(err)
	}
}

// TestPipelineCaptureErrors: errors of the arguments are known when the
// op is called, from its meta function, and nothing is queued.
func TestPipelineCaptureErrors(t *testing.T) {
	x := pipelineInput(15, torch.Float32, 10, 10)
	err := torch.Pipeline(func(p *torch.Pipe) error {
		y := x.Add(torch.Ones([]int{3}))
		if !errors.Is(y.Err(), torch.ErrShape) || p.Len() != 0 {
			return fmt.Errorf("a bad broadcast gave %v with %d ops queued", y.Err(), p.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
