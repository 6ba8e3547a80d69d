package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/conv.json (scripts/golden/conv.py): the convolutions
// of pkg/torch/conv.go under the names of torch.nn.functional, and
// torch.nn.grad.conv2d_weight. A case's inputs are the input, the weight
// and the optional bias; its args are the keyword arguments.
func init() {
	bias := func(in []*torch.Tensor) *torch.Tensor {
		if len(in) > 2 {
			return in[2]
		}
		return nil
	}
	Register("conv2d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Conv2d(in[0], in[1], bias(in), convOptions(a)))
	})
	Register("conv1d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Conv1d(in[0], in[1], bias(in), convOptions(a)))
	})
	Register("conv_transpose2d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.ConvTranspose2d(in[0], in[1], bias(in), convTransposeOptions(a)))
	})
	Register("conv_transpose1d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.ConvTranspose1d(in[0], in[1], bias(in), convTransposeOptions(a)))
	})
	Register("conv2d_weight", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Conv2dWeightGrad(in[0], a.Ints("weight_size"), in[1], convOptions(a)))
	})
}

// intsArg reads an argument given as an int or a list of ints (nil when absent).
func intsArg(a Args, k string) []int {
	switch v := a[k].(type) {
	case nil:
		return nil
	case []any:
		return Ints(v)
	case string:
		return nil
	default:
		return []int{int(Num(v))}
	}
}

func convOptions(a Args) torch.ConvOptions {
	o := torch.ConvOptions{Stride: intsArg(a, "stride"), Padding: intsArg(a, "padding"), Dilation: intsArg(a, "dilation"),
		PaddingMode: a.S("padding")}
	if a.Has("groups") {
		o.Groups = a.I("groups")
	}
	return o
}

func convTransposeOptions(a Args) torch.ConvTransposeOptions {
	o := torch.ConvTransposeOptions{Stride: intsArg(a, "stride"), Padding: intsArg(a, "padding"), Dilation: intsArg(a, "dilation"),
		OutputPadding: intsArg(a, "output_padding")}
	if a.Has("groups") {
		o.Groups = a.I("groups")
	}
	return o
}
