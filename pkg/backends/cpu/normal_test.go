package cpu

import (
	"math"
	"slices"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
)

// needNormalAVX2 skips a test of the C transform on a CPU without it.
func needNormalAVX2(t *testing.T) {
	t.Helper()
	if !cpukernels.NormalAVX2() {
		t.Skip("the CPU lacks AVX2 or FMA: float32 normal_ runs the Go transform only")
	}
}

// sameFloat32s reports the first index where got and want differ in their
// bits (NaN payloads included), or -1.
func sameFloat32s(got, want []float32) int {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i
		}
	}
	return -1
}

// TestNormalFloat32CMatchesGo draws float32 uniforms as normalFillFloat32
// does (with and without a redrawn tail), transforms them with the C kernel
// and with the Go emulation, and requires the same bits, for several seeds
// and means and standard deviations: 0, negative (normal_ refuses it, the
// transform does not care), tiny ones whose results are subnormal, huge
// ones that overflow, and NaN (payloads compared too).
func TestNormalFloat32CMatchesGo(t *testing.T) {
	needNormalAVX2(t)
	params := []struct{ mean, std float32 }{
		{0, 1}, {0.3, 1.7}, {-2, 0.5}, {0, 0}, {5, 0}, {0, -1}, {1, -3.25}, {100, 1e-3},
		{0, 1e-39}, {0, 3e-42}, {-1e-39, 2e-39}, {1e-38, 1e-38}, {0, 1e-45},
		{0, 1e38}, {-3e38, 3e38}, {float32(math.Inf(1)), 1}, {float32(math.NaN()), 1}, {0, float32(math.NaN())},
	}
	subnormal := 0
	for _, seed := range []uint64{0, 1, 42, 67280421310721, 1<<32 + 5} {
		for _, n := range []int{16, 17, 31, 100_000, 100_003} {
			g := NewGenerator(seed)
			u := make([]float32, n)
			uniformFill(u, g, 24)
			var tail *[16]float32
			if n%16 != 0 {
				tail = new([16]float32)
				uniformFill(tail[:], g, 24)
			}
			for _, p := range params {
				got, want := slices.Clone(u), slices.Clone(u)
				if err := boxMullerFloat32C(got, tail, p.mean, p.std); err != nil {
					t.Fatal(err)
				}
				boxMullerFloat32Go(want, tail, p.mean, p.std)
				if i := sameFloat32s(got, want); i >= 0 {
					t.Errorf("seed %d n %d mean %g std %g [%d] (uniform %g): C %g (%#x), Go %g (%#x)", seed, n, p.mean,
						p.std, i, u[i], got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
				for _, v := range got {
					if v != 0 && math.Abs(float64(v)) < 0x1p-126 {
						subnormal++
					}
				}
			}
		}
	}
	if subnormal == 0 {
		t.Error("no subnormal result was compared")
	}
}

// TestNormalFloat32CEveryUniform runs every float32 uniform PyTorch can draw
// (k/2^24, k < 2^24) through both lanes of the transform (as u1 = 1 - u,
// the logarithm's input, and as u2, the angle's), in C and in Go.
func TestNormalFloat32CEveryUniform(t *testing.T) {
	needNormalAVX2(t)
	if testing.Short() {
		t.Skip("2^24 uniforms through the Go emulation take a second or two")
	}
	const blocks = 1 << 14 // per chunk: 8 uniforms per block, in both halves
	u := make([]float32, 16*blocks)
	got, want := make([]float32, len(u)), make([]float32, len(u))
	for k0 := 0; k0 < 1<<24; k0 += 8 * blocks {
		for b := range blocks {
			for j := range 8 {
				k := k0 + 8*b + j
				u[16*b+j] = float32(k) * 0x1p-24
				// the angle's uniforms in another order, so that each lane
				// pairs different values of the two functions
				u[16*b+8+j] = float32((k*7919+k0)&(1<<24-1)) * 0x1p-24
			}
		}
		copy(got, u)
		copy(want, u)
		if err := boxMullerFloat32C(got, nil, 0, 1); err != nil {
			t.Fatal(err)
		}
		boxMullerFloat32Go(want, nil, 0, 1)
		if i := sameFloat32s(got, want); i >= 0 {
			t.Fatalf("[%d] uniforms %g, %g: C %g (%#x), Go %g (%#x)", i, u[i&^15+i%8], u[i&^15+8+i%8],
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestNormalFloat32Fill runs normalFillFloat32 (C where it can) against
// the uniforms transformed in Go, to check the draws' order: the tail's 16
// uniforms come after all the others, and the generator ends where it
// would.
func TestNormalFloat32Fill(t *testing.T) {
	for _, n := range []int{16, 17, 32, 47, 1000, 1003} {
		g1, g2 := NewGenerator(7), NewGenerator(7)
		got := make([]float32, n)
		normalFillFloat32(got, g1, 0.5, 2)
		want := make([]float32, n)
		for i := range want {
			want[i] = float32(g2.Uint32()&(1<<24-1)) * 0x1p-24
		}
		var tail *[16]float32
		if n%16 != 0 {
			tail = new([16]float32)
			for i := range tail {
				tail[i] = float32(g2.Uint32()&(1<<24-1)) * 0x1p-24
			}
		}
		boxMullerFloat32Go(want, tail, 0.5, 2)
		if i := sameFloat32s(got, want); i >= 0 {
			t.Errorf("n %d [%d]: got %g want %g", n, i, got[i], want[i])
		}
		if a, b := g1.Uint32(), g2.Uint32(); a != b {
			t.Errorf("n %d: the generator goes on with %#x, want %#x", n, a, b)
		}
	}
}

// TestFillUniform32MatchesUint32 checks the inlined draws of fillUniform32
// against Uint32, for each float32 precision, across the twister's
// refills (624 draws) from positions inside the state.
func TestFillUniform32MatchesUint32(t *testing.T) {
	for _, digits := range []uint{24, 11, 8} {
		for _, skip := range []int{0, 1, 623, 624, 700} {
			for _, n := range []int{1, 16, 623, 624, 625, 5000} {
				g1, g2 := NewGenerator(3), NewGenerator(3)
				for range skip {
					g1.Uint32()
					g2.Uint32()
				}
				got := make([]float32, n)
				uniformFill(got, g1, digits)
				for i, v := range got {
					w := float32(float64(g2.Uint32()&(1<<digits-1)) / float64(uint64(1)<<digits))
					if math.Float32bits(v) != math.Float32bits(w) {
						t.Fatalf("digits %d skip %d n %d [%d]: got %g want %g", digits, skip, n, i, v, w)
					}
				}
				if a, b := g1.Uint32(), g2.Uint32(); a != b {
					t.Fatalf("digits %d skip %d n %d: the generator goes on with %#x, want %#x", digits, skip, n, a, b)
				}
			}
		}
	}
}
