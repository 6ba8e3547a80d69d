package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// lnValues returns x's elements as float64s.
func lnValues(t *testing.T, x *torch.Tensor) []float64 {
	t.Helper()
	v, err := torch.ToSlice[float64](x.ToDType(torch.Float64).Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lnClose fails unless got and want agree within tol (relative to 1 and
// to want), NaN matching NaN.
func lnClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.IsNaN(want[i]) && math.IsNaN(got[i]) || got[i] == want[i] {
			continue
		}
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestNativeLayerNormGolden checks values, stats and gradients against
// PyTorch 1.13's torch.native_layer_norm.
func TestNativeLayerNormGolden(t *testing.T) {
	x := torch.FromSlice([]float64{1, 2, 4, 8, 16, -3, 0.5, 0.25, 7, -1}).Reshape(2, 5).RequiresGrad_(true)
	w := torch.FromSlice([]float64{0.5, 1, 1.5, 2, -1}).RequiresGrad_(true)
	b := torch.FromSlice([]float64{0, 1, -1, 0.5, 2}).RequiresGrad_(true)
	y, m, r := torch.NativeLayerNorm(x, []int{5}, w, b, 1e-5)
	if got := y.GradFn().Name(); got != "NativeLayerNormBackward0" {
		t.Errorf("grad_fn %s", got)
	}
	if s := m.Shape(); len(s) != 2 || s[0] != 2 || s[1] != 1 {
		t.Errorf("mean of shape %v, want [2 1]", s)
	}
	lnClose(t, "y", lnValues(t, y), []float64{-0.47660304374496876, 0.23010277548889657, -1.6049192478301526,
		1.1599119067238028, 0.20357314280742544, -0.5577786131722924, 0.9256295182436943, -1.223111445268917,
		4.2185240878152825, 2.5205933722941394}, 1e-12)
	lnClose(t, "mean", lnValues(t, m), []float64{6.2, 0.75}, 1e-12)
	lnClose(t, "rstd", lnValues(t, r), []float64{0.18330886297883414, 0.29748192702522264}, 1e-12)
	g := torch.FromSlice([]float64{1, -1, 0.5, 2, 0, 0.25, 3, -2, 1, 1}).Reshape(2, 5)
	gs, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x, w, b}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}})
	if err != nil {
		t.Fatal(err)
	}
	lnClose(t, "gx", lnValues(t, gs[0]), []float64{-0.01835553997656407, -0.30212701945751297, 0.0010471207300514346,
		0.5615681853604717, -0.24213274665644618, 0.2571620126038403, 0.8446396945154169, -0.9211245206154947,
		0.04984674495916597, -0.23052393146292857}, 1e-12)
	lnClose(t, "gw", lnValues(t, gs[1]), []float64{-1.2320953940760837, 0.5467857792421865, 0.09584217774850501,
		2.519173950631444, -0.5205933722941396}, 1e-12)
	lnClose(t, "gb", lnValues(t, gs[2]), []float64{1.25, 2, -1.5, 3, 1}, 1e-12)
}

// composite is the layer norm (or RMS norm) in tensor ops over the last
// n dims, the reference of the fused kernel.
func composite(x *torch.Tensor, n int, w, b *torch.Tensor, eps float64, rms bool) *torch.Tensor {
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	var y *torch.Tensor
	if rms {
		y = x.Mul(x.Square().MeanKeepDim(dims...).AddScalar(eps).Rsqrt())
	} else {
		y = x.Sub(x.MeanKeepDim(dims...)).Mul(x.VarCorrection(0, true, dims...).AddScalar(eps).Rsqrt())
	}
	if w != nil {
		y = y.Mul(w)
	}
	if b != nil {
		y = y.Add(b)
	}
	return y
}

// TestNativeLayerNormLayouts runs the kernel on transposed, sliced and
// expanded inputs, over one and two dims, in both dtypes, with and
// without a weight and bias, with NaN and Inf in a row, against the
// composite.
func TestNativeLayerNormLayouts(t *testing.T) {
	base := torch.Randn([]int{6, 8, 10}, torch.WithDType(torch.Float64), torch.WithGenerator(torch.NewGenerator(3)))
	special := base.Clone()
	torch.NoGrad(func() {
		special.Select(0, 1).Select(0, 2).Select(0, 3).Fill_(math.NaN())
		special.Select(0, 2).Select(0, 0).Select(0, 1).Fill_(math.Inf(1))
	})
	inputs := map[string]*torch.Tensor{
		"contiguous":  base,
		"transposed":  base.Transpose(0, 2),
		"sliced":      base.Slice(2, 1, 9, 2),
		"expanded":    base.Select(0, 0).Select(0, 0).Expand(4, 3, 10),
		"nan and inf": special,
		"empty rows":  base.Narrow(0, 0, 0),
	}
	for name, x := range inputs {
		for _, dt := range []torch.DType{torch.Float64, torch.Float32} {
			for _, n := range []int{1, 2} {
				xs := x.ToDType(dt)
				shape := xs.Shape()[xs.Dim()-n:]
				gen := torch.WithGenerator(torch.NewGenerator(5))
				w := torch.Randn(shape, torch.WithDType(dt), gen)
				b := torch.Randn(shape, torch.WithDType(dt), gen)
				tol := 1e-12
				if dt == torch.Float32 {
					tol = 1e-5
				}
				for _, affine := range []bool{true, false} {
					ww, bb := w, b
					if !affine {
						ww, bb = nil, nil
					}
					y, _, _ := torch.NativeLayerNorm(xs, shape, ww, bb, 1e-5)
					lnClose(t, name+" layer", lnValues(t, y), lnValues(t, composite(xs, n, ww, bb, 1e-5, false)), tol)
					r, _ := torch.FusedRMSNorm(xs, shape, ww, 1e-6)
					lnClose(t, name+" rms", lnValues(t, r), lnValues(t, composite(xs, n, ww, nil, 1e-6, true)), tol)
				}
			}
		}
	}
}

