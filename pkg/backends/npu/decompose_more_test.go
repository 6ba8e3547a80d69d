package npu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// hypot, the shifts, kthvalue, mode, scatter_reduce and unique have no NPU
// kernel: their decompositions (pkg/torch/decompose_more.go) run there,
// with no op on the host, and give the CPU's values and indices bit for
// bit (hypot of float64 within 2 ulp), for every dtype, contiguous,
// transposed, sliced, broadcast, 0-dim and empty inputs, NaN, ±Inf and
// -0.0; the forms whose CPU result an algorithm's order decides
// (kthvalue of a repeated value, mode of long slices with repeats or
// NaN) run on the host.

var (
	dNaN     = math.NaN()
	dInf     = math.Inf(1)
	dNegZero = math.Copysign(0, -1)
	dFloats  = []torch.DType{torch.Float32, torch.Float64, torch.Float16, torch.BFloat16}
	dInts    = []torch.DType{torch.Uint8, torch.Int8, torch.Int16, torch.Int32, torch.Int64}
)

// hostCalls is the number of calls of any op that ran on the host with
// NPU operands.
func hostCalls() uint64 {
	var n uint64
	for op := kernel.OpID(1); op < kernel.NumOps; op++ {
		n += dispatch.CountsOf(op, device.NPU).HostFallback
	}
	return n
}

// routedDecomposed runs f on the NPU and checks its route: op decomposed and
// nothing on the host (or no kernel at all, for an empty output), or
// (onHost) op on the host.
func routedDecomposed(t *testing.T, what string, op kernel.OpID, onHost bool, f func() []*torch.Tensor) []*torch.Tensor {
	t.Helper()
	before, hostBefore := dispatch.CountsOf(op, device.NPU), hostCalls()
	got := f()
	after := dispatch.CountsOf(op, device.NPU)
	switch {
	case onHost && after.HostFallback == before.HostFallback:
		t.Errorf("%s should run on the host: %v, before %v", what, after, before)
	case !onHost && (after.Native != before.Native || after.HostFallback != before.HostFallback || hostCalls() != hostBefore):
		t.Errorf("%s should be decomposed with nothing on the host: %v, before %v; %d host calls",
			what, after, before, hostCalls()-hostBefore)
	case !onHost && after.Decomposed == before.Decomposed && !emptyResults(got):
		t.Errorf("%s did not run its decomposition: %v, before %v", what, after, before)
	}
	return got
}

// emptyResults reports whether every result has no elements (the
// dispatcher then runs no kernel); nil results count as not empty.
func emptyResults(ts []*torch.Tensor) bool {
	for _, r := range ts {
		if r.Numel() != 0 {
			return false
		}
	}
	return len(ts) > 0
}

// matchCPU fails unless got has want's dtype, shape and values: integers
// equal, floating values of the same bits (any NaN matching any NaN), or
// within ulps units in the last place of float64.
func matchCPU(t *testing.T, what string, got, want *torch.Tensor, ulps float64) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Errorf("%s: %v (CPU: %v)", what, err, want.Err())
		return
	}
	if got.DType() != want.DType() || !equalShapes(got.Shape(), want.Shape()) {
		t.Errorf("%s: %v%v, want %v%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
		return
	}
	if !got.DType().IsFloatingPoint() {
		g, err := torch.ToSlice[int64](got.ToDType(torch.Int64))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		w, _ := torch.ToSlice[int64](want.ToDType(torch.Int64))
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("%s [%d]: %d, want %d", what, i, g[i], w[i])
				return
			}
		}
		return
	}
	g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
	for i := range w {
		same := math.Float64bits(g[i]) == math.Float64bits(w[i]) || g[i] != g[i] && w[i] != w[i]
		if !same && !(ulps > 0 && math.Abs(g[i]-w[i]) <= ulps*ulpOf(w[i])) {
			t.Errorf("%s [%d]: %v, want %v", what, i, g[i], w[i])
			return
		}
	}
}

