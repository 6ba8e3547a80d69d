package torch_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The float32 erf (and so gelu) is a polynomial in C (cgo/cpukernels/
// fasterf.h) that the compiler vectorises, checked here against Go's
// float64 erf rounded to float32; float64 stays libm's.

// ulps32 is the distance in float32 steps between a and b (0 for two NaNs).
func ulps32(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	key := func(f float32) int64 {
		b := int64(int32(math.Float32bits(f)))
		if b < 0 {
			return math.MinInt32 - b
		}
		return b
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return d
}

// sweep32 is every step-th float32 (both signs, zeros, subnormals, ±Inf
// and NaNs included) and the special values.
func sweep32(step uint32) []float32 {
	var xs []float32
	for b := uint64(0); b < 1<<32; b += uint64(step) {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	return append(xs, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1, -1, 4, -4, 3.9193, 1e-45, -1e-45)
}

// f32s is the elements of x as float32.
func f32s(t *testing.T, x *torch.Tensor) []float32 {
	t.Helper()
	v, err := torch.ToSlice[float32](x.Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestErfFloat32WithinOneULP(t *testing.T) {
	xs := sweep32(9973)
	x := torch.FromSlice(xs)
	got := f32s(t, x.Erf())
	worst := int64(0)
	for i, v := range xs {
		want := float32(math.Erf(float64(v)))
		d := ulps32(got[i], want)
		if d > 1 || want == 0 && math.Signbit(float64(got[i])) != math.Signbit(float64(want)) {
			t.Fatalf("erf(%g) = %g, want %g (%d ulp)", v, got[i], want, d)
		}
		worst = max(worst, d)
	}
	t.Logf("%d values, worst %d ulp", len(xs), worst)
}

// TestGeluFloat32 checks the exact gelu of float32 against x/2 (1 +
// erf(x/√2)) in float64 from the same rounded x/√2: within 4 ulp, plus
// |x| 2^-24 where 1 + erf cancels (x < 0, the same freedom the float
// formula has); NaN, ±Inf and -0 as the formula gives them; on
// contiguous, transposed and strided views, 0-dim and empty tensors.
func TestGeluFloat32(t *testing.T) {
	xs := sweep32(49999)
	got := f32s(t, torch.FromSlice(xs).Gelu())
	check := func(name string, x, g float32) {
		t.Helper()
		u := x * float32(1/math.Sqrt2)
		want := float32(0.5 * float64(x) * (1 + math.Erf(float64(u))))
		switch {
		case x != x || math.IsInf(float64(x), -1): // -Inf * 0
			if g == g {
				t.Fatalf("%s: gelu(%g) = %g, want NaN", name, x, g)
			}
			return
		case x == 0 || x < -6:
			if g != 0 || math.Signbit(float64(g)) != math.Signbit(float64(x)) {
				t.Fatalf("%s: gelu(%g) = %g, want a zero of x's sign", name, x, g)
			}
			return
		}
		step := math.Abs(float64(math.Nextafter32(want, float32(math.Inf(1))) - want))
		if math.Abs(float64(g-want)) > 4*step+math.Abs(float64(x))*0x1p-24 {
			t.Fatalf("%s: gelu(%g) = %g, want %g", name, x, g, want)
		}
	}
	for i, x := range xs {
		check("contiguous", x, got[i])
	}
	base := torch.FromSlice(xs[:4096], torch.WithShape(64, 64))
	for name, v := range map[string]*torch.Tensor{"transposed": base.T(), "strided": base.Slice(1, 0, 64, 3)} {
		in, out := f32s(t, v), f32s(t, v.Gelu())
		for i := range in {
			check(name, in[i], out[i])
		}
	}
	if g := f32s(t, torch.Scalar(float32(-1.5)).Gelu()); len(g) != 1 || ulps32(g[0], float32(-0.75*math.Erfc(1.5/math.Sqrt2))) > 2 {
		t.Errorf("0-dim gelu(-1.5) = %v", g)
	}
	if e := torch.Empty([]int{0, 3}).Gelu(); e.Err() != nil || e.Numel() != 0 {
		t.Errorf("empty gelu: %v", e.Err())
	}
}

// TestGeluBackward checks the fused gradient of gelu (both forms, float32
// and float64) against its formula in float64, and its own gradient
// (double backward) by finite differences.
func TestGeluBackward(t *testing.T) {
	k := math.Sqrt(2 / math.Pi)
	deriv := map[string]func(x float64) float64{
		"none": func(x float64) float64 {
			return 0.5*(1+math.Erf(x/math.Sqrt2)) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
		},
		"tanh": func(x float64) float64 {
			th := math.Tanh(k * (x + 0.044715*x*x*x))
			return 0.5*(1+th) + 0.5*x*(1-th*th)*k*(1+3*0.044715*x*x)
		},
	}
	xs := []float64{-8, -3.5, -1, -0.25, math.Copysign(0, -1), 0, 0.3, 1, 2.5, 7}
	for mode, f := range deriv {
		for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
			x := torch.FromSlice(xs).ToDType(dt).RequiresGrad_(true)
			y := x.Gelu()
			if mode == "tanh" {
				y = x.GeluTanh()
			}
			g := torch.FullLike(y, 3)
			gx, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x}, torch.GradOptions{GradOutputs: []*torch.Tensor{g}})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := torch.ToSlice[float64](gx[0].ToDType(torch.Float64))
			tol := 1e-14
			if dt == torch.Float32 {
				tol = 1e-6
			}
			for i, v := range xs {
				if want := 3 * f(v); math.Abs(got[i]-want) > tol*(1+math.Abs(want)) {
					t.Errorf("%s %s: gelu'(%g) * 3 = %g, want %g", mode, dt, v, got[i], want)
				}
			}
		}
		// first is gelu's gradient for g at x, as a graph when create.
		first := func(x, g *torch.Tensor, create bool) *torch.Tensor {
			y := x.Gelu()
			if mode == "tanh" {
				y = x.GeluTanh()
			}
			gx, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x},
				torch.GradOptions{GradOutputs: []*torch.Tensor{g}, CreateGraph: create})
			if err != nil {
				t.Fatal(err)
			}
			return gx[0]
		}
		at := func(v ...float64) *torch.Tensor { return torch.FromSlice(v).RequiresGrad_(true) }
		xv, gv := []float64{-2.5, -0.7, 0.1, 1.3, 3}, []float64{0.5, -1, 2, 0.25, 1.5}
		x, g := at(xv...), at(gv...)
		gx := first(x, g, true)
		// d/dx and d/dg of sum(gx), by autograd and by central differences.
		d, err := torch.Grad([]*torch.Tensor{gx.Sum()}, []*torch.Tensor{x, g}, torch.GradOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dx, _ := torch.ToSlice[float64](d[0])
		dg, _ := torch.ToSlice[float64](d[1])
		const h = 1e-6
		for i := range xv {
			p, m := append([]float64(nil), xv...), append([]float64(nil), xv...)
			p[i] += h
			m[i] -= h
			fp, _ := torch.ToSlice[float64](first(at(p...), at(gv...), false))
			fm, _ := torch.ToSlice[float64](first(at(m...), at(gv...), false))
			if num := (fp[i] - fm[i]) / (2 * h); math.Abs(dx[i]-num) > 1e-6*(1+math.Abs(num)) {
				t.Errorf("%s: d2/dx2 at %g: %g, finite differences %g", mode, xv[i], dx[i], num)
			}
			if want := f(xv[i]); math.Abs(dg[i]-want) > 1e-12 {
				t.Errorf("%s: d/dg at %g: %g, want %g", mode, xv[i], dg[i], want)
			}
		}
		if name, want := gx.GradFn().Name(), "GeluBackwardBackward0"; name != want {
			t.Errorf("%s: grad_fn %s, want %s", mode, name, want)
		}
	}
}
