package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestPoolingModulesPrintAsPyTorch compares the modules' printouts with
// PyTorch 1.13's (repr of torch.nn.MaxPool2d(2), ...).
func TestPoolingModulesPrintAsPyTorch(t *testing.T) {
	two := 2
	for _, c := range []struct {
		m    nn.Module
		want string
	}{
		{nn.MaxPool2d([]int{2}, torch.MaxPoolOptions{}), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"},
		{nn.MaxPool2d([]int{2, 3}, torch.MaxPoolOptions{Stride: []int{1}, Padding: []int{1}, Dilation: []int{2}, CeilMode: true}),
			"MaxPool2d(kernel_size=(2, 3), stride=1, padding=1, dilation=2, ceil_mode=True)"},
		{nn.AvgPool2d([]int{3}, torch.AvgPoolOptions{}), "AvgPool2d(kernel_size=3, stride=3, padding=0)"},
		{nn.AvgPool2d([]int{2, 3}, torch.AvgPoolOptions{DivisorOverride: &two, ExcludePad: true}),
			"AvgPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0)"},
		{nn.MaxPool1d(3, torch.MaxPoolOptions{}), "MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"},
		{nn.AvgPool1d(3, torch.AvgPoolOptions{}), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"},
		{nn.AdaptiveAvgPool2d(2, 3), "AdaptiveAvgPool2d(output_size=(2, 3))"},
		{nn.AdaptiveAvgPool2d(2), "AdaptiveAvgPool2d(output_size=2)"},
		{nn.AdaptiveMaxPool2d(2), "AdaptiveMaxPool2d(output_size=2)"},
	} {
		if got := nn.Repr(c.m); got != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
}

// TestPoolingModulesForward checks that each module computes its
// functional form, and that the settings are copied when the module is made.
func TestPoolingModulesForward(t *testing.T) {
	x := torch.Randn([]int{2, 3, 6, 6}, torch.WithGenerator(torch.NewGenerator(3)))
	k := []int{3}
	o := torch.MaxPoolOptions{Stride: []int{2}, Padding: []int{1}}
	m := nn.MaxPool2d(k, o)
	k[0], o.Stride[0] = 5, 7 // the module keeps its own copies
	seq := nn.NewSequential(m, nn.AvgPool2d([]int{2}, torch.AvgPoolOptions{}), nn.AdaptiveMaxPool2d(1))
	got := seq.Forward(x)
	ref := torch.MaxPool2d(x, []int{3}, torch.MaxPoolOptions{Stride: []int{2}, Padding: []int{1}})
	ref = torch.AvgPool2d(ref, []int{2}, torch.AvgPoolOptions{})
	ref, _ = torch.AdaptiveMaxPool2d(ref, []int{1})
	if eq, err := torch.EqualErr(got, ref); err != nil || !eq {
		t.Fatalf("got %v, want %v (%v)", got, ref, err)
	}
	y := nn.NewSequential(nn.MaxPool1d(2, torch.MaxPoolOptions{}), nn.AvgPool1d(2, torch.AvgPoolOptions{}), nn.AdaptiveAvgPool2d(1)).Forward(x.Flatten(2, 3))
	// [2, 3, 36] -> [2, 3, 18] -> [2, 3, 9] -> a (C, H, W) input to 1 x 1: [2, 1, 1].
	if err := y.Err(); err != nil || len(y.Shape()) != 3 || y.Shape()[0] != 2 || y.Shape()[1] != 1 || y.Shape()[2] != 1 {
		t.Fatalf("got %v (%v), want shape [2 1 1]", y.Shape(), err)
	}
}
