package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// SetGrad refuses a gradient PyTorch refuses on assigning .grad, and keeps
// the gradient it had.
func TestSetGradChecksLikePyTorch(t *testing.T) {
	x := torch.Ones([]int{2}).RequiresGrad_(true)
	good := torch.Full([]int{2}, 3.0)
	if err := x.SetGrad(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *torch.Tensor
		kind error
		text string
	}{
		{"shape", torch.Ones([]int{3}), torch.ErrShape, "assigned grad has data of a different size"},
		{"dtype", torch.Ones([]int{2}, torch.WithDType(torch.Int64)), torch.ErrDType, "assigned grad has data of a different type"},
		{"device", torch.Ones([]int{2}, torch.WithDevice("meta")), torch.ErrDevice, "assigned grad has data located on a different device"},
		{"failed", torch.Ones([]int{2}).Add(torch.Ones([]int{3})), torch.ErrShape, "must match"},
	} {
		err := x.SetGrad(c.g)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
		if x.Grad() != good {
			t.Errorf("%s: a refused gradient replaced the old one", c.name)
		}
	}
	if err := x.SetGrad(nil); err != nil || x.Grad() != nil {
		t.Errorf("SetGrad(nil): %v, grad %v", err, x.Grad())
	}
	var nilT *torch.Tensor
	if err := nilT.SetGrad(good); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("SetGrad on nil: %v", err)
	}
}

// A hook that returns a gradient of another shape, dtype or device fails
// the backward pass with PyTorch's message instead of storing it.
func TestHookMustKeepTheGradientsMetadata(t *testing.T) {
	for _, c := range []struct {
		name string
		hook func(g *torch.Tensor) *torch.Tensor
		kind error
		text string
	}{
		{"shape", func(g *torch.Tensor) *torch.Tensor { return torch.Ones([]int{3}) }, torch.ErrShape, "hook 'hook' has changed the size of value"},
		{"dtype", func(g *torch.Tensor) *torch.Tensor { return g.ToDType(torch.Float64) }, torch.ErrDType, "hook 'hook' has changed the type of value"},
		{"failed", func(g *torch.Tensor) *torch.Tensor { return g.Add(torch.Ones([]int{5})) }, torch.ErrShape, "must match"},
	} {
		x := torch.Ones([]int{2}).RequiresGrad_(true)
		if err := x.RegisterHook(c.hook); err != nil {
			t.Fatal(err)
		}
		err := x.MulScalar(2).Sum().Backward()
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: Backward returned %v", c.name, err)
		}
		if x.Grad() != nil {
			t.Errorf("%s: the hook's gradient was stored: %v", c.name, x.Grad())
		}
	}
	x := torch.Ones([]int{2}).RequiresGrad_(true)
	if err := x.RegisterHook(nil); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("RegisterHook(nil): %v", err)
	}
}

// Accumulating into .grad reports a failure instead of dropping it, and a
// gradient of another dtype is cast to the leaf's, as PyTorch's engine does.
func TestGradientAccumulationReportsErrors(t *testing.T) {
	x := torch.Ones([]int{2}).RequiresGrad_(true)
	if err := x.MulScalar(2).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	x.Grad().Release() // the accumulated gradient's memory is gone
	if err := x.MulScalar(2).Sum().Backward(); err == nil {
		t.Error("accumulating into a released .grad returned nil")
	}

	y := torch.Ones([]int{2}).RequiresGrad_(true)
	if err := y.ToDType(torch.Float64).MulScalar(3).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if y.Grad().DType() != torch.Float32 {
		t.Errorf("gradient dtype %v, want the leaf's float32", y.Grad().DType())
	}
	if v, _ := torch.ToSlice[float32](y.Grad()); v[0] != 3 || v[1] != 3 {
		t.Errorf("gradient %v, want [3 3]", v)
	}
}
