package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestKthvalueAndModeTieIndices checks the indices kthvalue and mode pick
// among ties in a 30-element slice against PyTorch 1.13's CPU (written
// below from torch.kthvalue and torch.mode), where a stable sort's choice
// (the previous composition) differs: kthvalue's quickselect and mode's
// std::sort (introsort beyond 16 elements) leave other copies in place.
func TestKthvalueAndModeTieIndices(t *testing.T) {
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = float64(i * 7 % 5)
	}
	x := torch.FromSlice(xs)
	for _, c := range []struct{ k, want, stable int }{{1, 25, 0}, {7, 23, 3}, {13, 11, 1}, {30, 22, 27}} {
		v, i := x.Kthvalue(c.k, 0, false)
		if got := valuesOf(t, i)[0]; got != float64(c.want) {
			t.Errorf("kthvalue k=%d: index %v, want PyTorch's %d (a stable sort gives %d)", c.k, got, c.want, c.stable)
		}
		if got := valuesOf(t, v)[0]; got != xs[c.want] {
			t.Errorf("kthvalue k=%d: value %v, want %v", c.k, got, xs[c.want])
		}
	}
	v, i := x.Mode(0, false)
	if got := valuesOf(t, i)[0]; got != 15 || valuesOf(t, v)[0] != 0 {
		t.Errorf("mode %v at %v, want PyTorch's 0 at 15 (the last 0 is at 25)", valuesOf(t, v), got)
	}
	// The same on a strided view along dim 0, with keepdim.
	x2 := torch.FromSlice(append(append([]float64(nil), xs...), xs...), torch.WithShape(2, 30)).Transpose(0, 1)
	_, i = x2.Kthvalue(13, 0, true)
	if got := valuesOf(t, i); len(got) != 2 || got[0] != 11 || got[1] != 11 {
		t.Errorf("kthvalue along dim 0 of a transposed view: %v, want [11 11]", got)
	}
}

// TestCumprodBackwardOnMeta checks that cumprod's derivative runs on the
// meta device (it looks for zeros in the input elsewhere), giving the
// input's shape and dtype, as PyTorch's meta tensors do, with and without
// a graph of the backward pass.
func TestCumprodBackwardOnMeta(t *testing.T) {
	for _, create := range []bool{false, true} {
		x := torch.Ones([]int{2, 3}, torch.WithDevice("meta")).RequiresGrad_(true)
		y := x.Cumprod(1)
		g, err := torch.Grad([]*torch.Tensor{y.Sum()}, []*torch.Tensor{x}, torch.GradOptions{CreateGraph: create})
		if err != nil {
			t.Fatalf("cumprod backward on meta (create graph %v): %v", create, err)
		}
		if g[0].Device().String() != "meta" || g[0].DType() != torch.Float32 || len(g[0].Shape()) != 2 ||
			g[0].Shape()[0] != 2 || g[0].Shape()[1] != 3 {
			t.Errorf("cumprod gradient on meta: %v %v on %v, want float32 [2 3] on meta", g[0].DType(), g[0].Shape(), g[0].Device())
		}
	}
	// The formula on data devices is unchanged: through a zero, exactly.
	x := torch.FromSlice([]float64{2, 0, 3}).RequiresGrad_(true)
	g, err := torch.Grad([]*torch.Tensor{x.Cumprod(0).Sum()}, []*torch.Tensor{x}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// d/dx of x0 + x0 x1 + x0 x1 x2 at (2, 0, 3): (1 + x1 + x1 x2, x0 + x0 x2, x0 x1).
	if got := valuesOf(t, g[0]); got[0] != 1 || got[1] != 8 || got[2] != 0 {
		t.Errorf("cumprod gradient through a zero: %v, want [1 8 0]", got)
	}
}
