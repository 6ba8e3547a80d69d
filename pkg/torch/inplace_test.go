package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestInPlaceOverlap replays what PyTorch 1.13 does when an in-place op's
// input shares memory with the tensor written: a partial overlap of two
// dense views is refused, the same view is fine, and layouts too hard to
// judge (strided slices, expanded inputs) are let pass.
func TestInPlaceOverlap(t *testing.T) {
	cases := []struct {
		name string
		op   func(x *torch.Tensor) *torch.Tensor
		want []float64 // x afterwards; nil when the op is refused
	}{
		{"add_ of the shifted tensor", func(x *torch.Tensor) *torch.Tensor {
			return x.Slice(0, 1, 6, 1).Add_(x.Slice(0, 0, 5, 1))
		}, nil},
		{"copy_ of the shifted tensor", func(x *torch.Tensor) *torch.Tensor {
			return x.Slice(0, 1, 6, 1).Copy_(x.Slice(0, 0, 5, 1))
		}, nil},
		{"copy_ of the same bytes transposed", func(x *torch.Tensor) *torch.Tensor {
			return x.View(2, 3).Copy_(x.View(3, 2).T())
		}, nil},
		{"clamp_ of a slice", func(x *torch.Tensor) *torch.Tensor { return x.Slice(0, 1, 6, 1).Clamp_(0, 3) },
			[]float64{0, 1, 2, 3, 3, 3}},
		{"masked_fill_ then add_ of itself", func(x *torch.Tensor) *torch.Tensor {
			return x.MaskedFill_(x.GtScalar(3), -1).Add_(x)
		}, []float64{0, 2, 4, 6, -2, -2}},
		{"copy_ of itself", func(x *torch.Tensor) *torch.Tensor { return x.Copy_(x) }, []float64{0, 1, 2, 3, 4, 5}},
		{"mul_ by itself", func(x *torch.Tensor) *torch.Tensor { return x.Mul_(x) }, []float64{0, 1, 4, 9, 16, 25}},
		{"add_ of interleaved slices", func(x *torch.Tensor) *torch.Tensor {
			return x.Slice(0, 0, 6, 2).Add_(x.Slice(0, 1, 6, 2))
		}, []float64{1, 1, 5, 3, 9, 5}},
		{"add_ of an expanded element", func(x *torch.Tensor) *torch.Tensor {
			return x.Slice(0, 0, 3, 1).Add_(x.Slice(0, 3, 4, 1).Expand(3))
		}, []float64{3, 4, 5, 3, 4, 5}},
		{"add_ of overlapping columns", func(x *torch.Tensor) *torch.Tensor {
			return x.View(2, 3).Slice(1, 0, 2, 1).Add_(x.View(2, 3).Slice(1, 1, 3, 1))
		}, []float64{1, 3, 2, 7, 9, 5}},
		{"add_ of the same bytes as another dtype", func(x *torch.Tensor) *torch.Tensor {
			return x.Slice(0, 1, 6, 1).Add_(x.Slice(0, 0, 5, 1).ToDType(torch.Float64))
		}, []float64{0, 1, 3, 5, 7, 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := torch.Arange(6, torch.WithDType(torch.Float32))
			err := c.op(x).Err()
			if c.want == nil {
				if !errors.Is(err, torch.ErrArgument) || !strings.Contains(err.Error(), "refer to a single memory location") {
					t.Fatalf("err = %v, want PyTorch's partial-overlap error", err)
				}
				if diff := cmp.Diff([]float64{0, 1, 2, 3, 4, 5}, values(t, x)); diff != "" {
					t.Errorf("a refused op wrote into x (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(c.want, values(t, x)); diff != "" {
				t.Errorf("x (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInPlaceFormsMatch checks each in-place form against its op on a
// non-contiguous tensor x, and that the gradients through the in-place
// write, to x and to the other tensor o that the op reads, are the op's.
func TestInPlaceFormsMatch(t *testing.T) {
	mask := torch.FromSlice([]bool{true, false, false, true, false, true}, torch.WithShape(2, 3))
	index := torch.FromSlice([]int64{2, 0, 1, 2}, torch.WithShape(2, 2)) // no repeats within a row
	cols := torch.FromSlice([]int64{2, 0})
	square := torch.FromSlice([]float64{1, -2, 0.5, 3, 0, 1, -1, 2, 4}, torch.WithShape(3, 3)).T()
	// on moves a CPU index or mask to x's device.
	on := func(x, c *torch.Tensor) *torch.Tensor {
		if x.Device() == c.Device() {
			return c
		}
		m, err := c.ToDevice(x.Device())
		if err != nil {
			t.Fatalf("ToDevice: %v", err)
		}
		return m
	}
	type op = func(x, o *torch.Tensor) *torch.Tensor
	cases := []struct {
		name        string
		inPlace, op op
	}{
		{"Clamp_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Clamp_(-0.5, 0.7) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Clamp(-0.5, 0.7) }},
		{"Clamp_ below", func(x, _ *torch.Tensor) *torch.Tensor { return x.Clamp_(0, nil) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Clamp(0, nil) }},
		{"ClampTensor_", func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor_(o.MulScalar(0.2), o.Abs()) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor(o.MulScalar(0.2), o.Abs()) }},
		{"ClampTensor_ below", func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor_(o, nil) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor(o, nil) }},
		{"ClampTensor_ above", func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor_(nil, o) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.ClampTensor(nil, o) }},
		{"LeakyRelu_", func(x, _ *torch.Tensor) *torch.Tensor { return x.LeakyRelu_(0.1) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.LeakyRelu(0.1) }},
		{"Elu_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Elu_(1.5) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Elu(1.5) }},
		{"Atan2_", (*torch.Tensor).Atan2_, (*torch.Tensor).Atan2},
		{"FloorDivide_", (*torch.Tensor).FloorDivide_, (*torch.Tensor).FloorDivide},
		{"DivTrunc_", (*torch.Tensor).DivTrunc_, (*torch.Tensor).DivTrunc},
		{"DivFloor_", (*torch.Tensor).DivFloor_, (*torch.Tensor).DivFloor},
		{"DivTruncScalar_", func(x, _ *torch.Tensor) *torch.Tensor { return x.DivTruncScalar_(0.4) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.DivTruncScalar(0.4) }},
		{"DivFloorScalar_", func(x, _ *torch.Tensor) *torch.Tensor { return x.DivFloorScalar_(0.4) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.DivFloorScalar(0.4) }},
		{"MaskedFill_", func(x, _ *torch.Tensor) *torch.Tensor { return x.MaskedFill_(on(x, mask), 0.25) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.MaskedFill(on(x, mask), 0.25) }},
		{"Lerp_", func(x, o *torch.Tensor) *torch.Tensor { return x.Lerp_(o, o.Sigmoid()) },
			func(x, o *torch.Tensor) *torch.Tensor { return torch.Lerp(x, o, o.Sigmoid()) }},
		{"LerpScalar_", func(x, o *torch.Tensor) *torch.Tensor { return x.LerpScalar_(o, 0.3) },
			func(x, o *torch.Tensor) *torch.Tensor { return torch.LerpScalar(x, o, 0.3) }},
		{"NanToNum_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Log_().NanToNum_(-1, nil, nil) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Log().NanToNum(-1, nil, nil) }},
		{"Scatter_", func(x, o *torch.Tensor) *torch.Tensor { return x.Scatter_(1, on(x, index), o) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.Scatter(1, on(x, index), o) }},
		{"ScatterValue_", func(x, _ *torch.Tensor) *torch.Tensor { return x.ScatterValue_(1, on(x, index), 9) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.ScatterValue(1, on(x, index), 9) }},
		{"ScatterAdd_", func(x, o *torch.Tensor) *torch.Tensor { return x.ScatterAdd_(1, on(x, index), o) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.ScatterAdd(1, on(x, index), o) }},
		{"ScatterReduce_", func(x, o *torch.Tensor) *torch.Tensor { return x.ScatterReduce_(1, on(x, index), o, "sum", false) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.ScatterReduce(1, on(x, index), o, "sum", false) }},
		{"IndexAdd_", func(x, o *torch.Tensor) *torch.Tensor { return x.IndexAdd_(1, on(x, cols), o.Narrow(1, 0, 2), 2) },
			func(x, o *torch.Tensor) *torch.Tensor { return x.IndexAdd(1, on(x, cols), o.Narrow(1, 0, 2), 2) }},
		{"Cumsum_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Cumsum_(1) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Cumsum(1) }},
		{"Cumprod_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Cumprod_(0) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Cumprod(0) }},
		{"Addmm_", func(x, o *torch.Tensor) *torch.Tensor { return x.Addmm_(o, on(x, square), 0.5, 2) },
			func(x, o *torch.Tensor) *torch.Tensor { return torch.Addmm(x, o, on(x, square), 0.5, 2) }},
		{"Baddbmm_", func(x, o *torch.Tensor) *torch.Tensor {
			x.Unsqueeze(0).Baddbmm_(o.Unsqueeze(0), on(x, square).Unsqueeze(0), 0.5, 2)
			return x
		}, func(x, o *torch.Tensor) *torch.Tensor {
			return torch.Baddbmm(x.Unsqueeze(0), o.Unsqueeze(0), on(x, square).Unsqueeze(0), 0.5, 2).SqueezeDim(0)
		}},
		{"Tril_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Tril_(0) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Tril(0) }},
		{"Triu_", func(x, _ *torch.Tensor) *torch.Tensor { return x.Triu_(1) },
			func(x, _ *torch.Tensor) *torch.Tensor { return x.Triu(1) }},
	}
	start := []float64{-1.5, 0.25, 0.75, -0.3, 1.2, 0.6}
	ovals := []float64{0.5, -2, 3, 1.5, -0.25, 2}
	// x and o are [2, 3] and transposed views.
	tensors := func() (*torch.Tensor, *torch.Tensor) {
		return torch.FromSlice(start, torch.WithShape(3, 2)).T(), torch.FromSlice(ovals, torch.WithShape(3, 2)).T()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, o := tensors()
			want := values(t, c.op(x, o))
			if r := c.inPlace(x, o); r != x {
				t.Fatalf("%s returned %v (err %v), not its receiver", c.name, r, r.Err())
			}
			if diff := cmp.Diff(want, values(t, x), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("%s (-op +in place):\n%s", c.name, diff)
			}
			// Gradients of x and o: through a copy of x written in place,
			// and through the op.
			grad := func(f op) [][]float64 {
				x, o := tensors()
				x.RequiresGrad_(true)
				o.RequiresGrad_(true)
				y := f(x.MulScalar(1), o)
				if err := y.MulScalar(3).Sum().Backward(); err != nil {
					t.Fatalf("Backward: %v", err)
				}
				var gs [][]float64
				for _, l := range []*torch.Tensor{x, o} {
					if l.Grad() == nil {
						gs = append(gs, nil)
						continue
					}
					gs = append(gs, values(t, l.Grad()))
				}
				return gs
			}
			if diff := cmp.Diff(grad(c.op), grad(c.inPlace), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("gradients of x and o through %s (-op +in place):\n%s", c.name, diff)
			}
			meta := torch.WithDevice("meta")
			x, o = torch.Empty([]int{3, 2}, meta, torch.WithDType(torch.Float64)).T(), torch.Empty([]int{3, 2}, meta, torch.WithDType(torch.Float64)).T()
			if r := c.inPlace(x, o); r != x || !cmp.Equal(x.Shape(), []int{2, 3}) {
				t.Errorf("%s on meta returned %v (err %v), not its receiver", c.name, r, r.Err())
			}
		})
	}
	// The running sums of int32 are int64; in place they wrap into int32.
	ints := torch.FromSlice([]int32{1, 2, math.MaxInt32}).Cumsum_(0)
	if diff := cmp.Diff([]int32{1, 3, math.MinInt32 + 2}, sliceOf[int32](t, ints)); diff != "" || ints.DType() != torch.Int32 {
		t.Errorf("int32 Cumsum_: %v (-want +got):\n%s", ints.DType(), diff)
	}
	leaf := torch.Ones([]int{2}).RequiresGrad_(true)
	if err := leaf.Clamp_(0, 1).Err(); !errors.Is(err, torch.ErrAutograd) && !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Clamp_ of a leaf that requires grad: err = %v, want an error", err)
	}
	if err := torch.Ones([]int{2}).Clamp_(nil, nil).Err(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Clamp_ without bounds: err = %v, want ErrArgument", err)
	}
	if err := torch.Ones([]int{2}).MaskedFill_(torch.Ones([]int{3}).GtScalar(0), 1).Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("MaskedFill_ with a mask of another shape: err = %v, want ErrShape", err)
	}
}

// TestInPlaceComparisons checks that the comparisons and logical ops
// written in place give 1 or 0 in the tensor's dtype and a zero gradient,
// with PyTorch 1.13's answers.
func TestInPlaceComparisons(t *testing.T) {
	o := torch.FromSlice([]float64{0.5, -2, 0.75, 1.5, 1.2, 2}, torch.WithShape(3, 2)).T()
	cases := []struct {
		name string
		f    func(x *torch.Tensor) *torch.Tensor
		want []float64
		node string
	}{
		{"Eq_", func(x *torch.Tensor) *torch.Tensor { return x.Eq_(o) }, []float64{0, 1, 1, 0, 0, 0}, "EqBackward1"},
		{"Ne_", func(x *torch.Tensor) *torch.Tensor { return x.Ne_(o) }, []float64{1, 0, 0, 1, 1, 1}, "NeBackward1"},
		{"Lt_", func(x *torch.Tensor) *torch.Tensor { return x.Lt_(o) }, []float64{1, 0, 0, 0, 1, 1}, "LtBackward1"},
		{"Le_", func(x *torch.Tensor) *torch.Tensor { return x.Le_(o) }, []float64{1, 1, 1, 0, 1, 1}, "LeBackward1"},
		{"Gt_", func(x *torch.Tensor) *torch.Tensor { return x.Gt_(o) }, []float64{0, 0, 0, 1, 0, 0}, "GtBackward1"},
		{"Ge_", func(x *torch.Tensor) *torch.Tensor { return x.Ge_(o) }, []float64{0, 1, 1, 1, 0, 0}, "GeBackward1"},
		{"EqScalar_", func(x *torch.Tensor) *torch.Tensor { return x.EqScalar_(0.75) }, []float64{0, 1, 0, 0, 0, 0}, "EqBackward0"},
		{"NeScalar_", func(x *torch.Tensor) *torch.Tensor { return x.NeScalar_(0.75) }, []float64{1, 0, 1, 1, 1, 1}, "NeBackward0"},
		{"LtScalar_", func(x *torch.Tensor) *torch.Tensor { return x.LtScalar_(0.6) }, []float64{1, 0, 0, 1, 1, 0}, "LtBackward0"},
		{"LeScalar_", func(x *torch.Tensor) *torch.Tensor { return x.LeScalar_(0.6) }, []float64{1, 0, 0, 1, 1, 1}, "LeBackward0"},
		{"GtScalar_", func(x *torch.Tensor) *torch.Tensor { return x.GtScalar_(0.6) }, []float64{0, 1, 1, 0, 0, 0}, "GtBackward0"},
		{"GeScalar_", func(x *torch.Tensor) *torch.Tensor { return x.GeScalar_(0.6) }, []float64{0, 1, 1, 0, 0, 1}, "GeBackward0"},
		{"LogicalAnd_", func(x *torch.Tensor) *torch.Tensor { return x.LogicalAnd_(o.Sub(o)) }, []float64{0, 0, 0, 0, 0, 0},
			"LogicalAndBackward1"},
		{"LogicalOr_", func(x *torch.Tensor) *torch.Tensor { return x.LogicalOr_(o) }, []float64{1, 1, 1, 1, 1, 1},
			"LogicalOrBackward1"},
		{"LogicalXor_", func(x *torch.Tensor) *torch.Tensor { return x.LogicalXor_(o.MulScalar(0)) }, []float64{1, 1, 1, 1, 1, 1},
			"LogicalXorBackward1"},
	}
	start := []float64{-1.5, 0.25, 0.75, -0.3, 1.2, 0.6}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := torch.FromSlice(start, torch.WithShape(3, 2)).T()
			if r := c.f(x); r != x {
				t.Fatalf("%s returned %v (err %v), not its receiver", c.name, r, r.Err())
			}
			if x.DType() != torch.Float64 {
				t.Errorf("dtype %v, want float64", x.DType())
			}
			if diff := cmp.Diff(c.want, values(t, x)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.name, diff)
			}
			leaf := torch.FromSlice(start, torch.WithShape(3, 2)).T().RequiresGrad_(true)
			y := c.f(leaf.MulScalar(2))
			if y.GradFn() == nil || y.GradFn().Name() != c.node {
				t.Fatalf("grad_fn %v, want %s", y.GradFn(), c.node)
			}
			if err := y.Sum().Backward(); err != nil {
				t.Fatalf("Backward: %v", err)
			}
			if diff := cmp.Diff(make([]float64, 6), values(t, leaf.Grad())); diff != "" {
				t.Errorf("gradient (-want +got):\n%s", diff)
			}
		})
	}
	// A later write into the same tensor leaves the comparison's zero
	// gradient alone: it saved nothing.
	leaf := torch.FromSlice(start).RequiresGrad_(true)
	y := leaf.MulScalar(2)
	y.GtScalar_(0).MulScalar_(3)
	if err := y.Sum().Backward(); err != nil {
		t.Fatalf("Backward after GtScalar_ and MulScalar_: %v", err)
	}
	if diff := cmp.Diff(make([]float64, 6), values(t, leaf.Grad())); diff != "" {
		t.Errorf("gradient after GtScalar_ and MulScalar_ (-want +got):\n%s", diff)
	}
	ints := torch.FromSlice([]int32{1, 2, 3, 4}, torch.WithShape(2, 2)).LtScalar_(3)
	if diff := cmp.Diff([]int32{1, 1, 0, 0}, sliceOf[int32](t, ints)); diff != "" || ints.DType() != torch.Int32 {
		t.Errorf("int32 LtScalar_: %v %v (-want +got):\n%s", ints.DType(), ints, diff)
	}
	bools := torch.FromSlice([]bool{true, false}).Lt_(torch.FromSlice([]float64{0.5, 0.5}))
	if diff := cmp.Diff([]bool{false, true}, sliceOf[bool](t, bools)); diff != "" {
		t.Errorf("bool Lt_ float (-want +got):\n%s", diff)
	}
	err := torch.FromSlice([]float64{1, 2}).Eq_(torch.Ones([]int{2, 2}, torch.WithDType(torch.Float64))).Err()
	if !errors.Is(err, torch.ErrShape) || !strings.Contains(err.Error(), "doesn't match the broadcast shape") {
		t.Errorf("Eq_ that would broadcast the output: err = %v, want ErrShape", err)
	}
}

func sliceOf[T torch.Element](t *testing.T, x *torch.Tensor) []T {
	t.Helper()
	v, err := torch.ToSlice[T](x)
	if err != nil {
		t.Fatalf("ToSlice: %v", err)
	}
	return v
}
