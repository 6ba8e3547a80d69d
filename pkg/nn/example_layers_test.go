package nn_test

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Scales is a module with a parameter per stage, held in a ParameterList,
// and named ones in a ParameterDict: they are "gains.0", "gains.1" and
// "offsets.bias" in its state dict.
type Scales struct {
	nn.Base
	Gains   *nn.ParameterList
	Offsets *nn.ParameterDict
}

// Parameters that a field cannot name, as PyTorch's ParameterList and
// ParameterDict.
func ExampleParameterList() {
	m := &Scales{Gains: nn.NewParameterList(torch.Ones([]int{3}), torch.Ones([]int{3})), Offsets: nn.NewParameterDict()}
	if err := m.Offsets.Set("bias", torch.Zeros([]int{3})); err != nil {
		fmt.Println(err)
		return
	}
	state, _ := nn.NamedState(m)
	for _, s := range state {
		fmt.Println(s.Name, s.Tensor.Shape(), s.Tensor.RequiresGrad())
	}
	fmt.Println(nn.Repr(m))
	// Output:
	// gains.0 [3] true
	// gains.1 [3] true
	// offsets.bias [3] true
	// Scales(
	//   (gains): ParameterList(
	//       (0): Parameter containing: [torch.float32 of size 3]
	//       (1): Parameter containing: [torch.float32 of size 3]
	//   )
	//   (offsets): ParameterDict(  (bias): Parameter containing: [torch.FloatTensor of size 3])
	// )
}

// A transposed convolution reaches an output size its stride leaves open
// by choosing the output padding, as PyTorch's forward(x, output_size).
func ExampleConvTranspose2d_ForwardWithOutputSize() {
	torch.ManualSeed(0)
	up := nn.NewConvTranspose2d(3, 2, []int{3}, nn.ConvTransposeConfig{Stride: []int{2}, Padding: []int{1}})
	x := torch.Ones([]int{1, 3, 4, 4})
	fmt.Println(up.Forward(x).Shape())
	fmt.Println(up.ForwardWithOutputSize(x, []int{8, 8}).Shape())
	fmt.Println(up.ForwardWithOutputSize(x, []int{9, 9}).Err())
	// Output:
	// [1 2 7 7]
	// [1 2 8 8]
	// mindtorch: conv_transpose2d: invalid argument: requested an output size of [9, 9], but valid sizes range from [7, 7] to [8, 8] (for an input of torch.Size([4, 4])) (inputs: float32[1 3 4 4] cpu)
}

// padding='same' with a padding mode: an even kernel pads one more after
// than before, as PyTorch.
func ExampleConvConfig_samePadding() {
	torch.ManualSeed(0)
	conv := nn.NewConv2d(1, 1, []int{2, 4}, nn.ConvConfig{PaddingString: "same", PaddingMode: "reflect"})
	fmt.Println(conv)
	fmt.Println(conv.Forward(torch.Ones([]int{1, 1, 5, 6})).Shape())
	// Output:
	// Conv2d(1, 1, kernel_size=(2, 4), stride=(1, 1), padding=same, padding_mode=reflect)
	// [1 1 5 6]
}
