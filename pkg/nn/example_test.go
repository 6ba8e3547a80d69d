package nn_test

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// A two-layer network, its loss on a batch, and the gradient of a weight.
func Example() {
	torch.ManualSeed(0)
	model := nn.NewSequential(nn.NewLinear(3, 4), nn.ReLU(), nn.NewLinear(4, 2))
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	loss := nn.CrossEntropy(model.Forward(x), torch.FromSlice([]int64{0, 1}))
	if err := loss.Backward(); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range model.NamedParameters() {
		fmt.Println(p.Name, p.Tensor.Shape(), "grad", p.Tensor.Grad().Shape())
	}
	// Output:
	// 0.weight [4 3] grad [4 3]
	// 0.bias [4] grad [4]
	// 2.weight [2 4] grad [2 4]
	// 2.bias [2] grad [2]
}
