package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/pooling.json (scripts/golden/pooling.py): the
// functional forms of pkg/torch/pooling.go with a case's args (kernel_size,
// stride, padding, dilation and output_size as lists; stride absent for
// PyTorch's None).
func init() {
	maxOpts := func(a Args) torch.MaxPoolOptions {
		o := torch.MaxPoolOptions{Padding: a.Ints("padding"), Dilation: a.Ints("dilation"), CeilMode: a.B("ceil_mode")}
		if a.Has("stride") {
			o.Stride = a.Ints("stride")
		}
		return o
	}
	avgOpts := func(a Args) torch.AvgPoolOptions {
		o := torch.AvgPoolOptions{Padding: a.Ints("padding"), CeilMode: a.B("ceil_mode")}
		if a.Has("stride") {
			o.Stride = a.Ints("stride")
		}
		if v, ok := a["count_include_pad"].(bool); ok && !v {
			o.ExcludePad = true
		}
		if a.Has("divisor_override") {
			d := a.I("divisor_override")
			o.DivisorOverride = &d
		}
		return o
	}
	withIndices := func(a Args, v, i *torch.Tensor) []*torch.Tensor {
		if a.B("return_indices") {
			return []*torch.Tensor{v, i}
		}
		return One(v)
	}
	first := func(a Args) int {
		k := a.Ints("kernel_size")
		if len(k) == 0 {
			return 0
		}
		return k[0]
	}
	ops := map[string]Func{
		"max_pool2d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			v, i := torch.MaxPool2dWithIndices(in[0], a.Ints("kernel_size"), maxOpts(a))
			return withIndices(a, v, i)
		},
		"max_pool1d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			if !a.B("return_indices") {
				return One(torch.MaxPool1d(in[0], first(a), maxOpts(a)))
			}
			v, i := torch.MaxPool1dWithIndices(in[0], first(a), maxOpts(a))
			return withIndices(a, v, i)
		},
		"avg_pool2d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(torch.AvgPool2d(in[0], a.Ints("kernel_size"), avgOpts(a)))
		},
		"avg_pool1d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(torch.AvgPool1d(in[0], first(a), avgOpts(a)))
		},
		"adaptive_avg_pool2d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(torch.AdaptiveAvgPool2d(in[0], a.Ints("output_size")))
		},
		"adaptive_max_pool2d": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			v, i := torch.AdaptiveMaxPool2d(in[0], a.Ints("output_size"))
			return withIndices(a, v, i)
		},
	}
	for name, f := range ops {
		Register(name, f)
	}
}
