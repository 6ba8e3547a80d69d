package nn

import (
	"fmt"
	"math"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ConvConfig are a convolution module's settings after its channels and
// kernel size, as torch.nn.Conv2d's keyword arguments: nil Stride,
// Padding, Dilation are 1, 0, 1 (one value for every dim), PaddingMode
// "same" or "valid" replaces Padding, Groups 0 means 1, NoBias drops the
// bias.
type ConvConfig struct {
	Stride      []int
	Padding     []int
	PaddingMode string
	Dilation    []int
	Groups      int
	NoBias      bool
}

// Conv2d is torch.nn.Conv2d (zero padding).
type Conv2d struct {
	Base
	Weight *torch.Tensor // [out, in/groups, kH, kW]
	Bias   *torch.Tensor // [out]; nil for none

	convCore
}

// Conv1d is torch.nn.Conv1d (zero padding).
type Conv1d struct {
	Base
	Weight *torch.Tensor // [out, in/groups, k]
	Bias   *torch.Tensor // [out]; nil for none

	convCore
}

// convCore is a convolution module's configuration.
type convCore struct {
	nd     int
	kernel []int
	cfg    ConvConfig
}

// NewConv2d makes a Conv2d layer from in to out channels with a kernel of
// kernel (one size for both dims, or two), initialised as PyTorch's:
// Kaiming-uniform weights (a = sqrt(5)) and a bias uniform in ±1/sqrt(fan_in),
// drawn from the generator of opts, so that a seeded layer has PyTorch's
// values. An invalid configuration gives a layer whose tensors carry the error.
func NewConv2d(in, out int, kernel []int, cfg ConvConfig, opts ...torch.Option) *Conv2d {
	return newConv(2, in, out, kernel, cfg, opts)
}

// NewConv1d makes a Conv1d layer (kernel: one size).
func NewConv1d(in, out int, kernel []int, cfg ConvConfig, opts ...torch.Option) *Conv1d {
	c := newConv(1, in, out, kernel, cfg, opts)
	return &Conv1d{Weight: c.Weight, Bias: c.Bias, convCore: c.convCore}
}

func newConv(nd, in, out int, kernel []int, cfg ConvConfig, opts []torch.Option) *Conv2d {
	groups := max(cfg.Groups, 1)
	k := make([]int, nd)
	for i := range k {
		switch len(kernel) {
		case 1:
			k[i] = kernel[0]
		case nd:
			k[i] = kernel[i]
		}
	}
	name := fmt.Sprintf("Conv%dd", nd)
	var err error
	switch {
	case cfg.Groups < 0 || in%groups != 0:
		err = fmt.Errorf("nn.%s: in_channels must be divisible by groups", name)
	case out%groups != 0:
		err = fmt.Errorf("nn.%s: out_channels must be divisible by groups", name)
	case len(kernel) != 1 && len(kernel) != nd:
		err = fmt.Errorf("nn.%s: kernel_size must have 1 or %d values, got %v", name, nd, kernel)
	case in < 0 || out < 0:
		err = fmt.Errorf("nn.%s: negative channels %d, %d", name, in, out)
	}
	for _, v := range k {
		if v <= 0 && err == nil {
			err = fmt.Errorf("nn.%s: kernel size must be positive, got %v", name, kernel)
		}
	}
	if err != nil {
		f := torch.Failed(err)
		return &Conv2d{Weight: f, Bias: f, convCore: convCore{nd: nd, kernel: k, cfg: cfg}}
	}
	shape := append([]int{out, in / groups}, k...)
	w := torch.Empty(shape, opts...)
	KaimingUniform_(w, math.Sqrt(5), "fan_in", "leaky_relu", opts...)
	c := &Conv2d{Weight: Parameter(w), convCore: convCore{nd: nd, kernel: k, cfg: cfg}}
	if !cfg.NoBias {
		fanIn := in / groups
		for _, v := range k {
			fanIn *= v
		}
		bound := 0.0
		if fanIn > 0 {
			bound = 1 / math.Sqrt(float64(fanIn))
		}
		b := torch.Empty([]int{out}, opts...)
		Uniform_(b, -bound, bound, opts...)
		c.Bias = Parameter(b)
	}
	return c
}

func (c *convCore) options() torch.ConvOptions {
	return torch.ConvOptions{Stride: c.cfg.Stride, Padding: c.cfg.Padding, PaddingMode: c.cfg.PaddingMode,
		Dilation: c.cfg.Dilation, Groups: c.cfg.Groups}
}

// Forward applies the layer to x ([N, C, H, W] or [C, H, W]).
func (c *Conv2d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv2d", "Conv2d", x)
	}
	return torch.Conv2d(x, c.Weight, c.Bias, c.options())
}

// Forward applies the layer to x ([N, C, L] or [C, L]).
func (c *Conv1d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv1d", "Conv1d", x)
	}
	return torch.Conv1d(x, c.Weight, c.Bias, c.options())
}

// ExtraRepr is PyTorch's: "3, 8, kernel_size=(3, 3), stride=(1, 1), ...".
func (c *Conv2d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

// ExtraRepr is PyTorch's: "3, 8, kernel_size=(3,), stride=(1,)".
func (c *Conv1d) ExtraRepr() string {
	if c == nil {
		return ""
	}
	return c.extraRepr(c.Weight, c.Bias != nil)
}

func (c *convCore) extraRepr(weight *torch.Tensor, bias bool) string {
	in, out := 0, 0
	if s := weight.Shape(); len(s) == c.nd+2 {
		out, in = s[0], s[1]*max(c.cfg.Groups, 1)
	}
	expand := func(v []int, def int) []int {
		r := make([]int, c.nd)
		for i := range r {
			switch len(v) {
			case 0:
				r[i] = def
			case 1:
				r[i] = v[0]
			default:
				r[i] = v[min(i, len(v)-1)]
			}
		}
		return r
	}
	tuple := func(v []int) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		if len(v) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	allEq := func(v []int, x int) bool {
		for _, e := range v {
			if e != x {
				return false
			}
		}
		return true
	}
	s := fmt.Sprintf("%d, %d, kernel_size=%s, stride=%s", in, out, tuple(c.kernel), tuple(expand(c.cfg.Stride, 1)))
	if c.cfg.PaddingMode != "" {
		s += ", padding=" + c.cfg.PaddingMode
	} else if p := expand(c.cfg.Padding, 0); !allEq(p, 0) {
		s += ", padding=" + tuple(p)
	}
	if d := expand(c.cfg.Dilation, 1); !allEq(d, 1) {
		s += ", dilation=" + tuple(d)
	}
	if c.cfg.Groups > 1 {
		s += fmt.Sprintf(", groups=%d", c.cfg.Groups)
	}
	if !bias {
		s += ", bias=False"
	}
	return s
}

// String prints the module as PyTorch does.
func (c *Conv2d) String() string { return Repr(c) }

// String prints the module as PyTorch does.
func (c *Conv1d) String() string { return Repr(c) }
