package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestRandomArgumentErrors: the random ops refuse what PyTorch 1.13 refuses,
// with its messages (checked with python3-torch), before any draw; the
// tensor keeps its values and carries the error.
func TestRandomArgumentErrors(t *testing.T) {
	z := func(d torch.DType) *torch.Tensor { return torch.Zeros([]int{3}, torch.WithDType(d)) }
	for _, tc := range []struct {
		name string
		run  func() *torch.Tensor
		msg  string
	}{
		{"normal std<0", func() *torch.Tensor { return z(torch.Float32).Normal_(0, -1) }, "normal expects std >= 0.0, but found std -1"},
		{"normal std NaN", func() *torch.Tensor { return z(torch.Float32).Normal_(0, nan) }, "normal expects std >= 0.0, but found std nan"},
		{"uniform to-from", func() *torch.Tensor { return z(torch.Float32).Uniform_(-3e38, 3e38) },
			"uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and from=-3e+38"},
		{"uniform to-from double", func() *torch.Tensor { return z(torch.Float64).Uniform_(-1e308, 1e308) },
			"std::numeric_limits<Double>::max()"},
		{"bernoulli p>1", func() *torch.Tensor { return z(torch.Float32).Bernoulli_(1.5) }, "bernoulli_ expects p to be in [0, 1], but got p=1.5"},
		{"bernoulli p NaN", func() *torch.Tensor { return z(torch.Float32).Bernoulli_(nan) }, "bernoulli_ expects p to be in [0, 1], but got p=nan"},
		{"bernoulli tensor p>1", func() *torch.Tensor { return torch.Bernoulli(torch.FromSlice([]float32{0.5, 1.5})) },
			"Expected p_in >= 0 && p_in <= 1 to be true, but got false."},
		{"bernoulli tensor p NaN", func() *torch.Tensor { return torch.Bernoulli(torch.FromSlice([]float64{nan})) },
			"Expected p_in >= 0 && p_in <= 1 to be true, but got false."},
		{"random from=to", func() *torch.Tensor { return z(torch.Float32).Random_(5, 5) },
			"random_ expects 'from' to be less than 'to', but got from=5 >= to=5"},
		{"random uint8 to", func() *torch.Tensor { return z(torch.Uint8).Random_(0, 300) }, "to - 1 is out of bounds for unsigned char"},
		{"random uint8 from", func() *torch.Tensor { return z(torch.Uint8).Random_(-1, 3) }, "from is out of bounds for unsigned char"},
		{"random int8", func() *torch.Tensor { return z(torch.Int8).Random_(0, 129) }, "to - 1 is out of bounds for signed char"},
		{"random int16", func() *torch.Tensor { return z(torch.Int16).Random_(0, 1<<16) }, "to - 1 is out of bounds for short int"},
		{"random int32", func() *torch.Tensor { return z(torch.Int32).Random_(0, 1<<32) }, "to - 1 is out of bounds for int"},
		{"random bool", func() *torch.Tensor { return z(torch.Bool).Random_(0, 3) }, "to - 1 is out of bounds for bool"},
		{"random half", func() *torch.Tensor { return z(torch.Float16).Random_(0, 70000) }, "to - 1 is out of bounds for c10::Half"},
		{"random half from", func() *torch.Tensor { return z(torch.Float16).Random_(-70000, 3) }, "from is out of bounds for c10::Half"},
		{"uniform expanded", func() *torch.Tensor { return z(torch.Float32).Expand(2, 3).Uniform_(0, 1) },
			"more than one element of the written-to tensor refers to a single memory location"},
		{"normal expanded", func() *torch.Tensor { return z(torch.Float32).Expand(2, 3).Normal_(0, 1) }, "written-to tensor"},
		{"random expanded", func() *torch.Tensor { return z(torch.Float32).Expand(2, 3).Random_(0, 5) }, "written-to tensor"},
		{"bernoulli expanded", func() *torch.Tensor { return z(torch.Float32).Expand(2, 3).Bernoulli_(0.5) }, "written-to tensor"},
	} {
		err := tc.run().Err()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.msg)
			continue
		}
		if !errors.Is(err, torch.ErrArgument) {
			t.Errorf("%s: %v is not an ErrArgument", tc.name, err)
		}
	}
	// What PyTorch accepts: the full ranges of int32 and int64, random_ on
	// half up to its largest value.
	for _, x := range []*torch.Tensor{z(torch.Int32).Random_(-1<<31, 1<<31), z(torch.Int64).Random_(-1<<63, 1<<63-1),
		z(torch.Float16).Random_(0, 65505), z(torch.Bool).Random_(0, 2), z(torch.Float32).Uniform_(2, 2)} {
		if err := x.Err(); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
}

// TestUniformBounds: from and to must be finite values of the dtype and
// from <= to, checked in PyTorch's order.
func TestUniformBounds(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		from, to float64
		msg      string
	}{
		{nan, 1, "from is out of bounds for float"},
		{1, nan, "to is out of bounds for float"},
		{-inf, inf, "from is out of bounds for float"},
		{1e39, 2e39, "from is out of bounds for float"},
		{5, -1, "uniform_ expects to return a [from, to) range, but found from=5 > to=-1"},
	} {
		err := torch.Zeros([]int{2}).Uniform_(tc.from, tc.to).Err()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("uniform_(%g, %g): %v, want %q", tc.from, tc.to, err, tc.msg)
		}
	}
}
