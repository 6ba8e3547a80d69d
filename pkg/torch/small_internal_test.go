package torch

import (
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// bitsOf returns a float tensor's values as their bits, and its layout.
func bitsOf(t *testing.T, x *Tensor) ([]uint64, DType, []int, []int) {
	t.Helper()
	var bits []uint64
	switch x.dtype {
	case Float32:
		v, err := ToSlice[float32](x)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range v {
			bits = append(bits, uint64(math.Float32bits(f)))
		}
	default:
		v, err := ToSlice[float64](x)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range v {
			bits = append(bits, math.Float64bits(f))
		}
	}
	return bits, x.dtype, x.shape, x.strides
}

func TestSmallPathMatchesDispatch(t *testing.T) {
	if os.Getenv("MINDTORCH_CPU_CACHE_DEBUG") == "1" {
		t.Skip("the cache's debug mode serves every allocation, so the small path declines")
	}
	special := []float64{1.5, -0.0, math.NaN(), math.Inf(1), math.Inf(-1), 0, 3, 1e-310, -7.25, 2}
	ops := []kernel.OpID{kernel.OpAdd, kernel.OpSub, kernel.OpMul, kernel.OpDiv}
	for _, dt := range []DType{Float32, Float64} {
		for _, shape := range [][]int{{}, {0}, {3}, {2, 2}, {1, 4, 1}, {64 / dt.ItemSize()}} {
			n := 1
			for _, s := range shape {
				n *= s
			}
			av, bv := make([]float64, n), make([]float64, n)
			for i := range av {
				av[i], bv[i] = special[i%len(special)], special[(i*3+1)%len(special)]
			}
			a := FromSlice(av, WithShape(shape...), WithDType(dt))
			b := FromSlice(bv, WithShape(shape...), WithDType(dt))
			for _, op := range ops {
				got := smallBinary(op, a, b, 0, one)
				if got == nil {
					t.Fatalf("%v %v %v: the small path declined", op, dt, shape)
				}
				want := dispatchBinary(op, a, b, 0, one)
				gb, gd, gs, gst := bitsOf(t, got)
				wb, wd, ws, wst := bitsOf(t, want)
				if diff := cmp.Diff([]any{wb, wd, ws, wst}, []any{gb, gd, gs, gst}); diff != "" {
					t.Errorf("%v %v %v: small path differs from the dispatcher (-want +got):\n%s", op, dt, shape, diff)
				}
			}
		}
	}
}

func TestSmallPathDeclines(t *testing.T) {
	x := Ones([]int{2, 2})
	released := Ones([]int{2, 2})
	released.Release()
	cases := []struct {
		name  string
		op    kernel.OpID
		a, b  *Tensor
		mode  int
		alpha kernel.Scalar
	}{
		{"broadcast", kernel.OpAdd, x, Ones([]int{2}), 0, one},
		{"mixed dtypes", kernel.OpAdd, x, Ones([]int{2, 2}, WithDType(Float64)), 0, one},
		{"integers", kernel.OpAdd, Ones([]int{2}, WithDType(Int64)), Ones([]int{2}, WithDType(Int64)), 0, one},
		{"half", kernel.OpMul, Ones([]int{2}, WithDType(Float16)), Ones([]int{2}, WithDType(Float16)), 0, one},
		{"transposed", kernel.OpAdd, Ones([]int{2, 3}).T(), Ones([]int{3, 2}), 0, one},
		{"more than 64 bytes", kernel.OpAdd, Ones([]int{17}), Ones([]int{17}), 0, one},
		{"alpha", kernel.OpAdd, x, x, 0, kernel.FloatScalar(2)},
		{"rounding mode", kernel.OpDiv, x, x, kernel.RoundFloor, one},
		{"other op", kernel.OpMaximum, x, x, 0, one},
		{"released", kernel.OpAdd, x, released, 0, one},
		{"meta", kernel.OpAdd, Ones([]int{2}, WithDevice("meta")), Ones([]int{2}, WithDevice("meta")), 0, one},
	}
	for _, c := range cases {
		if y := smallBinary(c.op, c.a, c.b, c.mode, c.alpha); y != nil {
			t.Errorf("%s: the small path took an op it must leave to the dispatcher", c.name)
		}
	}
	if err := x.Add(released).Err(); err == nil {
		t.Error("adding a released tensor must fail")
	}
}
