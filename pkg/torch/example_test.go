package torch_test

import (
	"errors"
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func Example() {
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	y := x.Transpose(0, 1) // a view: same storage, new strides
	fmt.Println(y)
	fmt.Println(y.Shape(), y.Stride(), y.Storage() == x.Storage())
	// Output:
	// tensor([[1., 4.],
	//         [2., 5.],
	//         [3., 6.]])
	// [3 2] [1 3] true
}

func ExampleZeros() {
	z := torch.Zeros([]int{2, 3}, torch.WithDType(torch.Int64), torch.WithDevice("meta"))
	fmt.Println(z)
	// Output:
	// tensor(..., device='meta', size=(2, 3), dtype=torch.int64)
}

func ExampleTensor_Err() {
	a := torch.Ones([]int{2, 3})
	b := torch.Ones([]int{4})
	c := a.Add(b).MulScalar(2) // the error of Add travels on
	fmt.Println(errors.Is(c.Err(), torch.ErrShape))
	var e *torch.Error
	if errors.As(c.Err(), &e) {
		fmt.Println(e.Op, e.Shapes)
	}
	// Output:
	// true
	// add [[2 3] [4]]
}

func ExampleManualSeed() {
	torch.ManualSeed(0)
	fmt.Println(torch.Rand([]int{3}))
	// Output:
	// tensor([0.4963, 0.7682, 0.0885])
}

func ExampleTensor_ToDType() {
	x := torch.FromSlice([]float64{300.5, -3.7, 2.5})
	fmt.Println(x.ToDType(torch.Uint8))
	fmt.Println(x.ToDType(torch.Int32))
	// Output:
	// tensor([ 44, 253,   2], dtype=torch.uint8)
	// tensor([300,  -3,   2], dtype=torch.int32)
}

func ExampleToSlice() {
	x := torch.Arange(6).Reshape(2, 3).T()
	v, err := torch.ToSlice[int](x)
	fmt.Println(v, err)
	// Output:
	// [0 3 1 4 2 5] <nil>
}

func ExampleInto() {
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	b := torch.FromSlice([]float32{10, 20, 30})
	out := torch.Empty([]int{2, 3})
	for step := 0; step < 3; step++ { // every step writes into the same memory
		torch.Into(out).Add(x, b)
	}
	fmt.Println(out)
	// The rules are PyTorch's out=: a float result does not fit an int64 out.
	err := torch.Into(torch.Empty([]int{2, 3}, torch.WithDType(torch.Int64))).Add(x, b).Err()
	fmt.Println(err)
	// Output:
	// tensor([[11., 22., 33.],
	//         [14., 25., 36.]])
	// mindtorch: add: unsupported dtype: result type Float can't be cast to the desired output type Long (inputs: float32[2 3] cpu, float32[3] cpu)
}

func ExampleTensor_Index() {
	x := torch.Zeros([]int{3, 4})
	rows := torch.FromSlice([]int64{0, 2, -1}) // -1 is the last row
	cols := torch.FromSlice([]int64{1, 3, 3})
	// x[rows, cols] += 1: the position named twice gets both.
	x.IndexPut_([]*torch.Tensor{rows, cols}, torch.Scalar(float32(1)), true)
	// x[x > 1] = -1, with a mask.
	x.IndexPut_([]*torch.Tensor{x.GtScalar(1)}, torch.Scalar(float32(-1)), false)
	fmt.Println(x)
	fmt.Println(x.Index(rows, cols))
	// Output:
	// tensor([[ 0.,  1.,  0.,  0.],
	//         [ 0.,  0.,  0.,  0.],
	//         [ 0.,  0.,  0., -1.]])
	// tensor([ 1., -1., -1.])
}

// Tidy releases what a loop's step made, so that the next step reuses the
// memory while it is still in the processor's caches, as in PyTorch.
func ExampleTidy() {
	x := torch.Ones([]int{1000})
	var total float64
	for step := 0; step < 3; step++ {
		err := torch.Tidy(func() error {
			y := x.MulScalar(float64(step)).AddScalar(1).Relu() // released when Tidy returns
			s, err := y.Sum().Item()
			total += s
			return err
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(total)
	// Output: 6000
}

// Keep exempts a result from its Tidy scope.
func ExampleKeep() {
	var kept *torch.Tensor
	_ = torch.Tidy(func() error {
		tmp := torch.Arange(4)
		kept = tmp.MulScalar(2)
		torch.Keep(kept)
		return nil
	})
	fmt.Println(kept)
	// Output: tensor([0, 2, 4, 6])
}
