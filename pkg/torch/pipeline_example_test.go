package torch_test

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Inside a Pipeline, ops on CPU tensors are queued and return pending
// tensors whose shape is known at once. Leaving the scope runs the queue:
// here the four ops as one pass over memory, without allocating the three
// intermediate results.
func ExamplePipeline() {
	x := torch.Arange(1000, torch.WithDType(torch.Float32)).DivScalar(100).SubScalar(5)
	a := torch.Full([]int{1000}, 0.5)
	b := torch.Full([]int{1000}, 1.0)
	var y *torch.Tensor
	err := torch.Pipeline(func(p *torch.Pipe) error {
		y = x.Mul(a).Add(b).Relu().Sigmoid()
		fmt.Println(y.Shape(), p.Len(), "ops queued")
		return nil
	})
	fmt.Println(err)
	fmt.Println(y.Narrow(0, 298, 4))
	// Output:
	// [1000] 4 ops queued
	// <nil>
	// tensor([0.5000, 0.5000, 0.5000, 0.5012])
}
