package optim_test

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Fitting y = 2x + 1 with a linear layer and SGD with momentum.
func Example() {
	torch.ManualSeed(0)
	model := nn.NewLinear(1, 1)
	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(0.1), optim.Momentum(0.9))
	if err != nil {
		fmt.Println(err)
		return
	}
	x := torch.Linspace(-1, 1, 16).Reshape(16, 1)
	y := x.MulScalar(2).AddScalar(1)
	for range 200 {
		opt.ZeroGrad()
		loss := nn.MSE(model.Forward(x), y)
		if err := loss.Backward(); err != nil {
			fmt.Println(err)
			return
		}
		if err := opt.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	w, _ := model.Weight.Item()
	b, _ := model.Bias.Item()
	fmt.Printf("w = %.3f, b = %.3f\n", w, b)
	// Output: w = 2.000, b = 1.000
}
