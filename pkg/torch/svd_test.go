package torch_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// svdInputs are matrices of several shapes and layouts: square, tall,
// wide, batched, transposed and sliced (non-contiguous).
func svdInputs(d torch.DType) map[string]*torch.Tensor {
	torch.ManualSeed(11)
	r := func(shape ...int) *torch.Tensor { return torch.Randn(shape, torch.WithDType(d)) }
	return map[string]*torch.Tensor{
		"square":      r(4, 4),
		"tall":        r(6, 3),
		"wide":        r(3, 6),
		"batched":     r(2, 3, 5, 4),
		"transposed":  r(5, 3).T(),
		"sliced":      r(4, 10).Narrow(1, 1, 8).Unfold(1, 1, 2).SqueezeDim(2),
		"batched T":   r(3, 4, 2).MT(),
		"1x1":         r(1, 1),
		"row":         r(1, 5),
		"column":      r(5, 1),
		"rank 1":      r(4, 1).MatMul(r(1, 3)),
		"zeros":       torch.Zeros([]int{3, 2}, torch.WithDType(d)),
		"identity":    torch.Eye(3, torch.WithDType(d)),
		"large value": r(3, 3).MulScalar(1e30),
	}
}

// svdClose reports whether a and b agree within tol (absolute, scaled by
// the largest magnitude of b, at least 1).
func svdClose(t *testing.T, what string, a, b *torch.Tensor, tol float64) {
	t.Helper()
	if a.Err() != nil || b.Err() != nil {
		t.Fatalf("%s: %v %v", what, a.Err(), b.Err())
	}
	if !slices.Equal(a.Shape(), b.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, a.Shape(), b.Shape())
	}
	scale, _ := b.Abs().ToDType(torch.Float64).Amax().Item()
	diff, _ := a.ToDType(torch.Float64).Sub(b.ToDType(torch.Float64)).Abs().Amax().Item()
	if a.Numel() > 0 && !(diff <= tol*math.Max(scale, 1)) {
		t.Fatalf("%s: differs by %g (scale %g)", what, diff, scale)
	}
}

// eyeBatch is the identity of size n with a batch shape.
func eyeBatch(batch []int, n int, d torch.DType) *torch.Tensor {
	shape := append(append([]int(nil), batch...), n, n)
	return torch.Eye(n, torch.WithDType(d)).Expand(shape...)
}

func TestSvdReconstructionAndOrthonormality(t *testing.T) {
	for _, d := range []torch.DType{torch.Float32, torch.Float64} {
		tol := 1e-12
		if d == torch.Float32 {
			tol = 2e-6
		}
		for name, a := range svdInputs(d) {
			for _, full := range []bool{false, true} {
				t.Run(name, func(t *testing.T) {
					u, s, vh := a.LinalgSvd(full)
					nd := a.Dim()
					m, n := a.Shape()[nd-2], a.Shape()[nd-1]
					k := min(m, n)
					batch := a.Shape()[:nd-2]
					if u.DType() != d || s.DType() != d || vh.DType() != d {
						t.Fatalf("dtypes %v %v %v, want %v", u.DType(), s.DType(), vh.DType(), d)
					}
					ucols, vrows := k, k
					if full {
						ucols, vrows = m, n
					}
					if want := append(slices.Clone(batch), m, ucols); !slices.Equal(u.Shape(), want) {
						t.Fatalf("U shape %v, want %v", u.Shape(), want)
					}
					if want := append(slices.Clone(batch), vrows, n); !slices.Equal(vh.Shape(), want) {
						t.Fatalf("Vh shape %v, want %v", vh.Shape(), want)
					}
					rec := u.Narrow(-1, 0, k).Mul(s.Unsqueeze(-2)).MatMul(vh.Narrow(-2, 0, k))
					svdClose(t, "U diag(S) Vh", rec, a, tol*10)
					svdClose(t, "Uᵀ U", u.MT().MatMul(u), eyeBatch(batch, ucols, d), tol*10)
					svdClose(t, "Vh Vhᵀ", vh.MatMul(vh.MT()), eyeBatch(batch, vrows, d), tol*10)
					// Descending, non-negative, and what svdvals gives.
					sv, _ := torch.ToSlice[float64](s.Reshape(-1, k).ToDType(torch.Float64))
					for i := range sv {
						if sv[i] < 0 || (i%k > 0 && sv[i] > sv[i-1]) {
							t.Fatalf("singular values not descending and non-negative: %v", sv)
						}
					}
					svdClose(t, "svdvals", a.LinalgSvdvals(), s, tol)
				})
			}
		}
	}
}

