package torch_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestNativeGroupNormGolden checks values, stats and gradients against
// PyTorch 1.13's torch.native_group_norm (2 samples, 4 channels of 3
// elements, 2 groups).
func TestNativeGroupNormGolden(t *testing.T) {
	v := []float64{1, 2, 4, 8, 16, -3, 0.5, 0.25, 7, -1, 2, 3}
	for _, e := range v[:12] {
		v = append(v, -0.5*e)
	}
	x := torch.FromSlice(v).Reshape(2, 4, 3).RequiresGrad_(true)
	w := torch.FromSlice([]float64{0.5, 1, 1.5, -2}).RequiresGrad_(true)
	b := torch.FromSlice([]float64{0, 1, -1, 0.5}).RequiresGrad_(true)
	y, m, r := torch.NativeGroupNorm(x, w, b, 2, 1e-5)
	if got := y.GradFn().Name(); got != "NativeGroupNormBackward0" {
		t.Errorf("grad_fn %s", got)
	}
	lnClose(t, "y", lnValues(t, y), []float64{-0.30322477405647386, -0.22052710840470824, -0.05513177710117706,
		1.5513177710117705, 2.87448042144002, -0.26803087332707237, -1.84403336588329, -1.988724800034711,
		1.9179439220536594, 2.7829092943890887, 0.46784634796635083, -0.3038413008412285, 0.30322464963304496,
		0.2205270179149418, 0.05513175447873547, 0.4486824552126456, -0.8744796522770051, 2.268030353010915,
		-0.15596851894819042, -0.011277407910737336, -3.9179374059219705, -1.7829041963687038, 0.5321535802305453,
		1.3038395057636283}, 1e-12)
	lnClose(t, "mean", lnValues(t, m), []float64{4.666666666666667, 1.9583333333333333, -2.3333333333333335, -0.9791666666666666}, 1e-12)
	lnClose(t, "rstd", lnValues(t, r), []float64{0.16539533130353118, 0.38584382440378967, 0.33079052687241267, 0.771685925533083}, 1e-12)
	g := torch.Arange(24, torch.WithDType(torch.Float64)).Reshape(2, 4, 3).Sin()
	gs, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x, w, b}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}})
	if err != nil {
		t.Fatal(err)
	}
	lnClose(t, "gx", lnValues(t, gs[0]), []float64{0.013247056258139694, 0.08447864281414044, 0.09337553203586689,
		0.0480949495356262, -0.08726603720422324, -0.15193014343955, -0.2858948859169497, 0.2823347626982173,
		-0.2346492949793449, -0.28457231878828765, 0.13800240728023244, 0.3847793297061328, -0.04460151523204697,
		0.10403366931294702, 0.17917165147964265, 0.19201865489264427, -0.19516667076819866, -0.23545578968498831,
		-0.5187769060724611, 0.5952127632834866, -0.4442659233901637, -0.5134800151988258, -0.0631048311289163,
		0.9444149125068801}, 1e-12)
	lnClose(t, "gw", lnValues(t, gs[1]), []float64{-0.5022567520546037, -1.1627912941479142, -0.45095869941211764, 0.41417992328175995}, 1e-12)
	lnClose(t, "gb", lnValues(t, gs[2]), []float64{2.6249698861546547, -2.1736197302987046, 1.678764560762149, -1.150308907127835}, 1e-12)
}

// groupComposite is the group norm in tensor ops, the kernel's reference.
func groupComposite(x *torch.Tensor, groups int, w, b *torch.Tensor, eps float64) *torch.Tensor {
	s := x.Shape()
	per := s[1] / groups
	for _, d := range s[2:] {
		per *= d
	}
	g := x.Reshape(s[0], groups, per)
	y := g.Sub(g.MeanKeepDim(2)).Mul(g.VarCorrection(0, true, 2).AddScalar(eps).Rsqrt()).Reshape(s...)
	ws := make([]int, len(s))
	for i := range ws {
		ws[i] = 1
	}
	ws[1] = s[1]
	return y.Mul(w.Reshape(ws...)).Add(b.Reshape(ws...))
}

// TestNativeGroupNormLayouts runs the kernel on transposed, sliced,
// expanded, 2-D, empty, large and NaN inputs in both dtypes against the
// composite, checks gradients by finite differences and the
// differentiable backward against the fused one.
func TestNativeGroupNormLayouts(t *testing.T) {
	gen := torch.WithGenerator(torch.NewGenerator(11))
	f64 := torch.WithDType(torch.Float64)
	base := torch.Randn([]int{4, 6, 5, 7}, f64, gen)
	special := base.Clone()
	torch.NoGrad(func() { special.Select(0, 1).Select(0, 2).Select(0, 3).Fill_(math.NaN()) })
	inputs := map[string]*torch.Tensor{
		"contiguous": base,
		"transposed": base.Transpose(2, 3),
		"sliced":     base.Slice(3, 0, 7, 2),
		"expanded":   base.Select(0, 0).Unsqueeze(0).Expand(3, 6, 5, 7),
		"2-D":        base.Select(2, 0).Select(2, 0),
		"empty":      base.Narrow(0, 0, 0),
		"nan":        special,
		"large":      torch.Randn([]int{8, 6, 40, 40}, f64, gen),
	}
	w, b := torch.Randn([]int{6}, f64, gen), torch.Randn([]int{6}, f64, gen)
	for name, x := range inputs {
		for _, dt := range []torch.DType{torch.Float64, torch.Float32} {
			tol := 1e-12
			if dt == torch.Float32 {
				tol = 1e-5
			}
			xs, ws, bs := x.ToDType(dt), w.ToDType(dt), b.ToDType(dt)
			y, _, _ := torch.NativeGroupNorm(xs, ws, bs, 3, 1e-5)
			lnClose(t, name, lnValues(t, y), lnValues(t, groupComposite(xs, 3, ws, bs, 1e-5)), tol)
		}
	}
	x := torch.Randn([]int{2, 6, 3}, f64, gen).Transpose(1, 2).Transpose(1, 2).RequiresGrad_(true)
	wg, bg := w.Clone().RequiresGrad_(true), b.Clone().RequiresGrad_(true)
	f := func(in ...*torch.Tensor) *torch.Tensor {
		y, _, _ := torch.NativeGroupNorm(in[0], in[1], in[2], 2, 1e-5)
		return y
	}
	if err := torch.GradCheck(f, []*torch.Tensor{x, wg, bg}, torch.GradCheckOptions{}); err != nil {
		t.Error(err)
	}
	xl := inputs["large"].Clone().RequiresGrad_(true)
	y := f(xl, wg, bg)
	g := torch.RandnLike(y, gen)
	fused, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{xl, wg, bg}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}, RetainGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{xl, wg, bg}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}, CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fused {
		lnClose(t, "create_graph", lnValues(t, ops[i]), lnValues(t, fused[i]), 1e-9)
	}
	if y, _, _ := torch.NativeGroupNorm(base, nil, nil, 4, 1e-5); y.Err() == nil {
		t.Error("6 channels in 4 groups: no error")
	}
	if y, _, _ := torch.NativeGroupNorm(base.ToDType(torch.Int32), nil, nil, 3, 1e-5); y.Err() == nil {
		t.Error("int32: no error")
	}
}