// ulpOf is the spacing of float64 numbers at v.
func ulpOf(v float64) float64 {
	a := math.Abs(v)
	return math.Nextafter(a, dInf) - a
}

// valuesOf is the values as a CPU tensor of dtype d and shape.
func valuesOf(vals []float64, d torch.DType, shape ...int) *torch.Tensor {
	return torch.FromSlice(vals, torch.WithShape(shape...)).ToDType(d)
}

// intValuesOf is the values as a CPU tensor of integer dtype d (wrapped) and shape.
func intValuesOf(vals []int64, d torch.DType, shape ...int) *torch.Tensor {
	return torch.FromSlice(vals, torch.WithShape(shape...)).ToDType(d)
}

// binaryOnNPU runs a binary op on CPU tensors and on their NPU copies.
func binaryOnNPU(t *testing.T, what string, op kernel.OpID, a, b *torch.Tensor, f func(a, b *torch.Tensor) *torch.Tensor, ulps float64) {
	t.Helper()
	want := f(a, b)
	da, db := toNPU(t, a), toNPU(t, b)
	got := routedDecomposed(t, what, op, false, func() []*torch.Tensor { return []*torch.Tensor{f(da, db)} })
	matchCPU(t, what, got[0], want, ulps)
}

func TestHypotDecomposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	specials := [][2]float64{{dInf, dNaN}, {dNaN, -dInf}, {dNaN, 1}, {0, 0}, {dNegZero, 0}, {dNegZero, dNegZero}, {3, 4}, {-dInf, -dInf},
		{1e30, 1e30}, {1e-30, 3e-38}, {1e-45, 1e-45}, {3e38, 3e38}, {1e300, 1e300}, {1e-310, 4e-320}, {1.7e308, 1.7e308},
		{5e-324, 0}, {1, 1e-20}, {65504, 65504}, {1e-7, 6e-8}}
	n := 6 * 7
	av, bv := make([]float64, n), make([]float64, n)
	for i := range n {
		if i < len(specials) {
			av[i], bv[i] = specials[i][0], specials[i][1]
			continue
		}
		av[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		bv[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
	}
	hyp := func(a, b *torch.Tensor) *torch.Tensor { return a.Hypot(b) }
	for _, d := range dFloats {
		ulps := 0.0
		if d == torch.Float64 {
			ulps = 2
		}
		a, b := valuesOf(av, d, 6, 7), valuesOf(bv, d, 6, 7)
		name := "hypot " + d.String()
		binaryOnNPU(t, name, kernel.OpHypot, a, b, hyp, ulps)
		binaryOnNPU(t, name+" transposed", kernel.OpHypot, a.T(), b.T(), hyp, ulps)
		binaryOnNPU(t, name+" sliced", kernel.OpHypot, a.Narrow(1, 1, 3), b.Narrow(1, 2, 3), hyp, ulps)
		binaryOnNPU(t, name+" broadcast", kernel.OpHypot, a.Narrow(1, 0, 1), b.Narrow(0, 2, 1), hyp, ulps)
		binaryOnNPU(t, name+" 0-dim", kernel.OpHypot, a.Select(0, 0).Select(0, 0), b.Select(0, 1).Select(0, 1), hyp, ulps)
		binaryOnNPU(t, name+" empty", kernel.OpHypot, a.Narrow(0, 0, 0), b.Narrow(0, 0, 0), hyp, ulps)
		for _, s := range []float64{2.5, 1e-3, 0.1, dInf, dNaN} {
			binaryOnNPU(t, name+" scalar", kernel.OpHypot, a, b, func(a, _ *torch.Tensor) *torch.Tensor { return a.HypotScalar(s) }, ulps)
		}
		// A 0-dim CPU operand (a wrapped number weighs less than a tensor).
		c0 := torch.Scalar(0.3)
		binaryOnNPU(t, name+" with a 0-dim CPU tensor", kernel.OpHypot, a, b, func(a, _ *torch.Tensor) *torch.Tensor { return a.Hypot(c0) }, ulps)
	}
	// float32 against glibc's hypotf on values over the whole range.
	m := 4096
	xs, ys := make([]float32, m), make([]float32, m)
	for i := range m {
		xs[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(250)-125)))
		ys[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(250)-125)))
	}
	binaryOnNPU(t, "hypot float32 wide", kernel.OpHypot, torch.FromSlice(xs), torch.FromSlice(ys), hyp, 0)
	// In place and into a float64 output.
	a, b := valuesOf(av, torch.Float32, 6, 7), valuesOf(bv, torch.Float32, 6, 7)
	da, db := toNPU(t, a), toNPU(t, b)
	got := routedDecomposed(t, "hypot_", kernel.OpHypot, false, func() []*torch.Tensor { return []*torch.Tensor{da.Clone().Hypot_(db)} })
	matchCPU(t, "hypot_", got[0], a.Clone().Hypot_(b), 0)
	want64 := torch.Zeros([]int{6, 7}, torch.WithDType(torch.Float64))
	torch.Into(want64).Hypot(a, b)
	got64 := toNPU(t, torch.Zeros([]int{6, 7}, torch.WithDType(torch.Float64)))
	routedDecomposed(t, "hypot into float64", kernel.OpHypot, false, func() []*torch.Tensor {
		torch.Into(got64).Hypot(da, db)
		return nil
	})
	matchCPU(t, "hypot into float64", got64, want64, 0)
	settle(t)
}

