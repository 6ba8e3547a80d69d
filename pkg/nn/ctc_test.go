package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// PyTorch's values, gradients and errors for CTC are in
// testdata/losses.json (ctc_loss, ctc_loss_logits); these tests cover what
// PyTorch 1.13 cannot say: it reads uninitialised memory for an input
// length of 0.

// An empty input aligns with the empty target only: loss 0 there,
// infinite for any other target (PyTorch 2.x's values), and with
// zero_infinity both are 0 with a zero gradient.
func TestCTCEmptyInput(t *testing.T) {
	lp := torch.Randn([]int{4, 2, 3}, torch.WithDType(torch.Float64)).LogSoftmax(2).Detach().RequiresGrad_(true)
	y := torch.FromSlice([]int64{1, 2, 1, 0}).View(2, 2)
	l := nn.CTC(lp, y, []int{0, 0}, []int{0, 2}, nn.WithReduction(nn.None))
	got, err := torch.ToSlice[float64](l)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 || !math.IsInf(got[1], 1) {
		t.Errorf("losses %v, want [0 +Inf]", got)
	}
	l = nn.CTC(lp, y, []int{0, 0}, []int{0, 2}, nn.WithZeroInfinity(true), nn.WithReduction(nn.Sum))
	if err := l.Backward(); err != nil {
		t.Fatal(err)
	}
	g, _ := torch.ToSlice[float64](lp.Grad())
	for i, v := range g {
		if v != 0 {
			t.Fatalf("gradient %d is %v, want 0 (no input)", i, v)
		}
	}
}

// Uniform log-probabilities over 3 classes for 3 steps: 6 of the 27 paths
// collapse to the target [1] (a run of 1s among blanks), so the loss is
// -log(6/27).
func ExampleCTC() {
	logProbs := torch.Zeros([]int{3, 1, 3}).LogSoftmax(2) // time, batch, classes
	targets := torch.FromSlice([]int64{1}).View(1, 1)
	loss := nn.CTC(logProbs, targets, []int{3}, []int{1}, nn.WithReduction(nn.Sum))
	v, err := loss.Item()
	fmt.Printf("%.4f %.4f %v\n", v, math.Log(27.0/6), err)
	// Output: 1.5041 1.5041 <nil>
}
