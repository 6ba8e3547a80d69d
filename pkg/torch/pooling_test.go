package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// poolCases are the pooling ops as one-output functions of an input, for
// the tests below.
var poolCases = []struct {
	name string
	f    func(x *torch.Tensor) (*torch.Tensor, *torch.Tensor)
}{
	{"max_pool2d", func(x *torch.Tensor) (*torch.Tensor, *torch.Tensor) {
		return torch.MaxPool2dWithIndices(x, []int{3}, torch.MaxPoolOptions{Stride: []int{2}, Padding: []int{1}, Dilation: []int{1, 2}, CeilMode: true})
	}},
	{"avg_pool2d", func(x *torch.Tensor) (*torch.Tensor, *torch.Tensor) {
		return torch.AvgPool2d(x, []int{3, 2}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}, CeilMode: true, ExcludePad: true}), nil
	}},
	{"adaptive_avg_pool2d", func(x *torch.Tensor) (*torch.Tensor, *torch.Tensor) {
		return torch.AdaptiveAvgPool2d(x, []int{5, 3}), nil
	}},
	{"adaptive_max_pool2d", func(x *torch.Tensor) (*torch.Tensor, *torch.Tensor) {
		return torch.AdaptiveMaxPool2d(x, []int{5, 3})
	}},
}

// TestPoolingSplitMatchesSamples runs each op and its gradient on an input
// large enough to be split across the worker pool, and compares the
// results with the same op run on each sample alone (below the size that
// splits), bit for bit; the input is a transposed view, so it is copied
// to a contiguous one first.
func TestPoolingSplitMatchesSamples(t *testing.T) {
	gen := torch.NewGenerator(7)
	base := torch.Randn([]int{16, 32, 29, 28}, torch.WithGenerator(gen))
	x := base.Transpose(2, 3) // [16, 32, 28, 29], not contiguous
	for _, c := range poolCases {
		t.Run(c.name, func(t *testing.T) {
			leaf := x.Detach().RequiresGrad_(true)
			y, idx := c.f(leaf)
			g := torch.RandnLike(y, torch.WithGenerator(gen))
			if err := y.BackwardWith(torch.BackwardOptions{Grad: g}); err != nil {
				t.Fatal(err)
			}
			for n := 0; n < x.Shape()[0]; n++ {
				xs := x.Narrow(0, n, 1).Detach().RequiresGrad_(true)
				ys, is := c.f(xs)
				if err := ys.BackwardWith(torch.BackwardOptions{Grad: g.Narrow(0, n, 1)}); err != nil {
					t.Fatal(err)
				}
				same(t, "values", y.Narrow(0, n, 1), ys)
				if idx != nil {
					same(t, "indices", idx.Narrow(0, n, 1), is)
				}
				same(t, "gradient", leaf.Grad().Narrow(0, n, 1), xs.Grad())
			}
		})
	}
}

func same(t *testing.T, what string, a, b *torch.Tensor) {
	t.Helper()
	if eq, err := torch.EqualErr(a, b); err != nil || !eq {
		t.Fatalf("%s differ (%v)", what, err)
	}
}

// TestPoolingDTypes runs float32, float64 and bfloat16 inputs (bfloat16
// computed in float32 and rounded once), and int64 through avg_pool2d
// (integer division, truncated), and checks the results against float64.
func TestPoolingDTypes(t *testing.T) {
	x := torch.Randn([]int{2, 3, 9, 8}, torch.WithGenerator(torch.NewGenerator(1)), torch.WithDType(torch.Float64))
	for _, c := range poolCases {
		want, _ := c.f(x)
		for _, d := range []torch.DType{torch.Float32, torch.BFloat16} {
			got, _ := c.f(x.ToDType(d))
			if got.DType() != d {
				t.Errorf("%s: %v input gives %v", c.name, d, got.DType())
			}
			if !torch.AllClose(got.ToDType(torch.Float64), want, 1e-2, 1e-2, false) {
				t.Errorf("%s in %v: %v, want %v", c.name, d, got, want)
			}
		}
	}
	ints := torch.FromSlice([]int64{-3, -5, 1, 2, -7, 8, -9, 4, 1}, torch.WithShape(1, 3, 3))
	got := torch.AvgPool2d(ints, []int{2}, torch.AvgPoolOptions{Stride: []int{1}})
	want := torch.FromSlice([]int64{-3, 0, -2, 1}, torch.WithShape(1, 2, 2)) // -13/4, -3/4, -10/4, 6/4 truncated toward 0
	same(t, "int64 avg_pool2d", got, want)
}

