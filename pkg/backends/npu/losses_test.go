package npu_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Cross-entropy with a class weight and label smoothing (its 0-dim CPU zero
// reaches the NPU's where), and NLL's target bounds check, give on the NPU
// what they give on the CPU.
func TestLossesOnTheNPU(t *testing.T) {
	logits := torch.FromSlice([]float32{1, 2, 3, 0.5, 0.1, -1}, torch.WithShape(2, 3))
	target := torch.FromSlice([]int64{0, 2})
	weight := torch.FromSlice([]float32{1, 2, 0.5})
	npu := func(x *torch.Tensor) *torch.Tensor {
		y, err := x.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	want, _ := nn.CrossEntropy(logits, target, nn.WithWeight(weight), nn.WithLabelSmoothing(0.1)).Item()
	got, err := nn.CrossEntropy(npu(logits), npu(target), nn.WithWeight(npu(weight)), nn.WithLabelSmoothing(0.1)).Item()
	if err != nil || math.Abs(got-want) > 1e-6 {
		t.Errorf("cross-entropy with weight and label smoothing: %v, %v; CPU %v", got, err, want)
	}
	bad := npu(torch.FromSlice([]int64{0, 5}))
	for name, l := range map[string]*torch.Tensor{"nll": nn.NLL(npu(logits).LogSoftmax(1), bad), "cross_entropy": nn.CrossEntropy(npu(logits), bad)} {
		if err := l.Err(); !errors.Is(err, torch.ErrIndex) || !strings.Contains(err.Error(), "Target out of bounds") {
			t.Errorf("%s with target 5 of 3 classes: %v", name, err)
		}
	}
	settle(t)
}