// TestSvdFloat32Accuracy checks that float32 is computed in float64 and
// rounded: the singular values are those of the float64 computation on
// the same values, rounded.
func TestSvdFloat32Accuracy(t *testing.T) {
	torch.ManualSeed(5)
	a := torch.Randn([]int{6, 4})
	s32 := a.LinalgSvdvals()
	s64 := a.ToDType(torch.Float64).LinalgSvdvals().ToDType(torch.Float32)
	if !torch.Equal(s32, s64) {
		t.Fatalf("float32 %v, rounded float64 %v", s32, s64)
	}
}

// TestSvdKnownValues checks matrices whose decomposition is known.
func TestSvdKnownValues(t *testing.T) {
	a := torch.FromSlice([]float64{3, 0, 0, 0, -2, 0}, torch.WithShape(2, 3))
	u, s, vh := a.LinalgSvd(false)
	want := torch.FromSlice([]float64{3, 2})
	if !torch.AllClose(s, want, 0, 1e-15, false) {
		t.Fatalf("S %v, want %v", s, want)
	}
	if !torch.AllClose(u.Abs(), torch.Eye(2, torch.WithDType(torch.Float64)), 0, 1e-15, false) {
		t.Fatalf("|U| %v", u.Abs())
	}
	if !torch.AllClose(vh.Abs(), torch.EyeNM(2, 3, torch.WithDType(torch.Float64)), 0, 1e-15, false) {
		t.Fatalf("|Vh| %v", vh.Abs())
	}
	// PyTorch's example: [[1, 2], [3, 4], [5, 6]].
	b := torch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, torch.WithShape(3, 2))
	if s := b.LinalgSvdvals(); !torch.AllClose(s, torch.FromSlice([]float64{9.525518091565107, 0.5143005806586441}), 1e-14, 0, false) {
		t.Fatalf("S %v", s)
	}
	// A 1x1 matrix: |a|, and the sign in U.
	one := torch.FromSlice([]float64{-2}, torch.WithShape(1, 1))
	u, s, vh = one.LinalgSvd(true)
	if x, _ := s.Item(); x != 2 {
		t.Fatalf("S %v", s)
	}
	if x, _ := u.MatMul(vh).Item(); x != -1 {
		t.Fatalf("U Vh %v, want -1", u.MatMul(vh))
	}
}

// TestSvdLayout checks the strides PyTorch gives U, S and Vh (column-major
// matrices) on the CPU and meta devices.
func TestSvdLayout(t *testing.T) {
	cases := []struct {
		shape                     []int
		full                      bool
		uShape, sShape, vShape    []int
		uStride, sStride, vStride []int
	}{
		{[]int{2, 5, 3}, true, []int{2, 5, 5}, []int{2, 3}, []int{2, 3, 3}, []int{25, 1, 5}, []int{3, 1}, []int{9, 1, 3}},
		{[]int{2, 5, 3}, false, []int{2, 5, 3}, []int{2, 3}, []int{2, 3, 3}, []int{15, 1, 5}, []int{3, 1}, []int{9, 1, 3}},
		{[]int{3, 5}, false, []int{3, 3}, []int{3}, []int{3, 5}, []int{1, 3}, []int{1}, []int{1, 3}},
		{[]int{0, 3}, true, []int{0, 0}, []int{0}, []int{3, 3}, []int{1, 1}, []int{1}, []int{1, 3}},
		{[]int{3, 0}, false, []int{3, 0}, []int{0}, []int{0, 0}, []int{1, 3}, []int{1}, []int{1, 1}},
		{[]int{0, 2, 3}, false, []int{0, 2, 2}, []int{0, 2}, []int{0, 2, 3}, []int{4, 1, 2}, []int{2, 1}, []int{6, 1, 2}},
		{[]int{2, 1, 4}, false, []int{2, 1, 1}, []int{2, 1}, []int{2, 1, 4}, []int{1, 1, 1}, []int{1, 1}, []int{4, 1, 1}},
	}
	for _, dev := range []string{"cpu", "meta"} {
		for _, c := range cases {
			a := torch.Ones(c.shape, torch.WithDevice(dev))
			u, s, vh := a.LinalgSvd(c.full)
			for i, got := range []*torch.Tensor{u, s, vh} {
				if got.Err() != nil {
					t.Fatalf("%s %v: %v", dev, c.shape, got.Err())
				}
				shape := [][]int{c.uShape, c.sShape, c.vShape}[i]
				stride := [][]int{c.uStride, c.sStride, c.vStride}[i]
				if !slices.Equal(got.Shape(), shape) || !slices.Equal(got.Stride(), stride) || got.Device().String() != dev {
					t.Errorf("%s %v full=%v output %d: %s %v %v, want %v %v", dev, c.shape, c.full, i, got.Device(), got.Shape(), got.Stride(), shape, stride)
				}
			}
			if sv := a.LinalgSvdvals(); !slices.Equal(sv.Shape(), c.sShape) {
				t.Errorf("%s svdvals %v: %v", dev, c.shape, sv.Shape())
			}
		}
	}
	// The meta device takes float16, as PyTorch's does.
	if _, s, _ := torch.Ones([]int{3, 3}, torch.WithDevice("meta"), torch.WithDType(torch.Float16)).LinalgSvd(false); s.Err() != nil || s.DType() != torch.Float16 {
		t.Errorf("meta float16: %v %v", s.DType(), s.Err())
	}
}

