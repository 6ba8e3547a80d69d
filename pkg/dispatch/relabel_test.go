package dispatch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestDecompositionErrorNamesTheOp checks that an error raised inside a
// decomposition by one of its ops (here where, given shapes that do not
// broadcast) names the op the caller called, keeps its kind for errors.Is,
// and carries the inner op's message as detail.
func TestDecompositionErrorNamesTheOp(t *testing.T) {
	restore := dispatch.SwapDecomposition(kernel.OpGather, func(c *kernel.Call) error {
		on := torch.WithDevice(c.Device.String())
		cond := torch.Ones([]int{2}, torch.WithDType(torch.Bool), on)
		return torch.Where(cond, torch.Zeros([]int{2}, on), torch.Zeros([]int{3}, on)).Err()
	})
	defer restore()
	defer kernel.SwapKernel(kernel.OpGather, device.NPU, nil)() // the NPU runs gather natively
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	idx := torch.FromSlice([]int64{2, 1, 0, 0}, torch.WithShape(2, 2))
	before := dispatch.CountsOf(kernel.OpGather, device.NPU)
	err := npuCopy(t, x).Gather(1, npuCopy(t, idx)).Err()
	routed(t, kernel.OpGather, before, dispatch.Decomposed)
	if err == nil {
		t.Fatal("gather whose decomposition fails succeeded")
	}
	var oe *torch.Error
	if !errors.As(err, &oe) || oe.Op != "gather" {
		t.Fatalf("error of the decomposition names %q, want gather: %v", oe.Op, err)
	}
	if !errors.Is(err, torch.ErrShape) {
		t.Errorf("error of the decomposition lost its kind (want %v): %v", torch.ErrShape, err)
	}
	if !strings.Contains(oe.Detail, "in its decomposition, where of ") {
		t.Errorf("error of the decomposition does not say where it came from: %v", err)
	}
	if len(oe.Shapes) != 2 || len(oe.Shapes[1]) != 2 || oe.Shapes[1][1] != 2 {
		t.Errorf("error of the decomposition lists other inputs than gather's: %v", err)
	}
	t.Log(err)
}

// TestLabelsAreUnique checks that Label tells every op apart, ops sharing
// PyTorch's name (clamp with scalar and with tensor bounds) included,
// while their errors keep PyTorch's name.
func TestLabelsAreUnique(t *testing.T) {
	seen := map[string]kernel.OpID{}
	for op := kernel.OpInvalid + 1; op < kernel.NumOps; op++ {
		l := dispatch.Label(op)
		if other, ok := seen[l]; ok {
			t.Errorf("ops %d and %d have the same label %q: give one PyTorch's overload name in route.go", other, op, l)
		}
		seen[l] = op
	}
	if dispatch.Label(kernel.OpClamp) != "clamp" || dispatch.Label(kernel.OpClampTensor) != "clamp.Tensor" {
		t.Errorf("clamp's labels: %q, %q", dispatch.Label(kernel.OpClamp), dispatch.Label(kernel.OpClampTensor))
	}
	if kernel.OpClampTensor.String() != "clamp" {
		t.Errorf("OpClampTensor's name is %q, want PyTorch's clamp", kernel.OpClampTensor)
	}
	x := torch.FromSlice([]float32{-2, 0.5, 3})
	lo, hi := torch.FromSlice([]float32{0, 0, 0}), torch.FromSlice([]float32{1, 1})
	var oe *torch.Error
	if err := x.ClampTensor(lo, hi).Err(); !errors.As(err, &oe) || oe.Op != "clamp" {
		t.Errorf("clamp with tensor bounds that do not broadcast: %v, want an error of clamp", err)
	}
}
