package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestConvModules checks the modules' parameters, shapes and printout.
func TestConvModules(t *testing.T) {
	c := nn.NewConv2d(4, 6, []int{3}, nn.ConvConfig{Stride: []int{2}, Padding: []int{1}, Groups: 2})
	names := []string{}
	params, err := nn.NamedParameters(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] != "weight" || names[1] != "bias" {
		t.Fatalf("parameters %v", names)
	}
	y := c.Forward(torch.Ones([]int{2, 4, 7, 7}))
	if err := y.Err(); err != nil || len(y.Shape()) != 4 || y.Shape()[2] != 4 {
		t.Fatalf("forward: %v %v", y.Shape(), err)
	}
	want := "Conv2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)"
	if got := c.String(); got != want {
		t.Errorf("repr %q, want %q", got, want)
	}
	c1 := nn.NewConv1d(3, 2, []int{4}, nn.ConvConfig{PaddingMode: "same", NoBias: true})
	if got, want := c1.String(), "Conv1d(3, 2, kernel_size=(4,), stride=(1,), padding=same, bias=False)"; got != want {
		t.Errorf("repr %q, want %q", got, want)
	}
	if y := c1.Forward(torch.Ones([]int{3, 9})); y.Err() != nil || y.Shape()[1] != 9 {
		t.Fatalf("conv1d forward: %v %v", y.Shape(), y.Err())
	}
	if bad := nn.NewConv2d(3, 4, []int{3}, nn.ConvConfig{Groups: 2}); bad.Forward(torch.Ones([]int{1, 3, 5, 5})).Err() == nil {
		t.Error("groups not dividing in_channels accepted")
	}
}