// TestSvdEmpty checks PyTorch's answers for matrices without elements.
func TestSvdEmpty(t *testing.T) {
	for _, d := range []torch.DType{torch.Float32, torch.Float64, torch.Float16} {
		u, s, vh := torch.Zeros([]int{0, 3}, torch.WithDType(d)).LinalgSvd(true)
		if s.Numel() != 0 || !slices.Equal(u.Shape(), []int{0, 0}) || !torch.Equal(vh, torch.Eye(3, torch.WithDType(d))) {
			t.Fatalf("%v (0, 3): U %v S %v Vh %v", d, u, s, vh)
		}
		u, s, vh = torch.Zeros([]int{2, 3, 0}, torch.WithDType(d)).LinalgSvd(true)
		if s.Err() != nil || !slices.Equal(s.Shape(), []int{2, 0}) || !slices.Equal(vh.Shape(), []int{2, 0, 0}) ||
			!torch.Equal(u, torch.Eye(3, torch.WithDType(d)).Expand(2, 3, 3)) {
			t.Fatalf("%v (2, 3, 0): U %v S %v Vh %v", d, u, s, vh)
		}
		u, s, vh = torch.Zeros([]int{3, 0}, torch.WithDType(d)).LinalgSvd(false)
		if s.Err() != nil || !slices.Equal(u.Shape(), []int{3, 0}) || !slices.Equal(vh.Shape(), []int{0, 0}) {
			t.Fatalf("%v (3, 0) reduced: U %v S %v Vh %v", d, u, s, vh)
		}
	}
	if s := torch.Zeros([]int{0, 4, 5}).LinalgSvdvals(); s.Err() != nil || !slices.Equal(s.Shape(), []int{0, 4}) {
		t.Fatalf("svdvals (0, 4, 5): %v", s)
	}
	if n := torch.Zeros([]int{0, 3}).LinalgMatrixNorm("nuc", [2]int{-2, -1}, false); n.Err() != nil || n.Numel() != 1 {
		t.Fatalf("nuc of (0, 3): %v", n)
	}
}

// TestSvdNonFinite checks PyTorch 1.13's behaviour: NaN fails to converge
// (naming the batch element of batched input), infinities give NaN.
func TestSvdNonFinite(t *testing.T) {
	nan := torch.FromSlice([]float64{1, math.NaN(), 3, 4}, torch.WithShape(2, 2))
	for _, got := range []*torch.Tensor{nan.LinalgSvdvals(), nan.ToDType(torch.Float32).LinalgSvdvals(), nan.NormNuc()} {
		if err := got.Err(); err == nil || !strings.Contains(err.Error(), "failed to converge because the input matrix contained non-finite values") {
			t.Fatalf("NaN: %v", err)
		}
	}
	batch := torch.Stack([]*torch.Tensor{torch.Eye(2, torch.WithDType(torch.Float64)), nan}, 0)
	if _, s, _ := batch.LinalgSvd(false); s.Err() == nil || !strings.Contains(s.Err().Error(), "(Batch element 1): The algorithm failed") {
		t.Fatalf("batched NaN: %v", s.Err())
	}
	inf := torch.FromSlice([]float64{1, math.Inf(1), 3, 4, 5, 6}, torch.WithShape(3, 2))
	u, s, vh := inf.LinalgSvd(false)
	for _, x := range []*torch.Tensor{u, s, vh} {
		if all, _ := x.IsNan().All().ItemBool(); !all {
			t.Fatalf("infinite input: %v, want NaN", x)
		}
	}
	// One matrix of a batch infinite: the others are unaffected.
	b := torch.Stack([]*torch.Tensor{torch.Eye(2, torch.WithDType(torch.Float64)).MulScalar(2), inf.Narrow(0, 0, 2)}, 0)
	sv, _ := torch.ToSlice[float64](b.LinalgSvdvals())
	if sv[0] != 2 || sv[1] != 2 || !math.IsNaN(sv[2]) || !math.IsNaN(sv[3]) {
		t.Fatalf("batch with an infinite matrix: %v", sv)
	}
}

