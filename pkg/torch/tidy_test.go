package torch_test

import (
	"errors"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// released reports whether t's memory was released (an op on it fails).
func released(t *torch.Tensor) bool { return t.AddScalar(0).Err() != nil }

func TestTidyReleasesWhatItMadeAndNotKept(t *testing.T) {
	x := torch.Ones([]int{64, 1024}) // made outside: untouched
	var tmp, kept, viewOfKept, view, clone *torch.Tensor
	err := torch.Tidy(func() error {
		tmp = x.MulScalar(2)
		kept = tmp.AddScalar(1)
		viewOfKept = kept.Narrow(0, 0, 2)
		view = x.Narrow(0, 0, 2) // a view of x: x's memory
		clone = x.Clone()
		torch.Keep(kept, nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		t    *torch.Tensor
		want bool
	}{"x": {x, false}, "tmp": {tmp, true}, "kept": {kept, false}, "view of kept": {viewOfKept, false},
		"view of x": {view, false}, "clone": {clone, true}} {
		if got := released(c.t); got != c.want {
			t.Errorf("%s: released %v, want %v", name, got, c.want)
		}
	}
	if v, err := kept.Sum().Item(); err != nil || v != 3*64*1024 {
		t.Errorf("kept sums to %v, %v", v, err)
	}
}

// A training loop inside Tidy keeps its parameters, their gradients and
// the optimizer's state, learns as without it, and holds no more memory
// after many steps than after the first.
func TestTidyTrainingLoop(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // only Tidy returns memory
	w := torch.Zeros([]int{128, 256}).RequiresGrad_(true)
	x, y := torch.Ones([]int{64, 256}), torch.Ones([]int{64, 128})
	var buf *torch.Tensor // the momentum buffer, made inside the first step
	step := func() (loss float64, err error) {
		err = torch.Tidy(func() error {
			if err := w.SetGrad(nil); err != nil {
				return err
			}
			d := x.MatMul(w.T()).Sub(y)
			l := d.Mul(d).Mean()
			if err := l.Backward(); err != nil {
				return err
			}
			torch.NoGrad(func() {
				if buf == nil {
					buf = w.Grad().Clone()
					torch.Keep(buf)
				} else {
					buf.MulScalar_(0.9).Add_(w.Grad())
				}
				w.Detach().AddAlpha_(buf, -0.1)
			})
			loss, err = l.Item()
			return err
		})
		return loss, err
	}
	first, err := step()
	if err != nil {
		t.Fatal(err)
	}
	live := cpu.Stats().Live
	var last float64
	for i := 0; i < 20; i++ {
		if last, err = step(); err != nil {
			t.Fatal(err)
		}
	}
	if grown := cpu.Stats().Live - live; grown != 0 {
		t.Errorf("20 tidy steps left %d more bytes in use than the first", grown)
	}
	if !(last < first/10) {
		t.Errorf("loss %v after 21 steps from %v: the loop did not learn", last, first)
	}
	if released(w) || released(w.Grad()) || released(buf) {
		t.Error("the parameter, its gradient or the kept state was released")
	}
}

func TestTidyNestsAndPassesErrorsAndPanics(t *testing.T) {
	var outer, inner, innerKept *torch.Tensor
	boom := errors.New("boom")
	err := torch.Tidy(func() error {
		outer = torch.Ones([]int{4})
		if err := torch.Tidy(func() error {
			inner = outer.AddScalar(1)
			innerKept = outer.AddScalar(2)
			torch.Keep(innerKept)
			return nil
		}); err != nil {
			return err
		}
		if !released(inner) || released(innerKept) || released(outer) {
			t.Error("the inner scope released the wrong tensors")
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Tidy returned %v, want f's error", err)
	}
	if !released(outer) || released(innerKept) {
		t.Error("the outer scope released the wrong tensors")
	}

	var made *torch.Tensor
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not go on")
			}
		}()
		_ = torch.Tidy(func() error {
			made = torch.Ones([]int{4})
			panic("inside")
		})
	}()
	if !released(made) {
		t.Error("a panicking scope did not release what it made")
	}
}

// Another goroutine's tensors are not the scope's, even one f starts.
func TestTidyLeavesOtherGoroutinesAlone(t *testing.T) {
	var theirs *torch.Tensor
	var wg sync.WaitGroup
	_ = torch.Tidy(func() error {
		wg.Add(1)
		go func() {
			defer wg.Done()
			theirs = torch.Ones([]int{4})
		}()
		wg.Wait()
		return nil
	})
	if released(theirs) {
		t.Error("a tensor another goroutine made was released")
	}
}

// A gradient the caller keeps survives a ZeroGrad in a later scope; one it
// does not keep is the scope's to release.
func TestTidyZeroGradReleasesOnlyUnkeptGradients(t *testing.T) {
	w := torch.Ones([]int{4}).RequiresGrad_(true)
	var kept, dropped *torch.Tensor
	for i := 0; i < 2; i++ {
		_ = torch.Tidy(func() error {
			if err := w.SetGrad(nil); err != nil {
				return err
			}
			if err := w.MulScalar(2).Sum().Backward(); err != nil {
				return err
			}
			if i == 0 {
				kept = w.Grad()
				torch.Keep(kept)
			} else {
				dropped = w.Grad()
			}
			return nil
		})
	}
	_ = torch.Tidy(func() error { return w.SetGrad(nil) })
	if released(kept) {
		t.Error("a kept gradient was released by a later scope's ZeroGrad")
	}
	if !released(dropped) {
		t.Error("a gradient dropped inside a scope was not released")
	}
}

// A differentiable gradient given to backward (without CreateGraph) gives
// the leaf a gradient the pass must not free.
func TestBackwardKeepsDifferentiableGradients(t *testing.T) {
	x := torch.Ones([]int{64, 1024}).RequiresGrad_(true)
	v := torch.Ones([]int{64, 1024}).RequiresGrad_(true)
	if err := x.MulScalar(2).MulScalar(3).BackwardWith(torch.BackwardOptions{Grad: v}); err != nil {
		t.Fatal(err)
	}
	if s, err := x.Grad().Sum().Item(); err != nil || s != 6*64*1024 {
		t.Errorf("x.Grad() sums to %v, %v", s, err)
	}
}
