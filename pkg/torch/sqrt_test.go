package torch_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestSqrtBits checks sqrt against Go's correctly rounded math.Sqrt bit
// for bit, for float32 and float64, over every length up to past two
// vectors (the vector loop's tails), strided and in place, with the edge
// values: -0 stays -0, negatives and NaN give NaN, +Inf stays +Inf, and
// subnormals keep their exact roots.
func TestSqrtBits(t *testing.T) {
	edges := []float64{0, math.Copysign(0, -1), -1, math.NaN(), math.Inf(1), math.Inf(-1), 4, 2, 1e-40, 5e-324, 1e300, 0.5}
	for n := 0; n <= 40; n++ {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = edges[i%len(edges)] * (1 + float64(i/len(edges)))
		}
		x64 := torch.FromSlice(vals)
		x32 := x64.ToDType(torch.Float32)
		check64(t, "contiguous f64", x64, x64.Sqrt(), func(v float64) float64 { return math.Sqrt(v) })
		check32(t, "contiguous f32", x32, x32.Sqrt())
		if n > 1 {
			s64 := x64.Slice(0, 0, n, 2)
			check64(t, "strided f64", s64, s64.Sqrt(), func(v float64) float64 { return math.Sqrt(v) })
			s32 := x32.Slice(0, 0, n, 2)
			check32(t, "strided f32", s32, s32.Sqrt())
		}
		in := x32.Clone()
		check32(t, "in place f32", x32, in.Sqrt_())
	}
}

func check64(t *testing.T, what string, x, y *torch.Tensor, f func(float64) float64) {
	t.Helper()
	xs, err := torch.ToSlice[float64](x)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := torch.ToSlice[float64](y)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range xs {
		want := f(v)
		if math.IsNaN(want) != math.IsNaN(ys[i]) || (!math.IsNaN(want) && math.Float64bits(want) != math.Float64bits(ys[i])) {
			t.Fatalf("%s: sqrt(%v) = %v, want %v", what, v, ys[i], want)
		}
	}
}

func check32(t *testing.T, what string, x, y *torch.Tensor) {
	t.Helper()
	xs, err := torch.ToSlice[float32](x)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := torch.ToSlice[float32](y)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range xs {
		// The float64 root of a float32 rounds to float32 correctly.
		want := float32(math.Sqrt(float64(v)))
		if (want != want) != (ys[i] != ys[i]) || (want == want && math.Float32bits(want) != math.Float32bits(ys[i])) {
			t.Fatalf("%s: sqrt(%v) = %v, want %v", what, v, ys[i], want)
		}
	}
}
