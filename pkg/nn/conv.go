package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ConvConfig are a convolution module's settings after its channels and
// kernel size, as torch.nn.Conv2d's keyword arguments: nil Stride,
// Padding, Dilation are 1, 0, 1 (one value for every dim), Groups 0 means
// 1, NoBias drops the bias.
//
// PyTorch's padding is either sizes (Padding) or a string, "same" or
// "valid" (PaddingString); its padding_mode is PaddingMode: "" or "zeros"
// pad with zeros inside the convolution, "reflect", "replicate" or
// "circular" pad the input with nn.Pad in that mode first and then
// convolve it without padding, as PyTorch does. With zero padding the
// string may stand in PaddingMode instead ({PaddingMode: "same"} is
// {PaddingString: "same"}). "same" pads by dilation*(kernel-1) in all,
// half before and the rest (one more for an odd total) after, as
// PyTorch's _reversed_padding_repeated_twice; it needs a stride of 1.
// Other strings, or sizes and a string both, make a layer whose tensors
// and outputs carry the error PyTorch's constructor raises.
type ConvConfig struct {
	Stride        []int
	Padding       []int
	PaddingString string
	PaddingMode   string
	Dilation      []int
	Groups        int
	NoBias        bool
}

// Conv2d is torch.nn.Conv2d.
type Conv2d struct {
	Base
	Weight *torch.Tensor // [out, in/groups, kH, kW]
	Bias   *torch.Tensor // [out]; nil for none

	convCore
}

// Conv1d is torch.nn.Conv1d.
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
	padStr string // "same", "valid", or "" for the sizes in cfg.Padding
	mode   string // "zeros", "reflect", "replicate" or "circular"
	err    error  // an invalid configuration, which Forward reports
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
	name := fmt.Sprintf("Conv%dd", nd)
	padStr, mode, err := paddingArgs(name, cfg)
	w, b, k := convTensors(name, nd, in, out, kernel, cfg.Groups, false, cfg.NoBias, err, opts)
	cfg.Stride, cfg.Padding, cfg.Dilation = slices.Clone(cfg.Stride), slices.Clone(cfg.Padding), slices.Clone(cfg.Dilation)
	if err == nil {
		err = w.Err()
	}
	return &Conv2d{Weight: w, Bias: b, convCore: convCore{nd: nd, kernel: k, cfg: cfg, padStr: padStr, mode: mode, err: err}}
}

// paddingArgs reads PyTorch's padding string ("same", "valid" or "" for
// sizes) and padding mode from cfg, or the error PyTorch's constructor
// raises.
func paddingArgs(name string, cfg ConvConfig) (padStr, mode string, err error) {
	switch mode = cfg.PaddingMode; mode {
	case "", "zeros":
		mode = "zeros"
	case "same", "valid":
		padStr, mode = mode, "zeros"
	case "reflect", "replicate", "circular":
	default:
		return "", "", fmt.Errorf("nn.%s: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'} "+
			"(or padding 'same', 'valid'), but got padding_mode='%s'", name, cfg.PaddingMode)
	}
	switch s := cfg.PaddingString; {
	case s == "":
	case s != "same" && s != "valid":
		return "", "", fmt.Errorf("nn.%s: Invalid padding string '%s', should be one of {'valid', 'same'}", name, s)
	case padStr != "" && padStr != s:
		return "", "", fmt.Errorf("nn.%s: padding is both '%s' (PaddingMode) and '%s' (PaddingString)", name, padStr, s)
	default:
		padStr = s
	}
	if padStr != "" && len(cfg.Padding) > 0 {
		return "", "", fmt.Errorf("nn.%s: padding is both %s and '%s'", name, pyTuple(cfg.Padding), padStr)
	}
	if padStr == "same" && slices.ContainsFunc(cfg.Stride, func(s int) bool { return s != 1 }) {
		return "", "", fmt.Errorf("nn.%s: padding='same' is not supported for strided convolutions", name)
	}
	return padStr, mode, nil
}

// convTensors makes a convolution module's weight and bias as PyTorch's
// _ConvNd.reset_parameters: Kaiming-uniform weights (a = sqrt(5)), then a
// bias uniform in ±1/sqrt(fan_in), fan_in being the weight's size(1)
// times the kernel's. The weight is [out, in/groups, k...], or [in,
// out/groups, k...] when transposed. With an invalid configuration (or
// err) both tensors carry the error. k is the kernel size per dim.
func convTensors(name string, nd, in, out int, kernel []int, groups int, transposed, noBias bool, err error,
	opts []torch.Option) (w, b *torch.Tensor, k []int) {
	k = make([]int, nd)
	for i := range k {
		switch len(kernel) {
		case 1:
			k[i] = kernel[0]
		case nd:
			k[i] = kernel[i]
		}
	}
	g := max(groups, 1)
	switch {
	case err != nil:
	case groups < 0:
		err = fmt.Errorf("nn.%s: groups must be a positive integer, got %d", name, groups)
	case in < 0 || out < 0:
		err = fmt.Errorf("nn.%s: negative channels %d, %d", name, in, out)
	case in%g != 0:
		err = fmt.Errorf("nn.%s: in_channels must be divisible by groups", name)
	case out%g != 0:
		err = fmt.Errorf("nn.%s: out_channels must be divisible by groups", name)
	case len(kernel) != 1 && len(kernel) != nd:
		err = fmt.Errorf("nn.%s: kernel_size must have 1 or %d values, got %v", name, nd, kernel)
	}
	for _, v := range k {
		if v <= 0 && err == nil {
			err = fmt.Errorf("nn.%s: kernel size must be positive, got %v", name, kernel)
		}
	}
	if err != nil {
		f := torch.Failed(err)
		return f, f, k
	}
	shape := append([]int{out, in / g}, k...)
	if transposed {
		shape[0], shape[1] = in, out/g
	}
	wt := torch.Empty(shape, opts...)
	KaimingUniform_(wt, math.Sqrt(5), "fan_in", "leaky_relu", opts...)
	w = Parameter(wt)
	if !noBias {
		fanIn := shape[1]
		for _, v := range k {
			fanIn *= v
		}
		bound := 0.0
		if fanIn > 0 {
			bound = 1 / math.Sqrt(float64(fanIn))
		}
		bt := torch.Empty([]int{out}, opts...)
		Uniform_(bt, -bound, bound, opts...)
		b = Parameter(bt)
	}
	return w, b, k
}