func TestSvdErrors(t *testing.T) {
	x := torch.Zeros([]int{3, 3})
	v := torch.Zeros([]int{3})
	svdS := func(t *torch.Tensor, full bool) *torch.Tensor { _, s, _ := t.LinalgSvd(full); return s }
	svdOld := func(t *torch.Tensor) *torch.Tensor { _, s, _ := t.Svd(true, true); return s }
	cases := []struct {
		name, op, msg string
		kind          error
		got           *torch.Tensor
	}{
		{"svd 1-D", "linalg_svd", "linalg.svd: The input tensor A must have at least 2 dimensions.", torch.ErrShape, svdS(v, false)},
		{"svd 0-D", "linalg_svd", "at least 2 dimensions", torch.ErrShape, svdS(torch.Scalar(1.0), true)},
		{"svd int64", "linalg_svd", "linalg.svd: Expected a floating point or complex tensor as input. Got Long", torch.ErrDType, svdS(x.ToDType(torch.Int64), false)},
		{"svd bool", "linalg_svd", "Got Bool", torch.ErrDType, svdS(x.ToDType(torch.Bool), false)},
		{"svd float16", "linalg_svd", "\"linalg_svd_cpu\" not implemented for 'Half'", torch.ErrDType, svdS(x.ToDType(torch.Float16), false)},
		{"svd bfloat16", "linalg_svd", "\"linalg_svd_cpu\" not implemented for 'BFloat16'", torch.ErrDType, svdS(x.ToDType(torch.BFloat16), true)},
		{"svd nil", "linalg_svd", "", torch.ErrArgument, svdS(nil, false)},
		{"svdvals 1-D", "linalg.svdvals", "linalg.svd: The input tensor A must have at least 2 dimensions.", torch.ErrShape, v.LinalgSvdvals()},
		{"svdvals int32", "linalg.svdvals", "Got Int", torch.ErrDType, x.ToDType(torch.Int32).LinalgSvdvals()},
		{"svdvals meta int", "linalg.svdvals", "Got Long", torch.ErrDType, torch.Zeros([]int{2, 2}, torch.WithDevice("meta"), torch.WithDType(torch.Int64)).LinalgSvdvals()},
		{"torch.svd 1-D", "svd", "linalg.svd: input should have at least 2 dimensions, but has 1 dimensions instead", torch.ErrShape, svdOld(v)},
		{"torch.svd int", "svd", "Got Long", torch.ErrDType, svdOld(x.ToDType(torch.Int64))},
		{"matrix_norm nuc int", "linalg.matrix_norm", "Expected a floating point", torch.ErrDType, x.ToDType(torch.Int64).LinalgMatrixNorm("nuc", [2]int{0, 1}, false)},
		{"matrix_norm 2 half", "linalg.matrix_norm", "Low precision dtypes not supported. Got Half", torch.ErrDType, x.ToDType(torch.Float16).LinalgMatrixNorm(2, [2]int{0, 1}, false)},
		{"matrix_norm -2 empty", "linalg.matrix_norm", "amin(): Expected reduction dim", torch.ErrIndex, torch.Zeros([]int{3, 0}).LinalgMatrixNorm(-2, [2]int{0, 1}, false)},
		{"norm nuc 3-D", "nuclear_norm", "Expected a tensor with 2 dimensions, but got a tensor with 3 dimensions instead.", torch.ErrShape, torch.Zeros([]int{2, 2, 2}).NormNuc()},
		{"norm nuc 1-D", "nuclear_norm", "but got a tensor with 1 dimension instead.", torch.ErrShape, v.NormNuc()},
		{"norm nuc one dim", "nuclear_norm", "nuclear norm requires a 'dim' argument of size 2", torch.ErrArgument, x.NormNuc(1)},
		{"norm nuc same dims", "nuclear_norm", "duplicate or invalid dimensions", torch.ErrArgument, x.NormNuc(1, -1)},
		{"norm nuc int", "nuclear_norm", "linalg.svd: Expected a floating point or complex tensor as input. Got Long", torch.ErrDType, x.ToDType(torch.Int64).NormNuc()},
		{"norm nuc half", "nuclear_norm", "not implemented for 'Half'", torch.ErrDType, x.ToDType(torch.Float16).NormNucKeepDim(0, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.got.Err()
			var e *torch.Error
			if !errors.As(err, &e) || e.Op != c.op || !errors.Is(err, c.kind) || !strings.Contains(e.Detail, c.msg) {
				t.Fatalf("error %v, want one of op %s, kind %v, with %q", err, c.op, c.kind, c.msg)
			}
		})
	}
	// Every output of a failed decomposition carries the error.
	u, s, vh := v.LinalgSvd(false)
	if u.Err() == nil || s.Err() == nil || vh.Err() == nil {
		t.Fatal("a failed svd left an output without its error")
	}
}

