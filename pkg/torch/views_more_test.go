package torch_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// gradCase is a function checked by GradCheck and the name of the node its
// result gets (empty: not checked, a composition).
type gradCase struct {
	name   string
	f      func(in ...*torch.Tensor) *torch.Tensor
	inputs []*torch.Tensor
	node   string
}

func runGradCases(t *testing.T, cases []gradCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := torch.GradCheck(tc.f, tc.inputs, torch.GradCheckOptions{}); err != nil {
				t.Error(err)
			}
			if tc.node == "" {
				return
			}
			out := tc.f(tc.inputs...)
			if out.GradFn() == nil || out.GradFn().Name() != tc.node {
				t.Errorf("grad_fn %v, want %s", out.GradFn(), tc.node)
			}
		})
	}
}

func TestViewsMoreGradCheck(t *testing.T) {
	torch.ManualSeed(3)
	runGradCases(t, []gradCase{
		{"diagonal", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Diagonal(1, 0, 1) }, []*torch.Tensor{leaf(3, 4)}, "DiagonalBackward0"},
		{"diagonal negative dims swapped", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Diagonal(-1, 2, 0) }, []*torch.Tensor{leaf(3, 2, 4)}, "DiagonalBackward0"},
		{"diagonal of a transposed view", func(in ...*torch.Tensor) *torch.Tensor { return in[0].T().Diagonal(0, 0, 1).MulScalar(2) }, []*torch.Tensor{leaf(3, 4)}, ""},
		{"diagonal empty", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Diagonal(5, 0, 1).Sum() }, []*torch.Tensor{leaf(3, 4)}, ""},
		{"diag_embed", func(in ...*torch.Tensor) *torch.Tensor { return in[0].DiagEmbed(1, 0, 2) }, []*torch.Tensor{leaf(2, 3)}, "DiagEmbedBackward0"},
		{"unfold overlapping", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Unfold(1, 3, 1) }, []*torch.Tensor{leaf(2, 5)}, "UnfoldBackward0"},
		{"unfold gaps", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Unfold(0, 2, 3) }, []*torch.Tensor{leaf(7, 2)}, "UnfoldBackward0"},
		{"unfold 0-dim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Unfold(0, 1, 1) }, []*torch.Tensor{leaf()}, "UnfoldBackward0"},
		{"movedim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Movedim([]int{0, 2}, []int{2, 0}) }, []*torch.Tensor{leaf(2, 3, 4)}, "PermuteBackward0"},
		{"movedim 0-dim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Movedim([]int{0}, []int{0}) }, []*torch.Tensor{leaf()}, "AliasBackward0"},
		{"swapaxes", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Swapaxes(0, -1) }, []*torch.Tensor{leaf(2, 3)}, "TransposeBackward0"},
		{"fliplr", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Fliplr() }, []*torch.Tensor{leaf(2, 3)}, "FlipBackward0"},
		{"flipud", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Flipud() }, []*torch.Tensor{leaf(3)}, "FlipBackward0"},
	})
}

// TestDiagonalIsAView checks that diagonal and unfold share their input's
// storage (a write through them shows in the input) with PyTorch's strides.
func TestDiagonalIsAView(t *testing.T) {
	x := torch.Arange(12, torch.WithDType(torch.Float64)).Reshape(3, 4)
	d := x.Diagonal(1, 0, 1)
	if !slices.Equal(d.Shape(), []int{3}) || !slices.Equal(d.Stride(), []int{5}) || d.StorageOffset() != 1 {
		t.Fatalf("diagonal: shape %v stride %v offset %d, want [3] [5] 1", d.Shape(), d.Stride(), d.StorageOffset())
	}
	d.Fill_(-1)
	got, _ := torch.ToSlice[float64](x)
	want := []float64{0, -1, 2, 3, 4, 5, -1, 7, 8, 9, 10, -1}
	if !slices.Equal(got, want) {
		t.Fatalf("write through the diagonal: %v, want %v", got, want)
	}
	if e := x.Diagonal(-7, 0, 1); e.Numel() != 0 || e.StorageOffset() != 0 {
		t.Fatalf("empty diagonal: %v offset %d", e.Shape(), e.StorageOffset())
	}
	u := x.Unfold(1, 2, 2)
	if !slices.Equal(u.Shape(), []int{3, 2, 2}) || !slices.Equal(u.Stride(), []int{4, 2, 1}) {
		t.Fatalf("unfold: shape %v stride %v", u.Shape(), u.Stride())
	}
	u.Select(0, 0).Select(0, 1).Fill_(7)
	if v, _ := x.Select(0, 0).Select(0, 2).Item(); v != 7 {
		t.Fatalf("write through unfold did not reach the input: %v", v)
	}
}