// TestPoolingErrors checks that bad calls fail without panicking, with
// errors that name the op, the input's shape and dtype.
func TestPoolingErrors(t *testing.T) {
	x := torch.Randn([]int{1, 4, 4})
	zero := 0
	for _, c := range []struct {
		name, op, msg string
		y             *torch.Tensor
	}{
		{"kernel 0", "max_pool2d", "stride should not be zero", torch.MaxPool2d(x, []int{0}, torch.MaxPoolOptions{})},
		{"no kernel", "max_pool2d", "kernel_size must either be a single int", torch.MaxPool2d(x, nil, torch.MaxPoolOptions{})},
		{"3 strides", "max_pool2d", "stride must either be omitted", torch.MaxPool2d(x, []int{2}, torch.MaxPoolOptions{Stride: []int{1, 1, 1}})},
		{"pad", "max_pool2d", "pad should be at most half of kernel size", torch.MaxPool2d(x, []int{2}, torch.MaxPoolOptions{Padding: []int{2}})},
		{"negative pad", "avg_pool2d", "pad must be non-negative", torch.AvgPool2d(x, []int{3}, torch.AvgPoolOptions{Padding: []int{-1}})},
		{"too small", "max_pool2d", "Output size is too small", torch.MaxPool2d(x, []int{5}, torch.MaxPoolOptions{})},
		{"dilation", "max_pool2d", "dilation should be greater than zero", torch.MaxPool2d(x, []int{2}, torch.MaxPoolOptions{Dilation: []int{0}})},
		{"divisor 0", "avg_pool2d", "divisor must be not zero", torch.AvgPool2d(x, []int{2}, torch.AvgPoolOptions{DivisorOverride: &zero})},
		{"2-d", "max_pool2d", "3D or 4D", torch.MaxPool2d(torch.Randn([]int{4, 4}), []int{2}, torch.MaxPoolOptions{})},
		{"int", "max_pool2d", "not implemented for 'Long'", torch.MaxPool2d(x.ToDType(torch.Int64), []int{2}, torch.MaxPoolOptions{})},
		{"half", "avg_pool2d", "not implemented for 'Half'", torch.AvgPool2d(x.ToDType(torch.Float16), []int{2}, torch.AvgPoolOptions{})},
		{"adaptive size", "adaptive_avg_pool2d", "output_size must be 2", torch.AdaptiveAvgPool2d(x, []int{1, 2, 3})},
		{"adaptive negative", "adaptive_avg_pool2d", "greater than or equal to 0", torch.AdaptiveAvgPool2d(x, []int{-1})},
		{"adaptive empty", "adaptive_max_pool2d", "non-zero size", first(torch.AdaptiveMaxPool2d(torch.Randn([]int{1, 0, 4}), []int{2}))},
		{"1-d dims", "max_pool1d", "Expected 2 to 3 dimensions", torch.MaxPool1d(torch.Randn([]int{4}), 2, torch.MaxPoolOptions{})},
		{"1-d strides", "avg_pool1d", "must be a single int", torch.AvgPool1d(x, 2, torch.AvgPoolOptions{Stride: []int{1, 1}})},
		{"huge kernel", "max_pool2d", "below 2^31", torch.MaxPool2d(x, []int{1 << 62}, torch.MaxPoolOptions{Padding: []int{1 << 61}})},
		{"huge output", "adaptive_avg_pool2d", "too large", torch.AdaptiveAvgPool2d(x, []int{1 << 40, 0})},
		{"nil", "max_pool2d", "", torch.MaxPool2d(nil, []int{2}, torch.MaxPoolOptions{})},
		{"zero tensor", "avg_pool2d", "", torch.AvgPool2d(&torch.Tensor{}, []int{2}, torch.AvgPoolOptions{})},
		{"nil adaptive", "adaptive_max_pool2d", "", first(torch.AdaptiveMaxPool2d(nil, []int{2}))},
	} {
		err := c.y.Err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var e *torch.Error
		if !errors.As(err, &e) || e.Op != c.op || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error of %s with %q", c.name, err, c.op, c.msg)
		}
		if c.msg != "" && c.name != "2-d" && c.name != "adaptive empty" && c.name != "1-d dims" && !strings.Contains(err.Error(), "[1 4 4]") {
			t.Errorf("%s: %v does not name the input's shape", c.name, err)
		}
	}
}

// TestMaxPoolDoubleBackward differentiates max_pool2d's gradient again
// (create_graph): the gradient of the gradient is gathered at the indices.
func TestMaxPoolDoubleBackward(t *testing.T) {
	x := torch.Randn([]int{1, 2, 5, 5}, torch.WithDType(torch.Float64), torch.WithGenerator(torch.NewGenerator(2))).RequiresGrad_(true)
	y := torch.MaxPool2d(x, []int{3}, torch.MaxPoolOptions{Stride: []int{1}})
	g := torch.OnesLike(y).RequiresGrad_(true)
	gx, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}, CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	gg, err := torch.Grad([]*torch.Tensor{gx[0].Mul(x).Sum()}, []*torch.Tensor{g}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// d/dg sum(grad_x * x) = x at each window's maximum = y.
	same(t, "double backward", gg[0], y.Detach())
}

// TestPoolingEdges: int64 avg_pool2d of INT64_MIN by a divisor of -1
// wraps (C's division would trap), and an adaptive pool to no windows
// has a zero gradient.
func TestPoolingEdges(t *testing.T) {
	minus := -1
	x := torch.FromSlice([]int64{-1 << 63}, torch.WithShape(1, 1, 1))
	y := torch.AvgPool2d(x, []int{1}, torch.AvgPoolOptions{DivisorOverride: &minus})
	same(t, "INT64_MIN / -1", y, x)
	leaf := torch.Randn([]int{2, 3, 4}, torch.WithDType(torch.Float64)).RequiresGrad_(true)
	z := torch.AdaptiveAvgPool2d(leaf, []int{0, 2})
	if err := z.BackwardWith(torch.BackwardOptions{Grad: torch.OnesLike(z)}); err != nil {
		t.Fatal(err)
	}
	same(t, "gradient of no windows", leaf.Grad(), torch.ZerosLike(leaf))
}
