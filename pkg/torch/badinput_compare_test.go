package torch_test

import (
	"errors"
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// EqualErr and AllCloseErr answer as torch.equal and torch.allclose, and
// say why two tensors cannot be compared where PyTorch raises; Equal and
// AllClose are false then. (internal/badinput tries the bad inputs of
// every function; these are their answers on good ones.)
func TestEqualErrAndAllCloseErr(t *testing.T) {
	f := func(v ...float32) *torch.Tensor { return torch.FromSlice(v) }
	nan := float32(math.NaN())
	meta := torch.Zeros([]int{2}, torch.WithDevice("meta"))
	for _, c := range []struct {
		name    string
		got     func() (bool, error)
		want    bool
		errKind error
	}{
		{"equal", func() (bool, error) { return torch.EqualErr(f(1, 2), f(1, 2)) }, true, nil},
		{"equal dtypes differ", func() (bool, error) { return torch.EqualErr(torch.FromSlice([]int64{1, 2}), f(1, 2)) }, true, nil},
		{"equal ints", func() (bool, error) {
			return torch.EqualErr(torch.FromSlice([]int64{1, 2}), torch.FromSlice([]int64{1, 3}))
		}, false, nil},
		{"equal shapes differ", func() (bool, error) { return torch.EqualErr(f(1, 2), f(1, 2, 3)) }, false, nil},
		{"equal NaN", func() (bool, error) { return torch.EqualErr(f(nan), f(nan)) }, false, nil},
		{"equal nil", func() (bool, error) { return torch.EqualErr(nil, f(1)) }, false, torch.ErrArgument},
		{"equal meta", func() (bool, error) { return torch.EqualErr(meta, meta) }, false, torch.ErrDevice},
		{"equal devices differ", func() (bool, error) { return torch.EqualErr(meta, f(0, 0)) }, false, torch.ErrDevice},
		{"allclose", func() (bool, error) { return torch.AllCloseErr(f(1, 2), f(1, 2+1e-7), 1e-5, 1e-8, false) }, true, nil},
		{"allclose far", func() (bool, error) { return torch.AllCloseErr(f(1, 2), f(1, 3), 1e-5, 1e-8, false) }, false, nil},
		{"allclose broadcast", func() (bool, error) { return torch.AllCloseErr(torch.Scalar(float32(1)), f(1, 1), 0, 0, false) }, true, nil},
		{"allclose NaN", func() (bool, error) { return torch.AllCloseErr(f(nan), f(nan), 0, 0, false) }, false, nil},
		{"allclose NaN equal", func() (bool, error) { return torch.AllCloseErr(f(nan), f(nan), 0, 0, true) }, true, nil},
		{"allclose dtypes differ", func() (bool, error) {
			return torch.AllCloseErr(torch.FromSlice([]int64{1}), f(1), 0, 0, false)
		}, false, torch.ErrDType},
		{"allclose shapes", func() (bool, error) { return torch.AllCloseErr(f(1, 2), f(1, 2, 3), 0, 0, false) }, false, torch.ErrShape},
		{"allclose rtol", func() (bool, error) { return torch.AllCloseErr(f(1), f(1), -1, 0, false) }, false, torch.ErrArgument},
		{"allclose atol NaN", func() (bool, error) { return torch.AllCloseErr(f(1), f(1), 0, math.NaN(), false) }, false, torch.ErrArgument},
		{"allclose failed", func() (bool, error) { return torch.AllCloseErr(f(1).View(3), f(1), 0, 0, false) }, false, torch.ErrShape},
	} {
		got, err := c.got()
		if got != c.want || (c.errKind == nil) != (err == nil) || (c.errKind != nil && !errors.Is(err, c.errKind)) {
			t.Errorf("%s: got %v, %v; want %v, an error of kind %v", c.name, got, err, c.want, c.errKind)
		}
	}
	if torch.Equal(meta, meta) || torch.AllClose(nil, nil, 0, 0, true) {
		t.Errorf("Equal or AllClose of tensors that cannot be compared is true")
	}
}

// A nil Option, PrintOption or tensor argument where a tensor is optional
// changes nothing; a zero Tensor{} is an error, not a crash.
func TestNilOptionsAndZeroTensor(t *testing.T) {
	x := torch.Zeros([]int{2}, nil, torch.WithDType(torch.Float64), nil)
	if x.Err() != nil || x.DType() != torch.Float64 {
		t.Fatalf("Zeros with nil options: %v", x)
	}
	torch.SetPrintOptions(nil)
	if err := new(torch.Tensor).Sum().Err(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Sum of a zero Tensor{}: %v, want an argument error", err)
	}
	if _, err := torch.ToSlice[float32](new(torch.Tensor)); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("ToSlice of a zero Tensor{}: %v, want an argument error", err)
	}
}