// TestViewsMoreErrors checks that bad arguments fail with an error naming
// the op, and that nil and failed inputs pass their error on, without panics.
func TestViewsMoreErrors(t *testing.T) {
	x := torch.Zeros([]int{2, 3})
	failedIn := x.View(7)
	cases := []struct {
		name, op string
		got      *torch.Tensor
	}{
		{"diagonal same dims", "diagonal", x.Diagonal(0, 1, -1)},
		{"diagonal dim out of range", "diagonal", x.Diagonal(0, 0, 5)},
		{"diagonal offset at the limits", "", x.Diagonal(math.MinInt, 0, 1)},
		{"diagonal huge offset", "", x.Diagonal(math.MaxInt, 0, 1)},
		{"diag_embed same dims", "diag_embed", x.DiagEmbed(0, 2, -1)},
		{"diag_embed 0-dim", "diag_embed", torch.Scalar(1.0).DiagEmbed(0, -2, -1)},
		{"diag_embed offset overflow", "diag_embed", x.DiagEmbed(math.MinInt, 0, 1)},
		{"unfold size too large", "unfold", x.Unfold(1, 4, 1)},
		{"unfold step 0", "unfold", x.Unfold(1, 2, 0)},
		{"unfold negative size", "unfold", x.Unfold(1, -1, 1)},
		{"unfold huge step", "", x.Unfold(1, 2, math.MaxInt)},
		{"movedim lengths", "movedim", x.Movedim([]int{0}, []int{0, 1})},
		{"movedim repeated", "movedim", x.Movedim([]int{0, 0}, []int{0, 1})},
		{"movedim out of range", "movedim", x.Movedim([]int{math.MinInt}, []int{0})},
		{"fliplr 1-D", "fliplr", torch.Zeros([]int{3}).Fliplr()},
		{"flipud 0-dim", "flipud", torch.Scalar(1.0).Flipud()},
		{"nil diagonal", "diagonal", (*torch.Tensor)(nil).Diagonal(0, 0, 1)},
		{"nil unfold", "unfold", (*torch.Tensor)(nil).Unfold(0, 1, 1)},
		{"nil movedim", "movedim", (*torch.Tensor)(nil).Movedim(nil, nil)},
		{"nil fliplr", "fliplr", (*torch.Tensor)(nil).Fliplr()},
		{"nil diag_embed", "diag_embed", (*torch.Tensor)(nil).DiagEmbed(0, 0, 1)},
		{"failed diagonal", "view", failedIn.Diagonal(0, 0, 1)},
		{"failed swapdims", "view", failedIn.Swapdims(0, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.got.Err()
			if c.op == "" { // a valid call at the limits
				if err != nil {
					t.Fatalf("got %v", err)
				}
				return
			}
			var e *torch.Error
			if !errors.As(err, &e) || e.Op != c.op {
				t.Fatalf("error %v, want one of op %s", err, c.op)
			}
		})
	}
}

func TestUnfoldMessage(t *testing.T) {
	err := torch.Zeros([]int{3, 4}).Unfold(1, 5, 1).Err()
	if err == nil || !strings.Contains(err.Error(), "maximum size for tensor at dimension 1 is 4 but size is 5") {
		t.Fatalf("error %v", err)
	}
}