// TestSvdNorms checks the norms made of singular values against the
// decomposition, and their keepdim shapes.
func TestSvdNorms(t *testing.T) {
	torch.ManualSeed(2)
	a := torch.Randn([]int{2, 3, 4}, torch.WithDType(torch.Float64))
	s := a.Permute(1, 0, 2).LinalgSvdvals() // the matrices over dims (0, 2), batch dim 1
	cases := []struct {
		name string
		got  *torch.Tensor
		want *torch.Tensor
	}{
		{"nuc", a.LinalgMatrixNorm("nuc", [2]int{0, 2}, false), s.Sum(-1)},
		{"2", a.LinalgMatrixNorm(2, [2]int{0, 2}, false), s.Amax(-1)},
		{"-2", a.LinalgMatrixNorm(-2.0, [2]int{0, 2}, false), s.Amin(-1)},
		{"2 float", a.LinalgMatrixNorm(2.0, [2]int{2, 0}, false), s.Amax(-1)},
		{"nuc keepdim", a.LinalgMatrixNorm("nuc", [2]int{0, 2}, true), s.Sum(-1).View(1, 3, 1)},
		{"-2 keepdim", a.LinalgMatrixNorm(-2, [2]int{2, 0}, true), s.Amin(-1).View(1, 3, 1)},
		{"norm nuc dims", a.NormNuc(0, 2), s.Sum(-1)},
		{"norm nuc keepdim", a.NormNucKeepDim(-1, 0), s.Sum(-1).View(1, 3, 1)},
		{"norm nuc matrix", a.Select(0, 1).NormNuc(), a.Select(0, 1).LinalgSvdvals().Sum()},
	}
	for _, c := range cases {
		if !torch.AllClose(c.got, c.want, 1e-13, 1e-13, false) || !slices.Equal(c.got.Shape(), c.want.Shape()) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestSvdGradCheck(t *testing.T) {
	torch.ManualSeed(7)
	// Products with sign-invariant results: U diag(w) Uᵀ and Vhᵀ diag(w) Vh
	// depend on U and Vh only through the projectors of their pairs.
	projU := func(full bool) func(in ...*torch.Tensor) *torch.Tensor {
		return func(in ...*torch.Tensor) *torch.Tensor {
			u, s, _ := in[0].LinalgSvd(full)
			k := s.Shape()[s.Dim()-1]
			u = u.Narrow(-1, 0, k)
			w := torch.ArangeRange(1, float64(k)+1, 1, torch.WithDType(torch.Float64))
			return u.Mul(w).MatMul(u.MT())
		}
	}
	projV := func(full bool) func(in ...*torch.Tensor) *torch.Tensor {
		return func(in ...*torch.Tensor) *torch.Tensor {
			_, s, vh := in[0].LinalgSvd(full)
			k := s.Shape()[s.Dim()-1]
			vh = vh.Narrow(-2, 0, k)
			w := torch.ArangeRange(1, float64(k)+1, 1, torch.WithDType(torch.Float64))
			return vh.MT().Mul(w).MatMul(vh)
		}
	}
	all := func(full bool) func(in ...*torch.Tensor) *torch.Tensor {
		return func(in ...*torch.Tensor) *torch.Tensor {
			u, s, vh := in[0].LinalgSvd(full)
			k := s.Shape()[s.Dim()-1]
			u, vh = u.Narrow(-1, 0, k), vh.Narrow(-2, 0, k)
			// S, U and Vh together, sign-invariantly: U diag(S²) Vh.
			return u.Mul(s.Mul(s).Unsqueeze(-2)).MatMul(vh).Add(s.SumKeepDim(-1).Unsqueeze(-1))
		}
	}
	svdvals := func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgSvdvals() }
	var cases []gradCase
	for _, shape := range [][]int{{3, 3}, {4, 2}, {2, 4}, {2, 3, 2}} {
		label := shapeLabel(shape)
		cases = append(cases,
			gradCase{"svdvals " + label, svdvals, []*torch.Tensor{leaf(shape...)}, "LinalgSvdBackward0"},
			gradCase{"S " + label, func(in ...*torch.Tensor) *torch.Tensor { _, s, _ := in[0].LinalgSvd(false); return s }, []*torch.Tensor{leaf(shape...)}, "LinalgSvdBackward0"},
			gradCase{"U projector " + label, projU(false), []*torch.Tensor{leaf(shape...)}, ""},
			gradCase{"U projector full " + label, projU(true), []*torch.Tensor{leaf(shape...)}, ""},
			gradCase{"V projector " + label, projV(false), []*torch.Tensor{leaf(shape...)}, ""},
			gradCase{"V projector full " + label, projV(true), []*torch.Tensor{leaf(shape...)}, ""},
			gradCase{"U S Vh " + label, all(false), []*torch.Tensor{leaf(shape...)}, ""},
			gradCase{"nuc " + label, func(in ...*torch.Tensor) *torch.Tensor {
				return in[0].LinalgMatrixNorm("nuc", [2]int{-2, -1}, false)
			}, []*torch.Tensor{leaf(shape...)}, "SumBackward1"},
			gradCase{"2 " + label, func(in ...*torch.Tensor) *torch.Tensor {
				return in[0].LinalgMatrixNorm(2, [2]int{-2, -1}, false)
			}, []*torch.Tensor{leaf(shape...)}, "AmaxBackward0"},
			gradCase{"-2 " + label, func(in ...*torch.Tensor) *torch.Tensor {
				return in[0].LinalgMatrixNorm(-2, [2]int{-1, -2}, false)
			}, []*torch.Tensor{leaf(shape...)}, "AminBackward0"},
			gradCase{"2 keepdim " + label, func(in ...*torch.Tensor) *torch.Tensor {
				return in[0].LinalgMatrixNorm(2, [2]int{-1, -2}, true)
			}, []*torch.Tensor{leaf(shape...)}, "PermuteBackward0"},
		)
	}
	cases = append(cases,
		gradCase{"norm nuc", func(in ...*torch.Tensor) *torch.Tensor { return in[0].NormNuc() }, []*torch.Tensor{leaf(3, 2)}, "SumBackward1"},
		gradCase{"norm nuc keepdim dims", func(in ...*torch.Tensor) *torch.Tensor { return in[0].NormNucKeepDim(0, 2) }, []*torch.Tensor{leaf(3, 2, 4)}, "PermuteBackward0"},
		gradCase{"torch.svd V", func(in ...*torch.Tensor) *torch.Tensor {
			_, _, v := in[0].Svd(true, true)
			return v.Mul(v).Sum(0)
		}, []*torch.Tensor{leaf(4, 3)}, ""},
		gradCase{"torch.svd no uv", func(in ...*torch.Tensor) *torch.Tensor { _, s, _ := in[0].Svd(true, false); return s }, []*torch.Tensor{leaf(3, 4)}, "LinalgSvdBackward0"},
	)
	runGradCases(t, cases)
}

func shapeLabel(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = string(rune('0' + n))
	}
	return strings.Join(parts, "x")
}

