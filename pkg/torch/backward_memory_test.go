package torch_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// chainLoss is ((x*2).relu()*3).sum() of a leaf x of n x n floats: three
// gradients of x's size flow back to x.
func chainLoss(n int) (x, loss *torch.Tensor) {
	x = torch.Arange(float64(n*n)).Reshape(n, n).SubScalar(float64(n * n / 2)).RequiresGrad_(true)
	return x, x.MulScalar(2).Relu().MulScalar(3).Sum()
}

// A backward pass frees the gradients it made and no one else can reach
// as soon as the next node has read them, and the leaf keeps the last one
// instead of a copy: of the four buffers of x's size that a pass used to
// leave to the garbage collector (three gradients and the leaf's copy),
// only x.Grad remains.
func TestBackwardFreesItsIntermediateGradients(t *testing.T) {
	const n = 256 // 256 KiB per buffer: sizes the CPU cache counts
	x, loss := chainLoss(n)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no cleanup returns memory meanwhile
	before := cpu.Stats().Live
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	grown := cpu.Stats().Live - before
	runtime.KeepAlive(loss)
	size := int64(n * n * 4)
	// The root gradient is one element: counted only when
	// MINDTORCH_CPU_CACHE_DEBUG sends every allocation through the cache.
	if grown < size || grown >= size+64<<10 {
		t.Errorf("backward left %d bytes in use, want %d (x.Grad alone)", grown, size)
	}
	want := x.Detach().GtScalar(0).ToDType(torch.Float32).MulScalar(6)
	if ok, err := torch.EqualErr(x.Grad(), want); err != nil || !ok {
		t.Errorf("x.Grad() = %v, %v", x.Grad(), err)
	}
}

// A kept gradient is the leaf's alone: the next pass adds into it in
// place, and leaves that received one gradient together (x + y) get
// separate memory.
func TestKeptGradientsAreTheLeafs(t *testing.T) {
	x, loss := chainLoss(4)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	_, loss = func() (*torch.Tensor, *torch.Tensor) {
		return x, x.MulScalar(2).Relu().MulScalar(3).Sum()
	}()
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	want := x.Detach().GtScalar(0).ToDType(torch.Float32).MulScalar(12)
	if ok, err := torch.EqualErr(x.Grad(), want); err != nil || !ok {
		t.Errorf("after two passes x.Grad() = %v, want %v (%v)", x.Grad(), want, err)
	}

	a := torch.Ones([]int{3}).RequiresGrad_(true)
	b := torch.Ones([]int{3}).RequiresGrad_(true)
	if err := a.Add(b).MulScalar(5).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	a.Grad().AddScalar_(1)
	if got, err := torch.ToSlice[float32](b.Grad()); err != nil || got[0] != 5 {
		t.Errorf("b.Grad() = %v after changing a.Grad(): the leaves share memory (%v)", got, err)
	}
}

// Gradients that leave the pass (through a hook, RetainGrad or Grad) stay
// valid after it.
func TestGradientsSeenOutsideThePassStayValid(t *testing.T) {
	x := torch.Ones([]int{4}).RequiresGrad_(true)
	h := x.MulScalar(2)
	var stashed *torch.Tensor
	if err := h.RegisterHook(func(g *torch.Tensor) *torch.Tensor { stashed = g; return nil }); err != nil {
		t.Fatal(err)
	}
	r := h.Relu().RetainGrad()
	if err := r.MulScalar(3).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*torch.Tensor{"hook's": stashed, "retained": r.Grad(), "leaf's": x.Grad()} {
		if _, err := torch.ToSlice[float32](g); err != nil {
			t.Errorf("the %s gradient: %v", name, err)
		}
	}

	y := torch.Ones([]int{4}).RequiresGrad_(true)
	gs, err := torch.Grad([]*torch.Tensor{y.MulScalar(2).Relu().MulScalar(3).Sum()}, []*torch.Tensor{y}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := torch.ToSlice[float32](gs[0]); err != nil || got[0] != 6 {
		t.Errorf("Grad = %v, %v", got, err)
	}
}
