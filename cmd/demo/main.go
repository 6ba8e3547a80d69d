// Command demo runs the quick start of the README on the CPU: it creates,
// views, converts and prints tensors, as PyTorch would. (The training demo on
// the digits data set comes with the autograd, nn and optim packages.)
package main

import (
	"fmt"
	"os"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func main() {
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	y := x.Transpose(0, 1)
	fmt.Println("x =", x)
	fmt.Println("x.T =", y, "shares storage:", y.Storage() == x.Storage())
	fmt.Println("x.T + 1, relu:", y.AddScalar(1).Relu())
	fmt.Println("meta zeros:", torch.Zeros([]int{2, 3}, torch.WithDType(torch.Int64), torch.WithDevice("meta")))
	torch.ManualSeed(0)
	fmt.Println("rand (seed 0):", torch.Rand([]int{3}))
	fmt.Println("as uint8:", torch.FromSlice([]float64{300.5, -3.7}).ToDType(torch.Uint8))
	bad := x.Add(torch.Ones([]int{4}))
	fmt.Println("a bad op reports:", bad.Err())
	if y.Err() != nil {
		os.Exit(1)
	}
}