// TestSvdGradNames checks the nodes PyTorch names: LinalgSvdBackward0 for
// U, S and Vh, TransposeBackward0 for torch.svd's V.
func TestSvdGradNames(t *testing.T) {
	a := leaf(4, 3)
	u, s, vh := a.LinalgSvd(false)
	for i, x := range []*torch.Tensor{u, s, vh} {
		if x.GradFn() == nil || x.GradFn().Name() != "LinalgSvdBackward0" {
			t.Errorf("output %d: grad_fn %v", i, x.GradFn())
		}
	}
	if _, _, v := a.Svd(true, true); v.GradFn() == nil || v.GradFn().Name() != "TransposeBackward0" {
		t.Errorf("torch.svd V: grad_fn %v", v.GradFn())
	}
	var s2 *torch.Tensor
	torch.NoGrad(func() { _, s2, _ = a.LinalgSvd(false) })
	if s2.RequiresGrad() {
		t.Error("svd under no_grad records")
	}
}

// TestSvdRepeatedSingularValues checks PyTorch's behaviour where the
// singular values repeat: the gradient through S is defined, the one
// through U or Vh is not (NaN).
func TestSvdRepeatedSingularValues(t *testing.T) {
	a := torch.Eye(3, torch.WithDType(torch.Float64)).RequiresGrad_(true)
	if err := a.LinalgSvdvals().Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if !torch.AllClose(a.Grad(), torch.Eye(3, torch.WithDType(torch.Float64)), 1e-15, 1e-15, false) {
		t.Fatalf("svdvals gradient of the identity %v, want the identity", a.Grad())
	}
	b := torch.Eye(3, torch.WithDType(torch.Float64)).RequiresGrad_(true)
	u, _, vh := b.LinalgSvd(false)
	if err := u.Sum().Add(vh.Sum()).Backward(); err != nil {
		t.Fatal(err)
	}
	if all, _ := b.Grad().IsNan().All().ItemBool(); !all {
		t.Fatalf("gradient through U and Vh of repeated singular values %v, want NaN as PyTorch", b.Grad())
	}
}