func TestHypotGradientDecomposed(t *testing.T) {
	for _, d := range []torch.DType{torch.Float32, torch.Float64} {
		a := valuesOf([]float64{3, -1, 0.5, 2, 1e-3, -7}, d, 2, 3)
		b := valuesOf([]float64{4, 2, -0.25, 0, 5, 1}, d, 2, 3)
		ha, hb := a.Detach().RequiresGrad_(true), b.Detach().RequiresGrad_(true)
		da, db := toNPU(t, a).RequiresGrad_(true), toNPU(t, b).RequiresGrad_(true)
		up := valuesOf([]float64{1, -2, 0.5, 3, 1, -1}, d, 2, 3)
		if err := ha.Hypot(hb).BackwardWith(torch.BackwardOptions{Grad: up}); err != nil {
			t.Fatal(err)
		}
		routedDecomposed(t, "hypot backward", kernel.OpHypot, false, func() []*torch.Tensor {
			if err := da.Hypot(db).BackwardWith(torch.BackwardOptions{Grad: toNPU(t, up)}); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		closeTo(t, "hypot gradient a "+d.String(), da.Grad(), ha.Grad(), 1e-6, 0)
		closeTo(t, "hypot gradient b "+d.String(), db.Grad(), hb.Grad(), 1e-6, 0)
	}
	settle(t)
}

func TestShiftsDecomposed(t *testing.T) {
	for _, d := range dInts {
		w := int64(8 * d.ItemSize())
		xs := []int64{0, 1, -1, 5, -7, 0x55, -0x56, 1<<(w-1) - 1, -1 << (w - 1), 1 << (w - 2), 3}
		counts := []int64{-3, -1, 0, 1, 2, 3, w / 2, w - 2, w - 1, w, w + 1, 100, 1 << (w - 1)}
		x, y := intValuesOf(xs, d, len(xs), 1), intValuesOf(counts, d, 1, len(counts))
		for _, left := range []bool{true, false} {
			name, op := "right shift "+d.String(), kernel.OpBitwiseRightShift
			f := func(a, b *torch.Tensor) *torch.Tensor { return a.BitwiseRightShift(b) }
			fs := func(a *torch.Tensor, s int64) *torch.Tensor { return a.BitwiseRightShiftScalar(s) }
			if left {
				name, op = "left shift "+d.String(), kernel.OpBitwiseLeftShift
				f = func(a, b *torch.Tensor) *torch.Tensor { return a.BitwiseLeftShift(b) }
				fs = func(a *torch.Tensor, s int64) *torch.Tensor { return a.BitwiseLeftShiftScalar(s) }
			}
			binaryOnNPU(t, name+" broadcast", op, x, y, f, 0)
			xx, yy := x.Expand(len(xs), len(counts)).Contiguous(), y.Expand(len(xs), len(counts)).Contiguous()
			binaryOnNPU(t, name+" transposed", op, xx.T(), yy.T(), f, 0)
			binaryOnNPU(t, name+" sliced", op, xx.Narrow(1, 2, 5), yy.Narrow(1, 1, 5), f, 0)
			binaryOnNPU(t, name+" 0-dim", op, xx.Select(0, 4).Select(0, 3), yy.Select(0, 0).Select(0, 12), f, 0)
			binaryOnNPU(t, name+" empty", op, xx.Narrow(0, 0, 0), yy.Narrow(0, 0, 0), f, 0)
			for _, s := range []int64{0, 3, -1, w - 1, w, 300, -300} {
				binaryOnNPU(t, name+" scalar", op, x, y, func(a, _ *torch.Tensor) *torch.Tensor { return fs(a, s) }, 0)
			}
		}
		// Mixed dtypes promote; in place on a view.
		binaryOnNPU(t, "left shift int64 count", kernel.OpBitwiseLeftShift, x, intValuesOf(counts, torch.Int64, 1, len(counts)),
			func(a, b *torch.Tensor) *torch.Tensor { return a.BitwiseLeftShift(b) }, 0)
		// Random values of the whole range by every count.
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		rv, rc := make([]int64, 64), make([]int64, w)
		for i := range rv {
			rv[i] = int64(rng.Uint64())
		}
		for i := range rc {
			rc[i] = int64(i)
		}
		rx, ry := intValuesOf(rv, d, 64, 1), intValuesOf(rc, d, 1, int(w))
		binaryOnNPU(t, "left shift of random values "+d.String(), kernel.OpBitwiseLeftShift, rx, ry,
			func(a, b *torch.Tensor) *torch.Tensor { return a.BitwiseLeftShift(b) }, 0)
		binaryOnNPU(t, "right shift of random values "+d.String(), kernel.OpBitwiseRightShift, rx, ry,
			func(a, b *torch.Tensor) *torch.Tensor { return a.BitwiseRightShift(b) }, 0)
		hx := x.Expand(len(xs), 4).Contiguous()
		dx := toNPU(t, hx)
		dc := toNPU(t, y.Narrow(1, 3, 4))
		routedDecomposed(t, "right shift_ of a view", kernel.OpBitwiseRightShift, false, func() []*torch.Tensor {
			dx.T().BitwiseRightShift_(dc.T())
			return nil
		})
		hx.T().BitwiseRightShift_(y.Narrow(1, 3, 4).T())
		matchCPU(t, "right shift_ of a view "+d.String(), dx, hx, 0)
	}
	settle(t)
}

// distinctValues is n distinct values in random order: halves -n/2+0.5 ... for
// floats (no zero, so that -0.0 put in stays distinct), small integers
// (0 ... n-1 for uint8) for the others.
func distinctValues(rng *rand.Rand, n int, d torch.DType) []float64 {
	v := make([]float64, n)
	for i, p := range rng.Perm(n) {
		switch {
		case d.IsFloatingPoint():
			v[i] = float64(p-n/2) + 0.5
		case d == torch.Uint8:
			v[i] = float64(p)
		default:
			v[i] = float64(p - n/2)
		}
	}
	return v
}

func TestKthvalueDecomposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range append(append([]torch.DType(nil), dFloats...), dInts...) {
		v := distinctValues(rng, 45, d)
		if d.IsFloatingPoint() {
			v[3], v[11], v[20], v[30] = dNaN, dInf, -dInf, dNegZero
		}
		x := valuesOf(v, d, 5, 9)
		for _, c := range []struct {
			name     string
			x        *torch.Tensor
			k, dim   int
			keepDims bool
		}{
			{"dim 1", x, 4, 1, false}, {"dim 0 keepdim", x, 5, 0, true}, {"first", x, 1, -1, false}, {"last", x, 9, 1, true},
			{"transposed", x.T(), 2, 1, false}, {"sliced", x.Narrow(1, 2, 5), 3, 0, false},
			{"0-dim", x.Select(0, 1).Select(0, 2), 1, 0, false}, {"0-dim keepdim", x.Select(0, 1).Select(0, 2), 1, -1, true},
			{"empty", x.Narrow(0, 0, 0), 2, 1, false},
		} {
			name := "kthvalue " + c.name + " " + d.String()
			wv, wi := c.x.Kthvalue(c.k, c.dim, c.keepDims)
			dx := toNPU(t, c.x)
			got := routedDecomposed(t, name, kernel.OpKthvalue, false, func() []*torch.Tensor {
				gv, gi := dx.Kthvalue(c.k, c.dim, c.keepDims)
				return []*torch.Tensor{gv, gi}
			})
			matchCPU(t, name+" values", got[0], wv, 0)
			matchCPU(t, name+" indices", got[1], wi, 0)
		}
		// A repeated k-th value: the CPU's quickselect picks the index, on the host.
		r := valuesOf([]float64{2, 1, 2, 3, 2, 0, 2, dNaN, dNaN, 1}, d, 2, 5)
		ks := []int{3, 5} // 2 repeated in row 0, NaN in row 1
		if !d.IsFloatingPoint() {
			r = valuesOf([]float64{2, 1, 2, 3, 2, 0, 2, 1, 1, 1}, d, 2, 5)
			ks = []int{2, 3}
		}
		for _, k := range ks {
			wv, wi := r.Kthvalue(k, 1, false)
			dr := toNPU(t, r)
			got := routedDecomposed(t, "kthvalue of a repeated value", kernel.OpKthvalue, true, func() []*torch.Tensor {
				gv, gi := dr.Kthvalue(k, 1, false)
				return []*torch.Tensor{gv, gi}
			})
			matchCPU(t, "kthvalue tie values "+d.String(), got[0], wv, 0)
			matchCPU(t, "kthvalue tie indices "+d.String(), got[1], wi, 0)
		}
	}
	settle(t)
}

func TestModeDecomposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	small := make([]float64, 4*12)
	for i := range small {
		small[i] = float64(rng.IntN(4))
	}
	dtypes := append(append([]torch.DType{torch.Bool}, dFloats...), dInts...)
	for _, d := range dtypes {
		v := append([]float64(nil), small...)
		if d.IsFloatingPoint() {
			v[5], v[17] = dNegZero, dNegZero // -0.0 and 0.0 are one value
		}
		x := valuesOf(v, d, 4, 12)
		long := valuesOf(distinctValues(rng, 40, d), d, 2, 20)
		type modeCase struct {
			name   string
			x      *torch.Tensor
			dim    int
			keep   bool
			onHost bool
		}
		cases := []modeCase{
			{"dim 1", x, 1, false, false}, {"dim 0 keepdim", x, 0, true, false}, {"transposed", x.T(), 0, false, false},
			{"sliced", x.Narrow(1, 3, 7), 1, false, false}, {"0-dim", x.Select(0, 2).Select(0, 5), 0, false, false},
			{"empty", x.Narrow(0, 0, 0), 1, true, false},
		}
		if d != torch.Bool {
			cases = append(cases, modeCase{"long distinct", long, 1, false, false},
				modeCase{"long repeated", valuesOf(small, d, 2, 24), 1, false, true})
		}
		if d.IsFloatingPoint() {
			withNaN := append([]float64(nil), small...)
			withNaN[7] = dNaN
			cases = append(cases, modeCase{"NaN", valuesOf(withNaN, d, 4, 12), 1, false, true})
		}
		for _, c := range cases {
			name := "mode " + c.name + " " + d.String()
			wv, wi := c.x.Mode(c.dim, c.keep)
			dx := toNPU(t, c.x)
			got := routedDecomposed(t, name, kernel.OpMode, c.onHost, func() []*torch.Tensor {
				gv, gi := dx.Mode(c.dim, c.keep)
				return []*torch.Tensor{gv, gi}
			})
			matchCPU(t, name+" values", got[0], wv, 0)
			matchCPU(t, name+" indices", got[1], wi, 0)
		}
	}
	settle(t)
}

