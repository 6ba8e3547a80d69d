package torch_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func leaf(shape ...int) *torch.Tensor {
	return torch.Randn(shape, torch.WithDType(torch.Float64)).RequiresGrad_(true)
}

func positive(shape ...int) *torch.Tensor {
	return torch.Rand(shape, torch.WithDType(torch.Float64)).AddScalar(0.5).Detach().RequiresGrad_(true)
}

func TestGradCheckOps(t *testing.T) {
	torch.ManualSeed(1)
	type fn = func(in ...*torch.Tensor) *torch.Tensor
	cases := []struct {
		name   string
		f      fn
		inputs []*torch.Tensor
	}{
		{"add broadcast", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Add(in[1]) }, []*torch.Tensor{leaf(2, 3), leaf(3)}},
		{"sub alpha", func(in ...*torch.Tensor) *torch.Tensor { return in[0].SubAlpha(in[1], 2.5) }, []*torch.Tensor{leaf(2, 1), leaf(1, 3)}},
		{"mul transposed", func(in ...*torch.Tensor) *torch.Tensor { return in[0].T().Mul(in[1]) }, []*torch.Tensor{leaf(3, 2), leaf(2, 3)}},
		{"div", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Div(in[1]) }, []*torch.Tensor{leaf(2, 3), positive(3)}},
		{"pow tensor", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Pow(in[1]) }, []*torch.Tensor{positive(2, 3), leaf(2, 3)}},
		{"pow scalar", func(in ...*torch.Tensor) *torch.Tensor { return in[0].PowScalar(3) }, []*torch.Tensor{leaf(4)}},
		{"maximum", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Maximum(in[1]) }, []*torch.Tensor{leaf(5), leaf(5)}},
		{"atan2", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Atan2(in[1]) }, []*torch.Tensor{leaf(4), positive(4)}},
		{"scalar ops", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(3).AddScalar(1).DivScalar(2).SubScalar(0.5)
		}, []*torch.Tensor{leaf(2, 2)}},
		{"exp log sqrt", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Exp().Add(in[0].Log()).Add(in[0].Sqrt()) }, []*torch.Tensor{positive(4)}},
		{"trig", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Sin().Add(in[0].Cos()).Add(in[0].Tan()).Add(in[0].Atan())
		}, []*torch.Tensor{leaf(4)}},
		{"hyperbolic", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Sinh().Add(in[0].Cosh()).Add(in[0].Tanh()) }, []*torch.Tensor{leaf(4)}},
		{"activations", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Sigmoid().Add(in[0].Gelu()).Add(in[0].GeluTanh()).Add(in[0].Silu()).Add(in[0].Softplus(1, 20)).Add(in[0].Elu(1))
		}, []*torch.Tensor{leaf(6)}},
		{"relu leaky erf", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Relu().Add(in[0].LeakyRelu(0.1)).Add(in[0].Erf())
		}, []*torch.Tensor{leaf(6)}},
		{"abs square reciprocal rsqrt", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Abs().Add(in[0].Square()).Add(in[0].Reciprocal()).Add(in[0].Rsqrt())
		}, []*torch.Tensor{positive(4)}},
		{"clamp", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Clamp(-0.5, 0.5) }, []*torch.Tensor{leaf(8)}},
		{"where", func(in ...*torch.Tensor) *torch.Tensor { return torch.Where(in[0].GtScalar(0), in[0], in[1]) }, []*torch.Tensor{leaf(2, 3), leaf(3)}},
		{"masked_fill", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MaskedFill(in[0].GtScalar(0), 2) }, []*torch.Tensor{leaf(5)}},
		{"sum dims", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Sum(0, 2) }, []*torch.Tensor{leaf(2, 3, 2)}},
		{"sum keepdim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].SumKeepDim(-1) }, []*torch.Tensor{leaf(2, 3)}},
		{"mean", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Mean(1) }, []*torch.Tensor{leaf(2, 3)}},
		{"mean all 0-dim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Mean() }, []*torch.Tensor{leaf(2, 3)}},
		{"prod", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Prod(0) }, []*torch.Tensor{positive(3, 2)}},
		{"amax", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Amax(1) }, []*torch.Tensor{leaf(3, 4)}},
		{"max dim", func(in ...*torch.Tensor) *torch.Tensor { v, _ := in[0].MaxDim(1, false); return v }, []*torch.Tensor{leaf(3, 4)}},
		{"var std", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Var(1).Add(in[0].Std(1)) }, []*torch.Tensor{leaf(3, 4)}},
		{"norm", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Norm(2, 1).Add(in[0].Norm(3, 1)) }, []*torch.Tensor{leaf(3, 4)}},
		{"logsumexp", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LogSumExp(1) }, []*torch.Tensor{leaf(3, 4)}},
		{"softmax", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Softmax(1) }, []*torch.Tensor{leaf(2, 4)}},
		{"log_softmax dim 0", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LogSoftmax(0) }, []*torch.Tensor{leaf(3, 2)}},
		{"cumsum", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cumsum(1) }, []*torch.Tensor{leaf(2, 4)}},
		{"mm", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Mm(in[1]) }, []*torch.Tensor{leaf(2, 3), leaf(3, 4)}},
		{"matmul 1-D", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MatMul(in[1]) }, []*torch.Tensor{leaf(3), leaf(3, 2)}},
		{"matmul batched broadcast", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MatMul(in[1]) }, []*torch.Tensor{leaf(2, 1, 2, 3), leaf(3, 3, 2)}},
		{"dot", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Dot(in[1]) }, []*torch.Tensor{leaf(4), leaf(4)}},
		{"addmm", func(in ...*torch.Tensor) *torch.Tensor { return torch.Addmm(in[0], in[1], in[2], 0.5, 2) }, []*torch.Tensor{leaf(4), leaf(2, 3), leaf(3, 4)}},
		{"linear", func(in ...*torch.Tensor) *torch.Tensor { return torch.Linear(in[0], in[1], in[2]) }, []*torch.Tensor{leaf(2, 3), leaf(4, 3), leaf(4)}},
		{"views", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Permute(2, 0, 1).Reshape(3, 4).Transpose(0, 1).Narrow(0, 1, 2).Unsqueeze(0).Squeeze()
		}, []*torch.Tensor{leaf(2, 2, 3)}},
		{"select slice step", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Select(1, 2).Add(in[0].Slice(1, 0, 5, 2).Sum(1)) }, []*torch.Tensor{leaf(3, 5)}},
		{"expand", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Expand(2, 3, 4).Mul(in[1]) }, []*torch.Tensor{leaf(3, 1), leaf(2, 3, 4)}},
		{"as_strided overlapping", func(in ...*torch.Tensor) *torch.Tensor { return in[0].AsStrided([]int{3, 2}, []int{1, 1}, 0) }, []*torch.Tensor{leaf(4)}},
		{"cat stack", func(in ...*torch.Tensor) *torch.Tensor {
			return torch.Cat([]*torch.Tensor{in[0], in[1]}, 1).Add(torch.Stack([]*torch.Tensor{in[0], in[0]}, 1).Reshape(2, 4).Narrow(1, 0, 3))
		}, []*torch.Tensor{leaf(2, 2), leaf(2, 1)}},
		{"gather index_select embedding", func(in ...*torch.Tensor) *torch.Tensor {
			idx := torch.FromSlice([]int64{0, 2, 2, 1}).Reshape(2, 2)
			return in[0].Gather(1, idx).Sum().Add(in[0].IndexSelect(0, torch.FromSlice([]int64{1, 1})).Sum()).Add(torch.Embedding(idx, in[0]).Sum())
		}, []*torch.Tensor{leaf(3, 3)}},
		{"flip clone contiguous", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Flip(0).T().Contiguous().Clone() }, []*torch.Tensor{leaf(2, 3)}},
		{"cross entropy", func(in ...*torch.Tensor) *torch.Tensor {
			target := torch.FromSlice([]int64{1, 0, 3}).Reshape(3, 1)
			return in[0].LogSoftmax(1).Gather(1, target).Mean().Neg()
		}, []*torch.Tensor{leaf(3, 4)}},
		{"0-dim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Mul(in[1]).Exp() }, []*torch.Tensor{leaf(), leaf(3)}},
		{"sort topk values", func(in ...*torch.Tensor) *torch.Tensor {
			s, _ := in[0].Sort(1, true)
			k, _ := in[0].Topk(2, 0, false)
			return s.Sum(0).Add(k.Sum(0))
		}, []*torch.Tensor{leaf(3, 4)}},
		{"scatter", func(in ...*torch.Tensor) *torch.Tensor {
			idx := torch.FromSlice([]int64{2, 0, 1, 0}).Reshape(2, 2)
			return in[0].Scatter(1, idx, in[1].Narrow(1, 0, 2)).Add(in[0].ScatterValue(0, idx, 1.5).Narrow(0, 0, 3))
		}, []*torch.Tensor{leaf(3, 3), leaf(2, 3)}},
		{"scatter_add scatter_reduce sum", func(in ...*torch.Tensor) *torch.Tensor {
			idx := torch.FromSlice([]int64{2, 0, 2, 2, 1, 0}).Reshape(2, 3)
			return in[0].ScatterAdd(1, idx, in[1]).Add(in[0].ScatterReduce(1, idx, in[1], "sum", false))
		}, []*torch.Tensor{leaf(2, 3), leaf(2, 3)}},
		{"index_add", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].IndexAdd(0, torch.FromSlice([]int64{1, 1, 0}), in[1], 2.5)
		}, []*torch.Tensor{leaf(2, 2), leaf(3, 2)}},
		{"masked_select index", func(in ...*torch.Tensor) *torch.Tensor {
			mask := torch.FromSlice([]bool{true, false, true})
			return in[0].MaskedSelect(mask).Sum().Add(in[0].Index(torch.FromSlice([]int64{-1, 0})).Sum()).
				Add(in[0].Index(torch.FromSlice([]bool{false, true})).Sum())
		}, []*torch.Tensor{leaf(2, 3)}},
		{"lerp", func(in ...*torch.Tensor) *torch.Tensor {
			return torch.Lerp(in[0], in[1], in[2]).Add(torch.LerpScalar(in[0], in[1], 0.3))
		}, []*torch.Tensor{leaf(2, 3), leaf(3), leaf(2, 1)}},
		{"clamp tensor bounds", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].ClampTensor(in[1], in[1].AddScalar(0.8))
		}, []*torch.Tensor{leaf(3, 4), leaf(4)}},
		{"cumprod", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cumprod(1) }, []*torch.Tensor{leaf(2, 4)}},
		{"cumprod through a zero", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Mul(torch.FromSlice([]float64{1, 0, 1, 1, 0})).Cumprod(0)
		}, []*torch.Tensor{leaf(5)}},
		{"roll repeat tile", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Roll([]int{1}, 1).Repeat(2, 1).Add(in[0].Tile(2, 1)).Sum(0).Add(in[0].RepeatInterleave(2, 1).Narrow(1, 0, 3).Sum(0))
		}, []*torch.Tensor{leaf(2, 3)}},
		{"tril triu diag", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Tril(0).Add(in[0].Triu(1).MulScalar(2)).Add(in[0].Diag(0).Diag(0))
		}, []*torch.Tensor{leaf(3, 3)}},
		{"split chunk unbind", func(in ...*torch.Tensor) *torch.Tensor {
			s, _ := in[0].Split(2, 1)
			c, _ := in[0].Chunk(2, 0)
			u, _ := in[0].Unbind(0)
			return s[0].Sum().Add(s[1].Exp().Sum()).Add(c[1].Sum()).Add(u[0].Sin().Sum())
		}, []*torch.Tensor{leaf(2, 4)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := torch.GradCheck(tc.f, tc.inputs, torch.GradCheckOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestBackwardAccumulatesIntoLeaves(t *testing.T) {
	x := torch.FromSlice([]float64{1, 2, 3}).RequiresGrad_(true)
	for range 2 {
		y := x.Mul(x).Sum() // dy/dx = 2x
		if err := y.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := torch.ToSlice[float64](x.Grad())
	if want := []float64{4, 8, 12}; !equalF(got, want) {
		t.Errorf("grad after two passes = %v, want %v", got, want)
	}
	if !x.IsLeaf() || x.Mul(x).IsLeaf() || x.Mul(x).GradFn().Name() != "MulBackward0" {
		t.Error("IsLeaf / GradFn wrong")
	}
}

func TestBackwardErrors(t *testing.T) {
	x := torch.Ones([]int{3}).RequiresGrad_(true)
	if err := x.MulScalar(2).Backward(); err == nil || !strings.Contains(err.Error(), "scalar outputs") {
		t.Errorf("non-scalar backward: %v", err)
	}
	if err := torch.Ones([]int{1}).Backward(); err == nil || !strings.Contains(err.Error(), "does not require grad") {
		t.Errorf("backward of a tensor without grad: %v", err)
	}
	y := x.Exp().Sum()
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	if err := y.Backward(); !errors.Is(err, autogradFreed()) {
		t.Errorf("second backward: %v", err)
	}
	z := x.Exp().Sum()
	if err := z.BackwardWith(torch.BackwardOptions{RetainGraph: true}); err != nil {
		t.Fatal(err)
	}
	if err := z.Backward(); err != nil {
		t.Errorf("backward after retain_graph: %v", err)
	}
	if r := x.AddScalar_(1); !errors.Is(r.Err(), torch.ErrAutograd) || !strings.Contains(r.Err().Error(), "leaf Variable") {
		t.Errorf("in-place on a leaf: %v", r.Err())
	}
}

func TestInPlaceAfterSaveIsDetected(t *testing.T) {
	x := torch.Ones([]int{3}).RequiresGrad_(true)
	y := x.MulScalar(2)
	z := y.Exp() // saves its output
	z.MulScalar_(3)
	err := z.Sum().Backward()
	if err == nil || !strings.Contains(err.Error(), "modified by an inplace operation") {
		t.Errorf("backward through a modified saved tensor: %v", err)
	}
	// In-place on a non-leaf with nothing saved is fine and differentiable.
	a := torch.FromSlice([]float64{1, 2}).RequiresGrad_(true)
	b := a.MulScalar(1)
	b.MulScalar_(3).AddScalar_(1)
	if err := b.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	got, _ := torch.ToSlice[float64](a.Grad())
	if !equalF(got, []float64{3, 3}) {
		t.Errorf("grad through in-place ops = %v, want [3 3]", got)
	}
}

func TestGradDoesNotTouchGrad(t *testing.T) {
	x := torch.FromSlice([]float64{2}).RequiresGrad_(true)
	y := x.PowScalar(3)
	g, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x}, torch.GradOptions{CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	if x.Grad() != nil {
		t.Error("Grad wrote into x.Grad()")
	}
	if v, _ := g[0].Item(); v != 12 {
		t.Errorf("dy/dx = %v, want 12", v)
	}
	// Second derivative through create_graph: d2y/dx2 = 6x = 12.
	g2, err := torch.Grad([]*torch.Tensor{g[0]}, []*torch.Tensor{x}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := g2[0].Item(); v != 12 {
		t.Errorf("d2y/dx2 = %v, want 12", v)
	}
	// tanh: d2/dx2 tanh = -2 tanh (1 - tanh^2).
	th := x.Tanh()
	d1, _ := torch.Grad([]*torch.Tensor{th}, []*torch.Tensor{x}, torch.GradOptions{CreateGraph: true})
	d2, err := torch.Grad([]*torch.Tensor{d1[0]}, []*torch.Tensor{x}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tv, _ := th.Item()
	if v, _ := d2[0].Item(); !closeTo(v, -2*tv*(1-tv*tv)) {
		t.Errorf("tanh'' = %v, want %v", v, -2*tv*(1-tv*tv))
	}
}

func TestHooksAndRetainGrad(t *testing.T) {
	x := torch.FromSlice([]float64{1, 2}).RequiresGrad_(true)
	y := x.MulScalar(3).RetainGrad()
	var seen *torch.Tensor
	if err := y.RegisterHook(func(g *torch.Tensor) *torch.Tensor { seen = g; return g.MulScalar(2) }); err != nil {
		t.Fatal(err)
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if seen == nil {
		t.Fatal("hook not called")
	}
	got, _ := torch.ToSlice[float64](x.Grad())
	if !equalF(got, []float64{6, 6}) {
		t.Errorf("x.grad with a doubling hook = %v, want [6 6]", got)
	}
	if y.Grad() == nil {
		t.Error("RetainGrad kept no gradient")
	}
}

func TestDeepChain(t *testing.T) {
	x := torch.FromSlice([]float64{1}).RequiresGrad_(true)
	y := x
	for range 100_000 {
		y = y.AddScalar(1)
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if v, _ := x.Grad().Item(); v != 1 {
		t.Errorf("grad through 100000 ops = %v", v)
	}
}

func TestConcurrentBackward(t *testing.T) {
	w := torch.Ones([]int{4, 4}, torch.WithDType(torch.Float64)).RequiresGrad_(true)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				x := torch.Ones([]int{2, 4}, torch.WithDType(torch.Float64))
				if err := x.MatMul(w).Tanh().Sum().Backward(); err != nil {
					t.Error(err)
				}
				// Inference on detached parameters never records.
				if y := x.MatMul(w.Detach()); y.RequiresGrad() {
					t.Error("a detached parameter recorded")
				}
			}
		})
	}
	wg.Wait()
	one := torch.Ones([]int{2, 4}, torch.WithDType(torch.Float64)).MatMul(w.Detach()).Tanh()
	d := one.Mul(one).Neg().AddScalar(1).Sum(0).Unsqueeze(0).Expand(4, 4).MulScalar(160) // 8*20 passes
	if !torch.AllClose(w.Grad(), d, 1e-9, 1e-9, false) {
		t.Errorf("accumulated gradient from concurrent passes is wrong")
	}
}

func TestNoGrad(t *testing.T) {
	x := torch.Ones([]int{2}).RequiresGrad_(true)
	var y *torch.Tensor
	torch.NoGrad(func() { y = x.MulScalar(2) })
	if y.RequiresGrad() || y.GradFn() != nil {
		t.Error("NoGrad recorded")
	}
	torch.NoGrad(func() { torch.EnableGrad(func() { y = x.MulScalar(2) }) })
	if !y.RequiresGrad() {
		t.Error("EnableGrad inside NoGrad did not record")
	}
	if !torch.IsGradEnabled() {
		t.Error("grad mode not restored")
	}
	if x.Gt(x).RequiresGrad() || x.Argmax().RequiresGrad() {
		t.Error("bool and integer outputs must not require grad")
	}
}

func BenchmarkAddSumBackward2x2(b *testing.B) {
	x := torch.Ones([]int{2, 2}).RequiresGrad_(true)
	y := torch.Ones([]int{2, 2}).RequiresGrad_(true)
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Add(y).Sum().Backward(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAdd2x2Recording(b *testing.B) {
	x := torch.Ones([]int{2, 2}).RequiresGrad_(true)
	y := torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Add(y)
	}
}

// The same while another goroutine runs inside NoGrad: the grad mode is
// then looked up by goroutine (see pkg/autograd).
func BenchmarkAdd2x2RecordingWhileAnotherGoroutineServes(b *testing.B) {
	stop, started := make(chan struct{}), make(chan struct{})
	go torch.NoGrad(func() { close(started); <-stop })
	<-started
	defer close(stop)
	BenchmarkAdd2x2Recording(b)
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !closeTo(a[i], b[i]) {
			return false
		}
	}
	return true
}

func closeTo(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestGradCheckFindsWrongGradients(t *testing.T) {
	// Detach hides one path from autograd: the analytic gradient is x, the
	// numerical one 2x.
	f := func(in ...*torch.Tensor) *torch.Tensor { return in[0].Detach().Mul(in[0]) }
	if err := torch.GradCheck(f, []*torch.Tensor{positive(3)}, torch.GradCheckOptions{}); err == nil {
		t.Error("GradCheck accepted a wrong gradient")
	}
}

func TestInPlaceOnViewOfLeafIsRefused(t *testing.T) {
	x := torch.Ones([]int{3}).RequiresGrad_(true)
	err := x.Narrow(0, 0, 2).MulScalar_(2).Err()
	if !errors.Is(err, torch.ErrAutograd) || !strings.Contains(err.Error(), "a view of a leaf Variable") {
		t.Errorf("in-place on a view of a leaf: %v", err)
	}
	torch.NoGrad(func() {
		if err := x.Narrow(0, 0, 2).MulScalar_(2).Err(); err != nil {
			t.Errorf("under NoGrad: %v", err)
		}
	})
}

func TestFillCutsHistory(t *testing.T) {
	a := torch.FromSlice([]float64{1, 2}).RequiresGrad_(true)
	h := a.MulScalar(2)
	h.Fill_(5)
	if err := h.Sum().Backward(); err == nil {
		t.Fatal("backward through a filled tensor that needs no grad must fail")
	}
	h = a.MulScalar(2)
	h.Select(0, 1).Fill_(5) // only element 1 loses its history
	if err := h.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	got, _ := torch.ToSlice[float64](a.Grad())
	if want := []float64{2, 0}; !equalF(got, want) {
		t.Errorf("grad = %v, want %v", got, want)
	}
}

// An op saves only what its derivative reads (as PyTorch): writing in
// place into an input of add is fine, into an input of mul is an error.
func TestInPlaceAfterUseNeedsSavedValue(t *testing.T) {
	x := torch.FromSlice([]float64{1, 2}).RequiresGrad_(true)
	y := x.MulScalar(2)
	z := y.Add(x).AddScalar(1).Sum()
	y.AddScalar_(5)
	if err := z.Backward(); err != nil {
		t.Errorf("add does not read its inputs: %v", err)
	}
	y = x.MulScalar(2)
	z = y.Sum().Add(y.Mean())
	y.AddScalar_(5)
	if err := z.Backward(); err != nil {
		t.Errorf("sum and mean do not read their input: %v", err)
	}
	y = x.MulScalar(2)
	z = y.Mul(x).Sum()
	y.AddScalar_(5)
	if err := z.Backward(); err == nil || !strings.Contains(err.Error(), "modified by an inplace operation") {
		t.Errorf("mul reads its inputs: %v", err)
	}
}

// TestGradFnNames checks the names of recorded nodes against PyTorch 1.13's
// grad_fn.name() for the same expressions.
func TestGradFnNames(t *testing.T) {
	x := torch.Ones([]int{2, 3}).RequiresGrad_(true)
	y := torch.Ones([]int{2, 3})
	cases := []struct {
		name string
		out  *torch.Tensor
		want string
	}{
		{"add", x.Add(y), "AddBackward0"},
		{"sub", x.Sub(y), "SubBackward0"},
		{"add scalar", x.AddScalar(1), "AddBackward0"}, // x + 1 in Python
		{"sub scalar", x.SubScalar(1), "SubBackward0"},
		{"mul scalar", x.MulScalar(2), "MulBackward0"},
		{"div scalar", x.DivScalar(2), "DivBackward0"},
		{"pow scalar", x.PowScalar(2), "PowBackward0"},
		{"pow tensor", x.Pow(y), "PowBackward1"},
		{"clamp", x.Clamp(0, 1), "ClampBackward1"},
		{"prod dim", x.Prod(0), "ProdBackward1"},
		{"norm", x.Norm(2), "NormBackward1"},
		{"sum", x.Sum(), "SumBackward0"},
		{"sum dim", x.Sum(0), "SumBackward1"},
		{"sum keepdim", x.SumKeepDim(1), "SumBackward1"},
		{"mean", x.Mean(), "MeanBackward0"},
		{"mean dim", x.Mean(0), "MeanBackward1"},
		{"mul", x.Mul(y), "MulBackward0"},
		{"relu", x.Relu(), "ReluBackward0"},
		{"amax", x.Amax(), "AmaxBackward0"},
		{"prod", x.Prod(), "ProdBackward0"},
	}
	for _, c := range cases {
		if c.out.Err() != nil {
			t.Errorf("%s: %v", c.name, c.out.Err())
			continue
		}
		if got := c.out.GradFn().Name(); got != c.want {
			t.Errorf("%s: grad_fn %s, want %s", c.name, got, c.want)
		}
	}
}

// TestLinearNodesKeepLongShapes records add, sub, sum and mean whose kept
// shapes and dims do not fit in the node's inline space.
func TestLinearNodesKeepLongShapes(t *testing.T) {
	x := torch.Ones([]int{2, 1, 3, 1}).RequiresGrad_(true)
	y := torch.Ones([]int{1, 4, 1, 5}).RequiresGrad_(true)
	z := torch.Ones([]int{2, 3, 4}).RequiresGrad_(true)
	loss := x.Add(y).SubAlpha(torch.Ones([]int{4, 1, 5}), 2).Sum(0, 2).Sum().
		Add(z.Mean(0, 2).Sum()).Add(z.SumKeepDim(1).Mean())
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	check := func(name string, g *torch.Tensor, shape []int, want float64) {
		t.Helper()
		v, err := torch.ToSlice[float32](g)
		if err != nil || !slices.Equal(g.Shape(), shape) {
			t.Fatalf("%s: grad %v (shape %v), want shape %v", name, err, g.Shape(), shape)
		}
		for _, e := range v {
			if math.Abs(float64(e)-want) > 1e-6 {
				t.Fatalf("%s: grad %v, want all %v", name, v, want)
			}
		}
	}
	check("x", x.Grad(), []int{2, 1, 3, 1}, 20) // broadcast over 4 x 5
	check("y", y.Grad(), []int{1, 4, 1, 5}, 6)  // over 2 x 3
	check("z", z.Grad(), []int{2, 3, 4}, 1.0/8+1.0/8)
}

// TestScatterGradOfALargerSrc checks the gradient of a scatter's src when
// the index is smaller than src: the elements of src that were not read
// get zeros (PyTorch 1.13 fails in backward here).
func TestScatterGradOfALargerSrc(t *testing.T) {
	index := torch.FromSlice([]int64{2, 0, 1, 2}, torch.WithShape(2, 2))
	for _, op := range []struct {
		name string
		f    func(x, src *torch.Tensor) *torch.Tensor
	}{
		{"Scatter", func(x, src *torch.Tensor) *torch.Tensor { return x.Scatter(1, index, src) }},
		{"ScatterAdd", func(x, src *torch.Tensor) *torch.Tensor { return x.ScatterAdd(1, index, src) }},
		{"ScatterReduce", func(x, src *torch.Tensor) *torch.Tensor { return x.ScatterReduce(1, index, src, "sum", true) }},
	} {
		src := torch.Arange(6, torch.WithDType(torch.Float64)).View(2, 3).RequiresGrad_(true)
		y := op.f(torch.Zeros([]int{2, 3}, torch.WithDType(torch.Float64)), src)
		if err := y.MulScalar(3).Sum().Backward(); err != nil {
			t.Fatalf("%s: Backward: %v", op.name, err)
		}
		if diff := cmp.Diff([]float64{3, 3, 0, 3, 3, 0}, values(t, src.Grad())); diff != "" {
			t.Errorf("%s: src's gradient (-want +got):\n%s", op.name, diff)
		}
	}
}
