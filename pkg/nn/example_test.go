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
	params, err := nn.NamedParameters(model)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range params {
		fmt.Println(p.Name, p.Tensor.Shape(), "grad", p.Tensor.Grad().Shape())
	}
	fmt.Println(model)
	// Output:
	// 0.weight [4 3] grad [4 3]
	// 0.bias [4] grad [4]
	// 2.weight [2 4] grad [2 4]
	// 2.bias [2] grad [2]
	// Sequential(
	//   (0): Linear(in_features=3, out_features=4, bias=True)
	//   (1): ReLU()
	//   (2): Linear(in_features=4, out_features=2, bias=True)
	// )
}

// Block is a custom module: it embeds nn.Base, and its exported fields are
// its state. Tensor fields are parameters unless tagged as buffers; module
// fields are submodules. It needs no NamedParameters, Train or StateDict
// of its own.
type Block struct {
	nn.Base
	FC1   *nn.Linear
	Act   nn.Layer
	FC2   *nn.Linear
	Scale *torch.Tensor // a parameter
	Steps *torch.Tensor `nn:"buffer"` // saved in the state dict, not trained
	Cache *torch.Tensor `nn:"-"`      // not state
	Dim   int           // not state either
	Mask  *torch.Tensor `nn:"buffer,nonpersistent"` // a buffer left out of the state dict
}

func NewBlock(dim int) *Block {
	return &Block{
		FC1:   nn.NewLinear(dim, 2*dim),
		Act:   nn.GELU(),
		FC2:   nn.NewLinear(2*dim, dim),
		Scale: nn.Parameter(torch.Ones([]int{dim})),
		Steps: torch.Zeros([]int{}, torch.WithDType(torch.Int64)),
		Dim:   dim,
	}
}

// Forward makes Block a Layer, which Sequential can chain.
func (b *Block) Forward(x *torch.Tensor) *torch.Tensor {
	return x.Add(b.FC2.Forward(b.Act.Forward(b.FC1.Forward(x))).Mul(b.Scale))
}

// String prints the block as PyTorch prints modules.
func (b *Block) String() string { return nn.Repr(b) }

// A custom module's parameters, state dict and printout come from its
// fields.
func Example_customModule() {
	torch.ManualSeed(0)
	model := nn.NewSequential(NewBlock(4), NewBlock(4))
	params, _ := nn.NamedParameters(model)
	for _, p := range params {
		fmt.Println(p.Name, p.Tensor.Shape())
	}
	state, _ := nn.NamedState(model)
	fmt.Println(len(state), "tensors in the state dict, first", state[0].Name)
	_ = nn.Eval(model)
	fmt.Println("training:", nn.Training(model.Layers[1].(*Block).FC2))
	fmt.Println(model.Layers[0])
	// Output:
	// 0.scale [4]
	// 0.fc1.weight [8 4]
	// 0.fc1.bias [8]
	// 0.fc2.weight [4 8]
	// 0.fc2.bias [4]
	// 1.scale [4]
	// 1.fc1.weight [8 4]
	// 1.fc1.bias [8]
	// 1.fc2.weight [4 8]
	// 1.fc2.bias [4]
	// 12 tensors in the state dict, first 0.scale
	// training: false
	// Block(
	//   (fc1): Linear(in_features=4, out_features=8, bias=True)
	//   (act): GELU(approximate='none')
	//   (fc2): Linear(in_features=8, out_features=4, bias=True)
	// )
}
