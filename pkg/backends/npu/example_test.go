package npu_test

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Tensors move to the NPU with To, ops on them run there, and reading a
// value waits for the device. (In this package's tests the NPU is the CANN
// emulator.)
func Example() {
	if !npu.IsAvailable() {
		fmt.Println("no NPU:", npu.UnavailableReason())
		return
	}
	x, err := torch.FromSlice([]float32{1, 2, 3, 4}, torch.WithShape(2, 2)).To("npu")
	if err != nil {
		fmt.Println(err)
		return
	}
	y := x.MatMul(x).Relu().Sum()
	v, err := y.Item()
	fmt.Println(y.Device(), v, err)
	// Output: npu:0 54 <nil>
}

// A second stream runs work that may overlap the default stream's; an
// event orders it after work on the default stream.
func ExampleWithStream() {
	s, err := npu.NewStream(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	x := torch.Ones([]int{4}, torch.WithDevice("npu"))
	ready, _ := npu.NewEvent(0)
	defer ready.Close()
	ready.Record(nil) // after the fill of x on the default stream
	var y *torch.Tensor
	npu.WithStream(s, func() {
		s.WaitEvent(ready)
		y = x.MulScalar(3)
	})
	s.Synchronize()
	v, _ := torch.ToSlice[float32](y)
	fmt.Println(v)
	// Output: [3 3 3 3]
}