// TestSvdSavedModified checks that modifying an output in place before the
// backward pass is refused, as PyTorch refuses it.
func TestSvdSavedModified(t *testing.T) {
	a := leaf(3, 3)
	u, s, _ := a.LinalgSvd(false)
	loss := s.Sum()
	u.Detach().MulScalar_(2)
	if err := loss.Backward(); err == nil || !errors.Is(err, torch.ErrAutograd) {
		t.Fatalf("backward after U was modified: %v", err)
	}
}

// TestSvdGradEmptyAndDouble checks gradients of matrices without elements
// (zeros of the input's shape) and a second derivative through
// create_graph (the gradient of the nuclear norm, U Vh, is itself
// differentiated through U and Vh).
func TestSvdGradEmptyAndDouble(t *testing.T) {
	for _, shape := range [][]int{{0, 3}, {3, 0}, {2, 0, 0}} {
		a := torch.Zeros(shape, torch.WithDType(torch.Float64)).RequiresGrad_(true)
		if err := a.LinalgSvdvals().Sum().Backward(); err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if g := a.Grad(); g == nil || !slices.Equal(g.Shape(), shape) {
			t.Fatalf("%v: gradient %v", shape, g)
		}
	}
	torch.ManualSeed(9)
	a := leaf(3, 2)
	g, err := torch.Grad([]*torch.Tensor{a.LinalgMatrixNorm("nuc", [2]int{0, 1}, false)}, []*torch.Tensor{a}, torch.GradOptions{CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	w := torch.Randn([]int{3, 2}, torch.WithDType(torch.Float64))
	gg, err := torch.Grad([]*torch.Tensor{g[0].Mul(w).Sum()}, []*torch.Tensor{a}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Finite differences of <w, d nuc/dA> along each element.
	const eps = 1e-6
	grad := func(x *torch.Tensor) *torch.Tensor {
		x = x.Detach().RequiresGrad_(true)
		r, err := torch.Grad([]*torch.Tensor{x.LinalgMatrixNorm("nuc", [2]int{0, 1}, false)}, []*torch.Tensor{x}, torch.GradOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r[0].Mul(w).Sum()
	}
	for i := range 6 {
		e := torch.Zeros([]int{6}, torch.WithDType(torch.Float64))
		e.Narrow(0, i, 1).Fill_(eps)
		e = e.View(3, 2)
		hi, _ := grad(a.Detach().Add(e)).Item()
		lo, _ := grad(a.Detach().Sub(e)).Item()
		got, _ := gg[0].Reshape(-1).Select(0, i).Item()
		if num := (hi - lo) / (2 * eps); math.Abs(num-got) > 1e-5*math.Max(1, math.Abs(num)) {
			t.Fatalf("second derivative [%d]: %g, finite differences %g", i, got, num)
		}
	}
}