// TestSelectGradientsDecomposed checks kthvalue's and mode's gradients on
// the NPU: each value's to the index it came from.
func TestSelectGradientsDecomposed(t *testing.T) {
	repeats := valuesOf([]float64{3, 1, 2, 1, 5, 0.5, 2, 2, 4, -1, 0, 7}, torch.Float32, 3, 4)
	distinct := valuesOf([]float64{3, 1, 2, 0, 5, 0.5, 2, 4, -1, 0, 7, 6}, torch.Float32, 3, 4)
	up := valuesOf([]float64{1, -2, 3}, torch.Float32, 3)
	for _, c := range []struct {
		op     kernel.OpID
		x      *torch.Tensor
		onHost bool
	}{
		{kernel.OpMode, repeats, false}, {kernel.OpKthvalue, distinct, false}, {kernel.OpKthvalue, repeats, true},
	} {
		f := func(x *torch.Tensor) *torch.Tensor {
			if c.op == kernel.OpMode {
				v, _ := x.Mode(1, false)
				return v
			}
			v, _ := x.Kthvalue(2, 1, false) // repeats: 2 twice in row 1
			return v
		}
		hx := c.x.Detach().RequiresGrad_(true)
		dx := toNPU(t, c.x).RequiresGrad_(true)
		if err := f(hx).BackwardWith(torch.BackwardOptions{Grad: up}); err != nil {
			t.Fatal(err)
		}
		routedDecomposed(t, c.op.String()+" backward", c.op, c.onHost, func() []*torch.Tensor {
			if err := f(dx).BackwardWith(torch.BackwardOptions{Grad: toNPU(t, up)}); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		matchCPU(t, c.op.String()+" gradient", dx.Grad(), hx.Grad(), 0)
	}
	settle(t)
}

// scatterData is self [4, 5], an index [3, 4] with repeated positions
// along both dims, and src [4, 5], of dtype d: floats with NaN, ±0 and
// ±Inf, integers with negatives.
func scatterData(d torch.DType) (self, index, src *torch.Tensor) {
	sv := []float64{1, -2, 3, 0.5, 4, dNegZero, 2, -1, 6, 0, 3, 3, -5, 2, 1, 7, 0, 2, -3, 1}
	xv := []float64{2, dNegZero, 0, 1.5, 3, -2, 5, dNaN, 0, 2, -1, 4, 2, 3, 0.25, -4, dInf, 1, 2, -dInf}
	if !d.IsFloatingPoint() {
		for i := range sv {
			sv[i], xv[i] = float64(int(sv[i])), float64(int(xv[i])*3-1)
		}
		if d == torch.Uint8 {
			for i := range sv {
				sv[i], xv[i] = math.Abs(sv[i]), math.Abs(xv[i])
			}
		}
	}
	iv := []int64{0, 3, 2, 0, 0, 1, 2, 3, 3, 0, 2, 0}
	return valuesOf(sv, d, 4, 5), intValuesOf(iv, torch.Int64, 3, 4), valuesOf(xv, d, 4, 5)
}

// scatterRandom is self [5, 6], an index [40, 6] into it along dim 0 and
// src [40, 6] of random values of dtype d (small integers for integer
// dtypes, so that products stay small).
func scatterRandom(d torch.DType) (self, index, src *torch.Tensor) {
	rng := rand.New(rand.NewPCG(8, 9))
	sv, xv, iv := make([]float64, 30), make([]float64, 240), make([]int64, 240)
	for i := range sv {
		sv[i] = rng.NormFloat64()
	}
	for i := range xv {
		xv[i], iv[i] = rng.NormFloat64()*3, int64(rng.IntN(5))
		if !d.IsFloatingPoint() {
			xv[i] = float64(rng.IntN(3))
		}
	}
	return valuesOf(sv, d, 5, 6), intValuesOf(iv, torch.Int64, 40, 6), valuesOf(xv, d, 40, 6)
}

func TestScatterReduceDecomposed(t *testing.T) {
	for _, d := range append(append([]torch.DType(nil), dFloats...), dInts...) {
		self, index, src := scatterData(d)
		manySelf, manyIndex, manySrc := scatterRandom(d)
		for _, reduce := range []string{"sum", "prod", "mean", "amax", "amin"} {
			for _, include := range []bool{true, false} {
				name := "scatter_reduce " + reduce + " " + d.String()
				if !include {
					name += " excluding self"
				}
				for _, c := range []struct {
					what    string
					s, i, x *torch.Tensor
					dim     int
				}{
					{"dim 0", self, index, src, 0},
					{"dim 1", self, index, src, 1},
					{"transposed", self.T(), index.T(), src.T(), 0},
					{"sliced", self.Narrow(1, 1, 4), index.Narrow(0, 1, 2), src.Narrow(0, 1, 3), 0},
					{"0-dim", self.Select(0, 0).Select(0, 1), torch.Scalar(int64(0)), src.Select(0, 2).Select(0, 2), 0},
					{"empty index", self, index.Narrow(0, 0, 0), src, 0},
					{"many repeats", manySelf, manyIndex, manySrc, 0},
					{"many repeats dim 1", manySelf.T(), manyIndex.T(), manySrc.T(), 1},
				} {
					f := func(s, i, x *torch.Tensor) *torch.Tensor { return s.ScatterReduce(c.dim, i, x, reduce, include) }
					want := f(c.s, c.i, c.x)
					ds, di, dx := toNPU(t, c.s), toNPU(t, c.i), toNPU(t, c.x)
					got := routedDecomposed(t, name+" "+c.what, kernel.OpScatterReduce, false, func() []*torch.Tensor {
						return []*torch.Tensor{f(ds, di, dx)}
					})
					matchCPU(t, name+" "+c.what, got[0], want, 0)
				}
				// In place.
				want := self.Clone().ScatterReduce_(0, index, src, reduce, include)
				ds := toNPU(t, self)
				got := routedDecomposed(t, name+" in place", kernel.OpScatterReduce, false, func() []*torch.Tensor {
					return []*torch.Tensor{ds.ScatterReduce_(0, toNPU(t, index), toNPU(t, src), reduce, include)}
				})
				matchCPU(t, name+" in place", got[0], want, 0)
			}
		}
	}
	// Integer means of negative sums divide by floor division, as the CPU's.
	s := intValuesOf([]int64{-7, 5, 0, 9}, torch.Int64, 4)
	i := intValuesOf([]int64{0, 0, 1, 1, 3, 3, 3}, torch.Int64, 7)
	x := intValuesOf([]int64{-4, 2, -3, -1, math.MaxInt64, math.MaxInt64, -5}, torch.Int64, 7)
	for _, include := range []bool{true, false} {
		want := s.ScatterReduce(0, i, x, "mean", include)
		got := routedDecomposed(t, "integer mean", kernel.OpScatterReduce, false, func() []*torch.Tensor {
			return []*torch.Tensor{toNPU(t, s).ScatterReduce(0, toNPU(t, i), toNPU(t, x), "mean", include)}
		})
		matchCPU(t, "integer mean", got[0], want, 0)
	}
	// An index out of range is the CPU's error.
	self, _, src := scatterData(torch.Float32)
	bad := intValuesOf([]int64{0, 4, 1, 0}, torch.Int64, 1, 4)
	want := self.ScatterReduce(0, bad, src, "amax", true)
	got := toNPU(t, self).ScatterReduce(0, toNPU(t, bad), toNPU(t, src), "amax", true)
	if want.Err() == nil || got.Err() == nil || kernel.AsOpError(got.Err()).Detail != kernel.AsOpError(want.Err()).Detail {
		t.Errorf("an index out of range: %v, want %v", got.Err(), want.Err())
	}
	settle(t)
}

func TestScatterReduceGradientDecomposed(t *testing.T) {
	self, index, src := scatterData(torch.Int32) // finite values
	self, src = self.ToDType(torch.Float32), src.ToDType(torch.Float32)
	up := valuesOf([]float64{1, -2, 3, 0.5, 4, 1, 2, -1, 6, 0, 3, 3, -5, 2, 1, 7, 0, 2, -3, 1}, torch.Float32, 4, 5)
	for _, include := range []bool{true, false} {
		hs, hx := self.Detach().RequiresGrad_(true), src.Detach().RequiresGrad_(true)
		ds, dx := toNPU(t, self).RequiresGrad_(true), toNPU(t, src).RequiresGrad_(true)
		if err := hs.ScatterReduce(0, index, hx, "sum", include).BackwardWith(torch.BackwardOptions{Grad: up}); err != nil {
			t.Fatal(err)
		}
		routedDecomposed(t, "scatter_reduce backward", kernel.OpScatterReduce, false, func() []*torch.Tensor {
			g := ds.ScatterReduce(0, toNPU(t, index), dx, "sum", include)
			if err := g.BackwardWith(torch.BackwardOptions{Grad: toNPU(t, up)}); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		matchCPU(t, "scatter_reduce gradient self", ds.Grad(), hs.Grad(), 0)
		matchCPU(t, "scatter_reduce gradient src", dx.Grad(), hx.Grad(), 0)
	}
	settle(t)
}

func TestUniqueDecomposed(t *testing.T) {
	vals := []float64{3, 1, dNaN, 0, 2, dNegZero, 3, dInf, dNaN, 1, -dInf, 2, 0, 5, 1}
	rng := rand.New(rand.NewPCG(10, 11))
	rv := make([]int64, 300)
	for i := range rv {
		rv[i] = int64(rng.IntN(40))
	}
	random := intValuesOf(rv, torch.Int64, 20, 15)
	for _, d := range append(append([]torch.DType{torch.Bool}, dFloats...), dInts...) {
		v := vals
		if !d.IsFloatingPoint() {
			v = []float64{3, 1, 4, 0, 2, 0, 3, 7, 4, 1, 6, 2, 0, 5, 1}
		}
		x := valuesOf(v, d, 3, 5)
		for _, c := range []struct {
			name string
			x    *torch.Tensor
		}{
			{"contiguous", x}, {"transposed", x.T()}, {"sliced", x.Narrow(1, 1, 3)}, {"0-dim", x.Select(0, 1).Select(0, 2)},
			{"empty", x.Narrow(0, 0, 0)}, {"one", x.Narrow(1, 0, 1).Narrow(0, 0, 1)}, {"random", random.ToDType(d)},
		} {
			name := "unique " + c.name + " " + d.String()
			wv, wi, wc := c.x.Unique()
			dx := toNPU(t, c.x)
			got := routedDecomposed(t, name, kernel.OpUnique, false, func() []*torch.Tensor {
				gv, gi, gc := dx.Unique()
				return []*torch.Tensor{gv, gi, gc}
			})
			matchCPU(t, name+" values", got[0], wv, 0)
			matchCPU(t, name+" inverse", got[1], wi, 0)
			matchCPU(t, name+" counts", got[2], wc, 0)
		}
	}
	settle(t)
}
