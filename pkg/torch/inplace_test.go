package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
// non-contiguous tensor, and that the gradient through the in-place write
// is the op's.
func TestInPlaceFormsMatch(t *testing.T) {
	other := torch.FromSlice([]float64{0.5, -2, 3, 1.5, -0.25, 2}, torch.WithShape(3, 2)).T()
	mask := torch.FromSlice([]bool{true, false, false, true, false, true}, torch.WithShape(2, 3))
	cases := []struct {
		name    string
		inPlace func(x *torch.Tensor) *torch.Tensor
		op      func(x *torch.Tensor) *torch.Tensor
	}{
		{"Clamp_", func(x *torch.Tensor) *torch.Tensor { return x.Clamp_(-0.5, 0.7) },
			func(x *torch.Tensor) *torch.Tensor { return x.Clamp(-0.5, 0.7) }},
		{"Clamp_ below", func(x *torch.Tensor) *torch.Tensor { return x.Clamp_(0, nil) },
			func(x *torch.Tensor) *torch.Tensor { return x.Clamp(0, nil) }},
		{"LeakyRelu_", func(x *torch.Tensor) *torch.Tensor { return x.LeakyRelu_(0.1) },
			func(x *torch.Tensor) *torch.Tensor { return x.LeakyRelu(0.1) }},
		{"Elu_", func(x *torch.Tensor) *torch.Tensor { return x.Elu_(1.5) },
			func(x *torch.Tensor) *torch.Tensor { return x.Elu(1.5) }},
		{"Atan2_", func(x *torch.Tensor) *torch.Tensor { return x.Atan2_(other) },
			func(x *torch.Tensor) *torch.Tensor { return x.Atan2(other) }},
		{"FloorDivide_", func(x *torch.Tensor) *torch.Tensor { return x.FloorDivide_(other) },
			func(x *torch.Tensor) *torch.Tensor { return x.FloorDivide(other) }},
		{"MaskedFill_", func(x *torch.Tensor) *torch.Tensor { return x.MaskedFill_(mask, 0.25) },
			func(x *torch.Tensor) *torch.Tensor { return x.MaskedFill(mask, 0.25) }},
	}
	start := []float64{-1.5, 0.25, 0.75, -0.3, 1.2, 0.6}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := torch.FromSlice(start, torch.WithShape(3, 2)).T()
			want := values(t, c.op(x))
			if r := c.inPlace(x); r != x {
				t.Fatalf("%s returned %v (err %v), not its receiver", c.name, r, r.Err())
			}
			if diff := cmp.Diff(want, values(t, x)); diff != "" {
				t.Errorf("%s (-op +in place):\n%s", c.name, diff)
			}
			// Gradients: through a copy written in place, and through the op.
			grad := func(f func(*torch.Tensor) *torch.Tensor) []float64 {
				leaf := torch.FromSlice(start, torch.WithShape(3, 2)).T().RequiresGrad_(true)
				y := f(leaf.MulScalar(1))
				if err := y.MulScalar(3).Sum().Backward(); err != nil {
					t.Fatalf("Backward: %v", err)
				}
				return values(t, leaf.Grad())
			}
			if diff := cmp.Diff(grad(c.op), grad(c.inPlace)); diff != "" {
				t.Errorf("gradient through %s (-op +in place):\n%s", c.name, diff)
			}
		})
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