// TestNativeLayerNormGradCheck checks both norms' gradients by finite
// differences, over the last two dims of a transposed input.
func TestNativeLayerNormGradCheck(t *testing.T) {
	gen := torch.WithGenerator(torch.NewGenerator(7))
	f64 := torch.WithDType(torch.Float64)
	x := torch.Randn([]int{4, 3, 5}, f64, gen).Transpose(0, 1).RequiresGrad_(true)
	w := torch.Randn([]int{4, 5}, f64, gen).RequiresGrad_(true)
	b := torch.Randn([]int{4, 5}, f64, gen).RequiresGrad_(true)
	layer := func(in ...*torch.Tensor) *torch.Tensor {
		y, _, _ := torch.NativeLayerNorm(in[0], []int{4, 5}, in[1], in[2], 1e-5)
		return y
	}
	if err := torch.GradCheck(layer, []*torch.Tensor{x, w, b}, torch.GradCheckOptions{}); err != nil {
		t.Error("layer norm:", err)
	}
	rms := func(in ...*torch.Tensor) *torch.Tensor {
		y, _ := torch.FusedRMSNorm(in[0], []int{4, 5}, in[1], 1e-5)
		return y
	}
	if err := torch.GradCheck(rms, []*torch.Tensor{x, w}, torch.GradCheckOptions{}); err != nil {
		t.Error("rms norm:", err)
	}
	// A differentiable backward (create_graph) by tensor ops agrees, on
	// an input large enough to split across the pool.
	x = torch.Randn([]int{2000, 4, 5}, f64, gen).RequiresGrad_(true)
	y := layer(x, w, b)
	g := torch.OnesLike(y).MulScalar(0.5)
	fused, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x, w, b}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}, RetainGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x, w, b}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}, CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fused {
		lnClose(t, "create_graph", lnValues(t, ops[i]), lnValues(t, fused[i]), 1e-10)
	}
}

// TestNativeLayerNormErrors checks PyTorch's refusals.
func TestNativeLayerNormErrors(t *testing.T) {
	x := torch.Zeros([]int{2, 3})
	for _, c := range []struct {
		y    *torch.Tensor
		kind error
		msg  string
	}{
		{lnOut(torch.NativeLayerNorm(x, []int{4}, nil, nil, 1e-5)), torch.ErrShape,
			"Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"},
		{lnOut(torch.NativeLayerNorm(x, nil, nil, nil, 1e-5)), torch.ErrShape, "Expected normalized_shape to be at least 1-dimensional"},
		{lnOut(torch.NativeLayerNorm(x.ToDType(torch.Int64), []int{3}, nil, nil, 1e-5)), torch.ErrDType,
			"not implemented for 'Long'"},
		{lnOut(torch.NativeLayerNorm(x, []int{3}, torch.Ones([]int{2}), nil, 1e-5)), torch.ErrShape, "shape"},
		{lnOut(torch.NativeLayerNorm(nil, []int{3}, nil, nil, 1e-5)), nil, ""},
	} {
		err := c.y.Err()
		if err == nil {
			t.Errorf("no error, want %q", c.msg)
			continue
		}
		if c.kind != nil && (!errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("error %v, want %v with %q", err, c.kind, c.msg)
		}
	}
}

func lnOut(y, _, _ *torch.Tensor) *torch.Tensor { return y }

// TestNormsOfEmptyRows checks the statistics of rows with no elements as
// PyTorch 1.13 gives them (native_layer_norm of a [3, 0] input,
// native_group_norm of [2, 4, 0]): mean 0, rstd NaN.
func TestNormsOfEmptyRows(t *testing.T) {
	_, mean, rstd := torch.NativeLayerNorm(torch.Empty([]int{3, 0}), []int{0}, nil, nil, 1e-5)
	_, gmean, grstd := torch.NativeGroupNorm(torch.Empty([]int{2, 4, 0}), nil, nil, 2, 1e-5)
	for name, pair := range map[string][2]*torch.Tensor{"layer norm": {mean, rstd}, "group norm": {gmean, grstd}} {
		m, err := torch.ToSlice[float32](pair[0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := torch.ToSlice[float32](pair[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range m {
			if m[i] != 0 || math.Signbit(float64(m[i])) || !math.IsNaN(float64(r[i])) {
				t.Errorf("%s: row %d: mean %v, rstd %v; want 0, NaN", name, i, m[i], r[i])
			}
		}
	}
}
