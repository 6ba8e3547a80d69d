package data_test

import (
	"context"
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// A shuffling loader over a TensorDataset, with two worker goroutines: the
// batches are PyTorch's for torch.manual_seed(0).
func Example() {
	x := torch.Arange(10)
	ds, err := data.NewTensorDataset(x, x.MulScalar(10))
	if err != nil {
		fmt.Println(err)
		return
	}
	torch.ManualSeed(0)
	loader, err := data.NewLoader[[]*torch.Tensor](ds, nil, data.Options{BatchSize: 4, Shuffle: true, Workers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for batch, err := range loader.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		xs, _ := torch.ToSlice[int64](batch[0])
		ys, _ := torch.ToSlice[int64](batch[1])
		fmt.Println(xs, ys)
	}
	// Output:
	// [6 7 1 4] [60 70 10 40]
	// [2 0 9 8] [20 0 90 80]
	// [3 5] [30 50]
}

// RandomSplit takes torch.randperm's indices for the generator's seed.
func ExampleRandomSplit() {
	ds, _ := data.NewTensorDataset(torch.Arange(10))
	parts, err := data.RandomSplit[[]*torch.Tensor](ds, []int{3, 7}, torch.NewGenerator(42))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(parts[0].Indices, parts[1].Indices)
	// Output: [2 6 1] [8 4 5 0 9 3 7]
}