func (c *convCore) options() torch.ConvOptions {
	o := torch.ConvOptions{Stride: c.cfg.Stride, Padding: c.cfg.Padding, PaddingMode: c.padStr,
		Dilation: c.cfg.Dilation, Groups: c.cfg.Groups}
	if c.padsInput() { // the input is padded already
		o.Padding, o.PaddingMode = nil, ""
	}
	return o
}

// padsInput reports whether the input is padded by nn.Pad before the
// convolution: a padding mode other than zeros ("" for a module not made
// by its constructor).
func (c *convCore) padsInput() bool { return c.mode != "zeros" && c.mode != "" }

// forward is conv (torch.Conv1d or Conv2d) of x, after PyTorch's F.pad
// for a padding mode other than zeros.
func (c *convCore) forward(conv func(x, w, b *torch.Tensor, o torch.ConvOptions) *torch.Tensor, x, w, b *torch.Tensor) *torch.Tensor {
	if err := inputErr(fmt.Sprintf("conv%dd", c.nd), x); err != nil {
		return torch.Failed(err)
	}
	if c.err != nil {
		return torch.Failed(c.err)
	}
	if c.padsInput() {
		if err := inputErr(fmt.Sprintf("conv%dd", c.nd), w); err != nil {
			return torch.Failed(err)
		}
		x = Pad(x, c.reversedPadding(), c.mode, 0)
	}
	return conv(x, w, b, c.options())
}

// reversedPadding is PyTorch's _reversed_padding_repeated_twice: the
// (before, after) padding of each dim, the last dim first, as F.pad takes
// it. For "same" a dim pads dilation*(kernel-1) in all, the odd one after.
func (c *convCore) reversedPadding() []int {
	p, d := c.expand(c.cfg.Padding, 0), c.expand(c.cfg.Dilation, 1)
	pad := make([]int, 0, 2*c.nd)
	for i := c.nd - 1; i >= 0; i-- {
		switch c.padStr {
		case "same":
			total := d[i] * (c.kernel[i] - 1)
			pad = append(pad, total/2, total-total/2)
		case "valid":
			pad = append(pad, 0, 0)
		default:
			pad = append(pad, p[i], p[i])
		}
	}
	return pad
}

// expand is a size argument with one value per dim (def for none).
func (c *convCore) expand(v []int, def int) []int {
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

// Forward applies the layer to x ([N, C, H, W] or [C, H, W]).
func (c *Conv2d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv2d", "Conv2d", x)
	}
	return c.forward(torch.Conv2d, x, c.Weight, c.Bias)
}

// Forward applies the layer to x ([N, C, L] or [C, L]).
func (c *Conv1d) Forward(x *torch.Tensor) *torch.Tensor {
	if c == nil {
		return nilModule("conv1d", "Conv1d", x)
	}
	return c.forward(torch.Conv1d, x, c.Weight, c.Bias)
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
	return c.reprArgs(in, out, nil, bias)
}

// reprArgs is PyTorch's _ConvNd.extra_repr; outPad is a transposed
// convolution's output_padding.
func (c *convCore) reprArgs(in, out int, outPad []int, bias bool) string {
	allEq := func(v []int, x int) bool {
		for _, e := range v {
			if e != x {
				return false
			}
		}
		return true
	}
	s := fmt.Sprintf("%d, %d, kernel_size=%s, stride=%s", in, out, pyTuple(c.kernel), pyTuple(c.expand(c.cfg.Stride, 1)))
	if c.padStr != "" {
		s += ", padding=" + c.padStr
	} else if p := c.expand(c.cfg.Padding, 0); !allEq(p, 0) {
		s += ", padding=" + pyTuple(p)
	}
	if d := c.expand(c.cfg.Dilation, 1); !allEq(d, 1) {
		s += ", dilation=" + pyTuple(d)
	}
	if outPad != nil && !allEq(outPad, 0) {
		s += ", output_padding=" + pyTuple(outPad)
	}
	if c.cfg.Groups > 1 {
		s += fmt.Sprintf(", groups=%d", c.cfg.Groups)
	}
	if !bias {
		s += ", bias=False"
	}
	if c.padsInput() {
		s += ", padding_mode=" + c.mode
	}
	return s
}

// String prints the module as PyTorch does.
func (c *Conv2d) String() string { return Repr(c) }

// String prints the module as PyTorch does.
func (c *Conv1d) String() string { return Repr(c) }
