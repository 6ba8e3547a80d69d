package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/conv.json (scripts/golden/conv.py): the convolutions
// of pkg/torch/conv.go under the names of torch.nn.functional, and
// torch.nn.grad.conv2d_weight. A case's inputs are the input, the weight
// and the optional bias; its args are the keyword arguments.
//
// The modules nn.Conv1d, nn.Conv2d (with their padding modes),
// nn.ConvTranspose1d and nn.ConvTranspose2d are ops too: a module made
// from the case's args, its channels and kernel size read from the weight,
// with the case's weight and bias as its parameters; the arg output_size
// of a transposed one is its forward's.
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
	Register("nn.Conv2d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		cfg, cin, cout, k := convModuleArgs(in, a)
		m := nn.NewConv2d(cin, cout, k, cfg)
		m.Weight, m.Bias = in[1], bias(in)
		return One(m.Forward(in[0]))
	})
	Register("nn.Conv1d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		cfg, cin, cout, k := convModuleArgs(in, a)
		m := nn.NewConv1d(cin, cout, k, cfg)
		m.Weight, m.Bias = in[1], bias(in)
		return One(m.Forward(in[0]))
	})
	Register("nn.ConvTranspose2d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		cfg, cin, cout, k := convTransposeModuleArgs(in, a)
		m := nn.NewConvTranspose2d(cin, cout, k, cfg)
		m.Weight, m.Bias = in[1], bias(in)
		return One(m.ForwardWithOutputSize(in[0], intsArg(a, "output_size")))
	})
	Register("nn.ConvTranspose1d", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		cfg, cin, cout, k := convTransposeModuleArgs(in, a)
		m := nn.NewConvTranspose1d(cin, cout, k, cfg)
		m.Weight, m.Bias = in[1], bias(in)
		return One(m.ForwardWithOutputSize(in[0], intsArg(a, "output_size")))
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

// convModuleArgs are the settings of an nn.Conv1d or nn.Conv2d case: its
// config (padding='same'/'valid' in PaddingString, padding_mode in
// PaddingMode), in and out channels and kernel size from the weight [out,
// in/groups, k...].
func convModuleArgs(in []*torch.Tensor, a Args) (cfg nn.ConvConfig, cin, cout int, k []int) {
	o := convOptions(a)
	cfg = nn.ConvConfig{Stride: o.Stride, Padding: o.Padding, PaddingString: o.PaddingMode, PaddingMode: a.S("padding_mode"),
		Dilation: o.Dilation, Groups: o.Groups, NoBias: len(in) < 3}
	w := in[1].Shape()
	return cfg, w[1] * max(o.Groups, 1), w[0], w[2:]
}

// convTransposeModuleArgs are convModuleArgs for the transposed modules,
// whose weight is [in, out/groups, k...].
func convTransposeModuleArgs(in []*torch.Tensor, a Args) (cfg nn.ConvTransposeConfig, cin, cout int, k []int) {
	o := convTransposeOptions(a)
	cfg = nn.ConvTransposeConfig{Stride: o.Stride, Padding: o.Padding, OutputPadding: o.OutputPadding, Dilation: o.Dilation,
		Groups: o.Groups, NoBias: len(in) < 3}
	w := in[1].Shape()
	return cfg, w[0], w[1] * max(o.Groups, 1), w[2:]
}
