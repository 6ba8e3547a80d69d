package nn

import (
	"fmt"
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Linear is y = x W^T + b, as torch.nn.Linear.
type Linear struct {
	Base
	Weight *torch.Tensor // [out, in]
	Bias   *torch.Tensor // [out]; nil for none
}

// NewLinear makes a Linear layer from in to out features, initialised as
// PyTorch's: W and b uniform in (-1/sqrt(in), 1/sqrt(in)) (W by Kaiming's
// uniform scheme with a = sqrt(5)). opts choose the dtype, the device and
// the generator. Set Bias to nil for a layer without one.
func NewLinear(in, out int, opts ...torch.Option) *Linear {
	w := torch.Empty([]int{out, in}, opts...)
	KaimingUniform_(w, math.Sqrt(5), "fan_in", "leaky_relu", opts...)
	b := torch.Empty([]int{out}, opts...)
	bound := 0.0
	if in > 0 {
		bound = 1 / math.Sqrt(float64(in))
	}
	Uniform_(b, -bound, bound, opts...)
	return &Linear{Weight: Parameter(w), Bias: Parameter(b)}
}

// Forward applies the layer to x ([..., in]).
func (l *Linear) Forward(x *torch.Tensor) *torch.Tensor {
	if l == nil {
		return nilModule("linear", "Linear", x)
	}
	return torch.Linear(x, l.Weight, l.Bias)
}

// ExtraRepr is "in_features=4, out_features=3, bias=True".
func (l *Linear) ExtraRepr() string {
	if l == nil {
		return ""
	}
	in, out := 0, 0
	if s := l.Weight.Shape(); len(s) == 2 {
		out, in = s[0], s[1]
	}
	return fmt.Sprintf("in_features=%d, out_features=%d, bias=%s", in, out, pyBool(l.Bias != nil))
}

// String prints the module as PyTorch does.
func (l *Linear) String() string { return Repr(l) }
