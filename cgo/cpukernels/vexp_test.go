package cpukernels_test

import (
	"math"
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
)

// expInputs are the float32 values the exp loops are checked on: the ends of
// mt_expf's range (and of sigmoid's, mirrored) and of float32, zeros, NaNs
// with payloads and signs, and every 4099th bit pattern. (Every one of the
// 2^32 patterns was checked once, for all four ops, when vexp.h last
// changed: the same comparison over every pattern takes three minutes.)
func expInputs() []float32 {
	special := []float32{
		0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5,
		float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		88.7228394, 88.72283, 88.7229, -103.972084, -103.97208, -103.9721, -87.33654, -87.3366,
		-100, -104, -150, 89, 100,
		// The same ends mirrored, where sigmoid and silu clamp -x.
		-88.7228394, -88.72283, -88.7229, 103.972084, 103.97208, 103.9721, 87.33654, 87.3366, 104, 150, -89,
		// Where erf's two branches and its clamp meet in gelu's gradient: |x|/sqrt(2) at 1 and 4.
		1.4142135, 1.4142137, -1.4142135, 5.656854, 5.656855, -5.656854,
		math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
	}
	xs := append([]float32(nil), special...)
	for b := uint64(0); b < 1<<32; b += 4099 {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	return xs
}

// runLoop runs op over xs with the given element strides (1: contiguous),
// through the table's loop, or with generated through the loop the
// compiler generated. A two-operand op (gelu's gradient) gets a gradient
// that depends on each x as its first operand and xs as its second.
func runLoop(t *testing.T, op int, xs []float32, stride int, generated ...bool) []float32 {
	t.Helper()
	in := make([]float32, len(xs)*stride)
	grad := make([]float32, len(xs)*stride)
	out := make([]float32, len(xs)*stride)
	for i, x := range xs {
		in[i*stride] = x
		grad[i*stride] = float32(math.Float32bits(x)%13) - 6.5
	}
	var p [cpukernels.MaxOps]unsafe.Pointer
	var s [cpukernels.MaxOps]int64
	p[0], p[1] = unsafe.Pointer(&out[0]), unsafe.Pointer(&in[0])
	s[0], s[1] = int64(4*stride), int64(4*stride)
	if op == cpukernels.OpGeluBackward {
		p[1], p[2] = unsafe.Pointer(&grad[0]), unsafe.Pointer(&in[0])
		s[2] = int64(4 * stride)
	}
	run := func() error {
		return cpukernels.Pointwise1D(op, cpukernels.DTypeF32, len(xs), &p, &s, &cpukernels.Attrs{})
	}
	if len(generated) > 0 && generated[0] {
		run = func() error { return cpukernels.PointwiseGenerated1D(op, len(xs), &p, &s) }
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	res := make([]float32, len(xs))
	for i := range res {
		res[i] = out[i*stride]
	}
	return res
}

// TestVectorExpMatchesScalar checks that the loops of float32 exp,
// sigmoid, silu and gelu's gradient (vexp.h's intrinsics where the CPU has
// AVX-512), on contiguous and strided rows, give the bits of the loops the
// compiler generated from the scalar formulas (contiguous),
// give the bits of their strided loops (the scalar formula), NaN payloads
// included, also on the tails of rows shorter than a vector.
func TestVectorExpMatchesScalar(t *testing.T) {
	if active, expected := cpukernels.VexpActive(); active != expected {
		t.Fatalf("vexp.h's loops in the table: %v, expected on this CPU: %v", active, expected)
	}
	xs := expInputs()
	for _, c := range []struct {
		name string
		op   int
	}{{"exp", cpukernels.OpExp}, {"sigmoid", cpukernels.OpSigmoid}, {"silu", cpukernels.OpSilu},
		{"gelu_backward", cpukernels.OpGeluBackward}} {
		gen := runLoop(t, c.op, xs, 1, true)
		for _, stride := range []int{1, 2} {
			got := runLoop(t, c.op, xs, stride)
			bad := 0
			for i := range xs {
				if math.Float32bits(got[i]) != math.Float32bits(gen[i]) {
					if bad++; bad <= 5 {
						t.Errorf("%s(%g = %#08x), stride %d: %g (%#08x), the generated loop %g (%#08x)", c.name, xs[i],
							math.Float32bits(xs[i]), stride, got[i], math.Float32bits(got[i]), gen[i], math.Float32bits(gen[i]))
					}
				}
			}
		}
		// The masked tail: every length of a last vector, over finite
		// values of every magnitude and the special ones.
		mixed := make([]float32, 0, 48)
		for i := range 40 {
			mixed = append(mixed, float32(math.Ldexp(float64(i%7)-3.3, i%9-2)))
		}
		mixed = append(mixed, expInputs()[:8]...)
		want := runLoop(t, c.op, mixed, 1, true)
		for n := 1; n <= len(mixed); n++ {
			got := runLoop(t, c.op, mixed[len(mixed)-n:], 1)
			for i := range got {
				if w := want[len(mixed)-n+i]; math.Float32bits(got[i]) != math.Float32bits(w) {
					t.Fatalf("%s, row of %d: element %d is %g, want %g", c.name, n, i, got[i], w)
				}
			}
		}
	}
}

// TestVectorExpAccuracy checks float32 exp within 2 ulp of the exact value
// (float64 exp rounded), +Inf past the top of the range, 0 below the bottom
// and NaN for NaN.
func TestVectorExpAccuracy(t *testing.T) {
	xs := expInputs()
	got := runLoop(t, cpukernels.OpExp, xs, 1)
	for i, x := range xs {
		want := math.Exp(float64(x))
		g := float64(got[i])
		switch {
		case x != x:
			if g == g {
				t.Errorf("exp(NaN) = %g", g)
			}
		case want > math.MaxFloat32:
			if !math.IsInf(g, 1) && got[i] != math.MaxFloat32 {
				t.Errorf("exp(%g) = %g, want +Inf", x, g)
			}
		default:
			w := float32(want)
			if d := ulps(got[i], w); d > 2 {
				t.Errorf("exp(%g) = %g, want %g: %d ulp", x, got[i], w, d)
			}
		}
	}
}

// ulps is the distance between two non-negative float32 values in units in
// the last place.
func ulps(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}
