package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The golden values of these ops are in reductions_golden_test.go; these
// tests check gradients, PyTorch's choices where the golden data cannot
// (ties PyTorch leaves to its algorithms), accuracy and errors.

func TestReduceMoreGradCheck(t *testing.T) {
	first := func(v, _ *torch.Tensor) *torch.Tensor { return v }
	second := func(_, m *torch.Tensor) *torch.Tensor { return m }
	withNaN := func(in *torch.Tensor) *torch.Tensor { // a NaN at [0, 1] that the op must skip
		mask := torch.FromSlice([]bool{false, true, false, false, false, false}, torch.WithShape(2, 3))
		return in.MaskedFill(mask, math.NaN())
	}
	cases := []struct {
		name   string
		f      func(in ...*torch.Tensor) *torch.Tensor
		inputs []*torch.Tensor
	}{
		{"nansum", func(in ...*torch.Tensor) *torch.Tensor { return withNaN(in[0]).Nansum(1) }, []*torch.Tensor{leaf(2, 3)}},
		{"nansum all", func(in ...*torch.Tensor) *torch.Tensor { return withNaN(in[0]).NansumKeepDim() }, []*torch.Tensor{leaf(2, 3)}},
		{"nanmean", func(in ...*torch.Tensor) *torch.Tensor { return withNaN(in[0]).Nanmean(1) }, []*torch.Tensor{leaf(2, 3)}},
		{"nanmean keepdim", func(in ...*torch.Tensor) *torch.Tensor { return withNaN(in[0]).NanmeanKeepDim(0) }, []*torch.Tensor{leaf(2, 3)}},
		{"var_mean var", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].VarMean(1, false, 1)) }, []*torch.Tensor{leaf(3, 4)}},
		{"var_mean mean", func(in ...*torch.Tensor) *torch.Tensor { return second(in[0].VarMean(0, true, 0)) }, []*torch.Tensor{leaf(3, 4)}},
		{"std_mean std", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].StdMean(1, true)) }, []*torch.Tensor{leaf(3, 4)}},
		{"std_mean mean", func(in ...*torch.Tensor) *torch.Tensor { return second(in[0].StdMean(2, false, 1)) }, []*torch.Tensor{leaf(3, 4)}},
		{"aminmax min", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].Aminmax(nil, false)) }, []*torch.Tensor{leaf(3, 4)}},
		{"aminmax max dim", func(in ...*torch.Tensor) *torch.Tensor {
			d := 1
			return second(in[0].Aminmax(&d, true))
		}, []*torch.Tensor{leaf(3, 4)}},
		{"median", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Median() }, []*torch.Tensor{leaf(3, 4)}},
		{"nanmedian", func(in ...*torch.Tensor) *torch.Tensor { return withNaN(in[0]).Nanmedian() }, []*torch.Tensor{leaf(2, 3)}},
		{"median dim", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].MedianDim(1, false)) }, []*torch.Tensor{leaf(3, 4)}},
		{"nanmedian dim", func(in ...*torch.Tensor) *torch.Tensor { return first(withNaN(in[0]).NanmedianDim(1, true)) }, []*torch.Tensor{leaf(2, 3)}},
		{"kthvalue", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].Kthvalue(3, 0, false)) }, []*torch.Tensor{leaf(4, 3)}},
		{"mode", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].Mode(1, true)) }, []*torch.Tensor{leaf(3, 4)}},
		{"cummax", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].Cummax(1)) }, []*torch.Tensor{leaf(3, 7)}},
		{"cummin", func(in ...*torch.Tensor) *torch.Tensor { return first(in[0].Cummin(0)) }, []*torch.Tensor{leaf(5, 2)}},
		{"logcumsumexp", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Logcumsumexp(1) }, []*torch.Tensor{leaf(3, 7)}},
		{"logcumsumexp far apart", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Add(torch.FromSlice([]float64{-30, 0, -60, 5, 40})).Logcumsumexp(0)
		}, []*torch.Tensor{leaf(5)}},
		{"cumsum dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].CumsumDType(torch.Float64, 1) }, []*torch.Tensor{leaf(2, 4)}},
		{"cumprod dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].CumprodDType(torch.Float64, 0) }, []*torch.Tensor{leaf(3, 2)}},
		{"softmax dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].SoftmaxDType(torch.Float64, 1) }, []*torch.Tensor{leaf(2, 4)}},
		{"log_softmax dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LogSoftmaxDType(torch.Float64, 0) }, []*torch.Tensor{leaf(3, 2)}},
		{"prod dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].ProdDType(torch.Float64, true, 1) }, []*torch.Tensor{leaf(2, 3)}},
		{"sum dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].SumDType(torch.Float64, false, 0) }, []*torch.Tensor{leaf(2, 3)}},
		{"mean dtype", func(in ...*torch.Tensor) *torch.Tensor { return in[0].MeanDType(torch.Float64, false) }, []*torch.Tensor{leaf(2, 3)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := torch.GradCheck(tc.f, tc.inputs, torch.GradCheckOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
}

// gradOf returns the gradient of f(x).Sum() at x, and the name of the
// node f's result has.
func gradOf(t *testing.T, x []float64, f func(x *torch.Tensor) *torch.Tensor) ([]float64, string) {
	t.Helper()
	leaf := torch.FromSlice(x).RequiresGrad_(true)
	y := f(leaf)
	name := ""
	if y.GradFn() != nil {
		name = y.GradFn().Name()
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	g, err := torch.ToSlice[float64](leaf.Grad())
	if err != nil {
		t.Fatal(err)
	}
	return g, name
}

// TestReduceMoreGradsLikePyTorch checks the gradients that go to selected
// elements against PyTorch 1.13's, on ties and NaN.
func TestReduceMoreGradsLikePyTorch(t *testing.T) {
	x := []float64{1, 2, 2, 3, 2}
	third := 1.0 / 3
	nan := math.NaN()
	cases := []struct {
		name  string
		x     []float64
		f     func(x *torch.Tensor) *torch.Tensor
		want  []float64
		named string
	}{
		// median() shares among the elements equal to the median.
		{"median", x, (*torch.Tensor).Median, []float64{0, third, third, 0, third}, "MedianBackward0"},
		{"nanmedian", x, (*torch.Tensor).Nanmedian, []float64{0, third, third, 0, third}, "NanmedianBackward0"},
		{"median of NaNs", []float64{1, nan, 2, nan}, (*torch.Tensor).Median, []float64{0, 0.5, 0, 0.5}, "MedianBackward0"},
		// Along a dim, all to the index returned.
		{"median dim", x, func(x *torch.Tensor) *torch.Tensor { v, _ := x.MedianDim(0, false); return v },
			[]float64{0, 0, 1, 0, 0}, "MedianBackward1"},
		// kthvalue's quickselect leaves the 2 at index 2 in position 1.
		{"kthvalue", x, func(x *torch.Tensor) *torch.Tensor { v, _ := x.Kthvalue(2, 0, false); return v },
			[]float64{0, 0, 1, 0, 0}, "KthvalueBackward0"},
		{"mode", x, func(x *torch.Tensor) *torch.Tensor { v, _ := x.Mode(0, false); return v },
			[]float64{0, 0, 0, 0, 1}, "ModeBackward0"},
		{"cummax", x, func(x *torch.Tensor) *torch.Tensor { v, _ := x.Cummax(0); return v },
			[]float64{1, 1, 1, 2, 0}, "CummaxBackward0"},
		{"cummin", []float64{3, 1, 1, 2}, func(x *torch.Tensor) *torch.Tensor { v, _ := x.Cummin(0); return v },
			[]float64{1, 1, 2, 0}, "CumminBackward0"},
		{"nansum", []float64{1, nan, 2}, func(x *torch.Tensor) *torch.Tensor { return x.Nansum() }, []float64{1, 0, 1}, ""},
		{"nanmean", []float64{1, nan, 2}, func(x *torch.Tensor) *torch.Tensor { return x.Nanmean() }, []float64{0.5, 0, 0.5}, ""},
		// aminmax shares among ties as amin and amax (PyTorch 1.13 has no
		// derivative; see Aminmax).
		{"aminmax", x, func(x *torch.Tensor) *torch.Tensor { lo, hi := x.Aminmax(nil, false); return lo.Add(hi) },
			[]float64{1, 0, 0, 1, 0}, ""},
		// Where PyTorch gives NaN for the leading -inf elements (its
		// formula takes exp(-inf + inf)), the gradient is the limit as
		// x0 = x1 go to -inf: y0 = x0 gives x0 1, y1 = logaddexp(x0, x1)
		// shares 1 evenly, y2 = 0 takes nothing from them.
		{"logcumsumexp -inf", []float64{math.Inf(-1), math.Inf(-1), 0}, func(x *torch.Tensor) *torch.Tensor { return x.Logcumsumexp(0) },
			[]float64{1.5, 0.5, 1}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, name := gradOf(t, tc.x, tc.f)
			if !equalF(got, tc.want) {
				t.Errorf("grad %v, want %v", got, tc.want)
			}
			if tc.named != "" && name != tc.named {
				t.Errorf("node %q, want %q", name, tc.named)
			}
		})
	}
}

func valuesOf(t *testing.T, x *torch.Tensor) []float64 {
	t.Helper()
	v, err := torch.ToSlice[float64](x.ToDType(torch.Float64))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestNanmedianOfNaNsLikePyTorch checks the index of the median of a
// slice of NaNs, which PyTorch's std::nth_element decides (1.13's values
// for n = 1..19).
func TestNanmedianOfNaNsLikePyTorch(t *testing.T) {
	want := []float64{0, 0, 0, 2, 2, 3, 5, 6, 7, 8, 8, 9, 8, 9, 9, 10, 10, 11, 11}
	for n := 1; n <= len(want); n++ {
		x := torch.Full([]int{2, n}, math.NaN(), torch.WithDType(torch.Float32))
		v, i := x.NanmedianDim(1, false)
		if got := valuesOf(t, i); got[0] != want[n-1] || got[1] != want[n-1] {
			t.Errorf("n=%d: index %v, want %v", n, got, want[n-1])
		}
		if got := valuesOf(t, v); !math.IsNaN(got[0]) {
			t.Errorf("n=%d: value %v, want NaN", n, got)
		}
	}
}

// TestModeChoices checks Mode's choices against PyTorch 1.13's CPU (the
// golden data has more): the index std::sort leaves last in the run for a
// long slice, and NaN, which < cannot order, where std::sort leaves it.
func TestModeChoices(t *testing.T) {
	long := make([]float64, 40)
	for i := range long {
		long[i] = float64(i % 3) // 0 and 1 occur 14 times, 2 occurs 13 times
	}
	v, i := torch.FromSlice(long).Mode(0, false)
	if got := valuesOf(t, v); got[0] != 0 {
		t.Errorf("mode %v, want 0 (the smallest of the most frequent)", got)
	}
	if got := valuesOf(t, i); got[0] != 39 {
		t.Errorf("index %v, want 39 (the last 0)", got)
	}
	nan := math.NaN()
	// The insertion sort cannot move 3 past a NaN, so no run of 3s forms:
	// every run is of length 1 and the first, the NaN at 0, wins.
	v, i = torch.FromSlice([]float64{nan, 3, nan, 3, 1}).Mode(0, false)
	if got := valuesOf(t, v); !math.IsNaN(got[0]) || valuesOf(t, i)[0] != 0 {
		t.Errorf("mode %v at %v, want NaN at 0 (PyTorch's)", got, valuesOf(t, i))
	}
	v, i = torch.FromSlice([]float64{nan, nan}).Mode(0, false)
	if got := valuesOf(t, v); !math.IsNaN(got[0]) || valuesOf(t, i)[0] != 0 {
		t.Errorf("mode of NaNs %v at %v, want NaN at 0", got, valuesOf(t, i))
	}
}

// TestLogcumsumexpAccuracy checks prefixes far below the maximum, where
// exp of a global shift would underflow.
func TestLogcumsumexpAccuracy(t *testing.T) {
	cases := []struct{ x, want []float64 }{
		{[]float64{-1000, 0}, []float64{-1000, 0}},
		{[]float64{0, -1000, -1000}, []float64{0, 0, 0}},
		{[]float64{-1000, -1000}, []float64{-1000, -1000 + math.Ln2}},
		{[]float64{1e4, 1e4, -1e4}, []float64{1e4, 1e4 + math.Ln2, 1e4 + math.Ln2}},
		{[]float64{math.Inf(-1), math.Inf(-1), 1}, []float64{math.Inf(-1), math.Inf(-1), 1}},
	}
	for _, tc := range cases {
		for _, d := range []torch.DType{torch.Float64, torch.Float32} {
			got := valuesOf(t, torch.FromSlice(tc.x).ToDType(d).Logcumsumexp(0))
			for k := range got {
				if math.Abs(got[k]-tc.want[k]) > 1e-3*math.Max(1, math.Abs(tc.want[k])) && got[k] != tc.want[k] {
					t.Errorf("%v %v: got %v, want %v", d, tc.x, got, tc.want)
					break
				}
			}
		}
	}
}

// TestReduceMoreErrors checks PyTorch's messages, the op named, and that
// failed and nil inputs pass their error on.
func TestReduceMoreErrors(t *testing.T) {
	x := torch.Randn([]int{3, 4})
	ints := torch.Ones([]int{3}, torch.WithDType(torch.Int64))
	empty := torch.Zeros([]int{0, 3})
	dim := 0
	first := func(a, _ *torch.Tensor) *torch.Tensor { return a }
	second := func(_, b *torch.Tensor) *torch.Tensor { return b }
	cases := []struct {
		name string
		got  *torch.Tensor
		kind error
		msg  string
	}{
		{"nanmean int", ints.Nanmean(), torch.ErrDType, "nanmean(): expected input to have floating point dtype but got Long"},
		{"nansum dim", x.Nansum(2), torch.ErrIndex, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
		{"nansum dims twice", x.Nansum(0, -2), torch.ErrArgument, "dim 0 appears multiple times in the list of dims"},
		{"var_mean int", first(ints.VarMean(1, false)), torch.ErrDType, "var_mean only support floating point and complex dtypes"},
		{"std_mean int mean", second(ints.StdMean(1, false)), torch.ErrDType, "std_mean only support floating point and complex dtypes"},
		{"aminmax empty", first(empty.Aminmax(nil, false)), torch.ErrArgument,
			"aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."},
		{"aminmax empty dim", second(empty.Aminmax(&dim, false)), torch.ErrIndex, "aminmax: Expected reduction dim 0 to have non-zero size."},
		{"median bool", torch.Ones([]int{2}, torch.WithDType(torch.Bool)).Median(), torch.ErrDType, `"median_cpu" not implemented for 'Bool'`},
		{"median empty dim", first(empty.MedianDim(0, false)), torch.ErrIndex, "median(): Expected reduction dim 0 to have non-zero size."},
		{"nanmedian dim", second(x.NanmedianDim(-3, false)), torch.ErrIndex, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"},
		{"kthvalue k", first(x.Kthvalue(5, 1, false)), torch.ErrArgument, "kthvalue(): selected number k out of range for dimension 1"},
		{"kthvalue k 0", second(x.Kthvalue(0, -1, false)), torch.ErrArgument, "kthvalue(): selected number k out of range for dimension 1"},
		{"mode empty", first(empty.Mode(0, true)), torch.ErrIndex, "mode(): Expected reduction dim 0 to have non-zero size."},
		{"cummax dim", first(x.Cummax(2)), torch.ErrIndex, "Dimension out of range"},
		{"logcumsumexp int", ints.Logcumsumexp(0), torch.ErrDType, `"logcumsumexp_out_cpu" not implemented for 'Long'`},
		{"cumsum bool", x.CumsumDType(torch.Bool, 0), torch.ErrDType, `"cumsum_out_cpu" not implemented for 'Bool'`},
		{"softmax int", x.SoftmaxDType(torch.Int64, 0), torch.ErrDType, "softmax"},
		{"prod dim", x.ProdDType(torch.Float64, false, 3), torch.ErrIndex, "Dimension out of range"},
		{"mean int", x.MeanDType(torch.Int32, false), torch.ErrDType, "mean(): could not infer output dtype"},
		{"invalid dtype", x.CumprodDType(torch.DType(200), 0), torch.ErrDType, "invalid dtype"},
	}
	for _, tc := range cases {
		err := tc.got.Err()
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %v with %q", tc.name, err, tc.kind, tc.msg)
		}
	}
	names := map[string]*torch.Tensor{
		"nanmean": ints.Nanmean(), "kthvalue": first(x.Kthvalue(9, 0, false)), "cummax": first(x.Cummax(5)),
		"logcumsumexp": ints.Logcumsumexp(0), "aminmax": first(empty.Aminmax(nil, true)),
		"median": torch.Ones([]int{2}, torch.WithDType(torch.Bool)).Median(), "mode": first(x.Mode(7, false)),
		"var_mean": first(x.VarMean(1, false, 4)), "nansum": x.Nansum(4), "cumsum": x.CumsumDType(torch.Bool, 0),
	}
	for op, r := range names {
		if err := r.Err(); err == nil || !strings.Contains(err.Error(), op) {
			t.Errorf("%s: error %v does not name the op", op, err)
		}
	}

	// A failed input's error passes on; a nil input is an error naming the op.
	bad := x.Nansum(9)
	var nilT *torch.Tensor
	results := map[string][]*torch.Tensor{}
	for name, in := range map[string]*torch.Tensor{"failed": bad, "nil": nilT} {
		two := func(a, b *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{a, b} }
		var rs []*torch.Tensor
		rs = append(rs, in.Nansum(), in.NansumKeepDim(0), in.Nanmean(), in.NanmeanKeepDim(), in.Median(), in.Nanmedian(),
			in.Logcumsumexp(0), in.CumsumDType(torch.Float64, 0), in.CumprodDType(torch.Float64, 0),
			in.SoftmaxDType(torch.Float64, 0), in.LogSoftmaxDType(torch.Float64, 0), in.ProdDType(torch.Float64, false),
			in.SumDType(torch.Float64, false), in.MeanDType(torch.Float64, false))
		rs = append(rs, two(in.VarMean(1, false))...)
		rs = append(rs, two(in.StdMean(1, false))...)
		rs = append(rs, two(in.Aminmax(nil, false))...)
		rs = append(rs, two(in.Aminmax(&dim, false))...)
		rs = append(rs, two(in.MedianDim(0, false))...)
		rs = append(rs, two(in.NanmedianDim(0, false))...)
		rs = append(rs, two(in.Kthvalue(1, 0, false))...)
		rs = append(rs, two(in.Mode(0, false))...)
		rs = append(rs, two(in.Cummax(0))...)
		rs = append(rs, two(in.Cummin(0))...)
		results[name] = rs
	}
	for i, r := range results["failed"] {
		if !errors.Is(r.Err(), bad.Err()) {
			t.Errorf("call %d on a failed input: %v, want its error %v", i, r.Err(), bad.Err())
		}
	}
	for i, r := range results["nil"] {
		if err := r.Err(); err == nil || !errors.Is(err, torch.ErrArgument) {
			t.Errorf("call %d on nil: %v", i, err)
		}
	}
}

// TestReduceMoreOnMeta runs each op on the meta device, where the
// compositions see shapes only.
func TestReduceMoreOnMeta(t *testing.T) {
	x, err := torch.Randn([]int{3, 5}).To("meta")
	if err != nil {
		t.Fatal(err)
	}
	one := func(a, _ *torch.Tensor) *torch.Tensor { return a }
	for name, r := range map[string]*torch.Tensor{
		"median": x.Median(), "mode": one(x.Mode(1, true)), "kthvalue": one(x.Kthvalue(2, 0, false)),
		"nanmedian": one(x.NanmedianDim(1, false)), "cummax": one(x.Cummax(1)), "logcumsumexp": x.Logcumsumexp(0),
	} {
		if r.Err() != nil || r.Device().String() != "meta" {
			t.Errorf("%s on meta: %v on %v", name, r.Err(), r.Device())
		}
	}
}
