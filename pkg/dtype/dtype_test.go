package dtype

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamesAndSizes(t *testing.T) {
	tests := []struct {
		d      DType
		name   string
		size   int
		float  bool
		signed bool
	}{
		{Bool, "bool", 1, false, false},
		{Uint8, "uint8", 1, false, false},
		{Int8, "int8", 1, false, true},
		{Int16, "int16", 2, false, true},
		{Int32, "int32", 4, false, true},
		{Int64, "int64", 8, false, true},
		{Float16, "float16", 2, true, true},
		{BFloat16, "bfloat16", 2, true, true},
		{Float32, "float32", 4, true, true},
		{Float64, "float64", 8, true, true},
	}
	for _, tc := range tests {
		got := []any{tc.d.Name(), tc.d.ItemSize(), tc.d.IsFloatingPoint(), tc.d.IsSigned(), tc.d.String()}
		want := []any{tc.name, tc.size, tc.float, tc.signed, "torch." + tc.name}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: (-want +got)\n%s", tc.d, diff)
		}
		p, err := Parse(tc.d.String())
		if err != nil || p != tc.d {
			t.Errorf("Parse(%q) = %v, %v", tc.d.String(), p, err)
		}
	}
	if _, err := Parse("complex64"); err == nil {
		t.Error("Parse(complex64) succeeded")
	}
}

func TestDefault(t *testing.T) {
	defer SetDefault(Float32)
	if err := SetDefault(Int32); err == nil {
		t.Error("SetDefault(int32) succeeded")
	}
	if err := SetDefault(Float64); err != nil || Default() != Float64 {
		t.Fatalf("SetDefault(float64): %v, default %v", err, Default())
	}
	var r ResultType
	r.Add(Int32, Dimensioned)
	r.Add(Float32, Scalar) // a float Go scalar counts as the default dtype
	if got := r.Result(); got != Float64 {
		t.Errorf("int32 tensor + float scalar with float64 default = %v", got)
	}
}

func TestFloat16Edges(t *testing.T) {
	tests := []struct {
		in   float32
		bits uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},                 // largest finite
		{65519.99, 0x7bff},              // just below the rounding boundary to inf
		{65520, 0x7c00},                 // ties to even: rounds to infinity
		{1e10, 0x7c00},                  // overflow
		{float32(math.Inf(-1)), 0xfc00}, // -inf
		{6.1035156e-05, 0x0400},         // smallest normal 2^-14
		{5.9604645e-08, 0x0001},         // smallest subnormal 2^-24
		{2.9802322e-08, 0x0000},         // exactly half of it: tie to even (0)
		{2.9802326e-08, 0x0001},         // just above half
		{8.940697e-08, 0x0002},          // 1.5 * 2^-24: tie to even (2)
		{1.0009766, 0x3c01},             // 1 + 2^-10
		{1.0004883, 0x3c00},             // 1 + 2^-11: tie to even (down)
		{1.0014648, 0x3c02},             // 1 + 3*2^-11: tie to even (up)
		{0.1, 0x2e66},
	}
	for _, tc := range tests {
		if got := F16FromFloat32(tc.in); uint16(got) != tc.bits {
			t.Errorf("F16FromFloat32(%g) = %#04x, want %#04x", tc.in, uint16(got), tc.bits)
		}
	}
	if got := F16FromFloat32(float32(math.NaN())); got.Float32() == got.Float32() {
		t.Errorf("NaN converts to %#04x, not a NaN", uint16(got))
	}
}

func TestFloat16RoundTripAll(t *testing.T) {
	// Every finite float16 converts to float32 and back unchanged.
	for b := 0; b < 1<<16; b++ {
		h := F16(b)
		f := h.Float32()
		if f != f {
			continue
		}
		if back := F16FromFloat32(f); back != h {
			t.Fatalf("%#04x -> %g -> %#04x", b, f, uint16(back))
		}
	}
}

func TestFloat16RoundingExhaustiveNeighbours(t *testing.T) {
	// Between two adjacent float16 values the result must be the nearer one,
	// ties to the even one. Check the midpoint and its float32 neighbours.
	for b := 0; b < 0x7bff; b++ {
		lo, hi := F16(b), F16(b+1)
		mid := (float64(lo.Float32()) + float64(hi.Float32())) / 2
		m := float32(mid) // exact: the midpoint fits in float32
		even := lo
		if b&1 == 1 {
			even = hi
		}
		if got := F16FromFloat32(m); got != even {
			t.Fatalf("midpoint %g of %#04x,%#04x -> %#04x, want %#04x", m, b, b+1, uint16(got), uint16(even))
		}
		if got := F16FromFloat32(math.Nextafter32(m, 0)); got != lo {
			t.Fatalf("below midpoint %g -> %#04x, want %#04x", m, uint16(got), b)
		}
		if got := F16FromFloat32(math.Nextafter32(m, 1e9)); got != hi {
			t.Fatalf("above midpoint %g -> %#04x, want %#04x", m, uint16(got), b+1)
		}
	}
}

func TestBFloat16(t *testing.T) {
	tests := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3f80},
		{-1, 0xbf80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81}, // above tie
		{math.Float32frombits(0x7f7fffff), 0x7f80}, // max float32 rounds to inf
		{float32(math.Inf(1)), 0x7f80},
		{float32(math.NaN()), 0x7fc0},
	}
	for _, tc := range tests {
		if got := BF16FromFloat32(tc.in); uint16(got) != tc.bits {
			t.Errorf("BF16FromFloat32(%g) = %#04x, want %#04x", tc.in, uint16(got), tc.bits)
		}
	}
	for b := 0; b < 1<<16; b++ {
		v := BF16(b).Float32()
		if v == v && BF16FromFloat32(v) != BF16(b) {
			t.Fatalf("bfloat16 %#04x does not round-trip", b)
		}
	}
}
